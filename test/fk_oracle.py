"""Independent forward kinematics for the solver tests (numpy, not the solver's own forward).

Each joint is a rotation and each link a complex number: the tip of a planar chain is the sum
of ``length * exp(i * heading)``, the heading being the sum of the joint angles so far.
"""

import numpy as np


def chain_end(angles, lengths):
    """End (u, v), metres, of a planar chain: ndarray of shape (2,).

    ``angles`` (rad) are each relative to the previous link; ``lengths`` in metres.
    """
    heading = np.cumsum(np.asarray(angles, dtype=float))
    end = np.sum(np.asarray(lengths, dtype=float) * np.exp(1j * heading))
    return np.array((end.real, end.imag))


def arm_tips(q1, q2, l1, l2):
    """Tips (u, v), metres, of a two-link arm: two arrays of the broadcast shape of q1, q2."""
    q1 = np.asarray(q1, dtype=float)
    end = l1 * np.exp(1j * q1) + l2 * np.exp(1j * (q1 + np.asarray(q2, dtype=float)))
    return end.real, end.imag


def arm_tip(q1, q2, l1, l2):
    """Tip (u, v), metres, of a two-link arm at joint angles q1, q2 (rad): tuple of float."""
    u, v = arm_tips(q1, q2, l1, l2)
    return float(u), float(v)


def elbow_point(q1, l1):
    """Elbow (u, v), metres, for shoulder angle q1 (rad): tuple of float."""
    end = l1 * np.exp(1j * float(q1))
    return float(end.real), float(end.imag)


def tip_distance(q1, q2, l1, l2, x, y):
    """Distance (m) from the tip at angles q1, q2 (rad) to the target (x, y)."""
    u, v = arm_tip(q1, q2, l1, l2)
    return float(np.hypot(u - x, v - y))
