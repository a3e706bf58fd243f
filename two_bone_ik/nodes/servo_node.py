"""The ``two_bone_ik_servo`` ROS 2 node: joint commands in, bytes to a serial servo controller out.

A thin rclpy shell: parameters, message conversion, publishers and timers. What the driver
decides (which servo targets to send, clamping, coupled joints, reconnect timing, what goes on
``joint_states`` and what diagnostics say) is :class:`two_bone_ik.servo.driver.ServoDriver`, over
one protocol module of :mod:`two_bone_ik.servo`; see ``docs/servos.md``.

Topics (relative, so a namespace gives each arm its own set):

- subscribes ``joint_commands`` (sensor_msgs/JointState): targets matched to ``joints`` by
  name; unknown names, NaN/infinite or missing positions are ignored with a throttled warning;
  only the named joints move (and servos coupled to them), the others keep their target. While
  the controller is unreachable commands are dropped, never replayed later;
- publishes ``joint_states`` (sensor_msgs/JointState, position only) at ``state_rate`` with the
  positions read back from the controller (only those it reports; nothing while disconnected);
- publishes ``/diagnostics`` (diagnostic_msgs/DiagnosticArray) once a second: one status for
  the controller with port, protocol, connected, last error and counts, and, for bus servos
  (Feetech, Dynamixel), one per joint with what its servo reports (load, voltage,
  temperature, error bits; ERROR naming the joint for an overload or overheating bit).

Run it with ``ros2 run two_bone_ik two_bone_ik_servo --ros-args --params-file
config/servo_driver_maestro.yaml`` or ``python -m two_bone_ik.nodes.servo_node --ros-args ...``.
"""

import sys

from diagnostic_msgs.msg import DiagnosticArray
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState

from two_bone_ik.common.warning_throttle import WarningThrottle
from two_bone_ik.nodes.command_warnings import warn_about_command
from two_bone_ik.nodes.diagnostics import diagnostic_status
from two_bone_ik.nodes.node_runner import run_node
from two_bone_ik.nodes.parameter_schema import ik_parameters, names, SERVO_PARAMETERS
from two_bone_ik.nodes.parameter_schema import servo_joint_parameters
from two_bone_ik.nodes.parameters import parameter_overrides, SchemaNode
from two_bone_ik.nodes.parameters import warn_unknown_overrides
from two_bone_ik.servo.driver import build_driver, protocol_setup, ServoDriver
from two_bone_ik.servo.servo_settings import default_output_limits

NODE_NAME = 'two_bone_ik_servo'

#: Seconds between ``/diagnostics`` reports.
DIAGNOSTICS_PERIOD = 1.0

#: Minimum seconds between two warnings of the same kind.
WARNING_THROTTLE = 5.0

#: Per-joint parameters passed on only when given (a calibration file may supply them).
GIVEN_ONLY = ('channel', 'angle_range', 'output_range')


class ServoNode(SchemaNode):
    """Drives the servos of ``joints`` through one serial controller.

    Parameters
    ----------
    **kwargs
        Passed to :class:`rclpy.node.Node` (e.g. ``parameter_overrides``, ``context``).

    Raises
    ------
    ConfigError
        If a parameter or the calibration file is invalid, or the port does not exist; the
        message starts with the parameter's name.
    """

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self._driver = None
        settings = self.declare_schema(SERVO_PARAMETERS)
        cls, calibration = protocol_setup(settings)
        joint_values = self._declare_servos(settings['joints'], calibration)
        driver = build_driver(cls, settings, joint_values, calibration)
        for note in driver.notes:
            self.get_logger().warning(note)
        self._torque_off = settings['torque_off_on_exit']
        self._driver = driver
        driver.start()  # PortMissingError: the node ends with exit code 2, naming the port
        self._throttle = WarningThrottle(WARNING_THROTTLE)

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
        self.get_logger().info(driver.ready_text())

    def _declare_servos(self, joints, calibration) -> dict:
        """Declare ``servos.<joint>.*`` for every joint; return the values to build from."""
        overrides = parameter_overrides(self)
        values = {}
        for joint in joints:
            specs = {spec.name.rsplit('.', 1)[1]: spec for spec in servo_joint_parameters(joint)}
            limits = specs.pop('output_limits')
            motor = calibration.motors.get(joint) if calibration is not None else None
            declared = self.declare_schema(
                specs.values(), {specs['channel'].name: motor.id} if motor is not None else None)
            output_range = specs['output_range'].name
            default = default_output_limits(
                joint, declared[output_range] if output_range in overrides else None,
                calibration)
            declared.update(self.declare_schema([limits], {limits.name: default}))
            values.update((name, value) for name, value in declared.items()
                          if name in overrides or name.rsplit('.', 1)[1] not in GIVEN_ONLY)
        return values

    # -- topics -------------------------------------------------------------------------------

    def _on_command(self, msg: JointState) -> None:
        report = self._driver.command(msg.name, msg.position)
        warn_about_command(self.get_logger(), report.match, msg, self._driver.joints,
                           WARNING_THROTTLE)
        for kind, line in report.warnings:
            if self._throttle.allow(kind):
                self.get_logger().warning(line)

    def _on_state_timer(self) -> None:
        states = self._driver.poll()
        if states is None:
            return
        msg = self._state_msg
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.name = list(states.names)
        msg.position = list(states.positions)
        self._state_pub.publish(msg)

    def _publish_diagnostics(self) -> None:
        name = self.get_fully_qualified_name()
        reports = ((self._driver.hardware_id, self._driver.diagnostics()),
                   ) + self._driver.servo_reports()
        array = DiagnosticArray(status=[
            diagnostic_status(report.level, f'{name}: {what}', report.message,
                              report.hardware_id, report.values) for what, report in reports])
        array.header.stamp = self.get_clock().now().to_msg()
        self._diagnostics_pub.publish(array)

    @property
    def driver(self) -> ServoDriver:
        """The driver's decisions and its link to the controller."""
        return self._driver

    def destroy_node(self) -> None:
        """Release the servos (as ``torque_off_on_exit`` says) and the port, then the node."""
        if self._driver is not None:
            self._driver.close(self._torque_off)
            self._driver = None
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
