"""Where the set of feasible approach pitches can begin or end: its boundaries, exactly.

For a target at D from the shoulder (in the arm's plane) and an approach pitch phi, the wrist
point is ``W = D - l3 e(phi)`` (``e(a) = (cos a, sin a)``). A pitch is feasible on an elbow
branch when the pair reaches W within its limits and the pitch joint's reading
``q3 = phi - beta - q1 - q2`` is within its own. Each condition changes only where

- ``|W| = l1 + l2`` or ``|l1 - l2|`` (the annulus), or ``|W| = rho(c)`` with
  ``rho(c)^2 = l1^2 + l2^2 + 2 l1 l2 cos c`` (the elbow at a limit ``c``);
- ``|W - l1 e(c)| = l2`` (the shoulder at a limit ``c``: the elbow fixed);
- ``|D - l3 e(phi) - l2 e(phi - beta - c)| = l1`` (the pitch at a limit ``c``: link 2 turns
  with phi, so the two last links make one vector ``m e(phi + mu)``).

Every one is ``|P - m e(phi + mu)| = radius``, i.e. ``P . e(phi + mu) = (|P|^2 + m^2 -
radius^2) / (2 m)``: a cos(phi) + b sin(phi) = c, at most two roots. The feasible set is a union
of closed arcs whose ends are among these roots, so the feasible pitch nearest a wanted one is
the wanted one itself or one of the roots: the solver checks those candidates and nothing else.
"""

import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

from two_bone_ik.solver.reading_turns import fit_reading

#: A root is kept while ``|cos| <= 1 + TANGENT_SLACK`` (a tangency rounded to just past 1): the
#: candidate is checked anyway, so an extra one costs nothing and a lost one loses a solution.
TANGENT_SLACK = 1e-9

Circle = Tuple[float, float, float]


#: The joint a boundary holds (1 shoulder, 2 elbow, 3 pitch): the wrist on a reach circle or
#: the elbow on a limit fixes the elbow, and so on. See :func:`limit_circle_joints`.
SHOULDER, ELBOW, PITCH = 1, 2, 3

#: What a boundary holds: the joint (:data:`SHOULDER`...) and its solver angle there, rad.
Held = Tuple[int, float]


def limit_circle_joints(shoulder_limits, elbow_limits) -> Tuple[Held, ...]:
    """Return what each circle of :func:`limit_circles` holds, in the same order.

    The outer reach circle holds the elbow straight (0), the inner one folded (pi), an elbow
    limit's circle the elbow on it, a shoulder limit's the shoulder on it.
    """
    return (((ELBOW, 0.0), (ELBOW, math.pi))
            + tuple((ELBOW, limit) for limit in _boundaries(*elbow_limits))
            + tuple((SHOULDER, limit) for limit in _boundaries(*shoulder_limits)))


def limit_circles(l1: float, l2: float, shoulder_limits, elbow_limits) -> Tuple[Circle, ...]:
    """Return the circles ``|W - E| = radius`` (E, radius, m) where the pair's feasibility changes.

    Parameters
    ----------
    l1, l2 : float
        Link lengths, m.
    shoulder_limits, elbow_limits : (lower, upper)
        Solver-angle limits of q1 and q2, rad; a joint with a range of a turn or more, or an
        open side, has no boundary.
    """
    circles = [(0.0, 0.0, l1 + l2), (0.0, 0.0, abs(l1 - l2))]
    for limit in _boundaries(*elbow_limits):
        circles.append((0.0, 0.0, math.sqrt(max(0.0, l1 * l1 + l2 * l2
                                                + 2.0 * l1 * l2 * math.cos(limit)))))
    for limit in _boundaries(*shoulder_limits):
        circles.append((l1 * math.cos(limit), l1 * math.sin(limit), l2))
    return tuple(circles)


def pitch_limit_angles(pitch_limits) -> Tuple[float, ...]:
    """Solver-angle limits of q3 (rad) that bound its range (none for a turn or more)."""
    return _boundaries(*pitch_limits)


def _boundaries(lower: float, upper: float) -> Tuple[float, ...]:
    if upper - lower >= 2.0 * math.pi or not (math.isfinite(lower) and math.isfinite(upper)):
        return ()
    return (lower, upper)


def pitch_boundaries(du: float, dv: float, l3: float, beta: float, l1: float, l2: float,
                     circles: Sequence[Circle], pitch_angles: Sequence[float],
                     circle_joints: Sequence[Held] = (), joints: Optional[List[Held]] = None
                     ) -> List[float]:
    """Every root (rad) of the boundary equations for a target at (du, dv) from the shoulder.

    Parameters
    ----------
    du, dv : float
        The target from the shoulder, in the arm's plane, m.
    l3, beta : float
        The tool's in-plane distance from the pitch axis (m) and direction offset (rad).
    l1, l2 : float
        Link lengths, m.
    circles : sequence of (E_u, E_v, radius)
        From :func:`limit_circles`.
    pitch_angles : sequence of float
        From :func:`pitch_limit_angles`.
    circle_joints : sequence of int
        From :func:`limit_circle_joints` (needed with ``joints``).
    joints : list, optional
        When given, what each root holds (:data:`Held`: the joint and its angle) is appended
        to it, one per root, in order.
    """
    roots: List[float] = []
    for index, (eu, ev, radius) in enumerate(circles):
        found = len(roots)
        _roots(du - eu, dv - ev, l3, 0.0, radius, roots)
        if joints is not None:
            joints.extend((circle_joints[index],) * (len(roots) - found))
    for limit in pitch_angles:
        kappa = beta + limit
        mu_u, mu_v = l3 + l2 * math.cos(kappa), -l2 * math.sin(kappa)
        found = len(roots)
        _roots(du, dv, math.hypot(mu_u, mu_v), math.atan2(mu_v, mu_u), l1, roots)
        if joints is not None:
            joints.extend(((PITCH, limit),) * (len(roots) - found))
    return roots


def _roots(pu: float, pv: float, m: float, mu: float, radius: float, out: List[float]) -> None:
    """Append the phi (rad) with ``|P - m e(phi + mu)| = radius``."""
    p = math.hypot(pu, pv)
    if m == 0.0 or p == 0.0:
        return  # the condition does not depend on phi
    cosine = ((p - radius) * (p + radius) + m * m) / (2.0 * m * p)
    if not -1.0 - TANGENT_SLACK <= cosine <= 1.0 + TANGENT_SLACK:
        return
    spread = math.acos(max(-1.0, min(1.0, cosine)))
    base = math.atan2(pv, pu) - mu
    out.append(base + spread)
    out.append(base - spread)


def pitch_boundaries_array(du: np.ndarray, dv: np.ndarray, l3: np.ndarray, beta: np.ndarray,
                           l1: float, l2: float, circles: Sequence[Circle],
                           pitch_angles: Sequence[float]) -> np.ndarray:
    """Batch twin of :func:`pitch_boundaries`: shape (n, 2 * equations), NaN where no root."""
    columns = []
    for eu, ev, radius in circles:
        columns.extend(_roots_array(du - eu, dv - ev, l3, 0.0, radius))
    for limit in pitch_angles:
        kappa = beta + limit
        mu_u, mu_v = l3 + l2 * np.cos(kappa), -l2 * np.sin(kappa)
        columns.extend(_roots_array(du, dv, np.hypot(mu_u, mu_v), np.arctan2(mu_v, mu_u), l1))
    if not columns:
        return np.empty((du.shape[0], 0))
    return np.stack(columns, axis=1)


def _roots_array(pu, pv, m, mu, radius):
    p = np.hypot(pu, pv)
    with np.errstate(divide='ignore', invalid='ignore'):
        cosine = ((p - radius) * (p + radius) + m * m) / (2.0 * m * p)
    valid = (m != 0.0) & (p != 0.0) & (cosine >= -1.0 - TANGENT_SLACK) & (
        cosine <= 1.0 + TANGENT_SLACK)
    spread = np.arccos(np.clip(np.where(valid, cosine, 0.0), -1.0, 1.0))
    base = np.arctan2(pv, pu) - mu
    return (np.where(valid, base + spread, np.nan), np.where(valid, base - spread, np.nan))


class BoundaryRoots:
    """:func:`pitch_boundaries` for one arm, fast: constants computed once, roots sorted.

    Parameters
    ----------
    l1, l2 : float
        Link lengths, m.
    circles, circle_joints, pitch_angles
        From :func:`limit_circles`, :func:`limit_circle_joints` and
        :func:`pitch_limit_angles`.
    elbow_limits : (lower, upper), optional
        The elbow's solver-angle limits, rad: a circle holding the elbow at an angle no whole
        turn of which is within them (the arm cannot stretch or fold) has no pose that fits,
        so its roots are not computed. Without them every circle is kept.
    """

    def __init__(self, l1: float, l2: float, circles: Sequence[Circle],
                 circle_joints: Sequence[Held], pitch_angles: Sequence[float],
                 elbow_limits: Optional[Tuple[float, float]] = None):
        self.l1, self.l2 = l1, l2
        if elbow_limits is not None:
            kept = [(circle, held) for circle, held in zip(circles, circle_joints)
                    if held[0] != ELBOW or fit_reading(math.remainder(held[1], _TAU),
                                                       *elbow_limits) is not None]
            circles, circle_joints = [c for c, _ in kept], [h for _, h in kept]
        #: Circles about the shoulder (the reach and the elbow's limits): (radius, held).
        self.centred = tuple((radius, held) for (eu, ev, radius), held in
                             zip(circles, circle_joints) if eu == 0.0 and ev == 0.0)
        #: The others (the shoulder's limits): (E_u, E_v, radius, held).
        self.offset = tuple((eu, ev, radius, held) for (eu, ev, radius), held in
                            zip(circles, circle_joints) if not (eu == 0.0 and ev == 0.0))
        self.pitch_angles = tuple(pitch_angles)
        self.tag({})

    def held(self) -> Tuple[Held, ...]:
        """Return what every boundary holds (its joint and angle), each once."""
        return (tuple(held for _, held in self.centred)
                + tuple(held for _, _, _, held in self.offset)
                + tuple((PITCH, limit) for limit in self.pitch_angles))

    def tag(self, tags) -> None:
        """Make :meth:`sorted_roots` carry ``tags[held]`` in place of a boundary's held.

        ``tags`` maps a :meth:`held` to what its roots carry (the solver's per-boundary
        constants, so that it looks nothing up per root); a held not in it is carried itself.
        """
        self._centred = tuple((radius, tags.get(held, held)) for radius, held in self.centred)
        self._offset = tuple((eu, ev, radius, tags.get(held, held))
                             for eu, ev, radius, held in self.offset)
        self._pitch_tags = tuple(tags.get((PITCH, limit), (PITCH, limit))
                                 for limit in self.pitch_angles)
        self._tool = (None, None, ())  # (l3, beta, per pitch limit (m, mu, tag))

    def _pitch_terms(self, l3: float, beta: float):
        """Per pitch limit: (m, mu, tag) of its equation, for the tool (l3 m, beta rad)."""
        cached_l3, cached_beta, terms = self._tool
        if cached_l3 != l3 or cached_beta != beta:
            terms = []
            for limit, tag in zip(self.pitch_angles, self._pitch_tags):
                kappa = beta + limit
                mu_u, mu_v = l3 + self.l2 * math.cos(kappa), -self.l2 * math.sin(kappa)
                terms.append((math.hypot(mu_u, mu_v), math.atan2(mu_v, mu_u), tag))
            self._tool = (l3, beta, terms)
        return terms

    def sorted_roots(self, du: float, dv: float, l3: float, beta: float, wanted: float
                     ) -> List[Tuple[float, float, Held]]:
        """Return every root as (distance from ``wanted``, phi, held), nearest first (rad).

        The same roots as :func:`pitch_boundaries` (with ``joints``); in place of held, its tag
        when :meth:`tag` gave one.
        """
        out = []
        add = out.append
        acos, atan2, hypot, remainder = math.acos, math.atan2, math.hypot, math.remainder
        slack = 1.0 + TANGENT_SLACK
        p = hypot(du, dv)
        angle = atan2(dv, du) if p != 0.0 else 0.0
        double, square = 2.0 * l3, l3 * l3
        # (A cosine within the slack past +-1 is that end: acos gives 0 or pi exactly there.)
        if l3 != 0.0 and p != 0.0:
            twice = double * p
            for radius, tag in self._centred:
                cosine = ((p - radius) * (p + radius) + square) / twice
                if -1.0 <= cosine <= 1.0:
                    spread = acos(cosine)
                elif -slack <= cosine <= slack:
                    spread = 0.0 if cosine > 0.0 else _PI
                else:
                    continue
                phi = angle + spread
                add((abs(remainder(phi - wanted, _TAU)), phi, tag))
                phi = angle - spread
                add((abs(remainder(phi - wanted, _TAU)), phi, tag))
        for eu, ev, radius, tag in self._offset:
            pu, pv = du - eu, dv - ev
            q = hypot(pu, pv)
            if l3 == 0.0 or q == 0.0:
                continue
            cosine = ((q - radius) * (q + radius) + square) / (double * q)
            if -1.0 <= cosine <= 1.0:
                spread = acos(cosine)
            elif -slack <= cosine <= slack:
                spread = 0.0 if cosine > 0.0 else _PI
            else:
                continue
            turned = atan2(pv, pu)
            phi = turned + spread
            add((abs(remainder(phi - wanted, _TAU)), phi, tag))
            phi = turned - spread
            add((abs(remainder(phi - wanted, _TAU)), phi, tag))
        if p != 0.0:
            radius = self.l1
            for m, mu, tag in self._pitch_terms(l3, beta):
                if m == 0.0:
                    continue
                cosine = ((p - radius) * (p + radius) + m * m) / (2.0 * m * p)
                if -1.0 <= cosine <= 1.0:
                    spread = acos(cosine)
                elif -slack <= cosine <= slack:
                    spread = 0.0 if cosine > 0.0 else _PI
                else:
                    continue
                turned = angle - mu
                phi = turned + spread
                add((abs(remainder(phi - wanted, _TAU)), phi, tag))
                phi = turned - spread
                add((abs(remainder(phi - wanted, _TAU)), phi, tag))
        out.sort(key=_first)
        return out


def _first(item):
    return item[0]


_TAU = 2.0 * math.pi
_PI = math.pi
