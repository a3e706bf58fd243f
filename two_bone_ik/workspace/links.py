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
        yaw_index, i1, i2, i3, i4 = model.indices
        canonical = [_canonical(model, p) for p in zero_points]
        self._laterals = tuple(c[2] for c in canonical)
        self._roll = None
        if i4 is not None:
            _, (_, _, wrist, _), _ = model.plane_points((0.0,) * model.joint_count)
            u, v, _ = canonical[i4]
            self._roll = (u - wrist[0], v - wrist[1])

    def __call__(self, readings):
        model = self._model
        yaw, (shoulder, elbow, wrist, tool), lateral = model.plane_points(readings)
        c, s = math.cos(yaw), math.sin(yaw)
        o, f, w, m = model.origin, model.forward, model.up, model.normal

        def world(u, v, n):
            fu, fn = c * u + s * n, c * n - s * u
            return (o[0] + fu * f[0] + v * w[0] + fn * m[0],
                    o[1] + fu * f[1] + v * w[1] + fn * m[1],
                    o[2] + fu * f[2] + v * w[2] + fn * m[2])

        _, i1, i2, i3, i4 = model.indices
        n = self._laterals
        points = [self._first]
        for index, (u, v) in ((i1, shoulder), (i2, elbow), (i3, wrist)):
            if index is not None and index > 0:
                points.append(world(u, v, n[index]))
        if i4 is not None:
            d = model.directions
            turn = (d[i1] * readings[i1] + d[i2] * readings[i2] + d[i3] * readings[i3])
            ct, st = math.cos(turn), math.sin(turn)
            ru, rv = self._roll
            points.append(world(wrist[0] + ct * ru - st * rv, wrist[1] + st * ru + ct * rv,
                                n[i4]))
        points.append(world(tool[0], tool[1], lateral))
        return tuple(points)


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
        self._fast = None
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
        if self._planar:
            return self.geometry.arm_points(readings)
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
