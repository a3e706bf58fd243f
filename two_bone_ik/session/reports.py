"""The IK node's ``/diagnostics`` statuses about its arm and its motion, in words (no ROS)."""

from typing import Mapping, Optional

from two_bone_ik.ik.status import ERROR, OK, WARN
from two_bone_ik.session.arm_source import ArmSource
from two_bone_ik.session.commanded_motion import CommandedMotion, shown
from two_bone_ik.session.outputs import Report


def arm_report(arm: ArmSource) -> Report:
    """Return the arm description in use, or why there is none (ERROR)."""
    solver = arm.solver
    if arm.problem:
        level = ERROR
        message = arm.problem + ('; the previous arm stays in force' if solver is not None else '')
    elif solver is None:
        level = ERROR
        message = f'no robot description yet on {arm.topic}'
    else:
        level = OK
        message = solver.geometry.describe()
    values = [('source', arm.describe_source())]
    if solver is not None:
        values.append(('joint_names', ','.join(solver.geometry.joint_names)))
    return Report(level, 'arm', message, tuple(values))


def _motion_state(motion: CommandedMotion) -> str:
    stream = motion.stream
    if not stream.planned:
        return 'no motion planning (every motion limit infinite): one command per target'
    if motion.moving:
        return f'moving, {stream.remaining():.3f} s left'
    return 'at rest'


def motion_report(motion: CommandedMotion, subscribers: Mapping[str, int],
                  refusal: Optional[str] = None) -> Report:
    """Return where the commanded motion is: moving or at rest, time left, limits, outputs.

    Parameters
    ----------
    motion : CommandedMotion
    subscribers : mapping of str to int
        Subscribers of each command output, by topic (empty: no command output).
    refusal : str, optional
        Why the last ``joint_states`` message was refused, if it was.
    """
    stream = motion.stream
    message = _motion_state(motion)
    level = OK
    if not subscribers:
        message += ('; no command output (publish_joint_commands is false and no controller '
                    'is named)')
    elif not any(subscribers.values()):
        # The commands go nowhere: no controller (or sim, or servo node) listens.
        level = WARN
        message += '; nothing subscribes to ' + ' or '.join(subscribers)
    if motion.failure:
        level = max(level, WARN)
        message += f'; last failure: {motion.failure}'
    if refusal:
        level = max(level, WARN)
        message += f'; joint_states refused: {refusal}'
    limits = stream.limits
    measured = stream.measured_position
    values = (('planned', 'true' if stream.planned else 'false'),
              ('moving', 'true' if motion.moving else 'false'),
              ('remaining_s', f'{stream.remaining():.6f}'),
              ('command_rate_hz', f'{stream.rate:g}'),
              ('commands_streamed', str(motion.streamed)),
              ('subscribers', ', '.join(f'{topic}: {count}'
                                        for topic, count in subscribers.items())),
              ('measured_position', 'none' if measured is None else shown(measured)),
              ('max_joint_velocity', shown(limits.velocity)),
              ('max_joint_acceleration', shown(limits.acceleration)),
              ('max_joint_jerk', shown(limits.jerk)))
    return Report(level, 'motion', message, values)
