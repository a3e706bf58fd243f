"""A desktop arm's moved roll: the roll nearest the held one that reaches (math only).

Classes (b) and (d) of the preference order: the roll's range cut where reachability may
change (:func:`~two_bone_ik.solver.desktop_roll.roll_ends`), the stretches tried nearest the
held roll first, their ends found only as far out as the walk goes
(:func:`~two_bone_ik.solver.desktop_roll_walk.nearest_stretches`). Two shortcuts before
that: a target nearer the shoulder than any tool point comes has none
(:func:`~two_bone_ik.solver.desktop_roll.tool_hole`), and a yaw out of its limits at the
held roll has the first trial past where it enters them
(:func:`~two_bone_ik.solver.desktop_roll.yaw_entry`) tried alone. A mixin of
:class:`~two_bone_ik.solver.desktop.DesktopSolver`.
"""

import math
from typing import Optional, Tuple

from two_bone_ik.solver.desktop_poses import Attempt
from two_bone_ik.solver.desktop_results import DesktopStatus
from two_bone_ik.solver.desktop_roll import RollTarget, yaw_entry
from two_bone_ik.solver.desktop_roll_walk import nearest_stretches

_TAU = 2.0 * math.pi
_REACHED = DesktopStatus.REACHED


class MovedRoll:
    """The moved roll of classes (b) and (d)."""

    def _moved_roll(self, x, y, z, previous, wanted, held, back, yaw_fits
                    ) -> Optional['Attempt']:
        """Return an exact pose with the roll moved (class (b) or (d)), or None.

        The roll nearest the held one at which a pose reaches the target: the roll's range
        (within half a turn of ``held``) cut where reachability may change
        (:func:`~two_bone_ik.solver.desktop_roll.roll_ends`), each stretch tried from its end
        nearest ``held``, nearest stretches first (the ends beyond the first that reaches are
        never refined). ``yaw_fits``: whether the yaw fits its
        limits at the held roll (if not and no roll brings it to a limit, none can help; if
        not, the first trial past where it enters them is tried before the walk:
        :meth:`_past_yaw_entry`).
        """
        window = self._moved_roll_window(x, y, z, held, back, yaw_fits)
        if window is None:
            return None
        target, low, high = window
        if not yaw_fits:
            found = self._past_yaw_entry(x, y, z, previous, wanted, held, target, low, high)
            if found is not None:
                return found
        fallback = None  # the first exact pose the quick correction gave up on
        for trials in nearest_stretches(self._roll_geometry, target, low, high, held,
                                        self._roll_margin):
            for roll in trials:
                attempt = self._attempt(x, y, z, previous, wanted, roll, self._tool(roll),
                                        back, True)
                if not self._exact(attempt):
                    continue
                attempt = attempt._replace(moved=True)
                if self._ideal or self._quick is None:
                    return attempt
                readings = self._readings(attempt.facing, attempt.plane, roll, previous)
                corrected = self._quick_correction(x, y, z, readings, attempt.facing,
                                                   attempt.plane, attempt.tool, None, 0.0)
                if corrected is not None:
                    return attempt._replace(corrected=corrected)
                fallback = fallback or attempt
        return fallback

    def _past_yaw_entry(self, x, y, z, previous, wanted, held, target, low, high
                        ) -> Optional['Attempt']:
        """Return the exact pose just past where the yaw enters its limits, or None.

        For a yaw that does not fit its limits at the held roll: where it first comes within
        them (:func:`~two_bone_ik.solver.desktop_roll.yaw_entry`), no nearer roll holds a
        pose, so the stretch past it is the first the walk could find reaching; its first
        trial (the margin inside it) is tried alone. None (the walk decides) when there is no
        such roll, the trial is not exact or only on the other elbow, or its correction gives
        up.

        The walk's own answer differs only where ends it would find lie by that roll: a
        stretch past it narrower than two margins (the walk tries its middle), or one before
        it reaching into the rolls where the yaw is within its limits but not yet the margin
        inside them (:meth:`_yaw_limits_inside`), where a trial of the walk may reach.
        """
        roll = self._entry_trial(target, low, high, held)
        if roll is None:
            return None
        attempt = self._attempt(x, y, z, previous, wanted, roll, self._tool(roll), target.back,
                                True)
        if not self._exact(attempt) or attempt.plane.status is not _REACHED:
            return None  # (the other elbow: the walk decides, as it may find the configured)
        attempt = attempt._replace(moved=True)
        if self._ideal or self._quick is None:
            return attempt
        readings = self._readings(attempt.facing, attempt.plane, roll, previous)
        corrected = self._quick_correction(x, y, z, readings, attempt.facing, attempt.plane,
                                           attempt.tool, None, 0.0)
        return None if corrected is None else attempt._replace(corrected=corrected)

    def _moved_roll_window(self, x, y, z, held, back, yaw_fits
                           ) -> Optional[Tuple[RollTarget, float, float]]:
        """Return :meth:`_roll_window`'s (target, low, high), or None: no moved roll can reach.

        None by :meth:`_roll_may_reach`, or for a yaw that does not fit at ``held``
        (``yaw_fits`` false) that no roll brings to a limit (:meth:`_yaw_crossings`).
        """
        if not self._roll_may_reach(x, y, z, back):
            return None
        if not yaw_fits and not self._yaw_crossings(x, y, z, back):
            return None  # the yaw fits at no roll: the sideways swing never brings it in
        return self._roll_window(x, y, z, held, back)

    def _roll_window(self, x, y, z, held, back, horizontal=None
                     ) -> Tuple[RollTarget, float, float]:
        """Return the target as the roll sees it and the window of rolls tried (low, high).

        The rolls (rad) within half a turn of ``held`` and within the roll's limits.
        ``horizontal``: :meth:`_horizontal`'s answer when known.
        """
        index = self._indices[4]
        low = max(self.arm.lower_limits[index], held - math.pi)
        high = min(self.arm.upper_limits[index], held + math.pi)
        hu, hn = horizontal or self._horizontal(x, y, z)
        o, w = self.arm.origin, self.arm.up
        dv = (x - o[0]) * w[0] + (y - o[1]) * w[1] + (z - o[2]) * w[2] - self.arm.shoulder[1]
        return RollTarget(float(hu), float(hn), float(dv), back), low, high

    def _entry_trial(self, target, low, high, held) -> Optional[float]:
        """Return the roll (rad) :meth:`_past_yaw_entry` tries, or None.

        The margin past where the yaw enters its limits
        (:func:`~two_bone_ik.solver.desktop_roll.yaw_entry`), strictly inside the window.
        """
        entry = yaw_entry(self._roll_geometry, target, low, high, held)
        if entry is None:
            return None
        roll = entry + math.copysign(self._roll_margin, entry - held)
        return roll if low + self._roll_margin < roll < high - self._roll_margin else None

    def _yaw_crossings(self, x, y, z, back) -> bool:
        """Whether some roll puts the yaw facing the target (or back) on one of its limits."""
        return self._crossings(*self._horizontal(x, y, z), back)

    def _crossings(self, hu, hn, back) -> bool:
        """:meth:`_yaw_crossings` of the target at (hu, hn) from the yaw axis (m)."""
        geometry = self._roll_geometry
        swing, lateral = geometry.swing, geometry.lateral
        for _, cos, sin in geometry.yaw_turns:
            if swing > 0.0 and (hu * cos - hn * sin > 0.0) != back and \
                    abs(hu * sin + hn * cos - lateral) <= swing:
                return True
        return False

    def _yaw_limits_inside(self) -> Tuple[float, ...]:
        """Return the yaw's finite limits moved inside by the margin a correction needs, rad."""
        arm = self.arm
        lower, upper = arm.lower_limits[0], arm.upper_limits[0]
        if upper - lower >= _TAU:
            return ()
        margin = self._yaw_margin
        return tuple(v for v in (lower + margin, upper - margin) if math.isfinite(v))

    def _horizontal(self, x, y, z) -> Tuple[float, float]:
        """Return the target from the yaw axis along forward and normal (yaw 0), m."""
        arm = self.arm
        o, f, n = arm.origin, arm.forward, arm.normal
        dx, dy, dz = x - o[0], y - o[1], z - o[2]
        return dx * f[0] + dy * f[1] + dz * f[2], dx * n[0] + dy * n[1] + dz * n[2]

    def _roll_may_reach(self, x, y, z, back) -> bool:
        """Whether some roll might bring the target within the pair's annulus (a quick bound).

        Its inner edge: the pair's, and the hole the pitch's limits leave round the shoulder
        (:func:`~two_bone_ik.solver.desktop_roll.tool_hole`).
        """
        arm = self.arm
        o, f, w, n = arm.origin, arm.forward, arm.up, arm.normal
        dx, dy, dz = x - o[0], y - o[1], z - o[2]
        return self._may_reach(dx * f[0] + dy * f[1] + dz * f[2],
                               dx * n[0] + dy * n[1] + dz * n[2],
                               dx * w[0] + dy * w[1] + dz * w[2] - arm.shoulder[1], back)

    def _may_reach(self, hu, hn, dv, back) -> bool:
        """:meth:`_roll_may_reach` of a target known by its coordinates (m).

        (hu, hn) from the yaw axis along forward and normal at yaw 0, dv above the shoulder.
        """
        lat2_low, lat2_high, su, farthest_reach, inner, hole = self._reach_bounds
        rho2 = hu ** 2 + hn ** 2
        if rho2 < lat2_low:
            return False
        u_low, u_high = math.sqrt(max(0.0, rho2 - lat2_high)), math.sqrt(rho2 - lat2_low)
        ends = (-u_high - su, -u_low - su) if back else (u_low - su, u_high - su)
        nearest = 0.0 if ends[0] <= 0.0 <= ends[1] else min(abs(ends[0]), abs(ends[1]))
        farthest = max(abs(ends[0]), abs(ends[1]))
        far = math.hypot(farthest, dv)
        return math.hypot(nearest, dv) <= farthest_reach and far >= inner and far >= hole

    def _roll_reach_bounds(self) -> Tuple[float, ...]:
        """Return what :meth:`_may_reach` reads, once per arm (with a free roll).

        The squared least and largest lateral offsets over the roll (m^2), the shoulder's u,
        the farthest any pose reaches, the pair's inner edge less the tool, the hole (each
        widened by the on-target tolerance, m).
        """
        arm = self.arm
        (a, b, c), (su, _) = arm.tool, arm.shoulder
        swing = math.hypot(b[2], c[2])
        lat_low, lat_high = arm.wrist_lateral + a[2] - swing, arm.wrist_lateral + a[2] + swing
        lat2_high = max(lat_low * lat_low, lat_high * lat_high)
        lat2_low = 0.0 if lat_low <= 0.0 <= lat_high else min(lat_low ** 2, lat_high ** 2)
        l1, l2 = arm.link_lengths
        l3, slack = arm.max_tool_length(), self._on_target
        return (lat2_low, lat2_high, su, l1 + l2 + l3 + slack, abs(l1 - l2) - l3 - slack,
                self._roll_geometry.hole - slack)
