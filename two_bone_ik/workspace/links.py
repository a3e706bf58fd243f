"""The arm's moving links as capsules, from the arm's own kinematics (no ROS; math and numpy).

Each moving link is a capsule: the segment between consecutive joint origins, and from the
last joint's origin to the tool point, with its ``link_radius``. Link ``i`` (1...N) is the one
joint ``i`` turns (from joint ``i``'s origin to joint ``i + 1``'s, or the tool point); the
base's own segment below the first joint never counts. The points of a pose, in
``base_frame``:

- a planar pair (:class:`~two_bone_ik.arm.geometry.ArmGeometry`): the shoulder, the elbow and
  the tip, in the plane the tip moves in;
- a desktop arm (:class:`~two_bone_ik.arm.desktop_geometry.DesktopGeometry`): every moving
  joint's origin and the tool point, from its chain's forward kinematics
  (:mod:`two_bone_ik.solver.chain_kinematics`: the URDF's own, or the chain written from the
  parameters).

``levers`` bound how fast the links move: a joint turning by ``d`` rad moves no point of the
links after it by more than ``d * levers[joint]`` metres (the sum of the segment lengths from
its origin on), which is how motions are sampled finely enough (see
:mod:`two_bone_ik.workspace.path_check`).
"""

import math
from typing import Sequence, Tuple

import numpy as np

from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.solver.chain_kinematics import chain_pose, chain_poses

Point = Tuple[float, float, float]


def link_names(joint_names: Sequence[str]) -> Tuple[str, ...]:
    """``("link 1 ('shoulder' to 'elbow')", "link 2 ('elbow' to the tool point)")``."""
    count = len(joint_names)
    return tuple(f"link {i + 1} ('{joint_names[i]}' to "
                 + (f"'{joint_names[i + 1]}')" if i + 1 < count else 'the tool point)')
                 for i in range(count))


def _canonical(model, point):
    """(u, v, n) of a base-frame point in the arm's frame at zero yaw."""
    d = [p - o for p, o in zip(point, model.origin)]
    return tuple(sum(a * b for a, b in zip(d, axis))
                 for axis in (model.forward, model.up, model.normal))


class _ExactDesktopPoints:
    """A desktop arm's points in closed form, as its solver's model computes them (fast).

    For an exact arm (its joints' axes those of its shape, to rounding) each pair or pitch
    joint's origin is the point of its axis in the arm's plane, moved along the normal by a
    fixed amount; the roll joint's origin turns with the pitch; the tool point is the model's.
    """

    def __init__(self, model, zero_points):
        self._model = model
        self._first = tuple(zero_points[0])
        self._indices = model.indices
        self._directions = model.directions
        self._frame = (tuple(model.origin), tuple(model.forward), tuple(model.up),
                       tuple(model.normal))
        self._pair = (model.zero_angles, model.link_lengths, model.shoulder)
        self._tool = tuple(model.tool_at(0.0))
        self._tool_at_roll = (0.0, self._tool)  # (roll, the tool there): the last one asked
        yaw_index, i1, i2, i3, i4 = model.indices
        canonical = [_canonical(model, p) for p in zero_points]
        self._laterals = tuple(c[2] for c in canonical)
        self._roll = None
        if i4 is not None:
            _, (_, _, wrist, _), _ = model.plane_points((0.0,) * model.joint_count)
            u, v, _ = canonical[i4]
            self._roll = (u - wrist[0], v - wrist[1])

    def __call__(self, readings):
        yaw_index, i1, i2, i3, i4 = self._indices
        d = self._directions
        yaw = d[0] * readings[0] if yaw_index is not None else 0.0
        c, s = math.cos(yaw), math.sin(yaw)
        (ox, oy, oz), (fx, fy, fz), (wx, wy, wz), (mx, my, mz) = self._frame
        # The yaw turns forward to c f - s m and the normal to s f + c m.
        ax, ay, az = c * fx - s * mx, c * fy - s * my, c * fz - s * mz
        bx, by, bz = s * fx + c * mx, s * fy + c * my, s * fz + c * mz
        (z1, z2), (l1, l2), (su, sv) = self._pair
        q1 = z1 + d[i1] * readings[i1]
        q12 = q1 + z2 + d[i2] * readings[i2]
        eu, ev = su + l1 * math.cos(q1), sv + l1 * math.sin(q1)
        wu, wv = eu + l2 * math.cos(q12), ev + l2 * math.sin(q12)
        n = self._laterals
        plane = []
        for index, u, v in ((i1, su, sv), (i2, eu, ev), (i3, wu, wv)):
            if index is not None and index > 0:
                plane.append((u, v, n[index]))
        pitch = d[i3] * readings[i3] if i3 is not None else 0.0
        if i4 is not None:
            turn = d[i1] * readings[i1] + d[i2] * readings[i2] + pitch
            ct, st = math.cos(turn), math.sin(turn)
            ru, rv = self._roll
            plane.append((wu + ct * ru - st * rv, wv + st * ru + ct * rv, n[i4]))
            roll, tool = self._tool_at_roll
            if roll != readings[i4]:
                tool = self._model.tool_at(readings[i4])
                self._tool_at_roll = (readings[i4], tool)
            length, beta, lateral = tool
        else:
            length, beta, lateral = self._tool
        phi = q12 + pitch + beta
        plane.append((wu + length * math.cos(phi), wv + length * math.sin(phi), lateral))
        points = [self._first]
        for u, v, m in plane:
            points.append((ox + u * ax + v * wx + m * bx, oy + u * ay + v * wy + m * by,
                           oz + u * az + v * wz + m * bz))
        return tuple(points)


class _PlanarPoints:
    """A planar arm's shoulder, elbow and tip, in closed form with its constants kept (fast)."""

    def __init__(self, geometry: ArmGeometry):
        self._origin = tuple(geometry.shoulder_position)
        self._u, self._v = tuple(geometry.u_axis), tuple(geometry.v_axis)
        self._zero, self._direction = geometry.zero_angles, geometry.directions
        self._lengths = geometry.link_lengths

    def __call__(self, readings):
        (z1, z2), (d1, d2), (l1, l2) = self._zero, self._direction, self._lengths
        q1 = z1 + d1 * readings[0]
        q12 = q1 + z2 + d2 * readings[1]
        eu, ev = l1 * math.cos(q1), l1 * math.sin(q1)
        tu, tv = eu + l2 * math.cos(q12), ev + l2 * math.sin(q12)
        (ox, oy, oz), (ux, uy, uz), (vx, vy, vz) = self._origin, self._u, self._v
        return ((ox, oy, oz), (ox + eu * ux + ev * vx, oy + eu * uy + ev * vy,
                               oz + eu * uz + ev * vz),
                (ox + tu * ux + tv * vx, oy + tu * uy + tv * vy, oz + tu * uz + tv * vz))


def _fast_points(geometry, segments, tail):
    """Return the closed form of an exact desktop arm's points if it is its chain's, else None."""
    model = geometry.model
    if not model.exact:
        return None
    zero = chain_pose(segments, tail, (0.0,) * model.joint_count)
    fast = _ExactDesktopPoints(model, zero.points + (zero.position,))
    for step in range(1, 6):
        readings = [math.sin(1.3 * step * (i + 2)) * 1.5 for i in range(model.joint_count)]
        pose = chain_pose(segments, tail, readings)
        if max(math.dist(a, b) for a, b in zip(pose.points + (pose.position,),
                                               fast(readings))) > 1e-12 * model.reach:
            return None
    return fast


class ArmLinks:
    """The capsules of one arm's moving links (see the module docstring).

    Parameters
    ----------
    geometry : ArmGeometry or DesktopGeometry
        The arm.
    radii : sequence of float
        One radius per moving link (N), m.
    """

    def __init__(self, geometry, radii: Sequence[float]):
        self.geometry = geometry
        self.names = link_names(geometry.joint_names)
        self.radii = tuple(float(r) for r in radii)
        if len(self.radii) != len(self.names):
            raise ValueError(f'{len(self.radii)} radii for {len(self.names)} links')
        self._planar = isinstance(geometry, ArmGeometry)
        self._fast = _PlanarPoints(geometry) if self._planar else None
        if not self._planar:
            model = geometry.model
            self._segments, self._tail = model.segments, model.tail
            self._fast = _fast_points(geometry, self._segments, self._tail)
        points = self.points((0.0,) * len(self.names))
        lengths = [math.dist(a, b) for a, b in zip(points, points[1:])]
        #: Per joint: a bound (m/rad) on how far a turn of it moves any point after it.
        self.levers = tuple(sum(lengths[i:]) for i in range(len(lengths)))
        #: Per point of a pose (N + 1): the largest radius of the links that end there.
        self.point_radii = tuple(
            max(self.radii[i] if i < len(self.radii) else 0.0,
                self.radii[i - 1] if i > 0 else 0.0) for i in range(len(self.radii) + 1))

    @property
    def count(self) -> int:
        """N, the moving links (and joints)."""
        return len(self.names)

    def points(self, readings: Sequence[float]) -> Tuple[Point, ...]:
        """Return the N + 1 points of a pose: each moving joint's origin, the tool point, m."""
        if self._fast is not None:
            return self._fast(readings)
        pose = chain_pose(self._segments, self._tail, readings)
        return pose.points + (pose.position,)

    def points_batch(self, readings) -> np.ndarray:
        """Batch twin of :meth:`points`: readings (n, N) rad -> points (n, N + 1, 3), m."""
        readings = np.asarray(readings, dtype=float).reshape(-1, self.count)
        if not self._planar:
            position, _, _, points = chain_poses(self._segments, self._tail, readings)
            return np.concatenate((points, position[:, None, :]), axis=1)
        geometry = self.geometry
        z1, z2 = geometry.zero_angles
        d1, d2 = geometry.directions
        l1, l2 = geometry.link_lengths
        q1 = z1 + d1 * readings[:, 0]
        q12 = q1 + z2 + d2 * readings[:, 1]
        u = np.stack((np.zeros_like(q1), l1 * np.cos(q1), l1 * np.cos(q1) + l2 * np.cos(q12)),
                     axis=1)
        v = np.stack((np.zeros_like(q1), l1 * np.sin(q1), l1 * np.sin(q1) + l2 * np.sin(q12)),
                     axis=1)
        origin = np.asarray(geometry.shoulder_position)
        return (origin + u[..., None] * np.asarray(geometry.u_axis)
                + v[..., None] * np.asarray(geometry.v_axis))
