"""Limit-respecting motion toward each new IK solution, streamed in plan time (no ROS).

:class:`MotionPlanner` plans, with Ruckig (the trajectory generator MoveIt uses; PyPI
``ruckig``, MIT), a time-optimal motion from the current state to each new goal within the
velocity, acceleration and jerk limits, and hands out samples of it at multiples of one
command period (plan time, never wall-clock time). A new goal mid-motion is planned from the
state of the last sample (position, velocity, acceleration), so position, velocity and
acceleration stay continuous.

Ruckig's community version does not enforce position limits, so the planner does:

- a plan between two in-limit positions from rest never leaves them (each joint's profile from
  rest to rest is monotone);
- a plan from a moving state may overshoot (braking from speed toward a goal near a limit): its
  position extrema are checked, and if one leaves the limits the current motion is finished
  first (it stays inside, having been checked itself) and the new goal follows from rest;
- every sample is clamped into the limits as a last guard against rounding.

Continuous joints (unlimited) take the short way round: the goal is moved by whole turns to
within half a turn of the current position, and the stream stays continuous (never wrapped).
"""

import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

from ruckig import ControlInterface, InputParameter, Result, Ruckig, RuckigError
from ruckig import Synchronization, Trajectory

from two_bone_ik.motion.limits import MotionLimits

#: Slack (rad) within which a planned position extremum still counts as inside a limit.
POSITION_SLACK = 1e-9

_DOFS = 2

#: Limit factors Ruckig is tried with, in turn (see ``MotionPlanner._calculate``).
RETRY_SHRINK = (1.0, 1.0 - 1e-9, 1.0 - 1e-7)


class MotionError(RuntimeError):
    """Ruckig could not plan a motion (the message says why)."""


class Sample(NamedTuple):
    """The plan at one command time.

    Attributes
    ----------
    time : float
        Plan time, s (a multiple of the command period).
    position, velocity, acceleration : tuple of 2 float
        rad, rad/s, rad/s^2, per joint.
    moving : bool
        Whether the motion goes on after this sample.
    """

    time: float
    position: Tuple[float, float]
    velocity: Tuple[float, float]
    acceleration: Tuple[float, float]
    moving: bool


class TrajectoryPoint(NamedTuple):
    """A point of a planned motion, for a joint_trajectory_controller (times from its start)."""

    time_from_start: float
    position: Tuple[float, float]
    velocity: Tuple[float, float]
    acceleration: Tuple[float, float]


class MotionPlanner:
    """Plans and samples the commanded motion of a two-joint arm.

    Parameters
    ----------
    limits : MotionLimits
        Velocity, acceleration and jerk limits (at least one finite).
    position_limits : sequence of 2 (lower, upper) pairs
        Joint limits in readings, rad; infinite where unlimited.
    period : float
        Command period, s (1 / command rate).
    position : sequence of 2 float
        Where the arm is at start (at rest), rad.
    """

    def __init__(self, limits: MotionLimits, position_limits, period: float,
                 position: Sequence[float] = (0.0, 0.0)):
        self._limits = limits
        self._bounds = tuple((float(lo), float(hi)) for lo, hi in position_limits)
        self._continuous = tuple(lo == -math.inf and hi == math.inf for lo, hi in self._bounds)
        self._period = float(period)
        self._ruckig = Ruckig(_DOFS)
        self._tick = 0
        self._trajectory: Optional[Trajectory] = None
        self._goal: Optional[Tuple[float, float]] = None  # where the current motion ends
        self._start_tick = 0
        self._pending: Optional[Tuple[float, float]] = None
        self._state = self._rest(position)
        #: How many motions have started (a queued goal counts when it starts): a new value
        #: means a new trajectory to send.
        self.plans = 0

    # -- state ----------------------------------------------------------------------------------

    @staticmethod
    def _rest(position) -> Sample:
        return Sample(0.0, (float(position[0]), float(position[1])), (0.0, 0.0), (0.0, 0.0),
                      False)

    def reset(self, position: Sequence[float]) -> None:
        """Drop any motion: at rest at ``position`` (e.g. the measured one), rad."""
        self._trajectory = None
        self._goal = None
        self._pending = None
        self._state = self._rest(position)._replace(time=self.time)

    @property
    def time(self) -> float:
        """Plan time of the last sample, s."""
        return self._tick * self._period

    @property
    def period(self) -> float:
        """Command period, s."""
        return self._period

    @property
    def state(self) -> Sample:
        """The plan at the last sample time (what was last commanded)."""
        return self._state

    @property
    def moving(self) -> bool:
        """Whether a motion is under way (or queued)."""
        return self._state.moving or self._pending is not None

    def remaining(self) -> float:
        """Seconds of planned motion left after the last sample (a queued goal not counted)."""
        if self._trajectory is None:
            return 0.0
        elapsed = (self._tick - self._start_tick) * self._period
        return max(0.0, self._trajectory.duration - elapsed)

    def set_limits(self, limits: MotionLimits) -> None:
        """Use new motion limits from the next plan on."""
        self._limits = limits

    # -- planning -------------------------------------------------------------------------------

    def _input(self, goal=None) -> InputParameter:
        state = self._state
        inp = InputParameter(_DOFS)
        inp.current_position = list(state.position)
        inp.current_velocity = list(state.velocity)
        inp.current_acceleration = list(state.acceleration)
        inp.max_velocity = list(self._limits.velocity)
        inp.max_acceleration = list(self._limits.acceleration)
        inp.max_jerk = list(self._limits.jerk)
        if goal is not None:
            inp.target_position = list(goal)
            inp.target_velocity = [0.0, 0.0]
            inp.target_acceleration = [0.0, 0.0]
        return inp

    def _calculate(self, inp: InputParameter) -> Trajectory:
        """Plan with Ruckig, retrying with every limit a hair tighter on failure.

        Ruckig fails, rarely, exactly between two profile shapes (seen: a rest-to-rest move
        whose length sits on such a boundary to 1e-16); a hair tighter stays within the limits.
        """
        problem = ''
        for shrink in RETRY_SHRINK:
            trial = inp if shrink == 1.0 else self._shrunk(inp, shrink)
            trajectory = Trajectory(_DOFS)
            try:
                result = self._ruckig.calculate(trial, trajectory)
            except RuckigError as error:
                problem = ' '.join(str(error).split())[:200]
                continue
            if result in (Result.Working, Result.Finished):
                return trajectory
            problem = result.name
        raise MotionError(f'Ruckig could not plan the motion ({problem})')

    @staticmethod
    def _shrunk(inp: InputParameter, factor: float) -> InputParameter:
        trial = InputParameter(_DOFS)
        for name in ('control_interface', 'synchronization', 'current_position',
                     'current_velocity', 'current_acceleration', 'target_position',
                     'target_velocity', 'target_acceleration'):
            setattr(trial, name, getattr(inp, name))
        for name in ('max_velocity', 'max_acceleration', 'max_jerk'):
            setattr(trial, name, [v * factor for v in getattr(inp, name)])
        return trial

    def _inside(self, trajectory: Trajectory) -> bool:
        for bound, (lo, hi) in zip(trajectory.position_extrema, self._bounds):
            if bound.min < lo - POSITION_SLACK or bound.max > hi + POSITION_SLACK:
                return False
        return True

    def _short_way(self, goal: Sequence[float]) -> Tuple[float, float]:
        position = self._state.position
        return tuple(
            position[i] + math.remainder(float(goal[i]) - position[i], math.tau)
            if self._continuous[i] else float(goal[i]) for i in range(_DOFS))

    def plan(self, goal: Sequence[float]) -> float:
        """Plan the motion to ``goal`` (readings, rad, inside the limits) from the last sample.

        Returns
        -------
        float
            Seconds from the last sample until the arm is at rest at the goal (for a goal
            queued behind the current motion, the current motion's remaining time plus the
            new motion's, as planned from rest).

        Raises
        ------
        MotionError
            If Ruckig fails.
        """
        goal = self._short_way(goal)
        trajectory = self._calculate(self._input(goal))
        if self._state.moving and not self._inside(trajectory):
            # Braking toward this goal would overshoot a limit: finish the current motion
            # (inside the limits), then go from rest.
            self._pending = goal
            end = self._end()
            inp = self._input(goal)
            inp.current_position = list(end)
            inp.current_velocity = [0.0, 0.0]
            inp.current_acceleration = [0.0, 0.0]
            later = self._calculate(inp)
            return self.remaining() + later.duration
        self._start(trajectory, goal)
        return trajectory.duration

    def _start(self, trajectory: Trajectory, goal: Optional[Tuple[float, float]] = None) -> None:
        self._pending = None
        self._trajectory = trajectory
        self._goal = None if goal is None else self._clamped(goal)
        self._start_tick = self._tick
        self._state = self._state._replace(moving=trajectory.duration > 0.0)
        self.plans += 1

    def stop(self) -> Tuple[Tuple[float, float], float]:
        """Brake to a standstill within the acceleration and jerk limits and hold there.

        Returns
        -------
        position : tuple of 2 float
            Where the arm comes to rest, rad.
        duration : float
            Seconds from the last sample until then.
        """
        self._pending = None
        if not self._state.moving:
            self._trajectory = None
            return self._state.position, 0.0
        inp = self._input()
        inp.control_interface = ControlInterface.Velocity
        inp.synchronization = Synchronization.No
        inp.target_velocity = [0.0, 0.0]
        inp.target_acceleration = [0.0, 0.0]
        trajectory = self._calculate(inp)
        self._start(trajectory)
        return self._end(), trajectory.duration

    # -- sampling -------------------------------------------------------------------------------

    def _clamped(self, position) -> Tuple[float, float]:
        return tuple(min(max(float(p), lo), hi) for p, (lo, hi) in zip(position, self._bounds))

    def _end(self) -> Tuple[float, float]:
        """Where the current motion ends: its goal exactly (Ruckig's end is off by ~1e-15)."""
        if self._goal is not None:
            return self._goal
        return self._clamped(self._trajectory.at_time(self._trajectory.duration)[0])

    def advance(self) -> Sample:
        """Move plan time on by one period and return the plan there."""
        self._tick += 1
        now = self.time
        if self._trajectory is None:
            self._state = self._state._replace(time=now, moving=False)
            return self._state
        elapsed = (self._tick - self._start_tick) * self._period
        duration = self._trajectory.duration
        if elapsed >= duration:
            position = self._end()
            self._state = Sample(now, position, (0.0, 0.0), (0.0, 0.0), False)
            self._trajectory = None
            if self._pending is not None:
                goal, self._pending = self._pending, None
                self.plan(goal)
            return self._state
        position, velocity, acceleration = self._trajectory.at_time(elapsed)
        self._state = Sample(now, self._clamped(position), tuple(velocity), tuple(acceleration),
                             True)
        return self._state

    def points(self) -> List[TrajectoryPoint]:
        """Return the current motion as trajectory points at multiples of the period from now.

        The last point is at the end of the motion (at rest: velocities and accelerations 0);
        ``time_from_start`` is strictly increasing, the first at one period or later. With no
        motion under way: one point, at one period, holding the position.
        """
        if self._trajectory is None:
            position = self._state.position
            return [TrajectoryPoint(self._period, position, (0.0, 0.0), (0.0, 0.0))]
        elapsed = (self._tick - self._start_tick) * self._period
        left = self._trajectory.duration - elapsed
        points = []
        step = 1
        while step * self._period < left - 1e-12:
            at = elapsed + step * self._period
            position, velocity, acceleration = self._trajectory.at_time(at)
            points.append(TrajectoryPoint(step * self._period, self._clamped(position),
                                          tuple(velocity), tuple(acceleration)))
            step += 1
        points.append(TrajectoryPoint(max(left, self._period), self._end(), (0.0, 0.0),
                                      (0.0, 0.0)))
        return points
