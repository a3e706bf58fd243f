"""The IK node's decisions for one arm: target -> solution -> what to publish (no ROS).

:class:`ArmSession` holds everything the node decides: the arm (its description and solver, see
:class:`~two_bone_ik.session.arm_source.ArmSource`), the commanded motion (see
:class:`~two_bone_ik.session.commanded_motion.CommandedMotion`), the last command, the target
statistics, which motion limits are in force (a URDF's velocity limits stand in for
``max_joint_velocity`` unless it is given), the status texts and ``/diagnostics`` reports,
``~/stop``, the marker picture, whether the arm got there (``motion_status``, see
:mod:`two_bone_ik.session.arrival`: checked once per command period by the pacer while a command
is followed), and which parameter changes are accepted. It takes a monotonic clock and returns
plain tuples (:mod:`two_bone_ik.session.outputs`); the node converts them to messages. Tests
drive it directly, with a simulated clock and no DDS.

Threads: the node's executor calls everything but :meth:`ArmSession.tick`, which the pacer
thread calls once per command period.
"""

import math
import threading
import time
import traceback
from typing import Any, Callable, Collection, List, Mapping, NamedTuple, Optional, Tuple

from two_bone_ik.arm.config import ArmConfig, GEOMETRY_PARAMETERS
from two_bone_ik.arm.geometry import dot
from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.common.warning_throttle import WarningThrottle
from two_bone_ik.ik.desktop_target_solver import DesktopTargetSolver
from two_bone_ik.ik.markers import arm_shapes, obstacle_shapes, Shape, target_shapes
from two_bone_ik.ik.markers import turning_shapes
from two_bone_ik.ik.status import LEVELS, MotionStatus, NodeStatus
from two_bone_ik.ik.target_frame import needs_transform, rotate, TransformLookup
from two_bone_ik.ik.target_solver import describe_without_arm, rejected_result, TargetSolver
from two_bone_ik.motion.limits import check_command_rate, check_planner_available
from two_bone_ik.motion.limits import initial_positions_for, MotionLimits
from two_bone_ik.motion.trajectory import MotionError
from two_bone_ik.session.arm_source import ARM_PARAMETERS, ArmSource
from two_bone_ik.session.arrival import ARRIVAL_PARAMETERS, arrival_settings, ArrivalMonitor
from two_bone_ik.session.arrival import stamp_id
from two_bone_ik.session.commanded_motion import CommandedMotion, shown
from two_bone_ik.session.jog import Jog, slid, twist_problem
from two_bone_ik.session.motion_status import motion_status, tool_point_values
from two_bone_ik.session.outputs import LogLine, MotionStatusReport, Report, StopAnswer
from two_bone_ik.session.outputs import TargetAnswer, Tick
from two_bone_ik.session.outputs import TrajectoryCommand
from two_bone_ik.session.reports import arm_report, motion_report
from two_bone_ik.session.target_frames import check_transform_timeout, Held, Moved
from two_bone_ik.session.target_frames import TargetFrames
from two_bone_ik.session.target_statistics import TargetStatistics
from two_bone_ik.session.workspace_guard import Guarded, WORKSPACE_DEFAULTS, WorkspaceGuard
from two_bone_ik.workspace.obstacles import WORKSPACE_PARAMETERS

#: Parameters of the motion (checked and applied apart from the arm's).
MOTION_LIMIT_PARAMETERS = ('max_joint_velocity', 'max_joint_acceleration', 'max_joint_jerk')

#: Statuses whose pose is not commanded though solved.
_NOT_COMMANDED = frozenset({NodeStatus.MOTION_FAILED, NodeStatus.COLLISION})

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
    'initial_positions': (0.0, 0.0), 'twist_timeout': 0.2, 'transform_timeout': 0.1,
    **WORKSPACE_DEFAULTS,
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


def _continuous(bounds) -> Tuple[bool, ...]:
    """Per joint, whether it is unlimited both ways (compared modulo a whole turn)."""
    return tuple(lo == -math.inf and hi == math.inf for lo, hi in bounds)


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
    transform_lookup : callable, optional
        ``lookup(frame, stamp_ns, timeout_s)`` -> :class:`~two_bone_ik.ik.target_frame.
        FrameTransform` from ``frame`` into ``base_frame``, or a reason (str): targets and
        twists in other frames go through it (see :mod:`two_bone_ik.session.target_frames`);
        None refuses them ``WRONG_FRAME``.

    Raises
    ------
    ConfigError
        If a value is invalid (the message starts with the parameter's name).
    """

    def __init__(self, values: Mapping[str, Any], given: Collection[str] = (),
                 trajectories: bool = False, clock: Callable[[], float] = time.monotonic,
                 transform_lookup: Optional[TransformLookup] = None):
        values = {**SESSION_DEFAULTS, **values}
        self._arm = ArmSource(values, given, values['robot_description'],
                              values['robot_description_topic'], values['tip_frame'])
        self._motion_values = {name: values[name] for name in MOTION_LIMIT_PARAMETERS}
        self._initial_value = values['initial_positions']
        self._velocity_from_urdf = 'max_joint_velocity' not in given
        solver = self._arm.solver
        names = self._names_of(solver)
        limits = self._limits_for(solver)
        check_planner_available(limits, 'robot_description' if self._urdf_velocities(solver)
                                else 'max_joint_velocity')
        self._bounds = _position_limits(solver, len(names))
        self._arrival_values = {k: values[k] for k in ARRIVAL_PARAMETERS if k in values}
        self._arrival = ArrivalMonitor(names, arrival_settings(self._arrival_values, len(names)),
                                       clock, _continuous(self._bounds))
        self._said_unmonitored = False  # whether the last verdict, NOT_MONITORED, was logged
        self._convention = self._convention_of(solver)
        self._workspace = WorkspaceGuard(values)
        self._workspace.use_arm(solver)
        self._motion = CommandedMotion(limits, self._bounds,
                                       check_command_rate(values['command_rate']),
                                       initial_positions_for(self._initial_value, len(names)),
                                       names, trajectories, self._workspace.check)
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
        self._last_result = None  # the outcome of the last target commanded
        self._refusal = ''  # why the last joint_states message was refused
        self._measured_stamp = 0.0  # the newest stamp of a measurement taken, s
        self._frames = TargetFrames(transform_lookup,
                                    check_transform_timeout(values['transform_timeout']), clock)
        self._frame_answers: List[TargetAnswer] = []  # due for targets from other frames
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

    def _names_of(self, solver) -> Tuple[str, ...]:
        """Return the joints of ``solver``'s arm (before any arm: the configured names)."""
        return tuple(solver.geometry.joint_names if solver else self._arm.config.joint_names)

    @staticmethod
    def _convention_of(solver):
        """How ``solver``'s arm reads its joints: names, and their zero angles and directions."""
        if solver is None:
            return None
        geometry = solver.geometry
        return (tuple(geometry.joint_names), getattr(geometry, 'zero_angles', None),
                getattr(geometry, 'directions', None))

    def _urdf_velocities(self, solver) -> bool:
        return self._velocity_from_urdf and solver is not None and self._arm.from_urdf

    def _limits_for(self, solver, changes: Optional[Mapping[str, Any]] = None) -> MotionLimits:
        """Return the motion limits for ``solver``'s arm: the parameters' (with ``changes``).

        A URDF's velocity limits stand in for ``max_joint_velocity`` unless it is given.

        Raises
        ------
        MotionConfigError
            If a parameter does not hold one value per joint of the arm.
        """
        values = {**self._motion_values, **(changes or {})}
        limits = MotionLimits.for_joints([values[name] for name in MOTION_LIMIT_PARAMETERS],
                                         len(self._names_of(solver)))
        if self._urdf_velocities(solver) and 'max_joint_velocity' not in (changes or {}):
            return limits._replace(velocity=solver.geometry.velocity_limits)
        return limits

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

    def _solve(self, frame_id: str, position, orientation=None, previous=None, **options):
        """Solve a target (with the workspace, when there is one): ``(Guarded, logs)``."""
        solver = self.solver
        if solver is None:
            return Guarded(rejected_result(NodeStatus.NO_ARM_DESCRIPTION, frame_id,
                                           position)), ()
        previous = self._held(solver) if previous is None else previous
        try:
            if self._workspace.active:
                return self._workspace.solve(solver, frame_id, position, previous,
                                             orientation, **options), ()
            return Guarded(solver.solve(frame_id, *position, previous, orientation,
                                        **options)), ()
        except Exception:  # noqa: B902 - the safety net: a target never ends the node
            return Guarded(self._rejected(NodeStatus.INVALID_TARGET, frame_id, position)), \
                self._unexpected_failure(frame_id, position)

    def _held(self, solver) -> Optional[Tuple[float, ...]]:
        """Return the readings a solve holds: the last command; before one, where the arm is.

        Where the arm is: the newest accepted ``joint_states`` measurement of the arm's joints
        (planned motion or not), else ``initial_positions`` (zeros when not given). The desktop
        solver holds the roll there (onto a limit if outside) and keeps the yaw for a target on
        the yaw axis; a pair's solve keeps today's rule (nearest 0 before the first command).
        """
        if self._previous is not None or not isinstance(solver, DesktopTargetSolver):
            return self._previous
        if self._motion.names != tuple(solver.geometry.joint_names):
            return None  # a new arm's joints, not yet streamed: nothing known of them
        return self._motion.stream.measured_position or self._motion.initial

    def _rejected(self, status: NodeStatus, frame_id: str, position, frame_reason: str = ''):
        """Return a rejected outcome of the arm's solver's kind (its ``values`` read it)."""
        if self.solver is None:
            return rejected_result(status, frame_id, position, frame_reason)
        return self.solver.rejected(status, frame_id, position, frame_reason)

    def _unexpected_failure(self, frame_id: str, position) -> Tuple[LogLine, ...]:
        """Return the traceback of a solve that raised, to log once per kind."""
        text = traceback.format_exc()
        key = text.strip().splitlines()[-1]
        if key in self._unexpected:
            return ()
        self._unexpected.add(key)
        return (LogLine('error', f'unexpected error solving target {tuple(position)!r} in '
                                 f"'{frame_id}'; answered INVALID_TARGET:\n{text}"),)

    def target(self, frame_id: str, x: float, y: float, z: float, orientation=None,
               stamp: int = 0) -> Optional[TargetAnswer]:
        """Solve a target and command it; return what to publish and log (a jog ends).

        ``orientation`` is the target's quaternion ``(x, y, z, w)``, used by a desktop arm with
        ``use_orientation`` (a planar arm ignores it). A target in another frame than
        ``base_frame`` is transformed into it first (at ``stamp``, ns; 0: the latest
        transform); when its transform is not there yet it is held and None returned: its
        answer comes from :meth:`frame_answers`. ``stamp`` also names the command in
        ``motion_status`` (``target_id``, see :func:`~two_bone_ik.session.arrival.stamp_id`).
        """
        self._supersede('a newer target')
        if self.solver is None or not needs_transform(frame_id, self.config.base_frame):
            return self._target(frame_id, (x, y, z), orientation, stamp=stamp)
        outcome = self._frames.take(frame_id, (x, y, z), orientation, stamp)
        if outcome is None:
            return None
        return self._framed(frame_id, (x, y, z), orientation, outcome, stamp)

    def _framed(self, frame_id: str, position, orientation, outcome,
                stamp: int = 0) -> TargetAnswer:
        """Answer a target from another frame: moved into base_frame, or refused (why)."""
        if isinstance(outcome, Moved):
            return self._target(self.config.base_frame, outcome.position, outcome.orientation,
                                stamp=stamp)
        return self._target(frame_id, position, orientation, outcome, stamp)

    def _supersede(self, by: str) -> None:
        """Give up the target held for its transform (answered WRONG_FRAME): ``by`` came."""
        held: Optional[Held] = self._frames.drop()
        if held is not None:
            self._frame_answers.append(self._target(
                held.frame_id, held.position, held.orientation,
                f'superseded by {by} before its transform came ({held.reason})', held.stamp))

    @property
    def frames_pending(self) -> bool:
        """Whether a target waits for its transform or an answer is due (see frame_answers)."""
        return bool(self._frame_answers) or self._frames.held is not None

    def frame_answers(self) -> Tuple[TargetAnswer, ...]:
        """Return the answers now due for targets from other frames (the node's timer asks).

        A held target is looked up again: transformed and commanded when its transform came,
        ``WRONG_FRAME`` once ``transform_timeout`` is up; superseded ones are answered too.
        """
        answers, self._frame_answers = self._frame_answers, []
        done = self._frames.retry()
        if done is not None:
            held, outcome = done
            answers.append(self._framed(held.frame_id, held.position, held.orientation, outcome,
                                        held.stamp))
        return tuple(answers)

    def _target(self, frame_id: str, position, orientation=None, frame_reason: str = '',
                stamp: int = 0) -> TargetAnswer:
        """Solve and command a target (``frame_reason``: refused WRONG_FRAME, that is why).

        ``stamp`` (ns) names the command in ``motion_status``.
        """
        if self._jog.active:
            with self._jog_lock:
                self._jog.stop()
        if frame_reason:
            guarded, logs = Guarded(self._rejected(NodeStatus.WRONG_FRAME, frame_id, position,
                                                   frame_reason)), ()
        else:
            guarded, logs = self._solve(frame_id, position, orientation)
        result, detail = guarded.result, guarded.detail
        command = trajectory = None
        moving, remaining, wake = self._motion.moving, 0.0, False
        motion = ()
        if not result.rejected and result.status is not NodeStatus.COLLISION:
            origin = self._commanded_now()
            try:
                planned = self._motion.command(result.readings, self._line_path())
            except MotionError as error:
                result = result._replace(status=NodeStatus.MOTION_FAILED, reachable=False)
                detail = str(error)
                logs += (LogLine('error', self._failure_text(result, error)),)
            else:
                self._previous = result.readings
                self._last_result = result
                command, trajectory = planned.command, planned.trajectory
                moving, remaining = planned.moving, planned.remaining
                motion = self._follow(stamp_id(stamp), result.readings, origin, moving,
                                      result.position, '')
                wake = True  # the pacer checks arrival, and streams a planned motion
        self._stats.record(result.status)
        commanded = result.status not in _NOT_COMMANDED and not result.rejected
        self._last_target = (result.position, result.status,
                             result.readings if commanded else None)
        self.picture_due = True
        if (result.rejected or result.status is NodeStatus.COLLISION) and \
                result.status is not NodeStatus.MOTION_FAILED and \
                self._throttle.allow(result.status):
            logs += (LogLine('warning', self.describe(result, detail)),)
        return TargetAnswer(result, command, trajectory, moving, remaining, wake, logs, motion,
                            detail)

    def _line_path(self):
        """How a planned motion follows ``motion_path: linear`` (None: in joint space)."""
        if self._workspace.motion_path != 'linear':
            return None
        return lambda start, goal: self._workspace.line_motion(
            start, goal, self._motion.stream.limits, self.period)

    def _failure_text(self, result, error) -> str:
        return (f'{NodeStatus.MOTION_FAILED.name}: target solved, but no motion to '
                f'{shown(result.readings)} rad could be planned: {error}; nothing new commanded')

    def describe(self, result, detail: str = '') -> str:
        """One line about a target's outcome, starting with its status name.

        ``detail`` says more: where a motion fails, what a pose would touch.
        """
        if result.status is NodeStatus.MOTION_FAILED:
            return (f'{NodeStatus.MOTION_FAILED.name}: target solved, but no motion to '
                    f'{shown(result.readings)} rad could be planned: '
                    f"{detail or 'not within the motion limits (the log says why)'}; "
                    'nothing new commanded')
        if result.status is NodeStatus.COLLISION:
            return f'{NodeStatus.COLLISION.name}: {detail}; nothing commanded'
        if self.solver is None:
            return describe_without_arm(result)
        line = self.solver.describe(result)
        return f'{line}; {detail}' if detail else line

    def status(self, answer: TargetAnswer) -> Tuple[int, str, Tuple[Tuple[str, str], ...]]:
        """Return the ``ik_status`` of a target or twist: level, message, (key, value) pairs."""
        result = answer.result
        solver = self.solver
        values = (solver or TargetSolver).values(result) + (
            ('moving', 'true' if answer.moving else 'false'),
            ('motion_remaining', f'{answer.remaining:.6f}')) + self.jog_values() + (
            self.arrival_values(result))
        text = self.describe(result, answer.detail)
        if self._jog.active:
            text += ('; jogging: sliding along the boundary, the jog point held on it'
                     if self._jog.sliding else '; jogging')
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
            readings = {str(name): float(value) for name, value in zip(names, positions)}
            self._arrival.measured(readings)  # joint by joint, whoever publishes which
            reason = self._motion.measured(readings)
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
        """One command period (pacer thread): arrival, a jog's next point, then the stream.

        A ``NOT_FOLLOWING`` verdict ends the jog and holds the arm where it is measured (see
        :meth:`CommandedMotion.hold`) before the stream moves on.
        """
        motion, logs, (held, hold_trajectory, _) = self._check_arrival()
        with self._jog_lock:
            logs += self._jog_step()
            jogging = self._jog.active
        tick = self._motion.tick()
        return tick._replace(
            command=tick.command or held, trajectory=tick.trajectory or hold_trajectory,
            logs=tick.logs + logs, motion=motion,
            more=tick.more or jogging or self._arrival.active)

    def stop(self) -> StopAnswer:
        """``~/stop``: brake within the limits and hold until the next target (a jog ends).

        The command followed so far is no longer (nothing more is said about it); the braking
        end is followed instead (``target_id`` ``stop``).
        """
        self._supersede('~/stop')
        with self._jog_lock:
            self._jog.stop()
        self._arrival.end()
        message, trajectory, wake = self._motion.stop()
        motion = ()
        if self._motion.stream.last_command is not None:
            motion = self._follow('stop', None, self._commanded_now(), wake, None,
                                  'to rest where ~/stop brakes it')
        return StopAnswer(message, trajectory, wake or bool(motion), motion)

    # -- arrival --------------------------------------------------------------------------------

    def _commanded_now(self) -> Tuple[float, ...]:
        """Return what is commanded now: the last command, else the measured or initial."""
        stream = self._motion.stream
        return stream.last_command or stream.measured_position or self._motion.initial

    def _follow(self, target_id: str, goal, origin, moving: bool, target, text: str):
        """Follow a new command: return its ``MOVING`` verdict, in a tuple."""
        return (self._arrival.command(target_id, goal, origin, self.planned, moving, target,
                                      text),)

    def motion_status(self, verdict) -> MotionStatusReport:
        """Return a verdict's ``motion_status``: level, message, (key, value) pairs.

        Built only when asked (the node asks while something subscribes): the tool points
        cost more than the decision.
        """
        solver = self.solver
        return motion_status(verdict, solver.geometry.tip_position if solver else None)

    def _check_arrival(self):
        """Check the command followed (pacer thread): ``(verdicts, logs, hold)``.

        ``hold`` is what :meth:`CommandedMotion.hold` returned, or nothing to publish.
        """
        nothing = (None, None, False)
        verdict = self._arrival.check(self._commanded_now(),
                                      self._motion.moving or self._jog.active)
        if verdict is None:
            return (), (), nothing
        logs = ()
        line = f'motion_status {verdict.status.name}: {verdict.text}'
        unmonitored = verdict.status is MotionStatus.NOT_MONITORED
        if unmonitored and not self._said_unmonitored:  # (an arm without sensors: say it once)
            logs = (LogLine('info', line),)
        elif verdict.status in (MotionStatus.NOT_FOLLOWING, MotionStatus.GOAL_MISSED) and \
                self._throttle.allow(('motion_status', verdict.status)):
            logs = (LogLine('error', line),)
        self._said_unmonitored = unmonitored
        if verdict.status is not MotionStatus.NOT_FOLLOWING:
            return (verdict,), logs, nothing
        with self._jog_lock:
            self._jog.stop()
        return (verdict,), logs, self._motion.hold(verdict.measured)

    def arrival_values(self, result=None) -> Tuple[Tuple[str, str], ...]:
        """``ik_status``'s values about arrival: ``arrival`` and the tool points.

        ``tool_point`` is that of ``result``'s readings when it has any (else of what is
        commanded now), ``measured_tool_point`` that of the latest readings.
        """
        last = self._arrival.last_status
        readings = getattr(result, 'readings', None)
        if readings is None or not all(math.isfinite(v) for v in readings):
            readings = self._commanded_now()
        solver = self.solver
        return (('arrival', 'none' if last is None else last.name),) + tool_point_values(
            solver.geometry.tip_position if solver else None, readings, self._arrival.readings())

    # -- jogging --------------------------------------------------------------------------------

    def _commanded_tip(self):
        """Where the commanded (else measured, else initial) position puts the tip, m."""
        stream = self._motion.stream
        readings = stream.last_command or stream.measured_position or self._motion.initial
        return self.solver.geometry.tip_position(readings)

    def twist(self, frame_id: str, linear, angular) -> TargetAnswer:
        """Take a ``target_twist``: start or steer a jog; answer with where the jog is.

        ``linear`` (m/s) moves the jog point in ``base_frame``; ``angular`` (rad/s) turns a
        desktop arm's approach (see :mod:`two_bone_ik.session.jog`) and nothing on a planar arm.
        A twist in another frame is turned into ``base_frame`` by that frame's latest rotation
        (no lever arm: it is the tool point's velocity, along the frame's axes).
        """
        self._supersede('a twist')
        problem = twist_problem(linear, angular)
        status, reason = None, ''
        if self.solver is None:
            status = NodeStatus.NO_ARM_DESCRIPTION
        elif needs_transform(frame_id, self.config.base_frame):
            found = self._frames.look_up(frame_id)
            if isinstance(found, str):
                status, reason = NodeStatus.WRONG_FRAME, found
                problem = (f"no transform from twist frame '{frame_id}' into base_frame "
                           f"'{self.config.base_frame}': {found}; nothing moves")
            else:
                linear, angular = rotate(found.rotation, linear), rotate(found.rotation, angular)
        if status is None and problem:
            status = NodeStatus.INVALID_TARGET
        if status is not None:
            result = self._rejected(status, frame_id, tuple(linear), reason)
            logs = ()
            if self._throttle.allow(('twist', status)):
                logs = (LogLine('warning', f'target_twist refused: {problem or status.name}'),)
            return TargetAnswer(result, None, None, self.moving, 0.0, False, logs)
        motion = ()
        with self._jog_lock:
            if not self._jog.active:
                self._jog_result = None
                motion = self._follow('twist', None, self._commanded_now(), True, None,
                                      'jogging')
            self._jog.twist(linear, self._clock(), self._commanded_tip(), angular,
                            self._commanded_pitch())
            result = self._jog_result
            if result is None:
                result = self._solve('', self._jog.point)[0].result
        return TargetAnswer(result, None, None, True, 0.0, True, (), motion)

    def _jog_step(self) -> Tuple[LogLine, ...]:
        """Move the jog point on by one period and aim the motion at it (pacer thread)."""
        point = self._jog.step(self.period, self._clock())
        if point is None:
            return ()
        guarded, logs = self._solve_jog_point(point)
        along = guarded.result.status is NodeStatus.COLLISION and guarded.contact is not None
        if along:  # slide along the floor or the box: the step put back out of it
            contact = guarded.contact
            guarded, logs = self._solve_jog_point(
                slid(point, contact.radius - contact.distance, contact.normal))
        result = guarded.result
        if result.status is NodeStatus.COLLISION:  # nowhere to slide to: hold
            self._jog.put_back(self._commanded_tip(), sliding=True)
            return logs
        if result.rejected:  # too far to solve: the jog ends where the arm is
            self._jog.stop()
            return logs + (LogLine('warning', 'jogging stopped: ' + self.describe(result)),)
        was_sliding = self._jog.sliding
        held = self.solver.geometry.tip_position(result.readings)
        self._jog.put_back(held, sliding=along or not result.reachable)
        if self._jog.pitch is not None:
            self._jog.pitch = result.approach_pitch  # a limit may hold it: slide there too
        self._previous = result.readings
        self._jog_result = result if result.reachable else self._held_result(held, result)
        self._motion.aim(result.readings)
        if self._jog.sliding and not was_sliding:
            logs += (LogLine('info', 'jogging: sliding along the boundary: '
                             + self.describe(result)),)
        return logs

    def _held_result(self, point, result):
        """Return the outcome of the jog point held on the boundary, where the tip is commanded.

        What the twist is answered with while the jog slides: the point itself solved (the tip
        is on it), not the point beyond the boundary the step asked (the log says that once).
        """
        pitch = getattr(result, 'approach_pitch', math.nan)
        if math.isnan(pitch):
            return self._solve('', point, None, result.readings)[0].result
        return self._solve('', point, None, result.readings, approach_pitch=pitch)[0].result

    def _commanded_pitch(self) -> Optional[float]:
        """Return the approach pitch of the last command of a desktop arm with a wrist pitch."""
        model = getattr(self.solver.geometry, 'model', None)
        if model is None or not model.has_pitch:
            return None
        last = self._jog_result or self._last_result
        if last is not None and math.isfinite(getattr(last, 'approach_pitch', math.nan)):
            return last.approach_pitch
        return self.solver.approach_pitch

    def _solve_jog_point(self, point):
        """Solve the jog's point; a desktop arm holds the jog's approach, turned by the twist."""
        if self._jog.pitch is None:
            return self._solve('', point)
        geometry = self.solver.geometry
        commanded = self._previous or self._motion.stream.last_command or self._motion.initial
        plane = geometry.pair_plane(commanded)
        angular, period = self._jog.angular, self.period
        pitch = math.remainder(self._jog.pitch + dot(angular, plane.normal) * period, math.tau)
        previous = list(commanded)
        roll = geometry.model.indices[4]
        if roll is not None:
            approach = [math.cos(pitch) * u + math.sin(pitch) * v
                        for u, v in zip(plane.u_axis, plane.v_axis)]
            previous[roll] += geometry.model.directions[roll] * dot(angular, approach) * period
        return self._solve('', point, None, previous, approach_pitch=pitch)

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

    def _check_motion_for(self, solver) -> None:
        """Refuse an arm its motion limits do not fit (count, or Ruckig missing)."""
        try:
            limits = self._limits_for(solver)
            initial_positions_for(self._initial_value, len(self._names_of(solver)))
            arrival_settings(self._arrival_values, len(self._names_of(solver)))
        except ConfigError as error:
            raise ConfigError(f'robot_description: its arm has {len(self._names_of(solver))} '
                              f'joints, but {error}') from None
        check_planner_available(limits, 'robot_description')
        try:
            self._workspace.checked({}, solver)
        except ConfigError as error:
            raise ConfigError(f'robot_description: its arm does not fit {error}') from None

    def _use(self, solver, brake: bool = True):
        """Drive a new arm from now on; return a braking trajectory and whether to stream.

        With ``brake`` (a new description), or when the joints or their limits change, the
        motion in flight brakes (as ``~/stop``) and the new limits and names apply; a change of
        solving options alone (``elbow``...) leaves the motion alone.
        """
        names = self._names_of(solver)
        convention = self._convention_of(solver)
        if convention != self._convention:
            self._previous = None  # readings of another joint convention mean nothing here
            self._convention = convention
        self._arm_count += 1
        self._arm_shapes = None
        self.picture_due = True
        self._workspace.use_arm(solver)
        self._motion.set_check(self._workspace.check)
        bounds = _position_limits(solver, len(names))
        if not brake and (names, bounds) == (self._motion.names, self._bounds):
            return None, False
        self._bounds = bounds
        self._arrival.set_arm(names, _continuous(bounds))  # (it brakes: as ~/stop, unfollowed)
        self._arrival.set_settings(arrival_settings(self._arrival_values, len(names)))
        return self._motion.new_arm(names, bounds, self._limits_for(solver),
                                    initial_positions_for(self._initial_value, len(names)))

    # -- parameters -----------------------------------------------------------------------------

    def check(self, changes: Mapping[str, Any]) -> Optional[str]:
        """Return why a parameter change is refused, or None to accept it (changes nothing)."""
        try:
            arm_changes = {k: v for k, v in changes.items() if k in ARM_PARAMETERS}
            if arm_changes:  # (checking parses a URDF again: only when something changes)
                self._arm.checked(arm_changes)
            motion = [name for name in MOTION_LIMIT_PARAMETERS if name in changes]
            if motion:
                check_planner_available(self._limits_for(self.solver, changes), motion[0])
            if 'command_rate' in changes:
                check_command_rate(changes['command_rate'])
            if 'twist_timeout' in changes:
                check_twist_timeout(changes['twist_timeout'])
            if any(name in WORKSPACE_PARAMETERS for name in changes):
                self._workspace.checked(changes, self.solver)
            if 'transform_timeout' in changes:
                check_transform_timeout(changes['transform_timeout'])
            arrival = {k: v for k, v in changes.items() if k in ARRIVAL_PARAMETERS}
            if arrival:
                arrival_settings({**self._arrival_values, **arrival}, len(self.joint_names))
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
            self._motion_values.update({name: value for name, value in changes.items()
                                        if name in MOTION_LIMIT_PARAMETERS})
            if 'max_joint_velocity' in changes:
                self._velocity_from_urdf = False
            self._motion.set_limits(self._limits_for(self.solver))
        if 'command_rate' in changes:
            self._motion.set_rate(changes['command_rate'])
        if 'twist_timeout' in changes:
            self._jog.timeout = float(changes['twist_timeout'])
        workspace = {k: v for k, v in changes.items() if k in WORKSPACE_PARAMETERS}
        if workspace:
            self._workspace.apply(self._workspace.checked(workspace), self.solver)
            self._motion.set_check(self._workspace.check)
            self.picture_due = True
            logs.append(LogLine('info', 'workspace: ' + ', '.join(
                f'{name}={value!r}' for name, value in workspace.items())))
        if 'transform_timeout' in changes:
            self._frames.timeout = float(changes['transform_timeout'])
        if motion:
            logs.append(LogLine('info', 'motion: ' + ', '.join(
                f'{name}={value!r}' for name, value in motion.items())))
        arrival = {k: v for k, v in changes.items() if k in ARRIVAL_PARAMETERS}
        if arrival:
            self._arrival_values.update(arrival)
            settings = arrival_settings(self._arrival_values, len(self.joint_names))
            self._arrival.set_settings(settings)
            logs.append(LogLine('info', 'arrival: ' + ', '.join(
                f'{name}={getattr(settings, name)!r}' for name in arrival)))
        arm_changes = {k: v for k, v in changes.items() if k in ARM_PARAMETERS}
        if arm_changes:
            solver = self._arm.use(self._arm.checked(arm_changes))
            if solver is not None:
                trajectory, wake = self._use(solver, brake=False)
            logs.append(LogLine('info', 'parameters changed: ' + ', '.join(
                f'{name}={value!r}' for name, value in arm_changes.items())))
        return ArmChange(tuple(logs), trajectory, wake)

    # -- reports and pictures -------------------------------------------------------------------

    def reports(self, subscribers: Mapping[str, int]) -> List[Report]:
        """Return the three ``/diagnostics`` statuses: targets, arm, motion.

        ``subscribers``: the subscribers of each command output, by topic.
        """
        level, message, values = self._stats.report(self._clock())
        motion = motion_report(self._motion, subscribers, self._refusal)
        return [Report(level, 'targets', message, values), arm_report(self._arm),
                motion._replace(values=motion.values + self.jog_values())]

    def picture(self) -> Picture:
        """Return what ``ik_markers`` shows now (a pair's workspace is built once per arm)."""
        self.picture_due = False
        solver = self.solver
        if solver is None:
            return Picture(self._arm_count, (), ())
        geometry = solver.geometry
        if self._arm_shapes is None:
            self._arm_shapes = tuple(arm_shapes(geometry))
        commanded = self._previous or self._motion.stream.last_command or self._motion.initial
        shapes = turning_shapes(geometry, commanded)
        if self._workspace.active:
            shapes += obstacle_shapes(geometry, self._workspace.obstacles,
                                      self._workspace.links.points(commanded)[0])
        if self._last_target is not None:
            shapes += target_shapes(geometry, *self._last_target)
        return Picture(self._arm_count, self._arm_shapes, tuple(shapes))
