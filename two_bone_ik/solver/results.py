"""Result types, status codes and the input error of the solver."""

import enum
from typing import NamedTuple, Tuple

import numpy as np

#: Relative slack (times ``l1 + l2``) within which a target on the workspace boundary still
#: counts as reachable, so that ``solve(*forward(q1, 0.0, l1, l2), l1, l2)`` reports REACHED.
REACH_TOLERANCE = 1e-12


class IkInputError(ValueError):
    """Invalid input to the solver: the message names the offending value."""


class IkStatus(enum.IntEnum):
    """Outcome of a solve. The numbers are stable and will never be renumbered."""

    #: The tip reaches the target on the requested elbow branch.
    REACHED = 0
    #: The target is beyond ``l1 + l2``: the arm points straight at it.
    OUT_OF_REACH = 1
    #: The target is closer than ``|l1 - l2|``: the arm folds toward it.
    INSIDE_INNER = 2
    #: No exact solution fits the joint limits: the in-limits pose closest to the target.
    JOINT_LIMITED = 3
    #: The requested branch violated a limit; the other branch reaches the target.
    ELBOW_FLIPPED = 4


class IkSolution(NamedTuple):
    """Result of :func:`~two_bone_ik.solver.solve`.

    Attributes
    ----------
    q1, q2 : float
        Joint angles, radians.
    status : IkStatus
        What happened (see :class:`IkStatus`).
    reachable : bool
        True when the tip reaches the target (``error`` within tolerance).
    tip : tuple of float
        Tip position (u, v) of the returned pose, metres.
    error : float
        Distance from the tip to the target, metres.
    elbow : str
        Branch of the returned pose: ``'up'`` when q2 wrapped into [-pi, pi] is negative (the
        elbow on the +v side of the shoulder-to-tip line), ``'down'`` when positive; for a
        straight (q2 wrapped = 0) or exactly folded (+-pi) arm, the requested branch (after
        ``'nearest'`` has picked one). With limits q2 itself may lie outside [-pi, pi]: limits
        of [0, 2pi] return an elbow-up pose with q2 in (pi, 2pi).
    """

    q1: float
    q2: float
    status: IkStatus
    reachable: bool
    tip: Tuple[float, float]
    error: float
    elbow: str


class IkBatchSolution(NamedTuple):
    """Result of :func:`~two_bone_ik.solver.solve_batch`; row ``i`` is ``solve`` on target ``i``.

    Attributes
    ----------
    q : ndarray, shape (n, 2)
        Joint angles (q1, q2), radians.
    status : ndarray of int8, shape (n,)
        :class:`IkStatus` values.
    reachable : ndarray of bool, shape (n,)
        True where the tip reaches the target.
    tip : ndarray, shape (n, 2)
        Tip positions, metres.
    error : ndarray, shape (n,)
        Tip-to-target distances, metres.
    """

    q: np.ndarray
    status: np.ndarray
    reachable: np.ndarray
    tip: np.ndarray
    error: np.ndarray


class CcdSolution(NamedTuple):
    """Result of :func:`~two_bone_ik.solver.solve_ccd`.

    Attributes
    ----------
    angles : ndarray, shape (n,)
        Joint angles, each relative to the previous link, radians.
    tip : ndarray, shape (2,)
        Tip position of the returned pose, metres.
    iterations : int
        Number of full sweeps (last joint to first) performed.
    error : float
        Distance from the tip to the target, metres.
    converged : bool
        True when ``error <= tolerance``.
    """

    angles: np.ndarray
    tip: np.ndarray
    iterations: int
    error: float
    converged: bool
