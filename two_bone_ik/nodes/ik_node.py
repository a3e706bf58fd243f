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
import sys
import time
import traceback

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import PoseStamped
from rcl_interfaces.msg import SetParametersResult
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.qos_overriding_options import QoSOverridingOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool

from two_bone_ik.arm.config import ArmConfig, ArmConfigError
from two_bone_ik.nodes.node_runner import run_node
from two_bone_ik.nodes.parameter_schema import ik_parameters, names
from two_bone_ik.nodes.parameters import SchemaNode, warn_unknown_overrides
from two_bone_ik.status import ERROR, LEVELS, NodeStatus, OK, WARN
from two_bone_ik.target_solver import TargetSolver
from two_bone_ik.target_statistics import TargetStatistics

NODE_NAME = 'two_bone_ik'

#: Seconds between ``/diagnostics`` reports.
DIAGNOSTICS_PERIOD = 1.0

#: Minimum seconds between two warnings about rejected targets with the same status.
WARNING_THROTTLE = 5.0

#: The node's parameters, arm parameters first.
PARAMETERS = ik_parameters()

#: Names of the parameters that are fields of :class:`ArmConfig`.
CONFIG_PARAMETERS = names(PARAMETERS)

_LEVEL_BYTES = {OK: DiagnosticStatus.OK, WARN: DiagnosticStatus.WARN,
                ERROR: DiagnosticStatus.ERROR}


def diagnostic_level(status: NodeStatus) -> bytes:
    """Return the ``diagnostic_msgs/DiagnosticStatus`` level published for a status."""
    return _LEVEL_BYTES[LEVELS[status]]


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
        config = self._declare_parameters()
        self._config = config
        self._solver = TargetSolver(config)
        self._previous = None
        self._clock = self.get_clock()
        self._stats = TargetStatistics(time.monotonic())
        self._last_warning = {}  # rejected NodeStatus -> time.monotonic() of its last warning
        self._unexpected = set()  # last lines of unexpected tracebacks already logged
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
        # Every publisher keeps rclpy's default event handlers: a subscriber asking for a
        # deadline, manual liveliness or a stricter durability is incompatible with any of them,
        # and the user should hear about it (bench/node_latency.py measures what they cost).
        self._reachable_pub = self.create_publisher(Bool, 'reachable', latched)
        self._status_pub = self.create_publisher(DiagnosticStatus, 'ik_status', reliable)
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, '/diagnostics', reliable)
        self.create_timer(DIAGNOSTICS_PERIOD, self._publish_diagnostics)
        # Last, once everything the callback uses exists.
        self._target_sub = self.create_subscription(
            PoseStamped, 'target_pose', self._on_target, reliable,
            qos_overriding_options=overridable)
        warn_unknown_overrides(self)
        self.get_logger().info(
            f'ready: links {config.link_lengths[0]:g} + {config.link_lengths[1]:g} m in the '
            f"{config.plane} plane of '{config.base_frame}', elbow {config.elbow}, "
            f"{'limited' if config.limited else 'unlimited'} joints")

    # -- parameters ---------------------------------------------------------------------------

    def _declare_parameters(self) -> ArmConfig:
        values = self.declare_schema(PARAMETERS)
        return ArmConfig.from_mapping(values)

    def _validate_parameters(self, parameters) -> SetParametersResult:
        """Accept or reject a parameter change; changes nothing (see ``_apply_parameters``)."""
        changes = {p.name: p.value for p in parameters if p.name in CONFIG_PARAMETERS}
        try:
            dataclasses.replace(self._config, **changes)
        except ArmConfigError as error:
            return SetParametersResult(successful=False, reason=str(error))
        return SetParametersResult(successful=True)

    def _apply_parameters(self, parameters) -> None:
        changes = {p.name: p.value for p in parameters if p.name in CONFIG_PARAMETERS}
        if not changes:
            return
        self._config = dataclasses.replace(self._config, **changes)
        self._solver = TargetSolver(self._config)
        shown = ', '.join(f'{name}={getattr(self._config, name)!r}' for name in changes)
        self.get_logger().info(f'parameters changed: {shown}')

    # -- per target ---------------------------------------------------------------------------

    def _on_target(self, msg: PoseStamped) -> None:
        p = msg.pose.position
        try:
            result = self._solver.solve(msg.header.frame_id, p.x, p.y, p.z, self._previous)
        except Exception:  # noqa: B902 - the safety net: a target never ends the node
            result = self._unexpected_failure(msg)
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
                level=diagnostic_level(result.status), name=self._status_name,
                message=text, hardware_id=self._config.base_frame,
                values=[KeyValue(key=k, value=v) for k, v in self._solver.values(result)]))
        self._stats.record(result.status)
        if result.ik_status is None:
            self._warn_rejected(result, text)

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
        return self._solver.rejected(NodeStatus.INVALID_TARGET, msg.header.frame_id, position)

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


if __name__ == '__main__':
    sys.exit(main())


__all__ = ['IkNode', 'main', 'NodeStatus']
