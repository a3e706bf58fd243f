"""Did the arm get there? The rules behind ``motion_status``, on an injected clock (no ROS).

:class:`ArrivalMonitor` follows the arm's measured readings (``joint_states``, by joint name,
each timed on arrival by the clock) and one command at a time. The session tells it when a
command starts (:meth:`ArrivalMonitor.command`), and once per command period (the pacer's
tick) asks it to :meth:`~ArrivalMonitor.check` against what is commanded now and whether the
motion still streams. Each call answers with at most one :class:`Verdict`, in this order:

- ``MOVING`` when a command starts: one per command (a target, a jog, ``~/stop``'s braking
  end); a new command ends the monitoring of the one before, which says nothing more;
- ``NOT_MONITORED`` when, ``state_timeout`` after the command started, no commanded joint has
  had a reading for ``state_timeout``: nobody publishes ``joint_states`` for these joints;
  arrival is unknown, the command has gone out as usual;
- ``NOT_FOLLOWING`` (a) when a commanded joint had no reading for ``state_timeout`` while some
  other did (or all stopped after the command had readings), counted from its last reading
  or from the command's start, whichever is later; (b) during a streamed (planned) motion,
  when a joint's reading lags the command streamed now by more than its ``path_tolerance``
  (``inf``: not checked). The session then stops streaming and holds where the arm is;
- ``ARRIVED`` once the motion has ended (the last sample streamed, or a step commanded) and
  every joint has a reading, taken since then, within ``goal_tolerance`` of the final
  command;
- ``GOAL_MISSED`` when that has not happened ``goal_time`` seconds after the end (``goal_time``
  0: no limit, as joint_trajectory_controller's; the command is followed until it arrives or
  another comes).

Every verdict but ``MOVING`` ends the monitoring of its command. Without motion planning (one
command per target) there is no path to follow: only the timeouts and the goal apply.
Continuous joints (unlimited both ways) are compared modulo a whole turn.
"""

import math
import threading
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.ik.status import MotionStatus

Vector = Tuple[float, ...]
Readings = Tuple[Optional[float], ...]

#: The parameters' defaults: rad, rad, s, s.
DEFAULT_GOAL_TOLERANCE = 0.02
DEFAULT_PATH_TOLERANCE = 0.5
DEFAULT_GOAL_TIME = 2.0
DEFAULT_STATE_TIMEOUT = 0.5

#: Bounds of the two times, s.
GOAL_TIME_BOUNDS = (0.0, 3600.0)
STATE_TIMEOUT_BOUNDS = (0.01, 60.0)

#: The arrival parameters, in the order the docs list them.
ARRIVAL_PARAMETERS = ('goal_tolerance', 'path_tolerance', 'goal_time', 'state_timeout')


def stamp_id(stamp: int) -> str:
    """Return the ``target_id`` of a target stamped ``stamp`` (ns): ``sec.nanosec``.

    Nine digits of nanoseconds, e.g. ``1718000000.250000000``, as the tools write a stamp.
    """
    return f'{stamp // 1_000_000_000}.{stamp % 1_000_000_000:09d}'


class ArrivalSettings(NamedTuple):
    """The arrival rules' parameters: per joint tolerances (rad) and two times (s)."""

    goal_tolerance: Vector
    path_tolerance: Vector
    goal_time: float
    state_timeout: float


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _tolerances(name: str, value: Any, joints: int, default: float, infinite: bool) -> Vector:
    """Return one tolerance per joint; the two-joint default fits any number of joints."""
    what = (f'{joints} positive values in rad' + (' (.inf: not checked)' if infinite else ''))
    sequence = hasattr(value, '__len__') and not isinstance(value, (str, bytes))
    items = list(value) if sequence else None  # (rclpy gives a double array as array.array)
    if items is None or not all(_number(v) for v in items):
        raise ConfigError(f'{name}: expected {what}, got {value!r}')
    if items and len(items) != joints and all(v == default for v in items):
        return (float(default),) * joints
    values = tuple(float(v) for v in items)
    if len(values) != joints or not all(
            v > 0.0 and (infinite or math.isfinite(v)) for v in values):  # NaN fails too
        raise ConfigError(f'{name}: expected {what}, got {list(values)!r}')
    return values


def _seconds(name: str, value: Any, bounds: Tuple[float, float]) -> float:
    if not _number(value) or not bounds[0] <= float(value) <= bounds[1]:
        raise ConfigError(f'{name}: expected {bounds[0]:g} to {bounds[1]:g} s, got {value!r}')
    return float(value)


def arrival_settings(values: Mapping[str, Any], joints: int) -> ArrivalSettings:
    """Return the arrival settings from the parameters' values (missing ones: the defaults).

    Raises
    ------
    ConfigError
        Naming the parameter, unless ``goal_tolerance`` holds one positive finite value per
        joint, ``path_tolerance`` one positive value per joint (``inf`` allowed), ``goal_time``
        is 0 to 3600 s and ``state_timeout`` 0.01 to 60 s. A tolerance left at its default (two
        equal values) fits any number of joints.
    """
    return ArrivalSettings(
        _tolerances('goal_tolerance', values.get('goal_tolerance', [DEFAULT_GOAL_TOLERANCE] * 2),
                    joints, DEFAULT_GOAL_TOLERANCE, infinite=False),
        _tolerances('path_tolerance', values.get('path_tolerance', [DEFAULT_PATH_TOLERANCE] * 2),
                    joints, DEFAULT_PATH_TOLERANCE, infinite=True),
        _seconds('goal_time', values.get('goal_time', DEFAULT_GOAL_TIME), GOAL_TIME_BOUNDS),
        _seconds('state_timeout', values.get('state_timeout', DEFAULT_STATE_TIMEOUT),
                 STATE_TIMEOUT_BOUNDS))


class Verdict(NamedTuple):
    """One ``motion_status``: what the monitor decided about a command.

    Attributes
    ----------
    status : MotionStatus
    target_id : str
        The command's id (the target's stamp, ``twist``, ``stop``).
    text : str
        Why, in words, without the status name.
    names : tuple of str
        The joints.
    commanded : tuple of float
        What the readings are compared with: the command streamed now (``NOT_FOLLOWING``) or
        the final command (the others; for ``MOVING`` the goal, or the command in force when
        the goal is not known yet).
    measured : tuple of (float or None)
        The latest readings within ``state_timeout`` per joint, None where there is none.
    errors : tuple of (float or None)
        ``measured - commanded`` per joint (a continuous joint's modulo a whole turn, in
        [-pi, pi]), None where there is no reading.
    target : any
        What the session passed with the command (the target point), untouched.
    """

    status: MotionStatus
    target_id: str
    text: str
    names: Tuple[str, ...]
    commanded: Vector
    measured: Readings
    errors: Readings
    target: Any = None


class _Command:
    """The command being monitored."""

    def __init__(self, target_id: str, goal: Optional[Vector], origin: Vector, planned: bool,
                 start: float, moving: bool, monitored: bool, target: Any):
        self.target_id = target_id
        self.goal = goal
        self.origin = origin  # what was commanded when it came (where its motion starts)
        self.planned = planned
        self.start = start
        self.ended: Optional[float] = None if moving else start
        self.monitored = monitored  # some commanded joint had a reading meanwhile
        self.target = target


def _worst(errors: Sequence[Optional[float]], tolerances: Sequence[float]) -> int:
    """Index of the joint furthest out of its tolerance (as a multiple of it)."""
    ratios = [abs(e) / t if e is not None and t > 0.0 else -1.0
              for e, t in zip(errors, tolerances)]
    return max(range(len(ratios)), key=ratios.__getitem__)


class ArrivalMonitor:
    """Decides ``motion_status`` for one arm (see the module docstring).

    Thread-safe: the executor feeds readings and commands, the pacer checks.

    Parameters
    ----------
    names : sequence of str
        The arm's joints, in command order.
    settings : ArrivalSettings
    clock : callable
        Monotonic clock, s.
    continuous : sequence of bool, optional
        Per joint, whether it is continuous (compared modulo a whole turn).
    """

    def __init__(self, names: Sequence[str], settings: ArrivalSettings,
                 clock: Callable[[], float], continuous: Sequence[bool] = ()):
        self._lock = threading.Lock()
        self._clock = clock
        self._settings = settings
        self._readings: Dict[str, Tuple[float, float]] = {}  # name -> (position, received)
        self._command: Optional[_Command] = None
        self._names: Tuple[str, ...] = ()
        self._continuous: Tuple[bool, ...] = ()
        self.set_arm(names, continuous)
        #: The last verdict's status, None before the first.
        self.last_status: Optional[MotionStatus] = None

    # -- what is in force -----------------------------------------------------------------------

    @property
    def settings(self) -> ArrivalSettings:
        """The rules' parameters in force."""
        return self._settings

    @property
    def active(self) -> bool:
        """Whether a command is being monitored (the pacer must keep checking)."""
        return self._command is not None

    def set_settings(self, settings: ArrivalSettings) -> None:
        """Use new parameters from the next check on (the command in flight included)."""
        self._settings = settings

    def set_arm(self, names: Sequence[str], continuous: Sequence[bool] = ()) -> None:
        """Follow another arm's joints; the command in flight is no longer monitored."""
        with self._lock:
            self._names = tuple(names)
            self._continuous = tuple(continuous) or (False,) * len(self._names)
            self._command = None

    def end(self) -> None:
        """Stop monitoring the command in flight (``~/stop``); it says nothing more."""
        with self._lock:
            self._command = None

    # -- inputs ---------------------------------------------------------------------------------

    def measured(self, positions: Mapping[str, float]) -> None:
        """Take readings by joint name (rad), timed now; non-finite ones are ignored."""
        now = self._clock()
        with self._lock:
            for name, value in positions.items():
                if math.isfinite(value):
                    self._readings[name] = (float(value), now)

    def readings(self) -> Readings:
        """Return the latest readings within ``state_timeout`` per joint (None: none)."""
        with self._lock:
            return self._fresh(self._clock())

    def _fresh(self, now: float) -> Readings:
        timeout = self._settings.state_timeout
        found = (self._readings.get(name) for name in self._names)
        return tuple(None if r is None or now - r[1] >= timeout else r[0] for r in found)

    def command(self, target_id: str, goal: Optional[Sequence[float]],
                commanded: Sequence[float], planned: bool, moving: bool,
                target: Any = None, text: str = '') -> Verdict:
        """Start monitoring a command; return its ``MOVING``.

        Parameters
        ----------
        target_id : str
            Its id in ``motion_status``.
        goal : sequence of float or None
            The final command, rad; None when only the motion's end will tell (a jog, a stop).
        commanded : sequence of float
            What is commanded now (where the motion starts), rad.
        planned : bool
            Whether it is streamed as a planned motion (then the path is checked).
        moving : bool
            Whether a motion streams (or waits to) toward it; False: commanded as one step (or
            already there), so its end is now.
        target : any
            Passed back in every verdict about it.
        text : str
            The ``MOVING`` message (empty: :mod:`~two_bone_ik.session.motion_status` says
            where it goes).
        """
        now = self._clock()
        goal = None if goal is None else tuple(float(v) for v in goal)
        origin = tuple(float(v) for v in commanded)
        with self._lock:
            fresh = self._fresh(now)
            self._command = _Command(target_id, goal, origin, planned, now, moving,
                                     any(r is not None for r in fresh), target)
            return self._verdict(MotionStatus.MOVING, self._command, text,
                                 goal if goal is not None else origin, fresh)

    # -- the checks -----------------------------------------------------------------------------

    def check(self, commanded: Sequence[float], moving: bool) -> Optional[Verdict]:
        """Apply the rules now; return a verdict, or None while nothing is decided.

        Parameters
        ----------
        commanded : sequence of float
            What is commanded now (the last sample streamed), rad.
        moving : bool
            Whether the motion still streams (or a jog runs).
        """
        commanded = tuple(float(v) for v in commanded)
        with self._lock:
            command = self._command
            if command is None:
                return None
            now = self._clock()
            fresh = self._fresh(now)
            if any(r is not None for r in fresh):
                command.monitored = True
            if moving:
                command.ended = None  # (a goal queued behind a motion keeps it going)
            elif command.ended is None:
                command.ended = now
            verdict = (self._state_verdict(command, now, fresh)
                       or self._path_verdict(command, commanded, moving, fresh)
                       or self._goal_verdict(command, commanded, now, fresh))
            if verdict is not None:
                self._command = None
            return verdict

    def _state_verdict(self, command: _Command, now: float, fresh: Readings) -> Optional[Verdict]:
        """``NOT_MONITORED`` or ``NOT_FOLLOWING`` for readings that do not come."""
        timeout = self._settings.state_timeout
        if not command.monitored:
            if now - command.start < timeout:
                return None
            return self._verdict(
                MotionStatus.NOT_MONITORED, command,
                'no joint_states from anyone: is the driver or sim running? (none for '
                f"{', '.join(self._names)} within state_timeout {timeout:g} s; the command "
                'went out, arrival unknown)', command.goal or command.origin, fresh)
        silent = []
        for name in self._names:
            reading = self._readings.get(name)
            since = command.start if reading is None else max(reading[1], command.start)
            if now - since >= timeout:
                silent.append((name, now - (command.start if reading is None else reading[1])))
        if not silent:
            return None
        quiet = ', '.join(f'{name} for {age:.2f} s' for name, age in silent)
        return self._verdict(
            MotionStatus.NOT_FOLLOWING, command,
            f'no joint_states for {quiet} (state_timeout {timeout:g} s): is its driver or servo '
            'answering? Streaming stopped; holding where the arm is',
            command.goal or command.origin, fresh)

    def _errors(self, measured: Readings, commanded: Vector) -> Readings:
        """Return readings minus command per joint (a continuous joint's modulo a turn)."""
        return tuple(None if m is None else (math.remainder(m - c, math.tau) if wrap else m - c)
                     for m, c, wrap in zip(measured, commanded, self._continuous))

    def _path_verdict(self, command: _Command, commanded: Vector, moving: bool,
                      fresh: Readings) -> Optional[Verdict]:
        """``NOT_FOLLOWING`` for a joint that lags the streamed command (planned motions).

        Lagging is being behind along the way the command travels (from where it started
        toward the goal; a joint not to move: either way). An arm ahead of the stream (a
        trajectory controller playing the motion sooner, a sim faster than real time) is
        not stalled: the goal decides about it.
        """
        if not (moving and command.planned):
            return None
        tolerance = self._settings.path_tolerance
        final = command.goal if command.goal is not None else commanded
        travel = self._errors(final, command.origin)  # (the same wrap as the errors)
        errors = tuple(None if e is None or e * t > 0.0 else e
                       for e, t in zip(self._errors(fresh, commanded), travel))
        worst = _worst(errors, tolerance)
        error = errors[worst]
        if error is None or abs(error) <= tolerance[worst]:
            return None
        return self._verdict(
            MotionStatus.NOT_FOLLOWING, command,
            f'{self._names[worst]} lags its command by {abs(error):.2f} rad (path_tolerance '
            f'{tolerance[worst]:g} rad): stalled or blocked? Streaming stopped; holding where '
            'the arm is', commanded, fresh)

    def _goal_verdict(self, command: _Command, commanded: Vector, now: float,
                      fresh: Readings) -> Optional[Verdict]:
        """``ARRIVED`` or ``GOAL_MISSED`` once the motion has ended."""
        if command.ended is None:
            return None
        final = command.goal if command.goal is not None else commanded
        tolerance = self._settings.goal_tolerance
        errors = self._errors(fresh, final)
        since_end = tuple(None if e is None or self._readings[n][1] < command.ended else e
                          for e, n in zip(errors, self._names))
        elapsed = now - command.ended
        if all(e is not None and abs(e) <= t for e, t in zip(since_end, tolerance)):
            return self._verdict(
                MotionStatus.ARRIVED, command,
                f'every joint within goal_tolerance of the command {elapsed:.2f} s after the '
                "motion's end", final, fresh)
        goal_time = self._settings.goal_time
        if goal_time == 0.0 or elapsed < goal_time:  # (0: no limit, as a JTC's goal_time)
            return None
        worst = _worst(errors, tolerance)
        return self._verdict(MotionStatus.GOAL_MISSED, command, (
            f'{self._missed(worst, errors[worst], final, command.origin)}: stalled or '
            f"blocked? ({goal_time:g} s after the motion's end; goal_tolerance "
            f'{tolerance[worst]:g} rad)'), final, fresh)

    def _missed(self, joint: int, error: Optional[float], final: Vector, origin: Vector) -> str:
        """``shoulder_lift stopped 0.31 rad short``: how a joint missed its goal."""
        name = self._names[joint]
        if error is None:
            return f'{name} has no reading since the motion ended'
        travel = final[joint] - origin[joint]
        if self._continuous[joint]:
            travel = math.remainder(travel, math.tau)
        where = 'short' if travel * error < 0.0 else ('past its goal' if travel else 'off')
        return f'{name} stopped {abs(error):.2f} rad {where}'

    def _verdict(self, status: MotionStatus, command: _Command, text: str, commanded: Vector,
                 measured: Readings) -> Verdict:
        self.last_status = status
        return Verdict(status, command.target_id, text, self._names, commanded, measured,
                       self._errors(measured, commanded), command.target)
