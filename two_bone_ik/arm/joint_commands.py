"""Joint commands matched to an arm's joints by name, as JointState subscribers must (ROS-free).

Used by every node that takes ``sensor_msgs/JointState`` commands (the simulated arm, the servo
driver): names may come in any order, unknown names and NaN, infinite or missing positions are
reported rather than applied (:func:`command_problems` words the report).
"""

import math
from typing import NamedTuple, Sequence, Tuple


class CommandMatch(NamedTuple):
    """A joint command matched to the arm's joints by name (see :func:`match_command`).

    Attributes
    ----------
    targets : dict
        ``{joint index: position}`` of the accepted entries, rad.
    unknown : tuple of str
        Names that are not joints of the arm.
    invalid : tuple of str
        Arm joints whose position was NaN, infinite or missing.
    """

    targets: dict
    unknown: Tuple[str, ...]
    invalid: Tuple[str, ...]


def match_command(names: Sequence[str], positions: Sequence[float],
                  joint_names: Sequence[str]) -> CommandMatch:
    """Match a JointState-style command to the arm's joints by name.

    Parameters
    ----------
    names : sequence of str
        Joint names of the command.
    positions : sequence of float
        Positions of the command, rad, parallel to ``names``; it may be shorter (the joints
        without a position are reported invalid).
    joint_names : sequence of str
        The arm's joint names.

    Returns
    -------
    CommandMatch
        Accepted targets by joint index (the last entry wins when a name repeats), unknown names
        and invalid entries. Arm joints absent from ``names`` are simply left out.
    """
    index = {name: i for i, name in enumerate(joint_names)}
    targets = {}
    unknown = []
    invalid = []
    for k, name in enumerate(names):
        if name not in index:
            unknown.append(str(name))
            continue
        value = float(positions[k]) if k < len(positions) else math.nan
        if math.isfinite(value):
            targets[index[name]] = value
        else:
            invalid.append(name)
    return CommandMatch(targets, tuple(unknown), tuple(invalid))


def command_problems(match: CommandMatch, joint_names: Sequence[str],
                     unnamed: bool = False) -> Tuple[Tuple[str, str], ...]:
    """Word what :func:`match_command` left out of a ``joint_commands`` message.

    Parameters
    ----------
    match : CommandMatch
        The match of the message to ``joint_names``.
    joint_names : sequence of str
        The node's joints.
    unnamed : bool
        Whether the message gave positions without joint names.

    Returns
    -------
    tuple of (str, str)
        ``(kind, line)`` per kind of problem (``'unknown'``, ``'invalid'``, ``'unnamed'``),
        so a caller can throttle each kind on its own; empty when all was used.
    """
    problems = []
    if match.unknown:
        problems.append(('unknown', 'joint_commands: ignoring unknown joint(s) '
                         f"{', '.join(match.unknown)} (this arm has {', '.join(joint_names)})"))
    if match.invalid:
        problems.append(('invalid', 'joint_commands: ignoring NaN, infinite or missing position '
                         f"for {', '.join(match.invalid)}"))
    if unnamed:
        problems.append(('unnamed', 'joint_commands: ignoring a command without joint names '
                         '(joints are matched by name)'))
    return tuple(problems)
