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
turn, by sampling them, bracketing every sign change and every sampled extremum whose
parabola dips through zero, and refining each bracket (the Illinois variant of false position)
to rounding. Nothing is left to a grid: a stretch narrower than the sampling is found from the
extremum of the function that opens it.
"""

import math
from typing import List, NamedTuple, Sequence, Tuple

import numpy as np

from two_bone_ik.solver.desktop_model import DesktopArm

#: Samples of the tangency and corner functions per turn of the roll (the brackets' width).
SAMPLES_PER_TURN = 64

#: Refinement steps (false position, Illinois): a bracket shrinks to rounding in far fewer.
REFINE_STEPS = 60

#: Golden-section steps that locate a sampled extremum (the bracket shrinks 0.618 a step).
EXTREMUM_STEPS = 40

#: How far inside a stretch's end (rad, times the first margin) the roll is tried, in turn: see
#: :func:`stretch_trials`.
END_MARGINS = (1.0, 10.0, 100.0, 1e3, 1e4)

_GOLDEN = 0.5 * (math.sqrt(5.0) - 1.0)
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
        self.pitch_angles = np.array(pitch_angles, dtype=float)
        self.yaw_angles = tuple(arm.directions[0] * limit for limit in yaw_limits)
        self.equations = len(self.circles) + len(self.pitch_angles)

    def lateral_at(self, roll: np.ndarray) -> np.ndarray:
        """Return the tool point's offset from the yaw axis along the normal at rolls (rad), m."""
        return self.lateral + self.swing * np.cos(roll - self.centre)

    def cosines(self, target: RollTarget, roll: np.ndarray):
        """Return (cosine, base), each shape (K, M): every boundary equation at every roll.

        ``cos(phi - base) = cosine`` holds at the equation's roots; NaN where the yaw cannot
        face the target or the equation does not depend on phi.
        """
        roll = np.asarray(roll, dtype=float)
        cos_r, sin_r = np.cos(roll), np.sin(roll)
        (au, av, _), (bu, bv, _), (cu, cv, _) = self.tool
        tu, tv = au + cos_r * bu + sin_r * cu, av + cos_r * bv + sin_r * cv
        l3, beta = np.hypot(tu, tv), np.arctan2(tv, tu) - self.zero_sum
        lateral = self.lateral_at(roll)
        rho2 = target.hu * target.hu + target.hn * target.hn
        with np.errstate(invalid='ignore'):
            u = np.sqrt(rho2 - lateral * lateral)
        su, sv = self.shoulder
        du = (-u if target.back else u) - su
        dv = np.full(roll.shape, target.dv)
        circles = self.circles
        pu = np.concatenate((du[None] - circles[:, :1], np.broadcast_to(
            du, (len(self.pitch_angles),) + du.shape)))
        pv = np.concatenate((dv[None] - circles[:, 1:2], np.broadcast_to(
            dv, (len(self.pitch_angles),) + dv.shape)))
        radius = np.concatenate((circles[:, 2], np.full(len(self.pitch_angles), self.l1)))
        kappa = beta[None] + self.pitch_angles[:, None]
        mu_u, mu_v = l3[None] + self.l2 * np.cos(kappa), -self.l2 * np.sin(kappa)
        m = np.concatenate((np.broadcast_to(l3, (len(circles),) + l3.shape),
                            np.hypot(mu_u, mu_v)))
        mu = np.concatenate((np.zeros((len(circles),) + l3.shape), np.arctan2(mu_v, mu_u)))
        p = np.hypot(pu, pv)
        with np.errstate(divide='ignore', invalid='ignore'):
            cosine = ((p - radius[:, None]) * (p + radius[:, None]) + m * m) / (2.0 * m * p)
        cosine = np.where(np.isfinite(cosine), cosine, np.nan)
        return cosine, np.arctan2(pv, pu) - mu

    def functions(self, target: RollTarget, roll: np.ndarray) -> np.ndarray:
        """Every tangency and corner function at every roll, shape (2K + 2K K, M).

        Rows ``2k``, ``2k + 1``: ``cosine_k - 1``, ``cosine_k + 1``; row ``2K + (2j + s) K + k``:
        ``cosine_k - cos(phi_js - base_k)``, ``phi_j0``, ``phi_j1`` the roots of equation j
        (NaN where it has none, and for k = j).
        """
        cosine, base = self.cosines(target, roll)
        k = cosine.shape[0]
        tangency = np.stack((cosine - 1.0, cosine + 1.0), axis=1).reshape(2 * k, -1)
        with np.errstate(invalid='ignore'):
            spread = np.arccos(np.where(np.abs(cosine) <= 1.0, cosine, np.nan))
        roots = np.stack((base + spread, base - spread), axis=1).reshape(2 * k, -1)
        corner = cosine[None, :, :] - np.cos(roots[:, None, :] - base[None, :, :])
        own = np.repeat(np.arange(k), 2)
        corner[np.arange(2 * k), own] = np.nan
        return np.concatenate((tangency, corner.reshape(2 * k * k, -1)))

    def closed_form_ends(self, target: RollTarget) -> List[float]:
        """Return the rolls (rad) where the yaw starts or stops facing or fitting its limits."""
        swing = self.swing
        if swing == 0.0:
            return []
        ends = []
        rho = math.hypot(target.hu, target.hn)
        needed = [rho, -rho]
        for yaw in self.yaw_angles:
            ahead = target.hu * math.cos(yaw) - target.hn * math.sin(yaw) > 0.0
            if ahead != target.back:
                needed.append(target.hu * math.sin(yaw) + target.hn * math.cos(yaw))
        for value in needed:
            ratio = (value - self.lateral) / swing
            if -1.0 <= ratio <= 1.0:
                spread = math.acos(ratio)
                ends += [self.centre + spread, self.centre - spread]
        return ends


def roll_ends(geometry: RollGeometry, target: RollTarget, low: float, high: float
              ) -> List[float]:
    """Return every roll in [low, high] (rad) where reachability may change, sorted.

    ``low`` and ``high`` are among them. See the module docstring.
    """
    ends = [low, high]
    for end in geometry.closed_form_ends(target):
        base = end + _TAU * math.ceil((low - end) / _TAU)
        ends.extend(r for r in (base, base + _TAU) if low <= r <= high)
    if geometry.equations and high > low:
        ends.extend(_function_zeros(geometry, target, low, high))
    return sorted(set(ends))


def _function_zeros(geometry: RollGeometry, target: RollTarget, low: float, high: float
                    ) -> List[float]:
    """Every zero of the tangency and corner functions in [low, high], rad."""
    count = max(8, int(math.ceil((high - low) / _TAU * SAMPLES_PER_TURN))) + 1
    rolls = np.linspace(low, high, count)
    values = geometry.functions(target, rolls)
    rows, starts, ends = _sign_changes(values, rolls)
    more = _extremum_brackets(geometry, target, values, rolls)
    rows = np.concatenate((rows, more[0]))
    starts, ends = np.concatenate((starts, more[1])), np.concatenate((ends, more[2]))
    if not rows.size:
        return []
    return _refine(geometry, target, rows, starts, ends).tolist()


def _sign_changes(values: np.ndarray, rolls: np.ndarray):
    """Brackets (row, start, end) where a function changes sign between two samples."""
    left, right = values[:, :-1], values[:, 1:]
    with np.errstate(invalid='ignore'):
        change = (left * right <= 0.0) & (left != right)
    rows, columns = np.nonzero(change)
    return rows, rolls[columns], rolls[columns + 1]


def _extremum_brackets(geometry, target, values, rolls):
    """Brackets of the zero pairs a function's sampled extremum may hide.

    A sample below both neighbours (of |f|, the function keeping its sign) whose parabola's
    vertex is at or past zero, or within twice the dip of it, is refined by golden section;
    where the extremum crosses zero, its two sides are brackets.
    """
    left, middle, right = values[:, :-2], values[:, 1:-1], values[:, 2:]
    sign = np.sign(middle)
    with np.errstate(invalid='ignore'):
        dip = (sign * left > sign * middle) & (sign * right > sign * middle) & (sign != 0.0) & (
            sign * left > 0.0) & (sign * right > 0.0)
        curvature = left - 2.0 * middle + right
        vertex = middle - (right - left) ** 2 / (8.0 * np.where(curvature != 0.0, curvature, 1.0))
        near = dip & (sign * vertex <= 2.0 * np.abs(middle - vertex))
    rows, columns = np.nonzero(near)
    if not rows.size:
        return rows, np.empty(0), np.empty(0)
    side = sign[rows, columns]
    start, end = rolls[columns].copy(), rolls[columns + 2].copy()
    for _ in range(EXTREMUM_STEPS):
        inner_a = end - _GOLDEN * (end - start)
        inner_b = start + _GOLDEN * (end - start)
        fa = side * _values_at(geometry, target, rows, inner_a)
        fb = side * _values_at(geometry, target, rows, inner_b)
        lower = fa < fb  # the extremum (a minimum of side * f) is in [start, inner_b]
        end = np.where(lower, inner_b, end)
        start = np.where(lower, start, inner_a)
    extremum = 0.5 * (start + end)
    crossed = side * _values_at(geometry, target, rows, extremum) <= 0.0
    rows, extremum = rows[crossed], extremum[crossed]
    columns = columns[crossed]
    return (np.concatenate((rows, rows)), np.concatenate((rolls[columns], extremum)),
            np.concatenate((extremum, rolls[columns + 2])))


def _values_at(geometry, target, rows, rolls):
    """Return the function of each row at its own roll."""
    values = geometry.functions(target, rolls)
    return values[rows, np.arange(rows.size)]


def _refine(geometry, target, rows, start, end) -> np.ndarray:
    """Shrink the brackets (each with a sign change) to a zero, rad (Illinois false position)."""
    f_start = _values_at(geometry, target, rows, start)
    f_end = _values_at(geometry, target, rows, end)
    ok = np.isfinite(f_start) & np.isfinite(f_end)
    rows, start, end, f_start, f_end = rows[ok], start[ok], end[ok], f_start[ok], f_end[ok]
    side = 0
    for _ in range(REFINE_STEPS):
        open_ = (end - start > 1e-13) & (f_start != 0.0) & (f_end != 0.0)
        if not open_.any():
            break
        with np.errstate(divide='ignore', invalid='ignore'):
            guess = (start * f_end - end * f_start) / (f_end - f_start)
        guess = np.where(np.isfinite(guess) & (guess > start) & (guess < end), guess,
                         0.5 * (start + end))
        value = _values_at(geometry, target, rows, guess)
        value = np.where(np.isfinite(value), value, 0.0)
        same = np.sign(value) == np.sign(f_start)
        new_start = np.where(open_ & same, guess, start)
        new_end = np.where(open_ & ~same, guess, end)
        # Illinois: halve the value of the end kept twice in a row.
        f_end = np.where(open_ & same, np.where(side == 1, 0.5 * f_end, f_end), f_end)
        f_start = np.where(open_ & ~same, np.where(side == -1, 0.5 * f_start, f_start),
                           f_start)
        f_start = np.where(open_ & same, value, f_start)
        f_end = np.where(open_ & ~same, value, f_end)
        side = np.where(same, 1, -1)
        start, end = new_start, new_end
    return np.where(np.abs(f_start) <= np.abs(f_end), start, end)


def stretch_trials(ends: Sequence[float], held: float, margin: float = 1e-6
                   ) -> List[Tuple[float, ...]]:
    """Per stretch between ends not holding ``held``, nearest it first: the rolls to solve.

    :data:`END_MARGINS` x ``margin`` (rad) inside the stretch's end nearest ``held``, in turn
    (at the end itself the feasible pitches pinch to a point: a pose on two boundaries at once,
    which rounding or the correction for a URDF's rounding could push out), then its middle:
    reachability is the same all along a stretch.
    """
    stretches = []
    for start, end in zip(ends, ends[1:]):
        if end <= start or start < held < end:
            continue
        near, far = (start, end) if held <= start else (end, start)
        width = abs(far - near)
        step = math.copysign(1.0, far - near)
        trials = [near + step * margin * d for d in END_MARGINS if margin * d < 0.5 * width]
        trials.append(0.5 * (start + end))
        stretches.append((abs(near - held), tuple(trials)))
    stretches.sort(key=lambda item: item[0])
    return [trials for _, trials in stretches]
