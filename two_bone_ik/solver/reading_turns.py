"""One joint reading into its limits by whole turns, or onto the nearer limit (math and numpy).

A revolute joint reads the same pose at ``value + 2 pi k`` for every whole number k. Of the
representatives inside ``[lower, upper]`` the one nearest a reference is taken (the previous
command; 0 without one), i.e. nearest the point of ``[lower, upper]`` closest to the reference,
as the planar solver does; an unlimited joint goes the short way from the reference (into
[-pi, pi] without one). A value within :data:`LIMIT_TOLERANCE` outside a limit is put on it.
"""

import math
from typing import Optional, Tuple

import numpy as np

from two_bone_ik.solver import LIMIT_TOLERANCE, wrap_angle, wrap_angles

_TAU = 2.0 * math.pi
_remainder = math.remainder


def fit_reading(value: float, lower: float, upper: float,
                reference: Optional[float] = None) -> Optional[float]:
    """Return ``value`` (rad) moved by whole turns into ``[lower, upper]``, or None.

    Parameters
    ----------
    value : float
        Reading, rad, finite.
    lower, upper : float
        Limits, rad; infinite where open.
    reference : float, optional
        The previous reading, rad: the representative nearest it is returned.

    Returns
    -------
    float or None
        None when no representative lies within the limits (plus tolerance).
    """
    if lower == -math.inf and upper == math.inf:
        if reference is None:
            return wrap_angle(value)
        return reference + math.remainder(value - reference, _TAU)
    anchor = 0.0 if reference is None else reference
    anchor = lower if anchor < lower else upper if anchor > upper else anchor
    best = anchor + math.remainder(value - anchor, _TAU)
    if best < lower - LIMIT_TOLERANCE:
        best += _TAU
    elif best > upper + LIMIT_TOLERANCE:
        best -= _TAU
    if best < lower - LIMIT_TOLERANCE or best > upper + LIMIT_TOLERANCE:
        return None
    return lower if best < lower else upper if best > upper else best


def limit_fit(lower: float, upper: float, reference: Optional[float] = None
              ) -> Optional[Tuple[float, float, float, float, float]]:
    """Return what :func:`fit_within` reads for a joint, or None for one open on both sides.

    ``(lower, upper, lower - LIMIT_TOLERANCE, upper + LIMIT_TOLERANCE, anchor)``, the anchor
    the reference (0 without one) brought into the limits: the terms :func:`fit_reading`
    computes for every value, once.
    """
    if lower == -math.inf and upper == math.inf:
        return None
    anchor = 0.0 if reference is None else reference
    anchor = lower if anchor < lower else upper if anchor > upper else anchor
    return (lower, upper, lower - LIMIT_TOLERANCE, upper + LIMIT_TOLERANCE, anchor)


def fit_within(value: float, fit: Tuple[float, float, float, float, float]
               ) -> Optional[float]:
    """:func:`fit_reading` of ``value`` (rad) with the terms of :func:`limit_fit`: the hot path.

    The same arithmetic, so the same result bit for bit (the tests compare the two).
    """
    lower, upper, below, above, anchor = fit
    best = anchor + _remainder(value - anchor, _TAU)
    if best < below:
        best += _TAU
    elif best > above:
        best -= _TAU
    if best < below or best > above:
        return None
    return lower if best < lower else upper if best > upper else best


def nearest_limit(value: float, lower: float, upper: float) -> float:
    """Return the limit (rad) nearest ``value`` modulo whole turns: where a clamped joint stops."""
    to_lower = abs(math.remainder(value - lower, _TAU))
    to_upper = abs(math.remainder(value - upper, _TAU))
    return lower if to_lower <= to_upper else upper


def fit_or_clamp(value: float, lower: float, upper: float,
                 reference: Optional[float] = None):
    """Return ``(reading, clamped)``: :func:`fit_reading`, else :func:`nearest_limit` and True."""
    fitted = fit_reading(value, lower, upper, reference)
    if fitted is None:
        return nearest_limit(value, lower, upper), True
    return fitted, False


def fit_readings(values: np.ndarray, lower: float, upper: float, reference=None):
    """Batch twin of :func:`fit_or_clamp`: readings (n,) rad, reference (n,) or None.

    Returns
    -------
    readings : ndarray, shape (n,)
    clamped : ndarray of bool, shape (n,)
        True where no whole-turn representative fits and the nearer limit is returned.
    """
    values = np.asarray(values, dtype=float)
    if lower == -math.inf and upper == math.inf:
        if reference is None:
            return wrap_angles(values), np.zeros(values.shape, dtype=bool)
        return reference + remainders(values - reference), np.zeros(values.shape, dtype=bool)
    anchor = np.zeros_like(values) if reference is None else np.asarray(reference, dtype=float)
    anchor = np.clip(anchor, lower, upper)
    best = anchor + remainders(values - anchor)
    best = np.where(best < lower - LIMIT_TOLERANCE, best + _TAU, best)
    best = np.where(best > upper + LIMIT_TOLERANCE, best - _TAU, best)
    clamped = (best < lower - LIMIT_TOLERANCE) | (best > upper + LIMIT_TOLERANCE)
    best = np.clip(best, lower, upper)
    rows = np.flatnonzero(clamped)  # (the nearer limit only where none fits)
    if rows.size:
        value = values.ravel()[rows]
        to_lower = np.abs(remainders(value - lower))
        to_upper = np.abs(remainders(value - upper))
        best = np.array(best)
        best.reshape(-1)[rows] = np.where(to_lower <= to_upper, lower, upper)
    return best, clamped


def remainders(values: np.ndarray) -> np.ndarray:
    """``math.remainder(value, 2 pi)`` element by element: into [-pi, pi], ties to even."""
    return np.asarray(values - _TAU * np.rint(values / _TAU), dtype=float)
