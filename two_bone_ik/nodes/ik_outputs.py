"""The IK node's publishers, and the session's answers turned into their messages.

What the IK node (:mod:`two_bone_ik.nodes.ik_node`) publishes: the commands (``joint_commands``,
``<position_controller>/commands``, ``<trajectory_controller>/joint_trajectory``), ``reachable``,
``ik_status``, ``motion_status``, ``/diagnostics`` and ``ik_markers``. Message conversion only:
what to publish and when is decided by :class:`two_bone_ik.session.ArmSession` and
:class:`two_bone_ik.session.marker_schedule.MarkerSchedule`.
"""

from typing import Callable, Dict, Iterable, Optional

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from rclpy.event_handler import PublisherEventCallbacks
from rclpy.exceptions import InvalidTopicNameException
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.qos_overriding_options import QoSOverridingOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

from two_bone_ik.nodes.diagnostics import diagnostic_status
from two_bone_ik.nodes.ik_messages import joint_trajectory, marker_array, marker_msg
from two_bone_ik.nodes.parameters import ParameterError
from two_bone_ik.session.outputs import JointCommand, LogLine, TrajectoryCommand
from visualization_msgs.msg import MarkerArray

#: The command path and the per-target reports.
RELIABLE = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST,
                      reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.VOLATILE)
#: Latched: a late subscriber still gets the last message.
LATCHED = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                     reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


def log_lines(logger, lines: Iterable[LogLine]) -> None:
    """Log each of the session's lines at its severity (``'error'``, ``'warning'``, else info)."""
    # One call site per severity: rclpy refuses two severities from one line.
    for line in lines:
        if line.severity == 'error':
            logger.error(line.text)
        elif line.severity == 'warning':
            logger.warning(line.text)
        else:
            logger.info(line.text)


def controller_publisher(node, parameter: str, controller: str, topic: str, msg_type):
    """Return a publisher on ``<controller>/<topic>``, or None without a controller name.

    Raises
    ------
    ParameterError
        If ``<controller>/<topic>`` is not a valid topic name; the message names ``parameter``.
    """
    if not controller:
        return None
    try:
        return node.create_publisher(msg_type, f'{controller}/{topic}', RELIABLE)
    except (InvalidTopicNameException, ValueError) as error:
        raise ParameterError(f'{parameter}: {controller!r} does not make a valid topic name '
                             f"({' '.join(str(error).split())})") from None


class IkOutputs:
    """Every publisher of the IK node and the messages it reuses.

    Parameters
    ----------
    node : rclpy.node.Node
        Creates the publishers and stamps the messages with its clock.
    values : dict
        The node's parameter values (``publish_joint_commands``, ``position_controller``,
        ``trajectory_controller``, ``base_frame``).

    Raises
    ------
    ParameterError
        If a controller name does not make a valid topic name.
    """

    def __init__(self, node, values: dict):
        self._clock = node.get_clock()
        self._frame = values['base_frame']
        self._name = node.get_fully_qualified_name()
        self._reachable_msgs = (Bool(data=False), Bool(data=True))
        # One reused message per publishing thread: the executor's and the pacer's.
        self._joint_msgs = {thread: JointState() for thread in ('executor', 'pacer')}
        for joints in self._joint_msgs.values():
            joints.header.frame_id = self._frame
        self._arm_markers = (None, ())  # (arm number, its marker messages)
        self._create_commands(node, values)
        # The reports go without rclpy's QoS event handlers: each is one more entity in every
        # wait of the executor (every target pays for it), and a subscriber whose QoS does not
        # match hears about it from its own side. The command outputs keep theirs.
        quiet = PublisherEventCallbacks(use_default_callbacks=False)

        def report(msg_type, topic: str, qos: QoSProfile):
            return node.create_publisher(msg_type, topic, qos, event_callbacks=quiet)

        self._reachable_pub = report(Bool, 'reachable', LATCHED)
        self._status_pub = report(DiagnosticStatus, 'ik_status', RELIABLE)
        self._motion_pub = report(DiagnosticStatus, 'motion_status', RELIABLE)
        self._diagnostics_pub = report(DiagnosticArray, '/diagnostics', RELIABLE)
        # Latched, so an RViz that starts later still gets the last picture.
        self._marker_pub = report(MarkerArray, 'ik_markers', LATCHED)

    def _create_commands(self, node, values: dict) -> None:
        # QoS of the command path can be overridden with the standard read-only parameters
        # qos_overrides.<topic>.{publisher,subscription}.{depth,history,reliability,durability}.
        self._joint_pub = None
        if values['publish_joint_commands']:
            self._joint_pub = node.create_publisher(
                JointState, 'joint_commands', RELIABLE,
                qos_overriding_options=QoSOverridingOptions.with_default_policies())
        self._position_pub = controller_publisher(
            node, 'position_controller', values['position_controller'], 'commands',
            Float64MultiArray)
        self._trajectory_pub = controller_publisher(
            node, 'trajectory_controller', values['trajectory_controller'], 'joint_trajectory',
            JointTrajectory)

    def commands(self, command: Optional[JointCommand], trajectory: Optional[TrajectoryCommand],
                 thread: str = 'executor') -> None:
        """Publish a command (from ``thread``: 'executor' or 'pacer') and a trajectory, if any."""
        if command is not None:
            self._command(command, self._joint_msgs[thread])
        if trajectory is not None and self._trajectory_pub is not None:
            self._trajectory_pub.publish(joint_trajectory(trajectory.names, trajectory.points))

    def _command(self, command: JointCommand, joints: JointState) -> None:
        position = list(command.position)
        if self._joint_pub is not None:
            if len(joints.name) != len(command.names) or tuple(joints.name) != command.names:
                joints.name = list(command.names)
            joints.header.stamp = self._clock.now().to_msg()
            joints.position = position
            joints.velocity = [] if command.velocity is None else list(command.velocity)
            self._joint_pub.publish(joints)
        if self._position_pub is not None:
            self._position_pub.publish(Float64MultiArray(data=position))

    def motion(self, verdicts, to_status: Callable) -> None:
        """Publish each verdict's ``motion_status`` (built by ``to_status``) if someone listens."""
        if verdicts and self._motion_pub.get_subscription_count():
            for level, text, values in map(to_status, verdicts):
                self._motion_pub.publish(diagnostic_status(
                    level, self._name, text, self._frame, values))

    def reachable(self, reachable: bool) -> None:
        """Publish ``reachable`` (latched)."""
        self._reachable_pub.publish(self._reachable_msgs[reachable])

    def status(self, answer, to_status: Callable) -> None:
        """Publish an answer's ``ik_status`` (built by ``to_status``) if someone listens."""
        # The status text costs more than the solve: build it only for someone.
        if self._status_pub.get_subscription_count():
            level, text, values = to_status(answer)
            self._status_pub.publish(diagnostic_status(
                level, self._name, text, self._frame, values))

    def command_subscribers(self) -> Dict[str, int]:
        """Return the subscribers of each command output, by topic."""
        outputs = [pub for pub in (self._joint_pub, self._position_pub, self._trajectory_pub)
                   if pub is not None]
        return {pub.topic_name: pub.get_subscription_count() for pub in outputs}

    def diagnostics(self, reports) -> None:
        """Publish the session's reports as one ``/diagnostics`` array."""
        array = DiagnosticArray()
        array.header.stamp = self._clock.now().to_msg()
        array.status = [diagnostic_status(report.level, f'{self._name}: {report.name}',
                                          report.message, self._frame, report.values)
                        for report in reports]
        self._diagnostics_pub.publish(array)

    def marker_subscribers(self) -> int:
        """Return how many subscribe to ``ik_markers``."""
        return self._marker_pub.get_subscription_count()

    def markers(self, picture) -> None:
        """Publish the session's picture on ``ik_markers`` (the arm's markers built per arm)."""
        stamp = self._clock.now().to_msg()
        if self._arm_markers[0] != picture.arm:
            self._arm_markers = (picture.arm, [marker_msg(shape, self._frame, stamp)
                                               for shape in picture.arm_shapes])
        self._marker_pub.publish(marker_array(picture.target_shapes, self._frame, stamp,
                                              self._arm_markers[1]))
