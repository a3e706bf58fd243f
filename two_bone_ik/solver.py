"""Closed-form inverse kinematics for a planar two-link arm, and CCD for longer chains.

This module is the ROS-free core of two_bone_ik: pure functions on floats and numpy arrays.
It imports only ``math``, ``enum``, ``typing`` and ``numpy``.

Conventions
-----------
The arm lives in a plane with axes (u, v); the shoulder joint is at the origin.

* ``q1`` is the angle of link 1 measured from +u toward +v, in radians.
* ``q2`` is the angle of link 2 relative to link 1, same sense, in radians.
* ``elbow='up'`` puts the elbow on the +v side of the line from shoulder to target
  (``q2 <= 0``); ``'down'`` mirrors it (``q2 >= 0``); ``'nearest'`` picks the branch closest to
  a previous configuration (``'up'`` when there is none).

Unconstrained angles are returned wrapped into (-pi, pi]. With joint limits, each angle is the
representative (by whole turns) that lies inside its limits.
"""

import enum
import math
from typing import NamedTuple, Optional, Sequence, Tuple

import numpy as np

__all__ = [
    'CcdSolution',
    'IkBatchSolution',
    'IkInputError',
    'IkSolution',
    'IkStatus',
    'elbow_position',
    'forward',
    'seek',
    'solve',
    'solve_batch',
    'solve_ccd',
]

TWO_PI = 2.0 * math.pi

#: Relative slack (times ``l1 + l2``) within which a target on the workspace boundary still
#: counts as reachable, so that ``solve(*forward(q1, 0.0, l1, l2), l1, l2)`` reports REACHED.
REACH_TOLERANCE = 1e-12

#: Slack in radians within which an angle counts as inside its joint limits (it is then clamped
#: onto the limit), so rounding never turns an exact solution into a limited one.
LIMIT_TOLERANCE = 1e-10

_INF = math.inf


class IkInputError(ValueError):
    """Invalid input to the solver: the message names the offending value."""


class IkStatus(enum.IntEnum):
    """Outcome of a solve. The numbers are stable and will never be renumbered."""

    #: The tip reaches the target on the requested elbow branch.
    REACHED = 0
    #: The target is beyond ``l1 + l2``: the arm points straight at it.
    OUT_OF_REACH = 1
    #: The target is closer than ``|l1 - l2|``: the arm folds toward it.
    INSIDE_INNER = 2
    #: No exact solution fits the joint limits: the in-limits pose closest to the target.
    JOINT_LIMITED = 3
    #: The requested branch violated a limit; the other branch reaches the target.
    ELBOW_FLIPPED = 4


class IkSolution(NamedTuple):
    """Result of :func:`solve`.

    Attributes
    ----------
    q1, q2 : float
        Joint angles, radians.
    status : IkStatus
        What happened (see :class:`IkStatus`).
    reachable : bool
        True when the tip reaches the target (``error`` within tolerance).
    tip : tuple of float
        Tip position (u, v) of the returned pose, metres.
    error : float
        Distance from the tip to the target, metres.
    elbow : str
        Branch of the returned pose: ``'up'`` (q2 < 0) or ``'down'`` (q2 > 0); for a straight or
        exactly folded arm, the requested branch.
    """

    q1: float
    q2: float
    status: IkStatus
    reachable: bool
    tip: Tuple[float, float]
    error: float
    elbow: str


_REACHED = IkStatus.REACHED
_OUT_OF_REACH = IkStatus.OUT_OF_REACH
_INSIDE_INNER = IkStatus.INSIDE_INNER
# The scalar fast path looks these up as module globals rather than as attributes of math.
_tuple_new = tuple.__new__  # builds an IkSolution without the NamedTuple's Python-level __new__
_atan2 = math.atan2
_hypot = math.hypot
_isfinite = math.isfinite
_sqrt = math.sqrt
_PI = math.pi


class IkBatchSolution(NamedTuple):
    """Result of :func:`solve_batch`, element ``i`` equal to ``solve`` on target ``i``.

    Attributes
    ----------
    q : ndarray, shape (n, 2)
        Joint angles (q1, q2), radians.
    status : ndarray of int8, shape (n,)
        :class:`IkStatus` values.
    reachable : ndarray of bool, shape (n,)
        True where the tip reaches the target.
    tip : ndarray, shape (n, 2)
        Tip positions, metres.
    error : ndarray, shape (n,)
        Tip-to-target distances, metres.
    """

    q: np.ndarray
    status: np.ndarray
    reachable: np.ndarray
    tip: np.ndarray
    error: np.ndarray


class CcdSolution(NamedTuple):
    """Result of :func:`solve_ccd`.

    Attributes
    ----------
    angles : ndarray, shape (n,)
        Joint angles, each relative to the previous link, radians.
    tip : ndarray, shape (2,)
        Tip position of the returned pose, metres.
    iterations : int
        Number of full sweeps (last joint to first) performed.
    error : float
        Distance from the tip to the target, metres.
    converged : bool
        True when ``error <= tolerance``.
    """

    angles: np.ndarray
    tip: np.ndarray
    iterations: int
    error: float
    converged: bool


# ---------------------------------------------------------------------------------------------
# Validation


def _check_finite(name: str, value: float) -> None:
    if not math.isfinite(value):
        raise IkInputError(f'{name} must be finite, got {float(value)!r}')


def _check_inputs(x: float, y: float, l1: float, l2: float) -> None:
    """Raise IkInputError naming the first bad value among the target and the lengths."""
    _check_finite('x', x)
    _check_finite('y', y)
    for name, length in (('l1', l1), ('l2', l2)):
        _check_finite(name, length)
        if length < 0.0:
            raise IkInputError(f'{name} must be non-negative, got {float(length)!r} m')
    raise IkInputError(f'inputs too large to solve: x={x!r}, y={y!r}, l1={l1!r}, l2={l2!r}')


def _check_limits(limits, count: int = 2) -> Tuple[Tuple[float, float], ...]:
    """Return limits as a tuple of ``count`` (lower, upper) float pairs, or raise."""
    try:
        pairs = tuple((float(lo), float(hi)) for lo, hi in limits)
    except (TypeError, ValueError) as exc:
        raise IkInputError(
            f'limits must be {count} (lower, upper) pairs in radians, got {limits!r}') from exc
    if len(pairs) != count:
        raise IkInputError(f'limits must have {count} (lower, upper) pairs, got {len(pairs)}')
    for joint, (lo, hi) in enumerate(pairs, start=1):
        if math.isnan(lo) or math.isnan(hi):
            raise IkInputError(f'joint {joint} limits must not be NaN, got ({lo!r}, {hi!r})')
        if lo > hi:
            raise IkInputError(
                f'joint {joint} lower limit {lo!r} rad is above upper limit {hi!r} rad')
    return pairs


def _check_elbow(elbow: str) -> None:
    if elbow not in ('up', 'down', 'nearest'):
        raise IkInputError(f"elbow must be 'up', 'down' or 'nearest', got {elbow!r}")


# ---------------------------------------------------------------------------------------------
# Forward kinematics


def forward(q1: float, q2: float, l1: float, l2: float) -> Tuple[float, float]:
    """Tip position of the arm.

    Parameters
    ----------
    q1, q2 : float
        Joint angles, radians (q2 relative to link 1).
    l1, l2 : float
        Link lengths, metres.

    Returns
    -------
    tuple of float
        Tip position (u, v), metres.
    """
    a12 = q1 + q2
    return (l1 * math.cos(q1) + l2 * math.cos(a12), l1 * math.sin(q1) + l2 * math.sin(a12))


def elbow_position(q1: float, l1: float) -> Tuple[float, float]:
    """Elbow position (u, v) in metres for shoulder angle ``q1`` (rad) and link 1 length ``l1``."""
    return (l1 * math.cos(q1), l1 * math.sin(q1))


def _wrap(angle: float) -> float:
    """Angle in radians wrapped to [-pi, pi] by whole turns."""
    return angle - TWO_PI * round(angle / TWO_PI)


# ---------------------------------------------------------------------------------------------
# Scalar solver


def solve(x: float, y: float, l1: float, l2: float, elbow: str = 'up', limits=None,
          allow_elbow_flip: bool = True,
          previous: Optional[Sequence[float]] = None) -> IkSolution:
    """Solve planar two-link inverse kinematics in closed form.

    Parameters
    ----------
    x, y : float
        Target position (u, v) in the arm plane, metres.
    l1, l2 : float
        Link lengths, metres, ``>= 0`` (zero-length links are allowed).
    elbow : {'up', 'down', 'nearest'}
        Requested branch. ``'nearest'`` picks the branch closest to ``previous`` (``'up'``
        when ``previous`` is None).
    limits : sequence of two (lower, upper) pairs, optional
        Joint limits in radians, ``((lo1, hi1), (lo2, hi2))``; ``-inf``/``inf`` for no limit on
        that side. Angles are brought into range by whole turns where possible.
    allow_elbow_flip : bool
        When the requested branch violates a limit, use the other branch if it fits
        (status ``ELBOW_FLIPPED``). When False, the result always stays on the requested side.
    previous : sequence of two float, optional
        Previous configuration (q1, q2) in radians: used by ``'nearest'``, and as q1 when the
        target is at the origin (where the direction is undefined).

    Returns
    -------
    IkSolution
        The joint angles and the outcome. Out of reach, the angles are the closest reachable
        pose (stretched toward the target outside, folded toward it inside the inner hole); with
        limits and no exact fit, the in-limits pose whose tip is closest to the target.

    Raises
    ------
    IkInputError
        If a coordinate or length is NaN or infinite, a length is negative, ``elbow`` is
        unknown, or a lower limit is above its upper limit.
    """
    if not (_isfinite(x + y + l1 + l2) and l1 >= 0.0 and l2 >= 0.0):
        _check_inputs(x, y, l1, l2)

    # Reach: radius clamped into the workspace annulus [d, s].
    # Half-angle form of the law of cosines: tan(|q2| / 2) = a / b with
    # a^2 = (s - rc)(s + rc) and b^2 = (rc - d)(rc + d). It stays exact at full stretch (q2 = 0)
    # and full fold (q2 = pi), where the arccos form loses half the digits. s - rc and rc - d are
    # summed from the longer link outward so a tiny link beside a long one keeps its digits.
    s = l1 + l2
    if l1 < l2:
        short, long = l1, l2
    else:
        short, long = l2, l1
    d = long - short
    r = _hypot(x, y)
    if r > s:
        rc = s
        status = _REACHED if r - s <= REACH_TOLERANCE * s else _OUT_OF_REACH
        a = 0.0
        b = 2.0 * _sqrt(l1 * l2)
    elif r < d:
        rc = d
        status = _REACHED if d - r <= REACH_TOLERANCE * s else _INSIDE_INNER
        a = 2.0 * _sqrt(l1 * l2)
        b = 0.0
    else:
        rc = r
        status = _REACHED
        a = (long - r) + short
        b = (r - long) + short
        a = _sqrt(a * (s + r)) if a > 0.0 else 0.0
        b = _sqrt(b * (r + d)) if b > 0.0 else 0.0
    # The shoulder angle is the target's direction turned back by the offset
    # atan2(sign a b, rc^2 + l1^2 - l2^2) (rc^2 - l2^2 factored for the same reason), done as one
    # rotation of (x, y): one atan2, no division, and no wrapping. With l1 = 0 the offset is 0.
    if elbow == 'up':
        sign = -1.0
    elif elbow == 'down':
        sign = 1.0
    else:
        sign = None
    if r > 0.0:
        if sign is None:
            _check_elbow(elbow)
            sign = _nearest_sign(_atan2(y, x), a, b, rc, l1, l2, previous)
        sab = sign * a * b
        adjacent = (rc - l2) * (rc + l2) + l1 * l1 if l1 > 0.0 else 1.0
        q1 = _atan2(y * adjacent - x * sab, x * adjacent + y * sab)
    else:
        # At the origin the direction is undefined: keep the previous shoulder angle.
        q1 = 0.0 if previous is None else _wrap(float(previous[0]))
        if sign is None:
            _check_elbow(elbow)
            sign = _nearest_sign(q1, a, b, rc, l1, l2, previous)
    q2 = sign * 2.0 * _atan2(a, b) + 0.0  # + 0.0 turns -0.0 into 0.0

    if limits is not None:
        limits = _check_limits(limits)
        fit1 = _into_range(q1, *limits[0])
        fit2 = _into_range(q2, *limits[1])
        if fit1 is None or fit2 is None:
            phi = _atan2(y, x) if r > 0.0 else q1
            return _solve_limited(x, y, l1, l2, phi, q1, q2, a * b, rc, sign, status, limits,
                                  allow_elbow_flip)
        q1, q2 = fit1, fit2

    # The closed-form pose's tip lies on the target's ray at radius rc: the target itself when
    # in reach (exact up to rounding of the angles).
    if rc == r:
        tip = (x, y)
        error = 0.0
    elif r > 0.0:
        scale = rc / r
        tip = (x * scale, y * scale)
        error = r - rc if r > rc else rc - r
    else:
        tip = forward(q1, q2, l1, l2)
        error = rc
    return _tuple_new(IkSolution, (q1, q2, status, status is _REACHED, tip, error,
                                   'up' if sign < 0.0 else 'down'))


def _nearest_sign(phi: float, a: float, b: float, rc: float, l1: float, l2: float,
                  previous: Optional[Sequence[float]]) -> float:
    """Elbow sign (-1 up, +1 down) of the branch closest to ``previous`` (up without one)."""
    if previous is None:
        return -1.0
    p1, p2 = float(previous[0]), float(previous[1])
    _check_finite('previous q1', p1)
    _check_finite('previous q2', p2)
    q2_abs = 2.0 * math.atan2(a, b)
    offset = math.atan2(a * b, (rc - l2) * (rc + l2) + l1 * l1)
    cost_up = _wrap(phi + offset - p1) ** 2 + _wrap(-q2_abs - p2) ** 2
    cost_down = _wrap(phi - offset - p1) ** 2 + _wrap(q2_abs - p2) ** 2
    return -1.0 if cost_up <= cost_down else 1.0


# ---------------------------------------------------------------------------------------------
# Joint limits


def _into_range(q: float, lo: float, hi: float) -> Optional[float]:
    """Return ``q`` (rad) moved by whole turns into [lo, hi], or None if no turn fits.

    An angle within LIMIT_TOLERANCE outside a limit is put on that limit.
    """
    if lo <= q <= hi:
        return q
    if lo > -_INF:
        moved = q + TWO_PI * math.ceil((lo - q) / TWO_PI)
    else:
        moved = q - TWO_PI * math.ceil((q - hi) / TWO_PI)
    if moved <= hi and moved >= lo:
        return moved
    if moved > hi:
        if moved - hi <= LIMIT_TOLERANCE:
            return hi
        if lo - (moved - TWO_PI) <= LIMIT_TOLERANCE:
            return lo
        return None
    return lo if lo - moved <= LIMIT_TOLERANCE else None


def _into_ranges(q: float, ranges) -> Optional[float]:
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
        lo, hi = -TWO_PI, TWO_PI
    elif lo == -_INF:
        lo = hi - 2.0 * TWO_PI
    elif hi - lo > 2.0 * TWO_PI:
        hi = lo + 2.0 * TWO_PI
    base = -math.pi if sign < 0.0 else 0.0
    parts = []
    for k in range(math.floor((lo - base) / TWO_PI) - 1, math.ceil((hi - base) / TWO_PI) + 1):
        copy_lo = base + TWO_PI * k
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


def _solve_limited(x, y, l1, l2, phi, q1, q2, ab, rc, sign, status, limits, allow_elbow_flip):
    """Solve when the closed-form pose violates a joint limit: flip, or find the closest pose."""
    (lo1, hi1), (lo2, hi2) = limits
    fit1 = fit2 = None
    if allow_elbow_flip and status is _REACHED and ab > 0.0:
        other_q1 = _wrap(phi - math.atan2(-sign * ab, (rc - l2) * (rc + l2) + l1 * l1))
        fit1 = _into_range(other_q1, lo1, hi1)
        fit2 = _into_range(-q2, lo2, hi2)
        if fit1 is not None and fit2 is not None:
            status, sign = IkStatus.ELBOW_FLIPPED, -sign
    if fit1 is None or fit2 is None:
        q2_ranges = _search_ranges(lo2, hi2, sign, allow_elbow_flip)
        fit1, fit2 = _closest_in_limits(x, y, l1, l2, phi, q2, (lo1, hi1), q2_ranges)
        status = IkStatus.JOINT_LIMITED
    tip = forward(fit1, fit2, l1, l2)
    error = math.hypot(tip[0] - x, tip[1] - y)
    if status is IkStatus.JOINT_LIMITED and error <= REACH_TOLERANCE * (l1 + l2):
        status = IkStatus.REACHED  # a degenerate arm (zero-length link) reached it another way
    reachable = status is IkStatus.REACHED or status is IkStatus.ELBOW_FLIPPED
    branch = _wrap(fit2)
    elbow = 'up' if branch < 0.0 or (branch == 0.0 and sign < 0.0) else 'down'
    return IkSolution(fit1, fit2, status, reachable, tip, error, elbow)


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
    q1_edges = () if hi1 - lo1 >= TWO_PI else (lo1, hi1)
    q2_edges = [q2 for q2_lo, q2_hi in q2_ranges if q2_hi - q2_lo < TWO_PI
                for q2 in (q2_lo, q2_hi)]
    for q1 in q1_edges:
        ex, ey = elbow_position(q1, l1)
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
        tx, ty = forward(fit1, fit2, l1, l2)
        distance = math.hypot(tx - x, ty - y)
        if distance < best_distance:
            best, best_distance = (fit1, fit2), distance
    return best


# ---------------------------------------------------------------------------------------------
# Vectorised solver


def _wrap_array(angle: np.ndarray) -> np.ndarray:
    return angle - TWO_PI * np.round(angle / TWO_PI)


def _into_range_array(q: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Vectorised :func:`_into_range`: NaN where no whole turn fits."""
    if lo == -_INF and hi == _INF:
        return q
    if lo > -_INF:
        moved = q + TWO_PI * np.ceil((lo - q) / TWO_PI)
    else:
        moved = q - TWO_PI * np.ceil((q - hi) / TWO_PI)
    over = moved > hi
    result = np.where(over, np.nan, moved)
    result = np.where(over & (lo - (moved - TWO_PI) <= LIMIT_TOLERANCE), lo, result)
    result = np.where(over & (moved - hi <= LIMIT_TOLERANCE), hi, result)
    under = moved < lo
    result = np.where(under, np.where(lo - moved <= LIMIT_TOLERANCE, lo, np.nan), result)
    return np.where((lo <= q) & (q <= hi), q, result)


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


def _check_batch_inputs(xy, l1, l2, previous):
    xy = np.asarray(xy, dtype=float)
    if xy.ndim != 2 or xy.shape[1] != 2:
        raise IkInputError(f'xy must have shape (n, 2), got {xy.shape}')
    l1, l2 = float(l1), float(l2)
    for name, length in (('l1', l1), ('l2', l2)):
        _check_finite(name, length)
        if length < 0.0:
            raise IkInputError(f'{name} must be non-negative, got {float(length)!r} m')
    if not np.isfinite(xy).all():
        row, col = np.argwhere(~np.isfinite(xy))[0]
        raise IkInputError(f'xy[{row}, {col}] must be finite, got {float(xy[row, col])!r}')
    if previous is not None:
        previous = np.asarray(previous, dtype=float)
        if previous.shape != xy.shape:
            raise IkInputError(f'previous must have shape {xy.shape}, got {previous.shape}')
        if not np.isfinite(previous).all():
            row, col = np.argwhere(~np.isfinite(previous))[0]
            raise IkInputError(
                f'previous[{row}, {col}] must be finite, got {float(previous[row, col])!r}')
    return xy, l1, l2, previous


def solve_batch(xy, l1: float, l2: float, elbow: str = 'up', limits=None,
                allow_elbow_flip: bool = True, previous=None) -> IkBatchSolution:
    """Solve many targets at once; element ``i`` equals ``solve`` on target ``i``.

    Parameters
    ----------
    xy : array-like, shape (n, 2)
        Targets (u, v), metres.
    l1, l2 : float
        Link lengths, metres, ``>= 0``.
    elbow : {'up', 'down', 'nearest'}
        Requested branch, as in :func:`solve`.
    limits : sequence of two (lower, upper) pairs, optional
        Joint limits in radians, as in :func:`solve`.
    allow_elbow_flip : bool
        As in :func:`solve`.
    previous : array-like, shape (n, 2), optional
        Previous configuration (q1, q2) per target, radians, as in :func:`solve`.

    Returns
    -------
    IkBatchSolution
        Angles, statuses, reachability, tips and errors, one row per target.

    Raises
    ------
    IkInputError
        If ``xy`` has the wrong shape or a NaN or infinite value, a length is negative or not
        finite, ``elbow`` is unknown, or a lower limit is above its upper limit.
    """
    xy, l1, l2, previous = _check_batch_inputs(xy, l1, l2, previous)
    _check_elbow(elbow)
    if limits is not None:
        limits = _check_limits(limits)
    x = np.ascontiguousarray(xy[:, 0])  # contiguous columns vectorise better
    y = np.ascontiguousarray(xy[:, 1])
    s = l1 + l2
    d = abs(l1 - l2)
    slack = REACH_TOLERANCE * s
    r = _radius(x, y)
    rc = np.minimum(np.maximum(r, d), s)
    outside = r > s
    inside = r < d
    status = np.zeros(r.shape, dtype=np.int8)
    status[outside & (r - s > slack)] = IkStatus.OUT_OF_REACH
    status[inside & (d - r > slack)] = IkStatus.INSIDE_INNER

    # The same half-angle formulas as solve, computed in place where possible.
    short, long = min(l1, l2), max(l1, l2)
    a = np.subtract(long, rc)
    a += short
    np.maximum(a, 0.0, out=a)
    a *= s + rc
    np.sqrt(a, out=a)
    b = np.subtract(rc, long)
    b += short
    np.maximum(b, 0.0, out=b)
    b *= rc + d
    np.sqrt(b, out=b)
    if outside.any() or inside.any():
        a[outside] = 0.0
        b[outside] = 2.0 * math.sqrt(l1 * l2)
        a[inside] = 2.0 * math.sqrt(l1 * l2)
        b[inside] = 0.0
    ab = a * b
    if l1 > 0.0:
        adjacent = rc - l2
        adjacent *= rc + l2
        adjacent += l1 * l1
    else:
        adjacent = np.ones_like(rc)
    at_origin = r == 0.0
    any_at_origin = bool(at_origin.any())
    phi = None
    if limits is not None or (elbow == 'nearest' and previous is not None):
        phi = np.arctan2(y, x)
        if any_at_origin:
            phi[at_origin] = 0.0 if previous is None else _wrap_array(previous[at_origin, 0])
    if elbow == 'nearest' and previous is not None:
        offset = np.arctan2(ab, adjacent)
        q2_abs = 2.0 * np.arctan2(a, b)
        cost_up = (_wrap_array(phi + offset - previous[:, 0]) ** 2
                   + _wrap_array(-q2_abs - previous[:, 1]) ** 2)
        cost_down = (_wrap_array(phi - offset - previous[:, 0]) ** 2
                     + _wrap_array(q2_abs - previous[:, 1]) ** 2)
        sign = np.where(cost_up <= cost_down, -1.0, 1.0)
        sab = sign * ab
    else:
        sign = 1.0 if elbow == 'down' else -1.0
        sab = ab if sign > 0.0 else -ab
    # As in solve: the target's direction turned back by the shoulder offset, one rotation.
    q1 = np.arctan2(y * adjacent - x * sab, x * adjacent + y * sab)
    if any_at_origin:
        q1[at_origin] = 0.0 if previous is None else _wrap_array(previous[at_origin, 0])
    q2 = np.arctan2(a, b)
    q2 *= 2.0 * sign
    q2 += 0.0

    # The closed-form pose's tip lies on the target's ray at radius rc.
    scale = np.divide(rc, r, out=np.zeros_like(r), where=~at_origin) if any_at_origin \
        else np.divide(rc, r)
    tip = xy * scale[:, None]
    error = np.abs(r - rc)
    if any_at_origin:
        tip[at_origin] = _forward_array(q1[at_origin], q2[at_origin], l1, l2)
    if limits is not None:
        q1, q2 = _fit_batch_into_limits(x, y, l1, l2, phi, q1, q2, ab, adjacent, sign, status,
                                        limits, allow_elbow_flip, tip, error)
    reachable = (status == IkStatus.REACHED) | (status == IkStatus.ELBOW_FLIPPED)
    return IkBatchSolution(np.stack((q1, q2), axis=1), status, reachable, tip, error)


def _radius(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Distances (m) of points from the origin: np.hypot's result, several times faster.

    The plain square root is exact to rounding unless a square overflows or underflows; then
    np.hypot does the whole batch.
    """
    with np.errstate(over='ignore', under='ignore'):
        r = x * x
        r += y * y
    np.sqrt(r, out=r)
    if r.size == 0:
        return r
    if r.max() >= 1e150 or (r.min() < 1e-150 and np.any(
            (r < 1e-150) & ((x != 0.0) | (y != 0.0)))):
        return np.hypot(x, y)
    return r


def _forward_array(q1: np.ndarray, q2: np.ndarray, l1: float, l2: float) -> np.ndarray:
    """Tip positions, shape (n, 2), metres, for joint angles of shape (n,), radians."""
    a12 = q1 + q2
    return np.stack((l1 * np.cos(q1) + l2 * np.cos(a12), l1 * np.sin(q1) + l2 * np.sin(a12)),
                    axis=1)


def _fit_batch_into_limits(x, y, l1, l2, phi, q1, q2, ab, adjacent, sign, status, limits,
                           allow_elbow_flip, tip, error):
    """Vectorised limit handling of :func:`solve`; updates status, tip and error in place.

    Returns the joint angles (q1, q2) inside the limits, radians.
    """
    (lo1, hi1), (lo2, hi2) = limits
    sign = np.broadcast_to(sign, x.shape).copy()
    fit1 = _into_range_array(q1, lo1, hi1)
    fit2 = _into_range_array(q2, lo2, hi2)
    pending = np.isnan(fit1) | np.isnan(fit2)
    changed = np.flatnonzero(pending)
    if allow_elbow_flip:
        flip = np.flatnonzero(pending & (status == IkStatus.REACHED) & (ab > 0.0))
        other_q1 = _wrap_array(phi[flip] - np.arctan2(-sign[flip] * ab[flip], adjacent[flip]))
        flip1 = _into_range_array(other_q1, lo1, hi1)
        flip2 = _into_range_array(-q2[flip], lo2, hi2)
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
            fit1[rows], fit2[rows] = _closest_in_limits_array(
                x[rows], y[rows], l1, l2, phi[rows], q2[rows], (lo1, hi1), q2_ranges)
            status[rows] = IkStatus.JOINT_LIMITED
    tip[changed] = _forward_array(fit1[changed], fit2[changed], l1, l2)
    error[changed] = np.hypot(tip[changed, 0] - x[changed], tip[changed, 1] - y[changed])
    reached = changed[(status[changed] == IkStatus.JOINT_LIMITED)
                      & (error[changed] <= REACH_TOLERANCE * (l1 + l2))]
    status[reached] = IkStatus.REACHED
    return fit1, fit2


# ---------------------------------------------------------------------------------------------
# Seeking


def seek(current, goal, max_step: float, wrap: bool = True) -> np.ndarray:
    """Step joint angles toward a goal pose, every joint arriving at the same time.

    Call once per control period with ``max_step = max_velocity * period`` to move smoothly
    toward a new solution instead of jumping to it.

    Parameters
    ----------
    current, goal : array-like, shape (n,)
        Joint angles now and wanted, radians.
    max_step : float
        Largest change of any joint in this step, radians, ``>= 0``.
    wrap : bool
        Go the short way round (angles modulo a whole turn). Use False for joints with limits,
        where ``goal`` is already the in-limits representative and the straight path between two
        in-limits poses stays inside them.

    Returns
    -------
    ndarray, shape (n,)
        The next joint angles, radians; equal to ``goal`` (up to a whole turn when ``wrap``)
        once within ``max_step`` of it.

    Raises
    ------
    IkInputError
        On NaN or infinite values, mismatched shapes, or a negative ``max_step``.
    """
    current = np.asarray(current, dtype=float)
    goal = np.asarray(goal, dtype=float)
    if current.shape != goal.shape or current.ndim != 1:
        raise IkInputError(f'current and goal must be 1-D of one shape, got {current.shape} '
                           f'and {goal.shape}')
    if not (np.isfinite(current).all() and np.isfinite(goal).all()):
        raise IkInputError(f'angles must be finite, got current={current!r}, goal={goal!r}')
    if not (math.isfinite(max_step) and max_step >= 0.0):
        raise IkInputError(f'max_step must be non-negative and finite, got {max_step!r} rad')
    delta = goal - current
    if wrap:
        delta = _wrap_array(delta)
    largest = float(np.max(np.abs(delta), initial=0.0))
    if largest <= max_step:
        return current + delta
    return current + delta * (max_step / largest)


# ---------------------------------------------------------------------------------------------
# Cyclic coordinate descent


def solve_ccd(target, lengths, initial, limits=None, tolerance: float = 1e-9,
              max_iterations: int = 500) -> CcdSolution:
    """Cyclic coordinate descent (CCD) for a planar chain with any number of links.

    Each sweep goes from the last joint to the first and turns each joint so that the line
    from that joint to the chain's end points at the target; sweeps repeat until the end is
    within ``tolerance`` of the target, a sweep brings no improvement, or ``max_iterations``
    sweeps are done. For a target out of reach the chain ends stretched toward it.

    Parameters
    ----------
    target : array-like, shape (2,)
        Target position (u, v), metres.
    lengths : array-like, shape (n,)
        Link lengths, metres, ``>= 0``.
    initial : array-like, shape (n,)
        Starting joint angles, radians, each relative to the previous link (the first from +u).
    limits : array-like, shape (n, 2), optional
        (lower, upper) limit per joint, radians; a joint turned past a limit stops at it.
    tolerance : float
        Distance from end to target at which to stop, metres, ``> 0``.
    max_iterations : int
        Maximum number of sweeps, ``>= 0``.

    Returns
    -------
    CcdSolution
        Angles, tip, sweeps used, remaining error and whether it converged.

    Raises
    ------
    IkInputError
        On NaN or infinite values, negative lengths, mismatched shapes, a lower limit above its
        upper limit, or a non-positive tolerance.
    """
    target = np.asarray(target, dtype=float)
    lengths = np.asarray(lengths, dtype=float)
    angles = np.array(initial, dtype=float)
    if target.shape != (2,) or not np.isfinite(target).all():
        raise IkInputError(f'target must be 2 finite coordinates, got {target!r}')
    if lengths.ndim != 1 or lengths.size == 0 or not np.isfinite(lengths).all() \
            or (lengths < 0.0).any():
        raise IkInputError(f'lengths must be non-negative finite values, got {lengths!r}')
    if angles.shape != lengths.shape or not np.isfinite(angles).all():
        raise IkInputError(f'initial must be {lengths.size} finite angles, got {angles!r}')
    if not (math.isfinite(tolerance) and tolerance > 0.0):
        raise IkInputError(f'tolerance must be positive and finite, got {tolerance!r} m')
    if max_iterations < 0:
        raise IkInputError(f'max_iterations must be >= 0, got {max_iterations!r}')
    bounds = None if limits is None else _check_limits(limits, lengths.size)

    tx, ty = float(target[0]), float(target[1])
    link = lengths.tolist()
    q = angles.tolist()
    if bounds is not None:
        q = [_clamp_joint(value, lo, hi) for value, (lo, hi) in zip(q, bounds)]
    count = len(link)
    px = [0.0] * count
    py = [0.0] * count
    end_x, end_y = _chain_end(q, link, px, py)
    error = math.hypot(end_x - tx, end_y - ty)
    iterations = 0
    while error > tolerance and iterations < max_iterations:
        iterations += 1
        for j in range(count - 1, -1, -1):
            to_end_x, to_end_y = end_x - px[j], end_y - py[j]
            to_target_x, to_target_y = tx - px[j], ty - py[j]
            turn = math.atan2(to_end_x * to_target_y - to_end_y * to_target_x,
                              to_end_x * to_target_x + to_end_y * to_target_y)
            if bounds is not None:
                lo, hi = bounds[j]
                turn = _clamp_joint(q[j] + turn, lo, hi) - q[j]
            q[j] += turn
            c, s = math.cos(turn), math.sin(turn)
            end_x, end_y = (px[j] + c * to_end_x - s * to_end_y,
                            py[j] + s * to_end_x + c * to_end_y)
        end_x, end_y = _chain_end(q, link, px, py)  # fresh, so rounding does not accumulate
        new_error = math.hypot(end_x - tx, end_y - ty)
        if new_error >= error:
            error = new_error
            break
        error = new_error
    if bounds is None:
        q = [_wrap(value) for value in q]
    return CcdSolution(np.array(q), np.array((end_x, end_y)), iterations, error,
                       error <= tolerance)


def _chain_end(q, link, px, py) -> Tuple[float, float]:
    """Fill joint positions px, py (metres) for relative angles q; return the chain's end."""
    x = y = heading = 0.0
    for j, (angle, length) in enumerate(zip(q, link)):
        px[j], py[j] = x, y
        heading += angle
        x += length * math.cos(heading)
        y += length * math.sin(heading)
    return x, y


def _clamp_joint(q: float, lo: float, hi: float) -> float:
    """Angle (rad) moved into [lo, hi] by whole turns, else clamped to the nearer limit."""
    moved = _into_range(q, lo, hi)
    if moved is not None:
        return moved
    above = _wrap(q - hi)
    below = _wrap(lo - q)
    return hi if abs(above) <= abs(below) else lo
