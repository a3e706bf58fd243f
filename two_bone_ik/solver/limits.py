"""Joint limits: whole-turn representatives, the elbow flip and the closest pose in limits."""

import math
from typing import Optional

import numpy as np

from two_bone_ik.solver.angles import wrap_angle, wrap_angles
from two_bone_ik.solver.results import IkSolution, IkStatus, REACH_TOLERANCE
from two_bone_ik.solver.validation import MAX_JOINT_LIMIT

#: Slack in radians within which an angle counts as inside its joint limits (it is then clamped
#: onto the limit), so rounding never turns an exact solution into a limited one.
LIMIT_TOLERANCE = 1e-10

_TWO_PI = 2.0 * math.pi
_PI = math.pi
_INF = math.inf


def _forward(q1, q2, l1, l2):
    a12 = q1 + q2
    return (l1 * math.cos(q1) + l2 * math.cos(a12), l1 * math.sin(q1) + l2 * math.sin(a12))


def _into_range(q: float, lo: float, hi: float, ref: float = 0.0) -> Optional[float]:
    """Return the whole-turn representative of ``q`` inside [lo, hi], or None if none fits.

    Among several representatives, the one nearest ``ref`` clamped into [lo, hi] (an open side
    counting as MAX_JOINT_LIMIT), on a tie the one nearer ``q``. An unlimited joint gets ``q``
    wrapped into [-pi, pi]. An angle within LIMIT_TOLERANCE outside a limit is put on that
    limit. All in radians.
    """
    if hi - lo < _TWO_PI:  # at most one representative
        if lo <= q <= hi:
            return q
        moved = lo + (q - lo) % _TWO_PI
        if moved <= hi:
            return moved
        if moved - hi <= LIMIT_TOLERANCE:
            return hi
        if lo - (moved - _TWO_PI) <= LIMIT_TOLERANCE:
            return lo
        return None
    if lo == -_INF and hi == _INF:
        return wrap_angle(q)
    centre = min(max(ref, lo, -MAX_JOINT_LIMIT), hi, MAX_JOINT_LIMIT)
    below = q + _TWO_PI * math.floor((centre - q) / _TWO_PI)
    above = below + _TWO_PI
    below_fits = lo - LIMIT_TOLERANCE <= below <= hi + LIMIT_TOLERANCE
    above_fits = lo - LIMIT_TOLERANCE <= above <= hi + LIMIT_TOLERANCE
    if below_fits and above_fits:
        gap_below, gap_above = centre - below, above - centre
        if gap_above < gap_below or (gap_above == gap_below and abs(above - q) < abs(below - q)):
            below = above
    elif above_fits:
        below = above
    elif not below_fits:
        return None
    return lo if below < lo else hi if below > hi else below


def _into_ranges(q: float, ranges) -> Optional[float]:
    """Return a representative of ``q`` (rad) inside the first of ``ranges`` that has one."""
    for lo, hi in ranges:
        moved = _into_range(q, lo, hi)
        if moved is not None:
            return moved
    return None


def _side_ranges(lo: float, hi: float, sign: float) -> list:
    """Parts of [lo, hi] (rad) where q2, modulo whole turns, is on one elbow side.

    ``sign`` -1 keeps q2 in [-pi, 0] (elbow up), +1 keeps it in [0, pi] (elbow down). Infinite
    or very wide limits are cut to two whole turns, which still hold every angle once.
    """
    if lo == -_INF and hi == _INF:
        lo, hi = -_TWO_PI, _TWO_PI
    elif lo == -_INF:
        lo = hi - 2.0 * _TWO_PI
    elif hi - lo > 2.0 * _TWO_PI:
        hi = lo + 2.0 * _TWO_PI
    base = -math.pi if sign < 0.0 else 0.0
    parts = []
    for k in range(math.floor((lo - base) / _TWO_PI) - 1, math.ceil((hi - base) / _TWO_PI) + 1):
        copy_lo = base + _TWO_PI * k
        part_lo = max(lo, copy_lo)
        part_hi = min(hi, copy_lo + math.pi)
        if part_lo <= part_hi:
            parts.append((part_lo, part_hi))
        elif part_lo - part_hi <= LIMIT_TOLERANCE:
            # A limit within tolerance of the side's edge: that one angle counts as on the side.
            edge = lo if lo > copy_lo else hi
            parts.append((edge, edge))
    return parts


def _search_ranges(lo2: float, hi2: float, sign: float, allow_elbow_flip: bool) -> list:
    """Ranges of q2 (rad) that the closest-pose search may use."""
    if not allow_elbow_flip:
        parts = _side_ranges(lo2, hi2, sign)
        if parts:
            return parts
        # No pose on the requested side fits the limits at all: the limits win.
    return [(lo2, hi2)]


def _solve_limited(x, y, l1, l2, phi, q1, q2, ab, adjacent, sign, status, limits,
                   allow_elbow_flip, ref1, ref2):
    """Solve when the closed-form pose violates a joint limit: flip, or find the closest pose.

    ``ref1``, ``ref2`` (rad) pick among whole-turn representatives, as in :func:`_into_range`.
    """
    (lo1, hi1), (lo2, hi2) = limits
    fit1 = fit2 = None
    if allow_elbow_flip and status is IkStatus.REACHED and ab > 0.0:
        other_q1 = wrap_angle(phi - math.atan2(-sign * ab, adjacent))
        fit1 = _into_range(other_q1, lo1, hi1, ref1)
        fit2 = _into_range(-q2, lo2, hi2, ref2)
        if fit1 is not None and fit2 is not None:
            status = IkStatus.ELBOW_FLIPPED
            elbow = _branch(-q2, sign)
    if fit1 is None or fit2 is None:
        q2_ranges = _search_ranges(lo2, hi2, sign, allow_elbow_flip)
        fit1, fit2 = _closest_in_limits(x, y, l1, l2, phi, q2, (lo1, hi1), q2_ranges)
        elbow = _branch(fit2, sign)
        fit1 = _into_range(fit1, lo1, hi1, ref1)
        fit2 = _into_range(fit2, lo2, hi2, ref2)
        status = IkStatus.JOINT_LIMITED
    tip = _forward(fit1, fit2, l1, l2)
    error = math.hypot(tip[0] - x, tip[1] - y)
    if status is IkStatus.JOINT_LIMITED and error <= REACH_TOLERANCE * (l1 + l2):
        status = IkStatus.REACHED  # a degenerate arm (zero-length link) reached it another way
    reachable = status is IkStatus.REACHED or status is IkStatus.ELBOW_FLIPPED
    return IkSolution(fit1, fit2, status, reachable, tip, error, elbow)


def _branch(q2: float, sign: float) -> str:
    """Elbow branch of a pose with elbow angle ``q2`` (rad), requested branch ``sign`` (-1 up).

    ``'up'`` when q2 wrapped into [-pi, pi] is negative, ``'down'`` when positive; for a
    straight (0) or exactly folded (+-pi) arm, the requested branch. Callers pass q2 before it
    is moved into the limits by whole turns, so rounding in that move cannot change the branch.
    """
    wrapped = wrap_angle(q2)
    if -_PI < wrapped < 0.0:
        return 'up'
    if 0.0 < wrapped < _PI:
        return 'down'
    return 'up' if sign < 0.0 else 'down'


def _limit_candidates(x, y, l1, l2, phi, q2_exact, q1_range, q2_ranges, atan2=math.atan2,
                      sin=math.sin, cos=math.cos):
    """Yield (q1, q2) poses (rad) among which the closest in-limits pose must be.

    The squared tip distance is smooth on the box of joint limits, so its minimum lies at a
    stationary point inside (an exact solution, or the arm straight or folded along the
    target's line), on an edge (one joint at a limit: the tip moves on a circle, whose closest
    point to the target has a closed form) or at a corner. Candidates may lie outside the
    limits; the caller drops those. Works on floats, or on arrays of targets when given numpy's
    ``arctan2``, ``sin`` and ``cos``.
    """
    for q2 in (q2_exact, -q2_exact):
        yield phi - atan2(l2 * sin(q2), l1 + l2 * cos(q2)), q2
    for q2 in (0.0, math.pi):
        yield phi, q2
        yield phi + math.pi, q2
    lo1, hi1 = q1_range
    q1_edges = () if hi1 - lo1 >= _TWO_PI else (lo1, hi1)
    q2_edges = [q2 for q2_lo, q2_hi in q2_ranges if q2_hi - q2_lo < _TWO_PI
                for q2 in (q2_lo, q2_hi)]
    for q1 in q1_edges:
        ex, ey = l1 * cos(q1), l1 * sin(q1)
        yield q1, atan2(y - ey, x - ex) - q1
    for q2 in q2_edges:
        yield phi - math.atan2(l2 * math.sin(q2), l1 + l2 * math.cos(q2)), q2
    for q1 in q1_edges:
        for q2 in q2_edges:
            yield q1, q2


def _closest_in_limits(x, y, l1, l2, phi, q2_exact, q1_range, q2_ranges):
    """Return (q1, q2) in radians: the in-limits pose whose tip is closest to (x, y)."""
    lo1, hi1 = q1_range
    best = None
    best_distance = _INF
    for q1, q2 in _limit_candidates(x, y, l1, l2, phi, q2_exact, q1_range, q2_ranges):
        fit1 = _into_range(q1, lo1, hi1)
        fit2 = _into_ranges(q2, q2_ranges)
        if fit1 is None or fit2 is None:
            continue
        tx, ty = _forward(fit1, fit2, l1, l2)
        distance = math.hypot(tx - x, ty - y)
        if distance < best_distance:
            best, best_distance = (fit1, fit2), distance
    return best


# ---------------------------------------------------------------------------------------------
# Vectorised solver


def _into_range_array(q: np.ndarray, lo: float, hi: float, ref=0.0) -> np.ndarray:
    """Vectorised :func:`_into_range`, NaN where no whole turn fits.

    ``ref`` is a float or an array like ``q``.
    """
    if hi - lo < _TWO_PI:
        moved = q - lo
        np.remainder(moved, _TWO_PI, out=moved)
        moved += lo
        result = np.where(moved <= hi, moved, np.nan)
        result[(moved > hi) & (lo - (moved - _TWO_PI) <= LIMIT_TOLERANCE)] = lo
        result[(moved > hi) & (moved - hi <= LIMIT_TOLERANCE)] = hi
        inside = (lo <= q) & (q <= hi)
        result[inside] = q[inside]
        return result
    if lo == -_INF and hi == _INF:
        return wrap_angles(q)
    centre = np.clip(ref, max(lo, -MAX_JOINT_LIMIT), min(hi, MAX_JOINT_LIMIT))
    below = q + _TWO_PI * np.floor((centre - q) / _TWO_PI)
    above = below + _TWO_PI
    below_fits = (lo - LIMIT_TOLERANCE <= below) & (below <= hi + LIMIT_TOLERANCE)
    above_fits = (lo - LIMIT_TOLERANCE <= above) & (above <= hi + LIMIT_TOLERANCE)
    gap_below, gap_above = centre - below, above - centre
    nearer_above = (gap_above < gap_below) | (
        (gap_above == gap_below) & (np.abs(above - q) < np.abs(below - q)))
    take_above = above_fits & (~below_fits | nearer_above)
    result = np.where(take_above, above, below)
    result[~(below_fits | above_fits)] = np.nan
    return np.clip(result, lo, hi)


def _into_ranges_array(q: np.ndarray, ranges) -> np.ndarray:
    result = np.full(q.shape, np.nan)
    for lo, hi in reversed(ranges):
        moved = _into_range_array(q, lo, hi)
        result = np.where(np.isnan(moved), result, moved)
    return result


def _closest_in_limits_array(x, y, l1, l2, phi, q2_exact, q1_range, q2_ranges):
    """Vectorised :func:`_closest_in_limits` over targets (x, y) of shape (m,)."""
    lo1, hi1 = q1_range
    best1 = np.full(x.shape, np.nan)
    best2 = np.full(x.shape, np.nan)
    best_distance = np.full(x.shape, _INF)
    for q1, q2 in _limit_candidates(x, y, l1, l2, phi, q2_exact, q1_range, q2_ranges,
                                    np.arctan2, np.sin, np.cos):
        fit1 = _into_range_array(np.broadcast_to(q1, x.shape), lo1, hi1)
        fit2 = _into_ranges_array(np.broadcast_to(q2, x.shape), q2_ranges)
        a12 = fit1 + fit2
        distance = np.hypot(l1 * np.cos(fit1) + l2 * np.cos(a12) - x,
                            l1 * np.sin(fit1) + l2 * np.sin(a12) - y)
        better = distance < best_distance  # False where NaN: the pose did not fit
        best1 = np.where(better, fit1, best1)
        best2 = np.where(better, fit2, best2)
        best_distance = np.where(better, distance, best_distance)
    return best1, best2


def _forward_array(q1: np.ndarray, q2: np.ndarray, l1: float, l2: float) -> np.ndarray:
    """Tip positions, shape (n, 2), metres, for joint angles of shape (n,), radians."""
    a12 = q1 + q2
    return np.stack((l1 * np.cos(q1) + l2 * np.cos(a12), l1 * np.sin(q1) + l2 * np.sin(a12)),
                    axis=1)


def _fit_batch_into_limits(x, y, l1, l2, phi, q1, q2, ab, adjacent, sign, status, limits,
                           allow_elbow_flip, tip, error, previous):
    """Vectorised limit handling of :func:`solve`; updates status, tip and error in place.

    ``previous`` (n, 2) or None picks among whole-turn representatives. Returns the joint
    angles (q1, q2) inside the limits, radians.
    """
    (lo1, hi1), (lo2, hi2) = limits
    if previous is None:
        ref1 = ref2 = np.zeros(x.shape)
    else:
        ref1, ref2 = previous[:, 0], previous[:, 1]
    sign = np.broadcast_to(sign, x.shape).copy()
    fit1 = _into_range_array(q1, lo1, hi1, ref1)
    fit2 = _into_range_array(q2, lo2, hi2, ref2)
    pending = np.isnan(fit1) | np.isnan(fit2)
    changed = np.flatnonzero(pending)
    if allow_elbow_flip:
        flip = np.flatnonzero(pending & (status == IkStatus.REACHED) & (ab > 0.0))
        other_q1 = wrap_angles(phi[flip] - np.arctan2(-sign[flip] * ab[flip], adjacent[flip]))
        flip1 = _into_range_array(other_q1, lo1, hi1, ref1[flip])
        flip2 = _into_range_array(-q2[flip], lo2, hi2, ref2[flip])
        fits = ~(np.isnan(flip1) | np.isnan(flip2))
        flip, flip1, flip2 = flip[fits], flip1[fits], flip2[fits]
        fit1[flip], fit2[flip] = flip1, flip2
        status[flip] = IkStatus.ELBOW_FLIPPED
        sign[flip] = -sign[flip]
        pending[flip] = False
    for side in (-1.0, 1.0):
        rows = np.flatnonzero(pending & (sign == side))
        if rows.size:
            q2_ranges = _search_ranges(lo2, hi2, side, allow_elbow_flip)
            best1, best2 = _closest_in_limits_array(
                x[rows], y[rows], l1, l2, phi[rows], q2[rows], (lo1, hi1), q2_ranges)
            fit1[rows] = _into_range_array(best1, lo1, hi1, ref1[rows])
            fit2[rows] = _into_range_array(best2, lo2, hi2, ref2[rows])
            status[rows] = IkStatus.JOINT_LIMITED
    tip[changed] = _forward_array(fit1[changed], fit2[changed], l1, l2)
    error[changed] = np.hypot(tip[changed, 0] - x[changed], tip[changed, 1] - y[changed])
    reached = changed[(status[changed] == IkStatus.JOINT_LIMITED)
                      & (error[changed] <= REACH_TOLERANCE * (l1 + l2))]
    status[reached] = IkStatus.REACHED
    return fit1, fit2
