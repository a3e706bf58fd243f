"""What the IK node's ``motion_status`` says about one command, and the line the tools print.

ROS-free: the rclpy shells pass a status's level, message and key/value pairs. As for
``ik_status`` (:mod:`two_bone_ik.client.ik_answer`), statuses are read by number (``code``):
20 ``MOVING``, 21 ``ARRIVED``, 22 ``NOT_FOLLOWING``, 23 ``GOAL_MISSED``, 24 ``NOT_MONITORED``.
"""

from dataclasses import dataclass
import math
from typing import Mapping, Optional, Tuple

#: The motion_status codes the tools act on.
MOVING = 20
ARRIVED = 21
NOT_MONITORED = 24

Point = Tuple[float, float, float]


@dataclass(frozen=True)
class MotionAnswer:
    """One ``motion_status``.

    Attributes
    ----------
    code : int or None
        The status number, None if the status had no integer code.
    name : str
        The status name, e.g. ``'ARRIVED'``.
    message : str
        The message, starting with the name.
    target_id : str
        The command it is about: a target's stamp (``sec.nanosec``), ``twist`` or ``stop``.
    target_error : float
        Metres from the measured tool point to the target (NaN if unknown).
    tool_point, measured_tool_point : tuple of 3 float or None
        The commanded and the measured tool point, m in ``base_frame`` (None if unknown).
    """

    code: Optional[int]
    name: str
    message: str
    target_id: str
    target_error: float = math.nan
    tool_point: Optional[Point] = None
    measured_tool_point: Optional[Point] = None

    @property
    def final(self) -> bool:
        """Whether it is a verdict (anything but ``MOVING``): nothing more comes about it."""
        return self.code != MOVING

    @property
    def arrived(self) -> bool:
        return self.code == ARRIVED


def parse_point(text: Optional[str]) -> Optional[Point]:
    """Return the point ``[0.1, 0.2, 0.3]`` says (m); anything else (``unknown``): None."""
    try:
        point = tuple(float(v) for v in (text or '').strip().strip('[]').split(','))
    except ValueError:
        return None
    return point if len(point) == 3 and all(math.isfinite(v) for v in point) else None


def motion_answer_from_status(message: str, values: Mapping[str, str]) -> MotionAnswer:
    """Return the :class:`MotionAnswer` of a ``motion_status`` (malformed values: unknown)."""
    code_text = values.get('code', '').strip()
    code = int(code_text) if code_text.lstrip('-').isdigit() else None
    try:
        target_error = float(values.get('target_error', 'nan'))
    except ValueError:
        target_error = math.nan
    return MotionAnswer(code, values.get('status') or message.split(':', 1)[0] or 'UNKNOWN',
                        message, values.get('target_id', ''), target_error,
                        parse_point(values.get('tool_point')),
                        parse_point(values.get('measured_tool_point')))


def _why(answer: MotionAnswer) -> str:
    prefix = f'{answer.name}: '
    return answer.message[len(prefix):] if answer.message.startswith(prefix) else answer.message


def arrival_line(answer: Optional[MotionAnswer], waited: float,
                 other: Optional[str] = None, unpublished: str = '') -> str:
    """Return the one line ``two_bone_ik_target`` prints about arrival.

    Parameters
    ----------
    answer : MotionAnswer or None
        The verdict about the tool's target, None if none came.
    waited : float
        Seconds waited for it (said when none came).
    other : str, optional
        The ``target_id`` of another command the node took up meanwhile (no verdict about
        this target will come).
    unpublished : str
        The ``motion_status`` topic, when nothing publishes it (a node older than it).
    """
    if answer is not None and answer.arrived:
        distance = ('an unknown distance' if math.isnan(answer.target_error)
                    else f'{answer.target_error * 1000.0:.1f} mm')
        return f'arrived: tool point {distance} from the target (measured)'
    if answer is not None and answer.code == NOT_MONITORED:
        return f'arrival unknown: {_why(answer)}'
    if answer is not None:
        return f'not arrived: {answer.name}: {_why(answer)}'
    if unpublished:
        return f'arrival unknown: nothing publishes {unpublished}'
    if other is not None:
        return f'not arrived: another command ({other}) took over before the arm got there'
    return f'arrival unknown: no motion_status about this target within {waited:g} s'
