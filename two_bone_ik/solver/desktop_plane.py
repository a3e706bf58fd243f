"""A desktop arm's plane: the pair and the pitch for a target in it (math only).

The pose at the wanted approach pitch when one reaches the target; else the feasible pitch
nearest it among the exact boundaries of the feasible set
(:mod:`~two_bone_ik.solver.desktop_pitch`), on either elbow branch; else the closest pose. A
mixin of :class:`~two_bone_ik.solver.desktop.DesktopSolver`.
"""

import math
from typing import List, Optional

from two_bone_ik.solver import IkStatus, solve, wrap_angle as _wrap
from two_bone_ik.solver.closed_form import pair_angles
from two_bone_ik.solver.desktop_pitch import ELBOW, SHOULDER
from two_bone_ik.solver.desktop_poses import (
    branch_of, OTHER_ELBOW, pitch_angle, PlanePose, tie_key)
from two_bone_ik.solver.desktop_results import (
    DesktopStatus, PITCH_TOLERANCE, SIDE_TOLERANCE, TIE_TOLERANCE)
from two_bone_ik.solver.reading_turns import fit_or_clamp, fit_reading, fit_within, limit_fit

_TAU = 2.0 * math.pi
_NAN = math.nan
_REACHED = IkStatus.REACHED
_PI = math.pi
_atan2, _cos, _sin, _remainder = math.atan2, math.cos, math.sin, math.remainder


class PlaneSolving:
    """The pair and the pitch in the plane of the arm."""

    def _previous_pair(self, previous):
        if previous is None:
            return None
        _, i1, i2, _, _ = self._indices
        (z1, z2), d = self.arm.zero_angles, self.arm.directions
        return (z1 + d[i1] * previous[i1], z2 + d[i2] * previous[i2])

    def _plane(self, du, dv, tool, wanted, previous, oriented, closest=True
               ) -> Optional[PlanePose]:
        """Return the pair and the pitch for a target at (du, dv) from the shoulder (m).

        When no pose reaches it: the closest pose, or None without ``closest``.
        """
        arm = self.arm
        l1, l2 = arm.link_lengths
        previous_q = self._previous_pair(previous)
        if not arm.has_pitch:
            sol = solve(du, dv, l1, l2, self.elbow, self._pair_limits, self.allow_elbow_flip,
                        previous_q)
            if not closest and sol.status is not _REACHED and sol.status is not \
                    IkStatus.ELBOW_FLIPPED:
                return None
            return PlanePose(sol.q1, sol.q2, None, DesktopStatus(sol.status), sol.elbow, _NAN,
                             sol.tip[0], sol.tip[1])
        i3 = self._indices[3]
        previous_pitch = None if previous is None else previous[i3]
        preferred = self._preferred(previous_q)
        pose = self._pose_at(du, dv, tool, wanted, preferred, previous_q, previous_pitch)
        if pose is not None:
            return PlanePose(*pose, DesktopStatus.REACHED, preferred, pitch_angle(wanted), du, dv)
        found = self._search(du, dv, tool, wanted, preferred, previous, previous_q)
        if found is None:
            return None if not closest else self._closest(du, dv, tool, wanted, preferred,
                                                          previous_q, previous_pitch)
        phi, branch, (q1, q2, pitch), kind = found
        status = DesktopStatus.REACHED if branch == preferred else DesktopStatus.ELBOW_FLIPPED
        if oriented and abs(math.remainder(phi - wanted, _TAU)) > PITCH_TOLERANCE:
            status = DesktopStatus.APPROACH_ADJUSTED
        return PlanePose(q1, q2, pitch, status, branch, phi, du, dv,
                         None if abs(math.remainder(phi - wanted, _TAU)) == 0.0 else kind)

    def _preferred(self, previous_q) -> str:
        """Return the preferred elbow branch: the configured one; 'nearest': the last command's."""
        if self.elbow != 'nearest':
            return self.elbow
        return branch_of(previous_q)

    def _pose_at(self, du, dv, tool, phi, branch, previous_q, previous_pitch):
        """(q1, q2, pitch reading) reaching the target at pitch ``phi`` on a branch, or None."""
        arm = self.arm
        l1, l2 = arm.link_lengths
        l3 = tool.length
        wu, wv = du - l3 * math.cos(phi), dv - l3 * math.sin(phi)
        pair = self._pair_on(wu, wv, branch, previous_q)
        if pair is None:
            return None
        q1, q2 = pair
        i3 = self._indices[3]
        pitch = fit_reading(arm.directions[i3] * (phi - tool.beta - q1 - q2),
                            arm.lower_limits[i3], arm.upper_limits[i3], previous_pitch)
        return None if pitch is None else (q1, q2, pitch)

    def _boundary_pose(self, du, dv, tool, phi, held, preferred, previous_q, previous_pitch,
                       fits=None):
        """Return the pose on a boundary of the feasible pitches, and its branch.

        At a root of a boundary equation (:mod:`~two_bone_ik.solver.desktop_pitch`) the joint
        it holds is at its angle exactly (the elbow straight, folded or on a limit, the
        shoulder or the pitch on a limit) and the rest follows; (None, '') when a limit does
        not fit. A straight or folded elbow is on both branches: ``preferred``. ``held`` is
        the boundary's :meth:`_boundary_terms` entry (the roots carry it). ``fits``, from
        :meth:`_anchored_fits`, fits the three readings by :func:`fit_within` (the hot path;
        without it, :meth:`_fit_pair` and :func:`fit_reading` do, to the same result).
        """
        l3, beta, _ = tool
        wu, wv = du - l3 * _cos(phi), dv - l3 * _sin(phi)
        joint, angle, a, b = held
        if joint == ELBOW:
            q2 = angle
            q1 = _atan2(wv, wu) - a
        elif joint == SHOULDER:
            q1 = angle
            q2 = _atan2(wv - b, wu - a) - q1
        else:
            link2 = phi - beta - angle
            q1 = _atan2(wv - self._l2 * _sin(link2), wu - self._l2 * _cos(link2))
            q2 = link2 - q1
        q2 = _remainder(q2, _TAU)
        if fits is None:
            pair = self._fit_pair(q1, q2, previous_q)
            if pair is None:
                return None, ''
            fitted_q1, fitted_q2 = pair
            d3, lo3, hi3 = self._pitch_joint
            pitch = fit_reading(d3 * (phi - beta - fitted_q1 - fitted_q2), lo3, hi3,
                                previous_pitch)
        else:
            first, second, third = fits
            fitted_q1 = fit_within(q1, first)
            if fitted_q1 is None:
                return None, ''
            fitted_q2 = fit_within(q2, second)
            if fitted_q2 is None:
                return None, ''
            pitch = fit_within(self._pitch_joint[0] * (phi - beta - fitted_q1 - fitted_q2),
                               third)
        if pitch is None:
            return None, ''
        bent = SIDE_TOLERANCE < abs(q2) < _PI - SIDE_TOLERANCE
        return (fitted_q1, fitted_q2, pitch), ('up' if q2 < 0.0 else 'down') if bent else preferred

    def _limit_fits(self):
        """Return :func:`limit_fit` of the shoulder, the elbow and the pitch (no last command).

        None when the pair has no limits or one of the three joints none on either side
        (then :meth:`_fit_pair` and :func:`fit_reading` fit them).
        """
        if self._pair_box is None or self._indices[3] is None:
            return None
        fits = tuple(limit_fit(lower, upper) for lower, upper in (
            *self._pair_box, self._pitch_joint[1:]))
        return None if None in fits else fits

    def _anchored_fits(self, previous_q, previous_pitch):
        """:meth:`_limit_fits` nearest the last command's readings (the pair's, the pitch's)."""
        fits = self._fits
        if fits is None or previous_q is None and previous_pitch is None:
            return fits
        return tuple(fit if reference is None else limit_fit(fit[0], fit[1], reference)
                     for fit, reference in zip(fits, (*previous_q, previous_pitch)))

    def _boundary_terms(self):
        """Per boundary (held joint, angle): (joint, angle, a, b) :meth:`_boundary_pose` reads.

        The solver's :class:`BoundaryRoots` carries them in its roots (its ``tag``).

        The elbow held: a is the shoulder's offset from the wrist's direction; the shoulder
        held: (a, b) the elbow point; the pitch held: nothing.
        """
        l1, l2 = self.arm.link_lengths
        terms = {}
        for joint, angle in self._roots.held():
            if joint == ELBOW:
                a, b = math.atan2(l2 * math.sin(angle), l1 + l2 * math.cos(angle)), 0.0
            elif joint == SHOULDER:
                a, b = l1 * math.cos(angle), l1 * math.sin(angle)
            else:
                a = b = 0.0
            terms[(joint, angle)] = (joint, angle, a, b)
        return terms

    def _fit_pair(self, q1, q2, previous_q):
        """(q1, q2) brought into the pair's limits by whole turns (nearest the last command).

        None as soon as one of them does not fit (the second is not tried).
        """
        box = self._pair_box
        if box is None:
            return _wrap(q1), q2
        (lo1, hi1), (lo2, hi2) = box
        q1 = fit_reading(q1, lo1, hi1, None if previous_q is None else previous_q[0])
        if q1 is None:
            return None
        q2 = fit_reading(q2, lo2, hi2, None if previous_q is None else previous_q[1])
        return None if q2 is None else (q1, q2)

    def _pair_on(self, wu, wv, branch, previous_q):
        """(q1, q2) reaching the wrist point (wu, wv) on a branch within the limits, or None.

        The planar closed form on the branch, each angle then brought into its limits by whole
        turns (nearest the last command): what the planar solver does with limits when the
        branch fits, without its closest pose when it does not.
        """
        l1, l2 = self.arm.link_lengths
        if wu == wv == 0.0:  # (the last command decides q1 there)
            sol = solve(wu, wv, l1, l2, branch, None, False, previous_q)
            pair = (sol.q1, sol.q2) if sol.status is _REACHED else None
        else:
            pair = pair_angles(wu, wv, l1, l2, -1.0 if branch == 'up' else 1.0)
        if pair is None or self._pair_box is None:
            return pair
        return self._fit_pair(*pair, previous_q)

    def _search(self, du, dv, tool, wanted, preferred, previous, previous_q, annulus=True):
        """Return the feasible (phi, branch, pose) nearest ``wanted``, or None (see the module).

        ``annulus`` False says the other branch is known to have no pose at ``wanted`` (the
        wrist point beyond the pair's reach, on both branches alike, or that branch's elbow
        angle past its limits): it is not tried there.
        """
        previous_pitch = None if previous is None else previous[self._indices[3]]
        flip = self.allow_elbow_flip
        branches = (preferred, OTHER_ELBOW[preferred]) if flip else (preferred,)
        found: List[tuple] = []
        farthest = math.inf  # the farthest root that can still tie with the nearest found
        if flip and annulus:  # the wanted pitch on the other branch (the preferred one failed)
            pose = self._pose_at(du, dv, tool, wanted, branches[1], previous_q, previous_pitch)
            if pose is not None:
                found.append((0.0, wanted, branches[1], pose, None))
                farthest = 0.0 + TIE_TOLERANCE
        boundary_pose = self._boundary_pose
        fits = (self._fits if previous is None
                else self._anchored_fits(previous_q, previous_pitch))
        for distance, phi, held in self._roots.sorted_roots(du, dv, tool.length, tool.beta,
                                                            wanted):
            if distance > farthest:
                break
            pose, branch = boundary_pose(du, dv, tool, phi, held, preferred, previous_q,
                                         previous_pitch, fits)
            if pose is not None and (flip or branch == preferred):
                if not found:
                    farthest = distance + TIE_TOLERANCE
                found.append((distance, phi, branch, pose, held[0]))
        if not found:
            return None
        if len(found) > 1:
            reference = self._commanded_pitch(previous, tool) if previous is not None else None
            found.sort(key=lambda item: tie_key(item, wanted, reference, branches))
        _, phi, branch, pose, kind = found[0]
        return pitch_angle(phi), branch, pose, kind

    def _commanded_pitch(self, previous, tool) -> float:
        """Return the approach pitch of the previous readings, rad."""
        q1, q2 = self._previous_pair(previous)
        i3 = self._indices[3]
        return q1 + q2 + self.arm.directions[i3] * previous[i3] + tool.beta

    def _closest(self, du, dv, tool, wanted, preferred, previous_q, previous_pitch) -> PlanePose:
        """Return the closest pose for a target no feasible pitch reaches (see :meth:`solve`)."""
        arm = self.arm
        l1, l2 = arm.link_lengths
        l3 = tool.length
        distance = math.hypot(du, dv)
        toward = math.atan2(dv, du)
        if distance > l1 + l2 + l3:
            status, phi = DesktopStatus.OUT_OF_REACH, toward
        elif distance < abs(l1 - l2) - l3:
            status, phi = DesktopStatus.INSIDE_INNER, toward + math.pi
        elif distance < l3 - l1 - l2:
            status, phi = DesktopStatus.INSIDE_INNER, toward
        else:
            status, phi = DesktopStatus.JOINT_LIMITED, wanted
        sol = solve(du - l3 * math.cos(phi), dv - l3 * math.sin(phi), l1, l2, preferred,
                    self._pair_limits, self.allow_elbow_flip, previous_q)
        i3 = self._indices[3]
        pitch, clamped = fit_or_clamp(arm.directions[i3] * (phi - tool.beta - sol.q1 - sol.q2),
                                      arm.lower_limits[i3], arm.upper_limits[i3], previous_pitch)
        if clamped or sol.status is IkStatus.JOINT_LIMITED:
            status = DesktopStatus.JOINT_LIMITED
        phi = sol.q1 + sol.q2 + arm.directions[i3] * pitch + tool.beta
        tool_u = l1 * math.cos(sol.q1) + l2 * math.cos(sol.q1 + sol.q2) + l3 * math.cos(phi)
        tool_v = l1 * math.sin(sol.q1) + l2 * math.sin(sol.q1 + sol.q2) + l3 * math.sin(phi)
        return PlanePose(sol.q1, sol.q2, pitch, status, sol.elbow, pitch_angle(phi),
                         tool_u, tool_v)
