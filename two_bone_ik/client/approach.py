"""A target's orientation from an approach pitch and roll (ROS-free).

The one place where ``two_bone_ik_target --pitch P --roll R`` (and a path's ``pitch,roll``
columns) become a quaternion, so that the convention can be aligned with the desktop arms' in
one function. The convention, in ``base_frame``:

1. yaw about the base z axis toward the target's azimuth, ``atan2(y, x)`` (0 for a target on
   the z axis);
2. then pitch about the arm's horizontal axis (the yawed y axis): a positive pitch tilts the
   approach up, toward +z;
3. then roll about the approach direction (the tool's x axis), right-handed.

So the tool frame's x axis is the approach direction ``(cos P cos Y, cos P sin Y, sin P)``, and
at zero roll its y axis is horizontal (to the left of the approach, seen from above) and its z
axis points up out of the approach. As rotations: ``R = Rz(yaw) Ry(-pitch) Rx(roll)``.
"""

import math
from typing import NamedTuple


class Quaternion(NamedTuple):
    """A unit quaternion, as ``geometry_msgs/Quaternion`` orders it."""

    x: float
    y: float
    z: float
    w: float


#: No rotation (what a ``PoseStamped`` holds when nobody sets the orientation).
IDENTITY = Quaternion(0.0, 0.0, 0.0, 1.0)


def _product(a: Quaternion, b: Quaternion) -> Quaternion:
    """Return the Hamilton product ``a b`` (rotate by ``b``, then by ``a``)."""
    return Quaternion(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z)


def approach_quaternion(x: float, y: float, pitch: float, roll: float) -> Quaternion:
    """Return the orientation that approaches the target at ``(x, y, .)`` with pitch and roll.

    Parameters
    ----------
    x, y : float
        The target's position in ``base_frame``, metres (only its azimuth is used).
    pitch : float
        Approach pitch, radians: 0 horizontal, positive tilts the approach up (toward +z).
    roll : float
        Roll about the approach direction, radians, right-handed.

    Returns
    -------
    Quaternion
        ``Rz(atan2(y, x)) Ry(-pitch) Rx(roll)`` (see the module docstring).

    Raises
    ------
    ValueError
        If a value is not finite.
    """
    values = {'x': x, 'y': y, 'pitch': pitch, 'roll': roll}
    for name, value in values.items():
        if not math.isfinite(value):
            raise ValueError(f'{name} must be finite, got {value!r}')
    yaw = math.atan2(y, x)
    about_z = Quaternion(0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))
    about_y = Quaternion(0.0, math.sin(-pitch / 2), 0.0, math.cos(-pitch / 2))
    about_x = Quaternion(math.sin(roll / 2), 0.0, 0.0, math.cos(roll / 2))
    return _product(_product(about_z, about_y), about_x)
