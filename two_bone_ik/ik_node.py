"""The two_bone_ik ROS 2 node: PoseStamped targets in, JointState commands out.

A thin rclpy shell over :mod:`two_bone_ik.target_solver` (which wraps the closed-form solver).

Topics (relative, so a namespace gives each arm its own set):

- subscribes ``target_pose`` (geometry_msgs/PoseStamped; only the position is used);
- publishes ``joint_commands`` (sensor_msgs/JointState, reliable) for every accepted target;
- publishes ``reachable`` (std_msgs/Bool, reliable, transient local, depth 1) for every target;
- publishes ``ik_status`` (diagnostic_msgs/DiagnosticStatus) for every target while a
  subscriber is matched (not even built otherwise);
- publishes ``/diagnostics`` (diagnostic_msgs/DiagnosticArray) about once a second.

Run it with ``ros2 run two_bone_ik two_bone_ik_node --ros-args --params-file X.yaml`` or
``python -m two_bone_ik --ros-args ...``.
"""

import dataclasses
import time

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import PoseStamped
from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor, ParameterType
from rcl_interfaces.msg import SetParametersResult
from rclpy.event_handler import PublisherEventCallbacks
from rclpy.exceptions import ParameterException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.qos_overriding_options import QoSOverridingOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool

from two_bone_ik.arm_config import ArmConfig, ArmConfigError, PARAMETER_NAMES
from two_bone_ik.diagnostics import TargetStatistics
from two_bone_ik.node_main import run_node
from two_bone_ik.node_status import LEVELS, NodeStatus
from two_bone_ik.parameter_types import type_mismatch
from two_bone_ik.target_solver import TargetSolver

NODE_NAME = 'two_bone_ik'

#: Seconds between ``/diagnostics`` reports.
DIAGNOSTICS_PERIOD = 1.0

#: Minimum seconds between two warnings about rejected targets with the same status.
WARNING_THROTTLE = 5.0

#: Parameters that may change while the node runs (validated by the on-set callback).
RUNTIME_PARAMETERS = ('elbow', 'joint_lower_limits', 'joint_upper_limits', 'allow_elbow_flip')

_LEVEL_BYTES = {0: DiagnosticStatus.OK, 1: DiagnosticStatus.WARN, 2: DiagnosticStatus.ERROR}

_LIMITS_TEXT = ('2 angles in radians, shoulder then elbow; -.inf/.inf (YAML) for unlimited; '
                'each lower <= its upper')

# name -> (ParameterType, description, additional constraints, extra descriptor fields)
_PARAMETERS = {
    'link_lengths': (
        ParameterType.PARAMETER_DOUBLE_ARRAY,
        'Shoulder-to-elbow and elbow-to-tip link lengths, metres.',
        '2 finite values >= 0, not both 0', {}),
    'joint_names': (
        ParameterType.PARAMETER_STRING_ARRAY,
        'Names of the shoulder and elbow joints in joint_commands.',
        '2 distinct non-empty names', {}),
    'base_frame': (
        ParameterType.PARAMETER_STRING,
        'Frame the shoulder is at the origin of; targets must be in it (or have an empty '
        'frame_id). Also the frame_id of joint_commands.',
        'non-empty frame id', {}),
    'plane': (
        ParameterType.PARAMETER_STRING,
        'Axes (u, v) of base_frame spanned by the arm; the joint axes are u x v.',
        'one of: xy, xz, yz', {}),
    'elbow': (
        ParameterType.PARAMETER_STRING,
        'Elbow branch: up (elbow on the +v side of the shoulder-target line, q2 <= 0), down, or '
        'nearest (the branch closer to the last command).',
        'one of: up, down, nearest', {}),
    'joint_lower_limits': (
        ParameterType.PARAMETER_DOUBLE_ARRAY,
        'Lower joint limits, radians (shoulder, elbow).', _LIMITS_TEXT, {}),
    'joint_upper_limits': (
        ParameterType.PARAMETER_DOUBLE_ARRAY,
        'Upper joint limits, radians (shoulder, elbow).', _LIMITS_TEXT, {}),
    'allow_elbow_flip': (
        ParameterType.PARAMETER_BOOL,
        'Use the other elbow branch when the configured one breaks a joint limit.', '', {}),
    'out_of_plane_tolerance': (
        ParameterType.PARAMETER_DOUBLE,
        'Targets further than this from the arm plane are OFF_PLANE (their projection is '
        'commanded), metres.',
        '0 to 10 m',
        {'floating_point_range': [FloatingPointRange(from_value=0.0, to_value=10.0, step=0.0)]}),
}


class IkNode(Node):
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
        config = self._declare_parameters()
        self._config = config
        self._solver = TargetSolver(config)
        self._previous = None
        self._clock = self.get_clock()
        self._stats = TargetStatistics(time.monotonic())
        self._last_warning = {}  # rejected NodeStatus -> time.monotonic() of its last warning
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)

        self._joint_msg = JointState()
        self._joint_msg.header.frame_id = config.base_frame
        self._joint_msg.name = list(config.joint_names)
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
        self._joint_pub = self.create_publisher(JointState, 'joint_commands', reliable,
                                                qos_overriding_options=overridable)
        # rclpy gives every publisher two event handlers (incompatible QoS / type warnings) that
        # the executor polls on every wake-up; for these three reports that doubled the node's
        # per-target overhead above a bare echo node. reachable (reliable, transient local)
        # cannot be QoS-incompatible with any subscriber; the handlers stay on joint_commands
        # and on target_pose.
        quiet = PublisherEventCallbacks(use_default_callbacks=False)
        self._reachable_pub = self.create_publisher(Bool, 'reachable', latched,
                                                    event_callbacks=quiet)
        self._status_pub = self.create_publisher(DiagnosticStatus, 'ik_status', reliable,
                                                 event_callbacks=quiet)
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, '/diagnostics', reliable,
                                                      event_callbacks=quiet)
        self.create_timer(DIAGNOSTICS_PERIOD, self._publish_diagnostics)
        # Last, once everything the callback uses exists.
        self._target_sub = self.create_subscription(
            PoseStamped, 'target_pose', self._on_target, reliable,
            qos_overriding_options=overridable)
        self._warn_unknown_overrides()
        self.get_logger().info(
            f'ready: links {config.link_lengths[0]:g} + {config.link_lengths[1]:g} m in the '
            f"{config.plane} plane of '{config.base_frame}', elbow {config.elbow}, "
            f"{'limited' if config.limited else 'unlimited'} joints")

    # -- parameters ---------------------------------------------------------------------------

    def _declare_parameters(self) -> ArmConfig:
        defaults = ArmConfig().as_parameters()
        values = {}
        for name in PARAMETER_NAMES:
            type_, description, constraints, extra = _PARAMETERS[name]
            descriptor = ParameterDescriptor(
                name=name, type=type_, description=description,
                additional_constraints=constraints,
                read_only=name not in RUNTIME_PARAMETERS, **extra)
            try:
                parameter = self.declare_parameter(name, defaults[name], descriptor)
            except ParameterException as error:
                raise ArmConfigError(self._declare_error(name, type_, error)) from None
            values[name] = parameter.value
        return ArmConfig.from_mapping(values)

    def _declare_error(self, name, type_, error) -> str:
        """One readable line for a parameter override that rclpy refused to declare."""
        override = getattr(self, '_parameter_overrides', {}).get(name)
        if override is None:
            return f'{name}: ' + ' '.join(str(error).split())
        return (type_mismatch(name, type_, override)
                or f'{name}: expected {_PARAMETERS[name][2]}, got {override.value!r}')

    def _warn_unknown_overrides(self):
        overrides = getattr(self, '_parameter_overrides', {})
        for name in sorted(n for n in overrides if not self.has_parameter(n)):
            self.get_logger().warning(f"ignoring unknown parameter '{name}' (misspelt?)")

    def _validate_parameters(self, parameters) -> SetParametersResult:
        """Accept or reject a parameter change; changes nothing (see ``_apply_parameters``)."""
        changes = {}
        for parameter in parameters:
            if parameter.name not in PARAMETER_NAMES:
                continue
            if parameter.type_ == Parameter.Type.NOT_SET:
                return SetParametersResult(
                    successful=False, reason=f'{parameter.name}: cannot be unset')
            changes[parameter.name] = parameter.value
        try:
            dataclasses.replace(self._config, **changes)
        except ArmConfigError as error:
            return SetParametersResult(successful=False, reason=str(error))
        return SetParametersResult(successful=True)

    def _apply_parameters(self, parameters) -> None:
        changes = {p.name: p.value for p in parameters if p.name in PARAMETER_NAMES}
        if not changes:
            return
        self._config = dataclasses.replace(self._config, **changes)
        self._solver = TargetSolver(self._config)
        shown = ', '.join(f'{name}={getattr(self._config, name)!r}' for name in changes)
        self.get_logger().info(f'parameters changed: {shown}')

    # -- per target ---------------------------------------------------------------------------

    def _on_target(self, msg: PoseStamped) -> None:
        p = msg.pose.position
        result = self._solver.solve(msg.header.frame_id, p.x, p.y, p.z, self._previous)
        if result.ik_status is not None:
            joints = self._joint_msg
            joints.header.stamp = self._clock.now().to_msg()
            joints.position = [result.q1, result.q2]
            self._joint_pub.publish(joints)
            self._previous = (result.q1, result.q2)
        self._reachable_pub.publish(self._reachable_msgs[result.reachable])
        # The status text costs more than the solve: build it only for someone, and only once.
        text = None
        if self._status_pub.get_subscription_count():
            text = self._solver.describe(result)
            self._status_pub.publish(DiagnosticStatus(
                level=_LEVEL_BYTES[LEVELS[result.status]], name=self._status_name,
                message=text, hardware_id=self._config.base_frame,
                values=[KeyValue(key=k, value=v) for k, v in self._solver.values(result)]))
        self._stats.record(result.status)
        if result.ik_status is None:
            self._warn_rejected(result, text)

    def _warn_rejected(self, result, text) -> None:
        """Log a rejected target, at most once per ``WARNING_THROTTLE`` s for each status.

        ``text`` is its description if already built, else None (built here only if logged).
        """
        now = time.monotonic()
        last = self._last_warning.get(result.status)
        if last is not None and now - last < WARNING_THROTTLE:
            return
        self._last_warning[result.status] = now
        self.get_logger().warning(text if text is not None else self._solver.describe(result))

    def _publish_diagnostics(self) -> None:
        level, message, values = self._stats.report(time.monotonic())
        array = DiagnosticArray()
        array.header.stamp = self._clock.now().to_msg()
        array.status = [DiagnosticStatus(
            level=_LEVEL_BYTES[level], name=f'{self._status_name}: targets', message=message,
            hardware_id=self._config.base_frame,
            values=[KeyValue(key=k, value=v) for k, v in values])]
        self._diagnostics_pub.publish(array)

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
    :func:`two_bone_ik.node_main.run_node`).
    """
    return run_node(NODE_NAME, IkNode, args)


__all__ = ['IkNode', 'main', 'NodeStatus']
