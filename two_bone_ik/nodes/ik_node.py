"""The two_bone_ik ROS 2 node: PoseStamped targets in, JointState commands out.

A thin rclpy shell over :mod:`two_bone_ik.target_solver` (which wraps the closed-form solver).

Topics (relative, so a namespace gives each arm its own set; the README has every detail):

- subscribes ``target_pose`` (geometry_msgs/PoseStamped; only the position is used),
  ``joint_states`` (best effort; where the first motion starts) and, when
  ``robot_description_topic`` is set, the URDF on that topic (transient local);
- publishes the commands: ``joint_commands`` (sensor_msgs/JointState),
  ``<position_controller>/commands`` (std_msgs/Float64MultiArray) and
  ``<trajectory_controller>/joint_trajectory`` (trajectory_msgs/JointTrajectory), streamed at
  ``command_rate`` within the motion limits when any is finite;
- publishes ``reachable`` (std_msgs/Bool, latched) and ``ik_status``
  (diagnostic_msgs/DiagnosticStatus, built only while a subscriber is matched) per target,
  ``ik_markers`` (visualization_msgs/MarkerArray, latched, at most 10 Hz) and ``/diagnostics``
  once a second;
- serves ``~/stop`` (std_srvs/Trigger): brake within the limits and hold.

Run it with ``ros2 run two_bone_ik two_bone_ik_node --ros-args --params-file X.yaml`` or
``python -m two_bone_ik --ros-args ...``.
"""

import dataclasses
import math
import sys
import threading
import time
import traceback

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from rcl_interfaces.msg import SetParametersResult
from rclpy.exceptions import InvalidTopicNameException
from rclpy.qos import DurabilityPolicy, HistoryPolicy, qos_profile_sensor_data, QoSProfile
from rclpy.qos import ReliabilityPolicy
from rclpy.qos_overriding_options import QoSOverridingOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, Float64MultiArray, String
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory

from two_bone_ik.arm.config import ArmConfig, ArmConfigError, PARAMETER_NAMES
from two_bone_ik.arm.joint_commands import match_command
from two_bone_ik.arm.urdf_import import arm_geometry, UrdfError
from two_bone_ik.markers import limit_shapes, target_shapes, workspace_shapes
from two_bone_ik.motion.command_stream import CommandStream
from two_bone_ik.motion.limits import check_command_rate, MotionConfigError, MotionLimits
from two_bone_ik.motion.pacer import Pacer
from two_bone_ik.motion.planner import MotionError, TrajectoryPoint
from two_bone_ik.nodes.diagnostics import diagnostic_status, level_byte
from two_bone_ik.nodes.ik_messages import joint_trajectory, marker_array, marker_msg
from two_bone_ik.nodes.node_runner import run_node
from two_bone_ik.nodes.parameter_schema import GEOMETRY_PARAMETERS, ik_parameters
from two_bone_ik.nodes.parameters import parameter_overrides, ParameterError, SchemaNode
from two_bone_ik.nodes.parameters import warn_unknown_overrides
from two_bone_ik.status import ERROR, LEVELS, NodeStatus, OK, WARN
from two_bone_ik.target_solver import describe_without_arm, rejected_result, TargetSolver
from two_bone_ik.target_statistics import TargetStatistics
from two_bone_ik.warning_throttle import WarningThrottle
from visualization_msgs.msg import MarkerArray

NODE_NAME = 'two_bone_ik'

#: Seconds between ``/diagnostics`` reports.
DIAGNOSTICS_PERIOD = 1.0

#: Most ik_markers arrays published per second (each carries everything: workspace, target, arm).
MARKER_RATE = 10.0

#: Minimum seconds between two warnings about rejected targets with the same status.
WARNING_THROTTLE = 5.0

#: The node's parameters, arm parameters first.
PARAMETERS = ik_parameters()

#: Names of the parameters that are fields of :class:`ArmConfig`.
CONFIG_PARAMETERS = PARAMETER_NAMES

#: Parameters of the motion (checked and applied apart from the arm's).
MOTION_LIMIT_PARAMETERS = ('max_joint_velocity', 'max_joint_acceleration', 'max_joint_jerk')


def _shown(position) -> str:
    return '[' + ', '.join(f'{v:.6f}' for v in position) + ']'


def diagnostic_level(status: NodeStatus) -> bytes:
    """Return the ``diagnostic_msgs/DiagnosticStatus`` level published for a status."""
    return level_byte(LEVELS[status])


class IkNode(SchemaNode):
    """Solves every ``target_pose`` for the configured arm and publishes the joint command.

    Parameters
    ----------
    **kwargs
        Passed to :class:`rclpy.node.Node` (e.g. ``parameter_overrides``, ``context``).

    Raises
    ------
    ArmConfigError
        If a parameter given at start is invalid; the message starts with its name.
    """

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        # Guards the command stream and the command messages, shared by the executor and the
        # thread that streams planned motion.
        self._stream_lock = threading.Lock()
        values = self.declare_schema(PARAMETERS)
        config = ArmConfig.from_mapping(values)
        self._config = config
        self._description = values['robot_description']
        self._tip_frame = values['tip_frame']
        self._description_topic = values['robot_description_topic']
        self._description_problem = ''  # why the last robot_description could not be used
        self._from_parameter = bool(self._description)
        self._solver = None
        self._previous = None
        self._markers_dirty = False  # a picture is due on ik_markers
        self._marker_timer = None
        self._state_sub = None  # joint_states, once motion is planned
        self._motion_limits = MotionLimits.checked(
            *(values[name] for name in MOTION_LIMIT_PARAMETERS))
        # A URDF's velocity limits stand in for max_joint_velocity unless it is given.
        self._velocity_from_urdf = 'max_joint_velocity' not in parameter_overrides(self)
        initial = values['initial_positions']
        if not all(math.isfinite(v) for v in initial):
            raise MotionConfigError(f'initial_positions: expected 2 finite angles, got '
                                    f'{list(initial)!r}')
        self._stream = CommandStream(self._motion_limits, ((-math.inf, math.inf),) * 2,
                                     check_command_rate(values['command_rate']), initial)
        if self._description or not self._description_topic:
            self._set_arm(arm_geometry(config, self._description, self._tip_frame))
        self._clock = self.get_clock()
        self._stats = TargetStatistics(time.monotonic())
        self._rejection_warnings = WarningThrottle(WARNING_THROTTLE)  # one window per status
        self._unexpected = set()  # last lines of unexpected tracebacks already logged
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

        self._joint_msg = JointState()
        self._joint_msg.header.frame_id = config.base_frame
        if self._solver is not None:
            self._joint_msg.name = list(self._solver.geometry.joint_names)
        self._status_name = self.get_fully_qualified_name()
        self._reachable_msgs = (Bool(data=False), Bool(data=True))

        reliable = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST,
                              reliability=ReliabilityPolicy.RELIABLE,
                              durability=DurabilityPolicy.VOLATILE)
        latched = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                             reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        # QoS of the command path can be overridden with the standard read-only parameters
        # qos_overrides.<topic>.{publisher,subscription}.{depth,history,reliability,durability}.
        overridable = QoSOverridingOptions.with_default_policies()
        self._joint_pub = None
        if values['publish_joint_commands']:
            self._joint_pub = self.create_publisher(JointState, 'joint_commands', reliable,
                                                    qos_overriding_options=overridable)
        self._position_pub = self._controller_publisher(
            'position_controller', values['position_controller'], 'commands',
            Float64MultiArray, reliable)
        self._trajectory_pub = self._controller_publisher(
            'trajectory_controller', values['trajectory_controller'], 'joint_trajectory',
            JointTrajectory, reliable)
        self._commands_streamed = 0
        # Every publisher keeps rclpy's default event handlers: a subscriber asking for a
        # deadline, manual liveliness or a stricter durability is incompatible with any of them,
        # and the user should hear about it (bench/node_latency.py measures what they cost).
        self._reachable_pub = self.create_publisher(Bool, 'reachable', latched)
        self._status_pub = self.create_publisher(DiagnosticStatus, 'ik_status', reliable)
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, '/diagnostics', reliable)
        # Markers: what changed, at most MARKER_RATE times a second; latched, so an RViz that
        # starts later still gets the last picture.
        self._marker_pub = self.create_publisher(MarkerArray, 'ik_markers', latched)
        self._arm_markers = None  # built on the first picture of each arm (see _set_arm)
        self._last_target = None  # (position, status, readings or None) of the last target
        # Runs only while a picture is due and someone listens: every wake-up of the executor
        # costs the node CPU and its targets latency, even with nothing to publish.
        self._marker_timer = self.create_timer(1.0 / MARKER_RATE, self._publish_markers)
        self._markers_due()  # the first picture: the arm's workspace (an empty one without arm)
        self.create_timer(DIAGNOSTICS_PERIOD, self._publish_diagnostics)
        if not self._description and self._description_topic:
            # As robot_state_publisher publishes it (and controller_manager reads it).
            self._description_sub = self.create_subscription(
                String, self._description_topic, self._on_description, latched)
        self._subscribe_to_measured_state()
        self._stop_service = self.create_service(Trigger, '~/stop', self._on_stop)
        # The planned motion streams from a thread of its own (see two_bone_ik.motion.pacer).
        self._pacer = Pacer(self._on_tick, 1.0 / self._stream.rate, name='two_bone_ik_stream')
        # Last, once everything the callback uses exists.
        self._target_sub = self.create_subscription(
            PoseStamped, 'target_pose', self._on_target, reliable,
            qos_overriding_options=overridable)
        warn_unknown_overrides(self)
        if self._description or self._description_topic:
            given = sorted(set(GEOMETRY_PARAMETERS) & set(parameter_overrides(self)))
            if given:
                self.get_logger().warning(
                    f"ignoring {', '.join(given)}: the arm comes from its robot description")
        if self._solver is not None:
            self._log_arm('ready: ')
        else:
            self.get_logger().info(
                f"ready: waiting for the arm's URDF on {self._description_sub.topic_name}; "
                'targets are answered NO_ARM_DESCRIPTION until it comes')

    # -- the arm ------------------------------------------------------------------------------

    def _set_arm(self, geometry) -> None:
        """Solve for ``geometry`` from now on (names, zero angles and directions may change)."""
        old = self._solver.geometry if self._solver is not None else None
        self._solver = TargetSolver(self._config, geometry)
        if old is None or (old.joint_names, old.zero_angles, old.directions) != (
                geometry.joint_names, geometry.zero_angles, geometry.directions):
            self._previous = None  # readings of another joint convention mean nothing here
        if hasattr(self, '_joint_msg'):
            self._joint_msg.name = list(geometry.joint_names)
        self._stream.set_position_limits(tuple(zip(geometry.lower_limits,
                                                   geometry.upper_limits)))
        self._stream.set_limits(self._effective_limits())
        self._subscribe_to_measured_state()
        self._arm_markers = None  # the workspace and limit markers of this arm, once built
        self._markers_due()

    def _effective_limits(self) -> MotionLimits:
        """Return the motion limits in force: max_joint_velocity, or the URDF's velocities."""
        if self._velocity_from_urdf and self._solver is not None and self._solver_from_urdf():
            return self._motion_limits._replace(velocity=self._solver.geometry.velocity_limits)
        return self._motion_limits

    def _log_arm(self, prefix: str) -> None:
        config, geometry = self._config, self._solver.geometry
        source = 'its URDF' if self._solver_from_urdf() else 'its parameters'
        self.get_logger().info(
            f'{prefix}arm from {source}: {geometry.describe()}, joints '
            f"{', '.join(geometry.joint_names)}, elbow {config.elbow}, "
            f"{'limited' if geometry.limited else 'unlimited'} joints")

    def _solver_from_urdf(self) -> bool:
        return bool(self._description) or bool(self._description_topic)

    def _source(self) -> str:
        """Return where the arm comes from, in words."""
        if self._description_topic and not self._from_parameter:
            return f'topic {self._description_topic}'
        return 'robot_description parameter' if self._description else 'parameters'

    def _on_description(self, msg: String) -> None:
        """Build the arm from a new robot description; a bad one leaves the old arm in force."""
        try:
            geometry = arm_geometry(self._config, msg.data, self._tip_frame)
        except UrdfError as error:
            self._description_problem = str(error)
            kept = 'the previous arm stays in force' if self._solver is not None else \
                'targets stay NO_ARM_DESCRIPTION'
            self.get_logger().error(
                f'refused the robot description from {self._description_sub.topic_name}: '
                f'{error}; {kept}')
            return
        self._description = msg.data
        self._description_problem = ''
        with self._stream_lock:
            self._set_arm(geometry)
        self._log_arm(f'{self._description_topic}: ')

    # -- parameters ---------------------------------------------------------------------------

    def _motion_limits_with(self, parameters) -> MotionLimits:
        given = {p.name: p.value for p in parameters if p.name in MOTION_LIMIT_PARAMETERS}
        current = dict(zip(MOTION_LIMIT_PARAMETERS, self._motion_limits))
        return MotionLimits.checked(*(given.get(name, current[name])
                                      for name in MOTION_LIMIT_PARAMETERS))

    def _validate_parameters(self, parameters) -> SetParametersResult:
        """Accept or reject a parameter change; changes nothing (see ``_apply_parameters``)."""
        changes = {p.name: p.value for p in parameters if p.name in CONFIG_PARAMETERS}
        try:
            config = dataclasses.replace(self._config, **changes)
            if self._description:
                arm_geometry(config, self._description, self._tip_frame)
            self._motion_limits_with(parameters)
        except (ArmConfigError, UrdfError, MotionConfigError) as error:
            return SetParametersResult(successful=False, reason=str(error))
        return SetParametersResult(successful=True)

    def _apply_parameters(self, parameters) -> None:
        with self._stream_lock:
            self._apply(parameters)

    def _apply(self, parameters) -> None:
        names = {p.name for p in parameters}
        if names & set(MOTION_LIMIT_PARAMETERS):
            self._motion_limits = self._motion_limits_with(parameters)
            if 'max_joint_velocity' in names:
                self._velocity_from_urdf = False
            self._stream.set_limits(self._effective_limits())
            self._subscribe_to_measured_state()
        for parameter in parameters:
            if parameter.name == 'command_rate':
                self._stream.set_rate(parameter.value)
        changes = {p.name: p.value for p in parameters if p.name in CONFIG_PARAMETERS}
        if names & (set(MOTION_LIMIT_PARAMETERS) | {'command_rate'}):
            self.get_logger().info(
                'motion: ' + ', '.join(f'{p.name}={p.value!r}' for p in parameters
                                       if p.name not in CONFIG_PARAMETERS))
        if not changes:
            return
        self._config = dataclasses.replace(self._config, **changes)
        if self._description or not self._description_topic:
            self._set_arm(arm_geometry(self._config, self._description, self._tip_frame))
        shown = ', '.join(f'{name}={getattr(self._config, name)!r}' for name in changes)
        self.get_logger().info(f'parameters changed: {shown}')

    # -- per target ---------------------------------------------------------------------------

    def _on_target(self, msg: PoseStamped) -> None:
        p = msg.pose.position
        solver = self._solver
        if solver is None:
            result = rejected_result(NodeStatus.NO_ARM_DESCRIPTION, msg.header.frame_id,
                                     (p.x, p.y, p.z))
        else:
            try:
                result = solver.solve(msg.header.frame_id, p.x, p.y, p.z, self._previous)
            except Exception:  # noqa: B902 - the safety net: a target never ends the node
                result = self._unexpected_failure(msg)
        remaining = 0.0
        if not result.rejected:
            self._previous = (result.q1, result.q2)
            with self._stream_lock:
                remaining = self._move_to(self._previous)
        self._reachable_pub.publish(self._reachable_msgs[result.reachable])
        # The status text costs more than the solve: build it only for someone, and only once.
        text = None
        if self._status_pub.get_subscription_count():
            text = self._describe(result)
            self._status_pub.publish(diagnostic_status(
                LEVELS[result.status], self._status_name, text, self._config.base_frame,
                TargetSolver.values(result) + (
                    ('moving', 'true' if self._stream.moving else 'false'),
                    ('motion_remaining', f'{remaining:.6f}'))))
        self._stats.record(result.status)
        self._last_target = (result.position, result.status,
                             None if result.rejected else (result.q1, result.q2))
        self._markers_due()
        if result.rejected:
            self._warn_rejected(result, text)

    # -- commands -----------------------------------------------------------------------------

    def _controller_publisher(self, parameter, controller, topic, msg_type, qos):
        """Return a publisher on ``<controller>/<topic>``, or None without a controller name."""
        if not controller:
            return None
        try:
            return self.create_publisher(msg_type, f'{controller}/{topic}', qos)
        except (InvalidTopicNameException, ValueError) as error:
            raise ParameterError(f'{parameter}: {controller!r} does not make a valid topic name '
                                 f"({' '.join(str(error).split())})") from None

    def _move_to(self, goal) -> float:
        """Command ``goal`` (readings): now, or as a planned motion; return its duration, s."""
        try:
            step = self._stream.goal(goal)
        except MotionError as error:
            self.get_logger().error(f'no motion to {list(goal)!r}: {error}',
                                    throttle_duration_sec=WARNING_THROTTLE)
            return 0.0
        if step.command is not None:
            self._command(step.command)
            if self._trajectory_pub is not None:
                self._send_trajectory(self._stream.points() or [
                    TrajectoryPoint(1.0 / self._stream.rate, step.command, (0.0, 0.0),
                                    (0.0, 0.0))])
            return 0.0
        if step.new_trajectory and self._trajectory_pub is not None:
            self._send_trajectory(self._stream.points())
        self._run_stream()
        return step.duration

    def _command(self, position, velocity=None) -> None:
        """Publish one command on every output: joint_commands, the position controller."""
        position = [float(position[0]), float(position[1])]
        if not (math.isfinite(position[0]) and math.isfinite(position[1])):
            return  # never a NaN on the wire
        if self._joint_pub is not None:
            joints = self._joint_msg
            joints.header.stamp = self._clock.now().to_msg()
            joints.position = position
            joints.velocity = [] if velocity is None else [float(v) for v in velocity]
            self._joint_pub.publish(joints)
        if self._position_pub is not None:
            self._position_pub.publish(Float64MultiArray(data=position))

    def _send_trajectory(self, points) -> None:
        """Publish a motion to the trajectory controller: start now, arm joints, every point."""
        self._trajectory_pub.publish(joint_trajectory(self._joint_msg.name, points))

    def _run_stream(self) -> None:
        """Stream at the command rate (the pacer runs only while a motion does)."""
        self._pacer.set_period(1.0 / self._stream.rate)
        self._pacer.wake()

    def _on_tick(self) -> bool:
        """Publish the next sample of the motion (pacer thread); return whether more follow."""
        with self._stream_lock:
            sample, new_trajectory = self._stream.tick()
            if sample is None:
                return False
            try:
                self._command(sample.position, sample.velocity)
                if new_trajectory and self._trajectory_pub is not None:
                    self._send_trajectory(self._stream.points())
            except RuntimeError:
                # rcl's "context is invalid": a signal shut the node down meanwhile.
                return False
            self._commands_streamed += 1
            if self._pacer.period != 1.0 / self._stream.rate:  # a rate change took effect
                self._pacer.set_period(1.0 / self._stream.rate)
                self._pacer.wake()
                return False
            return self._stream.moving

    def destroy_node(self):
        """Stop the streaming thread, then destroy the node."""
        self._pacer.close()
        return super().destroy_node()

    def _on_stop(self, request, response):
        """Service ``~/stop``: brake within the limits and hold; say where."""
        with self._stream_lock:
            return self._stop(response)

    def _stop(self, response):
        position, duration, new_trajectory = self._stream.stop()
        response.success = True
        if position is None:
            response.message = 'nothing commanded yet: nothing to stop'
        elif not self._stream.planned:
            response.message = (f'no motion planned (every motion limit infinite): the last '
                                f'command {_shown(position)} rad stands')
        elif duration > 0.0:
            response.message = (f'stopping: at rest at {_shown(position)} rad in '
                                f'{duration:.3f} s, held until the next target')
            if new_trajectory and self._trajectory_pub is not None:
                self._send_trajectory(self._stream.points())
            self._run_stream()
        else:
            response.message = f'at rest at {_shown(position)} rad, held until the next target'
        self.get_logger().info(f'~/stop: {response.message}')
        return response

    def _subscribe_to_measured_state(self) -> None:
        """Read ``joint_states`` from the first time motion is planned on.

        A planned motion starts from the measured position; one command per target needs
        none, and an idle subscription still costs every wake-up of the executor. Best effort,
        so it matches both reliable publishers and sensor-QoS ones (hardware drivers).
        """
        if self._state_sub is None and self._stream.planned:
            self._state_sub = self.create_subscription(
                JointState, 'joint_states', self._on_joint_states, qos_profile_sensor_data)

    def _on_joint_states(self, msg: JointState) -> None:
        if self._solver is None:
            return
        match = match_command(msg.name, msg.position, self._solver.geometry.joint_names)
        targets = match.targets
        if len(targets) == 2:
            with self._stream_lock:
                self._stream.measured((targets[0], targets[1]))

    def _unexpected_failure(self, msg: PoseStamped):
        """Answer a target whose solve raised: INVALID_TARGET, the traceback logged once."""
        p = msg.pose.position
        position = (p.x, p.y, p.z)
        key = traceback.format_exc().strip().splitlines()[-1]
        if key not in self._unexpected:
            self._unexpected.add(key)
            self.get_logger().error(
                f'unexpected error solving target {position!r} in '
                f"'{msg.header.frame_id}'; answered INVALID_TARGET:\n{traceback.format_exc()}")
        return rejected_result(NodeStatus.INVALID_TARGET, msg.header.frame_id, position)

    def _describe(self, result) -> str:
        if self._solver is None:
            return describe_without_arm(result)
        return self._solver.describe(result)

    def _warn_rejected(self, result, text) -> None:
        """Log a rejected target, at most once per ``WARNING_THROTTLE`` s for each status.

        ``text`` is its description if already built, else None (built here only if logged).
        """
        if self._rejection_warnings.allow(result.status):
            self.get_logger().warning(text if text is not None else self._describe(result))

    def _publish_diagnostics(self) -> None:
        if (self._markers_dirty and self._marker_timer.is_canceled()
                and self._marker_pub.get_subscription_count()):
            self._marker_timer.reset()  # a subscriber came for the picture
        level, message, values = self._stats.report(time.monotonic())
        array = DiagnosticArray()
        array.header.stamp = self._clock.now().to_msg()
        array.status = [
            diagnostic_status(level, f'{self._status_name}: targets', message,
                              self._config.base_frame, values),
            self._arm_status(), self._motion_status()]
        self._diagnostics_pub.publish(array)

    def _markers_due(self) -> None:
        """Note that the picture changed: publish it within one marker period."""
        if not self._markers_dirty:
            self._markers_dirty = True
            if self._marker_timer is not None and self._marker_timer.is_canceled():
                self._marker_timer.reset()

    def _publish_markers(self) -> None:
        """Publish the picture if it changed and someone listens; then rest until it changes.

        Without a subscriber nothing is built and the timer rests with the picture still due:
        the diagnostics timer wakes it when a subscriber comes. The arm's own markers are built
        once per arm.
        """
        if not self._markers_dirty or not self._marker_pub.get_subscription_count():
            self._marker_timer.cancel()
            return
        self._markers_dirty = False
        solver = self._solver
        stamp = self._clock.now().to_msg()
        frame = self._config.base_frame
        shapes = []
        if solver is not None:
            geometry = solver.geometry
            if self._arm_markers is None:
                self._arm_markers = [marker_msg(shape, frame, stamp) for shape in
                                     workspace_shapes(geometry) + limit_shapes(geometry)]
            if self._last_target is not None:
                shapes = target_shapes(geometry, *self._last_target)
        self._marker_pub.publish(marker_array(
            shapes, frame, stamp, self._arm_markers if solver is not None else ()))

    def _motion_status(self) -> DiagnosticStatus:
        """Return where the commanded motion is: moving or at rest, time left, limits, rate."""
        stream = self._stream
        if not stream.planned:
            message = 'no motion planning (every motion limit infinite): one command per target'
        elif stream.moving:
            message = f'moving, {stream.remaining():.3f} s left'
        else:
            message = 'at rest'
        level = OK
        outputs = [pub for pub in (self._joint_pub, self._position_pub, self._trajectory_pub)
                   if pub is not None]
        subscribers = {pub.topic_name: pub.get_subscription_count() for pub in outputs}
        if not outputs:
            message += ('; no command output (publish_joint_commands is false and no '
                        'controller is named)')
        elif not any(subscribers.values()):
            # The commands go nowhere: no controller (or sim, or servo node) listens.
            level = WARN
            message += '; nothing subscribes to ' + ' or '.join(subscribers)
        limits = stream.limits
        values = [('planned', 'true' if stream.planned else 'false'),
                  ('moving', 'true' if stream.moving else 'false'),
                  ('remaining_s', f'{stream.remaining():.6f}'),
                  ('command_rate_hz', f'{stream.rate:g}'),
                  ('commands_streamed', str(self._commands_streamed)),
                  ('subscribers', ', '.join(f'{topic}: {count}'
                                            for topic, count in subscribers.items())),
                  ('measured_position', 'none' if stream.measured_position is None
                   else _shown(stream.measured_position)),
                  ('max_joint_velocity', _shown(limits.velocity)),
                  ('max_joint_acceleration', _shown(limits.acceleration)),
                  ('max_joint_jerk', _shown(limits.jerk))]
        return diagnostic_status(level, f'{self._status_name}: motion', message,
                                 self._config.base_frame, values)

    def _arm_status(self) -> DiagnosticStatus:
        """Return the arm description in use, or why there is none (ERROR)."""
        solver = self._solver
        if self._description_problem:
            level = ERROR
            message = self._description_problem + (
                '; the previous arm stays in force' if solver is not None else '')
        elif solver is None:
            level = ERROR
            message = f'no robot description yet on {self._description_topic}'
        else:
            level = OK
            message = solver.geometry.describe()
        values = [('source', self._source())]
        if solver is not None:
            values.append(('joint_names', ','.join(solver.geometry.joint_names)))
        return diagnostic_status(level, f'{self._status_name}: arm', message,
                                 self._config.base_frame, values)

    @property
    def config(self) -> ArmConfig:
        """The configuration in effect."""
        return self._config

    @property
    def last_status(self):
        """Status of the last target, or None before the first."""
        return self._stats.last_status


def main(args=None) -> int:
    """Run the node until Ctrl-C or shutdown; return the process exit code.

    A bad configuration prints one line naming the parameter to stderr and ends the process
    with exit code 2; a command line rcl rejects returns 2 (see
    :func:`two_bone_ik.nodes.node_runner.run_node`).
    """
    return run_node(NODE_NAME, IkNode, args)


if __name__ == '__main__':
    sys.exit(main())


__all__ = ['IkNode', 'main', 'NodeStatus']
