"""The ``two_bone_ik_sim`` ROS 2 node: a MuJoCo-simulated arm built from the IK node's config.

A thin rclpy shell over :class:`two_bone_ik.sim.arm_sim.ArmSim`.

Topics (relative, so a namespace gives each arm its own set):

- subscribes ``joint_commands`` (sensor_msgs/JointState): target positions, matched to the arm's
  joints by name; unknown names, NaN/infinite or missing positions are ignored with a throttled
  warning, and joints not named keep their previous target;
- when ``position_controller`` is set, subscribes ``<position_controller>/commands``
  (std_msgs/Float64MultiArray, one position per joint in the arm's order), and when
  ``trajectory_controller`` is set, ``<trajectory_controller>/joint_trajectory``
  (trajectory_msgs/JointTrajectory, followed as joint_trajectory_controller does): the topics of
  ros2_controllers' position and trajectory controllers, checked as they check them (see
  :mod:`two_bone_ik.sim.controller_commands`); a refused message changes nothing and is logged
  in a warning throttled per kind of fault. The latest accepted command of any input wins (a
  position command ends a trajectory being followed);
- publishes ``joint_states`` (sensor_msgs/JointState: position, velocity, effort) and
  ``tip_pose`` (geometry_msgs/PoseStamped, the ``tool`` frame in ``base_frame``) at
  ``publish_rate``.

The physics advances in steps of ``timestep`` so that simulated time follows the wall clock times
``real_time_factor``; it catches up before each publication and before applying each command,
so a command acts from the moment it arrives. While a trajectory is followed, the position
targets are its samples at the end of each step. Trajectory times (``time_from_start``) are
simulated seconds; a nonzero ``header.stamp`` is a time of the node's clock, mapped onto the
simulated time at reception.

The arm comes from the same parameters as the IK node's (``link_lengths``, ``joint_names``,
``base_frame``, ``plane``, ``joint_lower_limits``, ``joint_upper_limits``). Their defaults are
read from ``arm_params_file`` when it is set (the IK node's params file: the section that
``/<namespace>/two_bone_ik`` would take, matched as rcl does), so one YAML drives both nodes; a
parameter given explicitly overrides the file.

Run it with ``ros2 run two_bone_ik two_bone_ik_sim --ros-args -p
arm_params_file:=config/two_bone_ik.yaml`` or ``python -m two_bone_ik.nodes.sim_node ...``.
"""

import sys
import time

from geometry_msgs.msg import PoseStamped
from rclpy.exceptions import NameValidationException
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.joint_commands import match_command
from two_bone_ik.arm.params_file import parameters_for_node
from two_bone_ik.arm.urdf_import import arm_geometry, UrdfError
from two_bone_ik.nodes.command_warnings import warn_about_command
from two_bone_ik.nodes.node_runner import run_node
from two_bone_ik.nodes.parameter_schema import ARM_PARAMETERS, ik_parameters, names
from two_bone_ik.nodes.parameter_schema import SIM_PARAMETERS
from two_bone_ik.nodes.parameters import ParameterError, SchemaNode, warn_unknown_overrides
from two_bone_ik.sim.arm_sim import ArmSim, SimError
from two_bone_ik.sim.controller_commands import CommandRejected, position_command
from two_bone_ik.sim.controller_commands import trajectory_command
from two_bone_ik.sim.trajectory_follower import TrajectoryFollower, TrajectoryPoint
from two_bone_ik.warning_throttle import WarningThrottle

NODE_NAME = 'two_bone_ik_sim'

#: The IK node's name: the sim reads its section of ``arm_params_file`` in the sim's namespace.
IK_NODE_NAME = 'two_bone_ik'

#: Minimum seconds between two warnings of the same kind.
WARNING_THROTTLE = 5.0

#: When the physics falls further behind than this (wall seconds), the rest is skipped.
MAX_LAG = 0.25


def _seconds(duration) -> float:
    """Return a ``builtin_interfaces`` Duration or Time as seconds."""
    return duration.sec + 1e-9 * duration.nanosec


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
        settings = self.declare_schema(SIM_PARAMETERS)
        config, description, tip_frame = self._declare_arm(settings['arm_params_file'])
        try:
            geometry = arm_geometry(config, description, tip_frame)
            self._sim = ArmSim(
                geometry, natural_frequency=settings['natural_frequency'],
                damping_ratio=settings['damping_ratio'],
                joint_damping=settings['joint_damping'], timestep=settings['timestep'],
                gravity_compensation=settings['gravity_compensation'],
                initial_positions=settings['initial_positions'], urdf=description or None)
        except (SimError, UrdfError) as error:
            raise ParameterError(str(error)) from None
        self._geometry = geometry
        self._rate_factor = settings['real_time_factor']
        self._clock = self.get_clock()
        self._follower = TrajectoryFollower([r is None for r in self._sim.joint_ranges])
        self._throttle = WarningThrottle(WARNING_THROTTLE)

        self._state_msg = JointState()
        self._state_msg.header.frame_id = geometry.base_frame
        self._state_msg.name = list(geometry.joint_names)
        self._tip_msg = PoseStamped()
        self._tip_msg.header.frame_id = geometry.base_frame

        qos = QoSProfile(depth=10)
        self._state_pub = self.create_publisher(JointState, 'joint_states', qos)
        self._tip_pub = self.create_publisher(PoseStamped, 'tip_pose', qos)
        self._wall_start = time.monotonic()
        self.create_timer(1.0 / settings['publish_rate'], self._on_timer)
        # Last, once everything the callbacks use exists.
        self._command_sub = self.create_subscription(
            JointState, 'joint_commands', self._on_command, qos)
        inputs = [self._command_sub.topic_name]
        self._position_sub = self._controller_subscription(
            'position_controller', settings['position_controller'], 'commands',
            Float64MultiArray, self._on_position_command, qos)
        self._trajectory_sub = self._controller_subscription(
            'trajectory_controller', settings['trajectory_controller'], 'joint_trajectory',
            JointTrajectory, self._on_trajectory, qos)
        inputs += [sub.topic_name for sub in (self._position_sub, self._trajectory_sub) if sub]
        # The IK node's own parameters may come along in a shared params file.
        warn_unknown_overrides(self, also_known=names(ik_parameters()))
        kp = ', '.join(f'{v:.6g}' for v in self._sim.kp)
        kv = ', '.join(f'{v:.6g}' for v in self._sim.kv)
        source = 'its URDF' if description else 'its parameters'
        self.get_logger().info(
            f'ready: arm from {source}: {geometry.describe()}, joints '
            f"{', '.join(geometry.joint_names)}; kp [{kp}] N m/rad, kv [{kv}] N m s/rad, "
            f"gravity {'compensated' if settings['gravity_compensation'] else 'acting'}, step "
            f'{self._sim.timestep:g} s, {self._rate_factor:g}x real time; commands on '
            f"{', '.join(inputs)}")

    # -- parameters ---------------------------------------------------------------------------

    def _declare_arm(self, params_file: str):
        """Declare the arm parameters, their defaults read from ``params_file`` if set.

        Returns ``(config, robot_description, tip_frame)``.
        """
        defaults = ArmConfig().as_parameters()
        defaults.update(robot_description='', tip_frame='')
        if params_file:
            namespace = self.get_namespace().rstrip('/')
            ik_node = f'{namespace}/{IK_NODE_NAME}'
            try:
                found = parameters_for_node(params_file, ik_node)
                if not found.matched_keys:
                    self.get_logger().warning(found.describe_unmatched(ik_node, [params_file]))
                defaults.update(ArmConfig.from_mapping(found.values).as_parameters())
            except ValueError as error:
                raise ParameterError(f'arm_params_file: {error}') from None
            for name in ('robot_description', 'tip_frame'):
                if isinstance(found.values.get(name), str):
                    defaults[name] = found.values[name]
        values = {**defaults, **self.declare_schema(ARM_PARAMETERS, defaults)}
        return ArmConfig.from_mapping(values), values['robot_description'], values['tip_frame']

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

    # -- physics and topics -------------------------------------------------------------------

    def _catch_up(self) -> None:
        """Step the physics up to the current wall-clock time times the real-time factor."""
        sim = self._sim
        due = (time.monotonic() - self._wall_start) * self._rate_factor
        steps = int((due - sim.time) / sim.timestep)
        max_steps = int(MAX_LAG * self._rate_factor / sim.timestep) + 1
        if steps > max_steps:
            # Too slow to keep up (a busy machine): skip the backlog rather than spiral.
            self.get_logger().warning(
                f'the simulation fell {(steps - max_steps) * sim.timestep:.3f} s behind; '
                'skipping ahead (lower real_time_factor or raise timestep)',
                throttle_duration_sec=WARNING_THROTTLE)
            self._wall_start += (steps - max_steps) * sim.timestep / self._rate_factor
            steps = max_steps
        follower = self._follower
        while steps > 0 and follower.active:
            # Each step heads for the trajectory's sample at its end, until the last point.
            end = sim.time + sim.timestep
            sim.command(follower.sample(end).positions)
            sim.step(1)
            steps -= 1
            if end >= follower.end_time:
                follower.clear()  # the last point's targets stay
        sim.step(steps)

    def _on_timer(self) -> None:
        self._catch_up()
        self.publish_state()

    def publish_state(self) -> None:
        """Publish ``joint_states`` and ``tip_pose`` for the current simulated state."""
        sim = self._sim
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

    def _on_command(self, msg: JointState) -> None:
        self._catch_up()  # the old targets hold until now
        match = match_command(msg.name, msg.position, self._geometry.joint_names)
        warn_about_command(self.get_logger(), match, msg, self._geometry.joint_names,
                           WARNING_THROTTLE)
        if match.targets:
            self._follower.clear()
            self._sim.set_targets(match.targets)

    def _reject(self, subscription, rejected: CommandRejected) -> None:
        """Log a refused message, at most once per ``WARNING_THROTTLE`` s per topic and rule."""
        if self._throttle.allow((subscription.topic_name, rejected.rule)):
            self.get_logger().warning(f'{subscription.topic_name}: rejected: {rejected}')

    def _on_position_command(self, msg: Float64MultiArray) -> None:
        self._catch_up()
        try:
            positions = position_command(msg.data, self._geometry.joint_names)
        except CommandRejected as rejected:
            self._reject(self._position_sub, rejected)
            return
        self._follower.clear()
        self._sim.command(positions)

    def _on_trajectory(self, msg: JointTrajectory) -> None:
        self._catch_up()
        sim = self._sim
        stamp = msg.header.stamp
        start_delay = None
        if stamp.sec or stamp.nanosec:  # a zero stamp: start now
            stamp_ns = stamp.sec * 1_000_000_000 + stamp.nanosec
            start_delay = 1e-9 * (stamp_ns - self._clock.now().nanoseconds) * self._rate_factor
        try:
            trajectory = trajectory_command(
                msg.joint_names, [_trajectory_point(p) for p in msg.points], start_delay,
                self._geometry.joint_names)
        except CommandRejected as rejected:
            self._reject(self._trajectory_sub, rejected)
            return
        start_time = None if start_delay is None else sim.time + start_delay
        self._follower.start(trajectory.points, sim.time, sim.positions, sim.velocities,
                             start_time=start_time)

    @property
    def sim(self) -> ArmSim:
        """The simulated arm."""
        return self._sim


def main(args=None) -> int:
    """Run the node until Ctrl-C or shutdown; return the process exit code.

    A bad configuration prints one line naming the parameter to stderr and ends the process
    with exit code 2; a command line rcl rejects returns 2 (see
    :func:`two_bone_ik.node_main.run_node`).
    """
    return run_node(NODE_NAME, SimNode, args)


if __name__ == '__main__':
    sys.exit(main())
