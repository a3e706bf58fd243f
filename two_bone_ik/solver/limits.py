"""Joint limits: the limits type, whole-turn representatives, the elbow flip, the closest pose.

Scalar functions serve :func:`~two_bone_ik.solver.solve`, their vectorised twins (``_array``)
:func:`~two_bone_ik.solver.solve_batch`; both take the same steps in the same order, so row
``i`` of a batch equals the scalar result to rounding.

The closest pose in limits minimises the tip's distance to the target over the box of limits
(modulo whole turns). Inside the box the only minima are exact solutions and, for a target
out of reach, the arm stretched or folded toward it: the closed-form poses, tried first (the
other stationary poses are saddles or maxima). So when none fits, the minimum is on the box's
boundary. On an edge ``q2 = c`` the tip runs on a circle about the shoulder, of radius
``R(c)`` at angle ``q1 + beta(c)``: its closest point is ``q1 = phi - beta(c)`` (phi the
target's direction) if that lies in the q1 arc, at distance ``|R(c) - r|``, else the nearer end
of the edge, a corner of the box. On an edge ``q1 = c`` the elbow is a fixed point E and the tip
runs on a circle of radius ``l2`` about it: the direction from E to the target if it lies in the
q2 arc, at distance ``| |T - E| - l2 |``, else the nearer corner. Corner tips are computed once
per arm, so the search needs no trigonometry until its winner's angle.
"""

import math
from typing import Optional, Tuple

import numpy as np

from two_bone_ik.solver.angles import wrap_angle, wrap_angles
from two_bone_ik.solver.results import IkSolution, IkStatus, REACH_TOLERANCE
from two_bone_ik.solver.validation import _check_limits, MAX_JOINT_LIMIT

#: Slack in radians within which an angle counts as inside its joint limits (it is then put
#: onto the limit), so rounding never turns an exact solution into a limited one.
LIMIT_TOLERANCE = 1e-10

_TWO_PI = 2.0 * math.pi
_PI = math.pi
_INF = math.inf
_REACHED = IkStatus.REACHED
_JOINT_LIMITED = IkStatus.JOINT_LIMITED
_ELBOW_FLIPPED = IkStatus.ELBOW_FLIPPED
_tuple_new = tuple.__new__
_atan2 = math.atan2
_cos = math.cos
_sin = math.sin
_hypot = math.hypot
_sqrt = math.sqrt
_TOLERANCE = LIMIT_TOLERANCE

# How an edge's tip arc is tested for holding the target's direction: a whole turn (always),
# an arc up to a half turn (both end cross products >= 0), a wider one (either), or a single
# angle (never: its corner stands for it).
_TURN, _ARC, _WIDE_ARC, _POINT = 0, 1, 2, 3

# Which elbow angles the closest-pose search may use: any in the limits, or only those on the
# requested side (allow_elbow_flip=False, elbow up or down).
_ANY_SIDE, _UP_SIDE, _DOWN_SIDE = 0, 1, 2


class JointLimits:
    """Joint limits of the two-link arm, validated once.

    Pass one wherever ``limits=`` is accepted to skip the per-call validation of a plain
    sequence. Immutable; it iterates, indexes and compares as its pairs
    ``((lo1, hi1), (lo2, hi2))``.

    Parameters
    ----------
    limits : sequence of two (lower, upper) pairs, or JointLimits
        ``((lo1, hi1), (lo2, hi2))`` in radians for the shoulder and the elbow; ``-inf`` /
        ``inf`` for an unlimited side. Each lower limit at most its upper limit; a finite limit
        within :data:`MAX_JOINT_LIMIT` (1e5 rad) in absolute value.

    Raises
    ------
    IkInputError
        If ``limits`` is not two pairs of numbers, a limit is NaN, a lower limit is ``inf``, an
        upper one ``-inf``, a lower limit is above its upper limit, or a finite limit is beyond
        :data:`MAX_JOINT_LIMIT`.

    Notes
    -----
    Besides the pairs it holds what the solvers derive from them: for each joint whether its
    range is narrower than a turn (then it has edges), the arcs of elbow angles on each side
    and the cosines and sines of the edges; and, for the last link lengths it was used with,
    each edge's circle and the tips at the box's corners. That cache is an implementation
    detail, swapped in one store (safe between threads): the value of a JointLimits never
    changes.
    """

    __slots__ = ('_pairs', '_fit', '_box', '_q1_arc', '_q1_edges', '_q2_edges', '_q2_search',
                 '_arm')

    def __init__(self, limits):
        if isinstance(limits, JointLimits):
            pairs = limits._pairs
        else:
            # + 0.0 turns -0.0 into 0.0, so equal limits give identical results.
            pairs = tuple((lo + 0.0, hi + 0.0) for lo, hi in _check_limits(limits))
        (lo1, hi1), (lo2, hi2) = pairs
        narrow1, narrow2 = hi1 - lo1 < _TWO_PI, hi2 - lo2 < _TWO_PI
        unlimited1 = lo1 == -_INF and hi1 == _INF
        unlimited2 = lo2 == -_INF and hi2 == _INF
        # q1's arc: start, width, end, and the middle of the gap outside it.
        arc1 = (lo1, hi1 - lo1, hi1, 0.5 * (hi1 - lo1 + _TWO_PI)) if narrow1 else None
        whole2 = ((lo2, hi2 - lo2, hi2),) if narrow2 else None
        search = []
        for side in (_ANY_SIDE, _UP_SIDE, _DOWN_SIDE):
            arcs = whole2 if side == _ANY_SIDE else _side_arcs(lo2, hi2, narrow2, side)
            whole = arcs is whole2 or not arcs  # no pose on the side fits: the limits win
            search.append((arcs or whole2, whole))
        setattr_ = object.__setattr__
        setattr_(self, '_pairs', pairs)
        # For the fit of an exact solution (angles in [-pi, pi]): bounds, and whether an angle
        # inside them can stay as it is (the only representative, or an unlimited joint).
        keep1, keep2 = narrow1 or unlimited1, narrow2 or unlimited2
        setattr_(self, '_fit', (lo1, hi1, keep1, lo2, hi2, keep2))
        setattr_(self, '_box', (lo1, hi1, narrow1, keep1, lo2, hi2, narrow2, keep2))
        setattr_(self, '_q1_arc', arc1)
        setattr_(self, '_q1_edges', _edges_of(None if arc1 is None else (arc1[:3],)))
        # Per search side: the arcs of q2 (None: any angle) and whether they are the whole
        # range (no side restriction, or none possible); the ends of the arcs are the edges.
        setattr_(self, '_q2_search', tuple(search))
        setattr_(self, '_q2_edges', tuple(_edges_of(arcs) for arcs, _ in search))
        setattr_(self, '_arm', (None, None, ()))

    @property
    def pairs(self) -> Tuple[Tuple[float, float], Tuple[float, float]]:
        """``((lo1, hi1), (lo2, hi2))`` as floats, radians."""
        return self._pairs

    def __iter__(self):
        return iter(self._pairs)

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index):
        return self._pairs[index]

    def __eq__(self, other):
        if isinstance(other, JointLimits):
            return self._pairs == other._pairs
        return NotImplemented

    def __hash__(self):
        return hash(self._pairs)

    def __repr__(self) -> str:
        return f'JointLimits({self._pairs!r})'

    def __reduce__(self):
        return JointLimits, (self._pairs,)

    def __setattr__(self, name, value):
        raise AttributeError('JointLimits is immutable')

    def __delattr__(self, name):
        raise AttributeError('JointLimits is immutable')

    def _arm_for(self, l1: float, l2: float) -> tuple:
        """Return what the closest-pose search needs for link lengths l1, l2 (m), cached.

        Returns ``(l1, l2, sides)``; ``sides[side]`` is ``(q2_edges, q1_edges, box)``. A q2
        edge c is ``(c, R, beta, lo1 + beta, corner_lo, corner_hi)``: at q2 = c the tip runs on
        the circle of radius R about the shoulder at angle q1 + beta, q1 from its lower limit
        lo1 to its upper one (corners None when q1 has no limits under a turn). A q1 edge c,
        for each q2 arc, is ``(c, elbow u, elbow v, arc,
        s_u, s_v, e_u, e_v, mode, corner_s, corner_e, s_u - e_u, s_v - e_v, m_u, m_v)``: the
        tip runs on the circle of radius l2 about the elbow from direction s (q2 at the arc's
        start) through m to e. ``mode`` says how to test a direction against the arc
        (``_TURN`` ... ``_POINT``): within an arc up to a half turn means both cross products
        with its ends >= 0 and the dot product with its middle >= 0 (the cross products alone
        cannot tell the opposite direction from an arc of almost no width). Corners are ``(q1,
        q2, tip u, tip v)``, their tips by forward kinematics. ``box`` is :func:`_box_of`'s.
        """
        arm = self._arm
        if arm[0] == l1 and arm[1] == l2:
            return arm
        cos, sin = math.cos, math.sin

        def corner(a1, a2):
            return (a1, a2, l1 * cos(a1) + l2 * cos(a1 + a2), l1 * sin(a1) + l2 * sin(a1 + a2))

        def mode_of(width):
            return _POINT if width == 0.0 else _WIDE_ARC if width > _PI else _ARC

        arc1 = self._q1_arc
        sides = []
        for (arcs2, _), q2_ends in zip(self._q2_search, self._q2_edges):
            q2_edges = []
            for c, cos_c, sin_c in q2_ends:
                u, v = l1 + l2 * cos_c, l2 * sin_c
                radius, beta = _hypot(u, v), _atan2(v, u)
                if arc1 is None:
                    q2_edges.append((c, radius, beta, beta, None, None))
                else:
                    lo, _, hi, _ = arc1
                    q2_edges.append((c, radius, beta, lo + beta, corner(lo, c), corner(hi, c)))
            q1_edges = []
            for c, cos_c, sin_c in self._q1_edges:
                ex, ey = l1 * cos_c, l1 * sin_c
                if arcs2 is None:
                    q1_edges.append((c, ex, ey, None, 0.0, 0.0, 0.0, 0.0, _TURN, None, None,
                                     0.0, 0.0, 0.0, 0.0))
                    continue
                for arc in arcs2:
                    start, width, end = arc
                    s_u, s_v = cos(c + start), sin(c + start)
                    e_u, e_v = cos(c + end), sin(c + end)
                    mid = c + start + 0.5 * width
                    q1_edges.append((c, ex, ey, arc, s_u, s_v, e_u, e_v, mode_of(width),
                                     corner(c, start), corner(c, end), s_u - e_u, s_v - e_v,
                                     cos(mid), sin(mid)))
            sides.append((tuple(q2_edges), tuple(q1_edges), _box_of(q2_edges, q1_edges)))
        arm = (l1, l2, tuple(sides))
        object.__setattr__(self, '_arm', arm)  # one atomic store: safe between threads
        return arm


def _box_of(q2_edges, q1_edges) -> Optional[tuple]:
    """Flatten the common case for the unrolled search: two edges of each joint, real arcs.

    That is a limit box under a turn each way, not cut by the elbow side (or cut to one arc).
    Returns None otherwise. The layout is the one :func:`_solve_limited` unpacks.
    """
    if len(q2_edges) != 2 or len(q1_edges) != 2 or q2_edges[0][4] is None:
        return None
    (s, e), (lo, hi) = q2_edges, q1_edges
    modes = {lo[8], hi[8]}
    if not (len(modes) == 1 and modes <= {_ARC, _WIDE_ARC}):
        return None
    # Corners: s[4] = (lo1, q2s), s[5] = (hi1, q2s), e[4] = (lo1, q2e), e[5] = (hi1, q2e).
    return (s[4], s[5], e[4], e[5]) + tuple(
        value for corner in (s[4], s[5], e[4], e[5]) for value in corner[2:]) + (
        s, s[1], s[3], e, e[1], e[3],
        lo[8] == _ARC, lo, lo[1], lo[2], lo[4], lo[5], lo[6], lo[7], lo[11], lo[12], lo[13],
        lo[14], hi, hi[1], hi[2], hi[4], hi[5], hi[6], hi[7], hi[11], hi[12], hi[13], hi[14])


def _edges_of(arcs) -> tuple:
    """(c, cos c, sin c) for each end c (rad) of the arcs; none for a full circle (None)."""
    if arcs is None:
        return ()
    ends = []
    for start, _, end in arcs:
        for c in (start, end):
            if c not in ends:
                ends.append(c)
    return tuple((c, math.cos(c), math.sin(c)) for c in ends)


def _side_arcs(lo: float, hi: float, narrow: bool, side: int) -> tuple:
    """Arcs (start, width, end) of elbow angles q2 (rad) in [lo, hi] on one elbow side.

    The up side holds q2 in [-pi, 0] modulo whole turns, the down side [0, pi]. For limits of a
    turn or more, the one arc of the side (angles then go to the limits by whole turns); else
    the parts of [lo, hi] on the side (at most two, each inside [lo, hi]), possibly none. A
    limit within LIMIT_TOLERANCE of the side's edge counts that one angle as on the side.
    """
    base = -_PI if side == _UP_SIDE else 0.0
    if not narrow:
        return ((base, _PI, base + _PI),)
    parts = []
    for k in range(math.floor((lo - base) / _TWO_PI) - 1, math.ceil((hi - base) / _TWO_PI) + 1):
        copy_lo = base + _TWO_PI * k
        part_lo = max(lo, copy_lo)
        part_hi = min(hi, copy_lo + _PI)
        if part_lo <= part_hi:
            parts.append((part_lo, part_hi - part_lo, part_hi))
        elif part_lo - part_hi <= LIMIT_TOLERANCE:
            edge = lo if lo > copy_lo else hi
            parts.append((edge, 0.0, edge))
    return tuple(parts)


_CACHE = {}
_CACHE_SIZE = 64


def _joint_limits(limits) -> JointLimits:
    """Return ``limits`` as a JointLimits, validating a plain sequence.

    Hashable sequences (tuples of numbers: immutable, so a cached result stays right) are
    validated once and cached; anything else (lists, arrays) is validated on every call.
    """
    if limits.__class__ is JointLimits:
        return limits
    try:
        found = _CACHE.get(limits)
    except TypeError:  # unhashable
        return JointLimits(limits)
    if found is None:
        found = JointLimits(limits)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[limits] = found
    return found


# ---------------------------------------------------------------------------------------------
# Whole-turn representatives


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
    # With limits of a turn or more, of the two representatives around the reference one fits
    # (to LIMIT_TOLERANCE, which covers the rounding of q + k 2pi for |k 2pi| up to 2e5 rad).
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


def _into_range_array(q: np.ndarray, lo: float, hi: float, ref=0.0) -> np.ndarray:
    """Vectorised :func:`_into_range`, NaN where no whole turn fits.

    ``ref`` is a float or an array like ``q``. Returns a new array.
    """
    if hi - lo < _TWO_PI:
        moved = q - lo
        np.remainder(moved, _TWO_PI, out=moved)
        moved += lo
        np.copyto(moved, q, where=(lo <= q) & (q <= hi))
        over = np.flatnonzero(moved > hi)
        if over.size:
            beyond = moved[over]
            moved[over] = np.where(beyond - hi <= LIMIT_TOLERANCE, hi, np.where(
                lo - (beyond - _TWO_PI) <= LIMIT_TOLERANCE, lo, np.nan))
        return moved
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
    np.copyto(below, above, where=above_fits & (~below_fits | nearer_above))
    below[~(below_fits | above_fits)] = np.nan
    return np.clip(below, lo, hi, out=below)


def _branch(q2: float, sign: float) -> str:
    """Elbow branch of a pose with elbow angle ``q2`` (rad), requested branch ``sign`` (-1 up).

    ``'up'`` when q2 wrapped into [-pi, pi] is negative, ``'down'`` when positive; for a
    straight (0) or exactly folded (+-pi) arm, the requested branch. The wrap is exact, so the
    branch is that of the returned angle as any caller would wrap it.
    """
    wrapped = wrap_angle(q2)
    if -_PI < wrapped < 0.0:
        return 'up'
    if 0.0 < wrapped < _PI:
        return 'down'
    return 'up' if sign < 0.0 else 'down'


# ---------------------------------------------------------------------------------------------
# One target


def _solve_limited(x, y, l1, l2, r, rc, q1, q2, sab, adjacent, sign, status, limits,
                   allow_elbow_flip, previous):
    """Finish :func:`solve` when the closed-form pose is not plainly inside the limits.

    Move it into the limits by whole turns if it fits; else flip the elbow if allowed and the
    other branch fits; else return the in-limits pose whose tip is closest to the target.
    ``r`` is the target's distance and ``rc`` the closed-form tip's (m); ``q2`` the closed
    form's elbow angle and ``q1`` its shoulder angle at the origin, else None: it is the
    target's direction turned by ``atan2(sab, adjacent)`` (the closed form's terms), done only
    when needed. ``sign`` is the requested branch (-1 up), ``limits`` a JointLimits,
    ``previous`` None or the checked (q1, q2) picking whole-turn representatives.

    Inlined for speed: each ``lo + (q - lo) % 2pi`` block is :func:`_into_range` for a range
    under a turn, with the same arithmetic.
    """
    lo1, hi1, narrow1, keep1, lo2, hi2, narrow2, keep2 = limits._box
    if previous is None:
        ref1 = ref2 = 0.0
    else:
        ref1, ref2 = previous
    # The closed-form pose, by whole turns; the elbow angle first, it is known.
    if keep2 and lo2 <= q2 <= hi2:
        f2 = q2
    elif narrow2:
        f2 = lo2 + (q2 - lo2) % _TWO_PI
        if f2 > hi2:
            f2 = hi2 if f2 - hi2 <= _TOLERANCE else (
                lo2 if lo2 - (f2 - _TWO_PI) <= _TOLERANCE else None)
    else:
        f2 = _into_range(q2, lo2, hi2, ref2)
    if f2 is not None:
        if q1 is None:
            q1 = _atan2(y * adjacent - x * sab, x * adjacent + y * sab)
        if keep1 and lo1 <= q1 <= hi1:
            f1 = q1
        elif narrow1:
            f1 = lo1 + (q1 - lo1) % _TWO_PI
            if f1 > hi1:
                f1 = hi1 if f1 - hi1 <= _TOLERANCE else (
                    lo1 if lo1 - (f1 - _TWO_PI) <= _TOLERANCE else None)
        else:
            f1 = _into_range(q1, lo1, hi1, ref1)
        if f1 is not None:
            # As the closed form: its tip lies on the target's ray at radius rc.
            if rc == r:
                tip = (x, y)
                error = 0.0
            elif r > 0.0:
                scale = rc / r
                tip = (x * scale, y * scale)
                error = r - rc if r > rc else rc - r
            else:
                a12 = f1 + f2
                tip = (l1 * _cos(f1) + l2 * _cos(a12), l1 * _sin(f1) + l2 * _sin(a12))
                error = rc
            if f2 == q2:
                elbow = 'up' if sign < 0.0 else 'down'
            else:
                elbow = _branch(f2, sign)
            return _tuple_new(IkSolution, (f1, f2, status, status is _REACHED, tip, error,
                                           elbow))

    side = _ANY_SIDE if allow_elbow_flip else _UP_SIDE if sign < 0.0 else _DOWN_SIDE
    if limits._q2_search[side][1] and status is _REACHED and sab != 0.0:
        # The other branch's exact pose (the target's direction turned the other way): the
        # flip, or with allow_elbow_flip=False an exact solution when no pose on the requested
        # side fits the limits at all. Not at the origin: there sab is 0.
        o2 = -q2
        if keep2 and lo2 <= o2 <= hi2:
            f2 = o2
        elif narrow2:
            f2 = lo2 + (o2 - lo2) % _TWO_PI
            if f2 > hi2:
                f2 = hi2 if f2 - hi2 <= _TOLERANCE else (
                    lo2 if lo2 - (f2 - _TWO_PI) <= _TOLERANCE else None)
        else:
            f2 = _into_range(o2, lo2, hi2, ref2)
        if f2 is not None:
            o1 = _atan2(y * adjacent + x * sab, x * adjacent - y * sab)
            if keep1 and lo1 <= o1 <= hi1:
                f1 = o1
            elif narrow1:
                f1 = lo1 + (o1 - lo1) % _TWO_PI
                if f1 > hi1:
                    f1 = hi1 if f1 - hi1 <= _TOLERANCE else (
                        lo1 if lo1 - (f1 - _TWO_PI) <= _TOLERANCE else None)
            else:
                f1 = _into_range(o1, lo1, hi1, ref1)
            if f1 is not None:
                a12 = f1 + f2
                tx = l1 * _cos(f1) + l2 * _cos(a12)
                ty = l1 * _sin(f1) + l2 * _sin(a12)
                error = _hypot(tx - x, ty - y)
                if allow_elbow_flip:
                    status = _ELBOW_FLIPPED
                elif error > REACH_TOLERANCE * (l1 + l2):
                    status = _JOINT_LIMITED
                return _tuple_new(IkSolution, (f1, f2, status, status is not _JOINT_LIMITED,
                                               (tx, ty), error, _branch(f2, sign)))

    # The closest pose on the box's boundary. On each edge the tip runs on a circle: its
    # closest point is inside the edge when the target's direction (from the shoulder for
    # q2 = c, from the elbow for q1 = c) is within the arc the tip sweeps, else at the nearer
    # end, a corner (whose tip is precomputed). Squared distances; the winner's angle after.
    phi = _atan2(y, x) if r > 0.0 else q1
    arm = limits._arm
    if arm[0] != l1 or arm[1] != l2:
        arm = limits._arm_for(l1, l2)
    q2_edges, q1_edges, box = arm[2][side]
    arc1 = limits._q1_arc
    won = None
    won_t = 0.0
    if box is not None:
        # Unrolled for a plain box (the loops below, same order, same arithmetic).
        (c_ls, c_hs, c_le, c_he, t_ls_u, t_ls_v, t_hs_u, t_hs_v, t_le_u, t_le_v, t_he_u, t_he_v,
         edge_s, r_s, off_s, edge_e, r_e, off_e,
         narrow_q2, edge_lo, ex_lo, ey_lo, s_lo_u, s_lo_v, e_lo_u, e_lo_v, k_lo_u, k_lo_v,
         m_lo_u, m_lo_v, edge_hi, ex_hi, ey_hi, s_hi_u, s_hi_v, e_hi_u, e_hi_v, k_hi_u, k_hi_v,
         m_hi_u, m_hi_v) = box
        width, gap = arc1[1], arc1[3]
        # q2 at the start of its arc: the tip on a circle about the shoulder; t is how far q1
        # must turn from its lower limit to point the tip at the target.
        t = (phi - off_s) % _TWO_PI
        if t <= width:
            d = r_s - r
            best, won, kind, won_t = d * d, edge_s, 1, t
        elif t <= gap:  # nearer the upper limit of q1
            du = x - t_hs_u
            dv = y - t_hs_v
            best, won, kind = du * du + dv * dv, c_hs, 0
        else:
            du = x - t_ls_u
            dv = y - t_ls_v
            best, won, kind = du * du + dv * dv, c_ls, 0
        # q2 at the end of its arc.
        t = (phi - off_e) % _TWO_PI
        if t <= width:
            d = r_e - r
            d2 = d * d
            if d2 < best:
                best, won, kind, won_t = d2, edge_e, 1, t
        else:
            if t <= gap:
                du = x - t_he_u
                dv = y - t_he_v
                corner = c_he
            else:
                du = x - t_le_u
                dv = y - t_le_v
                corner = c_le
            d2 = du * du + dv * dv
            if d2 < best:
                best, won, kind = d2, corner, 0
        # q1 at its lower limit: the tip on a circle about the elbow, from s to e.
        dx = x - ex_lo
        dy = y - ey_lo
        if ((s_lo_u * dy - s_lo_v * dx >= 0.0 and dx * e_lo_v - dy * e_lo_u >= 0.0
             and dx * m_lo_u + dy * m_lo_v >= 0.0) if narrow_q2 else
                (s_lo_u * dy - s_lo_v * dx >= 0.0 or dx * e_lo_v - dy * e_lo_u >= 0.0)):
            rho = _sqrt(dx * dx + dy * dy)
            d = rho - l2
            d2 = d * d
            if d2 < best:
                best, won, kind, won_dx, won_dy, won_rho = d2, edge_lo, 2, dx, dy, rho
        else:
            if dx * k_lo_u + dy * k_lo_v >= 0.0:  # nearer s: q2 at the start of its arc
                du = x - t_ls_u
                dv = y - t_ls_v
                corner = c_ls
            else:
                du = x - t_le_u
                dv = y - t_le_v
                corner = c_le
            d2 = du * du + dv * dv
            if d2 < best:
                best, won, kind = d2, corner, 0
        # q1 at its upper limit.
        dx = x - ex_hi
        dy = y - ey_hi
        if ((s_hi_u * dy - s_hi_v * dx >= 0.0 and dx * e_hi_v - dy * e_hi_u >= 0.0
             and dx * m_hi_u + dy * m_hi_v >= 0.0) if narrow_q2 else
                (s_hi_u * dy - s_hi_v * dx >= 0.0 or dx * e_hi_v - dy * e_hi_u >= 0.0)):
            rho = _sqrt(dx * dx + dy * dy)
            d = rho - l2
            d2 = d * d
            if d2 < best:
                best, won, kind, won_dx, won_dy, won_rho = d2, edge_hi, 2, dx, dy, rho
        else:
            if dx * k_hi_u + dy * k_hi_v >= 0.0:
                du = x - t_hs_u
                dv = y - t_hs_v
                corner = c_hs
            else:
                du = x - t_he_u
                dv = y - t_he_v
                corner = c_he
            d2 = du * du + dv * dv
            if d2 < best:
                best, won, kind = d2, corner, 0
    else:
        best = _INF
        kind = 0
        for edge in q2_edges:  # (c, R, beta, lo1 + beta, corner at lo1, corner at hi1)
            if arc1 is None:
                d = edge[1] - r
                d2 = d * d
                if d2 < best:
                    best, won, kind = d2, edge, 1
                continue
            t = (phi - edge[3]) % _TWO_PI
            if t <= arc1[1]:
                d = edge[1] - r
                d2 = d * d
                if d2 < best:
                    best, won, kind, won_t = d2, edge, 1, t
            else:
                corner = edge[5] if t <= arc1[3] else edge[4]
                du = x - corner[2]
                dv = y - corner[3]
                d2 = du * du + dv * dv
                if d2 < best:
                    best, won, kind = d2, corner, 0
        for edge in q1_edges:  # (c, elbow u, v, arc, s_u, s_v, e_u, e_v, mode, corners, k, m)
            dx = x - edge[1]
            dy = y - edge[2]
            mode = edge[8]
            if mode == _ARC:
                inside = (edge[4] * dy - edge[5] * dx >= 0.0
                          and dx * edge[7] - dy * edge[6] >= 0.0
                          and dx * edge[13] + dy * edge[14] >= 0.0)
            elif mode == _WIDE_ARC:
                inside = (edge[4] * dy - edge[5] * dx >= 0.0
                          or dx * edge[7] - dy * edge[6] >= 0.0)
            else:
                inside = mode == _TURN
            if inside:
                rho = _sqrt(dx * dx + dy * dy)
                d = rho - l2
                d2 = d * d
                if d2 < best:
                    best, won, kind, won_dx, won_dy, won_rho = d2, edge, 2, dx, dy, rho
            else:
                corner = edge[9] if dx * edge[11] + dy * edge[12] >= 0.0 else edge[10]
                du = x - corner[2]
                dv = y - corner[3]
                d2 = du * du + dv * dv
                if d2 < best:
                    best, won, kind = d2, corner, 0
    if won is None:
        # Unreachable: the search runs only when a joint with a range under a turn broke its
        # limits, and such a joint (or the elbow side) gives the box edges.
        raise RuntimeError('two_bone_ik: internal error, the closest-pose search had no edges')

    if kind == 0:
        b1, b2, tu, tv = won
    elif kind == 1:  # inside q2 = c: q1 turns the tip toward the target
        b2, radius = won[0], won[1]
        if arc1 is None:
            b1 = phi - won[2]
        else:
            b1 = arc1[0] + won_t
            if b1 > arc1[2]:
                b1 = arc1[2]
        if r > 0.0:
            scale = radius / r
            tu = x * scale
            tv = y * scale
        else:
            angle = b1 + won[2]
            tu = radius * _cos(angle)
            tv = radius * _sin(angle)
    else:  # inside q1 = c: q2 turns link 2 toward the target
        b1, ex, ey, arc = won[0], won[1], won[2], won[3]
        b2 = _atan2(won_dy, won_dx) - b1
        if arc is not None:  # clamp: rounding in the direction test may put it just outside
            start, width, end = arc
            t = (b2 - start) % _TWO_PI
            over = t - width
            if over <= 0.0:
                b2 = start + t
                if b2 > end:
                    b2 = end
            else:
                b2 = end if over <= _TWO_PI - t else start
        if won_rho > 0.0:
            scale = l2 / won_rho
            tu = ex + won_dx * scale
            tv = ey + won_dy * scale
        else:
            angle = b1 + b2
            tu = ex + l2 * _cos(angle)
            tv = ey + l2 * _sin(angle)
    f1 = b1 if narrow1 else _into_range(b1, lo1, hi1, ref1)
    f2 = b2 if narrow2 else _into_range(b2, lo2, hi2, ref2)
    error = _sqrt(best)
    reached = error <= REACH_TOLERANCE * (l1 + l2)  # a degenerate arm reaching it another way
    if -_PI < f2 < 0.0:
        elbow = 'up'
    elif 0.0 < f2 < _PI:
        elbow = 'down'
    else:
        elbow = _branch(f2, sign)
    return _tuple_new(IkSolution, (f1, f2, _REACHED if reached else _JOINT_LIMITED, reached,
                                   (tu, tv), error, elbow))


# ---------------------------------------------------------------------------------------------
# Many targets


def _forward_array(q1: np.ndarray, q2: np.ndarray, l1: float, l2: float) -> np.ndarray:
    """Tip positions, shape (n, 2), metres, for joint angles of shape (n,), radians."""
    a12 = q1 + q2
    return np.stack((l1 * np.cos(q1) + l2 * np.cos(a12), l1 * np.sin(q1) + l2 * np.sin(a12)),
                    axis=1)


def _fit_array(q, lo, hi, keep, ref):
    """Exact-solution angles (rad, in [-pi, pi]) into the limits: :func:`_into_range` per row.

    Angles already inside stay as they are when ``keep``. NaN where none fits.
    """
    if keep:
        if lo == -_INF and hi == _INF:
            return q.copy()
        outside = np.flatnonzero((q < lo) | (q > hi))
        fit = q.copy()
        if outside.size:
            fit[outside] = _into_range_array(q[outside], lo, hi)
        return fit
    return _into_range_array(q, lo, hi, ref)


def _fit_batch_into_limits(x, y, l1, l2, r, phi, q1, q2, sab, adjacent, sign, status, limits,
                           allow_elbow_flip, tip, error, previous):
    """Vectorised :func:`_solve_limited` for every row; updates status, tip and error in place.

    ``previous`` (n, 2) or None picks among whole-turn representatives. Returns the joint
    angles (q1, q2) inside the limits, radians.
    """
    lo1, hi1, narrow1, keep1, lo2, hi2, narrow2, keep2 = limits._box
    if previous is None:
        ref1 = ref2 = 0.0
    else:
        ref1, ref2 = previous[:, 0], previous[:, 1]
    fit1 = _fit_array(q1, lo1, hi1, keep1, ref1)
    fit2 = _fit_array(q2, lo2, hi2, keep2, ref2)
    pending = np.flatnonzero(np.isnan(fit1) | np.isnan(fit2))
    if not pending.size:
        return fit1, fit2
    sign = np.broadcast_to(sign, x.shape)

    def refs(rows):
        return (0.0, 0.0) if previous is None else (ref1[rows], ref2[rows])

    searched = []
    flipped = []
    for side in ((_ANY_SIDE,) if allow_elbow_flip else (_UP_SIDE, _DOWN_SIDE)):
        if side == _ANY_SIDE:
            rows = pending
        else:
            rows = pending[(sign[pending] < 0.0) == (side == _UP_SIDE)]
        if not rows.size:
            continue
        whole = limits._q2_search[side][1]
        if whole:
            other = rows[(status[rows] == _REACHED) & (sab[rows] != 0.0)]
            if other.size:
                row_ref1, row_ref2 = refs(other)
                ox, oy, o_adj, o_sab = x[other], y[other], adjacent[other], sab[other]
                o1 = np.arctan2(oy * o_adj + ox * o_sab, ox * o_adj - oy * o_sab)
                o2 = -q2[other]
                f1 = _fit_array(o1, lo1, hi1, keep1, row_ref1)
                f2 = _fit_array(o2, lo2, hi2, keep2, row_ref2)
                fits = ~(np.isnan(f1) | np.isnan(f2))
                done = other[fits]
                fit1[done], fit2[done] = f1[fits], f2[fits]
                status[done] = _ELBOW_FLIPPED if allow_elbow_flip else _JOINT_LIMITED
                rows = np.setdiff1d(rows, done, assume_unique=True)
                flipped.append(done)
                if not allow_elbow_flip:
                    searched.append(done)
        if rows.size:
            b1, b2, tip[rows], error[rows] = _closest_in_limits_array(
                x[rows], y[rows], r[rows], phi[rows], l1, l2, limits, side)
            row_ref1, row_ref2 = refs(rows)
            fit1[rows] = b1 if narrow1 else _into_range_array(b1, lo1, hi1, row_ref1)
            fit2[rows] = b2 if narrow2 else _into_range_array(b2, lo2, hi2, row_ref2)
            status[rows] = _JOINT_LIMITED
            searched.append(rows)
    if flipped:
        rows = np.concatenate(flipped)
        changed1, changed2 = fit1[rows], fit2[rows]
        a12 = changed1 + changed2
        tip_u = l1 * np.cos(changed1)
        tip_u += l2 * np.cos(a12)
        tip_v = l1 * np.sin(changed1)
        tip_v += l2 * np.sin(a12)
        tip[rows, 0] = tip_u
        tip[rows, 1] = tip_v
        tip_u -= x[rows]
        tip_v -= y[rows]
        error[rows] = np.hypot(tip_u, tip_v, out=tip_u)
    if searched:
        rows = np.concatenate(searched)
        status[rows[error[rows] <= REACH_TOLERANCE * (l1 + l2)]] = _REACHED
    return fit1, fit2


def _closest_in_limits_array(x, y, r, phi, l1, l2, limits, side):
    """Vectorised closest-pose search of :func:`_solve_limited` over targets of shape (m,).

    The same candidates in the same order with the same arithmetic. Returns (q1, q2) in
    radians of the closest pose per target, before the move to the whole-turn representative,
    its tips (m, 2) and their distances to the targets (m).
    """
    q2_edges, q1_edges, _ = limits._arm_for(l1, l2)[2][side]
    if not (q2_edges or q1_edges):
        raise RuntimeError('two_bone_ik: internal error, the closest-pose search had no edges')
    best = np.full(x.shape, _INF)
    won = np.zeros(x.shape, dtype=np.int16)  # candidate: 3 * edge + (0 inside, 1 or 2 corner)
    candidate = 0
    arc1 = limits._q1_arc
    for edge in q2_edges:
        d2 = edge[1] - r
        d2 *= d2
        if arc1 is not None:
            t = phi - edge[3]
            np.remainder(t, _TWO_PI, out=t)
            outside = t > arc1[1]
            toward_hi = t <= arc1[3]
            at_lo = outside & ~toward_hi
            at_hi = outside & toward_hi
            for corner, rows in ((edge[4], at_lo), (edge[5], at_hi)):
                cu = x - corner[2]
                cv = y - corner[3]
                cu *= cu
                cv *= cv
                cu += cv
                np.copyto(d2, cu, where=rows)
        better = d2 < best
        np.copyto(best, d2, where=better)
        won[better] = candidate
        if arc1 is not None:
            won[better & at_lo] = candidate + 1
            won[better & at_hi] = candidate + 2
        candidate += 3
    for edge in q1_edges:
        dx = x - edge[1]
        dy = y - edge[2]
        d2 = dx * dx
        d2 += dy * dy
        np.sqrt(d2, out=d2)
        d2 -= l2
        d2 *= d2
        _score_q1_edge(d2, x, y, dx, dy, edge[4:15], best, won, candidate)
        candidate += 3

    # The winners' angles and tips, candidate by candidate, as the scalar search.
    b1 = np.empty(x.shape)
    b2 = np.empty(x.shape)
    tip = np.empty(x.shape + (2,))
    candidate = 0
    for edges, on_q2 in ((q2_edges, True), (q1_edges, False)):
        first = 4 if on_q2 else 9  # where the edge tuple holds its two corners
        for edge in edges:
            for offset, corner in ((1, edge[first]), (2, edge[first + 1])):
                if corner is not None:
                    rows = won == candidate + offset
                    b1[rows], b2[rows] = corner[0], corner[1]
                    tip[rows] = corner[2], corner[3]
            rows = np.flatnonzero(won == candidate)
            candidate += 3
            if not rows.size:
                continue
            if on_q2:  # inside q2 = c: q1 turns the tip toward the target
                radius, beta = edge[1], edge[2]
                if arc1 is None:
                    angle = phi[rows] - beta
                else:
                    angle = phi[rows] - edge[3]
                    np.remainder(angle, _TWO_PI, out=angle)
                    angle += arc1[0]
                    np.minimum(angle, arc1[2], out=angle)
                b1[rows] = angle
                b2[rows] = edge[0]
                row_r = r[rows]
                scale = np.divide(radius, row_r, out=np.zeros_like(row_r), where=row_r > 0.0)
                tip[rows, 0] = x[rows] * scale
                tip[rows, 1] = y[rows] * scale
                origin = rows[row_r == 0.0]
                if origin.size:
                    angle = b1[origin] + beta
                    tip[origin, 0] = radius * np.cos(angle)
                    tip[origin, 1] = radius * np.sin(angle)
            else:  # inside q1 = c: q2 turns link 2 toward the target
                c, ex, ey, arc = edge[0], edge[1], edge[2], edge[3]
                dx = x[rows] - ex
                dy = y[rows] - ey
                rho = dx * dx
                rho += dy * dy
                np.sqrt(rho, out=rho)
                angle = np.arctan2(dy, dx)
                angle -= c
                if arc is not None:
                    angle = _clamp_into_arc(angle, *arc)
                b1[rows] = c
                b2[rows] = angle
                scale = np.divide(l2, rho, out=np.zeros_like(rho), where=rho > 0.0)
                tip[rows, 0] = ex + dx * scale
                tip[rows, 1] = ey + dy * scale
                at_elbow = rho == 0.0
                if at_elbow.any():
                    angle = c + angle[at_elbow]
                    tip[rows[at_elbow], 0] = ex + l2 * np.cos(angle)
                    tip[rows[at_elbow], 1] = ey + l2 * np.sin(angle)
    return b1, b2, tip, np.sqrt(best, out=best)


def _score_q1_edge(d2, x, y, du, dv, ends, best, won, candidate):
    """Score one q1 edge for every target, as the scalar search; update the best in place.

    ``d2`` holds the squared distance to the edge's inner point (changed in place), ``du``,
    ``dv`` the direction to the target (from the shoulder or the elbow), ``ends`` the arc's
    end directions, mode, end corners and direction difference, as in the edge tuples. Outside
    the arc the nearer corner counts instead.
    """
    a_u, a_v, b_u, b_v, mode, corner_a, corner_b, k_u, k_v, m_u, m_v = ends
    if mode == _ARC:
        inside = a_u * dv - a_v * du >= 0.0
        inside &= du * b_v - dv * b_u >= 0.0
        inside &= du * m_u + dv * m_v >= 0.0
    elif mode == _WIDE_ARC:
        inside = a_u * dv - a_v * du >= 0.0
        inside |= du * b_v - dv * b_u >= 0.0
    elif mode == _TURN:
        inside = None
    else:
        inside = np.zeros(d2.shape, dtype=bool)
    if inside is not None and not inside.all():
        toward_a = du * k_u
        toward_a += dv * k_v
        toward_a = toward_a >= 0.0
        outside = ~inside
        at_a = outside & toward_a
        at_b = outside & ~toward_a
        for corner, rows in ((corner_a, at_a), (corner_b, at_b)):
            cu = x - corner[2]
            cv = y - corner[3]
            cu *= cu
            cv *= cv
            cu += cv
            np.copyto(d2, cu, where=rows)
        better = d2 < best
        np.copyto(best, d2, where=better)
        won[better & inside] = candidate
        won[better & at_a] = candidate + 1
        won[better & at_b] = candidate + 2
        return
    better = d2 < best
    np.copyto(best, d2, where=better)
    won[better] = candidate


def _clamp_into_arc(angle, start, width, end):
    """Angles (rad, array) clamped into the arc [start, start + width] modulo whole turns.

    Inside: ``start + t`` capped at ``end``, t the angle's offset from start in [0, 2pi);
    outside: the nearer end. The arithmetic of the scalar search. Returns a new array.
    """
    t = angle - start
    np.remainder(t, _TWO_PI, out=t)
    over = t - width
    under = _TWO_PI - t
    clamped = t + start
    np.minimum(clamped, end, out=clamped)
    np.copyto(clamped, end, where=over > 0.0)
    np.copyto(clamped, start, where=over > under)
    return clamped
