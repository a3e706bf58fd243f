"""The ``two_bone_ik_sim`` ROS 2 node: a MuJoCo-simulated arm built from the IK node's config.

A thin rclpy shell over :class:`two_bone_ik.sim.arm_sim.ArmSim`.

Topics (relative, so a namespace gives each arm its own set):

- subscribes ``joint_commands`` (sensor_msgs/JointState): target positions, matched to the arm's
  joints by name; unknown names, NaN/infinite or missing positions are ignored with a throttled
  warning, and joints not named keep their previous target;
- publishes ``joint_states`` (sensor_msgs/JointState: position, velocity, effort) and
  ``tip_pose`` (geometry_msgs/PoseStamped, the ``tool`` frame in ``base_frame``) at
  ``publish_rate``.

The physics advances in steps of ``timestep`` so that simulated time follows the wall clock times
``real_time_factor``; it catches up before each publication and before applying each command,
so a command acts from the moment it arrives.

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
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState

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

NODE_NAME = 'two_bone_ik_sim'

#: The IK node's name: the sim reads its section of ``arm_params_file`` in the sim's namespace.
IK_NODE_NAME = 'two_bone_ik'

#: Minimum seconds between two warnings of the same kind.
WARNING_THROTTLE = 5.0

#: When the physics falls further behind than this (wall seconds), the rest is skipped.
MAX_LAG = 0.25


class SimNode(SchemaNode):
    """Simulates the arm, follows ``joint_commands``, publishes the measured state.

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
        # Last, once everything the callback uses exists.
        self._command_sub = self.create_subscription(
            JointState, 'joint_commands', self._on_command, qos)
        # The IK node's own parameters may come along in a shared params file.
        warn_unknown_overrides(self, also_known=names(ik_parameters()))
        kp = ', '.join(f'{v:.6g}' for v in self._sim.kp)
        kv = ', '.join(f'{v:.6g}' for v in self._sim.kv)
        source = 'its URDF' if description else 'its parameters'
        self.get_logger().info(
            f'ready: arm from {source}: {geometry.describe()}, joints '
            f"{', '.join(geometry.joint_names)}; kp [{kp}] N m/rad, kv [{kv}] N m s/rad, "
            f"gravity {'compensated' if settings['gravity_compensation'] else 'acting'}, step "
            f'{self._sim.timestep:g} s, {self._rate_factor:g}x real time')

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
        self._sim.set_targets(match.targets)

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
