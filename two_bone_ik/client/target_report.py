"""What ``two_bone_ik_target`` prints: one answer, or a path's summary table (ROS-free)."""

from collections import Counter
import math
from typing import List, Optional, Sequence

from two_bone_ik.client.ik_answer import IkAnswer
from two_bone_ik.client.target_path import PathTarget
from two_bone_ik.common.number_text import number_text

#: How a target without an answer shows in the table and the counts.
NO_ANSWER = 'no answer'


def _metres(value: float) -> str:
    return 'unknown' if math.isnan(value) else number_text(value, 'm', 6)


def format_answer(answer: IkAnswer, joints_note: str = '') -> str:
    """Return the lines printed for one answered target.

    Parameters
    ----------
    answer : IkAnswer
        The node's answer, with its joint command if one came.
    joints_note : str
        Why there is no joint command (shown instead of the joints when ``answer.joints`` is
        None), e.g. ``'none: the target was rejected'``.

    Returns
    -------
    str
        ``status``, ``message``, ``tip_error`` and ``joints`` lines (one indented line per
        joint: name and position in radians, 6 decimals), newline-terminated.
    """
    code = '?' if answer.code is None else str(answer.code)
    lines = [f'status:    {code} {answer.name} ({answer.level_name})',
             f'message:   {answer.message}',
             f'tip_error: {_metres(answer.tip_error)}']
    joints = answer.joints
    if joints is None:
        lines.append(f'joints:    {joints_note or "none"}')
    else:
        lines.append('joints (rad):')
        width = max(len(name) for name in joints.names) if joints.names else 0
        lines.extend(f'  {name:<{width}}  {position:+.6f}'
                     for name, position in zip(joints.names, joints.positions))
    return '\n'.join(lines) + '\n'


def orientation_note(answer: Optional[IkAnswer], node: str) -> str:
    """Return why an orientation sent (--pitch, --roll) was not used, and how to use it.

    ``''`` when the node used it, did not say (``use_orientation`` is a desktop arm's value)
    or did not answer. ``node`` is the IK node's full name.
    """
    if answer is None or answer.use_orientation is not False:
        return ''
    return ("the orientation (--pitch/--roll) was not used: the node's use_orientation is "
            'false (it approaches at its approach_pitch); to use it: ros2 param set '
            f'{node} use_orientation true, or use_orientation: true in its params file')


def _status_text(answer: Optional[IkAnswer]) -> str:
    if answer is None:
        return NO_ANSWER
    return f"{'?' if answer.code is None else answer.code} {answer.name}"


def summary_table(targets: Sequence[PathTarget], answers: Sequence[Optional[IkAnswer]]) -> str:
    """Return a path's summary: a row per target, the counts per status, the worst tip error.

    Parameters
    ----------
    targets : sequence of PathTarget
        The path, in the order sent.
    answers : sequence of IkAnswer or None
        The answer to each target (None: no answer), same length.

    Returns
    -------
    str
        A table (time s, x y z m, status code and name, tip error m), then
        ``statuses: <name> <count>, ...`` in order of first appearance and
        ``worst tip error: ...`` naming the target's time; newline-terminated.
    """
    lines: List[str] = [f"{'t (s)':>8} {'x (m)':>8} {'y (m)':>8} {'z (m)':>8}  "
                        f"{'status':<24} {'tip_error (m)':>13}"]
    counts: Counter = Counter()
    worst: Optional[tuple] = None
    for target, answer in zip(targets, answers):
        status = _status_text(answer)
        counts[NO_ANSWER if answer is None else answer.name] += 1
        error = '' if answer is None or math.isnan(answer.tip_error) else (
            f'{answer.tip_error:.6f}')
        lines.append(f'{target.time:8.3f} {target.x:8.3f} {target.y:8.3f} {target.z:8.3f}  '
                     f'{status:<24} {error:>13}')
        if answer is not None and not math.isnan(answer.tip_error):
            if worst is None or answer.tip_error > worst[0]:
                worst = (answer.tip_error, target.time)
    lines.append('statuses: ' + ', '.join(f'{name} {count}' for name, count in counts.items()))
    if worst is None:
        lines.append('worst tip error: unknown (no answer gave one)')
    else:
        lines.append(f'worst tip error: {worst[0]:.6f} m (the target at {worst[1]:.3f} s)')
    return '\n'.join(lines) + '\n'
