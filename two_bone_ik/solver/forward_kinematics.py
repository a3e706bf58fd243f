"""Forward kinematics of the planar two-link arm: tip and elbow of a pose, floats and arrays."""

import math
from typing import Tuple

import numpy as np


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


def forward_array(q1: np.ndarray, q2: np.ndarray, l1: float, l2: float) -> np.ndarray:
    """Tip positions, shape (n, 2), metres, for joint angles of shape (n,), radians.

    :func:`forward` for each pose, with the same arithmetic.
    """
    a12 = q1 + q2
    return np.stack((l1 * np.cos(q1) + l2 * np.cos(a12), l1 * np.sin(q1) + l2 * np.sin(a12)),
                    axis=1)


def elbow_position(q1: float, l1: float) -> Tuple[float, float]:
    """Elbow position (u, v) in metres for shoulder angle ``q1`` (rad) and link 1 length ``l1``."""
    return (l1 * math.cos(q1), l1 * math.sin(q1))
