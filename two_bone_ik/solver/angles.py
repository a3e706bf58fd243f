"""Angle wrapping: one helper for floats and its twin for arrays."""

import math

import numpy as np

_TWO_PI = 2.0 * math.pi
_PI = math.pi


def wrap_angle(angle: float) -> float:
    """Wrap an angle by whole turns into [-pi, pi].

    Parameters
    ----------
    angle : float
        Angle, radians, finite.

    Returns
    -------
    float
        ``angle`` plus a whole number of turns, in [-pi, pi], radians. Angles already in
        [-pi, pi] come back unchanged; an odd multiple of pi comes back as pi with the sign of
        ``angle``. Exact: the remainder is computed without rounding.

    Raises
    ------
    ValueError
        If ``angle`` is infinite (NaN comes back as NaN).
    """
    wrapped = math.fmod(angle, _TWO_PI)
    if wrapped > _PI:
        return wrapped - _TWO_PI
    if wrapped < -_PI:
        return wrapped + _TWO_PI
    return wrapped


def wrap_angles(angles) -> np.ndarray:
    """Wrap angles by whole turns into [-pi, pi], element by element; see :func:`wrap_angle`.

    Parameters
    ----------
    angles : array-like, any shape
        Angles, radians, finite.

    Returns
    -------
    ndarray, same shape, float
        Each angle plus a whole number of turns, in [-pi, pi], radians; equal to
        :func:`wrap_angle` of each element (NaN where an angle is NaN or infinite).

    Raises
    ------
    ValueError
        If ``angles`` cannot be converted to floats (infinite and NaN angles give NaN).
    """
    wrapped = np.array(angles, dtype=float)
    np.fmod(wrapped, _TWO_PI, out=wrapped)
    wrapped -= (wrapped > _PI) * _TWO_PI
    wrapped += (wrapped < -_PI) * _TWO_PI
    return wrapped
