"""Input checks shared by the solvers: each raises IkInputError naming the bad value."""

import math
from typing import Tuple

import numpy as np

from two_bone_ik.solver.results import IkInputError

#: Largest coordinate or link length, metres, in absolute value, that the solvers accept. Within
#: it no intermediate result overflows (squares and products of two or three such values stay
#: below 1.8e308); anything larger raises IkInputError.
MAX_MAGNITUDE = 1e100

#: Largest finite joint limit, radians, in absolute value (about 15 900 turns). Angles are
#: moved into the limits by whole turns; up to 1e5 rad that keeps them within about 1e-11 rad,
#: so the tip within 1e-9 (l1 + l2) of an exact solution. -inf and inf mean unlimited.
MAX_JOINT_LIMIT = 1e5


def _check_finite(name: str, value: float) -> None:
    if not math.isfinite(value):
        raise IkInputError(f'{name} must be finite, got {float(value)!r}')


def _show(value: float) -> str:
    """Shortest exact text of a float: ``-1e+308`` rather than ``-1e308`` or 18 digits."""
    short = f'{value:g}'
    return short if float(short) == value else repr(float(value))


def check_magnitude(name: str, value: float) -> None:
    """Raise IkInputError if ``value`` (m, finite) is beyond MAX_MAGNITUDE."""
    if not -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:
        raise IkInputError(f'{name} is too large to solve exactly: {_show(value)} m '
                           f'(limit {_show(MAX_MAGNITUDE)} m)')


def _check_length(name: str, length: float) -> None:
    _check_finite(name, length)
    if length < 0.0:
        raise IkInputError(f'{name} must be non-negative, got {float(length)!r} m')
    check_magnitude(name, length)


def check_inputs(x: float, y: float, l1: float, l2: float) -> None:
    """Raise IkInputError naming the first bad value among the target and the lengths.

    Each coordinate must be finite and within MAX_MAGNITUDE; each length also non-negative.
    """
    for name, value in (('x', x), ('y', y)):
        _check_finite(name, value)
        check_magnitude(name, value)
    _check_length('l1', l1)
    _check_length('l2', l2)


def check_limits(limits, count: int = 2) -> Tuple[Tuple[float, float], ...]:
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
        if lo == math.inf:
            raise IkInputError(f'joint {joint} lower limit must be finite or -inf, got inf')
        if hi == -math.inf:
            raise IkInputError(f'joint {joint} upper limit must be finite or inf, got -inf')
        for side, value, open_side in (('lower', lo, '-inf'), ('upper', hi, 'inf')):
            if math.isfinite(value) and not -MAX_JOINT_LIMIT <= value <= MAX_JOINT_LIMIT:
                raise IkInputError(
                    f'joint {joint} {side} limit {_show(value)} rad is beyond the supported '
                    f'+-{MAX_JOINT_LIMIT:.0e} rad (use {open_side} for an unlimited side)')
        if lo > hi:
            raise IkInputError(
                f'joint {joint} lower limit {lo!r} rad is above upper limit {hi!r} rad')
    return pairs


def check_previous(previous) -> Tuple[float, float]:
    """Return the previous configuration (q1, q2), radians, as two finite floats, or raise."""
    try:
        p1, p2 = (float(value) for value in previous)
    except (TypeError, ValueError) as exc:
        raise IkInputError(
            f'previous must be two angles (q1, q2) in radians, got {previous!r}') from exc
    _check_finite('previous q1', p1)
    _check_finite('previous q2', p2)
    return p1, p2


def check_elbow(elbow: str) -> None:
    """Raise IkInputError unless ``elbow`` is 'up', 'down' or 'nearest'."""
    if elbow not in ('up', 'down', 'nearest'):
        raise IkInputError(f"elbow must be 'up', 'down' or 'nearest', got {elbow!r}")


def check_batch_inputs(xy, l1, l2, previous):
    """Return xy (n, 2), l1, l2 and previous (n, 2) or None as floats, or raise."""
    xy = np.asarray(xy, dtype=float)
    if xy.ndim != 2 or xy.shape[1] != 2:
        raise IkInputError(f'xy must have shape (n, 2), got {xy.shape}')
    l1, l2 = float(l1), float(l2)
    _check_length('l1', l1)
    _check_length('l2', l2)
    # min and max pass NaN on, so one test of each finds every non-finite or too large value.
    if xy.size and not (xy.min() >= -MAX_MAGNITUDE and xy.max() <= MAX_MAGNITUDE):
        row, col = np.argwhere(~(np.abs(xy) <= MAX_MAGNITUDE))[0]
        _check_finite(f'xy[{row}, {col}]', float(xy[row, col]))
        check_magnitude(f'xy[{row}, {col}]', float(xy[row, col]))
    if previous is not None:
        previous = np.asarray(previous, dtype=float)
        if previous.shape != xy.shape:
            raise IkInputError(f'previous must have shape {xy.shape}, got {previous.shape}')
        if not np.isfinite(previous).all():
            row, col = np.argwhere(~np.isfinite(previous))[0]
            raise IkInputError(
                f'previous[{row}, {col}] must be finite, got {float(previous[row, col])!r}')
    return xy, l1, l2, previous
