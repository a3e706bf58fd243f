"""The IK node's decisions for one arm: target -> solution -> what to publish (no ROS).

:class:`ArmSession` holds everything the node decides: the arm (its description and solver, see
:class:`~two_bone_ik.session.arm_source.ArmSource`), the commanded motion (see
:class:`~two_bone_ik.session.commanded_motion.CommandedMotion`), the last command, the target
statistics, which motion limits are in force (a URDF's velocity limits stand in for
``max_joint_velocity`` unless it is given), the status texts and ``/diagnostics`` reports,
``~/stop``, the marker picture, and which parameter changes are accepted. It takes a monotonic
clock and returns plain tuples (:mod:`two_bone_ik.session.outputs`); the node converts them to
messages. Tests drive it directly, with a simulated clock and no DDS.

Threads: the node's executor calls everything but :meth:`ArmSession.tick`, which the pacer
thread calls once per command period.
"""

import math
import threading
import time
import traceback
from typing import Any, Callable, Collection, List, Mapping, NamedTuple, Optional, Tuple

from two_bone_ik.arm.config import ArmConfig, GEOMETRY_PARAMETERS, PARAMETER_NAMES
from two_bone_ik.config_error import ConfigError
from two_bone_ik.markers import limit_shapes, Shape, target_shapes, workspace_shapes
from two_bone_ik.motion.limits import check_command_rate, check_planner_available
from two_bone_ik.motion.limits import MotionConfigError, MotionLimits
from two_bone_ik.motion.trajectory import MotionError
from two_bone_ik.session.arm_source import ArmSource
from two_bone_ik.session.commanded_motion import CommandedMotion, shown
from two_bone_ik.session.jog import Jog, twist_problem
from two_bone_ik.session.outputs import LogLine, Report, StopAnswer, TargetAnswer, Tick
from two_bone_ik.session.outputs import TrajectoryCommand
from two_bone_ik.session.reports import arm_report, motion_report
from two_bone_ik.status import LEVELS, NodeStatus
from two_bone_ik.target_solver import describe_without_arm, rejected_result, TargetSolver
from two_bone_ik.target_statistics import TargetStatistics
from two_bone_ik.warning_throttle import WarningThrottle

#: Parameters of the motion (checked and applied apart from the arm's).
MOTION_LIMIT_PARAMETERS = ('max_joint_velocity', 'max_joint_acceleration', 'max_joint_jerk')

#: Minimum seconds between two warnings of the same kind (rejected targets, joint_states).
WARNING_THROTTLE = 5.0

#: How far (s) a joint_states stamp may be ahead of the node's clock (clocks of two computers).
FUTURE_STAMP_TOLERANCE = 1.0

#: Values of the session's parameters that ``values`` may leave out (the node's defaults; the
#: arm's own come from :class:`ArmConfig`).
SESSION_DEFAULTS = {
    'robot_description': '', 'robot_description_topic': '', 'tip_frame': '',
    'max_joint_velocity': (math.inf, math.inf), 'max_joint_acceleration': (math.inf, math.inf),
    'max_joint_jerk': (math.inf, math.inf), 'command_rate': 100.0,
    'initial_positions': (0.0, 0.0), 'twist_timeout': 0.2,
}


def check_twist_timeout(value: Any) -> float:
    """Return ``twist_timeout`` (s) or raise :class:`ConfigError` naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            0.01 <= float(value) <= 10.0):
        raise ConfigError(f'twist_timeout: expected 0.01 to 10 s, got {value!r}')
    return float(value)


class ArmChange(NamedTuple):
    """What a new robot description changed: lines to log, a braking motion, whether to stream."""

    logs: Tuple[LogLine, ...]
    trajectory: Optional[TrajectoryCommand]
    wake: bool


class Picture(NamedTuple):
    """What ``ik_markers`` shows: the arm's own shapes (``arm`` counts arms) and the target's."""

    arm: int
    arm_shapes: Tuple[Shape, ...]
    target_shapes: Tuple[Shape, ...]


def _position_limits(solver: Optional[TargetSolver], joints: int):
    if solver is None:
        return ((-math.inf, math.inf),) * joints
    geometry = solver.geometry
    return tuple(zip(geometry.lower_limits, geometry.upper_limits))


class ArmSession:
    """The IK node's logic for one arm (see the module docstring).

    Parameters
    ----------
    values : mapping
        The node's parameter values by name (the arm's, ``robot_description``,
        ``robot_description_topic``, ``tip_frame``, the motion limits, ``command_rate``,
        ``initial_positions``); those left out take the node's defaults.
    given : collection of str
        The parameters given explicitly (not defaults): a given ``max_joint_velocity`` replaces
        a URDF's velocity limits.
    trajectories : bool
        Whether to build trajectories for a trajectory controller.
    clock : callable
        Monotonic clock, s.

    Raises
    ------
    ConfigError
        If a value is invalid (the message starts with the parameter's name).
    """

    def __init__(self, values: Mapping[str, Any], given: Collection[str] = (),
                 trajectories: bool = False, clock: Callable[[], float] = time.monotonic):
        values = {**SESSION_DEFAULTS, **values}
        self._arm = ArmSource(ArmConfig.from_mapping(values), values['robot_description'],
                              values['robot_description_topic'], values['tip_frame'])
        self._limits = MotionLimits.checked(*(values[name] for name in MOTION_LIMIT_PARAMETERS))
        self._velocity_from_urdf = 'max_joint_velocity' not in given
        initial = tuple(values['initial_positions'])
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in initial):
            raise MotionConfigError(f'initial_positions: expected finite angles, got '
                                    f'{list(initial)!r}')
        solver = self._arm.solver
        names = solver.geometry.joint_names if solver else self._arm.config.joint_names
        limits = self._limits_for(solver)
        check_planner_available(limits, 'max_joint_velocity' if limits == self._limits
                                else 'robot_description')
        self._bounds = _position_limits(solver, len(names))
        self._convention = None if solver is None else (
            tuple(names), solver.geometry.zero_angles, solver.geometry.directions)
        self._motion = CommandedMotion(limits, self._bounds,
                                       check_command_rate(values['command_rate']), initial,
                                       names, trajectories)
        self._given = frozenset(given)
        self._stats = TargetStatistics(clock())
        self._clock = clock
        self._throttle = WarningThrottle(WARNING_THROTTLE, clock)
        self._unexpected = set()  # last lines of unexpected tracebacks already logged
        self._previous: Optional[Tuple[float, ...]] = None  # the last commanded readings
        self._last_target = None  # (position, status, readings or None) for the markers
        self._arm_count = 0  # arms in force since start (a new one redraws its markers)
        self._arm_shapes: Optional[Tuple[Shape, ...]] = None
        self._jog = Jog(check_twist_timeout(values['twist_timeout']))
        self._jog_lock = threading.Lock()  # the jog, between the executor and the pacer
        self._jog_result = None  # the outcome of the jog's last point
        self._refusal = ''  # why the last joint_states message was refused
        self._measured_stamp = 0.0  # the newest stamp of a measurement taken, s
        #: Whether ``ik_markers`` has a new picture to show.
        self.picture_due = True

    # -- what is in force ---------------------------------------------------------------------

    @property
    def config(self) -> ArmConfig:
        """The configuration in force."""
        return self._arm.config

    @property
    def solver(self) -> Optional[TargetSolver]:
        """The arm's solver; None while no robot description has come from the topic."""
        return self._arm.solver

    @property
    def joint_names(self) -> Tuple[str, ...]:
        """The joints commands name (the arm's, in order)."""
        return self._motion.names

    @property
    def planned(self) -> bool:
        """True when any motion limit is finite, so motions are planned and joint_states matter."""
        return self._motion.stream.planned

    @property
    def moving(self) -> bool:
        """Whether a planned motion streams (or waits to)."""
        return self._motion.moving

    @property
    def period(self) -> float:
        """The command period in force, s."""
        return 1.0 / self._motion.stream.rate

    @property
    def last_status(self) -> Optional[NodeStatus]:
        """Status of the last target, or None before the first."""
        return self._stats.last_status

    def _limits_for(self, solver: Optional[TargetSolver]) -> MotionLimits:
        """Return the motion limits in force: max_joint_velocity, or the URDF's velocities."""
        if self._velocity_from_urdf and solver is not None and self._arm.from_urdf:
            return self._limits._replace(velocity=solver.geometry.velocity_limits)
        return self._limits

    def start_logs(self) -> Tuple[LogLine, ...]:
        """Return the lines the node logs once it is ready."""
        logs = []
        if self._arm.from_urdf:
            given = sorted(set(GEOMETRY_PARAMETERS) & self._given)
            if given:
                logs.append(LogLine('warning', f"ignoring {', '.join(given)}: the arm comes "
                                               'from its robot description'))
        if self.solver is not None:
            logs.append(LogLine('info', 'ready: ' + self._arm_line()))
        else:
            logs.append(LogLine('info', f"ready: waiting for the arm's URDF on {self._arm.topic}; "
                                        'targets are answered NO_ARM_DESCRIPTION until it comes'))
        return tuple(logs)

    def _arm_line(self) -> str:
        config, geometry = self._arm.config, self.solver.geometry
        source = 'its URDF' if self._arm.from_urdf else 'its parameters'
        return (f'arm from {source}: {geometry.describe()}, joints '
                f"{', '.join(geometry.joint_names)}, elbow {config.elbow}, "
                f"{'limited' if geometry.limited else 'unlimited'} joints")

    # -- targets ------------------------------------------------------------------------------

    def _solve(self, frame_id: str, position):
        solver = self.solver
        if solver is None:
            return rejected_result(NodeStatus.NO_ARM_DESCRIPTION, frame_id, position), ()
        try:
            return solver.solve(frame_id, *position, self._previous), ()
        except Exception:  # noqa: B902 - the safety net: a target never ends the node
            return rejected_result(NodeStatus.INVALID_TARGET, frame_id, position), \
                self._unexpected_failure(frame_id, position)

    def _unexpected_failure(self, frame_id: str, position) -> Tuple[LogLine, ...]:
        """Return the traceback of a solve that raised, to log once per kind."""
        text = traceback.format_exc()
        key = text.strip().splitlines()[-1]
        if key in self._unexpected:
            return ()
        self._unexpected.add(key)
        return (LogLine('error', f'unexpected error solving target {tuple(position)!r} in '
                                 f"'{frame_id}'; answered INVALID_TARGET:\n{text}"),)

    def target(self, frame_id: str, x: float, y: float, z: float) -> TargetAnswer:
        """Solve a target and command it; return what to publish and log (a jog ends)."""
        with self._jog_lock:
            self._jog.stop()
        result, logs = self._solve(frame_id, (x, y, z))
        command = trajectory = None
        moving, remaining, wake = self._motion.moving, 0.0, False
        if not result.rejected:
            try:
                planned = self._motion.command(result.readings)
            except MotionError as error:
                result = result._replace(status=NodeStatus.MOTION_FAILED, reachable=False)
                logs += (LogLine('error', self._failure_text(result, error)),)
            else:
                self._previous = result.readings
                command, trajectory = planned.command, planned.trajectory
                moving, remaining, wake = planned.moving, planned.remaining, planned.wake
        self._stats.record(result.status)
        commanded = result.status is not NodeStatus.MOTION_FAILED and not result.rejected
        self._last_target = (result.position, result.status,
                             result.readings if commanded else None)
        self.picture_due = True
        if result.rejected and result.status is not NodeStatus.MOTION_FAILED and \
                self._throttle.allow(result.status):
            logs += (LogLine('warning', self.describe(result)),)
        return TargetAnswer(result, command, trajectory, moving, remaining, wake, logs)

    def _failure_text(self, result, error) -> str:
        return (f'{NodeStatus.MOTION_FAILED.name}: target solved, but no motion to '
                f'{shown(result.readings)} rad could be planned: {error}; nothing new commanded')

    def describe(self, result) -> str:
        """One line about a target's outcome, starting with its status name."""
        if result.status is NodeStatus.MOTION_FAILED:
            return (f'{NodeStatus.MOTION_FAILED.name}: target solved, but no motion to '
                    f'{shown(result.readings)} rad could be planned within the motion limits; '
                    'nothing new commanded (the log says why)')
        if self.solver is None:
            return describe_without_arm(result)
        return self.solver.describe(result)

    def status(self, answer: TargetAnswer) -> Tuple[int, str, Tuple[Tuple[str, str], ...]]:
        """Return the ``ik_status`` of a target or twist: level, message, (key, value) pairs."""
        result = answer.result
        values = TargetSolver.values(result) + (
            ('moving', 'true' if answer.moving else 'false'),
            ('motion_remaining', f'{answer.remaining:.6f}')) + self.jog_values()
        text = self.describe(result)
        if self._jog.active:
            text += ('; jogging: sliding along the boundary' if self._jog.sliding
                     else '; jogging')
        return LEVELS[result.status], text, values

    # -- the measured state, the stream, stop -------------------------------------------------

    def measured(self, names, positions, stamp: float = 0.0,
                 now: Optional[float] = None) -> Tuple[LogLine, ...]:
        """Take a ``joint_states`` message; a message the session cannot use changes nothing.

        Parameters
        ----------
        names, positions : sequence
            The message's joint names and positions (rad).
        stamp : float
            Its ``header.stamp``, s (0: unstamped).
        now : float, optional
            The node's clock, s, to refuse stamps from the future.

        Returns
        -------
        tuple of LogLine
            A (throttled) warning when the message was refused.
        """
        reason = self._stamp_problem(stamp, now)
        if not reason and len(names) != len(positions):
            reason = f'{len(names)} names but {len(positions)} positions'
        if not reason:
            reason = self._motion.measured(
                {str(name): float(value) for name, value in zip(names, positions)})
        if not reason:
            self._measured_stamp = max(self._measured_stamp, stamp)
        self._refusal = reason
        if reason and self._throttle.allow('joint_states'):
            return (LogLine('warning', f'joint_states: ignoring a measurement: {reason}; '
                                       'motions start from the last good one'),)
        return ()

    def _stamp_problem(self, stamp: float, now: Optional[float]) -> str:
        if not math.isfinite(stamp):
            return f'stamp {stamp!r}'
        if stamp < self._measured_stamp:
            return (f'stamped {stamp:.9f} s, older than the last measurement '
                    f'({self._measured_stamp:.9f} s)')
        if now is not None and stamp > now + FUTURE_STAMP_TOLERANCE:
            return (f"stamped {stamp:.3f} s, {stamp - now:.3f} s ahead of this node's clock "
                    '(a clock of another kind? see use_sim_time)')
        return ''

    def tick(self) -> Tick:
        """Stream one command period (pacer thread): a jog's next point, then the stream."""
        with self._jog_lock:
            logs = self._jog_step()
            jogging = self._jog.active
        tick = self._motion.tick()
        if logs:
            tick = tick._replace(logs=tick.logs + logs)
        return tick._replace(more=True) if jogging else tick

    def stop(self) -> StopAnswer:
        """``~/stop``: brake within the limits and hold until the next target (a jog ends)."""
        with self._jog_lock:
            self._jog.stop()
        message, trajectory, wake = self._motion.stop()
        return StopAnswer(message, trajectory, wake)

    # -- jogging --------------------------------------------------------------------------------

    def _commanded_tip(self):
        """Where the commanded (else measured, else initial) position puts the tip, m."""
        stream = self._motion.stream
        readings = stream.last_command or stream.measured_position or self._motion.initial
        return self.solver.geometry.tip_position(readings)

    def twist(self, frame_id: str, linear, angular) -> TargetAnswer:
        """Take a ``target_twist``: start or steer a jog; answer with where the jog is.

        ``linear`` (m/s) moves the jog point in ``base_frame``; ``angular`` turns nothing on
        a planar arm (it has no wrist).
        """
        problem = twist_problem(linear, angular)
        status = None
        if self.solver is None:
            status = NodeStatus.NO_ARM_DESCRIPTION
        elif frame_id and frame_id != self.config.base_frame:
            status = NodeStatus.WRONG_FRAME
            problem = (f"twist frame '{frame_id}' is not base_frame '{self.config.base_frame}'; "
                       'nothing moves')
        elif problem:
            status = NodeStatus.INVALID_TARGET
        if status is not None:
            result = rejected_result(status, frame_id, tuple(linear))
            logs = ()
            if self._throttle.allow(('twist', status)):
                logs = (LogLine('warning', f'target_twist refused: {problem or status.name}'),)
            return TargetAnswer(result, None, None, self.moving, 0.0, False, logs)
        with self._jog_lock:
            if not self._jog.active:
                self._jog_result = None
            self._jog.twist(linear, self._clock(), self._commanded_tip())
            result = self._jog_result
            if result is None:
                result, _ = self._solve('', self._jog.point)
        return TargetAnswer(result, None, None, True, 0.0, True, ())

    def _jog_step(self) -> Tuple[LogLine, ...]:
        """Move the jog point on by one period and aim the motion at it (pacer thread)."""
        point = self._jog.step(self.period, self._clock())
        if point is None:
            return ()
        result, logs = self._solve('', point)
        if result.rejected:  # too far to solve: the jog ends where the arm is
            self._jog.stop()
            return logs + (LogLine('warning', 'jogging stopped: ' + self.describe(result)),)
        was_sliding = self._jog.sliding
        self._jog.put_back(self.solver.geometry.tip_position(result.readings),
                           sliding=not result.reachable)
        self._previous = result.readings
        self._jog_result = result
        self._motion.aim(result.readings)
        if self._jog.sliding and not was_sliding:
            logs += (LogLine('info', 'jogging: sliding along the boundary: '
                             + self.describe(result)),)
        return logs

    def jog_values(self) -> Tuple[Tuple[str, str], ...]:
        """Return the ``ik_status`` values about jogging."""
        state = 'stopped'
        if self._jog.active:
            state = 'sliding' if self._jog.sliding else 'following'
        speed = math.sqrt(sum(v * v for v in self._jog.velocity))
        return (('jog', state), ('jog_speed', f'{speed:.6f}'))

    # -- the arm --------------------------------------------------------------------------------

    def receive_description(self, text: str) -> ArmChange:
        """Take a robot description from the topic (identical: nothing changes)."""
        arm = self._arm
        try:
            solver = arm.receive(text, accept=self._check_motion_for)
        except ConfigError as error:
            kept = ('the previous arm stays in force' if arm.solver is not None
                    else 'targets stay NO_ARM_DESCRIPTION')
            return ArmChange((LogLine('error', f'refused the robot description from '
                                               f'{arm.topic}: {error}; {kept}'),), None, False)
        if solver is None:
            return ArmChange((), None, False)
        trajectory, wake = self._use(solver, brake=True)
        return ArmChange((LogLine('info', f'{arm.topic}: ' + self._arm_line()),), trajectory,
                         wake)

    def _check_motion_for(self, solver: TargetSolver) -> None:
        check_planner_available(self._limits_for(solver), 'robot_description')

    def _use(self, solver: TargetSolver, brake: bool = True):
        """Drive a new arm from now on; return a braking trajectory and whether to stream.

        With ``brake`` (a new description), or when the joints or their limits change, the
        motion in flight brakes (as ``~/stop``) and the new limits and names apply; a change of
        solving options alone (``elbow``...) leaves the motion alone.
        """
        geometry = solver.geometry
        convention = (tuple(geometry.joint_names), geometry.zero_angles, geometry.directions)
        if convention != self._convention:
            self._previous = None  # readings of another joint convention mean nothing here
            self._convention = convention
        self._arm_count += 1
        self._arm_shapes = None
        self.picture_due = True
        bounds = _position_limits(solver, len(geometry.joint_names))
        if not brake and (convention[0], bounds) == (self._motion.names, self._bounds):
            return None, False
        self._bounds = bounds
        return self._motion.new_arm(geometry.joint_names, bounds, self._limits_for(solver))

    # -- parameters -----------------------------------------------------------------------------

    def _limits_with(self, changes: Mapping[str, Any]) -> MotionLimits:
        return MotionLimits.checked(*(changes.get(name, current) for name, current in
                                      zip(MOTION_LIMIT_PARAMETERS, self._limits)))

    def check(self, changes: Mapping[str, Any]) -> Optional[str]:
        """Return why a parameter change is refused, or None to accept it (changes nothing)."""
        try:
            config_changes = {k: v for k, v in changes.items() if k in PARAMETER_NAMES}
            if config_changes:  # (checking parses a URDF again: only when something changes)
                self._arm.changed_config(config_changes)
            motion = [name for name in MOTION_LIMIT_PARAMETERS if name in changes]
            if motion:
                check_planner_available(self._limits_with(changes), motion[0])
            if 'command_rate' in changes:
                check_command_rate(changes['command_rate'])
            if 'twist_timeout' in changes:
                check_twist_timeout(changes['twist_timeout'])
        except ConfigError as error:
            return str(error)
        return None

    def apply(self, changes: Mapping[str, Any]) -> ArmChange:
        """Apply a parameter change :meth:`check` accepted.

        Returns
        -------
        ArmChange
            Lines to log, and a braking motion when new joint limits stopped the arm.
        """
        logs: List[LogLine] = []
        trajectory, wake = None, False
        motion = {k: v for k, v in changes.items()
                  if k in MOTION_LIMIT_PARAMETERS or k == 'command_rate'}
        if any(name in changes for name in MOTION_LIMIT_PARAMETERS):
            self._limits = self._limits_with(changes)
            if 'max_joint_velocity' in changes:
                self._velocity_from_urdf = False
            self._motion.set_limits(self._limits_for(self.solver))
        if 'command_rate' in changes:
            self._motion.set_rate(changes['command_rate'])
        if 'twist_timeout' in changes:
            self._jog.timeout = float(changes['twist_timeout'])
        if motion:
            logs.append(LogLine('info', 'motion: ' + ', '.join(
                f'{name}={value!r}' for name, value in motion.items())))
        config_changes = {k: v for k, v in changes.items() if k in PARAMETER_NAMES}
        if config_changes:
            config = self._arm.changed_config(config_changes)
            solver = self._arm.use_config(config)
            if solver is not None:
                trajectory, wake = self._use(solver, brake=False)
            logs.append(LogLine('info', 'parameters changed: ' + ', '.join(
                f'{name}={getattr(config, name)!r}' for name in config_changes)))
        return ArmChange(tuple(logs), trajectory, wake)

    # -- reports and pictures -------------------------------------------------------------------

    def reports(self, subscribers: Mapping[str, int]) -> List[Report]:
        """Return the three ``/diagnostics`` statuses: targets, arm, motion.

        ``subscribers``: the subscribers of each command output, by topic.
        """
        level, message, values = self._stats.report(self._clock())
        return [Report(level, 'targets', message, values), arm_report(self._arm),
                motion_report(self._motion, subscribers, self._refusal)]

    def picture(self) -> Picture:
        """Return what ``ik_markers`` shows now (the arm's shapes are built once per arm)."""
        self.picture_due = False
        solver = self.solver
        if solver is None:
            return Picture(self._arm_count, (), ())
        geometry = solver.geometry
        if self._arm_shapes is None:
            self._arm_shapes = tuple(workspace_shapes(geometry) + limit_shapes(geometry))
        shapes = ()
        if self._last_target is not None:
            shapes = tuple(target_shapes(geometry, *self._last_target))
        return Picture(self._arm_count, self._arm_shapes, shapes)
