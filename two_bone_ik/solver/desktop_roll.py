"""Where a moved roll can reach a target: the ends of the feasible stretches of roll, exactly.

A position-only target that no pose reaches with the roll held (class (a) or (c) of the
preference order) may be reached with the roll moved (class (b) or (d)): turning the roll by r
moves the tool point on a circle about the roll axis, sideways (its ``lateral`` offset, so the
yaw that faces the target turns and the target's distance ``u(r)`` along the arm's plane
changes) and within the plane (the tool's in-plane length ``l3(r)`` and direction ``beta(r)``).

At one roll the feasible approach pitches are a union of closed arcs whose ends are roots of the
boundary equations of :mod:`~two_bone_ik.solver.desktop_pitch`, each ``P . e(phi + mu) = c``,
i.e. ``cos(phi - base) = cosine`` with ``base`` and ``cosine`` functions of the roll. As the roll
turns, an arc can appear or vanish only where two of its ends meet:

- both roots of one equation (a tangency): ``cosine(r) = +1`` or ``-1``;
- a root of one equation on a root of another (a corner): ``cosine_k(r) - cos(phi_j(r) -
  base_k(r)) = 0``;

and the pose exists only where the yaw faces the target (``rho >= |lateral(r)|``), within its
limits (the rolls where it just fits, in closed form), and the roll within its own. Those rolls
cut the roll's range into stretches on each of which reachability does not change, so one
exact solve inside a stretch decides it. :func:`roll_ends` finds every such roll: the closed
forms directly; the tangencies and corners, smooth functions of the roll with a few extrema a
turn, by sampling them (more densely where they change like a square root: by the ends of the
stretches where the yaw faces the target, and, for the corners, by the tangencies), bracketing
every sign change and every sampled extremum whose parabola dips through zero, and refining
each bracket (the Illinois variant of false position) to :data:`PRECISION`. Nothing is left to
a grid: a stretch narrower than the sampling is found from the extremum of the function that
opens it.
"""

import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from two_bone_ik.solver.desktop_model import DesktopArm

#: Samples of the tangency and corner functions per turn of the roll (the brackets' width).
SAMPLES_PER_TURN = 64

#: Most refinement steps (false position, Illinois): a bracket shrinks to :data:`PRECISION`
#: in far fewer.
REFINE_STEPS = 40

#: Width (rad) to which a bracket is refined: far below the margin a moved roll keeps from
#: its stretch's end (:func:`stretch_trials`).
PRECISION = 1e-10

#: Golden-section steps that locate a sampled extremum (the bracket shrinks 0.618 a step).
EXTREMUM_STEPS = 20

#: How far inside a stretch's end (rad, times the first margin) the roll is tried, in turn: see
#: :func:`stretch_trials`.
END_MARGINS = (1.0, 10.0, 100.0, 1e3, 1e4)

#: Extra samples by each end of a stretch where the yaw faces the target, as fractions of it.
EDGE_SAMPLES = (1e-6, 1e-4, 1e-3, 1e-2, 1e-1)

_GOLDEN = 0.5 * (math.sqrt(5.0) - 1.0)
_THREE = np.arange(3)
_EDGES = np.concatenate((EDGE_SAMPLES, np.negative(EDGE_SAMPLES)))  # (as fractions)
_TAU = 2.0 * math.pi


class RollTarget(NamedTuple):
    """A target as the roll sees it: from the yaw axis, and which way the arm faces it.

    Attributes
    ----------
    hu, hn : float
        The target from the yaw axis along ``forward`` and ``normal`` at zero yaw, m.
    dv : float
        The target above the shoulder (along ``up``), m.
    back : bool
        Whether the arm reaches back over the yaw axis (the target at -u in its plane).
    """

    hu: float
    hn: float
    dv: float
    back: bool


class RollGeometry:
    """What the roll ends need of one arm, computed once.

    Parameters
    ----------
    arm : DesktopArm
        With a pitch and a roll joint.
    circles : sequence of (E_u, E_v, radius)
        :func:`~two_bone_ik.solver.desktop_pitch.limit_circles` of the arm.
    pitch_angles : sequence of float
        :func:`~two_bone_ik.solver.desktop_pitch.pitch_limit_angles` of the arm.
    yaw_limits : sequence of float
        The yaw's finite limits (readings, rad) moved inside by the margin a correction needs.
    """

    def __init__(self, arm: DesktopArm, circles, pitch_angles: Sequence[float],
                 yaw_limits: Sequence[float]):
        a, b, c = arm.tool
        self.tool = np.array((a, b, c), dtype=float)  # rows a, b, c; columns u, v, n
        self.lateral = arm.wrist_lateral + a[2]
        self.swing = math.hypot(b[2], c[2])
        self.centre = math.atan2(c[2], b[2])
        self.zero_sum = sum(arm.zero_angles)
        self.shoulder = arm.shoulder
        self.l1, self.l2 = arm.link_lengths
        self.circles = np.array(circles, dtype=float).reshape(-1, 3)
        # The circles' columns as (K, 1) arrays, for :meth:`cosines`.
        self._circle_u, self._circle_v = self.circles[:, :1].copy(), self.circles[:, 1:2].copy()
        self._circle_r2 = self.circles[:, 2:] ** 2
        self.pitch_angles = np.array(pitch_angles, dtype=float)
        self.yaw_angles = tuple(arm.directions[0] * limit for limit in yaw_limits)
        #: Each of them with its cosine and sine.
        self.yaw_turns = tuple((yaw, math.cos(yaw), math.sin(yaw)) for yaw in self.yaw_angles)
        self.equations = len(self.circles) + len(self.pitch_angles)
        self.pairs = self._pairs(self.equations)
        # Plain-float copies for the scalar twin.
        self.tool_rows = tuple(tuple(float(v) for v in row) for row in (a, b, c))
        self.circle_rows = tuple(tuple(float(v) for v in row) for row in self.circles)
        self.pitch_rows = tuple(float(v) for v in self.pitch_angles)
        self.pair_rows = tuple(zip(*(v.tolist() for v in self.pairs))) if \
            self.equations > 1 else ()
        #: No pose puts the tool point nearer the shoulder than this (m): see :func:`tool_hole`.
        self.hole = tool_hole(self.tool_rows, self.l1, self.l2, self.zero_sum, self.pitch_rows)

    def cosines(self, target: RollTarget, roll: np.ndarray):
        """Return (cosine, base), each shape (K, M): every boundary equation at every roll.

        ``cos(phi - base) = cosine`` holds at the equation's roots; NaN where the yaw cannot
        face the target or the equation does not depend on phi.
        """
        with np.errstate(divide='ignore', invalid='ignore'):
            return self._cosines(target, roll)

    def _cosines(self, target: RollTarget, roll: np.ndarray):
        """:meth:`cosines` with numpy's warnings already off."""
        cos_r, sin_r = np.cos(roll), np.sin(roll)
        (au, av, _), (bu, bv, _), (cu, cv, _) = self.tool_rows
        tu, tv = au + cos_r * bu + sin_r * cu, av + cos_r * bv + sin_r * cv
        l3 = np.hypot(tu, tv)
        lateral = self.lateral + self.swing * np.cos(roll - self.centre)
        u = np.sqrt(target.hu * target.hu + target.hn * target.hn - lateral * lateral)
        du = (-u if target.back else u) - self.shoulder[0]
        dv = target.dv
        count = len(self.circles)
        cosine, base = np.empty((self.equations, len(roll))), np.empty((self.equations, len(roll)))
        pu, pv = du - self._circle_u, dv - self._circle_v
        p2 = pu * pu + pv * pv
        np.divide(p2 - self._circle_r2 + l3 * l3, 2.0 * l3 * np.sqrt(p2), out=cosine[:count])
        np.arctan2(pv, pu, out=base[:count])
        if self.pitch_rows:
            kappa = (np.arctan2(tv, tu) - self.zero_sum) + self.pitch_angles[:, None]
            mu_u, mu_v = l3 + self.l2 * np.cos(kappa), -self.l2 * np.sin(kappa)
            m2 = mu_u * mu_u + mu_v * mu_v
            d2 = du * du + dv * dv
            np.divide(d2 - self.l1 * self.l1 + m2, 2.0 * np.sqrt(m2 * d2), out=cosine[count:])
            np.subtract(np.arctan2(dv, du), np.arctan2(mu_v, mu_u), out=base[count:])
        cosine[np.isinf(cosine)] = np.nan
        return cosine, base

    def functions(self, target: RollTarget, roll: np.ndarray) -> np.ndarray:
        """Every tangency and corner function at every roll, shape (2K + K (K - 1), M).

        Rows ``2k``, ``2k + 1``: ``cosine_k - 1``, ``cosine_k + 1``; then, per pair j < k of
        equations and root s of j, ``cosine_k - cos(phi_js - base_k)`` (``phi_j0``,
        ``phi_j1`` the roots of equation j; NaN where it has none): the root on equation k.
        """
        with np.errstate(divide='ignore', invalid='ignore'):
            cosine, base = self._cosines(target, np.asarray(roll, dtype=float))
            return np.concatenate((self.tangencies(cosine), self.corners(cosine, base, False)[1]))

    @staticmethod
    def tangencies(cosine: np.ndarray) -> np.ndarray:
        """Return the tangency rows of :meth:`functions` from :meth:`cosines`' ``cosine``."""
        k, count = cosine.shape
        out = np.empty((2 * k, count))
        np.subtract(cosine, 1.0, out=out[0::2])
        np.add(cosine, 1.0, out=out[1::2])
        return out

    def corners(self, cosine: np.ndarray, base: np.ndarray, skip: bool, both: bool = False):
        """(rows, values): corner rows of :meth:`functions` from :meth:`cosines`' arrays.

        ``rows``: their rows' numbers in :meth:`functions`; with ``skip``, only the rows whose
        first equation has a root at some roll (the others are NaN throughout); with ``both``
        too, only those whose second equation has one as well (for rolls where no tangency
        function has a zero: there every ``|cosine_k|`` stays on one side of 1, and a corner
        needs ``|cosine_k| <= 1``). Call it with numpy's invalid-value warnings off.
        """
        first, second, sign = self.pairs
        has = np.abs(cosine) <= 1.0
        spread = np.arccos(np.where(has, cosine, np.nan))
        if skip:
            rooted = has.any(axis=1)
            kept = np.flatnonzero(rooted[first] & rooted[second] if both else rooted[first])
            first, second, sign = first[kept], second[kept], sign[kept]
        else:
            kept = np.arange(len(first))
        phi = base[first] + sign[:, None] * spread[first]
        return kept + 2 * len(cosine), cosine[second] - np.cos(phi - base[second])

    @staticmethod
    def _pairs(k: int):
        """(j, k, sign) of every corner row: pairs j < k, each root of j."""
        pairs = [(j, other, s) for j in range(k) for other in range(j + 1, k)
                 for s in (1.0, -1.0)]
        if not pairs:
            return np.zeros(1, int), np.zeros(1, int), np.ones(1)
        first, second, sign = (np.array(v) for v in zip(*pairs))
        return first, second, sign

    def equation(self, target: RollTarget, roll: float, index: int):
        """Return (cosine, base) of one boundary equation at one roll (plain floats).

        The scalar twin of :meth:`cosines` (NaN cosine where it is undefined), for refining.
        """
        cos_r, sin_r = math.cos(roll), math.sin(roll)
        (au, av, _), (bu, bv, _), (cu, cv, _) = self.tool_rows
        tu, tv = au + cos_r * bu + sin_r * cu, av + cos_r * bv + sin_r * cv
        l3 = math.hypot(tu, tv)
        lateral = self.lateral + self.swing * math.cos(roll - self.centre)
        u2 = target.hu * target.hu + target.hn * target.hn - lateral * lateral
        if u2 < 0.0:
            return math.nan, 0.0
        u = math.sqrt(u2)
        du, dv = (-u if target.back else u) - self.shoulder[0], target.dv
        count = len(self.circle_rows)
        if index < count:
            eu, ev, radius = self.circle_rows[index]
            pu, pv = du - eu, dv - ev
            p2 = pu * pu + pv * pv
            m2, mu = l3 * l3, 0.0
        else:
            kappa = math.atan2(tv, tu) - self.zero_sum + self.pitch_rows[index - count]
            mu_u, mu_v = l3 + self.l2 * math.cos(kappa), -self.l2 * math.sin(kappa)
            pu, pv, p2, radius = du, dv, du * du + dv * dv, self.l1
            m2, mu = mu_u * mu_u + mu_v * mu_v, math.atan2(mu_v, mu_u)
        if m2 == 0.0 or p2 == 0.0:
            return math.nan, 0.0
        return (p2 - radius * radius + m2) / (2.0 * math.sqrt(m2 * p2)), math.atan2(pv, pu) - mu

    def function(self, target: RollTarget, roll: float, row: int) -> float:
        """Return one row of :meth:`functions` at one roll (plain floats)."""
        k = self.equations
        if row < 2 * k:
            cosine, _ = self.equation(target, roll, row // 2)
            return cosine - (1.0 if row % 2 == 0 else -1.0)
        first, second, sign = self.pair_rows[row - 2 * k]
        cosine, base = self.equation(target, roll, first)
        if not -1.0 <= cosine <= 1.0:
            return math.nan
        phi = base + sign * math.acos(cosine)
        other, other_base = self.equation(target, roll, second)
        return other - math.cos(phi - other_base)

    def closed_form_ends(self, target: RollTarget, yaw_limits: bool) -> List[float]:
        """Return the rolls (rad) where the yaw starts or stops facing the target.

        With ``yaw_limits``: where the yaw facing it meets one of its limits instead.
        """
        swing = self.swing
        if swing == 0.0:
            return []
        ends = []
        hu, hn = target.hu, target.hn
        if not yaw_limits:
            rho = math.hypot(hu, hn)
            needed = [rho, -rho]
        else:
            needed = [hu * sin + hn * cos for _, cos, sin in self.yaw_turns
                      if (hu * cos - hn * sin > 0.0) != target.back]
        for value in needed:
            ratio = (value - self.lateral) / swing
            if -1.0 <= ratio <= 1.0:
                spread = math.acos(ratio)
                ends += [self.centre + spread, self.centre - spread]
        return ends


def tool_hole(tool_rows, l1: float, l2: float, zero_sum: float, pitch_limits: Sequence[float],
              samples: int = 256) -> float:
    """Return a distance (m) from the shoulder that no tool point comes nearer, at any roll.

    The tool point lies ``m`` from the elbow, ``m = |T(r) + l2 e(zero_sum - q3)|`` (``T(r)``
    the tool's in-plane offset from the pitch axis at roll r, ``q3`` the pitch's solver angle
    within ``pitch_limits``, all angles if empty), and the elbow ``l1`` from the shoulder, so
    the tool point is at least ``|l1 - m|`` from it: the bound is the least of that over every
    roll and pitch. ``T(r)`` runs on a segment (the roll axis lies in the arm's plane:
    :meth:`~two_bone_ik.solver.desktop_model.DesktopArm.max_tool_length`), sampled; ``m``'s
    least and largest along it are bounded by the samples' and the segment's step (``m``
    changes by at most as much as ``T``), so the bound is a lower one, never more.
    """
    (au, av, _), (bu, bv, _), (cu, cv, _) = tool_rows
    span = math.sqrt(bu * bu + bv * bv + cu * cu + cv * cv)
    longer = (bu, bv) if math.hypot(bu, bv) >= math.hypot(cu, cv) else (cu, cv)
    direction = np.array(longer) * (span / max(math.hypot(*longer), 1e-300))
    s = np.linspace(-1.0, 1.0, samples)
    tu, tv = au + s * direction[0], av + s * direction[1]
    # Half the step between samples, and how far T leaves the segment if b and c are not
    # quite parallel in the plane: T moves at most that far from the nearest sample.
    step = span / (samples - 1) + abs(bu * cv - bv * cu) / max(math.hypot(*longer), 1e-300)
    # The arc the elbow-to-pitch-axis vector's reverse runs on: radius l2, angles around.
    ends = [zero_sum - v + math.pi for v in pitch_limits[::-1]]  # (angle from, angle to)
    radius = np.hypot(tu, tv)
    if ends:
        width = ends[1] - ends[0]
        inside = np.remainder(np.arctan2(tv, tu) - ends[0], _TAU) <= width
        outside = np.remainder(np.arctan2(-tv, -tu) - ends[0], _TAU) <= width
        to_ends = [np.hypot(tu - l2 * math.cos(e), tv - l2 * math.sin(e)) for e in ends]
        nearest = np.where(inside, np.abs(radius - l2), np.minimum(*to_ends))
        farthest = np.where(outside, radius + l2, np.maximum(*to_ends))
    else:
        nearest, farthest = np.abs(radius - l2), radius + l2
    low, high = float(nearest.min()) - step, float(farthest.max()) + step
    return max(0.0, low - l1, l1 - high)


def roll_ends(geometry: RollGeometry, target: RollTarget, low: float, high: float
              ) -> List[float]:
    """Return every roll in [low, high] (rad) where reachability may change, sorted.

    ``low`` and ``high`` are among them. See the module docstring. Every bracket refined: the
    moved roll refines only those between the held roll and the first stretch that reaches
    (:mod:`~two_bone_ik.solver.desktop_roll_walk`); this is the whole set, for checking it.
    """
    ends, pending = roll_brackets(geometry, target, low, high)
    while pending:
        zeros, more = resolve(geometry, target, pending.pop())
        ends.extend(zeros)
        pending.extend(more)
    return sorted(set(ends))


def roll_brackets(geometry: RollGeometry, target: RollTarget, low: float, high: float):
    """Return (ends, pending): the rolls where reachability may change, found or bracketed.

    ``ends`` (rad, unsorted, maybe repeated): ``low``, ``high``, the closed forms and the
    tangencies, exactly. ``pending``: a list of ``(start, end, row, side)``, each holding the
    other rolls (zeros of the corner functions) still to find in [start, end] (rad): a sign
    change of row ``row`` of :meth:`RollGeometry.functions` (``side`` 0) or a sampled extremum
    of it on side ``side`` (+1 or -1) of zero that may dip through it; :func:`resolve` finds
    them. The zeros of all of them and ``ends`` are :func:`roll_ends`.
    """
    facing = _in_window(geometry.closed_form_ends(target, False), low, high)
    ends = [low, high] + facing + _in_window(geometry.closed_form_ends(target, True), low, high)
    pending = []
    if geometry.equations and high > low:
        cuts = sorted({low, high, *facing})
        pieces = []
        for start, end in zip(cuts, cuts[1:]):
            middle = 0.5 * (start + end)
            lateral = geometry.lateral + geometry.swing * math.cos(middle - geometry.centre)
            if end - start > 2.0 * PRECISION and \
                    target.hu ** 2 + target.hn ** 2 >= lateral * lateral:
                pieces.append((start, end))
        if pieces:
            zeros, pending = _function_zeros(geometry, target, pieces)
            ends.extend(zeros)
    return ends, pending


def resolve(geometry: RollGeometry, target: RollTarget, item) -> Tuple[List[float], list]:
    """Return (zeros, pending) of one pending item of :func:`roll_brackets`.

    A sign change: its zero refined (none if the function is undefined at a side). A sampled
    extremum: located by golden section; where it crosses zero, its two sides as sign changes
    (pending), else nothing.
    """
    start, end, row, side = item
    function = geometry.function
    if not side:
        zero = _refine(function, target, row, start, end)
        return ([] if zero is None else [zero]), []
    extremum = _golden_minimum(lambda r: side * function(target, r, row), start, end)
    if side * function(target, extremum, row) <= 0.0:  # it crosses zero: two zeros
        return [], [(start, extremum, row, 0), (extremum, end, row, 0)]
    return [], []


def yaw_entry(geometry: RollGeometry, target: RollTarget, low: float, high: float,
              held: float) -> Optional[float]:
    """Return the roll (rad) nearest ``held`` where the yaw meets one of its limits, if safe.

    For a target whose yaw (facing it, or turned back) does not fit its limits at ``held``:
    the yaw turns continuously with the roll while it faces the target, so it can come
    within its limits (moved inside, as :meth:`RollGeometry.closed_form_ends` has them) only
    where it meets one, or where it starts facing the target. The nearest such roll, when it
    is a meeting with a limit, strictly nearer than any other and than every roll where the
    yaw starts or stops facing the target, bounds a stretch around ``held`` (both sides) in
    which no pose fits the yaw's limits: a moved roll can reach no nearer. Of two as near on
    either side, the one below (the walk tries that side first). None otherwise (also when
    that roll is ``held`` or on the window's edge).
    """
    limits = _in_window(geometry.closed_form_ends(target, True), low, high)
    if not limits:
        return None
    nearest = min(limits, key=lambda roll: (abs(roll - held), roll))
    distance = abs(nearest - held)
    ties = [roll for roll in limits if abs(roll - held) == distance]
    if distance == 0.0 or len(ties) > 2 or len(ties) == 2 and max(ties) - held != distance or \
            nearest in (low, high):
        return None
    for roll in _in_window(geometry.closed_form_ends(target, False), low, high):
        if abs(roll - held) <= distance:
            return None
    return nearest


def _in_window(rolls: Sequence[float], low: float, high: float) -> List[float]:
    """Return the rolls (rad) moved by whole turns into [low, high], each way that fits."""
    out = []
    for roll in rolls:
        base = roll + _TAU * math.ceil((low - roll) / _TAU)
        if low <= base <= high:
            out.append(base)
        base += _TAU
        if low <= base <= high:
            out.append(base)
    return out


def _function_zeros(geometry: RollGeometry, target: RollTarget, pieces):
    """(zeros, pending): the tangency functions' zeros (rad), the corner functions' brackets.

    Each piece is a stretch where the yaw faces the target: its functions are defined on it
    (they change like a square root near its ends, where the target meets the yaw's reach
    sideways: the samples crowd toward the ends there). The tangencies first: a corner
    function is defined only where its equation has roots, i.e. up to a tangency, where it
    too changes like a square root; the corners' samples crowd toward the tangencies (so
    those are found first, every one). All pieces are sampled at once; no bracket spans two.
    The corners' brackets are left to refine (:func:`roll_brackets`).
    """
    samples, steps = [], []
    for low, high in pieces:
        count = max(8, int(math.ceil((high - low) / _TAU * SAMPLES_PER_TURN))) + 1
        start, stop = low + PRECISION, high - PRECISION
        even = np.arange(count) * ((stop - start) / (count - 1)) + start  # (np.linspace's)
        even[-1] = stop
        samples.append(_crowded(even, (low, high), high - low, low, high))
        steps.append((high - low) / count)
    rolls = np.concatenate(samples)
    piece = np.repeat(np.arange(len(pieces)), [len(v) for v in samples]) \
        if len(pieces) > 1 else None
    tangencies = 2 * geometry.equations
    with np.errstate(divide='ignore', invalid='ignore'):
        cosine, base = geometry._cosines(target, rolls)
        rows, corners = geometry.corners(cosine, base, True, True)
        # All rows bracketed at once; the corners' brackets stand if no tangency has a zero
        # (so only the pairs of equations with roots somewhere count; else their samples crowd
        # toward the zeros, and they are bracketed anew).
        items = _brackets(np.concatenate((geometry.tangencies(cosine), corners)), rolls, piece,
                          list(range(tangencies)) + rows.tolist())
        zeros, pending = [], [item for item in items if item[2] < tangencies]
        while pending:
            found, more = resolve(geometry, target, pending.pop())
            zeros.extend(found)
            pending.extend(more)
        if not zeros:
            return zeros, [item for item in items if item[2] >= tangencies]
        rolls, piece, cosine, base = _with_extra(geometry, target, zeros, pieces, steps,
                                                 (rolls, piece, cosine, base))
        rows, corners = geometry.corners(cosine, base, True)
        return zeros, _brackets(corners, rolls, piece, rows.tolist())


def _with_extra(geometry, target, zeros, pieces, steps, sampled):
    """Return ``sampled`` (rolls, piece, cosine, base) with samples crowding to ``zeros``.

    Call it with numpy's warnings off.
    """
    rolls, piece, cosine, base = sampled
    extra, extra_piece = [], []
    for index, (low, high) in enumerate(pieces):
        inside = [z for z in zeros if low < z < high]
        if inside:
            extra.append(_crowded(np.empty(0), inside, steps[index], low, high))
            extra_piece.append(np.full(len(extra[-1]), index))
    extra_rolls = np.concatenate(extra)
    extra_cosine, extra_base = geometry._cosines(target, extra_rolls)
    rolls = np.concatenate((rolls, extra_rolls))
    if piece is None:
        order = np.argsort(rolls, kind='stable')
    else:
        piece = np.concatenate((piece, *extra_piece))
        order = np.lexsort((rolls, piece))
        piece = piece[order]
    cosine = np.concatenate((cosine, extra_cosine), axis=1)[:, order]
    return rolls[order], piece, cosine, np.concatenate((base, extra_base), axis=1)[:, order]


def _crowded(rolls: np.ndarray, centres, scale: float, low: float, high: float) -> np.ndarray:
    """Return ``rolls`` with samples crowding toward each centre from both sides, sorted."""
    extra = (np.asarray(centres, dtype=float)[:, None] + _EDGES * scale).ravel()
    extra = extra[(extra > low + PRECISION) & (extra < high - PRECISION)]
    return np.sort(np.concatenate((rolls, extra)))


def _brackets(values, rolls, piece, names) -> list:
    """Return the pending items (:func:`roll_brackets`) of the functions sampled in ``values``.

    ``values``: rows of :meth:`RollGeometry.functions` at ``rolls``, numbered ``names``
    (None: 0, 1, ...); ``piece``: each sample's piece (brackets stay within one), or None
    for one piece. A row that is NaN throughout has none. Call it with numpy's warnings off.
    """
    rows, starts, ends = _sign_changes(values, rolls, piece)
    if names is None:
        names = range(len(values))
    items = [(start, end, names[row], 0) for row, start, end in
             zip(rows.tolist(), starts.tolist(), ends.tolist())]
    rows, columns = _dips(values, rolls, piece)
    if rows.size:
        sides = np.sign(values[rows, columns + 1]).tolist()
        items.extend((float(rolls[column]), float(rolls[column + 2]), names[row], side)
                     for row, column, side in zip(rows.tolist(), columns.tolist(), sides))
    return items


def _sign_changes(values: np.ndarray, rolls: np.ndarray, piece: np.ndarray):
    """Brackets (row, start, end) where a function changes sign between two samples.

    Call it with numpy's invalid-value warnings off.
    """
    left, right = values[:, :-1], values[:, 1:]
    change = (left * right <= 0.0) & (left != right)
    if piece is not None:
        change &= piece[:-1] == piece[1:]
    rows, columns = _nonzero(change)
    return rows, rolls[columns], rolls[columns + 1]


def _nonzero(mask: np.ndarray):
    """Return (rows, columns) of a 2-D mask's true entries, as np.nonzero (but cheaper)."""
    return np.divmod(np.flatnonzero(mask), mask.shape[1])


def _dips(values: np.ndarray, rolls: np.ndarray, piece: np.ndarray):
    """(row, column) of the samples (column + 1) below both neighbours that may hide zeros.

    A sample below both neighbours (of |f|, all three of one sign and within one piece)
    whose parabola's vertex is at or past zero, or within twice the dip of it (:func:`resolve`
    finds the extremum). The neighbours are compared on the whole array, the rest on those
    few samples only. Call it with numpy's warnings off.
    """
    size = np.abs(values)
    middle_size = size[:, 1:-1]
    rows, columns = _nonzero((size[:, :-2] > middle_size) & (size[:, 2:] > middle_size))
    at = columns[:, None] + _THREE  # each dip's three samples
    triple = values[rows[:, None], at]
    kept = np.abs(np.sign(triple).sum(axis=1)) == 3.0  # (one sign, none zero)
    if piece is not None:
        kept &= piece[columns] == piece[columns + 2]
    if not kept.all():
        rows, columns, at, triple = rows[kept], columns[kept], at[kept], triple[kept]
    if not rows.size:
        return rows, columns
    # The parabola through the three samples: its slope and half curvature at the middle.
    x = rolls[at]
    dx = x[:, 1:] - x[:, :-1]
    d = (triple[:, 1:] - triple[:, :-1]) / dx
    span = x[:, 2] - x[:, 0]
    half = (d[:, 1] - d[:, 0]) / span
    slope = (d[:, 0] * dx[:, 1] + d[:, 1] * dx[:, 0]) / span
    middle = triple[:, 1]
    vertex = middle - slope * slope / (4.0 * np.where(half != 0.0, half, 1.0))
    near = np.sign(middle) * vertex <= 2.0 * np.abs(middle - vertex)
    return rows[near], columns[near]


def _golden_minimum(function, low: float, high: float) -> float:
    """Return where ``function`` is least in [low, high] (one minimum), golden section.

    It stops early at a point where ``function`` is zero or below (all its callers ask).
    """
    a, b = high - _GOLDEN * (high - low), low + _GOLDEN * (high - low)
    fa, fb = function(a), function(b)
    for _ in range(EXTREMUM_STEPS):
        if fa <= 0.0 or fb <= 0.0:
            return a if fa <= fb else b
        if not fb < fa:  # (NaN: keep the lower side)
            high, b, fb = b, a, fa
            a = high - _GOLDEN * (high - low)
            fa = function(a)
        else:
            low, a, fa = a, b, fb
            b = low + _GOLDEN * (high - low)
            fb = function(b)
    return 0.5 * (low + high)


def _refine(function, target, row: int, a: float, b: float) -> Optional[float]:
    """Shrink a bracket (a sign change of row ``row``) to its zero, rad: Illinois false position.

    None if the function is undefined at a side.
    """
    fa, fb = function(target, a, row), function(target, b, row)
    if not (math.isfinite(fa) and math.isfinite(fb)):
        return None
    kept = 0
    for _ in range(REFINE_STEPS):
        if b - a <= PRECISION or fa == 0.0 or fb == 0.0:
            break
        guess = (a * fb - b * fa) / (fb - fa) if fb != fa else a
        if not a < guess < b:
            guess = 0.5 * (a + b)
        value = function(target, guess, row)
        if not math.isfinite(value):
            break
        if (value < 0.0) == (fa < 0.0):
            a, fa = guess, value
            fb, kept = (0.5 * fb if kept == 1 else fb), 1
        else:
            b, fb = guess, value
            fa, kept = (0.5 * fa if kept == -1 else fa), -1
    return a if abs(fa) <= abs(fb) else b


def stretch_trials(ends: Sequence[float], held: float, margin: float = 1e-6
                   ) -> List[Tuple[float, ...]]:
    """Per stretch between ends not holding ``held``, nearest it first: the rolls to solve.

    Each stretch's :func:`trials`. Ties of distance: the stretch below ``held`` first.
    """
    stretches = []
    for start, end in zip(ends, ends[1:]):
        if end <= start or start < held < end:
            continue
        near = start if held <= start else end
        stretches.append((abs(near - held), trials(start, end, held, margin)))
    stretches.sort(key=lambda item: item[0])
    return [rolls for _, rolls in stretches]


def trials(start: float, end: float, held: float, margin: float) -> Tuple[float, ...]:
    """Return the rolls to solve in the stretch [start, end] (rad) not holding ``held``.

    :data:`END_MARGINS` x ``margin`` (rad) inside the stretch's end nearest ``held``, in turn
    (at the end itself the feasible pitches pinch to a point: a pose on two boundaries at once,
    which rounding or the correction for a URDF's rounding could push out), then its middle:
    reachability is the same all along a stretch.
    """
    near, far = (start, end) if held <= start else (end, start)
    width = abs(far - near)
    step = math.copysign(1.0, far - near)
    rolls = [near + step * margin * d for d in END_MARGINS if margin * d < 0.5 * width]
    rolls.append(0.5 * (start + end))
    return tuple(rolls)
