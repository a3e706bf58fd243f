"""The arm plane of a hand-written configuration: two principal axes (u, v) of ``base_frame``.

``plane`` names them: ``'xy'`` (u = x, v = y), ``'xz'`` (u = x, v = z) or ``'yz'`` (u = y,
v = z). The joint axes point along u x v (xy: +z, xz: -y, yz: +x), and the signed offset of a
point from the plane is measured along that axis. ROS-free.
"""

from typing import Tuple

#: Indices (into x, y, z) of the arm plane's u and v axes.
PLANE_AXES = {'xy': (0, 1), 'xz': (0, 2), 'yz': (1, 2)}

#: Per plane: (index of the plane normal in x, y, z; sign of the joint axis u x v along it).
PLANE_NORMALS = {'xy': (2, 1.0), 'xz': (1, -1.0), 'yz': (0, 1.0)}


def to_plane(xyz, plane: str) -> Tuple[float, float, float]:
    """Express a point of ``base_frame`` in the arm plane.

    Parameters
    ----------
    xyz : sequence of 3 float, metres
        Point in ``base_frame``.
    plane : {'xy', 'xz', 'yz'}

    Returns
    -------
    tuple of 3 float, metres
        ``(u, v, off_plane)``: in-plane coordinates and the signed offset from the
        plane along the joint axis u x v.
    """
    iu, iv = PLANE_AXES[plane]
    normal, sign = PLANE_NORMALS[plane]
    return (float(xyz[iu]), float(xyz[iv]), sign * float(xyz[normal]))


def from_plane(u: float, v: float, plane: str) -> Tuple[float, float, float]:
    """Return the point ``(x, y, z)`` of ``base_frame`` at plane coordinates (u, v), metres."""
    xyz = [0.0, 0.0, 0.0]
    iu, iv = PLANE_AXES[plane]
    xyz[iu] = float(u)
    xyz[iv] = float(v)
    return (xyz[0], xyz[1], xyz[2])
