"""Commands in ros2_controllers' message formats, checked as the controllers check them (ROS-free).

The simulated arm takes the topics of two ros2_controllers controllers (Jazzy), so that whatever
drives a real arm through them drives the simulation the same way, and whatever they refuse the
simulation refuses too:

- ``<controller>/commands`` (``std_msgs/Float64MultiArray``) of a
  ``position_controllers/JointGroupPositionController``: ``data[i]`` is the position of joint i
  of the controller's ``joints``. The controller drops a message with a non-finite value; a
  message of the wrong length makes its update fail (on Jazzy the controller manager then
  deactivates the controller).
- ``<controller>/joint_trajectory`` (``trajectory_msgs/JointTrajectory``) of a
  ``joint_trajectory_controller/JointTrajectoryController`` with its default parameters
  (``allow_partial_joints_goal: false``, ``allow_nonzero_velocity_at_trajectory_end: false``,
  ``allow_integration_in_goal_trajectories: false``, a position command interface).

The functions here take the messages' fields as plain Python values and return the command in
the arm's joint order, or raise :class:`CommandRejected` saying what is wrong. Besides what the
controllers check, a trajectory with a NaN or infinite value is refused too (the trajectory
controller does not check, and would command it).
"""

import math
from typing import NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.sim.trajectory_follower import TrajectoryPoint

#: Largest final velocity the trajectory controller takes for zero (``float`` epsilon), rad/s.
ZERO_VELOCITY = 1.1920928955078125e-07


class CommandRejected(ValueError):
    """A command a controller refuses.

    Attributes
    ----------
    rule : str
        Which check failed, a stable name (e.g. ``'wrong_length'``), for throttling per kind.
    """

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule


def _joint_list(names: Sequence[str]) -> str:
    return ', '.join(names)


def _non_finite(values: Sequence[float]) -> Optional[int]:
    """Index of the first NaN or infinite value, or None."""
    for index, value in enumerate(values):
        if not math.isfinite(value):
            return index
    return None


def position_command(data: Sequence[float], joint_names: Sequence[str]) -> Tuple[float, ...]:
    """Check a ``Float64MultiArray`` position command; return it as a tuple, rad.

    Parameters
    ----------
    data : sequence of float
        The message's ``data``: one position per joint, in the order of ``joint_names``.
    joint_names : sequence of str
        The controller's (the arm's) joints.

    Raises
    ------
    CommandRejected
        ``'wrong_length'`` if ``data`` does not hold one value per joint (an empty message
        included), ``'non_finite'`` if a value is NaN or infinite.
    """
    values = tuple(float(v) for v in data)
    if len(values) != len(joint_names):
        raise CommandRejected(
            'wrong_length',
            f'expected {len(joint_names)} values (positions of {_joint_list(joint_names)}, in '
            f'that order), got {len(values)}')
    bad = _non_finite(values)
    if bad is not None:
        raise CommandRejected(
            'non_finite', f'data[{bad}] ({joint_names[bad]}) is {values[bad]!r}; every value '
            'must be finite')
    return values


class Trajectory(NamedTuple):
    """A checked joint trajectory in the arm's joint order.

    Attributes
    ----------
    points : tuple of TrajectoryPoint
        Reordered into the arm's joints.
    start_delay : float or None
        Seconds from reception to the trajectory's start (``header.stamp``); None to start at
        reception (a zero stamp).
    """

    points: Tuple[TrajectoryPoint, ...]
    start_delay: Optional[float]


def _check_names(names: Sequence[str], joint_names: Sequence[str]) -> None:
    if not names:
        raise CommandRejected('no_joint_names', 'joint_names is empty')
    unknown = [name for name in names if name not in joint_names]
    if unknown:
        raise CommandRejected(
            'unknown_joint', f'unknown joint(s) {_joint_list(unknown)} (the controller has '
            f'{_joint_list(joint_names)})')
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise CommandRejected('repeated_joint',
                              f'joint(s) {_joint_list(repeated)} named more than once')
    missing = [name for name in joint_names if name not in names]
    if missing:
        raise CommandRejected(
            'missing_joint', f'joint(s) {_joint_list(missing)} missing: every joint of the '
            'controller must be named (no partial goals)')


def _check_point(index: int, point: TrajectoryPoint, names: Sequence[str]) -> None:
    count = len(names)
    fields = (('positions', point.positions, False), ('velocities', point.velocities, True),
              ('accelerations', point.accelerations, True))
    for field, values, may_be_empty in fields:
        if may_be_empty and not values:
            continue
        if len(values) != count:
            raise CommandRejected(
                'wrong_length', f'point {index}: {len(values)} {field} for {count} joint_names')
    for field, values, _ in fields:
        bad = _non_finite(values)
        if bad is not None:
            raise CommandRejected(
                'non_finite', f'point {index}: {field} of {names[bad]} is {values[bad]!r}; '
                'every value must be finite')


def trajectory_command(names: Sequence[str], points: Sequence[TrajectoryPoint],
                       start_delay: Optional[float], joint_names: Sequence[str]) -> Trajectory:
    """Check a ``JointTrajectory``; return it in the arm's joint order.

    Parameters
    ----------
    names : sequence of str
        The message's ``joint_names``, in any order.
    points : sequence of TrajectoryPoint
        Its points, fields in the order of ``names``, ``time_from_start`` in seconds.
    start_delay : float or None
        Seconds from reception to ``header.stamp``, in the follower's time (negative for a
        stamp in the past); None for a zero stamp (start at reception).
    joint_names : sequence of str
        The controller's (the arm's) joints.

    Returns
    -------
    Trajectory

    Raises
    ------
    CommandRejected
        Whose ``rule`` is, in the order checked: ``'no_joint_names'``; ``'unknown_joint'``;
        ``'repeated_joint'``; ``'missing_joint'`` (every joint of the controller must be
        named); ``'no_points'``; ``'time_not_increasing'`` (``time_from_start`` must increase
        strictly from point to point); ``'wrong_length'`` (a point's positions, or its
        velocities or accelerations when given, not one per name); ``'non_finite'``;
        ``'effort'``; ``'nonzero_final_velocity'`` (a last point's velocity above
        :data:`ZERO_VELOCITY`); ``'ends_in_past'`` (a trajectory with a start time whose last
        point lies before reception).
    """
    names = [str(name) for name in names]
    _check_names(names, joint_names)
    if not points:
        raise CommandRejected('no_points', 'the trajectory has no points')
    for index in range(1, len(points)):
        before, after = points[index - 1].time_from_start, points[index].time_from_start
        if not after > before:
            raise CommandRejected(
                'time_not_increasing', f'time_from_start of points {index - 1} and {index} is '
                f'{before:.9g} s and {after:.9g} s: it must increase strictly')
    for index, point in enumerate(points):
        _check_point(index, point, names)
    efforts = [index for index, point in enumerate(points) if point.effort]
    if efforts:
        raise CommandRejected(
            'effort', f'point {efforts[0]} gives efforts: only a controller with an effort '
            'command interface takes them')
    last = points[-1]
    moving = [f'{name} {v:.6g} rad/s' for name, v in zip(names, last.velocities)
              if abs(v) > ZERO_VELOCITY]
    if moving:
        raise CommandRejected(
            'nonzero_final_velocity', f"the last point's velocities must be zero, got "
            f'{", ".join(moving)}')
    if start_delay is not None and start_delay + last.time_from_start < 0.0:
        raise CommandRejected(
            'ends_in_past', 'the trajectory ended (header.stamp plus the last time_from_start) '
            f'{-(start_delay + last.time_from_start):.6g} s before it arrived')
    order = [names.index(name) for name in joint_names]

    def reordered(values):
        return tuple(float(values[i]) for i in order) if values else ()
    arm_points = tuple(
        TrajectoryPoint(float(p.time_from_start), reordered(p.positions),
                        reordered(p.velocities), reordered(p.accelerations)) for p in points)
    return Trajectory(arm_points, None if start_delay is None else float(start_delay))
