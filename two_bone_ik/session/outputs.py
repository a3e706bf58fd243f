"""What the arm session hands the node to publish and log (no ROS).

Plain tuples: the node turns each into its message (``JointState`` / ``Float64MultiArray`` for a
:class:`JointCommand`, ``JointTrajectory`` for a :class:`TrajectoryCommand`,
``DiagnosticStatus`` for a :class:`Report`, and for each arrival verdict the
:data:`MotionStatusReport` the session builds of it) and each :class:`LogLine` into a logger
call.
"""

import math
from typing import NamedTuple, Optional, Tuple

from two_bone_ik.motion.trajectory import TrajectoryPoint, Vector

Names = Tuple[str, ...]

#: One ``motion_status`` message: level 0/1/2, message, (key, value) pairs (see
#: :mod:`two_bone_ik.session.motion_status`).
MotionStatusReport = Tuple[int, str, Tuple[Tuple[str, str], ...]]


class JointCommand(NamedTuple):
    """One command for every command output (joint_commands, the position controller).

    Attributes
    ----------
    names : tuple of str
        The joints, in the arm's order.
    position : tuple of float
        rad, finite, within the joint limits.
    velocity : tuple of float or None
        rad/s of a streamed sample; None for a step (no velocity is published).
    """

    names: Names
    position: Vector
    velocity: Optional[Vector]


class TrajectoryCommand(NamedTuple):
    """A whole motion for a trajectory controller: start now, points at multiples of a period."""

    names: Names
    points: Tuple[TrajectoryPoint, ...]


class LogLine(NamedTuple):
    """A line for the node's logger: ``severity`` is ``'info'``, ``'warning'`` or ``'error'``."""

    severity: str
    text: str


class TargetAnswer(NamedTuple):
    """What one target changed.

    Attributes
    ----------
    result : TargetResult
        The outcome (status, readings, reachable, ...).
    command : JointCommand or None
        To publish now (a step, or a motion that is already at its goal).
    trajectory : TrajectoryCommand or None
        To send to the trajectory controller now.
    moving : bool
        Whether a planned motion is under way (or about to start) after this target.
    remaining : float
        Seconds until the arm is at rest on the command, as planned (an estimate when the
        motion is planned at the next command period, see :mod:`two_bone_ik.session`).
    wake : bool
        Whether the pacer must run (a motion to stream).
    logs : tuple of LogLine
        Lines to log (already throttled).
    motion : tuple of Verdict
        What to publish on ``motion_status`` (the new command's ``MOVING``): verdicts of
        :mod:`two_bone_ik.session.arrival`, which ``ArmSession.motion_status`` turns into a
        :data:`MotionStatusReport`.
    detail : str
        What the status alone does not say: where a motion fails, what a pose would touch
        ('' when nothing).
    """

    result: object
    command: Optional[JointCommand]
    trajectory: Optional[TrajectoryCommand]
    moving: bool
    remaining: float
    wake: bool
    logs: Tuple[LogLine, ...]
    motion: tuple = ()
    detail: str = ''


class Tick(NamedTuple):
    """What one command period of a streamed motion publishes.

    Attributes
    ----------
    command : JointCommand or None
        The sample for this period (None: nothing is streaming).
    trajectory : TrajectoryCommand or None
        A motion that started with this period, for the trajectory controller.
    more : bool
        Whether more periods follow.
    period : float
        The command period in force, s.
    logs : tuple of LogLine
        Lines to log.
    time : float
        Plan time of the sample, s (a whole number of periods); NaN without a sample.
    motion : tuple of Verdict
        What to publish on ``motion_status`` (a verdict about the command followed).
    """

    command: Optional[JointCommand]
    trajectory: Optional[TrajectoryCommand]
    more: bool
    period: float
    logs: Tuple[LogLine, ...]
    time: float = math.nan
    motion: tuple = ()


class StopAnswer(NamedTuple):
    """What ``~/stop`` did: the reply, a braking motion, whether to stream, its ``MOVING``.

    ``motion`` holds the ``MOVING`` verdict of the braking end, the command followed now.
    """

    message: str
    trajectory: Optional[TrajectoryCommand]
    wake: bool
    motion: tuple = ()


class Report(NamedTuple):
    """One ``/diagnostics`` status: level 0/1/2, name suffix, message, (key, value) pairs."""

    level: int
    name: str
    message: str
    values: Tuple[Tuple[str, str], ...]
