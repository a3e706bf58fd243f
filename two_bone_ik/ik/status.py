"""Statuses the IK node reports per target: stable numbers, levels and categories.

ROS-free. ``NodeStatus`` extends the solver's :class:`~two_bone_ik.solver.IkStatus` (same
names, same numbers 0-4) with the outcomes only the node can see, and the desktop solver's
:class:`~two_bone_ik.solver.desktop_results.DesktopStatus` (``OFF_PLANE``,
``APPROACH_ADJUSTED``) under the same names and numbers. The numbers are published
(``ik_status`` value ``code``) and will never be renumbered; new statuses get new numbers.

``MotionStatus`` is what ``motion_status`` says about a command (did the arm get there), with
numbers from 20 on: never one of ``NodeStatus``'s, so a ``code`` names one outcome whichever
topic carries it.
"""

import enum

from two_bone_ik.solver import IkStatus
from two_bone_ik.solver.desktop_results import DesktopStatus

#: Diagnostic levels, equal to ``diagnostic_msgs/DiagnosticStatus`` OK, WARN and ERROR.
OK = 0
WARN = 1
ERROR = 2


class NodeStatus(enum.IntEnum):
    """Outcome of one target received by the node. Stable numbers."""

    #: The tip reaches the target on the configured elbow branch.
    REACHED = 0
    #: Beyond ``l1 + l2``: the closest pose (arm stretched toward the target) is commanded.
    OUT_OF_REACH = 1
    #: Closer than ``|l1 - l2|``: the closest pose (arm folded toward the target) is commanded.
    INSIDE_INNER = 2
    #: No exact solution within the joint limits: the in-limits pose closest to it is commanded.
    JOINT_LIMITED = 3
    #: Reached, but on the other elbow branch because the configured one hits a limit.
    ELBOW_FLIPPED = 4
    #: Further than ``out_of_plane_tolerance`` from the arm plane: its projection is commanded.
    OFF_PLANE = 10
    #: ``header.frame_id`` is neither empty nor ``base_frame``: rejected, nothing commanded.
    WRONG_FRAME = 11
    #: A coordinate is NaN or infinite, or the target is more than 1e100 m from the origin of
    #: ``base_frame`` (too far to solve exactly): rejected, nothing commanded.
    INVALID_TARGET = 12
    #: The arm comes from the robot_description topic and no usable description has arrived
    #: yet: rejected, nothing commanded.
    NO_ARM_DESCRIPTION = 13
    #: A desktop arm with ``use_orientation``: the tool point is on the target, but the asked
    #: approach pitch cannot reach it; the reachable pitch nearest it is commanded.
    APPROACH_ADJUSTED = 14
    #: Solved, but no motion to it could be planned within the motion limits (e.g. one that
    #: would last longer than the planner can represent), or the motion would touch the floor
    #: or a keep-out box, or its straight line cannot be followed: nothing new commanded.
    MOTION_FAILED = 15
    #: The target is below the floor or inside a keep-out box, or every exact pose the
    #: solver's preference allows (or its one closest pose) would put a link through one:
    #: nothing commanded.
    COLLISION = 16
    #: Off the arm's plane, but within ``out_of_plane_tolerance`` of it: the target's
    #: projection onto the plane is reached exactly (the tip is the target's off-plane distance
    #: from it, so ``reachable`` is false); beyond the tolerance it is ``OFF_PLANE``.
    PROJECTED = 17


#: Diagnostic level of each status.
LEVELS = {
    NodeStatus.REACHED: OK,
    NodeStatus.OUT_OF_REACH: WARN,
    NodeStatus.INSIDE_INNER: WARN,
    NodeStatus.JOINT_LIMITED: WARN,
    NodeStatus.ELBOW_FLIPPED: WARN,
    NodeStatus.OFF_PLANE: WARN,
    NodeStatus.WRONG_FRAME: ERROR,
    NodeStatus.INVALID_TARGET: ERROR,
    NodeStatus.NO_ARM_DESCRIPTION: ERROR,
    NodeStatus.APPROACH_ADJUSTED: WARN,
    NodeStatus.MOTION_FAILED: ERROR,
    NodeStatus.COLLISION: ERROR,
    NodeStatus.PROJECTED: WARN,
}

#: Statuses whose target is rejected: no joint command is published.
REJECTED = frozenset({NodeStatus.WRONG_FRAME, NodeStatus.INVALID_TARGET,
                      NodeStatus.NO_ARM_DESCRIPTION, NodeStatus.MOTION_FAILED,
                      NodeStatus.COLLISION})

#: Statuses whose target is solved exactly (a command that puts the tip on the target).
SOLVED = frozenset({NodeStatus.REACHED, NodeStatus.ELBOW_FLIPPED, NodeStatus.APPROACH_ADJUSTED})

#: Statuses whose command is the closest pose to a target the arm cannot reach exactly.
CLAMPED = frozenset(set(NodeStatus) - REJECTED - SOLVED)

#: The node status for each solver status.
FROM_IK_STATUS = {status: NodeStatus[status.name] for status in IkStatus}

#: The node status for each desktop solver status.
FROM_DESKTOP_STATUS = {status: NodeStatus[status.name] for status in DesktopStatus}


def category(status: NodeStatus) -> str:
    """Return ``'solved'``, ``'clamped'`` or ``'rejected'`` for a status."""
    if status in SOLVED:
        return 'solved'
    if status in REJECTED:
        return 'rejected'
    return 'clamped'


class MotionStatus(enum.IntEnum):
    """What ``motion_status`` says about one command: did the arm get there. Stable numbers."""

    #: A motion toward a command started (one per command).
    MOVING = 20
    #: The measured readings came within ``goal_tolerance`` of the final command.
    ARRIVED = 21
    #: During the motion a joint lagged its streamed command by more than ``path_tolerance``,
    #: or no ``joint_states`` came for a commanded joint for ``state_timeout``: the node stopped
    #: streaming and holds where the arm is.
    NOT_FOLLOWING = 22
    #: Not within ``goal_tolerance`` ``goal_time`` seconds after the command's end.
    GOAL_MISSED = 23
    #: Nobody publishes ``joint_states`` for the commanded joints: arrival unknown (the
    #: command went out).
    NOT_MONITORED = 24


#: Diagnostic level of each motion status.
MOTION_LEVELS = {
    MotionStatus.MOVING: OK,
    MotionStatus.ARRIVED: OK,
    MotionStatus.NOT_FOLLOWING: ERROR,
    MotionStatus.GOAL_MISSED: ERROR,
    MotionStatus.NOT_MONITORED: WARN,
}

#: Motion statuses that end the monitoring of their command (all but MOVING).
MOTION_FINAL = frozenset(set(MotionStatus) - {MotionStatus.MOVING})
