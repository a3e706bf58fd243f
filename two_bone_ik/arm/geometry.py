"""Where a real arm is: its plane in ``base_frame``, its shoulder, how its joints read (no ROS).

The solver works in an idealised plane: shoulder at the origin, link 1 at angle ``q1`` from +u
toward +v, link 2 at ``q2`` relative to link 1. A real arm differs in three ways, all captured
by :class:`ArmGeometry`:

- its plane may lie anywhere in ``base_frame``: ``shoulder_position`` (where the shoulder axis
  meets the plane the tip moves in) and two orthonormal axes ``u_axis``, ``v_axis`` of it, the
  joint axes being parallel to their cross product ``normal = u x v``;
- its joints read 0 where it was built to, not along +u: ``zero_angles`` ``(z1, z2)`` are link
  1's angle from +u toward +v and link 2's angle relative to link 1 when both joints read 0;
- a positive reading may turn a link either way: ``directions`` ``(d1, d2)`` are +1 when it
  turns the link from +u toward +v (the joint's axis along ``normal``) and -1 when it turns it
  the other way (the axis along ``-normal``).

So ``q_i = z_i + d_i * reading_i`` and ``reading_i = d_i * (q_i - z_i)``. Joint limits, velocity
limits and everything published are in readings; the elbow branch stays geometric (the side of
the shoulder-to-target line, in (u, v), the elbow is on).

Choosing (u, v) for an arm whose plane is tilted (from a URDF): the base frame's principal
plane (``xy``, ``xz`` or ``yz``) whose normal is closest to the joint axes is taken, its normal's
sign kept (xy: +z, xz: -y, yz: +x), and its u axis projected onto the arm's plane; so "up"
means what it means for the nearest hand-written plane (for an arm in the vertical xz plane,
the elbow on the +z side).
"""

from dataclasses import dataclass
import math
from typing import Sequence, Tuple

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.plane import PLANE_AXES, PLANE_NORMALS

Vector = Tuple[float, float, float]

_INF = math.inf


def _unit(index: int, sign: float = 1.0) -> Vector:
    out = [0.0, 0.0, 0.0]
    out[index] = sign
    return (out[0], out[1], out[2])


def cross(a: Sequence[float], b: Sequence[float]) -> Vector:
    """Cross product of two 3-vectors."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    """Dot product of two 3-vectors."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def normalized(a: Sequence[float]) -> Vector:
    """Return the unit vector along ``a`` (which must not be zero)."""
    norm = math.sqrt(dot(a, a))
    return (a[0] / norm, a[1] / norm, a[2] / norm)


def principal_plane_axes(axis: Sequence[float]) -> Tuple[str, Vector, Vector, Vector]:
    """Choose (u, v) for an arm whose joints turn about ``axis`` (see the module docstring).

    Parameters
    ----------
    axis : sequence of 3 float
        A joint axis direction in ``base_frame`` (any length > 0, either sign).

    Returns
    -------
    plane : str
        The nearest principal plane, ``'xy'``, ``'xz'`` or ``'yz'``.
    u_axis, v_axis, normal : tuple of 3 float
        Orthonormal, ``normal = u x v = +-axis``, u the projection of the principal plane's u.
    """
    axis = normalized(axis)
    plane = max(PLANE_NORMALS, key=lambda p: abs(axis[PLANE_NORMALS[p][0]]))
    index, sign = PLANE_NORMALS[plane]
    principal_normal = _unit(index, sign)
    normal = axis if dot(axis, principal_normal) > 0.0 else (-axis[0], -axis[1], -axis[2])
    u_principal = _unit(PLANE_AXES[plane][0])
    along = dot(u_principal, normal)
    u_axis = normalized(tuple(u_principal[i] - along * normal[i] for i in range(3)))
    v_axis = cross(normal, u_axis)
    return plane, u_axis, v_axis, normal


class JointRanges:
    """What every arm's geometry says of its joint limits (planar pair and desktop arm alike).

    Mixed into a class with ``lower_limits`` and ``upper_limits`` (per joint, in readings,
    infinite where open).
    """

    @property
    def continuous(self) -> Tuple[bool, ...]:
        """Per joint: unlimited on both sides."""
        return tuple(lo == -_INF and hi == _INF
                     for lo, hi in zip(self.lower_limits, self.upper_limits))

    @property
    def limited(self) -> bool:
        """Whether any joint limit is finite."""
        return any(math.isfinite(v) for v in self.lower_limits + self.upper_limits)


@dataclass(frozen=True)
class ArmGeometry(JointRanges):
    """A planar two-link arm as it sits in ``base_frame``, in its own joint convention.

    Build it with :meth:`from_config` (a hand-written configuration) or
    :func:`two_bone_ik.arm.urdf_import.arm_from_urdf` (a URDF). Lengths in metres, angles in
    radians, velocities in rad/s; limits and velocity limits are per joint, in readings.

    Attributes
    ----------
    joint_names : tuple of 2 str
    base_frame : str
        Frame targets are expressed in.
    shoulder_position : tuple of 3 float
        Where the shoulder axis meets the plane the tip moves in.
    u_axis, v_axis : tuple of 3 float
        Orthonormal axes of that plane.
    link_lengths : tuple of 2 float
        Shoulder axis to elbow axis, elbow axis to tip, in the plane.
    zero_angles : tuple of 2 float
        Link 1's angle from +u and link 2's angle relative to link 1 at zero readings.
    directions : tuple of 2 int
        +1 or -1 per joint (see the module docstring).
    lower_limits, upper_limits : tuple of 2 float
        Joint limits in readings; infinite where unlimited.
    velocity_limits : tuple of 2 float
        From a URDF's ``<limit velocity>``; infinite when unknown.
    plane_name : str
        ``'xy'``, ``'xz'``, ``'yz'`` for a principal plane, else the nearest one's name with
        ``' (tilted)'`` (for messages only).
    tip_frame : str
        The URDF link whose origin is the tip; empty for a hand-written arm.
    """

    joint_names: Tuple[str, str]
    base_frame: str
    shoulder_position: Vector
    u_axis: Vector
    v_axis: Vector
    link_lengths: Tuple[float, float]
    zero_angles: Tuple[float, float] = (0.0, 0.0)
    directions: Tuple[int, int] = (1, 1)
    lower_limits: Tuple[float, float] = (-_INF, -_INF)
    upper_limits: Tuple[float, float] = (_INF, _INF)
    velocity_limits: Tuple[float, float] = (_INF, _INF)
    plane_name: str = 'xy'
    tip_frame: str = ''

    @classmethod
    def from_config(cls, config: ArmConfig) -> 'ArmGeometry':
        """Return the arm a hand-written configuration describes (a principal plane)."""
        iu, iv = PLANE_AXES[config.plane]
        return cls(
            joint_names=config.joint_names, base_frame=config.base_frame,
            shoulder_position=config.shoulder_position, u_axis=_unit(iu), v_axis=_unit(iv),
            link_lengths=config.link_lengths, zero_angles=config.joint_zero_angles,
            directions=config.joint_directions, lower_limits=config.joint_lower_limits,
            upper_limits=config.joint_upper_limits, plane_name=config.plane)

    # -- derived ------------------------------------------------------------------------------

    @property
    def normal(self) -> Vector:
        """``u x v``: the direction a joint with direction +1 turns about."""
        return cross(self.u_axis, self.v_axis)

    @property
    def reach(self) -> Tuple[float, float]:
        """Inner and outer reach radius ``(|l1 - l2|, l1 + l2)``, m (ignoring limits)."""
        l1, l2 = self.link_lengths
        return (abs(l1 - l2), l1 + l2)

    def solver_limits(self) -> Tuple[Tuple[float, float], Tuple[float, float]]:
        """Return the joint limits as solver angles ``((lo1, hi1), (lo2, hi2))``, rad."""
        limits = []
        for zero, direction, lo, hi in zip(self.zero_angles, self.directions,
                                           self.lower_limits, self.upper_limits):
            if direction > 0:
                limits.append((zero + lo, zero + hi))
            else:
                limits.append((zero - hi, zero - lo))
        return (limits[0], limits[1])

    # -- joint convention ---------------------------------------------------------------------

    def solver_angles(self, readings: Sequence[float]) -> Tuple[float, float]:
        """Solver angles (q1, q2) of joint readings, rad."""
        z1, z2 = self.zero_angles
        d1, d2 = self.directions
        return (z1 + d1 * readings[0], z2 + d2 * readings[1])

    def readings(self, q1: float, q2: float) -> Tuple[float, float]:
        """Joint readings of solver angles (q1, q2), rad."""
        z1, z2 = self.zero_angles
        d1, d2 = self.directions
        return (d1 * (q1 - z1), d2 * (q2 - z2))

    # -- positions ----------------------------------------------------------------------------

    def to_plane(self, point: Sequence[float]) -> Tuple[float, float, float]:
        """Express a point of ``base_frame`` in the arm plane.

        Returns
        -------
        tuple of 3 float, metres
            ``(u, v, off_plane)``: coordinates from the shoulder along u and v, and the signed
            distance from the plane the tip moves in, along ``normal``.
        """
        o = self.shoulder_position
        d = (point[0] - o[0], point[1] - o[1], point[2] - o[2])
        return (dot(d, self.u_axis), dot(d, self.v_axis), dot(d, self.normal))

    def from_plane(self, u: float, v: float, off_plane: float = 0.0) -> Vector:
        """Return the point of ``base_frame`` at plane coordinates (u, v, off-plane), m."""
        o, a, b, n = self.shoulder_position, self.u_axis, self.v_axis, self.normal
        return tuple(o[i] + u * a[i] + v * b[i] + off_plane * n[i] for i in range(3))

    def tip_position(self, readings: Sequence[float]) -> Vector:
        """Where the tip is in ``base_frame`` for joint readings, m."""
        q1, q2 = self.solver_angles(readings)
        l1, l2 = self.link_lengths
        return self.from_plane(l1 * math.cos(q1) + l2 * math.cos(q1 + q2),
                               l1 * math.sin(q1) + l2 * math.sin(q1 + q2))

    def elbow_position(self, readings: Sequence[float]) -> Vector:
        """Where the elbow axis meets the tip's plane, in ``base_frame``, for readings, m."""
        q1, _ = self.solver_angles(readings)
        l1 = self.link_lengths[0]
        return self.from_plane(l1 * math.cos(q1), l1 * math.sin(q1))

    def arm_points(self, readings: Sequence[float]) -> Tuple[Vector, Vector, Vector]:
        """Return the shoulder, elbow and tip in ``base_frame`` at joint readings, m."""
        return (self.shoulder_position, self.elbow_position(readings),
                self.tip_position(readings))

    def describe(self) -> str:
        """One line for logs: lengths, plane, shoulder, zero angles and directions."""
        l1, l2 = self.link_lengths
        shoulder = ', '.join(f'{c:g}' for c in self.shoulder_position)
        zeros = ', '.join(f'{z:.4g}' for z in self.zero_angles)
        directions = ', '.join(f'{d:+d}' for d in self.directions)
        return (f'links {l1:g} + {l2:g} m in the {self.plane_name} plane of '
                f"'{self.base_frame}', shoulder at ({shoulder}) m, zero angles ({zeros}) rad, "
                f'directions ({directions})')
