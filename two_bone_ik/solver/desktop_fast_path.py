"""The desktop solver's fast path: the common target straight through (math only).

Position only, an arm with a yaw and a pitch, the roll held within its limits: the yaw facing
the target, the pair at the wanted pitch (or the feasible pitch nearest it), the quick
correction for a URDF's rounding. Also, where it proves the classes before them empty, class
(b) by the moved roll's shortcut (the yaw out of its limits at the held roll) and class (c)
(the yaw facing nowhere within its limits, or the target in the hole round the shoulder), each
thing computed once. Anything else returns None and the general path decides, so its results
are the general path's (the tests compare the two). A mixin of
:class:`~two_bone_ik.solver.desktop.DesktopSolver`.
"""

import math

from two_bone_ik.solver import IkStatus, solve, wrap_angle as _wrap
from two_bone_ik.solver.closed_form import pair_angles
from two_bone_ik.solver.desktop_poses import branch_of
from two_bone_ik.solver.desktop_results import DesktopSolution, DesktopStatus
from two_bone_ik.solver.reading_turns import fit_reading, fit_within

_TAU = 2.0 * math.pi
_NAN = math.nan
_REACHED = IkStatus.REACHED
_STATUS_REACHED = DesktopStatus.REACHED
_STATUS_FLIPPED = DesktopStatus.ELBOW_FLIPPED
# The fast path looks these up as module globals rather than as attributes of math.
_atan2, _cos, _sin, _sqrt = math.atan2, math.cos, math.sin, math.sqrt
_hypot, _remainder = math.hypot, math.remainder
_tuple_new = tuple.__new__


class FastPath:
    """The fast path of :meth:`DesktopSolver.solve` (see the module docstring)."""

    def _fast_constants(self):
        """Return what :meth:`_solve_fast` reads, as one flat tuple, or None.

        Only an arm with a yaw and a pitch qualifies (the rest takes the general path).
        """
        arm = self.arm
        if not (arm.has_yaw and arm.has_pitch):
            return None
        tool = None if arm.has_roll else arm.tool_at(0.0)
        (ox, oy, oz), (fx, fy, fz), (wx, wy, wz), (nx, ny, nz) = (
            arm.origin, arm.forward, arm.up, arm.normal)
        return (ox, oy, oz, fx, fy, fz, wx, wy, wz, nx, ny, nz, *arm.shoulder, *arm.link_lengths,
                *arm.zero_angles, *arm.directions[:4], arm.lower_limits, arm.upper_limits,
                self._continuous[:4], 1e-3 * self._on_target, arm.joint_count, tool,
                self.elbow, self._pair_limits)

    def _solve_fast(self, x, y, z, previous, wanted):
        """:meth:`solve` for a target the arm faces and reaches with the roll held, in limits.

        The common case, straight through: position only, an arm with a yaw and a pitch, the
        roll held within its limits; axes a little off corrected by :class:`QuickCorrection`.
        Returns None for anything else (the general path then decides), so its results are the
        general path's (the tests compare the two).
        """
        (ox, oy, oz, fx, fy, fz, wx, wy, wz, nx, ny, nz, su, sv, l1, l2, z1, z2, d0, d1, d2, d3,
         lower, upper, (c0, c1, c2, c3), near, count, tool, elbow, pair_limits) = self._fast
        if not (-1e100 <= x <= 1e100 and -1e100 <= y <= 1e100 and -1e100 <= z <= 1e100
                and -1e100 <= wanted <= 1e100):
            return None
        roll = 0.0
        if previous is not None:
            if len(previous) != count:
                return None
            try:  # finite numbers: x - x is 0 for them only (NaN and inf give NaN)
                if count == 4:
                    p0, p1, p2, p3 = previous
                    finite = p0 - p0 == p1 - p1 == p2 - p2 == p3 - p3 == 0.0
                else:
                    p0, p1, p2, p3, roll = previous
                    finite = p0 - p0 == p1 - p1 == p2 - p2 == p3 - p3 == roll - roll == 0.0
            except TypeError:
                finite = False
            if not finite:
                return None
        if tool is None:
            if not lower[4] <= roll <= upper[4]:
                return None
            tool = self._tool(roll)
        l3, beta, lateral = tool
        dx, dy, dz = x - ox, y - oy, z - oz
        hu = dx * fx + dy * fy + dz * fz
        hn = dx * nx + dy * ny + dz * nz
        rho = _hypot(hu, hn)
        if rho <= near or rho < abs(lateral) - near:
            return None
        u = (rho - lateral) * (rho + lateral)
        u = _sqrt(u) if u > 0.0 else 0.0
        yaw = d0 * _atan2(lateral * hu - u * hn, u * hu + lateral * hn)
        if not c0:
            fitted = fit_reading(yaw, lower[0], upper[0], None if previous is None else p0)
            if fitted is None:  # class (a) is empty: (b), or (c) when (b) surely is
                return self._fast_unfitted(x, y, z, previous, wanted, roll, tool)
            yaw = fitted
        elif previous is not None:
            yaw = p0 + _remainder(yaw - p0, _TAU)
        return self._fast_plane(x, y, z, previous, wanted, yaw, u - su,
                                dx * wx + dy * wy + dz * wz - sv, tool, roll, 'facing')

    def _fast_unfitted(self, x, y, z, previous, wanted, held, tool):
        """:meth:`_solve_fast` for a yaw facing the target out of its limits at the held roll.

        Class (a) is empty. Class (b) when a roll may reach the target and some roll brings
        the yaw onto a limit (as :meth:`_moved_roll` rules it out): by its shortcut,
        :meth:`_fast_moved`; else (b) is empty and class (c) is solved. None (the general path
        decides) when the shortcut does not answer or (c) has no exact pose.
        """
        if self._roll_free:
            horizontal = self._horizontal(x, y, z)
            if self._crossings(*horizontal, False):
                previous, held = _as_floats(previous, held)
                target, low, high = self._roll_window(x, y, z, held, False, horizontal)
                if self._may_reach(target.hu, target.hn, target.dv, False):
                    return self._fast_moved(x, y, z, previous, held, wanted, target, low, high)
        return self._fast_back(x, y, z, previous, held, wanted, tool)

    def _fast_back(self, x, y, z, previous, held, wanted, tool):
        """Class (c), the roll held, for a target classes (a) and (b) leave empty, or None."""
        if not self.allow_reach_back:
            return None
        back = self._back(x, y, z, tool.lateral, previous)
        if back is None:
            return None
        su, sv = self.arm.shoulder
        return self._fast_plane(x, y, z, previous, wanted, back.reading, back.u - su,
                                back.v - sv, tool, held, 'back')

    def _fast_moved(self, x, y, z, previous, held, wanted, target, low, high):
        """Class (b) by :meth:`_past_yaw_entry`'s shortcut, through :meth:`_fast_plane`.

        The same trial (the roll just past where the yaw enters its limits), the same
        conditions: None (the general path and its walk decide) when there is no such roll,
        its yaw does not face the target within the limits, no exact pose reaches it on the
        configured elbow or the correction gives up. ``target``, ``low``, ``high``:
        :meth:`_roll_window`'s.
        """
        roll = self._entry_trial(target, low, high, held)
        if roll is None:
            return None
        tool = self._tool(roll)
        lateral, hu, hn = tool.lateral, target.hu, target.hn  # (as _face, or None)
        rho, near = _hypot(hu, hn), 1e-3 * self._on_target
        if rho <= near or rho < abs(lateral) - near:
            return None
        u = _sqrt(max(0.0, (rho - lateral) * (rho + lateral)))
        arm = self.arm
        reading = fit_reading(
            arm.directions[0] * _atan2(lateral * hu - u * hn, u * hu + lateral * hn),
            arm.lower_limits[0], arm.upper_limits[0], None if previous is None else previous[0])
        if reading is None:
            return None
        solution = self._fast_plane(x, y, z, previous, wanted, reading, u - arm.shoulder[0],
                                    target.dv, tool, roll, 'facing', True)
        return solution if solution is not None and solution[1] is _STATUS_REACHED else None

    def _fast_hole(self, x, y, z, previous, wanted, held, tool):
        """Class (c) for a target nearer the shoulder than the hole at the held roll, or None.

        No tool point comes nearer the shoulder than :attr:`RollGeometry.hole` at any roll
        and pitch within the limits, so class (a) is empty; when no roll brings the target
        out of the pair's reach or the hole (:meth:`_roll_may_reach`, as :meth:`_moved_roll`
        rules (b) out), (b) is empty too and class (c) is solved. None (the general path
        decides) otherwise.
        """
        if self._roll_may_reach(x, y, z, False):
            return None
        return self._fast_back(x, y, z, *_as_floats(previous, held), wanted, tool)

    def _fast_plane(self, x, y, z, previous, wanted, yaw, du, dv, tool, roll, branch,
                    moved=False):
        """Finish :meth:`_solve_fast`: the plane, the readings, the correction.

        ``moved``: the roll moved (class (b)), said in the solution.
        """
        z1, z2, d0, d1, d2, d3, lower, upper, c1, c2, c3, count, elbow, l1, l2 = self._fast_tail
        if previous is None:
            previous_q = p3 = None
        else:
            p1, p2, p3 = previous[1], previous[2], previous[3]
            previous_q = (z1 + d1 * p1, z2 + d2 * p2)
        if elbow == 'nearest':
            elbow = branch_of(previous_q)
        if wanted != self._wanted[0]:
            self._wanted = (wanted, _cos(wanted), _sin(wanted))
        _, cos_wanted, sin_wanted = self._wanted
        l3, beta, _ = tool
        wu, wv = du - l3 * cos_wanted, dv - l3 * sin_wanted
        if wu == wv == 0.0:
            sol = solve(wu, wv, l1, l2, elbow, None, False, previous_q)
            pair = (sol[0], sol[1]) if sol[2] is _REACHED else None
        else:
            pair = pair_angles(wu, wv, l1, l2, -1.0 if elbow == 'up' else 1.0)
        pitch = None
        other = pair is not None  # whether the other branch may reach it at the wanted pitch
        fits = self._fits
        if other and fits is not None:  # (as _pair_on, then the pitch joint)
            first, second, third = fits if previous is None else self._anchored_fits(
                previous_q, p3)
            # The other branch's elbow is this one's negated (the closed form's q2 is the sign
            # times a magnitude that does not depend on it): when it does not fit, neither
            # does that branch's pose.
            other = fit_within(-pair[1] + 0.0, second) is not None
            q1, q2 = fit_within(pair[0], first), fit_within(pair[1], second)
            if q1 is not None and q2 is not None:
                pitch = fit_within(d3 * (wanted - beta - q1 - q2), third)
        elif other:
            q1, q2, pitch, other = self._fast_wanted(*pair, wanted, beta, previous_q, p3)
        status, phi, fixed = _STATUS_REACHED, wanted, None
        if pitch is None:  # the feasible pitch nearest the wanted one (see _search)
            if du * du + dv * dv < self._hole2 and branch == 'facing' and not moved:
                return self._fast_hole(x, y, z, previous, wanted, roll, tool)
            found = self._search(du, dv, tool, wanted, elbow, previous, previous_q, other)
            if found is None:
                return None
            phi, side, (q1, q2, pitch), kind = found  # (phi within (-pi, pi]: pitch_angle's)
            status = _STATUS_REACHED if side == elbow else _STATUS_FLIPPED
            elbow, fixed = side, None if _remainder(phi - wanted, _TAU) == 0.0 else kind
        r1, r2 = d1 * (q1 - z1), d2 * (q2 - z2)
        if previous is not None:
            if c1:
                r1 = p1 + _remainder(r1 - p1, _TAU)
            if c2:
                r2 = p2 + _remainder(r2 - p2, _TAU)
        readings = (yaw, r1, r2, pitch) if count == 4 else (yaw, r1, r2, pitch, roll)
        point, error = (x, y, z), 0.0
        if self._quick is not None:
            corrected = self._quick.correct(readings, point, d0 * yaw, q1, q2, phi, tool, fixed)
            if corrected is None:
                return None
            readings, point, error = corrected
        asked = _remainder(wanted, _TAU)
        asked = asked if asked != -math.pi else math.pi
        return _tuple_new(DesktopSolution, (
            readings, status, True, point, error, elbow, asked if phi is wanted else phi,
            asked, 0.0, _hypot(du, dv), _NAN, branch, moved, True))

    def _fast_wanted(self, q1, q2, wanted, beta, previous_q, p3):
        """Return the pose at the wanted pitch without :meth:`_limit_fits` (a joint unlimited).

        (q1, q2) the closed form's on the preferred branch; returns (q1, q2, pitch reading,
        whether the other branch may fit), None for what does not fit.
        """
        _, _, _, _, _, d3, lower, upper, _, _, c3 = self._fast_tail[:11]
        other = True
        if self._pair_box is not None:  # (as _pair_on)
            (lo1, hi1), (lo2, hi2) = self._pair_box
            reference = None if previous_q is None else previous_q[1]
            other = fit_reading(-q2 + 0.0, lo2, hi2, reference) is not None  # (see above)
            q1 = fit_reading(q1, lo1, hi1, None if previous_q is None else previous_q[0])
            q2 = fit_reading(q2, lo2, hi2, reference)
        pitch = None
        if q1 is not None and q2 is not None:
            pitch = d3 * (wanted - beta - q1 - q2)
            if not c3:
                pitch = fit_reading(pitch, lower[3], upper[3], p3)
            elif p3 is not None:
                pitch = p3 + _remainder(pitch - p3, _TAU)
            elif not -math.pi <= pitch <= math.pi:
                pitch = _wrap(pitch)
        return q1, q2, pitch, other


def _as_floats(previous, held):
    """Return ``previous`` (or None) and ``held`` as floats, as the general path reads them.

    A route the general path took before answers with its readings' types (numpy floats in
    ``previous`` would otherwise pass into some readings).
    """
    return None if previous is None else tuple(map(float, previous)), float(held)
