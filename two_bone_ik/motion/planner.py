"""Limit-respecting motion toward each new IK solution, streamed in plan time (no ROS).

:class:`MotionPlanner` plans, with Ruckig (the trajectory generator MoveIt uses; PyPI
``ruckig``, MIT), a time-optimal motion from the current state to each new goal within the
velocity, acceleration and jerk limits, and hands out samples of it at multiples of one
command period (plan time, never wall-clock time). A new goal mid-motion is planned from the
state of the last sample (position, velocity, acceleration), so position, velocity and
acceleration stay continuous. Any number of joints.

Ruckig's community version does not enforce position limits, so the planner does:

- a plan between two in-limit positions from rest never leaves them (each joint's profile from
  rest to rest is monotone);
- a plan from a moving state may overshoot (braking from speed toward a goal near a limit): its
  position extrema are checked, and if one leaves the limits the current motion is finished
  first (it stays inside, having been checked itself) and the new goal follows from rest;
- braking (:meth:`MotionPlanner.stop`) is checked the same way: if braking within the limits in
  force would pass a joint limit (they were lowered mid-motion), it brakes with the limits the
  motion was planned with; if even that would, the motion goes on to its goal (inside the
  limits), and the outcome says which;
- a start outside the limits (a measured position a little past one) is allowed: each joint's
  bounds stretch to include where it is, so nothing jumps, and motions only go back inside;
- every sample is clamped into those bounds as a last guard against rounding.

Continuous joints (unlimited) take the short way round: the goal is moved by whole turns to
within half a turn of the current position, and the stream stays continuous (never wrapped).

Every Ruckig outcome is an answer: a motion it cannot plan (e.g. one longer than the about
7600 s it can represent, result -101, which the Python binding does not even name) raises
:class:`MotionError` with the reason in words.
"""

import math
import re
from typing import List, NamedTuple, Optional, Sequence, Tuple

from ruckig import ControlInterface, InputParameter, Ruckig, RuckigError
from ruckig import Synchronization, Trajectory

from two_bone_ik.motion.limits import MotionLimits
from two_bone_ik.motion.trajectory import at_rest, MotionError, Sample, TrajectoryPoint
from two_bone_ik.motion.trajectory import Vector

#: Slack (rad) within which a planned position extremum still counts as inside a limit.
POSITION_SLACK = 1e-9

#: Most points a trajectory for a trajectory controller holds: a longer motion gets one point
#: every few periods (a whole number of them), so a slow motion is not a huge message.
MAX_TRAJECTORY_POINTS = 10000

#: Limit factors Ruckig is tried with, in turn (see ``MotionPlanner._calculate``).
RETRY_SHRINK = (1.0, 1.0 - 1e-9, 1.0 - 1e-7)

#: Ruckig's results, in words (its Python binding names only some of them).
RUCKIG_RESULTS = {
    -1: 'an unclassified error (Error)',
    -100: 'invalid input: a non-finite or out-of-range value (ErrorInvalidInput)',
    -101: 'the motion would last longer than the about 7600 s Ruckig can plan '
          '(ErrorTrajectoryDuration): raise the limits or move less',
    -102: 'position limits (ErrorPositionalLimits)',
    -104: 'a zero limit (ErrorZeroLimits)',
    -110: 'the duration of a joint could not be found (ErrorExecutionTimeCalculation)',
    -111: 'the joints could not be synchronised (ErrorSynchronizationCalculation)',
}

_WORKING_OR_FINISHED = (0, 1)
_TRAJECTORY_DURATION = -101


class Brake(NamedTuple):
    """What :meth:`MotionPlanner.stop` did.

    Attributes
    ----------
    position : tuple of float
        Where the arm comes (or is) to rest, rad.
    duration : float
        Seconds from the last sample until then.
    note : str
        Empty when it braked within the limits in force; otherwise why it did not (a sentence
        for the ``~/stop`` reply).
    """

    position: Vector
    duration: float
    note: str


def describe_result(code: int) -> str:
    """Return a Ruckig result code in words."""
    return RUCKIG_RESULTS.get(code, f'result {code}')


def _result_code(error: ValueError) -> Optional[int]:
    """Return the code in the binding's ``ValueError: -101 is not a valid Result``, or None."""
    match = re.match(r'\s*(-?\d+) is not a valid Result', str(error))
    return int(match.group(1)) if match else None


def _stretched(bounds, position) -> Tuple[Tuple[float, float], ...]:
    """Joint bounds stretched to include ``position`` (a start a little outside the limits)."""
    return tuple((min(lo, p), max(hi, p)) for (lo, hi), p in zip(bounds, position))


class MotionPlanner:
    """Plans and samples the commanded motion of an arm's joints.

    Parameters
    ----------
    limits : MotionLimits
        Velocity, acceleration and jerk limits (at least one finite), one value per joint.
    position_limits : sequence of (lower, upper) pairs
        Joint limits in readings, rad, one pair per joint; infinite where unlimited.
    period : float
        Command period, s (1 / command rate).
    position : sequence of float
        Where the arm is at start (at rest), rad; it may lie outside the limits (see the module
        docstring).
    check : callable, optional
        ``check(trajectory, period)`` -> why a planned motion must not start ('' when it may),
        asked of every new motion before it starts (e.g. whether it stays clear of the floor
        and the keep-out boxes); braking is not asked.
    """

    def __init__(self, limits: MotionLimits, position_limits, period: float,
                 position: Sequence[float], check=None):
        self._bounds = tuple((float(lo), float(hi)) for lo, hi in position_limits)
        self._dofs = len(self._bounds)
        self._continuous = tuple(lo == -math.inf and hi == math.inf for lo, hi in self._bounds)
        self._limits = limits
        self._planned_limits = limits  # the limits the current trajectory was planned with
        self._period = float(period)
        self._ruckig = Ruckig(self._dofs)
        self._preview_ruckig = Ruckig(self._dofs)
        self._tick = 0
        self._trajectory: Optional[Trajectory] = None
        self._goal: Optional[Vector] = None  # where the current motion ends
        self._start_tick = 0
        self._pending: Optional[Vector] = None
        self._state = at_rest(position)
        self._box = _stretched(self._bounds, self._state.position)
        #: What every new motion is checked with before it starts (None: nothing).
        self.check = check
        #: How many motions have started (a queued goal counts when it starts): a new value
        #: means a new trajectory to send.
        self.plans = 0

    # -- state ----------------------------------------------------------------------------------

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
    def limits(self) -> MotionLimits:
        """The motion limits new plans use."""
        return self._limits

    @property
    def moving(self) -> bool:
        """Whether a motion is under way (or queued)."""
        return self._state.moving or self._pending is not None

    @property
    def end(self) -> Vector:
        """Where the arm comes to rest once the motion under way (and a queued one) ends, rad."""
        if self._pending is not None:
            return self._pending
        if self._trajectory is None:
            return self._state.position
        return self._end()

    def remaining(self) -> float:
        """Seconds of planned motion left after the last sample (a queued goal not counted)."""
        if self._trajectory is None:
            return 0.0
        elapsed = (self._tick - self._start_tick) * self._period
        return max(0.0, self._trajectory.duration - elapsed)

    def set_limits(self, limits: MotionLimits) -> None:
        """Use new motion limits from the next plan on."""
        self._limits = limits

    def set_position_limits(self, position_limits) -> None:
        """Use new joint limits (a new description of the same joints) from now on.

        The bounds stretch to include where the arm is and, while it moves, everything the
        current motion still passes through, so no sample is clamped onto a jump.
        """
        self._bounds = tuple((float(lo), float(hi)) for lo, hi in position_limits)
        self._continuous = tuple(lo == -math.inf and hi == math.inf for lo, hi in self._bounds)
        box = _stretched(self._bounds, self._state.position)
        if self._trajectory is not None:
            box = tuple((min(lo, extrema.min), max(hi, extrema.max))
                        for (lo, hi), extrema in zip(box, self._trajectory.position_extrema))
        self._box = box

    # -- planning -------------------------------------------------------------------------------

    def _input(self, limits: MotionLimits, goal=None) -> InputParameter:
        state = self._state
        inp = InputParameter(self._dofs)
        inp.current_position = list(state.position)
        inp.current_velocity = list(state.velocity)
        inp.current_acceleration = list(state.acceleration)
        inp.max_velocity = list(limits.velocity)
        inp.max_acceleration = list(limits.acceleration)
        inp.max_jerk = list(limits.jerk)
        if goal is not None:
            inp.target_position = list(goal)
            inp.target_velocity = [0.0] * self._dofs
            inp.target_acceleration = [0.0] * self._dofs
        return inp

    def _calculate(self, inp: InputParameter, ruckig: Optional[Ruckig] = None) -> Trajectory:
        """Plan with Ruckig, retrying with every limit a hair tighter on failure.

        Ruckig fails, rarely, exactly between two profile shapes (seen: a rest-to-rest move
        whose length sits on such a boundary to 1e-16); a hair tighter stays within the limits.

        Raises
        ------
        MotionError
            With Ruckig's reason in words, whatever it answered.
        """
        ruckig = self._ruckig if ruckig is None else ruckig
        problem = ''
        for shrink in RETRY_SHRINK:
            trial = inp if shrink == 1.0 else self._shrunk(inp, shrink)
            trajectory = Trajectory(self._dofs)
            try:
                code = int(ruckig.calculate(trial, trajectory))
            except RuckigError as error:
                problem = ' '.join(str(error).split())[:200]
                continue
            except ValueError as error:  # a result code the binding has no name for
                code = _result_code(error)
                if code is None:
                    raise MotionError(f'Ruckig could not plan the motion ({error})') from None
            if code in _WORKING_OR_FINISHED:
                return trajectory
            problem = describe_result(code)
            if code == _TRAJECTORY_DURATION:
                break  # tighter limits only make it longer
        raise MotionError(f'Ruckig could not plan the motion: {problem}')

    def _shrunk(self, inp: InputParameter, factor: float) -> InputParameter:
        trial = InputParameter(self._dofs)
        for name in ('control_interface', 'synchronization', 'current_position',
                     'current_velocity', 'current_acceleration', 'target_position',
                     'target_velocity', 'target_acceleration'):
            setattr(trial, name, getattr(inp, name))
        for name in ('max_velocity', 'max_acceleration', 'max_jerk'):
            setattr(trial, name, [v * factor for v in getattr(inp, name)])
        return trial

    def _inside(self, trajectory: Trajectory) -> bool:
        box = _stretched(self._bounds, self._state.position)
        for bound, (lo, hi) in zip(trajectory.position_extrema, box):
            if bound.min < lo - POSITION_SLACK or bound.max > hi + POSITION_SLACK:
                return False
        return True

    def _short_way(self, goal: Sequence[float]) -> Vector:
        position = self._state.position
        return tuple(
            position[i] + math.remainder(float(goal[i]) - position[i], math.tau)
            if self._continuous[i] else float(goal[i]) for i in range(self._dofs))

    def _prepare(self, goal: Sequence[float], ruckig: Ruckig):
        """Plan toward ``goal`` from the last sample without applying it.

        Returns ``(trajectory, goal, duration)``: ``trajectory`` None when the goal must wait
        for the current motion to end (braking toward it would overshoot a limit).
        """
        goal = self._short_way(goal)
        trajectory = self._calculate(self._input(self._limits, goal), ruckig)
        if self._state.moving and not self._inside(trajectory):
            inp = self._input(self._limits, goal)
            inp.current_position = list(self._end())
            inp.current_velocity = [0.0] * self._dofs
            inp.current_acceleration = [0.0] * self._dofs
            later = self._checked(self._calculate(inp, ruckig))
            return None, goal, self.remaining() + later.duration
        return self._checked(trajectory), goal, trajectory.duration

    def _checked(self, trajectory):
        """Return ``trajectory`` if :attr:`check` lets it start, else raise MotionError.

        A motion already checked with the same check (its ``checked_with``) is not checked
        again.
        """
        if self.check is not None and getattr(trajectory, 'checked_with', None) != self.check:
            problem = self.check(trajectory, self._period)
            if problem:
                raise MotionError(problem)
        return trajectory

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
            If Ruckig cannot plan it (nothing changes then: the current motion goes on).
        """
        trajectory, goal, duration = self._prepare(goal, self._ruckig)
        if trajectory is None:
            # Braking toward this goal would overshoot a limit: finish the current motion
            # (inside the limits), then go from rest.
            self._pending = goal
        else:
            self._start(trajectory, self._limits, goal)
        return duration

    def preview(self, goal: Sequence[float]) -> float:
        """Return the seconds :meth:`plan` would take to ``goal`` now, changing nothing.

        It uses a Ruckig instance of its own, so another thread may call it while the planner
        advances (the answer is then an estimate, from a state up to one sample old).

        Raises
        ------
        MotionError
            If Ruckig cannot plan it.
        """
        return self._prepare(goal, self._preview_ruckig)[2]

    def follow(self, motion, goal: Sequence[float]) -> float:
        """Start a motion timed elsewhere (a path, e.g. a straight line) from rest, now.

        ``motion`` has what a Ruckig trajectory has (``duration``, ``at_time``,
        ``position_extrema``) and ``brake(t)`` (how :meth:`stop` brakes it); it starts where
        the arm rests and ends at rest at ``goal``. Returns its duration, s.

        Raises
        ------
        MotionError
            If the arm is moving, or :attr:`check` refuses it (nothing changes then).
        """
        if self.moving:
            raise MotionError('a motion along a path starts from rest, and the arm is moving')
        self._start(self._checked(motion), self._limits, tuple(float(v) for v in goal))
        return float(motion.duration)

    def _start(self, trajectory: Trajectory, limits: MotionLimits,
               goal: Optional[Vector] = None) -> None:
        self._pending = None
        self._trajectory = trajectory
        self._planned_limits = limits
        self._box = _stretched(self._bounds, self._state.position)
        self._goal = None if goal is None else self._clamped(goal)
        self._start_tick = self._tick
        self._state = self._state._replace(moving=trajectory.duration > 0.0)
        self.plans += 1

    def _brake_trajectory(self, limits: MotionLimits) -> Trajectory:
        inp = self._input(limits)
        inp.control_interface = ControlInterface.Velocity
        inp.synchronization = Synchronization.No
        inp.target_velocity = [0.0] * self._dofs
        inp.target_acceleration = [0.0] * self._dofs
        return self._calculate(inp)

    def _brake_limits(self) -> List[Tuple[MotionLimits, str]]:
        """Return the limits to try braking with, in turn, each with the note that goes with it."""
        options = [(self._limits, '')]
        planned, current = self._planned_limits, self._limits
        largest = MotionLimits(current.velocity,
                               tuple(map(max, current.acceleration, planned.acceleration)),
                               tuple(map(max, current.jerk, planned.jerk)))
        if largest != current:
            options.append((largest, (
                'braking within the limits in force would pass a joint limit, so it brakes '
                'with the acceleration and jerk limits the motion was planned with')))
        return options

    def stop(self) -> Brake:
        """Brake to a standstill within the limits and hold there (see the module docstring).

        Returns
        -------
        Brake
            Where and when the arm comes to rest, and a note when it could not brake within
            the limits in force.
        """
        self._pending = None
        if not self._state.moving:
            self._trajectory = None
            return Brake(self._state.position, 0.0, '')
        if hasattr(self._trajectory, 'brake'):  # along its own path, within its own limits
            braking = self._trajectory.brake((self._tick - self._start_tick) * self._period)
            self._start(braking, self._planned_limits)
            return Brake(self._end(), braking.duration, '')
        for limits, note in self._brake_limits():
            try:
                trajectory = self._brake_trajectory(limits)
            except MotionError:
                continue
            if self._inside(trajectory):
                self._start(trajectory, limits)
                return Brake(self._end(), trajectory.duration, note)
        return Brake(self._end(), self.remaining(), (
            'braking now would pass a joint limit even with the limits the motion was planned '
            'with, so it goes on to its goal, inside the limits'))

    def hold(self, goal: Sequence[float]) -> Brake:
        """Leave the motion for a standstill at ``goal`` (where the arm was measured).

        Planned from the last sample within the limits in force, like any goal, but never
        queued behind the current motion: when that plan would pass a joint limit, or Ruckig
        cannot make it, the motion brakes where it is instead (:meth:`stop`, whose note then
        says so).
        """
        self._pending = None
        try:
            trajectory, goal, duration = self._prepare(goal, self._ruckig)
        except MotionError:
            trajectory = None
        if trajectory is None:
            return self.stop()
        self._start(trajectory, self._limits, goal)
        return Brake(self._end(), duration, '')

    # -- sampling -------------------------------------------------------------------------------

    def _clamped(self, position) -> Vector:
        return tuple(min(max(float(p), lo), hi) for p, (lo, hi) in zip(position, self._box))

    def _end(self) -> Vector:
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
        if elapsed >= self._trajectory.duration:
            self._state = at_rest(self._end(), now)
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

        One point per period, or per a whole number of periods when the motion would need more
        than :data:`MAX_TRAJECTORY_POINTS`. The last point is at the end of the motion (at rest:
        velocities and accelerations 0); ``time_from_start`` is strictly increasing, the first
        at one period or later. With no motion under way: one point, at one period, holding the
        position.
        """
        zeros = (0.0,) * self._dofs
        if self._trajectory is None:
            return [TrajectoryPoint(self._period, self._state.position, zeros, zeros)]
        elapsed = (self._tick - self._start_tick) * self._period
        left = self._trajectory.duration - elapsed
        stride = max(1, math.ceil(left / self._period / MAX_TRAJECTORY_POINTS))
        spacing = stride * self._period
        points = []
        step = 1
        while step * spacing < left - 1e-12:
            position, velocity, acceleration = self._trajectory.at_time(elapsed + step * spacing)
            points.append(TrajectoryPoint(step * spacing, self._clamped(position),
                                          tuple(velocity), tuple(acceleration)))
            step += 1
        points.append(TrajectoryPoint(max(left, self._period), self._end(), zeros, zeros))
        return points
