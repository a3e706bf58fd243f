"""The ``two_bone_ik_sim`` ROS 2 node: a MuJoCo-simulated arm built from the IK node's config.

A thin rclpy shell (parameters, message conversion, publishers, timers) over
:class:`two_bone_ik.sim.session.SimSession`, which decides everything else: which command is in
force, what is refused, trajectory following, stepping and what ``/diagnostics`` says.

Topics (relative, so a namespace gives each arm its own set):

- subscribes ``joint_commands`` (sensor_msgs/JointState): target positions, matched to the
  simulated joints by name; unknown names, NaN/infinite or missing positions are ignored with a
  throttled warning, and joints not named keep their previous target;
- when ``position_controller`` is set, subscribes ``<position_controller>/commands``
  (std_msgs/Float64MultiArray, one position per arm joint in chain order), and when
  ``trajectory_controller`` is set, ``<trajectory_controller>/joint_trajectory``
  (trajectory_msgs/JointTrajectory, followed as joint_trajectory_controller does): the topics of
  ros2_controllers' position and trajectory controllers, checked as they check them (see
  :mod:`two_bone_ik.sim.controller_commands`); a refused message changes nothing and is logged
  in a warning throttled per kind of fault;
- publishes ``joint_states`` (sensor_msgs/JointState: position, velocity, effort) and
  ``tip_pose`` (geometry_msgs/PoseStamped, ``tip_frame`` in ``base_frame``) at
  ``publish_rate``, and ``/diagnostics`` once a second;
- with ``viewer`` or ``camera_rate``, MuJoCo's viewer window and the ``camera/*`` topics, and
  subscribes ``target_pose`` to mark the target in them (:mod:`two_bone_ik.nodes.sim_render`).

``blocked_joints`` names joints whose actuators hold their initial position whatever is
commanded (an arm held by an obstacle: for tests and demos of the IK node's ``motion_status``).

Trajectory times (``time_from_start``) are simulated seconds; a nonzero ``header.stamp`` is a
time of the node's clock, mapped onto the simulated time at reception.

The arm comes from the same parameters as the IK node's (``link_lengths``, ``joint_names``,
``base_frame``, ``plane``, ``joint_lower_limits``, ``joint_upper_limits``, ..., for a desktop arm
of 3 to 5 ``joint_names`` also ``arm_shape`` and ``tool_offset``; or ``robot_description`` and
``tip_frame``: see :mod:`two_bone_ik.sim.simulated_arm`), read as the IK node reads them: the
per-joint and shape parameters count only when given. Their defaults are read from
``arm_params_file`` when it is set (the IK node's params file: the section that
``/<namespace>/two_bone_ik`` would take, matched as rcl does), so one YAML drives both nodes; a
parameter given explicitly overrides the file. So does the workspace (``floor_height``,
``keep_out_boxes``, ``link_radius``: read-only here): the floor and the boxes become geometry
and each moving link a capsule, their contacts real and counted in ``/diagnostics``
(``table_contacts``; see :mod:`two_bone_ik.sim.workspace_geometry`).

Run it with ``ros2 run two_bone_ik two_bone_ik_sim --ros-args -p
arm_params_file:=config/two_bone_ik.yaml`` or ``python -m two_bone_ik.nodes.sim_node ...``.
"""

import sys

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped
from rclpy.exceptions import NameValidationException
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

from two_bone_ik.arm.desktop_config import arm_config_from_mapping, given_arm_values
from two_bone_ik.arm.desktop_config import urdf_arm_options
from two_bone_ik.arm.params_file import parameters_for_node
from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.nodes.diagnostics import diagnostic_status
from two_bone_ik.nodes.node_runner import run_node
from two_bone_ik.nodes.parameter_schema import ARM_PARAMETERS, ik_parameters, names
from two_bone_ik.nodes.parameter_schema import SIM_PARAMETERS, WORKSPACE_PARAMETERS
from two_bone_ik.nodes.parameters import DOUBLE, DOUBLES, parameter_overrides, ParameterError
from two_bone_ik.nodes.parameters import SchemaNode, warn_unknown_overrides
from two_bone_ik.nodes.sim_render import SimRendering
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.session import SimSession
from two_bone_ik.sim.simulated_arm import arm_from_parameters
from two_bone_ik.sim.trajectory_follower import TrajectoryPoint
from two_bone_ik.sim.workspace_geometry import SimWorkspace
from two_bone_ik.workspace.obstacles import check_link_radius, obstacles_from_values

NODE_NAME = 'two_bone_ik_sim'

#: The IK node's name: the sim reads its section of ``arm_params_file`` in the sim's namespace.
IK_NODE_NAME = 'two_bone_ik'

#: Seconds between ``/diagnostics`` reports.
DIAGNOSTICS_PERIOD = 1.0

#: The parameter whose length (and default) follows the arm's joint count.
INITIAL_POSITIONS = 'initial_positions'

#: The workspace the sim builds (read-only here; ``motion_path`` is the IK node's alone).
SIM_WORKSPACE_PARAMETERS = tuple(spec._replace(read_only=True) for spec in WORKSPACE_PARAMETERS
                                 if spec.name != 'motion_path')


def _seconds(duration) -> float:
    """Return a ``builtin_interfaces`` Duration or Time as seconds."""
    return duration.sec + 1e-9 * duration.nanosec


def _arm_parameters(values, given):
    """Check the arm parameters ``values`` (``given``: the names not left at their defaults).

    Returns
    -------
    config : ArmConfig or DesktopConfig
        Without a ``robot_description``, the arm's (a planar pair's or a desktop arm's, see
        :func:`~two_bone_ik.arm.desktop_config.arm_config_from_mapping`); with one, that of its
        frame (:func:`~two_bone_ik.arm.desktop_config.urdf_arm_options`).
    arm : dict
        The values the arm takes (:func:`~two_bone_ik.arm.desktop_config.given_arm_values`).

    Raises
    ------
    ConfigError
        If a value is invalid; the message starts with its name.
    """
    arm = given_arm_values(values, given)
    if values.get('robot_description'):
        return urdf_arm_options(arm), arm
    return arm_config_from_mapping(arm), arm


def _declarable(values):
    """Return ``values`` with numbers made floats where the parameter is a double (YAML ints)."""
    doubles = {spec.name for spec in ARM_PARAMETERS + SIM_WORKSPACE_PARAMETERS
               if spec.type_ in (DOUBLE, DOUBLES)}

    def double(value):
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value
    return {name: ([double(v) for v in value] if isinstance(value, list) else double(value))
            if name in doubles else value for name, value in values.items()}


def _trajectory_point(point) -> TrajectoryPoint:
    """Return a ``trajectory_msgs/JointTrajectoryPoint`` as plain values."""
    return TrajectoryPoint(_seconds(point.time_from_start), tuple(point.positions),
                           tuple(point.velocities), tuple(point.accelerations),
                           tuple(point.effort))


class SimNode(SchemaNode):
    """Simulates the arm, follows its command topics, publishes the measured state.

    Parameters
    ----------
    **kwargs
        Passed to :class:`rclpy.node.Node` (e.g. ``parameter_overrides``, ``context``).

    Raises
    ------
    ConfigError
        If a parameter is invalid; the message starts with its name.
    """

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        settings = self.declare_schema(
            spec for spec in SIM_PARAMETERS if spec.name != INITIAL_POSITIONS)
        try:
            arm, from_urdf = self._declare_arm(settings['arm_params_file'])
            initial = self.declare_schema(
                [spec for spec in SIM_PARAMETERS if spec.name == INITIAL_POSITIONS],
                {INITIAL_POSITIONS: [0.0] * len(arm.joint_names)})[INITIAL_POSITIONS]
            sim = ArmSim(
                arm, natural_frequency=settings['natural_frequency'],
                damping_ratio=settings['damping_ratio'],
                joint_damping=settings['joint_damping'], timestep=settings['timestep'],
                gravity_compensation=settings['gravity_compensation'],
                initial_positions=initial, workspace=self._declare_workspace(arm),
                blocked_joints=list(settings['blocked_joints']))
        except ConfigError as error:  # SimError, UrdfError, ArmConfigError, ...
            raise ParameterError(str(error)) from None
        self._session = SimSession(sim, settings['real_time_factor'])
        self._clock = self.get_clock()

        self._state_msg = JointState()
        self._state_msg.header.frame_id = arm.base_frame
        self._state_msg.name = list(sim.joint_names)
        self._tip_msg = PoseStamped()
        self._tip_msg.header.frame_id = arm.base_frame

        qos = QoSProfile(depth=10)
        self._state_pub = self.create_publisher(JointState, 'joint_states', qos)
        self._tip_pub = self.create_publisher(PoseStamped, 'tip_pose', qos)
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, '/diagnostics', qos)
        self.create_timer(1.0 / settings['publish_rate'], self._on_timer)
        self.create_timer(DIAGNOSTICS_PERIOD, self._publish_diagnostics)
        # The viewer and the camera (nothing when neither is asked for).
        self._rendering = SimRendering(self, sim, settings)
        # Last, once everything the callbacks use exists.
        subscriptions = [self.create_subscription(
            JointState, 'joint_commands', self._on_command, qos)]
        position_sub = self._controller_subscription(
            'position_controller', settings['position_controller'], 'commands',
            Float64MultiArray, self._on_position_command, qos)
        trajectory_sub = self._controller_subscription(
            'trajectory_controller', settings['trajectory_controller'], 'joint_trajectory',
            JointTrajectory, self._on_trajectory, qos)
        subscriptions += [sub for sub in (position_sub, trajectory_sub) if sub is not None]
        # The topic names the warnings give (as resolved: namespace included).
        self._position_topic = position_sub.topic_name if position_sub else ''
        self._trajectory_topic = trajectory_sub.topic_name if trajectory_sub else ''
        # The IK node's own parameters may come along in a shared params file.
        warn_unknown_overrides(self, also_known=names(ik_parameters()))
        self._log_ready(settings, from_urdf, [sub.topic_name for sub in subscriptions])

    def _log_ready(self, settings, from_urdf: bool, inputs) -> None:
        sim = self._session.sim
        arm = sim.arm
        kp = ', '.join(f'{v:.6g}' for v in sim.kp)
        kv = ', '.join(f'{v:.6g}' for v in sim.kv)
        extra = (f" (and off the chain: {', '.join(arm.extra_joints)})"
                 if arm.extra_joints else '')
        blocked = sorted(sim.joint_names[index] for index in sim.blocked)
        extra += f"; blocked (held whatever is commanded): {', '.join(blocked)}" if blocked else ''

        self.get_logger().info(
            f"ready: arm from {'its URDF' if from_urdf else 'its parameters'}: {arm.summary}, "
            f"joints {', '.join(arm.joint_names)}{extra}; kp [{kp}] N m/rad, kv [{kv}] "
            f"N m s/rad, gravity {'compensated' if settings['gravity_compensation'] else 'acting'}"
            f", step {sim.timestep:g} s, {settings['real_time_factor']:g}x real time; commands "
            f"on {', '.join(inputs)}")

    # -- parameters ---------------------------------------------------------------------------

    def _declare_arm(self, params_file: str):
        """Declare the arm parameters, their defaults read from ``params_file`` if set.

        Returns ``(arm, from_urdf)``: the :class:`SimulatedArm`, and whether it comes from a
        ``robot_description``.

        Raises
        ------
        ConfigError
            If the file or a parameter is invalid, or the arm cannot be simulated.
        """
        in_file = {}
        self._workspace_in_file = {}
        if params_file:
            namespace = self.get_namespace().rstrip('/')
            ik_node = f'{namespace}/{IK_NODE_NAME}'
            try:
                found = parameters_for_node(params_file, ik_node)
                if not found.matched_keys:
                    self.get_logger().warning(found.describe_unmatched(ik_node, [params_file]))
                in_file = {name: value for name, value in found.values.items()
                           if name in names(ARM_PARAMETERS)}
                self._workspace_in_file = {
                    name: value for name, value in found.values.items()
                    if name in names(SIM_WORKSPACE_PARAMETERS)}
                _arm_parameters(in_file, in_file)  # the file's own values, named as its
            except ValueError as error:
                raise ParameterError(f'arm_params_file: {error}') from None
        values = self.declare_schema(ARM_PARAMETERS, _declarable(in_file))
        given = set(in_file) | set(parameter_overrides(self))
        return arm_from_parameters(values, given), bool(values['robot_description'])

    def _declare_workspace(self, arm) -> SimWorkspace:
        """Declare the workspace parameters (defaults from ``arm_params_file``); return it.

        Raises
        ------
        ConfigError
            Naming the parameter at fault.
        """
        values = self.declare_schema(SIM_WORKSPACE_PARAMETERS,
                                     _declarable(self._workspace_in_file))
        return SimWorkspace(obstacles_from_values(values),
                            check_link_radius(values['link_radius'], len(arm.joint_names)))

    def _controller_subscription(self, parameter, controller, topic, msg_type, callback, qos):
        """Subscribe ``<controller>/<topic>``, or return None if ``controller`` is empty."""
        if not controller:
            return None
        try:
            return self.create_subscription(msg_type, f'{controller}/{topic}', callback, qos)
        except (NameValidationException, ValueError) as error:
            reason = str(error).splitlines()[0]
            raise ParameterError(f'{parameter}: {controller!r} cannot name a controller: '
                                 f'{reason}') from None

    # -- topics -------------------------------------------------------------------------------

    def _warn(self, lines) -> None:
        for line in lines:
            self.get_logger().warning(line)

    def _on_timer(self) -> None:
        self._warn(self._session.catch_up())
        self.publish_state()

    def publish_state(self) -> None:
        """Publish ``joint_states`` and ``tip_pose`` for the current simulated state."""
        sim = self._session.sim
        stamp = self._clock.now().to_msg()
        state = self._state_msg
        state.header.stamp = stamp
        state.position = sim.positions.tolist()
        state.velocity = sim.velocities.tolist()
        state.effort = sim.efforts.tolist()
        self._state_pub.publish(state)
        tip = self._tip_msg
        tip.header.stamp = stamp
        x, y, z = sim.tip_position.tolist()
        tip.pose.position.x, tip.pose.position.y, tip.pose.position.z = x, y, z
        w, qx, qy, qz = sim.tip_quaternion.tolist()
        orientation = tip.pose.orientation
        orientation.w, orientation.x, orientation.y, orientation.z = w, qx, qy, qz
        self._tip_pub.publish(tip)
        self._rendering.offer(stamp)

    def _publish_diagnostics(self) -> None:
        report = self._session.diagnostics()
        status = diagnostic_status(report.level, f'{self.get_fully_qualified_name()}: simulation',
                                   report.message, 'mujoco', report.values)
        array = DiagnosticArray(status=[status])
        array.header.stamp = self._clock.now().to_msg()
        self._diagnostics_pub.publish(array)

    def _on_command(self, msg: JointState) -> None:
        self._warn(self._session.joint_command(msg.name, msg.position))

    def _on_position_command(self, msg: Float64MultiArray) -> None:
        self._warn(self._session.position_command(self._position_topic, msg.data))

    def _on_trajectory(self, msg: JointTrajectory) -> None:
        stamp = msg.header.stamp
        delay = None
        if stamp.sec or stamp.nanosec:  # a zero stamp: start now
            stamp_ns = stamp.sec * 1_000_000_000 + stamp.nanosec
            delay = 1e-9 * (stamp_ns - self._clock.now().nanoseconds)
        self._warn(self._session.trajectory(
            self._trajectory_topic, msg.joint_names, [_trajectory_point(p) for p in msg.points],
            delay))

    @property
    def sim(self) -> ArmSim:
        """The simulated arm."""
        return self._session.sim

    def destroy_node(self) -> None:
        """Stop the camera and close the viewer window, then destroy the node."""
        rendering = getattr(self, '_rendering', None)
        if rendering is not None:
            rendering.close()
        super().destroy_node()


def main(args=None) -> int:
    """Run the node until Ctrl-C or shutdown; return the process exit code.

    A bad configuration prints one line naming the parameter to stderr and ends the process
    with exit code 2; a command line rcl rejects returns 2 (see
    :func:`two_bone_ik.node_main.run_node`).
    """
    return run_node(NODE_NAME, SimNode, args)


if __name__ == '__main__':
    sys.exit(main())
