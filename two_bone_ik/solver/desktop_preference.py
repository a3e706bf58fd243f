"""The preference order of a desktop arm's exact poses (position only; math only).

The first class with an exact pose within the limits decides: (a) the yaw facing the target,
the roll held; (b) facing, the roll moved; (c) reaching back over the yaw axis, the roll held;
(d) back, the roll moved. Within a class the pitch nearest the wanted one, the configured elbow
first; ``accept`` is offered a class's poses in order (:meth:`PreferenceOrder._offered`). A
mixin of :class:`~two_bone_ik.solver.desktop.DesktopSolver`.
"""

import math
from typing import Iterator, List, Optional

from two_bone_ik.solver import IkStatus, solve
from two_bone_ik.solver.desktop_pitch import pitch_boundaries
from two_bone_ik.solver.desktop_poses import (
    Attempt, branch_status, Facing, on_side, OTHER_ELBOW, pitch_angle, PlanePose)
from two_bone_ik.solver.desktop_results import (
    DesktopSolution, DesktopStatus, ON_TARGET, PITCH_STEP, TIE_TOLERANCE)
from two_bone_ik.solver.reading_turns import fit_reading

_TAU = 2.0 * math.pi
_NAN = math.nan
_REACHED = IkStatus.REACHED
_tuple_new = tuple.__new__


class PreferenceOrder:
    """The classes (a)-(d) and what ``accept`` is offered."""

    def _reaches_back(self, facing, tool, wanted, previous, oriented) -> bool:
        """Whether the other yaw, reaching back over the yaw axis, would reach the target.

        Its plane holds the target at -u; the yaw must fit its limits.
        """
        arm = self.arm
        if not arm.has_yaw:
            return False
        # The faced yaw turned so the target goes from +u to -u at the same offset.
        lateral = tool.lateral
        back = facing.yaw + math.pi - 2.0 * math.atan2(lateral, facing.u)
        if fit_reading(arm.directions[0] * back, arm.lower_limits[0], arm.upper_limits[0],
                       None) is None:
            return False
        su, sv = arm.shoulder
        plane = self._plane(-facing.u - su, facing.v - sv, tool, wanted, previous, oriented)
        return plane.status in ON_TARGET

    def _exact_solution(self, x, y, z, previous, wanted, first, accept):
        """Return the solution of the first exact pose in the preference order, or None."""
        found = self._first_exact(x, y, z, previous, wanted, first, accept)
        if found is None:
            return None
        attempt, accepted = found
        su, sv = self.arm.shoulder
        facing, plane = attempt.facing, attempt.plane
        readings = self._readings(facing, plane, attempt.roll, previous)
        point, error = (x, y, z), 0.0
        if not self._ideal:
            corrected = attempt.corrected or self._quick_correction(
                x, y, z, readings, facing, plane, attempt.tool, None, 0.0)
            if corrected is None:  # the general correction decides (rare)
                solution = self._finish(x, y, z, previous, facing, plane, attempt.roll,
                                        attempt.tool, facing.u - su, facing.v - sv, None,
                                        False, wanted)
                return solution._replace(yaw_branch='back' if attempt.back else 'facing',
                                         roll_moved=attempt.moved, accepted=accepted)
            readings, point, error = corrected
        return _tuple_new(DesktopSolution, (
            tuple(readings), plane.status, True, point, error, plane.elbow, plane.phi,
            pitch_angle(wanted) if self.arm.has_pitch else _NAN, 0.0,
            math.hypot(facing.u - su, facing.v - sv), _NAN,
            'back' if attempt.back else 'facing', attempt.moved, accepted))

    def _first_exact(self, x, y, z, previous, wanted, first, accept):
        """Return (the first exact pose ``accept`` takes, True), else (the first, False).

        None when no class has an exact pose. Without ``accept``, the first class's best.
        """
        classes = self._classes(x, y, z, previous, wanted, first)
        if accept is None:
            found = next(classes, None)
            return None if found is None else (found, True)
        preferred = None
        for attempt in classes:
            for candidate in self._offered(attempt, previous, wanted):
                readings = self._readings(candidate.facing, candidate.plane, candidate.roll,
                                          previous)
                if accept(tuple(readings)):
                    return candidate, True
                if preferred is None:
                    preferred = candidate
        return None if preferred is None else (preferred, False)

    def _exact(self, attempt) -> bool:
        return (attempt is not None and attempt.facing.status is None
                and attempt.plane is not None and attempt.plane.status in ON_TARGET)

    def _classes(self, x, y, z, previous, wanted, first) -> Iterator['Attempt']:
        """Yield the best exact pose of each class that has one: (a), (b), (c), (d).

        (a) facing the target, the roll held; (b) facing, the roll moved; (c) reaching back
        over the yaw axis, the roll held; (d) back, the roll moved. Lazily: a class is solved
        only when the ones before it are empty (or refused by ``accept``).
        """
        if self._exact(first):
            yield first
        held = first.roll
        if self._roll_free:
            yaw_fits = first.facing.status is not DesktopStatus.JOINT_LIMITED
            moved = self._moved_roll(x, y, z, previous, wanted, held, False, yaw_fits)
            if moved is not None:
                yield moved
        if not self.allow_reach_back:
            return
        back = self._attempt(x, y, z, previous, wanted, held, first.tool, True)
        if self._exact(back):
            yield back
        if self._roll_free:
            moved = self._moved_roll(x, y, z, previous, wanted, held, True, back is not None)
            if moved is not None:
                yield moved

    def _attempt(self, x, y, z, previous, wanted, roll, tool, back, exact_only=False
                 ) -> Optional['Attempt']:
        """Return the plane's best pose with the yaw facing (or turned back), at roll ``roll``.

        With ``exact_only``: None, the plane not solved, when the yaw cannot face the target
        within its limits (no exact pose then: :meth:`_exact` asks a facing without status).
        """
        if back:
            facing = self._back(x, y, z, tool.lateral, previous)
            if facing is None:
                return None
        else:
            facing = self._face(x, y, z, tool.lateral, previous)
            if exact_only and facing.status is not None:
                return None
        su, sv = self.arm.shoulder
        plane = self._plane(facing.u - su, facing.v - sv, tool, wanted, previous, False,
                            closest=False)
        return Attempt(facing, plane, roll, tool, back, False)

    def _back(self, x, y, z, lateral, previous) -> Optional[Facing]:
        """Return the yaw half a turn from facing (the target at -u) in its limits, or None."""
        arm = self.arm
        o, f, w, n = arm.origin, arm.forward, arm.up, arm.normal
        dx, dy, dz = x - o[0], y - o[1], z - o[2]
        hu = dx * f[0] + dy * f[1] + dz * f[2]
        hn = dx * n[0] + dy * n[1] + dz * n[2]
        rho = math.hypot(hu, hn)
        near = 1e-3 * self._on_target
        if rho <= near or rho < abs(lateral) - near:
            return None  # on the yaw axis (both yaws alike), or no yaw faces it
        u = math.sqrt(max(0.0, (rho - lateral) * (rho + lateral)))
        yaw = math.atan2(lateral * hu + u * hn, lateral * hn - u * hu)
        reading = fit_reading(arm.directions[0] * yaw, arm.lower_limits[0],
                              arm.upper_limits[0], None if previous is None else previous[0])
        if reading is None:
            return None
        return Facing(reading, yaw, -u, dx * w[0] + dy * w[1] + dz * w[2], 0.0, None)

    def _offered(self, attempt, previous, wanted) -> Iterator['Attempt']:
        """Yield one class's exact poses in the order ``accept`` is asked (see the class).

        The class's best first; then, per elbow (the best's first, the other when
        ``allow_elbow_flip``), the pitches of its feasible set from the nearest the wanted one
        outward, both ways, in steps of at most :data:`PITCH_STEP`, ending at each interval's
        ends.
        """
        yield attempt
        plane, facing = attempt.plane, attempt.facing
        su, sv = self.arm.shoulder
        du, dv = facing.u - su, facing.v - sv
        previous_q = self._previous_pair(previous)
        preferred = self._preferred(previous_q)
        branches = (plane.elbow, OTHER_ELBOW[plane.elbow]) if self.allow_elbow_flip else (
            plane.elbow,)
        if not self.arm.has_pitch:
            for branch in branches[1:]:
                sol = solve(du, dv, *self.arm.link_lengths, branch, self._pair_limits, False,
                            previous_q)
                if sol.status is _REACHED and on_side(sol.q2, branch):
                    yield attempt._replace(corrected=None, plane=PlanePose(
                        sol.q1, sol.q2, None, branch_status(branch, preferred), branch, _NAN,
                        du, dv))
            return
        previous_pitch = None if previous is None else previous[self._indices[3]]
        reference = None if previous is None else self._commanded_pitch(previous, attempt.tool)
        for branch in branches:
            for phi in self._pitch_walk(du, dv, attempt.tool, wanted, branch, previous_q,
                                        previous_pitch, reference):
                if branch == plane.elbow and abs(math.remainder(phi - plane.phi, _TAU)) <= \
                        TIE_TOLERANCE:
                    continue  # the best, offered first
                pose = self._pose_at(du, dv, attempt.tool, phi, branch, previous_q,
                                     previous_pitch)
                if pose is not None:
                    yield attempt._replace(corrected=None, plane=PlanePose(
                        *pose, branch_status(branch, preferred), branch, pitch_angle(phi),
                        du, dv))

    def _pitch_walk(self, du, dv, tool, wanted, branch, previous_q, previous_pitch,
                    reference) -> List[float]:
        """Return one branch's feasible pitches (rad) to offer, nearest ``wanted`` first.

        The set's intervals come from the boundary roots: between two neighbouring roots
        feasibility does not change, so one pose at the middle decides each gap.
        """
        arm = self.arm
        roots = pitch_boundaries(du, dv, tool.length, tool.beta, *arm.link_lengths,
                                 self._circles, self._pitch_angles)
        cuts = sorted({-math.pi, math.pi, *(math.remainder(r - wanted, _TAU) for r in roots)})
        offsets = []
        for start, end in zip(cuts, cuts[1:]):
            if end - start <= TIE_TOLERANCE or self._pose_at(
                    du, dv, tool, wanted + 0.5 * (start + end), branch, previous_q,
                    previous_pitch) is None:
                continue
            first = min(max(0.0, start), end)  # the gap's point nearest the wanted pitch
            for side_end in (start, end):
                count = math.ceil(abs(side_end - first) / PITCH_STEP)
                offsets.extend(first + (side_end - first) * k / count
                               for k in range(1, count + 1))
            offsets.append(first)

        def key(offset):
            phi = wanted + offset
            tie = (abs(math.remainder(phi - reference, _TAU)) if reference is not None
                   else -offset)
            return (abs(offset), tie)
        return [wanted + offset for offset in sorted(set(offsets), key=key)]
