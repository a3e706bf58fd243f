"""Closed-form inverse kinematics of a planar two-link arm: :func:`solve`."""

import math
from typing import Optional, Sequence, Tuple

from two_bone_ik.solver.angles import wrap_angle
from two_bone_ik.solver.closest_pose import solve_within_limits
from two_bone_ik.solver.forward_kinematics import forward
from two_bone_ik.solver.results import IkSolution, IkStatus, REACH_TOLERANCE
from two_bone_ik.solver.validation import check_elbow, check_inputs, check_previous

_REACHED = IkStatus.REACHED
_OUT_OF_REACH = IkStatus.OUT_OF_REACH
_INSIDE_INNER = IkStatus.INSIDE_INNER
# The scalar fast path looks these up as module globals rather than as attributes of math.
_tuple_new = tuple.__new__  # builds an IkSolution without the NamedTuple's Python-level __new__
_atan2 = math.atan2
_hypot = math.hypot
_sqrt = math.sqrt


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
        Requested branch: ``'up'`` puts the elbow on the +v side of the shoulder-to-target
        line (q2 wrapped into [-pi, pi] is ``<= 0``), ``'down'`` on the other. ``'nearest'``
        picks the branch closest to ``previous`` (``'up'`` when ``previous`` is None).
    limits : JointLimits or sequence of two (lower, upper) pairs, optional
        Joint limits in radians, ``((lo1, hi1), (lo2, hi2))``; ``-inf``/``inf`` for no limit on
        that side; a finite limit within :data:`MAX_JOINT_LIMIT` (1e5 rad). A
        :class:`JointLimits` is validated once; a tuple is validated on first use and cached,
        a list or array on every call. Angles are brought into range by whole turns where
        possible: of several whole-turn representatives inside the limits, the one nearest
        ``previous`` (nearest 0 without it), i.e. nearest the point of [lo, hi] closest to that
        reference (an open side counting as 1e5 rad); an unlimited joint (both sides infinite)
        gets an angle in [-pi, pi]. An angle within ``LIMIT_TOLERANCE`` (1e-10 rad) outside a
        limit is put on the limit.
    allow_elbow_flip : bool
        When the requested branch violates a limit, use the other branch if it fits
        (status ``ELBOW_FLIPPED``). When False, the result stays on the requested side
        whenever a pose on that side fits the limits; when none does at all, the limits win:
        the other branch's exact pose (``REACHED``, ``elbow`` naming that branch) or, if it
        breaks a limit too, the closest pose in the limits.
    previous : sequence of two float, optional
        Previous configuration (q1, q2) in radians, finite: used by ``'nearest'``, as q1 when
        the target is at the origin (where the direction is undefined), and with limits to
        pick the whole-turn representative of each angle.

    Returns
    -------
    IkSolution
        The joint angles and the outcome. Out of reach, the angles are the closest reachable
        pose (stretched toward the target outside, folded toward it inside the inner hole); with
        limits and no exact fit, the in-limits pose whose tip is closest to the target. Without
        limits both angles are in [-pi, pi]. ``elbow`` is the branch of the returned pose (by
        the sign of q2 wrapped into [-pi, pi]; the requested one for a straight or exactly
        folded arm).

    Raises
    ------
    IkInputError
        If a coordinate or length is NaN, infinite or beyond :data:`MAX_MAGNITUDE` (1e100 m) in
        absolute value, a length is negative, ``elbow`` is unknown, a lower limit is above its
        upper limit, or a finite limit is beyond :data:`MAX_JOINT_LIMIT` (1e5 rad).

    Notes
    -----
    With ``s = l1 + l2``, ``d = |l1 - l2|`` and ``rc`` the target's distance clamped into
    [d, s], the elbow angle comes from the half-angle form of the law of cosines,
    ``tan(|q2| / 2) = a / b`` with ``a^2 = (s - rc)(s + rc)`` and ``b^2 = (rc - d)(rc + d)``.
    It stays exact at full stretch (q2 = 0) and full fold (q2 = pi), where the arccos form loses
    half the digits. ``s - rc`` and ``rc - d`` are summed from the longer link outward, so a
    tiny link beside a long one keeps its digits. The shoulder angle is the target's direction
    turned back by the offset ``atan2(sign a b, adjacent)``, ``adjacent = rc^2 + l1^2 - l2^2``
    (``rc^2 - l2^2`` factored for the same reason), done as one rotation of (x, y): one atan2,
    no division and no wrapping. With l1 = 0 the offset is 0. Stretched (a = 0) or folded
    (b = 0) only the sign of ``adjacent`` counts: it is set exactly, as a short link below the
    rounding of a long one would lose it. With limits,
    :func:`~two_bone_ik.solver.closest_pose.solve_within_limits` finishes from this solution.
    """
    s = l1 + l2
    r = _sqrt(x * x + y * y)  # exact to rounding unless the squares underflow (or overflow)
    if r < 1e-150:
        r = _hypot(x, y)
    # Every value finite and within MAX_MAGNITUDE, lengths >= 0: this one test fails for every
    # bad input (NaN fails every comparison) and for a few good ones that check_inputs passes.
    if not (r + s <= 1e100 and l1 >= 0.0 and l2 >= 0.0):
        check_inputs(x, y, l1, l2)
    if previous is not None:
        previous = check_previous(previous)  # (q1, q2) as finite floats

    # Reach: the tip's radius rc is r clamped into the annulus [d, s]; tan(|q2| / 2) = a / b
    # and the shoulder offset is atan2(sign a b, adjacent) (see Notes).
    if l1 < l2:
        short, long = l1, l2
    else:
        short, long = l2, l1
    d = long - short
    if r > s:
        rc = s
        status = _REACHED if r - s <= REACH_TOLERANCE * s else _OUT_OF_REACH
        a = 0.0
        b = 2.0 * _sqrt(l1 * l2)
        adjacent = 1.0
    elif r < d:
        rc = d
        status = _REACHED if d - r <= REACH_TOLERANCE * s else _INSIDE_INNER
        a = 2.0 * _sqrt(l1 * l2)
        b = 0.0
        adjacent = -1.0 if 0.0 < l1 < l2 else 1.0  # the longer link points at the target
    else:
        rc = r
        status = _REACHED
        a = (long - r) + short
        b = (r - long) + short
        a = _sqrt(a * (s + r)) if a > 0.0 else 0.0
        b = _sqrt(b * (r + d)) if b > 0.0 else 0.0
        adjacent = (r - l2) * (r + l2) + l1 * l1 if l1 > 0.0 else 1.0
    # The branch: q2 below is in [-pi, pi] with the requested sign, or 0 or +-pi.
    if elbow == 'up':
        sign = -1.0
        branch = 'up'
    elif elbow == 'down':
        sign = 1.0
        branch = 'down'
    else:
        check_elbow(elbow)
        sign = _nearest_sign(x, y, r, a, b, adjacent, previous)
        branch = 'up' if sign < 0.0 else 'down'
    sab = sign * a * b
    if r > 0.0:
        q1 = _atan2(y * adjacent - x * sab, x * adjacent + y * sab)
    else:  # at the origin the direction is undefined: keep the previous shoulder angle
        q1 = 0.0 if previous is None else wrap_angle(previous[0])
    q2 = sign * 2.0 * _atan2(a, b) + 0.0  # + 0.0 turns -0.0 into 0.0

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
    solution = _tuple_new(IkSolution, (q1, q2, status, status is _REACHED, tip, error, branch))
    if limits is None:
        return solution
    return solve_within_limits(solution, x, y, r, rc, l1, l2, sab, adjacent, limits,
                               allow_elbow_flip, previous)


def pair_angles(x: float, y: float, l1: float, l2: float, sign: float
                ) -> Optional[Tuple[float, float]]:
    """Return :func:`solve`'s (q1, q2) on one branch when it says ``REACHED``, else None (rad).

    The hot path of the desktop solver: the same arithmetic as :func:`solve` without limits,
    so the same angles bit for bit (the tests compare the two), without its checks, its
    result type or the tip. ``sign`` is -1.0 for ``'up'``, 1.0 for ``'down'``. For checked
    inputs (finite, lengths >= 0) and a target off the origin (there ``previous`` decides q1:
    call :func:`solve`).
    """
    s = l1 + l2
    r = _sqrt(x * x + y * y)
    if r < 1e-150:
        r = _hypot(x, y)
    if l1 < l2:
        short, long = l1, l2
    else:
        short, long = l2, l1
    d = long - short
    if r > s:
        if not r - s <= REACH_TOLERANCE * s:
            return None
        a, b, adjacent = 0.0, 2.0 * _sqrt(l1 * l2), 1.0
    elif r < d:
        if not d - r <= REACH_TOLERANCE * s:
            return None
        a, b = 2.0 * _sqrt(l1 * l2), 0.0
        adjacent = -1.0 if 0.0 < l1 < l2 else 1.0
    else:
        a = (long - r) + short
        b = (r - long) + short
        a = _sqrt(a * (s + r)) if a > 0.0 else 0.0
        b = _sqrt(b * (r + d)) if b > 0.0 else 0.0
        adjacent = (r - l2) * (r + l2) + l1 * l1 if l1 > 0.0 else 1.0
    sab = sign * a * b
    return (_atan2(y * adjacent - x * sab, x * adjacent + y * sab),
            sign * 2.0 * _atan2(a, b) + 0.0)


def _nearest_sign(x: float, y: float, r: float, a: float, b: float, adjacent: float,
                  previous: Optional[Tuple[float, float]]) -> float:
    """Elbow sign (-1 up, +1 down) of the branch closest to ``previous`` (up without one).

    ``x, y`` is the target and ``r`` its distance (m), ``a, b, adjacent`` the closed form's
    terms, ``previous`` None or the checked (q1, q2), radians. At the origin the target's
    direction is taken to be the previous shoulder angle.
    """
    if previous is None:
        return -1.0
    p1, p2 = previous
    phi = math.atan2(y, x) if r > 0.0 else wrap_angle(p1)
    q2_abs = 2.0 * math.atan2(a, b)
    offset = math.atan2(a * b, adjacent)
    cost_up = wrap_angle(phi + offset - p1) ** 2 + wrap_angle(-q2_abs - p2) ** 2
    cost_down = wrap_angle(phi - offset - p1) ** 2 + wrap_angle(q2_abs - p2) ** 2
    return -1.0 if cost_up <= cost_down else 1.0
