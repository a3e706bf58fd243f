"""Smooth stepping of joint angles toward a new solution."""

import math

import numpy as np

from two_bone_ik.solver.angles import wrap_angles
from two_bone_ik.solver.results import IkInputError


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
        delta = wrap_angles(delta)
    largest = float(np.max(np.abs(delta), initial=0.0))
    if largest <= max_step:
        return current + delta
    return current + delta * (max_step / largest)
