"""The IK node's answer to one target, as its ``ik_status`` says it, and the exit codes.

ROS-free: the rclpy shells pass the status's level, message and key/value pairs. Statuses are
handled by number (``code``), so that a status newer than this module (e.g. a desktop arm's
``APPROACH_ADJUSTED``, 14) is still read, named and counted.
"""

from dataclasses import dataclass
import math
from typing import Mapping, Optional, Sequence, Tuple

from two_bone_ik.client.motion_answer import parse_point, Point

#: Codes whose tip is on the target: REACHED (0), ELBOW_FLIPPED (4), APPROACH_ADJUSTED (14).
REACHED_CODES = frozenset({0, 4, 14})

#: Exit code: the target (every target of a path) was reached.
EXIT_REACHED = 0
#: Exit code: answered, but not reached (or some target of a path not reached or unanswered).
EXIT_NOT_REACHED = 1
#: Exit code: nobody answered (no node, or no answer within the timeout), or a bad command line.
EXIT_NO_ANSWER = 2
#: Exit code: reached, but the arm did not get there (or nothing says it did).
EXIT_NOT_ARRIVED = 3
#: Exit code after Ctrl-C, as a shell reports a command that SIGINT ended.
EXIT_INTERRUPTED = 130

#: ``diagnostic_msgs/DiagnosticStatus`` levels by number.
LEVEL_NAMES = {0: 'OK', 1: 'WARN', 2: 'ERROR', 3: 'STALE'}
#: The level of a rejected target: nothing is commanded for it.
ERROR_LEVEL = 2


@dataclass(frozen=True)
class JointPositions:
    """A joint command: names and positions (radians, or metres for a prismatic joint)."""

    names: Tuple[str, ...]
    positions: Tuple[float, ...]


@dataclass(frozen=True)
class IkAnswer:
    """What the node said about one target.

    Attributes
    ----------
    code : int or None
        The status number (``code``), None if the status had no integer code.
    name : str
        The status name (``status``), e.g. ``'REACHED'``.
    message : str
        The status message, starting with the name.
    level : int
        0 OK, 1 WARN, 2 ERROR.
    tip_error : float
        Metres between the commanded tip and the target (``tip_error``); NaN if not given.
    moving : bool
        Whether a planned motion streams toward the command (``moving``).
    motion_remaining : float
        Seconds until the arm is at rest on the command (``motion_remaining``); 0 if not given.
    joints : JointPositions or None
        The command for this target (the last one of a motion, at rest), once known.
    use_orientation : bool or None
        Whether the node used the target's orientation (its ``use_orientation`` value, a
        desktop arm's), None when it does not say (a planar arm, which has no wrist).
    tool_point, measured_tool_point : tuple of 3 float or None
        The commanded tool point and that of the latest measured readings, m in
        ``base_frame`` (``tool_point``, ``measured_tool_point``); None if unknown.
    arrival : str
        The node's last ``motion_status`` name (``arrival``); empty if not given.
    """

    code: Optional[int]
    name: str
    message: str
    level: int
    tip_error: float
    moving: bool = False
    motion_remaining: float = 0.0
    joints: Optional[JointPositions] = None
    use_orientation: Optional[bool] = None
    tool_point: Optional[Point] = None
    measured_tool_point: Optional[Point] = None
    arrival: str = ''

    @property
    def reached(self) -> bool:
        """Whether the commanded tip is on the target."""
        return self.code in REACHED_CODES

    @property
    def commands(self) -> bool:
        """Whether a joint command follows (a rejected target, level ERROR, commands none)."""
        return self.level < ERROR_LEVEL

    @property
    def level_name(self) -> str:
        return LEVEL_NAMES.get(self.level, str(self.level))


def _number(text: Optional[str], default: float) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return default


def answer_from_status(level: int, message: str, values: Mapping[str, str]) -> IkAnswer:
    """Return the :class:`IkAnswer` of an ``ik_status`` (its level, message and values).

    Missing or malformed values are read as unknown (code None, tip error NaN), never raised.
    """
    code_text = values.get('code', '')
    code = int(code_text) if code_text.strip().lstrip('-').isdigit() else None
    name = values.get('status') or message.split(':', 1)[0] or 'UNKNOWN'
    remaining = _number(values.get('motion_remaining'), 0.0)
    used = values.get('use_orientation', '').strip().lower()
    return IkAnswer(code=code, name=name, message=message, level=int(level),
                    tip_error=_number(values.get('tip_error'), math.nan),
                    moving=values.get('moving', '').strip().lower() == 'true',
                    motion_remaining=remaining if math.isfinite(remaining) else 0.0,
                    use_orientation={'true': True, 'false': False}.get(used),
                    tool_point=parse_point(values.get('tool_point')),
                    measured_tool_point=parse_point(values.get('measured_tool_point')),
                    arrival=values.get('arrival', ''))


def target_exit_code(answer: Optional[IkAnswer], arrived: Optional[bool] = None) -> int:
    """Return the exit code for one target.

    Reached 0, answered otherwise 1, no answer 2; reached but not ``arrived`` 3 (``arrived``
    None: not waited for, as with ``--no-wait``).
    """
    if answer is None:
        return EXIT_NO_ANSWER
    if not answer.reached:
        return EXIT_NOT_REACHED
    return EXIT_NOT_ARRIVED if arrived is False else EXIT_REACHED


def path_exit_code(answers: Sequence[Optional[IkAnswer]]) -> int:
    """Return the exit code for a path: all reached 0, nothing answered 2, otherwise 1."""
    if all(answer is None for answer in answers):
        return EXIT_NO_ANSWER
    if all(answer is not None and answer.reached for answer in answers):
        return EXIT_REACHED
    return EXIT_NOT_REACHED
