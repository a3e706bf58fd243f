"""The pieces of a desktop solution the solver passes around, and small helpers on them.

:class:`PlanePose` is the in-plane part of a pose (the pair, the pitch, what decided it),
:class:`Facing` the yaw and the target in the arm's plane, :class:`Attempt` one class of the
preference order's pose (:class:`~two_bone_ik.solver.desktop.DesktopSolver`). Math only.
"""

import math
from typing import NamedTuple, Optional

from two_bone_ik.solver.desktop_model import ToolAtRoll
from two_bone_ik.solver.desktop_results import DesktopStatus, SIDE_TOLERANCE

_TAU = 2.0 * math.pi

#: The other elbow branch.
OTHER_ELBOW = {'up': 'down', 'down': 'up'}


class PlanePose(NamedTuple):
    """The in-plane part of a solution: pair angles, pitch reading, outcome."""

    q1: float
    q2: float
    pitch: Optional[float]
    status: DesktopStatus
    elbow: str
    phi: float
    tool_u: float  # commanded tool point from the shoulder, m
    tool_v: float
    fixed: Optional[int] = None  # the joint the pitch's boundary holds; None: the wanted pitch


class Facing(NamedTuple):
    """The yaw and the target in the arm's plane."""

    reading: Optional[float]
    yaw: float
    u: float  # target from O along the turned forward axis, m
    v: float  # target from O along up, m
    off: float  # target's offset from the arm's plane, m
    status: Optional[DesktopStatus]


class Attempt(NamedTuple):
    """One class's pose: the yaw, the plane, the roll and its tool; back; roll moved."""

    facing: Facing
    plane: PlanePose
    roll: float
    tool: ToolAtRoll
    back: bool
    moved: bool
    corrected: Optional[tuple] = None  # the quick correction's result, when already run


def pitch_angle(phi: float) -> float:
    """``phi`` by whole turns into (-pi, pi], rad."""
    wrapped = math.remainder(phi, _TAU)
    return math.pi if wrapped == -math.pi else wrapped


def branch_of(previous_q) -> str:
    """Return the last command's elbow side (solver angles): down when q2 wraps into (0, pi)."""
    if previous_q is not None and 0.0 < math.remainder(previous_q[1], _TAU) < math.pi:
        return 'down'
    return 'up'


def on_side(q2: float, branch: str) -> bool:
    """Return whether a pose with elbow angle q2 (rad) is on the branch.

    A straight or folded one (to 1e-6 rad: its sign is rounding) is on both.
    """
    wrapped = math.remainder(q2, _TAU)
    if abs(wrapped) <= SIDE_TOLERANCE or math.pi - abs(wrapped) <= SIDE_TOLERANCE:
        return True
    return (wrapped < 0.0) == (branch == 'up')


def tie_key(item, wanted, reference, branches):
    """Sort key among equally near feasible pitches: nearest the last command, else above."""
    _, phi, branch, _, _ = item
    if reference is not None:
        return (abs(math.remainder(phi - reference, _TAU)), branches.index(branch))
    return (-math.remainder(phi - wanted, _TAU), branches.index(branch))


def branch_status(branch: str, preferred: str) -> DesktopStatus:
    return DesktopStatus.REACHED if branch == preferred else DesktopStatus.ELBOW_FLIPPED
