"""The two_bone_ik ROS 2 node: PoseStamped targets in, joint commands out.

A thin rclpy shell over :class:`two_bone_ik.session.ArmSession`, which decides everything: it
declares the parameters, creates the publishers, subscriptions, service and timers, converts
messages to floats and the session's answers back to messages.

Topics (relative, so a namespace gives each arm its own set; docs/node.md has every detail):

- subscribes ``target_pose`` (geometry_msgs/PoseStamped: the position; a desktop arm with
  ``use_orientation`` uses the orientation too),
  ``target_twist`` (geometry_msgs/TwistStamped, or Twist with ``twist_stamped`` false: jogging),
  ``joint_states`` (best effort; where the first motion starts, where a desktop arm's held
  roll is before the first command, and whether the arm got there) and, when
  ``robot_description_topic`` is set, the URDF on that topic (transient local), and, with
  tf2_ros installed, ``/tf`` and ``/tf_static`` for targets from other frames;
- publishes the commands: ``joint_commands`` (sensor_msgs/JointState),
  ``<position_controller>/commands`` (std_msgs/Float64MultiArray) and
  ``<trajectory_controller>/joint_trajectory`` (trajectory_msgs/JointTrajectory), streamed at
  ``command_rate`` from a pacer thread when any motion limit is finite;
- publishes ``reachable`` (std_msgs/Bool, latched) and ``ik_status``
  (diagnostic_msgs/DiagnosticStatus, built only while a subscriber is matched) per target,
  ``motion_status`` (diagnostic_msgs/DiagnosticStatus, per command: MOVING, then ARRIVED or why
  not; built only while a subscriber is matched), ``ik_markers``
  (visualization_msgs/MarkerArray, latched, at most 10 Hz) and ``/diagnostics`` once a second;
- serves ``~/stop`` (std_srvs/Trigger): brake within the limits and hold.

Run it with ``ros2 run two_bone_ik two_bone_ik_node --ros-args --params-file X.yaml`` or
``python -m two_bone_ik --ros-args ...``.
"""

import sys

from geometry_msgs.msg import PoseStamped, Twist, TwistStamped
from rcl_interfaces.msg import SetParametersResult
from rclpy.qos import qos_profile_sensor_data
from rclpy.qos_overriding_options import QoSOverridingOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger

from two_bone_ik.motion.pacer import Pacer
from two_bone_ik.nodes.ik_outputs import IkOutputs, LATCHED, log_lines, RELIABLE
from two_bone_ik.nodes.node_runner import run_node
from two_bone_ik.nodes.parameter_schema import ik_parameters
from two_bone_ik.nodes.parameters import parameter_overrides, SchemaNode
from two_bone_ik.nodes.parameters import warn_unknown_overrides
from two_bone_ik.nodes.transforms import HeldTargets, node_transforms
from two_bone_ik.session import ArmSession
from two_bone_ik.session.marker_schedule import MarkerSchedule, MarkerTick

NODE_NAME = 'two_bone_ik'

#: Seconds between ``/diagnostics`` reports.
DIAGNOSTICS_PERIOD = 1.0

#: The interpreter's thread switch interval in the node, s (Python's default: 5 ms).
PACER_SWITCH_INTERVAL = 0.0005

#: Most ik_markers arrays published per second (each carries everything: workspace, target, arm).
MARKER_RATE = 10.0


class IkNode(SchemaNode):
    """Solves every ``target_pose`` for the configured arm and publishes the joint command.

    Parameters
    ----------
    **kwargs
        Passed to :class:`rclpy.node.Node` (e.g. ``parameter_overrides``, ``context``).

    Raises
    ------
    ConfigError
        If a parameter given at start is invalid; the message starts with its name.
    """

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        values = self.declare_schema(ik_parameters())
        self._transforms = node_transforms(self, values['base_frame'])
        self._session = ArmSession(values, set(parameter_overrides(self)),
                                   trajectories=bool(values['trajectory_controller']),
                                   transform_lookup=self._transforms.lookup)
        self._outputs = IkOutputs(self, values)
        self.add_on_set_parameters_callback(self._check_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)
        self._markers = MarkerSchedule()
        self._marker_timer = self.create_timer(1.0 / MARKER_RATE, self._on_marker_timer)
        self.create_timer(DIAGNOSTICS_PERIOD, self._publish_diagnostics)
        self._held = HeldTargets(self, self._session, self._target_answer)
        topic = values['robot_description_topic']
        if not values['robot_description'] and topic:
            # As robot_state_publisher publishes it (and controller_manager reads it).
            self.create_subscription(String, topic, self._on_description, LATCHED)
        self._state_sub = None
        self._subscribe_to_measured_state()
        self.create_service(Trigger, '~/stop', self._on_stop)
        # The pacer thread needs the GIL at each due time: a busy executor thread (a flood of
        # targets) would hold it for up to the default 5 ms switch interval every time.
        sys.setswitchinterval(PACER_SWITCH_INTERVAL)
        self._pacer = Pacer(self._on_tick, self._session.period, name='two_bone_ik_stream')
        if values['twist_stamped']:
            self.create_subscription(TwistStamped, 'target_twist', self._on_twist, RELIABLE)
        else:
            self.create_subscription(Twist, 'target_twist', self._on_unstamped_twist, RELIABLE)
        # Last, once everything the callback uses exists.
        self.create_subscription(PoseStamped, 'target_pose', self._on_target, RELIABLE,
                                 qos_overriding_options=QoSOverridingOptions
                                 .with_default_policies())
        warn_unknown_overrides(self)
        self._log(self._session.start_logs() + self._transforms.logs)

    def _log(self, lines) -> None:
        log_lines(self.get_logger(), lines)

    # -- inputs -------------------------------------------------------------------------------

    def _on_target(self, msg: PoseStamped) -> None:
        p, o, stamp = msg.pose.position, msg.pose.orientation, msg.header.stamp
        answer = self._session.target(msg.header.frame_id, p.x, p.y, p.z, (o.x, o.y, o.z, o.w),
                                      stamp.sec * 1_000_000_000 + stamp.nanosec)
        if answer is not None:  # None: held until its transform comes
            self._target_answer(answer)
        self._held.due()

    def _target_answer(self, answer) -> None:
        self._publish(answer.command, answer.trajectory, answer.wake, motion=answer.motion)
        self._outputs.reachable(answer.result.reachable)
        self._answer(answer)

    def _answer(self, answer) -> None:
        self._outputs.status(answer, self._session.status)
        self._markers_due()
        self._log(answer.logs)

    def _on_twist(self, msg: TwistStamped) -> None:
        self._jog(msg.header.frame_id, msg.twist)

    def _on_unstamped_twist(self, msg: Twist) -> None:
        self._jog('', msg)

    def _jog(self, frame_id: str, twist: Twist) -> None:
        linear, angular = twist.linear, twist.angular
        answer = self._session.twist(frame_id, (linear.x, linear.y, linear.z),
                                     (angular.x, angular.y, angular.z))
        self._publish(None, None, answer.wake, motion=answer.motion)
        self._outputs.reachable(answer.result.reachable)
        self._answer(answer)
        self._held.due()

    def _on_description(self, msg: String) -> None:
        self._changed(self._session.receive_description(msg.data))

    def _subscribe_to_measured_state(self) -> None:
        """Read ``joint_states`` (once; from the start, planned motion or not).

        A planned motion starts from the measured position, a desktop arm holds its roll
        where the arm is before the first command, and ``motion_status`` says from it whether
        the arm got there. Best effort, so it matches both reliable publishers and sensor-QoS
        ones (hardware drivers).
        """
        if self._state_sub is None:
            self._state_sub = self.create_subscription(
                JointState, 'joint_states', self._on_joint_states, qos_profile_sensor_data)

    def _on_joint_states(self, msg: JointState) -> None:
        stamp = msg.header.stamp
        self._log(self._session.measured(
            msg.name, msg.position, stamp.sec + stamp.nanosec * 1e-9,
            self.get_clock().now().nanoseconds * 1e-9))

    def _on_stop(self, request, response):
        """Service ``~/stop``: brake within the limits and hold; say where."""
        answer = self._session.stop()
        self._publish(None, answer.trajectory, answer.wake, motion=answer.motion)
        response.success = True
        response.message = answer.message
        self.get_logger().info(f'~/stop: {answer.message}')
        self._held.due()
        return response

    def _check_parameters(self, parameters) -> SetParametersResult:
        """Accept or reject a parameter change; changes nothing (see ``_apply_parameters``)."""
        reason = self._session.check({p.name: p.value for p in parameters})
        return SetParametersResult(successful=reason is None, reason=reason or '')

    def _apply_parameters(self, parameters) -> None:
        self._changed(self._session.apply({p.name: p.value for p in parameters}))

    def _changed(self, change) -> None:
        """Act on a new arm or new parameters: publish, read the arm's state, redraw, log."""
        self._publish(None, change.trajectory, change.wake)
        self._subscribe_to_measured_state()
        self._markers_due()
        self._log(change.logs)

    # -- outputs ------------------------------------------------------------------------------

    def _publish(self, command, trajectory, wake: bool, thread: str = 'executor',
                 motion=()) -> None:
        """Publish a command, a trajectory and motion statuses; start streaming (or checking)."""
        self._outputs.motion(motion, self._session.motion_status)
        self._outputs.commands(command, trajectory, thread)
        if wake:
            self._pacer.set_period(self._session.period)
            self._pacer.wake()

    def _on_tick(self) -> bool:
        """Publish the next sample of the motion (pacer thread); return whether more follow."""
        tick = self._session.tick()
        try:
            self._publish(tick.command, tick.trajectory, False, 'pacer', tick.motion)
        except RuntimeError:
            return False  # rcl's "context is invalid": a signal shut the node down meanwhile
        self._pacer.set_period(tick.period)
        self._log(tick.logs)
        return tick.more

    def destroy_node(self):
        """Stop the streaming thread, then destroy the node."""
        self._pacer.close()
        return super().destroy_node()

    def _publish_diagnostics(self) -> None:
        if self._markers.subscriber_came(self._outputs.marker_subscribers()):
            self._marker_timer.reset()
        self._outputs.diagnostics(self._session.reports(self._outputs.command_subscribers()))

    def _markers_due(self) -> None:
        """Publish the picture within one marker period, if someone listens."""
        if self._markers.start(self._session.picture_due, self._marker_timer.is_canceled()):
            self._marker_timer.reset()

    def _on_marker_timer(self) -> None:
        """Publish the picture if it changed and someone listens; then rest until it changes."""
        if self._markers.tick(self._session.picture_due,
                              self._outputs.marker_subscribers()) is MarkerTick.REST:
            self._marker_timer.cancel()
        else:
            self._outputs.markers(self._session.picture())

    @property
    def session(self) -> ArmSession:
        """The node's logic."""
        return self._session


def main(args=None) -> int:
    """Run the node until Ctrl-C or shutdown; return the process exit code.

    A bad configuration prints one line naming the parameter to stderr and ends the process
    with exit code 2 (see :func:`two_bone_ik.nodes.node_runner.run_node`).
    """
    return run_node(NODE_NAME, IkNode, args)


if __name__ == '__main__':
    sys.exit(main())
