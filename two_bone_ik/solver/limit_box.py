"""The box of joint limits as an arm's tip sees it: its edges, their circles and its corners.

The closest pose in limits (:mod:`~two_bone_ik.solver.closest_pose`, and its batch twin
:mod:`~two_bone_ik.solver.closest_pose_batch`) searches the boundary of the box of limits
``[lo1, hi1] x [lo2, hi2]`` (modulo whole turns). On each edge the tip runs on a circle:

* an edge ``q2 = c`` (:class:`FixedElbowEdge`): the arm turns rigidly about the shoulder, the
  tip on the circle of radius ``R(c)`` at angle ``q1 + beta(c)``, as q1 sweeps its range;
* an edge ``q1 = c`` (:class:`FixedShoulderEdge`): the elbow stays at a point E and the tip runs
  on the circle of radius ``l2`` about E, pointing along ``c + q2`` as q2 sweeps an arc.

The ends of the edges are the box's corners (:class:`Corner`), their tips computed once. With
``allow_elbow_flip=False`` only elbow angles on the requested side count: the q2 range is cut
into the arcs on that side (:func:`side_arcs`), and their ends are the edges.

:func:`limit_box` builds this for one JointLimits and one arm (link lengths) and keeps the last
few in a small cache, so a node solving target after target with one arm builds it once.
"""

import math
from typing import Optional

from two_bone_ik.solver.limits import JointLimits, LIMIT_TOLERANCE

_TWO_PI = 2.0 * math.pi
_PI = math.pi

#: Which elbow angles the closest-pose search may use: any in the limits, or only those on the
#: requested side (allow_elbow_flip=False, elbow up or down).
ANY_SIDE, UP_SIDE, DOWN_SIDE = 0, 1, 2

#: How an arc of directions is tested for holding a direction: a whole turn holds every
#: direction; an arc up to a half turn (ARC) holds those with both end cross products >= 0
#: (and a dot product with its middle >= 0, for an arc of almost no width); a wider one
#: (WIDE_ARC) either cross product; a single angle (POINT) none: its corner stands for it.
TURN, ARC, WIDE_ARC, POINT = 0, 1, 2, 3


class _Record:
    """An immutable record whose fields are its slots, given in order to the constructor.

    The scalar search reads the fields of edges and corners several times a target, and a slot
    is read about three times faster than a NamedTuple's field.
    """

    __slots__ = ()

    def __init__(self, *values):
        if len(values) != len(self.__slots__):
            raise TypeError(f'{type(self).__name__} takes {len(self.__slots__)} values')
        for name, value in zip(self.__slots__, values):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f'{type(self).__name__} is immutable')

    def __delattr__(self, name):
        raise AttributeError(f'{type(self).__name__} is immutable')

    def __repr__(self) -> str:
        fields = ', '.join(f'{name}={getattr(self, name)!r}' for name in self.__slots__)
        return f'{type(self).__name__}({fields})'


class Corner(_Record):
    """A corner of the box: joint angles (rad) and the tip there (m)."""

    __slots__ = ('q1', 'q2', 'tip_u', 'tip_v')


class Q1Arc(_Record):
    """The shoulder's range when it is under a turn: where the arm can turn about the shoulder.

    ``start`` and ``end`` are the limits (rad), ``width`` their difference and ``gap_middle``
    how far past ``start`` (rad, measured the same way) the middle of the gap outside lies: an
    angle beyond the range but at most that far is nearer ``end``, else nearer ``start``.
    """

    __slots__ = ('start', 'width', 'end', 'gap_middle')


class FixedElbowEdge(_Record):
    """An edge ``q2 = c``: the tip runs on the circle of ``radius`` (m) about the shoulder.

    The tip is at angle ``q1 + beta`` (rad); ``start`` is that angle at q1's lower limit
    (``lo1 + beta``). ``corner_lo`` and ``corner_hi`` are the corners at q1's limits, None when
    q1 has no range under a turn (then the edge is the whole circle).
    """

    __slots__ = ('q2', 'radius', 'beta', 'start', 'corner_lo', 'corner_hi')


class FixedShoulderEdge(_Record):
    """An edge ``q1 = c`` for one arc of q2: link 2 turns about the elbow at (elbow_u, elbow_v).

    The tip is at ``l2`` (m) from the elbow in direction ``c + q2``. ``arc`` is the q2 arc
    ``(start, width, end)`` in radians, None for any angle; ``start_u, start_v`` and ``end_u,
    end_v`` are the unit directions of link 2 at the arc's ends, ``mid_u, mid_v`` at its
    middle, ``chord_u, chord_v`` the start direction minus the end one (a direction outside the
    arc is nearer the start when its dot product with the chord is >= 0). ``mode`` says how to
    test a direction against the arc (:data:`TURN` ... :data:`POINT`). ``corner_start`` and
    ``corner_end`` are the corners at the arc's ends (None for any angle).
    """

    __slots__ = ('q1', 'elbow_u', 'elbow_v', 'arc', 'mode', 'start_u', 'start_v', 'end_u',
                 'end_v', 'mid_u', 'mid_v', 'chord_u', 'chord_v', 'corner_start', 'corner_end')


class BoxSide(_Record):
    """The edges the search scores for one choice of elbow side (ANY_SIDE, UP_SIDE, DOWN_SIDE).

    ``whole`` is True when the search may use the whole q2 range: any side allowed, or no pose
    on the requested side fits the limits at all (then the limits win over the side).
    """

    __slots__ = ('fixed_elbow', 'fixed_shoulder', 'whole')


class LimitBox(_Record):
    """The box of limits of one JointLimits for one arm (l1, l2 in metres).

    ``q1_arc`` is None when q1's range is a turn or more (no q1 edges); ``sides`` is indexed by
    ANY_SIDE, UP_SIDE, DOWN_SIDE.
    """

    __slots__ = ('q1_arc', 'sides')


_BOXES = {}
_BOXES_SIZE = 64
_last = (None, None, None, None)  # (limits, l1, l2, box) of the last call


def limit_box(limits: JointLimits, l1: float, l2: float) -> LimitBox:
    """Return the box of ``limits`` for link lengths ``l1``, ``l2`` (m), cached.

    The last box asked for is checked first (by the identity of ``limits``), then a cache by
    value of up to 64 boxes (then it starts again). Each store is of an immutable value, so
    it is safe between threads.
    """
    global _last
    last = _last
    if last[0] is limits and last[1] == l1 and last[2] == l2:
        return last[3]
    key = (limits.pairs, l1, l2)
    box = _BOXES.get(key)
    if box is None:
        box = _build_box(limits.pairs, l1, l2)
        if len(_BOXES) >= _BOXES_SIZE:
            _BOXES.clear()
        _BOXES[key] = box
    _last = (limits, l1, l2, box)
    return box


def _build_box(pairs, l1: float, l2: float) -> LimitBox:
    """Build the edges and corners of the box of limits ``pairs`` (rad) for one arm (m)."""
    (lo1, hi1), (lo2, hi2) = pairs
    q1_arc = Q1Arc(lo1, hi1 - lo1, hi1, 0.5 * (hi1 - lo1 + _TWO_PI)) \
        if hi1 - lo1 < _TWO_PI else None
    whole_q2 = ((lo2, hi2 - lo2, hi2),) if hi2 - lo2 < _TWO_PI else None
    q1_ends = () if q1_arc is None else (lo1, hi1) if lo1 != hi1 else (lo1,)
    sides = []
    for side in (ANY_SIDE, UP_SIDE, DOWN_SIDE):
        arcs = whole_q2 if side == ANY_SIDE else side_arcs(lo2, hi2, side)
        whole = arcs is whole_q2 or not arcs  # no pose on the side fits: the limits win
        arcs = arcs or whole_q2
        fixed_elbow = tuple(_fixed_elbow_edge(c, q1_arc, l1, l2) for c in _ends(arcs))
        fixed_shoulder = tuple(_fixed_shoulder_edge(c, arc, l1, l2)
                               for c in q1_ends for arc in (arcs or (None,)))
        sides.append(BoxSide(fixed_elbow, fixed_shoulder, whole))
    return LimitBox(q1_arc, tuple(sides))


def side_arcs(lo: float, hi: float, side: int) -> tuple:
    """Arcs (start, width, end) of elbow angles q2 (rad) in [lo, hi] on one elbow side.

    The up side (UP_SIDE) holds q2 in [-pi, 0] modulo whole turns, the down side [0, pi]. For
    limits of a turn or more, the one arc of the side (angles then go to the limits by whole
    turns); else the parts of [lo, hi] on the side (at most two, each inside [lo, hi]),
    possibly none. A limit within LIMIT_TOLERANCE of the side's edge counts that one angle as
    on the side.
    """
    base = -_PI if side == UP_SIDE else 0.0
    if hi - lo >= _TWO_PI:
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


def _ends(arcs) -> tuple:
    """Return the distinct ends (rad) of the arcs, in order; none for any angle (None)."""
    ends = []
    for start, _, end in arcs or ():
        for c in (start, end):
            if c not in ends:
                ends.append(c)
    return tuple(ends)


def _corner(q1: float, q2: float, l1: float, l2: float) -> Corner:
    """Return the corner at joint angles q1, q2 (rad), its tip by forward kinematics (m)."""
    a12 = q1 + q2
    return Corner(q1, q2, l1 * math.cos(q1) + l2 * math.cos(a12),
                  l1 * math.sin(q1) + l2 * math.sin(a12))


def _fixed_elbow_edge(c: float, q1_arc: Optional[Q1Arc], l1: float,
                      l2: float) -> FixedElbowEdge:
    """Return the edge q2 = c (rad): the tip's circle about the shoulder, corners at q1's ends."""
    u, v = l1 + l2 * math.cos(c), l2 * math.sin(c)
    radius, beta = math.hypot(u, v), math.atan2(v, u)
    if q1_arc is None:
        return FixedElbowEdge(c, radius, beta, beta, None, None)
    return FixedElbowEdge(c, radius, beta, q1_arc.start + beta,
                          _corner(q1_arc.start, c, l1, l2), _corner(q1_arc.end, c, l1, l2))


def _fixed_shoulder_edge(c: float, arc, l1: float, l2: float) -> FixedShoulderEdge:
    """Return the edge q1 = c (rad) for the q2 arc (start, width, end), or None for any q2."""
    elbow_u, elbow_v = l1 * math.cos(c), l1 * math.sin(c)
    if arc is None:
        return FixedShoulderEdge(c, elbow_u, elbow_v, None, TURN, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                                 0.0, 0.0, None, None)
    start, width, end = arc
    mode = POINT if width == 0.0 else WIDE_ARC if width > _PI else ARC
    start_u, start_v = math.cos(c + start), math.sin(c + start)
    end_u, end_v = math.cos(c + end), math.sin(c + end)
    middle = c + start + 0.5 * width
    return FixedShoulderEdge(c, elbow_u, elbow_v, arc, mode, start_u, start_v, end_u, end_v,
                             math.cos(middle), math.sin(middle), start_u - end_u,
                             start_v - end_v, _corner(c, start, l1, l2), _corner(c, end, l1, l2))
