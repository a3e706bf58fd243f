"""What ``motion_status`` (and ``ik_status``'s tool points) say, in words and values (no ROS).

A :class:`~two_bone_ik.session.arrival.Verdict` becomes ``(level, message, values)``, as
``ik_status`` is built: the message starts with the status name; the values are ``code``,
``status``, ``target_id``, ``joint_errors`` (each joint's reading minus the command it is
compared with, rad, ``unknown`` without a reading), ``tool_error`` (the tool point of the
readings from that of the command, m, by the arm's own kinematics), ``target_error`` (from the
target; for a jog or a stop, from the command), ``tool_point`` and ``measured_tool_point`` (m in
``base_frame``; ``unknown`` without a reading of every joint).
"""

import math
from typing import Callable, Optional, Sequence, Tuple

from two_bone_ik.ik.status import MOTION_LEVELS
from two_bone_ik.session.arrival import Readings, Verdict

Point = Tuple[float, float, float]
Values = Tuple[Tuple[str, str], ...]

UNKNOWN = 'unknown'


def point_text(point: Optional[Sequence[float]]) -> str:
    """``[0.412000, 0.100000, 0.000000]`` (m), or ``unknown``."""
    if point is None:
        return UNKNOWN
    return '[' + ', '.join(f'{v:.6f}' for v in point) + ']'


def _metres(value: Optional[float]) -> str:
    return UNKNOWN if value is None else f'{value:.6f}'


def measured_point(tool_point: Optional[Callable[[Sequence[float]], Point]],
                   measured: Readings) -> Optional[Point]:
    """Return the tool point of the readings (every joint read), else None."""
    if tool_point is None or any(m is None for m in measured):
        return None
    return tuple(float(v) for v in tool_point(measured))


def tool_point_values(tool_point: Optional[Callable[[Sequence[float]], Point]],
                      commanded: Optional[Sequence[float]], measured: Readings) -> Values:
    """``tool_point`` (of ``commanded``) and ``measured_tool_point`` values."""
    commanded_point = None
    if tool_point is not None and commanded is not None:
        commanded_point = tuple(float(v) for v in tool_point(commanded))
    return (('tool_point', point_text(commanded_point)),
            ('measured_tool_point', point_text(measured_point(tool_point, measured))))


def motion_status(verdict: Verdict,
                  tool_point: Optional[Callable[[Sequence[float]], Point]]
                  ) -> Tuple[int, str, Values]:
    """Return a verdict's ``motion_status``: level, message, (key, value) pairs.

    ``tool_point`` is the arm's forward kinematics (readings -> m in ``base_frame``), or None
    without an arm. A verdict without a text (a target's ``MOVING``) says where it goes:
    ``toward [0.412000, -1.038000] rad``.
    """
    status = verdict.status
    text = verdict.text or 'toward [' + ', '.join(f'{v:.6f}' for v in verdict.commanded) + '] rad'
    errors = ', '.join(f'{name}: {UNKNOWN if e is None else format(e, "+.6f")}'
                       for name, e in zip(verdict.names, verdict.errors))
    commanded_point = None if tool_point is None else tuple(
        float(v) for v in tool_point(verdict.commanded))
    measured = measured_point(tool_point, verdict.measured)
    target = verdict.target if verdict.target is not None else commanded_point
    tool_error = target_error = None
    if measured is not None:
        tool_error = math.dist(measured, commanded_point)
        target_error = math.dist(measured, target)
    values = (('code', str(int(status))), ('status', status.name),
              ('target_id', verdict.target_id), ('joint_errors', errors),
              ('tool_error', _metres(tool_error)), ('target_error', _metres(target_error)),
              ('tool_point', point_text(commanded_point)),
              ('measured_tool_point', point_text(measured)))
    return MOTION_LEVELS[status], f'{status.name}: {text}', values
