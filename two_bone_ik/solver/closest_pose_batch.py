"""The batch twin of :mod:`~two_bone_ik.solver.closest_pose`: many targets within limits.

:func:`solve_batch_within_limits` takes the closed-form solutions of
:func:`~two_bone_ik.solver.solve_batch` through the steps of
:func:`~two_bone_ik.solver.closest_pose.solve_within_limits` for every row at once: whole turns,
the elbow flip, then the closest pose on the box's edges (:func:`closest_poses`), each edge
scored for all targets with numpy. Same candidates in the same order with the same arithmetic,
so row ``i`` equals the scalar result to rounding (the tests hold them to 1e-12).
"""

import math

import numpy as np

from two_bone_ik.solver.forward_kinematics import forward_array
from two_bone_ik.solver.limit_box import (
    ANY_SIDE, ARC, BoxSide, DOWN_SIDE, FixedElbowEdge, FixedShoulderEdge, limit_box, TURN,
    UP_SIDE, WIDE_ARC)
from two_bone_ik.solver.limits import into_range_array
from two_bone_ik.solver.results import IkStatus, REACH_TOLERANCE

_TWO_PI = 2.0 * math.pi
_REACHED = IkStatus.REACHED
_JOINT_LIMITED = IkStatus.JOINT_LIMITED
_ELBOW_FLIPPED = IkStatus.ELBOW_FLIPPED


def solve_batch_within_limits(x, y, l1, l2, r, phi, q1, q2, sab, adjacent, sign, status, tip,
                              error, limits, allow_elbow_flip, previous):
    """Finish :func:`~two_bone_ik.solver.solve_batch` within joint limits, row by row.

    Parameters
    ----------
    x, y, r, phi : ndarray, shape (n,)
        Targets (m), their distances (m) and directions (rad; at the origin the closed form's
        q1).
    l1, l2 : float
        Link lengths, metres.
    q1, q2 : ndarray, shape (n,)
        The closed-form angles (rad) on the requested branches.
    sab, adjacent : ndarray, shape (n,)
        The closed form's terms (see :func:`~two_bone_ik.solver.closest_pose.
        solve_within_limits`).
    sign : float or ndarray, shape (n,)
        The requested branch per row: -1 up, +1 down.
    status, tip, error : ndarray, shapes (n,), (n, 2), (n,)
        The closed-form statuses, tips (m) and errors (m): updated in place.
    limits : JointLimits
    allow_elbow_flip : bool
    previous : ndarray, shape (n, 2), or None
        Picks among whole-turn representatives, row by row.

    Returns
    -------
    tuple of ndarray
        The joint angles (q1, q2) inside the limits, radians.
    """
    (lo1, hi1), (lo2, hi2) = limits.pairs
    refs = (0.0, 0.0) if previous is None else (previous[:, 0], previous[:, 1])
    fit1 = into_range_array(q1, lo1, hi1, refs[0])
    fit2 = into_range_array(q2, lo2, hi2, refs[1])
    pending = np.flatnonzero(np.isnan(fit1) | np.isnan(fit2))
    if not pending.size:
        return fit1, fit2
    box = limit_box(limits, l1, l2)
    sign = np.broadcast_to(sign, x.shape)
    flipped, searched = [], []
    for side in ((ANY_SIDE,) if allow_elbow_flip else (UP_SIDE, DOWN_SIDE)):
        rows = pending if side == ANY_SIDE else pending[(sign[pending] < 0.0) == (side == UP_SIDE)]
        if rows.size and box.sides[side].whole:
            flip = _other_branch(rows, x, y, q2, sab, adjacent, status, limits.pairs, refs)
            if flip is not None:
                done, flipped1, flipped2 = flip
                fit1[done], fit2[done] = flipped1, flipped2
                status[done] = _ELBOW_FLIPPED if allow_elbow_flip else _JOINT_LIMITED
                flipped.append(done)
                if not allow_elbow_flip:
                    searched.append(done)
                rows = np.setdiff1d(rows, done, assume_unique=True)
        if rows.size:
            b1, b2, tip[rows], error[rows] = closest_poses(
                x[rows], y[rows], r[rows], phi[rows], l1, l2, box.sides[side], box.q1_arc)
            fit1[rows] = into_range_array(b1, lo1, hi1, _rows_of(refs[0], rows))
            fit2[rows] = into_range_array(b2, lo2, hi2, _rows_of(refs[1], rows))
            status[rows] = _JOINT_LIMITED
            searched.append(rows)
    if flipped:
        rows = np.concatenate(flipped)
        tip[rows] = forward_array(fit1[rows], fit2[rows], l1, l2)
        error[rows] = np.hypot(tip[rows, 0] - x[rows], tip[rows, 1] - y[rows])
    if searched:
        rows = np.concatenate(searched)
        status[rows[error[rows] <= REACH_TOLERANCE * (l1 + l2)]] = _REACHED
    return fit1, fit2


def _rows_of(ref, rows):
    """Return the reference angles (rad) of some rows: a float stands for every row."""
    return ref if isinstance(ref, float) else ref[rows]


def _other_branch(rows, x, y, q2, sab, adjacent, status, pairs, refs):
    """Return the other branch's exact pose for those of ``rows`` where it fits the limits.

    Only reached targets away from the origin have another branch (there sab is 0). ``pairs``
    are the limits and ``refs`` the reference angles (rad). Returns ``(done, q1, q2)``: the
    rows and their angles (rad) inside the limits, or None when no row has another branch.
    """
    other = rows[(status[rows] == _REACHED) & (sab[rows] != 0.0)]
    if not other.size:
        return None
    (lo1, hi1), (lo2, hi2) = pairs
    ox, oy, o_adjacent, o_sab = x[other], y[other], adjacent[other], sab[other]
    o1 = np.arctan2(oy * o_adjacent + ox * o_sab, ox * o_adjacent - oy * o_sab)
    f1 = into_range_array(o1, lo1, hi1, _rows_of(refs[0], other))
    f2 = into_range_array(-q2[other], lo2, hi2, _rows_of(refs[1], other))
    fits = ~(np.isnan(f1) | np.isnan(f2))
    return other[fits], f1[fits], f2[fits]


def closest_poses(x, y, r, phi, l1, l2, searched: BoxSide, q1_arc):
    """:func:`~two_bone_ik.solver.closest_pose.closest_pose` for targets of shape (m,).

    Returns (q1, q2) in radians of the closest pose per target, before the move to the
    whole-turn representatives, its tips (m, 2) and their distances to the targets (m).
    """
    if not (searched.fixed_elbow or searched.fixed_shoulder):
        raise RuntimeError('two_bone_ik: internal error, the closest-pose search had no edges')
    # The winner per target, as a candidate number: 3 * edge + 0 inside it, 1 or 2 at its
    # first or second corner; edges numbered in the scalar search's order.
    best = np.full(x.shape, math.inf)
    won = np.zeros(x.shape, dtype=np.int16)
    edges = searched.fixed_elbow + searched.fixed_shoulder
    for number, edge in enumerate(edges):
        if edge.__class__ is FixedElbowEdge:
            _score_fixed_elbow(edge, q1_arc, x, y, r, phi, best, won, 3 * number)
        else:
            _score_fixed_shoulder(edge, x, y, l2, best, won, 3 * number)

    b1 = np.empty(x.shape)
    b2 = np.empty(x.shape)
    tip = np.empty(x.shape + (2,))
    for number, edge in enumerate(edges):
        fixed_elbow = edge.__class__ is FixedElbowEdge
        corners = (edge.corner_lo, edge.corner_hi) if fixed_elbow \
            else (edge.corner_start, edge.corner_end)
        for offset, corner in enumerate(corners, start=1):
            if corner is not None:
                rows = won == 3 * number + offset
                b1[rows], b2[rows] = corner.q1, corner.q2
                tip[rows] = corner.tip_u, corner.tip_v
        rows = np.flatnonzero(won == 3 * number)
        if not rows.size:
            continue
        if fixed_elbow:
            b1[rows], b2[rows], tip[rows] = _inside_fixed_elbow(
                edge, q1_arc, x[rows], y[rows], r[rows], phi[rows])
        else:
            b1[rows], b2[rows], tip[rows] = _inside_fixed_shoulder(edge, x[rows], y[rows], l2)
    return b1, b2, tip, np.sqrt(best, out=best)


def _take_better(d2, best, won, candidate, corner_rows=()):
    """Where ``d2`` beats ``best``, store it and the candidate number (in place).

    ``corner_rows`` are (offset, rows) pairs: better rows among them won at that corner.
    """
    better = d2 < best
    np.copyto(best, d2, where=better)
    won[better] = candidate
    for offset, rows in corner_rows:
        won[better & rows] = candidate + offset


def _corner_distances(d2, x, y, corner, rows):
    """Put the squared distances (m^2) from the targets to a corner's tip into ``d2`` at rows."""
    cu = x - corner.tip_u
    cv = y - corner.tip_v
    cu *= cu
    cv *= cv
    cu += cv
    np.copyto(d2, cu, where=rows)


def _score_fixed_elbow(edge: FixedElbowEdge, q1_arc, x, y, r, phi, best, won, candidate):
    """Score an edge q2 = c for every target, as the scalar search; update the best in place."""
    d2 = edge.radius - r
    d2 *= d2
    if q1_arc is None:
        _take_better(d2, best, won, candidate)
        return
    t = phi - edge.start
    np.remainder(t, _TWO_PI, out=t)
    outside = t > q1_arc.width
    toward_hi = t <= q1_arc.gap_middle
    at_lo = outside & ~toward_hi
    at_hi = outside & toward_hi
    _corner_distances(d2, x, y, edge.corner_lo, at_lo)
    _corner_distances(d2, x, y, edge.corner_hi, at_hi)
    _take_better(d2, best, won, candidate, ((1, at_lo), (2, at_hi)))


def _score_fixed_shoulder(edge: FixedShoulderEdge, x, y, l2, best, won, candidate):
    """Score an edge q1 = c for every target, as the scalar search; update the best in place.

    Inside the arc, the distance to the circle about the elbow; outside, to the nearer corner.
    """
    du = x - edge.elbow_u
    dv = y - edge.elbow_v
    d2 = du * du
    d2 += dv * dv
    np.sqrt(d2, out=d2)
    d2 -= l2
    d2 *= d2
    if edge.mode == ARC:
        inside = edge.start_u * dv - edge.start_v * du >= 0.0
        inside &= du * edge.end_v - dv * edge.end_u >= 0.0
        inside &= du * edge.mid_u + dv * edge.mid_v >= 0.0
    elif edge.mode == WIDE_ARC:
        inside = edge.start_u * dv - edge.start_v * du >= 0.0
        inside |= du * edge.end_v - dv * edge.end_u >= 0.0
    elif edge.mode == TURN:
        inside = None
    else:
        inside = np.zeros(d2.shape, dtype=bool)
    if inside is None or inside.all():
        _take_better(d2, best, won, candidate)
        return
    toward_start = du * edge.chord_u
    toward_start += dv * edge.chord_v
    toward_start = toward_start >= 0.0
    outside = ~inside
    at_start = outside & toward_start
    at_end = outside & ~toward_start
    _corner_distances(d2, x, y, edge.corner_start, at_start)
    _corner_distances(d2, x, y, edge.corner_end, at_end)
    _take_better(d2, best, won, candidate, ((1, at_start), (2, at_end)))


def _inside_fixed_elbow(edge: FixedElbowEdge, q1_arc, x, y, r, phi):
    """Return the angles (rad) and tips (m) of the closest points inside an edge q2 = c.

    There q1 turns the tip toward each target.
    """
    if q1_arc is None:
        b1 = phi - edge.beta
    else:
        b1 = phi - edge.start
        np.remainder(b1, _TWO_PI, out=b1)
        b1 += q1_arc.start
        np.minimum(b1, q1_arc.end, out=b1)
    scale = np.divide(edge.radius, r, out=np.zeros_like(r), where=r > 0.0)
    tip = np.stack((x * scale, y * scale), axis=1)
    origin = np.flatnonzero(r == 0.0)
    if origin.size:
        angle = b1[origin] + edge.beta
        tip[origin, 0] = edge.radius * np.cos(angle)
        tip[origin, 1] = edge.radius * np.sin(angle)
    return b1, edge.q2, tip


def _inside_fixed_shoulder(edge: FixedShoulderEdge, x, y, l2):
    """Return the angles (rad) and tips (m) of the closest points inside an edge q1 = c.

    There link 2 points at each target.
    """
    dx = x - edge.elbow_u
    dy = y - edge.elbow_v
    rho = dx * dx
    rho += dy * dy
    np.sqrt(rho, out=rho)
    b2 = np.arctan2(dy, dx)
    b2 -= edge.q1
    if edge.arc is not None:
        b2 = clamp_into_arc_array(b2, *edge.arc)
    scale = np.divide(l2, rho, out=np.zeros_like(rho), where=rho > 0.0)
    tip = np.stack((edge.elbow_u + dx * scale, edge.elbow_v + dy * scale), axis=1)
    at_elbow = np.flatnonzero(rho == 0.0)
    if at_elbow.size:
        angle = edge.q1 + b2[at_elbow]
        tip[at_elbow, 0] = edge.elbow_u + l2 * np.cos(angle)
        tip[at_elbow, 1] = edge.elbow_v + l2 * np.sin(angle)
    return edge.q1, b2, tip


def clamp_into_arc_array(angle, start, width, end):
    """:func:`~two_bone_ik.solver.closest_pose.clamp_into_arc` for each angle (rad, array).

    The same arithmetic. Returns a new array.
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
