"""The ``two_bone_ik_servo`` ROS 2 node: joint commands in, bytes to a serial servo controller out.

A thin rclpy shell over :class:`two_bone_ik.servo.servo_link.ServoLink` and one protocol module
of :mod:`two_bone_ik.servo` (Pololu Maestro, Lynxmotion SSC-32U, Dynamixel Protocol 2.0).

Topics (relative, so a namespace gives each arm its own set):

- subscribes ``joint_commands`` (sensor_msgs/JointState): targets matched to ``joints`` by
  name; unknown names, NaN/infinite or missing positions are ignored with a throttled warning,
  joints not named keep their target. While the controller is unreachable commands are dropped,
  never replayed later;
- publishes ``joint_states`` (sensor_msgs/JointState, position only) at ``state_rate`` with the
  positions read back from the controller (only those it reports; nothing while disconnected);
- publishes ``/diagnostics`` (diagnostic_msgs/DiagnosticArray) once a second: one status for
  the controller with port, protocol, connected, last error and counts.

Run it with ``ros2 run two_bone_ik two_bone_ik_servo --ros-args --params-file
config/servo_driver_maestro.yaml`` or ``python -m two_bone_ik.nodes.servo_node --ros-args ...``.
"""

import sys

from diagnostic_msgs.msg import DiagnosticArray
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState

from two_bone_ik.arm.joint_commands import match_command
from two_bone_ik.nodes.command_warnings import warn_about_command
from two_bone_ik.nodes.diagnostics import diagnostic_status
from two_bone_ik.nodes.node_runner import run_node
from two_bone_ik.nodes.parameter_schema import ik_parameters, names, SERVO_PARAMETERS
from two_bone_ik.nodes.parameter_schema import servo_joint_parameters
from two_bone_ik.nodes.parameters import parameter_overrides, ParameterError, SchemaNode
from two_bone_ik.nodes.parameters import warn_unknown_overrides
from two_bone_ik.servo.servo_link import assess, controller_class, servo_settings, ServoLink

NODE_NAME = 'two_bone_ik_servo'

#: Seconds between ``/diagnostics`` reports.
DIAGNOSTICS_PERIOD = 1.0

#: Minimum seconds between two warnings of the same kind.
WARNING_THROTTLE = 5.0

#: Per-joint parameters that must be given (they have no meaningful default).
REQUIRED = ('channel', 'angle_range', 'output_range')


class ServoNode(SchemaNode):
    """Drives the servos of ``joints`` through one serial controller.

    Parameters
    ----------
    **kwargs
        Passed to :class:`rclpy.node.Node` (e.g. ``parameter_overrides``, ``context``).

    Raises
    ------
    ConfigError
        If a parameter is invalid or the port does not exist; the message starts with the
        parameter's name.
    """

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self._link = None
        settings = self.declare_schema(SERVO_PARAMETERS)
        cls = controller_class(settings['protocol'])
        if not settings['port']:
            raise ParameterError('port: not set; give the serial device path, e.g. '
                                 '-p port:=/dev/ttyACM0')
        self._joints = tuple(settings['joints'])
        servos = servo_settings(cls, self._joints, self._declare_servos(self._joints))
        extra = {'move_time': settings['move_time']} if cls.PROTOCOL == 'ssc32u' else {}
        if cls.PROTOCOL == 'ssc32u':
            for servo in servos:
                if servo.max_acceleration:
                    self.get_logger().warning(
                        f'servos.{servo.joint}.max_acceleration: the SSC-32U has no '
                        'acceleration limit; ignored')
        controller = cls(settings['port'], settings['baud_rate'], servos, **extra)
        self._torque_off = settings['torque_off_on_exit']
        self._link = ServoLink(controller, settings['reconnect_period'])
        self._link.start()  # PortMissingError: the node ends with exit code 2, naming the port
        self._reported = None
        self._hardware_id = f'{controller.PROTOCOL} {controller.port}'

        self._state_msg = JointState()
        qos = QoSProfile(depth=10)
        self._state_pub = self.create_publisher(JointState, 'joint_states', qos)
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, '/diagnostics', qos)
        self.create_timer(1.0 / settings['state_rate'], self._on_state_timer)
        self.create_timer(DIAGNOSTICS_PERIOD, self._publish_diagnostics)
        # Last, once everything the callback uses exists.
        self._command_sub = self.create_subscription(
            JointState, 'joint_commands', self._on_command, qos)
        # The IK node's parameters may come along in a shared params file.
        warn_unknown_overrides(self, also_known=names(ik_parameters()))
        state = self._link.status()
        self.get_logger().info(
            f'ready: {controller.PROTOCOL} on {controller.port} at {controller.baud_rate} baud, '
            f"joints {', '.join(self._joints)}; "
            + ('connected' if state.connected else f'not connected yet ({state.last_error})'))

    # -- parameters ---------------------------------------------------------------------------

    def _declare_servos(self, joints) -> dict:
        """Declare ``servos.<joint>.*`` for every joint; return ``{name: value}``."""
        overrides = parameter_overrides(self)
        values = {}
        for joint in joints:
            specs = {spec.name.rsplit('.', 1)[1]: spec for spec in servo_joint_parameters(joint)}
            for key in REQUIRED:
                if specs[key].name not in overrides:
                    raise ParameterError(f'{specs[key].name}: not set ({specs[key].description})')
            limits = specs.pop('output_limits')
            values.update(self.declare_schema(specs.values()))
            # Default of the output limits: the ends of the output range, as declared.
            low, high = sorted(values[specs['output_range'].name])
            values.update(self.declare_schema([limits], {limits.name: [low, high]}))
        return values

    # -- topics -------------------------------------------------------------------------------

    def _on_command(self, msg: JointState) -> None:
        match = match_command(msg.name, msg.position, self._joints)
        warn_about_command(self.get_logger(), match, msg, self._joints, WARNING_THROTTLE)
        if not match.targets:
            return
        outcome = self._link.command(match.targets)
        if outcome.clamped:
            self.get_logger().warning(
                f"joint_commands: clamped to output_limits: {', '.join(outcome.clamped)}",
                throttle_duration_sec=WARNING_THROTTLE)
        if not outcome.sent and not self._link.connected:
            self.get_logger().warning(
                'joint_commands: dropped while the controller is disconnected '
                f'({self._link.status().last_error})', throttle_duration_sec=WARNING_THROTTLE)

    def _on_state_timer(self) -> None:
        positions = self._link.poll()
        if not positions:
            return
        msg = self._state_msg
        msg.header.stamp = self.get_clock().now().to_msg()
        order = sorted(positions)
        msg.name = [self._joints[index] for index in order]
        msg.position = [positions[index] for index in order]
        self._state_pub.publish(msg)

    def _publish_diagnostics(self) -> None:
        state = self._link.status()
        level, message = assess(self._reported, state)
        self._reported = state
        controller = self._link.controller
        values = {
            'port': controller.port, 'protocol': controller.PROTOCOL,
            'baud_rate': controller.baud_rate, 'connected': state.connected,
            'last_error': state.last_error, 'commands_sent': state.commands_sent,
            'commands_dropped': state.commands_dropped,
            'commands_clamped': state.commands_clamped, 'last_clamp': state.last_clamp,
            'read_failures': state.read_failures, 'link_failures': state.link_failures,
            'device_errors': state.device_errors, 'reconnects': state.reconnects,
        }
        status = diagnostic_status(
            level, f'{self.get_fully_qualified_name()}: {self._hardware_id}', message,
            self._hardware_id, ((key, str(value).lower() if isinstance(value, bool)
                                 else str(value)) for key, value in values.items()))
        array = DiagnosticArray(status=[status])
        array.header.stamp = self.get_clock().now().to_msg()
        self._diagnostics_pub.publish(array)

    @property
    def link(self) -> ServoLink:
        """The link to the controller."""
        return self._link

    def destroy_node(self) -> None:
        """Release the servos (as ``torque_off_on_exit`` says) and the port, then the node."""
        if self._link is not None:
            self._link.close(self._torque_off)
            self._link = None
        super().destroy_node()


def main(args=None) -> int:
    """Run the node until Ctrl-C or shutdown; return the process exit code.

    A bad configuration, or a port that does not exist, prints one line naming the parameter to
    stderr and ends the process with exit code 2 (see
    :func:`two_bone_ik.nodes.node_runner.run_node`).
    """
    return run_node(NODE_NAME, ServoNode, args)


if __name__ == '__main__':
    sys.exit(main())
