"""Vectorised closed-form inverse kinematics over many targets."""

import math

import numpy as np

from two_bone_ik.solver.angles import wrap_angles
from two_bone_ik.solver.closest_pose_batch import solve_batch_within_limits
from two_bone_ik.solver.forward_kinematics import forward_array
from two_bone_ik.solver.limits import as_joint_limits
from two_bone_ik.solver.results import IkBatchSolution, IkStatus, REACH_TOLERANCE
from two_bone_ik.solver.validation import check_batch_inputs, check_elbow


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
    limits : JointLimits or sequence of two (lower, upper) pairs, optional
        Joint limits in radians, as in :func:`solve`.
    allow_elbow_flip : bool
        As in :func:`solve`.
    previous : array-like, shape (n, 2), optional
        Previous configuration (q1, q2) per target, radians, finite, as in :func:`solve`: row
        i's picks the whole-turn representatives of row i's angles.

    Returns
    -------
    IkBatchSolution
        Angles, statuses, reachability, tips and errors, one row per target. Angles are in
        [-pi, pi] for unlimited joints; with limits, the representatives :func:`solve` returns.
        (The batch reports no elbow branch: it is that of each row's q2, wrapped into [-pi, pi],
        as in :func:`solve`.)

    Raises
    ------
    IkInputError
        If ``xy`` has the wrong shape, or a value of ``xy`` or a length is NaN, infinite or
        beyond :data:`MAX_MAGNITUDE` (1e100 m) in absolute value (the message names the row and
        column), a length is negative, ``elbow`` is unknown, a lower limit is above its upper
        limit, or a finite limit is beyond :data:`MAX_JOINT_LIMIT` (1e5 rad).
    """
    xy, l1, l2, previous = check_batch_inputs(xy, l1, l2, previous)
    check_elbow(elbow)
    if limits is not None:
        limits = as_joint_limits(limits)
    x = np.ascontiguousarray(xy[:, 0])  # contiguous columns vectorise better
    y = np.ascontiguousarray(xy[:, 1])
    r = _radius(x, y)
    rc, status, a, b, adjacent = _closed_form_terms(r, l1, l2)
    at_origin = np.flatnonzero(r == 0.0)
    phi = None
    if limits is not None or (elbow == 'nearest' and previous is not None):
        phi = np.arctan2(y, x)
        if at_origin.size:
            phi[at_origin] = _origin_q1(previous, at_origin)
    sign, sab = _branches(elbow, phi, a, b, adjacent, previous)
    # As in solve: the target's direction turned back by the shoulder offset, one rotation.
    q1 = np.arctan2(y * adjacent - x * sab, x * adjacent + y * sab)
    if at_origin.size:
        q1[at_origin] = _origin_q1(previous, at_origin)
    q2 = np.arctan2(a, b)
    q2 *= 2.0 * sign
    q2 += 0.0

    # The closed-form pose's tip lies on the target's ray at radius rc.
    if at_origin.size:
        scale = np.divide(rc, r, out=np.zeros_like(r), where=r != 0.0)
    else:
        scale = np.divide(rc, r)
    tip = xy * scale[:, None]
    error = np.abs(r - rc)
    if at_origin.size:
        tip[at_origin] = forward_array(q1[at_origin], q2[at_origin], l1, l2)
    if limits is not None:
        q1, q2 = solve_batch_within_limits(
            x, y, l1, l2, r, phi, q1, q2, np.broadcast_to(sab, r.shape), adjacent, sign, status,
            tip, error, limits, allow_elbow_flip, previous)
    reachable = (status == IkStatus.REACHED) | (status == IkStatus.ELBOW_FLIPPED)
    return IkBatchSolution(np.stack((q1, q2), axis=1), status, reachable, tip, error)


def _closed_form_terms(r: np.ndarray, l1: float, l2: float):
    """Return the closed form's terms for targets at distances ``r`` (m, shape (n,)), as solve.

    Returns ``(rc, status, a, b, adjacent)``: the tips' distances clamped into the workspace
    annulus (m), the reach statuses (int8), and a, b, adjacent, the half-angle terms and the
    shoulder offset's adjacent side (see :func:`~two_bone_ik.solver.solve`'s Notes), computed
    in place where possible.
    """
    s = l1 + l2
    d = abs(l1 - l2)
    slack = REACH_TOLERANCE * s
    rc = np.minimum(np.maximum(r, d), s)
    outside = r > s
    inside = r < d
    status = np.zeros(r.shape, dtype=np.int8)
    status[outside & (r - s > slack)] = IkStatus.OUT_OF_REACH
    status[inside & (d - r > slack)] = IkStatus.INSIDE_INNER
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
    if l1 > 0.0:
        adjacent = rc - l2
        adjacent *= rc + l2
        adjacent += l1 * l1
    else:
        adjacent = np.ones_like(rc)
    if outside.any() or inside.any():
        # As in solve: stretched or folded, a or b is set and only adjacent's sign counts.
        a[outside] = 0.0
        b[outside] = 2.0 * math.sqrt(l1 * l2)
        a[inside] = 2.0 * math.sqrt(l1 * l2)
        b[inside] = 0.0
        adjacent[outside] = 1.0
        adjacent[inside] = -1.0 if 0.0 < l1 < l2 else 1.0
    return rc, status, a, b, adjacent


def _origin_q1(previous, rows) -> np.ndarray:
    """q1 (rad) for targets at the origin: the previous one wrapped, else 0, as in solve."""
    return 0.0 if previous is None else wrap_angles(previous[rows, 0])


def _branches(elbow: str, phi, a, b, adjacent, previous):
    """Return the branch per target, as solve picks it: ``(sign, sab)``, sign -1 up, +1 down.

    ``sign`` is a float, or an array for ``'nearest'`` with ``previous`` (the branch closest
    to each row's previous pose); ``sab`` is sign * a * b per target.
    """
    ab = a * b
    if elbow == 'nearest' and previous is not None:
        offset = np.arctan2(ab, adjacent)
        q2_abs = 2.0 * np.arctan2(a, b)
        cost_up = (wrap_angles(phi + offset - previous[:, 0]) ** 2
                   + wrap_angles(-q2_abs - previous[:, 1]) ** 2)
        cost_down = (wrap_angles(phi - offset - previous[:, 0]) ** 2
                     + wrap_angles(q2_abs - previous[:, 1]) ** 2)
        sign = np.where(cost_up <= cost_down, -1.0, 1.0)
        return sign, sign * ab
    sign = 1.0 if elbow == 'down' else -1.0
    return sign, ab if sign > 0.0 else -ab


def _radius(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Distances (m) of points from the origin, as :func:`solve` computes them.

    ``sqrt(x^2 + y^2)``: exact to rounding and several times faster than np.hypot, unless the
    squares underflow (they cannot overflow within MAX_MAGNITUDE); below 1e-150 m np.hypot.
    """
    with np.errstate(under='ignore'):
        r = x * x
        r += y * y
    np.sqrt(r, out=r)
    tiny = np.flatnonzero(r < 1e-150)
    if tiny.size:
        r[tiny] = np.hypot(x[tiny], y[tiny])
    return r
