"""Statuses, result types and tolerances of the desktop solver (math and numpy only)."""

import enum
import math
from typing import NamedTuple, Tuple

import numpy as np

#: Tool-point-to-target distance, relative to the reach, within which the target is reached.
ON_TARGET_TOLERANCE = 1e-9

#: Pitch difference (rad) within which the wanted pitch counts as kept.
PITCH_TOLERANCE = 1e-9

#: Two feasible pitches this close (rad) in distance to the wanted one tie.
TIE_TOLERANCE = 1e-12

#: An elbow angle this close (rad) to straight or folded is on both branches (its sign is
#: rounding: at full stretch or fold the elbow angle moves with the square root of it).
SIDE_TOLERANCE = 1e-6

#: Most Newton steps of the exactness correction (it converges quadratically: 2 to 4 suffice).
NEWTON_STEPS = 8

#: Most steps of the quick correction (the ideal arm's Jacobian, the real chain's tool point):
#: one usually puts the tool point within 1e-11 x reach of the target for axes 4e-6 rad off.
QUICK_STEPS = 2

#: The largest step (rad) between two pitches offered to ``accept`` in a feasible interval.
PITCH_STEP = math.pi / 90.0

#: Most Newton steps from a closest pose the real arm may still reach: such a target lies on
#: the workspace's boundary, where the arm is stretched or folded and Newton converges only
#: linearly.
NEWTON_STEPS_NEAR_SINGULAR = 40

#: A correction may move a joint by at most this times sqrt(model error / reach) rad (and so
#: may one Newton step: a trust region): what the ideal arm's error explains, near a fold too,
#: where joint angles move with the square root of a change of the tool point. A target that
#: needs more is not on the real arm near the ideal pose (e.g. off the plane of an arm without
#: a yaw), and the ideal pose stands.
MAX_CORRECTION = 10.0


class DesktopStatus(enum.IntEnum):
    """Outcome of a desktop solve. The numbers are the node's and never change."""

    REACHED = 0
    OUT_OF_REACH = 1
    INSIDE_INNER = 2
    JOINT_LIMITED = 3
    ELBOW_FLIPPED = 4
    OFF_PLANE = 10
    APPROACH_ADJUSTED = 14
    PROJECTED = 17


#: Statuses whose tool point is on the target.
ON_TARGET = frozenset({DesktopStatus.REACHED, DesktopStatus.ELBOW_FLIPPED,
                       DesktopStatus.APPROACH_ADJUSTED})


class DesktopSolution(NamedTuple):
    """Result of :meth:`DesktopSolver.solve`.

    Attributes
    ----------
    readings : tuple of float
        One per joint, in chain order, rad (the arm's own readings).
    status : DesktopStatus
    reachable : bool
        True when the commanded tool point is on the target (within 1e-9 x reach).
    tool : tuple of 3 float
        The commanded tool point, in the arm's base frame, m.
    error : float
        Its distance to the target, m.
    elbow : str
        ``'up'`` or ``'down'``: the side of the shoulder-to-wrist line the elbow is on, +v up.
    approach_pitch : float
        The commanded approach pitch, rad in (-pi, pi]; NaN for an arm without a pitch joint.
    asked_pitch : float
        The approach pitch asked (``approach_pitch``, or the orientation's), rad in (-pi, pi];
        NaN for an arm without a pitch joint.
    off_plane : float
        Signed distance of the target from the arm's plane as commanded (along its normal), m:
        0 whenever the yaw faces the target.
    distance : float
        Distance from the shoulder to the target in the arm's plane, m.
    orientation_error : float
        Angle between the asked and the commanded orientation, rad; NaN without one.
    yaw_branch : str
        ``'facing'`` (the yaw puts the target on the tool's side of the yaw axis) or ``'back'``
        (half a turn from it: the arm reaches back over the yaw axis).
    roll_moved : bool
        True when the roll left its held reading so that the tool point reaches the target
        (position only).
    accepted : bool
        False when ``accept`` refused every exact pose (this is then the most preferred one);
        True otherwise.
    """

    readings: Tuple[float, ...]
    status: DesktopStatus
    reachable: bool
    tool: Tuple[float, float, float]
    error: float
    elbow: str
    approach_pitch: float
    asked_pitch: float
    off_plane: float
    distance: float
    orientation_error: float
    yaw_branch: str = 'facing'
    roll_moved: bool = False
    accepted: bool = True


class DesktopBatchSolution(NamedTuple):
    """Result of :func:`solve_batch`; row ``i`` is ``solve`` on target ``i``.

    Attributes
    ----------
    readings : ndarray, shape (n, N)
        Joint readings, rad.
    status : ndarray of int8, shape (n,)
        :class:`~two_bone_ik.solver.desktop.DesktopStatus` values.
    reachable : ndarray of bool, shape (n,)
    tool : ndarray, shape (n, 3)
        Commanded tool points, m.
    error : ndarray, shape (n,)
        Tool-to-target distances, m.
    approach_pitch : ndarray, shape (n,)
        Commanded approach pitches, rad (NaN without a pitch joint).
    asked_pitch : ndarray, shape (n,)
        The pitches asked, rad (NaN without a pitch joint).
    off_plane : ndarray, shape (n,)
        Targets' offsets from the commanded plane, m.
    orientation_error : ndarray, shape (n,)
        Rad; NaN without orientations.
    back : ndarray of bool, shape (n,)
        True where the arm reaches back over the yaw axis (``yaw_branch`` ``'back'``).
    roll_moved : ndarray of bool, shape (n,)
        True where the roll left its held reading.
    """

    readings: np.ndarray
    status: np.ndarray
    reachable: np.ndarray
    tool: np.ndarray
    error: np.ndarray
    approach_pitch: np.ndarray
    asked_pitch: np.ndarray
    off_plane: np.ndarray
    orientation_error: np.ndarray
    back: np.ndarray
    roll_moved: np.ndarray
