"""Cyclic coordinate descent for a planar chain with any number of links."""

import math
from typing import Tuple

import numpy as np

from two_bone_ik.solver.angles import wrap_angle
from two_bone_ik.solver.limits import into_range
from two_bone_ik.solver.results import CcdSolution, IkInputError
from two_bone_ik.solver.validation import check_limits, check_magnitude


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
    limits : array-like, shape (n, 2), or JointLimits, optional
        (lower, upper) limit per joint, radians (a :class:`JointLimits` for two links); a joint
        turned past a limit stops at it. Of several whole-turn representatives inside a joint's
        limits, the one nearest its current angle.
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
        On NaN or infinite values, a coordinate or length beyond :data:`MAX_MAGNITUDE` (1e100 m)
        in absolute value, negative lengths, mismatched shapes, a lower limit above its upper
        limit, a finite limit beyond :data:`MAX_JOINT_LIMIT` (1e5 rad), or a non-positive
        tolerance.
    """
    target = np.asarray(target, dtype=float)
    lengths = np.asarray(lengths, dtype=float)
    angles = np.array(initial, dtype=float)
    if target.shape != (2,) or not np.isfinite(target).all():
        raise IkInputError(f'target must be 2 finite coordinates, got {target!r}')
    if lengths.ndim != 1 or lengths.size == 0 or not np.isfinite(lengths).all() \
            or (lengths < 0.0).any():
        raise IkInputError(f'lengths must be non-negative finite values, got {lengths!r}')
    for name, values in (('target', target), ('lengths', lengths)):
        for i, value in enumerate(values.tolist()):
            check_magnitude(f'{name}[{i}]', value)
    if angles.shape != lengths.shape or not np.isfinite(angles).all():
        raise IkInputError(f'initial must be {lengths.size} finite angles, got {angles!r}')
    if not (math.isfinite(tolerance) and tolerance > 0.0):
        raise IkInputError(f'tolerance must be positive and finite, got {tolerance!r} m')
    if max_iterations < 0:
        raise IkInputError(f'max_iterations must be >= 0, got {max_iterations!r}')
    bounds = None if limits is None else check_limits(limits, lengths.size)

    tx, ty = float(target[0]), float(target[1])
    link = lengths.tolist()
    q = angles.tolist()
    if bounds is not None:
        q = [_clamp_joint(value, lo, hi, value) for value, (lo, hi) in zip(q, bounds)]
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
                turn = _clamp_joint(q[j] + turn, lo, hi, q[j]) - q[j]
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
        q = [wrap_angle(value) for value in q]
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


def _clamp_joint(q: float, lo: float, hi: float, ref: float) -> float:
    """Angle (rad) moved into [lo, hi] by whole turns, else clamped to the nearer limit.

    Of several whole-turn representatives, the one nearest ``ref`` (rad).
    """
    moved = into_range(q, lo, hi, ref)
    if moved is not None:
        return moved
    above = wrap_angle(q - hi)
    below = wrap_angle(lo - q)
    return hi if abs(above) <= abs(below) else lo
