"""A slow, obvious reference for solve with joint limits: the rules, then sampling and descent.

Written for clarity, not speed, to check the fast search of ``two_bone_ik.solver.closest_pose``
(which scores the box's edges in closed form) against something that shares none of its
geometry. It uses only the unconstrained closed form (``solve`` without limits, checked on its
own by test_solver_closed_form) for the exact poses, and its own forward kinematics.

The rules of solve with limits, as the docs state them:

1. The closed-form pose on the requested branch, if both angles fit the limits by whole turns
   (to LIMIT_TOLERANCE): its status (REACHED, OUT_OF_REACH or INSIDE_INNER).
2. Else, for a target reached exactly with a second branch (the closed form's arm neither
   straight nor folded, so not at the origin): the other branch's pose if it fits,
   ELBOW_FLIPPED with allow_elbow_flip; without it only when no pose on the requested elbow
   side fits the limits at all (then REACHED).
3. Else the in-limits pose closest to the target (on the requested side without the flip, if
   that side has any pose in the limits): JOINT_LIMITED, or REACHED if that pose reaches it.

The closest pose is found by brute force: a dense grid over the box of limits (one turn for a
joint with a turn or more), then compass search (a step along each joint's axis or a diagonal
either way, halved when no step helps) from the best grid points and the box's corners,
clamped to the limits.
"""

import cmath
import math
from typing import NamedTuple

import numpy as np

from two_bone_ik.solver import IkStatus, LIMIT_TOLERANCE, REACH_TOLERANCE, solve

TWO_PI = 2.0 * math.pi


class Reference(NamedTuple):
    """What the reference finds: the status, and a pose (rad) with its tip's distance (m)."""

    status: IkStatus
    distance: float
    q1: float
    q2: float


def tip_at(q1, q2, l1, l2):
    """Return the tip (u, v), metres, of the arm at q1, q2 (rad): links as complex numbers."""
    end = cmath.rect(l1, q1) + cmath.rect(l2, q1 + q2)
    return end.real, end.imag


def distance_at(q1, q2, l1, l2, x, y):
    """Return the distance (m) from the tip at q1, q2 (rad) to the target (x, y) (m)."""
    u, v = tip_at(q1, q2, l1, l2)
    return math.hypot(u - x, v - y)


def fits(q, lo, hi):
    """Tell whether some whole-turn representative of q lies in [lo, hi] (to LIMIT_TOLERANCE)."""
    if hi - lo >= TWO_PI:
        return True
    lowest = q + TWO_PI * math.ceil((lo - LIMIT_TOLERANCE - q) / TWO_PI)
    return lowest <= hi + LIMIT_TOLERANCE


def side_intervals(lo, hi, side):
    """Return the intervals of elbow angles (rad) in [lo, hi] on one side.

    Side -1 (up) is q2 in [-pi, 0] modulo whole turns, +1 (down) [0, pi]; limits of a turn or
    more count as one turn, so the side itself. A limit short of the side by at most
    LIMIT_TOLERANCE gives the one angle on that limit.
    """
    if hi - lo >= TWO_PI:
        return [(-math.pi, 0.0)] if side < 0 else [(0.0, math.pi)]
    start = -math.pi if side < 0 else 0.0
    intervals = []
    k = math.floor((lo - start) / TWO_PI) - 1
    while start + TWO_PI * k <= hi + LIMIT_TOLERANCE:
        low, high = start + TWO_PI * k, start + TWO_PI * k + math.pi  # a copy of the side
        first, last = max(lo, low), min(hi, high)
        if first <= last:
            intervals.append((first, last))
        elif first - last <= LIMIT_TOLERANCE:
            point = hi if low > hi else lo
            intervals.append((point, point))
        k += 1
    return intervals


def joint_domain(lo, hi):
    """Return a joint's search range (rad) and whether it is periodic (a turn or more)."""
    if hi - lo >= TWO_PI:
        return (-math.pi, math.pi), True
    return (lo, hi), False


#: Most steps one descent takes: it ends well before on every case seen; the bound keeps a
#: cost that is flat up to rounding (a folded arm turning about the origin) from walking forever.
MAX_MOVES = 20000


def compass_descent(q1, q2, step, box, periodic, cost):
    """Walk from (q1, q2) (rad) to a local minimum of cost within the box by compass search.

    A step of ``step`` along either joint's axis or a diagonal, either way, is taken whenever it
    lowers the cost (the diagonals let it follow a valley along a corner of the box); when none
    does, the step is halved, down to 1e-15 rad. Steps are clamped to the box
    ``((lo1, hi1), (lo2, hi2))``, except along a periodic joint.
    """
    best = cost(q1, q2)
    moves = 0
    while step > 1e-15 and moves < MAX_MOVES:
        moved = False
        for d1, d2 in ((step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step),
                       (step, step), (-step, -step), (step, -step), (-step, step)):
            c1, c2 = q1 + d1, q2 + d2
            if not periodic[0]:
                c1 = min(max(c1, box[0][0]), box[0][1])
            if not periodic[1]:
                c2 = min(max(c2, box[1][0]), box[1][1])
            value = cost(c1, c2)
            if value < best * (1.0 - 1e-15) - 1e-300:  # a real gain, not rounding noise
                q1, q2, best, moved = c1, c2, value, True
                moves += 1
        if not moved:
            step *= 0.5
    return q1, q2


def closest_in_box(x, y, l1, l2, box, periodic, samples=121, starts=8):
    """Return the pose in the box closest to the target: the best grid points, then descent.

    Returns ``(distance, q1, q2)``, m and rad.
    """
    axes = [np.linspace(lo, hi, samples) for lo, hi in box]
    grid1, grid2 = np.meshgrid(*axes, indexing='ij')
    ends = l1 * np.exp(1j * grid1) + l2 * np.exp(1j * (grid1 + grid2))
    distances = np.abs(ends - complex(x, y)).ravel()

    def cost(q1, q2):  # squared: smooth also where the distance is zero
        u, v = tip_at(q1, q2, l1, l2)
        return (u - x) ** 2 + (v - y) ** 2

    step = max(hi - lo for lo, hi in box) / (samples - 1) or 1e-3
    # From the best grid points and from the box's corners: where the arm is folded or
    # stretched the distance is flat along the shoulder, and the grid's best points can all
    # lie on such a flat stretch while the closest pose hides, narrower than a grid step, in a
    # corner of the box.
    seeds = [(float(grid1.flat[index]), float(grid2.flat[index]))
             for index in np.argsort(distances, kind='stable')[:starts]]
    seeds += [(q1, q2) for q1 in box[0] for q2 in box[1]]
    found = []
    for seed in seeds:
        q1, q2 = compass_descent(*seed, step, box, periodic, cost)
        found.append((distance_at(q1, q2, l1, l2, x, y), q1, q2))
    return min(found)


def closest_in_limits(x, y, l1, l2, limits, side=None):
    """Return the in-limits pose closest to the target: ``(distance, q1, q2)``, m and rad.

    ``side`` -1 or +1 keeps to the elbow-up or elbow-down side.
    """
    (lo1, hi1), (lo2, hi2) = limits
    range1, periodic1 = joint_domain(lo1, hi1)
    if side is None:
        range2, periodic2 = joint_domain(lo2, hi2)
        boxes = [((range1, range2), (periodic1, periodic2))]
    else:
        boxes = [((range1, interval), (periodic1, False))
                 for interval in side_intervals(lo2, hi2, side)]
    return min(closest_in_box(x, y, l1, l2, box, periodic) for box, periodic in boxes)


def reference_solve(x, y, l1, l2, elbow, limits, allow_elbow_flip):
    """Return what solve(x, y, l1, l2, elbow, limits, allow_elbow_flip) must find, slowly.

    ``elbow`` 'up' or 'down'; ``limits`` two (lower, upper) pairs, radians.
    """
    (lo1, hi1), (lo2, hi2) = limits
    requested = solve(x, y, l1, l2, elbow=elbow)
    if fits(requested.q1, lo1, hi1) and fits(requested.q2, lo2, hi2):
        return Reference(requested.status, requested.error, requested.q1, requested.q2)
    side = -1 if elbow == 'up' else 1
    side_fits = bool(side_intervals(lo2, hi2, side))
    # A second branch unless the closed form's arm is straight or folded (so at the origin).
    second_branch = requested.status is IkStatus.REACHED and requested.q2 not in (
        0.0, math.pi, -math.pi)
    if second_branch and (allow_elbow_flip or not side_fits):
        other = solve(x, y, l1, l2, elbow='down' if elbow == 'up' else 'up')
        if fits(other.q1, lo1, hi1) and fits(other.q2, lo2, hi2):
            gap = distance_at(other.q1, other.q2, l1, l2, x, y)
            status = IkStatus.ELBOW_FLIPPED if allow_elbow_flip else IkStatus.REACHED
            return Reference(status, gap, other.q1, other.q2)
    keep_side = None if allow_elbow_flip or not side_fits else side
    gap, q1, q2 = closest_in_limits(x, y, l1, l2, limits, keep_side)
    reached = gap <= REACH_TOLERANCE * (l1 + l2)
    return Reference(IkStatus.REACHED if reached else IkStatus.JOINT_LIMITED, gap, q1, q2)


def random_limit_pair(rng):
    """Return random limits (rad) of one joint for the tests, from a numpy Generator.

    Open, half open, under a turn, up to 20 rad wide far from zero, or +-90 degrees.
    """
    kind = rng.random()
    if kind < 0.08:
        return (-math.inf, math.inf)
    if kind < 0.16:
        return (rng.uniform(-math.pi, math.pi), math.inf)
    if kind < 0.24:
        return (-math.inf, rng.uniform(-math.pi, math.pi))
    if kind < 0.34:
        lo = rng.uniform(-40.0, 40.0)
        return (lo, lo + rng.uniform(0.0, 20.0))
    if kind < 0.44:
        return (-math.pi / 2, math.pi / 2)
    lo = rng.uniform(-1.5 * math.pi, math.pi)
    return (lo, lo + rng.uniform(0.0, 1.9 * math.pi))
