"""diagnostic_msgs for the nodes: one way from a level and key/value pairs to a DiagnosticStatus.

The ROS-free code reports levels as the integers of :mod:`two_bone_ik.ik.status` (0 OK, 1 WARN,
2 ERROR); here they become the bytes ``diagnostic_msgs/DiagnosticStatus`` carries. A target's
stamp names it in ``motion_status`` (:func:`target_id`), for the node and the tools alike.
"""

from typing import Iterable, Tuple

from diagnostic_msgs.msg import DiagnosticStatus, KeyValue

from two_bone_ik.ik.status import ERROR, OK, WARN

_LEVEL_BYTES = {OK: DiagnosticStatus.OK, WARN: DiagnosticStatus.WARN,
                ERROR: DiagnosticStatus.ERROR, 3: DiagnosticStatus.STALE}  # 3: a servo's STALE


def level_byte(level: int) -> bytes:
    """Return the DiagnosticStatus level byte of a level 0 (OK), 1 (WARN), 2 (ERROR), 3 (STALE)."""
    return _LEVEL_BYTES[level]


def diagnostic_status(level: int, name: str, message: str, hardware_id: str,
                      values: Iterable[Tuple[str, str]] = ()) -> DiagnosticStatus:
    """Return a DiagnosticStatus; ``level`` 0 to 3, ``values`` (key, value) string pairs."""
    return DiagnosticStatus(level=_LEVEL_BYTES[level], name=name, message=message,
                            hardware_id=hardware_id,
                            values=[KeyValue(key=k, value=v) for k, v in values])


def target_id(stamp) -> str:
    """Return the ``motion_status`` ``target_id`` of a target's ``header.stamp``: ``sec.nanosec``.

    Nine digits of nanoseconds, e.g. ``1718000000.250000000`` (a zero stamp: ``0.000000000``).
    """
    return f'{stamp.sec}.{stamp.nanosec:09d}'
