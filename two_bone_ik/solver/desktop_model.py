"""The canonical desktop arm the closed form solves: a yaw, the two-bone pair, a pitch, a roll.

A :class:`DesktopArm` is built once per arm (by :mod:`two_bone_ik.arm.desktop_geometry`, from a
URDF chain or from parameters) and describes the ideal arm in the frame the solver works in:

- ``origin`` O, a point of the yaw axis, and three orthonormal axes: ``up`` (the yaw axis on
  ``base_frame``'s +z side), ``forward`` (horizontal, toward the tool point at zero readings)
  and ``normal = forward x up`` (the pair's joint axes at zero yaw). Without a yaw joint, O is
  where the shoulder axis meets the tool's plane and (``forward``, ``up``) are the plane's
  (u, v) axes, chosen as for a planar arm.
- In the arm's plane, coordinates (u, v) from O along ``forward`` and ``up``: the shoulder at
  ``shoulder``, link 1 of length l1 at solver angle ``q1`` from +u toward +v, link 2 of length
  l2 at ``q2`` relative to link 1 (exactly the planar solver's convention), with
  ``q_i = z_i + d_i * reading_i`` (``zero_angles``, ``directions``).
- The wrist point P, where the pitch axis meets the plane (the end of link 2), whose plane is
  ``wrist_lateral`` from O along the normal; the pitch joint turns everything after it by
  ``q3 = d3 * reading3`` about the normal.
- The tool point's offset from P at zero pair and pitch readings, as a function of the roll
  reading r: ``a + cos(r) b + sin(r) c`` in (u, v, normal) components (``tool``). Without a roll
  joint ``b = c = 0``; without a pitch joint P is the tool point itself and ``a = 0``.

The approach pitch of a pose is ``phi = q1 + q2 + q3 + beta(r)``, the in-plane direction from P
to the tool point, ``beta(r)`` being that direction at zero pair and pitch readings minus
``z1 + z2``. The yaw turns the whole arm about ``up`` through O by ``psi = d0 * reading0``.

Orientations: the tip frame's rotation is ``Rot(up, psi) Rot(normal, Q) Rot(roll_axis, r)
tip_rotation`` with ``Q = q1 + q2 + q3 - z1 - z2`` (``roll_axis`` and ``tip_rotation`` at zero
readings; without a roll joint, ``roll_axis`` is the approach direction at zero readings, a
virtual axis for splitting an orientation).

The real arm (a URDF's own kinematics, its axes off the ideal ones by at most the shape
tolerance) is ``segments`` and ``tail`` (:mod:`two_bone_ik.solver.chain_kinematics`); ``exact``
says the ideal arm equals it to rounding, so no correction is needed; ``model_error`` (m) bounds
how far the ideal arm's tool point can be from the real one's at the same readings.
"""

import math
from typing import NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.solver import IkInputError
from two_bone_ik.solver.chain_kinematics import (
    apply, multiply, Rotation, rotation_about, Segment, transpose, Vector)

#: Shape names, as the desktop geometry reads them.
YAW_PAIR = 'yaw + pair'
PAIR_PITCH = 'pair + pitch'
YAW_PAIR_PITCH = 'yaw + pair + pitch'
YAW_PAIR_PITCH_ROLL = 'yaw + pair + pitch + roll'
SHAPES = (YAW_PAIR, PAIR_PITCH, YAW_PAIR_PITCH, YAW_PAIR_PITCH_ROLL)


class ToolAtRoll(NamedTuple):
    """The tool point's offset from the wrist point at one roll reading.

    Attributes
    ----------
    length : float
        l3, its in-plane distance from the wrist pitch axis, m.
    beta : float
        Its in-plane direction at zero pair and pitch readings minus ``z1 + z2``, rad.
    lateral : float
        The tool point's distance from O along the normal (its plane's offset from the yaw
        axis), m.
    """

    length: float
    beta: float
    lateral: float


class DesktopArm(NamedTuple):
    """The canonical parameters of a desktop arm (see the module docstring). SI units."""

    shape: str
    origin: Vector
    forward: Vector
    up: Vector
    normal: Vector
    shoulder: Tuple[float, float]
    wrist_lateral: float
    link_lengths: Tuple[float, float]
    zero_angles: Tuple[float, float]
    directions: Tuple[int, ...]
    tool: Tuple[Vector, Vector, Vector]
    roll_axis: Vector
    tip_rotation: Rotation
    lower_limits: Tuple[float, ...]
    upper_limits: Tuple[float, ...]
    segments: Tuple[Segment, ...]
    tail: Tuple[Rotation, Vector]
    exact: bool
    model_error: float = 0.0

    @property
    def has_yaw(self) -> bool:
        """Whether the first joint is a yaw."""
        return self.shape != PAIR_PITCH

    @property
    def has_pitch(self) -> bool:
        """Whether a wrist pitch follows the pair."""
        return self.shape != YAW_PAIR

    @property
    def has_roll(self) -> bool:
        """Whether a wrist roll follows the pitch."""
        return self.shape == YAW_PAIR_PITCH_ROLL

    @property
    def joint_count(self) -> int:
        """N, the number of moving joints."""
        return len(self.directions)

    @property
    def indices(self) -> Tuple[Optional[int], int, int, Optional[int], Optional[int]]:
        """Reading indices of (yaw, shoulder, elbow, pitch, roll); None where absent."""
        first = 1 if self.has_yaw else 0
        return (0 if self.has_yaw else None, first, first + 1,
                first + 2 if self.has_pitch else None, first + 3 if self.has_roll else None)

    def tool_at(self, roll: float) -> ToolAtRoll:
        """Return the tool point's offset from the wrist point at roll reading ``roll`` (rad)."""
        a, b, c = self.tool
        cos_r, sin_r = math.cos(roll), math.sin(roll)
        tu = a[0] + cos_r * b[0] + sin_r * c[0]
        tv = a[1] + cos_r * b[1] + sin_r * c[1]
        tn = a[2] + cos_r * b[2] + sin_r * c[2]
        z1, z2 = self.zero_angles
        return ToolAtRoll(math.hypot(tu, tv), math.atan2(tv, tu) - z1 - z2,
                          self.wrist_lateral + tn)

    def max_tool_length(self) -> float:
        """Largest in-plane distance from the wrist pitch axis to the tool point over the roll, m.

        The in-plane parts of ``b`` and ``c`` are parallel (the roll axis lies in the arm's
        plane), so the tool point's in-plane offset runs on a segment ``a + s p``, ``|s| <=
        hypot(|b|, |c|)``: its farthest point from the pitch axis is an end.
        """
        a, b, c = self.tool
        span = math.sqrt(b[0] * b[0] + b[1] * b[1] + c[0] * c[0] + c[1] * c[1])
        if span == 0.0:
            return math.hypot(a[0], a[1])
        longer = b if math.hypot(b[0], b[1]) >= math.hypot(c[0], c[1]) else c
        pu, pv = longer[0], longer[1]
        scale = span / math.hypot(pu, pv)
        pu, pv = pu * scale, pv * scale
        return max(math.hypot(a[0] + pu, a[1] + pv), math.hypot(a[0] - pu, a[1] - pv))

    @property
    def reach(self) -> float:
        """l1 + l2 + the largest l3: the scale of the on-target tolerance, m."""
        l1, l2 = self.link_lengths
        return l1 + l2 + (self.max_tool_length() if self.has_pitch else 0.0)

    def to_world(self, yaw: float, u: float, v: float, n: float) -> Vector:
        """Return the base-frame point at plane coordinates (u, v, n) with the arm at ``yaw``."""
        c, s = math.cos(yaw), math.sin(yaw)
        f, w, m, o = self.forward, self.up, self.normal, self.origin
        # The yaw turns forward to cos f - sin m and the normal to cos m + sin f.
        fu, fn = c * u + s * n, c * n - s * u
        return (o[0] + fu * f[0] + v * w[0] + fn * m[0], o[1] + fu * f[1] + v * w[1] + fn * m[1],
                o[2] + fu * f[2] + v * w[2] + fn * m[2])

    def plane_points(self, readings: Sequence[float]):
        """Shoulder, elbow, wrist and tool (u, v) and the yaw and lateral offset at readings.

        Returns
        -------
        yaw : float
            Solver yaw angle, rad (0 without a yaw joint).
        points : tuple of 4 (u, v)
            Shoulder, elbow, wrist point, tool point in the arm's plane, m.
        lateral : float
            The tool point's offset along the normal, m.
        """
        yaw_index, i1, i2, i3, i4 = self.indices
        yaw = self.directions[0] * readings[0] if yaw_index is not None else 0.0
        (z1, z2), d = self.zero_angles, self.directions
        q1 = z1 + d[i1] * readings[i1]
        q12 = q1 + z2 + d[i2] * readings[i2]
        l1, l2 = self.link_lengths
        su, sv = self.shoulder
        eu, ev = su + l1 * math.cos(q1), sv + l1 * math.sin(q1)
        wu, wv = eu + l2 * math.cos(q12), ev + l2 * math.sin(q12)
        tool = self.tool_at(readings[i4] if i4 is not None else 0.0)
        phi = q12 + (d[i3] * readings[i3] if i3 is not None else 0.0) + tool.beta
        tu, tv = wu + tool.length * math.cos(phi), wv + tool.length * math.sin(phi)
        return yaw, ((su, sv), (eu, ev), (wu, wv), (tu, tv)), tool.lateral


def quaternion_rotation(quaternion: Sequence[float]) -> Rotation:
    """Row-major rotation of a quaternion ``(x, y, z, w)``, normalised first.

    Raises
    ------
    IkInputError
        If it is not four finite numbers or has (almost) no length.
    """
    try:
        x, y, z, w = (float(v) for v in quaternion)
    except (TypeError, ValueError):
        raise IkInputError(f'orientation must be a quaternion (x, y, z, w), got {quaternion!r}')
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    if not math.isfinite(norm) or norm < 1e-9:
        raise IkInputError(f'orientation ({x!r}, {y!r}, {z!r}, {w!r}) is not a rotation')
    x, y, z, w = x / norm, y / norm, z / norm, w / norm
    return (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w),
            2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w),
            2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y))


class OrientationSplit(NamedTuple):
    """An orientation of the tip frame split about the arm's own axes.

    Attributes
    ----------
    yaw : float
        Solver yaw angle about ``up``, rad.
    pitch_sum : float
        ``Q = q1 + q2 + q3 - z1 - z2``, rad: the turn about the normal.
    roll : float
        Turn about ``roll_axis``, rad (the roll reading, or the dropped roll without one).
    """

    yaw: float
    pitch_sum: float
    roll: float


def split_orientation(arm: DesktopArm, rotation: Rotation, yaw_hint: float) -> OrientationSplit:
    """Split a tip rotation as ``Rot(up, yaw) Rot(normal, Q) Rot(roll_axis, roll) tip_rotation``.

    Of the two splits (``yaw``, ``Q``, ``roll``) and (``yaw + pi``, ``pi - ...``), the one whose
    yaw is within a quarter turn of ``yaw_hint`` (rad); when the roll axis would point along
    ``up`` (the yaw and roll axes aligned, any yaw fits) the yaw is ``yaw_hint`` itself.
    """
    m = multiply(rotation, transpose(arm.tip_rotation))
    f, w, n, a = arm.forward, arm.up, arm.normal, arm.roll_axis
    v = apply(m, a)
    vf = v[0] * f[0] + v[1] * f[1] + v[2] * f[2]
    vw = v[0] * w[0] + v[1] * w[1] + v[2] * w[2]
    vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2]
    horizontal = math.hypot(vf, vn)
    if horizontal <= 1e-12:
        yaw = yaw_hint
        # In the plane at yaw_hint the axis points straight up or down.
        elevation = math.copysign(0.5 * math.pi, vw)
    else:
        yaw = math.atan2(-vn, vf)
        elevation = math.atan2(vw, horizontal)
        if abs(math.remainder(yaw - yaw_hint, math.tau)) > 0.5 * math.pi:
            yaw = math.remainder(yaw + math.pi, math.tau)
            elevation = math.remainder(math.pi - elevation, math.tau)
    elevation_zero = math.atan2(a[0] * w[0] + a[1] * w[1] + a[2] * w[2],
                                a[0] * f[0] + a[1] * f[1] + a[2] * f[2])
    pitch_sum = elevation - elevation_zero
    # What is left about the roll axis: Rot(n, -Q) Rot(w, -yaw) m applied to the normal.
    rest = multiply(multiply(rotation_about(n, -pitch_sum), rotation_about(w, -yaw)), m)
    x = apply(rest, n)
    across = (a[1] * n[2] - a[2] * n[1], a[2] * n[0] - a[0] * n[2], a[0] * n[1] - a[1] * n[0])
    roll = math.atan2(x[0] * across[0] + x[1] * across[1] + x[2] * across[2],
                      x[0] * n[0] + x[1] * n[1] + x[2] * n[2])
    return OrientationSplit(yaw, pitch_sum, roll)
