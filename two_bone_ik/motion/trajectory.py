"""What a planned motion is made of: samples, trajectory points, the error (no ROS, no Ruckig).

:class:`Sample` is the plan at one command time, :class:`TrajectoryPoint` a point for a
trajectory controller, :class:`MotionError` what planning raises when it cannot plan. Kept
apart from :mod:`two_bone_ik.motion.planner` so that code handling motions (the command
stream, the session, the node's message conversion) imports without Ruckig, which only arms
with motion limits need.
"""

from typing import NamedTuple, Tuple

Vector = Tuple[float, ...]


class MotionError(RuntimeError):
    """No motion could be planned (the message says why, in words)."""


class Sample(NamedTuple):
    """The plan at one command time.

    Attributes
    ----------
    time : float
        Plan time, s (a multiple of the command period).
    position, velocity, acceleration : tuple of float
        rad, rad/s, rad/s^2, one per joint.
    moving : bool
        Whether the motion goes on after this sample.
    """

    time: float
    position: Vector
    velocity: Vector
    acceleration: Vector
    moving: bool


class TrajectoryPoint(NamedTuple):
    """A point of a planned motion, for a joint_trajectory_controller (times from its start)."""

    time_from_start: float
    position: Vector
    velocity: Vector
    acceleration: Vector


def at_rest(position, time: float = 0.0) -> Sample:
    """Return a sample at rest at ``position`` (rad) at plan time ``time`` (s)."""
    position = tuple(float(p) for p in position)
    zeros = (0.0,) * len(position)
    return Sample(time, position, zeros, zeros, False)
