"""The pose within joint limits closest to a target: how :func:`solve` finishes with limits.

:func:`solve_within_limits` takes the closed-form solution and, in this order: moves it into
the limits by whole turns if it fits; else flips the elbow if allowed and the other branch
fits; else returns the in-limits pose whose tip is closest to the target (:func:`closest_pose`).
:mod:`~two_bone_ik.solver.closest_pose_batch` is the batch twin: the same steps in the same
order with the same arithmetic, so row ``i`` of a batch equals the scalar result to rounding.

Why the boundary: the closest pose in limits minimises the tip's distance to the target over
the box of limits (modulo whole turns). Inside the box the only minima are exact solutions and,
for a target out of reach, the arm stretched or folded toward it: the closed-form poses, tried
first (the other stationary poses are saddles or maxima). So when none fits, the minimum is on
the box's boundary (:mod:`~two_bone_ik.solver.limit_box`). On an edge ``q2 = c`` the tip runs
on a circle about the shoulder, of radius ``R(c)`` at angle ``q1 + beta(c)``: its closest point
is ``q1 = phi - beta(c)`` (phi the target's direction) if that lies in the q1 range, at
distance ``|R(c) - r|``, else the nearer end of the edge, a corner of the box. On an edge
``q1 = c`` the elbow is a fixed point E and the tip runs on a circle of radius ``l2`` about
it: the direction from E to the target if it lies in the q2 arc, at distance
``| |T - E| - l2 |``, else the nearer corner. Corner tips are computed once per arm, so the
search compares squared distances with no trigonometry until its winner's angle.
"""

import math
from typing import Optional, Tuple

from two_bone_ik.solver.angles import wrap_angle
from two_bone_ik.solver.forward_kinematics import forward
from two_bone_ik.solver.limit_box import (
    ANY_SIDE, ARC, BoxSide, Corner, DOWN_SIDE, FixedElbowEdge, FixedShoulderEdge, limit_box,
    Q1Arc, TURN, UP_SIDE, WIDE_ARC)
from two_bone_ik.solver.limits import as_joint_limits, into_range
from two_bone_ik.solver.results import IkSolution, IkStatus, REACH_TOLERANCE

_TWO_PI = 2.0 * math.pi
_PI = math.pi
_REACHED = IkStatus.REACHED
_JOINT_LIMITED = IkStatus.JOINT_LIMITED
_ELBOW_FLIPPED = IkStatus.ELBOW_FLIPPED
_tuple_new = tuple.__new__  # builds an IkSolution without the NamedTuple's Python-level __new__


def solve_within_limits(solution: IkSolution, x: float, y: float, r: float, rc: float,
                        l1: float, l2: float, sab: float, adjacent: float, limits,
                        allow_elbow_flip: bool,
                        previous: Optional[Tuple[float, float]]) -> IkSolution:
    """Finish :func:`~two_bone_ik.solver.solve` within joint limits.

    Parameters
    ----------
    solution : IkSolution
        The closed-form solution on the requested branch (angles in [-pi, pi]).
    x, y : float
        The target (m); ``r`` its distance from the shoulder, ``rc`` the closed-form tip's (m).
    l1, l2 : float
        Link lengths, metres.
    sab, adjacent : float
        The closed form's terms: the shoulder angle is the target's direction turned back by
        ``atan2(sab, adjacent)``; the other branch's turns it forward as much.
    limits : JointLimits or sequence of two (lower, upper) pairs
        Joint limits, radians (validated here unless a JointLimits).
    allow_elbow_flip : bool
        As in :func:`~two_bone_ik.solver.solve`.
    previous : tuple of two float or None
        The checked previous configuration (rad), picking whole-turn representatives.

    Returns
    -------
    IkSolution
        The solution moved into the limits by whole turns, the other branch (ELBOW_FLIPPED),
        or the in-limits pose closest to the target (JOINT_LIMITED, or REACHED when that pose
        reaches the target after all).

    Raises
    ------
    IkInputError
        If ``limits`` is not valid (see :class:`~two_bone_ik.solver.JointLimits`).
    """
    limits = as_joint_limits(limits)
    (lo1, hi1), (lo2, hi2) = limits.pairs
    ref1, ref2 = (0.0, 0.0) if previous is None else previous
    q1, q2, status, reachable, tip, error, requested = solution
    f2 = into_range(q2, lo2, hi2, ref2)
    f1 = None if f2 is None else into_range(q1, lo1, hi1, ref1)
    if f1 is not None:
        if r == 0.0 and rc != r:  # solve's tip is then the pose's own: the moved pose's here
            tip = forward(f1, f2, l1, l2)
        elbow = requested if f2 == q2 else branch_of(f2, requested)
        return _tuple_new(IkSolution, (f1, f2, status, reachable, tip, error, elbow))

    side = ANY_SIDE if allow_elbow_flip else UP_SIDE if requested == 'up' else DOWN_SIDE
    box = limit_box(limits, l1, l2)
    searched = box.sides[side]
    if searched.whole and status is _REACHED and sab != 0.0:
        # The other branch's exact pose (the target's direction turned the other way): the
        # flip, or with allow_elbow_flip=False an exact solution when no pose on the requested
        # side fits the limits at all. Not at the origin: there sab is 0.
        f2 = into_range(-q2, lo2, hi2, ref2)
        if f2 is not None:
            f1 = into_range(math.atan2(y * adjacent + x * sab, x * adjacent - y * sab),
                            lo1, hi1, ref1)
        if f2 is not None and f1 is not None:
            tip = forward(f1, f2, l1, l2)
            error = math.hypot(tip[0] - x, tip[1] - y)
            if allow_elbow_flip:
                status = _ELBOW_FLIPPED
            elif error > REACH_TOLERANCE * (l1 + l2):
                status = _JOINT_LIMITED
            return _tuple_new(IkSolution, (f1, f2, status, status is not _JOINT_LIMITED, tip,
                                           error, branch_of(f2, requested)))

    phi = math.atan2(y, x) if r > 0.0 else q1
    b1, b2, tip, error = closest_pose(x, y, r, phi, l1, l2, searched, box.q1_arc)
    # The search's angles are inside a joint's range under a turn already.
    f1 = b1 if hi1 - lo1 < _TWO_PI else into_range(b1, lo1, hi1, ref1)
    f2 = b2 if hi2 - lo2 < _TWO_PI else into_range(b2, lo2, hi2, ref2)
    reached = error <= REACH_TOLERANCE * (l1 + l2)  # a degenerate arm reaching it another way
    return _tuple_new(IkSolution, (f1, f2, _REACHED if reached else _JOINT_LIMITED, reached,
                                   tip, error, branch_of(f2, requested)))


def branch_of(q2: float, requested: str) -> str:
    """Elbow branch of a pose with elbow angle ``q2`` (rad), ``requested`` the asked one.

    ``'up'`` when q2 wrapped into [-pi, pi] is negative, ``'down'`` when positive; for a
    straight (0) or exactly folded (+-pi) arm, the requested branch. The wrap is exact, so the
    branch is that of the returned angle as any caller would wrap it.
    """
    wrapped = q2 if -_PI < q2 < _PI else wrap_angle(q2)
    if -_PI < wrapped < 0.0:
        return 'up'
    if 0.0 < wrapped < _PI:
        return 'down'
    return requested


def closest_pose(x: float, y: float, r: float, phi: float, l1: float, l2: float,
                 searched: BoxSide, q1_arc: Optional[Q1Arc]):
    """Return the pose on the edges of the box closest to the target (x, y) (m).

    ``r`` and ``phi`` are the target's distance (m) and direction (rad; at the origin any
    angle, the closed form's q1). ``searched`` holds the edges to score, ``q1_arc`` the
    shoulder's range (None for a turn or more). Edges are scored in order, each by its closest
    point (inside it, or the nearer corner), by squared distance; the first of equal distances
    wins. Returns ``(q1, q2, tip, distance)``: the angles (rad) before the move to whole-turn
    representatives, the tip ((u, v), m) and its distance to the target (m).
    """
    best = math.inf
    winner = at = None
    width = math.inf if q1_arc is None else q1_arc.width
    for edge in searched.fixed_elbow:
        # q2 = c: the tip on a circle about the shoulder. t is how far q1 turns from its lower
        # limit to point the tip at the target; beyond q1's range the nearer corner counts.
        t = (phi - edge.start) % _TWO_PI
        if t <= width:
            d = edge.radius - r
            d2, where = d * d, t
        else:
            where = edge.corner_hi if t <= q1_arc.gap_middle else edge.corner_lo
            du = x - where.tip_u
            dv = y - where.tip_v
            d2 = du * du + dv * dv
        if d2 < best:
            best, winner, at = d2, edge, where
    for edge in searched.fixed_shoulder:
        # q1 = c: the tip on a circle of radius l2 about the elbow. Inside the edge when link 2
        # can point at the target, seen from the elbow as (dx, dy); else the nearer corner.
        dx = x - edge.elbow_u
        dy = y - edge.elbow_v
        mode = edge.mode
        if mode == ARC:  # up to a half turn: within both ends, and not opposite the middle
            inside = (edge.start_u * dy - edge.start_v * dx >= 0.0
                      and dx * edge.end_v - dy * edge.end_u >= 0.0
                      and dx * edge.mid_u + dy * edge.mid_v >= 0.0)
        elif mode == WIDE_ARC:  # more than a half turn: within either end
            inside = (edge.start_u * dy - edge.start_v * dx >= 0.0
                      or dx * edge.end_v - dy * edge.end_u >= 0.0)
        else:
            inside = mode == TURN
        if inside:
            rho = math.sqrt(dx * dx + dy * dy)
            d = rho - l2
            d2, where = d * d, (dx, dy, rho)
        else:
            where = edge.corner_start if dx * edge.chord_u + dy * edge.chord_v >= 0.0 \
                else edge.corner_end
            du = x - where.tip_u
            dv = y - where.tip_v
            d2 = du * du + dv * dv
        if d2 < best:
            best, winner, at = d2, edge, where
    if winner is None:
        # Unreachable: the search runs only when a joint with a range under a turn broke its
        # limits, and such a joint (or the elbow side) gives the box edges.
        raise RuntimeError('two_bone_ik: internal error, the closest-pose search had no edges')
    if at.__class__ is Corner:
        return at.q1, at.q2, (at.tip_u, at.tip_v), math.sqrt(best)
    if winner.__class__ is FixedElbowEdge:
        b1, b2, tip = _inside_fixed_elbow(winner, at, q1_arc, x, y, r, phi)
    else:
        b1, b2, tip = _inside_fixed_shoulder(winner, at, l2)
    return b1, b2, tip, math.sqrt(best)


def _inside_fixed_elbow(edge: FixedElbowEdge, t: float, q1_arc: Optional[Q1Arc], x: float,
                        y: float, r: float, phi: float):
    """Return the angles (rad) and tip (m) of the closest point inside an edge q2 = c.

    There q1 turns the tip toward the target, ``t`` (rad) past its lower limit.
    """
    if q1_arc is None:
        b1 = phi - edge.beta
    else:
        b1 = q1_arc.start + t
        if b1 > q1_arc.end:
            b1 = q1_arc.end
    if r > 0.0:
        scale = edge.radius / r
        return b1, edge.q2, (x * scale, y * scale)
    angle = b1 + edge.beta
    return b1, edge.q2, (edge.radius * math.cos(angle), edge.radius * math.sin(angle))


def _inside_fixed_shoulder(edge: FixedShoulderEdge, toward, l2: float):
    """Return the angles (rad) and tip (m) of the closest point inside an edge q1 = c.

    There link 2 points at the target, seen from the elbow as ``toward`` = (dx, dy, rho) (m).
    """
    dx, dy, rho = toward
    b1 = edge.q1
    b2 = math.atan2(dy, dx) - b1
    if edge.arc is not None:  # rounding in the direction test may put it just outside
        b2 = clamp_into_arc(b2, *edge.arc)
    if rho > 0.0:
        scale = l2 / rho
        return b1, b2, (edge.elbow_u + dx * scale, edge.elbow_v + dy * scale)
    angle = b1 + b2
    return b1, b2, (edge.elbow_u + l2 * math.cos(angle), edge.elbow_v + l2 * math.sin(angle))


def clamp_into_arc(angle: float, start: float, width: float, end: float) -> float:
    """Return the angle (rad) clamped into the arc [start, start + width] modulo whole turns.

    Inside: ``start + t`` capped at ``end``, t the angle's offset from start in [0, 2pi);
    outside: the nearer end.
    """
    t = (angle - start) % _TWO_PI
    over = t - width
    if over <= 0.0:
        clamped = start + t
        return end if clamped > end else clamped
    return end if over <= _TWO_PI - t else start
