"""The general exactness correction of a desktop arm: Newton steps on the real chain (math).

When the quick correction (:mod:`~two_bone_ik.solver.desktop_correction`) gives up, and for
orientations: Newton steps on the URDF's own kinematics put the tool point on the target (and
the real pitch and roll axes as asked), within a trust region. A mixin of
:class:`~two_bone_ik.solver.desktop.DesktopSolver`.
"""

import math

import numpy as np

from two_bone_ik.solver.chain_kinematics import (
    chain_pose, jacobian_columns, multiply, transpose)
from two_bone_ik.solver.desktop_results import ON_TARGET
from two_bone_ik.solver.reading_turns import fit_or_clamp


class NewtonCorrection:
    """The general correction and the orientation refinement."""

    def _orient(self, readings, target, rotation):
        """Return (readings, pose) with the real chain's pitch and roll turned as asked, or None.

        The ideal arm's split is off the real one's by the URDF's axis error; Newton steps on
        the real chain move every joint so that the tool point stays on the target and the
        rotation left between the asked and the commanded orientation has no part about the
        real pitch axis (and roll axis): for an orientation the arm can take, none at all.
        None when the steps do not get there within the limits.
        """
        arm = self.arm
        joints = [i for i in self._indices if i is not None]
        about = [i for i in self._indices[3:] if i is not None]  # pitch (and roll) axes
        values = list(readings)
        for _ in range(4):
            pose = chain_pose(arm.segments, arm.tail, values)
            miss = [target[k] - pose.position[k] for k in range(3)]
            rest = multiply(rotation, transpose(pose.rotation))  # what is left, world frame
            turn = (0.5 * (rest[7] - rest[5]), 0.5 * (rest[2] - rest[6]),
                    0.5 * (rest[3] - rest[1]))
            rows = [list(c) for c in zip(*jacobian_columns(pose, joints))]
            rows += [[sum(pose.axes[a][k] * pose.axes[j][k] for k in range(3)) for j in joints]
                     for a in about]
            goal = miss + [sum(pose.axes[a][k] * turn[k] for k in range(3)) for a in about]
            if max(abs(v) for v in goal) <= 1e-4 * self._on_target:
                break
            try:
                step = np.linalg.solve(np.array(rows), np.array(goal))
            except np.linalg.LinAlgError:
                return None
            for joint, delta in zip(joints, step):
                values[joint] += float(delta)
        lower, upper = arm.lower_limits, arm.upper_limits
        if math.dist(pose.position, target) > self._on_target or not all(
                lo <= v <= hi for v, lo, hi in zip(values, lower, upper)):
            return None
        return values, pose

    def _quick_correction(self, x, y, z, readings, facing, plane, tool, rotation, error):
        """:class:`QuickCorrection` of an exact ideal pose (position only), or None."""
        if self._quick is None or rotation is not None or error != 0.0 or \
                facing.status is not None or plane.status not in ON_TARGET:
            return None
        return self._quick.correct(readings, (x, y, z), facing.yaw, plane.q1, plane.q2,
                                   plane.phi, tool, plane.fixed)

    def _on_a_limit(self, readings) -> bool:
        """Whether a joint the correction moves is on one of its limits."""
        lower, upper = self.arm.lower_limits, self.arm.upper_limits
        return any(abs(readings[i] - lower[i]) <= 1e-9 or abs(readings[i] - upper[i]) <= 1e-9
                   for i in self._newton_joints)

    def _small(self, readings, corrected) -> bool:
        """Return whether a correction moved each joint no more than the model error explains."""
        return all(abs(a - b) <= self._step_bound for a, b in zip(readings, corrected))

    def _unknowns(self, oriented: bool):
        """Return what the correction moves: per unknown, its joint and the readings it turns.

        Position only: the yaw, the pair and the pitch, each alone. With an orientation (and a
        yaw): the yaw and the pair, the pitch joint turning back what the pair turns so that
        the split's pitch ``d1 r1 + d2 r2 + d3 r3`` stays as asked.
        """
        return self._held_moves if oriented else self._free_moves

    def _correct(self, readings, target, steps, moves):
        """Newton steps on the real chain until the tool point is on the target.

        A joint that a step takes past its limit stays on the limit and, while four unknowns
        move, leaves them: on such a boundary the exact pitch is a hair off the ideal one.
        """
        arm = self.arm
        readings = list(readings)
        moves = list(moves)
        limited = False
        best = None
        for _ in range(steps):
            pose = chain_pose(arm.segments, arm.tail, readings)
            error = (target[0] - pose.position[0], target[1] - pose.position[1],
                     target[2] - pose.position[2])
            size = math.sqrt(error[0] ** 2 + error[1] ** 2 + error[2] ** 2)
            if best is None or size < best[0]:
                best = (size, tuple(readings), pose)
            if size <= 1e-4 * self._on_target:
                break
            step = _newton_step(_move_columns(pose, moves), error)
            if step is None:
                break
            largest = max(abs(delta) for delta in step)
            if largest > self._step_bound:  # a trust region: near a fold Newton wanders
                step = tuple(delta * (self._step_bound / largest) for delta in step)
            turned = {}
            for (_, turns), delta in zip(moves, step):
                for index, factor in turns:
                    turned[index] = turned.get(index, 0.0) + factor * delta
            for index in sorted(turned):
                moved = readings[index] + turned[index]
                readings[index], clamped = fit_or_clamp(moved, arm.lower_limits[index],
                                                        arm.upper_limits[index], moved)
                limited = limited or clamped
                if clamped and len(moves) > 3:
                    # The least-norm step needs three unknowns; this one stays on its limit.
                    moves = [m for m in moves if m[0] != index]
        size, readings, pose = best
        return readings, pose.position, size, pose, limited


def _move_columns(pose, moves):
    """d(tool)/d(unknown) for unknowns that turn several joints, m/rad."""
    joints = sorted({index for _, turns in moves for index, _ in turns})
    column = dict(zip(joints, jacobian_columns(pose, joints)))
    return tuple(tuple(sum(factor * column[index][k] for index, factor in turns)
                       for k in range(3)) for _, turns in moves)


def _newton_step(columns, error):
    """Return the least-norm Newton step ``J^T (J J^T)^-1 e`` (rad), or None if singular.

    ``columns`` are d(tool)/d(reading) of three or four unknowns (m/rad), ``error`` the tool's
    error ``e`` (m).
    """
    a = [[sum(c[i] * c[j] for c in columns) for j in range(3)] for i in range(3)]
    det = (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
           - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
           + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    scale = (a[0][0] + a[1][1] + a[2][2]) / 3.0
    if not det > 1e-24 * scale ** 3:
        return None
    e0, e1, e2 = error
    y = ((e0 * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (e1 * a[2][2] - a[1][2] * e2)
          + a[0][2] * (e1 * a[2][1] - a[1][1] * e2)) / det,
         (a[0][0] * (e1 * a[2][2] - a[1][2] * e2) - e0 * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
          + a[0][2] * (a[1][0] * e2 - e1 * a[2][0])) / det,
         (a[0][0] * (a[1][1] * e2 - e1 * a[2][1]) - a[0][1] * (a[1][0] * e2 - e1 * a[2][0])
          + e0 * (a[1][0] * a[2][1] - a[1][1] * a[2][0])) / det)
    return tuple(c[0] * y[0] + c[1] * y[1] + c[2] * y[2] for c in columns)
