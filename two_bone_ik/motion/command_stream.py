"""What the IK node commands over time: a step per target, or a streamed, planned motion (no ROS).

:class:`CommandStream` sits between the IK solutions and the node's outputs:

- with every motion limit infinite it passes each goal straight through (one command per
  target, as without motion planning);
- with any limit finite it plans a :class:`~two_bone_ik.motion.planner.MotionPlanner` motion
  to each goal and hands out one sample per command period.

Where the first motion starts: the last measured joint positions (``joint_states``) when there
are any, else ``initial_positions``. Later motions start from the plan's own state (continuous
position, velocity and acceleration), not from a measurement that lags it. A change of command
rate takes effect once the arm is at rest; new motion limits apply from the next plan on.
"""

from typing import List, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.motion.limits import MotionLimits
from two_bone_ik.motion.planner import MotionPlanner, Sample, TrajectoryPoint


class Step(NamedTuple):
    """What a new goal changes.

    Attributes
    ----------
    command : tuple of 2 float or None
        The position to command right away (no motion planning, or already there), else
        None (streamed).
    duration : float
        Seconds until the arm is at rest at the goal, as planned (0 for a step).
    new_trajectory : bool
        Whether a new motion started (send it to a trajectory controller).
    """

    command: Optional[Tuple[float, float]]
    duration: float
    new_trajectory: bool


class CommandStream:
    """The commanded joint positions of one arm over time.

    Parameters
    ----------
    limits : MotionLimits
        Motion limits (all infinite: no planning).
    position_limits : sequence of 2 (lower, upper) pairs
        Joint limits in readings, rad.
    rate : float
        Command rate, Hz.
    initial_positions : sequence of 2 float
        Where the arm is at start when nothing measures it, rad.
    """

    def __init__(self, limits: MotionLimits, position_limits, rate: float,
                 initial_positions: Sequence[float]):
        self._limits = limits
        self._position_limits = tuple(tuple(pair) for pair in position_limits)
        self._rate = float(rate)
        self._pending_rate: Optional[float] = None
        self._initial = (float(initial_positions[0]), float(initial_positions[1]))
        self._measured: Optional[Tuple[float, float]] = None
        self._planner: Optional[MotionPlanner] = None
        self._sent_plans = 0
        self._last: Optional[Tuple[float, float]] = None

    # -- inputs -------------------------------------------------------------------------------

    def measured(self, positions: Sequence[float]) -> None:
        """Record the arm's measured joint positions (rad)."""
        self._measured = (float(positions[0]), float(positions[1]))

    def set_limits(self, limits: MotionLimits) -> None:
        """Use these motion limits from the next plan on (all infinite: steps again)."""
        self._limits = limits
        if self._planner is not None:
            if limits.limited:
                self._planner.set_limits(limits)
            elif not self._planner.moving:
                self._planner = None

    def set_rate(self, rate: float) -> None:
        """Change the command rate (Hz): now when at rest, else once the motion ends."""
        if self._planner is not None and self._planner.moving:
            self._pending_rate = float(rate)
        else:
            self._rate = float(rate)
            self._planner = None if self._planner is None else self._new_planner(
                self._planner.state.position)

    def set_position_limits(self, position_limits) -> None:
        """Use new joint limits (a new arm): the next motion starts afresh."""
        self._position_limits = tuple(tuple(pair) for pair in position_limits)
        if self._planner is not None:
            self._last = self._planner.state.position
        self._planner = None

    # -- the stream ---------------------------------------------------------------------------

    @property
    def measured_position(self) -> Optional[Tuple[float, float]]:
        """The last measured joint positions, rad, or None before any."""
        return self._measured

    @property
    def limits(self) -> MotionLimits:
        """Motion limits in effect."""
        return self._limits

    @property
    def rate(self) -> float:
        """Command rate in effect, Hz."""
        return self._rate

    @property
    def planned(self) -> bool:
        """Whether goals are planned and streamed (any motion limit finite)."""
        return self._limits.limited

    @property
    def moving(self) -> bool:
        """Whether a planned motion is under way."""
        return self._planner is not None and self._planner.moving

    def remaining(self) -> float:
        """Seconds of planned motion left."""
        return self._planner.remaining() if self._planner is not None else 0.0

    def _start_position(self) -> Tuple[float, float]:
        if self._measured is not None:
            return self._measured
        return self._last if self._last is not None else self._initial

    def _new_planner(self, position) -> MotionPlanner:
        """Return a planner starting at ``position``; none of its plans has been sent yet."""
        self._sent_plans = 0
        return MotionPlanner(self._limits, self._position_limits, 1.0 / self._rate, position)

    def goal(self, goal: Sequence[float]) -> Step:
        """Command a new goal: joint readings in rad, inside the limits.

        Raises
        ------
        two_bone_ik.motion.planner.MotionError
            If the motion cannot be planned.
        """
        goal = (float(goal[0]), float(goal[1]))
        if not self._limits.limited:
            self._last = goal
            return Step(goal, 0.0, True)
        if self._planner is None:
            self._planner = self._new_planner(self._start_position())
        duration = self._planner.plan(goal)
        new = self._take_new_plan()
        if not self._planner.moving:  # already there: one command, nothing to stream
            return Step(self._planner.state.position, 0.0, new)
        return Step(None, duration, new)

    def _take_new_plan(self) -> bool:
        plans = self._planner.plans
        new, self._sent_plans = plans != self._sent_plans, plans
        return new

    def tick(self) -> Tuple[Optional[Sample], bool]:
        """Advance one command period.

        Returns
        -------
        sample : Sample or None
            The command for this period, or None when nothing is streaming.
        new_trajectory : bool
            Whether a queued motion started with it (send it to a trajectory controller).
        """
        planner = self._planner
        if planner is None or not planner.moving:
            return None, False
        sample = planner.advance()
        new = self._take_new_plan()
        if not planner.moving and self._pending_rate is not None:
            self._rate, self._pending_rate = self._pending_rate, None
            self._planner = self._new_planner(sample.position)
        return sample, new

    def stop(self) -> Tuple[Optional[Tuple[float, float]], float, bool]:
        """Brake to a standstill and hold there until the next goal.

        Returns
        -------
        position : tuple of 2 float or None
            Where the arm comes (or is) to rest; None if nothing was ever commanded.
        duration : float
            Seconds until then.
        new_trajectory : bool
            Whether a braking motion started (send it to a trajectory controller).
        """
        if self._planner is None:
            return self._last, 0.0, False
        was_moving = self._planner.moving
        position, duration = self._planner.stop()
        return position, duration, was_moving and self._take_new_plan()

    def points(self) -> List[TrajectoryPoint]:
        """Return the current motion as points for a trajectory controller, one per period."""
        return self._planner.points() if self._planner is not None else []
