"""The quick exactness correction of a desktop arm whose URDF axes are a little off (math only).

The closed form solves the ideal arm (axes exactly parallel or perpendicular). A URDF that
writes pi/2 as 1.5708 moves the real tool point by about the axis error x the reach from the
ideal one. :class:`QuickCorrection` puts it back on the target with at most
:data:`~two_bone_ik.solver.desktop_results.QUICK_STEPS` Newton steps that use the ideal arm's
Jacobian (in closed form, from the plane's points) and the real chain's tool point
(:class:`~two_bone_ik.solver.desktop_chain.FoldedChain`); the roll stays, and so does what
decided the pose:

- a pose at the wanted pitch keeps it: the yaw and the pair move, the pitch joint turns back
  what the pair turns (the hand translates);
- a pose on a boundary of the feasible pitches keeps the joint that boundary holds (the elbow
  stretched, folded or on a limit; the shoulder or the pitch joint on a limit) and moves the
  yaw and the other two.

The unknowns are three, the step unique: the answer does not depend on rounding in the start
(``solve_batch`` equals ``solve``). Near a singular Jacobian (the pair stretched at the wanted
pitch, the tool point on the yaw axis), past a joint limit, or not on the target after the
steps, it gives up (None) and the solver's general correction decides.
"""

import math
from typing import Optional, Sequence, Tuple

import numpy as np

from two_bone_ik.solver.desktop_chain import FoldedChain
from two_bone_ik.solver.desktop_model import DesktopArm, ToolAtRoll
from two_bone_ik.solver.desktop_pitch import ELBOW, PITCH, SHOULDER
from two_bone_ik.solver.desktop_results import QUICK_STEPS

_cos, _sin, _sqrt = math.cos, math.sin, math.sqrt

#: A Jacobian whose 2 x 2 in-plane determinant is below this x reach^2 counts as singular.
SINGULAR = 1e-6


class QuickCorrection:
    """The quick correction for one arm (see the module docstring).

    Parameters
    ----------
    arm : DesktopArm
        With a yaw and a pitch joint.
    tolerance : float
        Tool-point distance (m) that counts as on the target.
    """

    def __init__(self, arm: DesktopArm, tolerance: float):
        self.arm = arm
        self.chain = FoldedChain(arm.segments, arm.tail)
        self.tolerance = tolerance
        self._reach = arm.reach
        self._singular = SINGULAR * self._reach * self._reach
        self._indices = arm.indices
        self._carried = (None, None)  # (roll, the tool point carried back through it)
        #: What :meth:`correct` reads, once per arm (the yaw, pair and pitch are readings 0-3).
        self._constants = (arm.link_lengths, arm.shoulder, arm.directions[:4], arm.forward,
                           arm.normal, arm.up, arm.lower_limits[:4], arm.upper_limits[:4],
                           1e-6 * self._reach, self._indices[4], self._singular, tolerance)

    def correct(self, readings: Sequence[float], target: Sequence[float], yaw: float,
                q1: float, q2: float, phi: float, tool: ToolAtRoll, fixed: Optional[int]
                ) -> Optional[Tuple[Tuple[float, ...], Tuple[float, float, float], float]]:
        """Return (readings, real tool point, its distance to the target), or None.

        Parameters
        ----------
        readings : sequence of N float
            The ideal arm's pose, rad.
        target : 3 float
            The target in the base frame, m.
        yaw, q1, q2, phi : float
            The pose's solver yaw, pair angles and approach pitch, rad.
        tool : ToolAtRoll
            The tool at the pose's roll.
        fixed : int or None
            The joint the pose's boundary holds (:data:`ELBOW`...), None at the wanted pitch.
        """
        ((l1, l2), (su, sv), (d0, d1, d2, d3), (fx, fy, fz), (mx, my, mz), (wx, wy, wz),
         (lo0, lo1, lo2, lo3), (hi0, hi1, hi2, hi3), off_axis, i4, singular, tolerance
         ) = self._constants
        l3, _, lateral = tool
        # The in-plane Jacobian by the two moving pair or pitch angles (of the wrist point
        # when the hand translates, fixed None; else of the tool point), and tool_u, the tool
        # point's distance along the plane's forward axis from the yaw axis.
        eu, ev = su + l1 * _cos(q1), sv + l1 * _sin(q1)
        wu, wv = eu + l2 * _cos(q1 + q2), ev + l2 * _sin(q1 + q2)
        tu, tv = wu + l3 * _cos(phi), wv + l3 * _sin(phi)
        if fixed is None:
            au, av, bu, bv = wu - su, wv - sv, wu - eu, wv - ev
        elif fixed == ELBOW:
            au, av, bu, bv = tu - su, tv - sv, tu - wu, tv - wv
        elif fixed == SHOULDER:
            au, av, bu, bv = tu - eu, tv - ev, tu - wu, tv - wv
        else:
            au, av, bu, bv = tu - su, tv - sv, tu - eu, tv - ev
        au, av, bu, bv = -av, au, -bv, bu
        det = au * bv - av * bu
        if not abs(det) > singular or not abs(tu) > off_axis:
            return None
        c, s = _cos(yaw), _sin(yaw)
        fx, fy, fz, mx, my, mz = (c * fx - s * mx, c * fy - s * my, c * fz - s * mz,
                                  s * fx + c * mx, s * fy + c * my, s * fz + c * mz)
        point4 = self.chain.point4
        last = None
        if i4 is not None:
            roll, last = self._carried
            if roll != readings[i4]:
                last = self.chain.carried((readings[i4],), i4)
                self._carried = (readings[i4], last)
        r0, r1, r2, r3 = v0, v1, v2, v3 = readings[:4]
        tx, ty, tz = target
        x, y, z = point4(v0, v1, v2, v3, last)
        ex, ey, ez = tx - x, ty - y, tz - z
        for _ in range(QUICK_STEPS):  # (the joints each boundary moves: the module docstring)
            turn = -(ex * mx + ey * my + ez * mz) / tu
            ru = ex * fx + ey * fy + ez * fz - lateral * turn
            rv = ex * wx + ey * wy + ez * wz
            da, db = (ru * bv - rv * bu) / det, (au * rv - av * ru) / det
            v0 += d0 * turn
            if fixed is None:
                v1 += d1 * da
                v2 += d2 * db
                v3 -= d3 * (da + db)
            elif fixed == ELBOW:
                v1 += d1 * da
                v3 += d3 * db
            elif fixed == SHOULDER:
                v2 += d2 * da
                v3 += d3 * db
            else:
                v1 += d1 * da
                v2 += d2 * db
            x, y, z = point4(v0, v1, v2, v3, last)
            ex, ey, ez = tx - x, ty - y, tz - z
            size = _sqrt(ex * ex + ey * ey + ez * ez)
            if size <= tolerance:
                break
        else:
            return None
        if (not lo0 <= v0 <= hi0 and v0 != r0 or not lo1 <= v1 <= hi1 and v1 != r1
                or not lo2 <= v2 <= hi2 and v2 != r2 or not lo3 <= v3 <= hi3 and v3 != r3):
            return None
        return (v0, v1, v2, v3, *readings[4:]), (x, y, z), size

    def correct_rows(self, readings: np.ndarray, targets: np.ndarray, yaw, q1, q2, phi, l3,
                     lateral, fixed):
        """Return :meth:`correct` of many poses: (readings, tools, errors, done).

        Arrays of shape (n, N), (n, 3), (n,), (n,); ``fixed`` holds 0 for None. ``done`` is
        False where :meth:`correct` gives None (those rows' other outputs mean nothing).
        """
        arm = self.arm
        _, i1, i2, i3, i4 = self._indices
        d = arm.directions
        l1, l2 = arm.link_lengths
        su, sv = arm.shoulder
        eu, ev = su + l1 * np.cos(q1), sv + l1 * np.sin(q1)
        wu, wv = eu + l2 * np.cos(q1 + q2), ev + l2 * np.sin(q1 + q2)
        tu, tv = wu + l3 * np.cos(phi), wv + l3 * np.sin(phi)
        hand, elbow, shoulder = fixed == 0, fixed == ELBOW, fixed == SHOULDER
        au = np.where(hand, wu - su, np.where(shoulder, tu - eu, tu - su))
        av = np.where(hand, wv - sv, np.where(shoulder, tv - ev, tv - sv))
        bu = np.where(hand, wu - eu, np.where(fixed == PITCH, tu - eu, tu - wu))
        bv = np.where(hand, wv - ev, np.where(fixed == PITCH, tv - ev, tv - wv))
        au, av, bu, bv = -av, au, -bv, bu
        det = au * bv - av * bu
        done = (np.abs(det) > self._singular) & (np.abs(tu) > 1e-6 * self._reach)
        first = np.where(shoulder, i2, i1)
        second = np.where(elbow | shoulder, i3, i2)
        c, s = np.cos(yaw), np.sin(yaw)
        forward, normal, up = (np.asarray(v) for v in (arm.forward, arm.normal, arm.up))
        f = c[:, None] * forward - s[:, None] * normal
        m = s[:, None] * forward + c[:, None] * normal
        values = np.array(readings, dtype=float)
        last = None if i4 is None else self.chain.points(values[:, i4:i4 + 1], start=i4)
        point = self.chain.points(values[:, :4], last)
        size = np.zeros(len(values))
        active = done.copy()
        directions = np.asarray(d)
        for _ in range(2):  # (each step only for the rows not yet on the target)
            at = np.flatnonzero(active)
            if not at.size:
                break
            e = targets[at] - point[at]
            turn = -np.einsum('ij,ij->i', e, m[at]) / tu[at]
            ru = np.einsum('ij,ij->i', e, f[at]) - lateral[at] * turn
            rv = e @ up
            a_u, a_v, b_u, b_v, det_at = au[at], av[at], bu[at], bv[at], det[at]
            da, db = (ru * b_v - rv * b_u) / det_at, (a_u * rv - a_v * ru) / det_at
            step = np.zeros((at.size, values.shape[1]))
            step[:, 0] = d[0] * turn
            index = np.arange(at.size)
            step[index, first[at]] += directions[first[at]] * da
            step[index, second[at]] += directions[second[at]] * db
            step[:, i3] -= np.where(hand[at], d[i3] * (da + db), 0.0)
            values[at] = values[at] + step
            point[at] = self.chain.points(values[at, :4], None if last is None else last[at])
            size[at] = np.linalg.norm(targets[at] - point[at], axis=1)
            active[at] = size[at] > self.tolerance
        done &= ~active
        lower, upper = np.asarray(arm.lower_limits[:4]), np.asarray(arm.upper_limits[:4])
        inside = (values[:, :4] >= lower) & (values[:, :4] <= upper)
        done &= (inside | (values[:, :4] == readings[:, :4])).all(axis=1)
        return values, point, size, done
