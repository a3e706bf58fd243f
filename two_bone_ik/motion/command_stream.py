"""What an arm is commanded over time: a step per goal, or a streamed, planned motion (no ROS).

:class:`CommandStream` sits between the IK solutions and the node's outputs:

- with every motion limit infinite it passes each goal straight through (one command per
  target, as without motion planning); Ruckig is then never imported;
- with any limit finite it plans a :class:`~two_bone_ik.motion.planner.MotionPlanner` motion
  to each goal and hands out one sample per command period.

Where the first motion starts: the last good measured joint positions (``joint_states``) when
there are any, else ``initial_positions``. A measurement is good when every value is finite and
within :data:`MEASURED_SLACK` of the joint limits; anything else is refused with a reason and
changes nothing. Later motions start from the plan's own state (continuous position, velocity
and acceleration), not from a measurement that lags it. A change of command rate takes effect
once the arm is at rest; new motion limits apply from the next plan on; new joint limits (a new
description of the same joints) keep the motion and its state.
"""

import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.motion.limits import MotionLimits
from two_bone_ik.motion.trajectory import Sample, TrajectoryPoint, Vector

#: How far (rad) past a joint limit a measured position may be and still be where a motion
#: starts from (calibration and sag put real arms a little past); further is refused.
MEASURED_SLACK = 0.1


class Step(NamedTuple):
    """What a new goal changes.

    Attributes
    ----------
    command : tuple of float or None
        The position to command right away (no motion planning, or already there), else
        None (streamed).
    duration : float
        Seconds until the arm is at rest at the goal, as planned (0 for a step).
    new_trajectory : bool
        Whether a new motion started (send it to a trajectory controller).
    """

    command: Optional[Vector]
    duration: float
    new_trajectory: bool


class Stop(NamedTuple):
    """What :meth:`CommandStream.stop` did.

    Attributes
    ----------
    position : tuple of float or None
        Where the arm comes (or is) to rest; None if nothing was ever commanded.
    duration : float
        Seconds until then.
    new_trajectory : bool
        Whether a braking motion started (send it to a trajectory controller).
    note : str
        Empty when it braked within the limits in force, else why not (see
        :meth:`two_bone_ik.motion.planner.MotionPlanner.stop`).
    """

    position: Optional[Vector]
    duration: float
    new_trajectory: bool
    note: str


def _floats(values) -> Vector:
    return tuple(float(v) for v in values)


class CommandStream:
    """The commanded joint positions of one arm over time.

    Parameters
    ----------
    limits : MotionLimits
        Motion limits, one value per joint (all infinite: no planning).
    position_limits : sequence of (lower, upper) pairs
        Joint limits in readings, rad, one pair per joint.
    rate : float
        Command rate, Hz.
    initial_positions : sequence of float
        Where the arm is at start when nothing measures it, rad.
    check : callable, optional
        What every planned motion is checked with before it starts (see
        :class:`~two_bone_ik.motion.planner.MotionPlanner`).
    """

    def __init__(self, limits: MotionLimits, position_limits, rate: float,
                 initial_positions: Sequence[float], check=None):
        self._limits = limits
        self._planned = limits.limited  # asked per target: kept, not recomputed
        self._position_limits = tuple(tuple(pair) for pair in position_limits)
        self._rate = float(rate)
        self._pending_rate: Optional[float] = None
        self._initial = _floats(initial_positions)
        self._measured: Optional[Vector] = None
        self._planner = None  # a MotionPlanner once a goal is planned
        self._sent_plans = 0
        self._last: Optional[Vector] = None
        self._check = check

    # -- inputs -------------------------------------------------------------------------------

    def measured(self, positions: Sequence[float]) -> str:
        """Record the arm's measured joint positions (rad), if good.

        Returns
        -------
        str
            Empty when recorded; else why the measurement was refused (it changes nothing).
        """
        positions = _floats(positions)
        if len(positions) != len(self._position_limits):
            return f'{len(positions)} positions for {len(self._position_limits)} joints'
        for index, (value, (lo, hi)) in enumerate(zip(positions, self._position_limits)):
            if not math.isfinite(value):
                return f'joint {index + 1} position {value!r} is not finite'
            if not lo - MEASURED_SLACK <= value <= hi + MEASURED_SLACK:
                return (f'joint {index + 1} at {value:.6g} rad is more than {MEASURED_SLACK} rad '
                        f'outside its limits [{lo:g}, {hi:g}]')
        self._measured = positions
        return ''

    def set_limits(self, limits: MotionLimits) -> None:
        """Use these motion limits from the next plan on (all infinite: steps again)."""
        self._limits = limits
        self._planned = limits.limited
        if self._planner is not None:
            if limits.limited:
                self._planner.set_limits(limits)
            elif not self._planner.moving:
                self._last = self._planner.state.position
                self._planner = None

    def set_rate(self, rate: float) -> None:
        """Change the command rate (Hz): now when at rest, else once the motion ends."""
        if self._planner is not None and self._planner.moving:
            self._pending_rate = float(rate)
        else:
            self._rate = float(rate)
            self._planner = None if self._planner is None else self._new_planner(
                self._planner.state.position)

    def set_check(self, check) -> None:
        """Check every motion planned from now on with ``check`` (None: nothing)."""
        self._check = check
        if self._planner is not None:
            self._planner.check = check

    def set_position_limits(self, position_limits) -> None:
        """Use new joint limits for the same joints; the motion and its state are kept."""
        self._position_limits = tuple(tuple(pair) for pair in position_limits)
        if self._planner is not None:
            self._planner.set_position_limits(self._position_limits)

    # -- the stream ---------------------------------------------------------------------------

    @property
    def joints(self) -> int:
        """Number of joints."""
        return len(self._position_limits)

    @property
    def measured_position(self) -> Optional[Vector]:
        """The last good measured joint positions, rad, or None before any."""
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
        return self._planned

    @property
    def moving(self) -> bool:
        """Whether a planned motion is under way."""
        planner = self._planner
        return planner is not None and planner.moving

    @property
    def state(self) -> Optional[Sample]:
        """The last commanded sample of the planned motion, or None before any plan."""
        planner = self._planner
        return planner.state if planner is not None else None

    @property
    def last_command(self) -> Optional[Vector]:
        """The position last commanded (or being braked toward), rad; None before any."""
        planner = self._planner
        return planner.state.position if planner is not None else self._last

    def remaining(self) -> float:
        """Seconds of planned motion left."""
        planner = self._planner
        return planner.remaining() if planner is not None else 0.0

    def _start_position(self) -> Vector:
        if self._measured is not None:
            return self._measured
        return self._last if self._last is not None else self._initial

    def _planner_at(self, position):
        """Return a planner at rest at ``position``."""
        from two_bone_ik.motion.planner import MotionPlanner  # Ruckig: only when planning
        return MotionPlanner(self._limits, self._position_limits, 1.0 / self._rate, position,
                             self._check)

    def _new_planner(self, position):
        """Return a planner starting at ``position``; none of its plans has been sent yet."""
        self._sent_plans = 0
        return self._planner_at(position)

    def goal(self, goal: Sequence[float]) -> Step:
        """Command a new goal: joint readings in rad, inside the limits.

        Raises
        ------
        two_bone_ik.motion.trajectory.MotionError
            If the motion cannot be planned (nothing changes then).
        """
        goal = _floats(goal)
        if not self._planned:
            self._last = goal
            return Step(goal, 0.0, True)
        if self._planner is None:
            self._planner = self._new_planner(self._start_position())
        duration = self._planner.plan(goal)
        new = self._take_new_plan()
        if not self._planner.moving:  # already there: one command, nothing to stream
            return Step(self._planner.state.position, 0.0, new)
        return Step(None, duration, new)

    @property
    def rest_position(self) -> Vector:
        """Where the arm rests, or will once the current motion ends (its goal), rad."""
        planner = self._planner
        if planner is None:
            return self._start_position()
        return planner.state.position if not planner.moving else planner.end

    def follow(self, motion, goal: Sequence[float]) -> Step:
        """Start ``motion`` (timed elsewhere: a path from :attr:`rest_position`) now, at rest.

        Raises
        ------
        two_bone_ik.motion.trajectory.MotionError
            If the arm is moving, or the planner's check refuses it (nothing changes then).
        """
        if self._planner is None:
            self._planner = self._new_planner(self._start_position())
        duration = self._planner.follow(motion, goal)
        return Step(None, duration, self._take_new_plan())

    def preview(self, goal: Sequence[float]) -> float:
        """Return the seconds a motion to ``goal`` would take if planned now, changing nothing.

        Safe to call from another thread while the stream is ticked (see
        :meth:`two_bone_ik.motion.planner.MotionPlanner.preview`); 0 without planning.

        Raises
        ------
        two_bone_ik.motion.trajectory.MotionError
            If the motion could not be planned.
        """
        planner = self._planner
        if not self._planned:
            return 0.0
        if planner is None:
            planner = self._planner_at(self._start_position())
        return planner.preview(_floats(goal))

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

    def stop(self) -> Stop:
        """Brake to a standstill and hold there until the next goal."""
        if self._planner is None:
            return Stop(self._last, 0.0, False, '')
        was_moving = self._planner.moving
        brake = self._planner.stop()
        return Stop(brake.position, brake.duration, was_moving and self._take_new_plan(),
                    brake.note)

    def hold(self, position: Sequence[float]) -> Stop:
        """Stop going where the motion goes: come to rest at ``position`` (rad) and hold.

        ``position`` is where the arm was measured, clamped into the joint limits. Without
        planning it is commanded at once; with planning the stream brakes toward it within the
        limits where it can, else brakes where it is (see
        :meth:`~two_bone_ik.motion.planner.MotionPlanner.hold`).
        """
        position = tuple(min(max(float(p), lo), hi)
                         for p, (lo, hi) in zip(position, self._position_limits))
        if not self._planned:
            self._last = position
            return Stop(position, 0.0, True, '')
        if self._planner is None:
            self._planner = self._new_planner(self._start_position())
        brake = self._planner.hold(position)
        return Stop(brake.position, brake.duration, self._take_new_plan(), brake.note)

    def points(self) -> List[TrajectoryPoint]:
        """Return the current motion as points for a trajectory controller, one per period."""
        return self._planner.points() if self._planner is not None else []
