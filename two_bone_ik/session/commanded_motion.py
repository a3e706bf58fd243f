"""The arm's commanded motion, between the executor thread and the pacer thread (no ROS).

:class:`CommandedMotion` wraps a :class:`~two_bone_ik.motion.command_stream.CommandStream` with
what the node's two threads need:

- Targets come from the executor thread. At rest, a goal is planned at once (its command or
  trajectory goes out with the answer). While a motion streams, the goal waits in a slot that
  holds only the newest one and is planned by the pacer at its next period, so a flood of
  targets never holds up the stream (the executor never waits for the pacer's lock then; it
  only previews the plan, with a Ruckig instance of its own, to answer with the time it will
  take or why it cannot be planned).
- The pacer thread calls :meth:`CommandedMotion.tick` once per period.
- A new arm with the same joints brakes the motion in flight (as ``~/stop``) and keeps its
  state, so the next motion starts from the commanded state and nothing jumps; an arm with
  other joints brakes the old joints to rest first, then starts afresh from their measured (or
  initial) positions.
- A goal reached along a path (``motion_path: linear``) starts from rest: at rest it starts at
  once; while a motion streams, its path is made (and so checked) from where that motion ends,
  to answer now, and the goal waits for the arm to rest, when its path is made again from
  there.
"""

from collections import deque
import threading
from typing import Callable, Dict, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.motion.command_stream import CommandStream
from two_bone_ik.motion.limits import MotionLimits
from two_bone_ik.motion.trajectory import MotionError, TrajectoryPoint, Vector
from two_bone_ik.session.outputs import JointCommand, LogLine, Names, Tick, TrajectoryCommand


def shown(position: Sequence[float]) -> str:
    """Return a joint position for messages: ``[0.412000, -1.038000]``."""
    return '[' + ', '.join(f'{v:.6f}' for v in position) + ']'


class _PathGoal(NamedTuple):
    """A goal reached along a path: ``path(start, goal)`` makes the timed motion."""

    goal: Vector
    path: Callable


class Planned(NamedTuple):
    """What a goal changed: commands to publish now, whether a motion streams, how long."""

    command: Optional[JointCommand] = None
    trajectory: Optional[TrajectoryCommand] = None
    moving: bool = False
    remaining: float = 0.0
    wake: bool = False


class CommandedMotion:
    """The commanded motion of one arm (see the module docstring).

    Parameters
    ----------
    limits : MotionLimits
        Motion limits in force (all infinite: one command per goal).
    position_limits : sequence of (lower, upper) pairs
        Joint limits, rad.
    rate : float
        Command rate, Hz.
    initial_positions : sequence of float
        Where the arm is at start when nothing measures it, rad.
    names : sequence of str
        The joints.
    trajectories : bool
        Whether to build trajectories for a trajectory controller.
    check : callable, optional
        What every planned motion is checked with before it starts (see
        :class:`~two_bone_ik.motion.planner.MotionPlanner`); None: nothing.
    """

    def __init__(self, limits: MotionLimits, position_limits, rate: float,
                 initial_positions: Sequence[float], names: Sequence[str],
                 trajectories: bool = False, check: Optional[Callable] = None):
        self._lock = threading.Lock()
        self._initial = tuple(float(v) for v in initial_positions)
        self._check = check
        self._stream = CommandStream(limits, position_limits, rate, self._initial, check)
        self._names: Names = tuple(names)
        self._trajectories = trajectories
        self._goals = deque(maxlen=1)  # the newest goal waiting for the next period
        # An arm with other joints (names, joint limits, motion limits), once at rest.
        self._next: Optional[tuple] = None
        self._next_initial = self._initial
        self._measured: Dict[str, float] = {}
        #: Samples streamed since start.
        self.streamed = 0
        #: Why the last planning at a period failed ('' if it did not).
        self.failure = ''

    # -- what is in force ---------------------------------------------------------------------

    @property
    def names(self) -> Names:
        """The joints the stream commands."""
        return self._names

    @property
    def initial(self) -> Vector:
        """Where the arm is at start when nothing measures it, rad."""
        return self._initial

    @property
    def stream(self) -> CommandStream:
        """Command stream in force (read its state; change it through this object)."""
        return self._stream

    @property
    def moving(self) -> bool:
        """Whether a motion streams or waits to."""
        return self._stream.moving or bool(self._goals) or self._next is not None

    def set_limits(self, limits: MotionLimits) -> None:
        """Use new motion limits from the next plan on."""
        with self._lock:
            self._stream.set_limits(limits)

    def set_check(self, check: Optional[Callable]) -> None:
        """Check every motion planned from now on with ``check`` (None: nothing)."""
        with self._lock:
            self._check = check
            self._stream.set_check(check)

    def set_rate(self, rate: float) -> None:
        """Change the command rate (now at rest, else once the motion ends)."""
        with self._lock:
            self._stream.set_rate(rate)

    # -- measurements ---------------------------------------------------------------------------

    def measured(self, positions: Dict[str, float]) -> str:
        """Record measured joint positions by name; return why they were refused, or ''."""
        self._measured.update(positions)
        missing = [name for name in self._names if name not in positions]
        if missing:
            return f"joint_states without {', '.join(missing)}"
        return self._stream.measured([positions[name] for name in self._names])

    # -- goals ----------------------------------------------------------------------------------

    def _step_trajectory(self, position: Vector) -> Optional[TrajectoryCommand]:
        if not self._trajectories:
            return None
        zeros = (0.0,) * len(position)
        return TrajectoryCommand(self._names, (
            TrajectoryPoint(1.0 / self._stream.rate, position, zeros, zeros),))

    def _motion_trajectory(self) -> Optional[TrajectoryCommand]:
        if not self._trajectories:
            return None
        return TrajectoryCommand(self._names, tuple(self._stream.points()))

    def command(self, goal: Sequence[float], path: Optional[Callable] = None) -> Planned:
        """Command a goal (readings, rad, within the limits).

        ``path``, with motion planning, reaches it along a path: ``path(start, goal)`` returns
        the timed motion from the pose ``start`` at rest (a
        :class:`~two_bone_ik.motion.path_timing.PathMotion`), or raises MotionError.

        Raises
        ------
        MotionError
            If no motion to it can be planned (nothing changes then).
        """
        goal = tuple(float(v) for v in goal)
        if not self._stream.planned:
            with self._lock:
                self._stream.goal(goal)
            return Planned(JointCommand(self._names, goal, None), self._step_trajectory(goal))
        if not self.moving:
            with self._lock:
                if not self.moving:
                    if path is None:
                        return self._plan_now(goal)
                    return self._follow_now(goal, path)
        return self._plan_later(goal) if path is None else self._follow_later(goal, path)

    def _follow_now(self, goal: Vector, path: Callable) -> Planned:
        start = self._stream.rest_position
        if max(abs(a - b) for a, b in zip(start, goal)) <= 1e-12:  # already there
            return self._plan_now(goal)
        step = self._stream.follow(path(start, goal), goal)
        trajectory = self._motion_trajectory() if step.new_trajectory else None
        return Planned(None, trajectory, True, step.duration, True)

    def _follow_later(self, goal: Vector, path: Callable) -> Planned:
        motion = path(self._stream.rest_position, goal)  # checked now, to answer now
        remaining = self._stream.remaining() + motion.duration
        self._goals.append(_PathGoal(goal, path))
        return Planned(None, None, True, remaining, True)

    def _plan_now(self, goal: Vector) -> Planned:
        step = self._stream.goal(goal)
        if step.command is not None:  # already there
            trajectory = self._step_trajectory(step.command) if step.new_trajectory else None
            return Planned(JointCommand(self._names, step.command, None), trajectory)
        trajectory = self._motion_trajectory() if step.new_trajectory else None
        return Planned(None, trajectory, True, step.duration, True)

    def _plan_later(self, goal: Vector) -> Planned:
        remaining = self._stream.preview(goal) if self._next is None else 0.0
        self._goals.append(goal)
        return Planned(None, None, True, remaining, True)

    def aim(self, goal: Sequence[float]) -> None:
        """Make ``goal`` the one the next period plans (or steps to): a jog's next point."""
        self._goals.append(tuple(float(v) for v in goal))

    # -- the pacer's period ---------------------------------------------------------------------

    def tick(self) -> Tick:
        """Stream one command period: plan the waiting goal, then advance (pacer thread)."""
        with self._lock:
            logs = []
            if self._next is not None and not self._stream.moving:
                self._switch()
            period = 1.0 / self._stream.rate
            if not self._stream.planned:
                return self._step_tick(period)
            planned_now = self._plan_waiting(logs)
            sample, new = self._stream.tick()
            if sample is None:
                trajectory = self._motion_trajectory() if planned_now else None
                return Tick(None, trajectory, self.moving, period, tuple(logs))
            self.streamed += 1
            trajectory = self._motion_trajectory() if (new or planned_now) else None
            command = JointCommand(self._names, sample.position, sample.velocity)
            return Tick(command, trajectory, self.moving, period, tuple(logs), sample.time)

    def _step_tick(self, period: float) -> Tick:
        """Without motion planning: command the waiting goal (a jog's point) as one step."""
        try:
            goal = self._goals.popleft()
        except IndexError:
            return Tick(None, None, False, period, ())
        self._stream.goal(goal)
        self.streamed += 1
        return Tick(JointCommand(self._names, goal, None), self._step_trajectory(goal), False,
                    period, ())

    def _plan_waiting(self, logs) -> bool:
        """Plan the goal waiting in the slot, if any; return whether a motion started."""
        try:
            goal = self._goals.popleft()
        except IndexError:
            return False
        try:
            if isinstance(goal, _PathGoal):
                return self._follow_waiting(goal)
            return self._stream.goal(goal).new_trajectory
        except MotionError as error:
            goal = goal.goal if isinstance(goal, _PathGoal) else goal
            self.failure = f'no motion to {shown(goal)} rad: {error}'
            logs.append(LogLine('error', self.failure + '; the current motion goes on'))
            return False

    def _follow_waiting(self, waiting: _PathGoal) -> bool:
        """Start a goal's path once the arm rests (until then it waits); return if it started."""
        if self._stream.moving:
            if not self._goals:  # (a newer goal replaces it)
                self._goals.append(waiting)
            return False
        start = self._stream.rest_position
        if max(abs(a - b) for a, b in zip(start, waiting.goal)) <= 1e-12:
            return self._stream.goal(waiting.goal).new_trajectory
        motion = waiting.path(start, waiting.goal)
        return self._stream.follow(motion, waiting.goal).new_trajectory

    # -- stop and new arms ----------------------------------------------------------------------

    def stop(self) -> Tuple[str, Optional[TrajectoryCommand], bool]:
        """Brake to a standstill and hold; return the reply, a trajectory and whether to stream."""
        with self._lock:
            self._goals.clear()
            stop = self._stream.stop()
            trajectory = None
            if stop.position is None:
                return 'nothing commanded yet: nothing to stop', None, False
            if not self._stream.planned:
                return (f'no motion planned (every motion limit infinite): the last command '
                        f'{shown(stop.position)} rad stands'), None, False
            note = f' ({stop.note})' if stop.note else ''
            if stop.duration > 0.0:
                if stop.new_trajectory:
                    trajectory = self._motion_trajectory()
                return (f'stopping: at rest at {shown(stop.position)} rad in '
                        f'{stop.duration:.3f} s, held until the next target{note}',
                        trajectory, True)
            return (f'at rest at {shown(stop.position)} rad, held until the next target',
                    None, False)

    def hold(self, measured: Sequence[Optional[float]]
             ) -> Tuple[Optional[JointCommand], Optional[TrajectoryCommand], bool]:
        """Stop streaming toward the goal (the arm does not follow) and hold where it is.

        ``measured`` holds a reading per joint (None: none, that joint holds its command). No
        joint read: brake where the motion is (as ``~/stop``; without planning, nothing).
        Returns a command to publish now (without planning), a trajectory for a trajectory
        controller, and whether to stream.
        """
        with self._lock:
            self._goals.clear()
            last = self._stream.last_command
            if last is None or not (self._stream.planned or any(
                    m is not None for m in measured)):
                return None, None, False  # (a step without readings: nothing to change)
            if all(m is None for m in measured):
                stop = self._stream.stop()
            else:
                stop = self._stream.hold([c if m is None else m
                                          for m, c in zip(measured, last)])
            if not self._stream.planned:
                return (JointCommand(self._names, stop.position, None),
                        self._step_trajectory(stop.position), False)
            trajectory = self._motion_trajectory() if stop.new_trajectory else None
            return None, trajectory, self._stream.moving

    def new_arm(self, names: Sequence[str], position_limits, limits: MotionLimits,
                initial_positions: Sequence[float]):
        """Drive a new arm: brake what moves; return a braking trajectory and whether to stream.

        The same joints keep the commanded state (the next motion starts from it); other joints
        start afresh once the old ones are at rest, from their measured positions or
        ``initial_positions``.
        """
        names = tuple(names)
        self._next_initial = tuple(float(v) for v in initial_positions)
        bounds = tuple(tuple(pair) for pair in position_limits)
        with self._lock:
            self._goals.clear()
            braking = self._stream.moving
            trajectory = None
            if braking:
                stop = self._stream.stop()
                trajectory = self._motion_trajectory() if stop.new_trajectory else None
            if names == self._names:
                self._stream.set_limits(limits)
                self._stream.set_position_limits(bounds)
            else:
                self._next = (names, bounds, limits)
                if not braking:
                    self._switch()
            return trajectory, braking

    def _switch(self) -> None:
        """Start afresh on the arm in ``_next`` (its joints, from their measured positions)."""
        names, bounds, limits = self._next
        self._next = None
        self._initial = self._next_initial
        self._stream = CommandStream(limits, bounds, self._stream.rate, self._initial,
                                     self._check)
        self._names = names
        if all(name in self._measured for name in names):
            self._stream.measured([self._measured[name] for name in names])
