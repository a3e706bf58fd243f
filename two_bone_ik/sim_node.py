"""The ``two_bone_ik_sim`` ROS 2 node: a MuJoCo-simulated arm built from the IK node's config.

A thin rclpy shell over :class:`two_bone_ik.sim.ArmSim`.

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
read from ``arm_params_file`` when it is set (the IK node's params file), so one YAML drives both
nodes; a parameter given explicitly overrides the file.

Run it with ``ros2 run two_bone_ik two_bone_ik_sim --ros-args -p
arm_params_file:=config/two_bone_ik.yaml`` or ``python -m two_bone_ik.sim_node ...``.
"""

import sys
import time

from geometry_msgs.msg import PoseStamped
from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor, ParameterType
from rclpy.exceptions import ParameterException
from rclpy.node import Node
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState

from two_bone_ik.arm_config import ArmConfig
from two_bone_ik.arm_config import ArmConfigError
from two_bone_ik.arm_config import load_arm_config
from two_bone_ik.arm_config import PARAMETER_NAMES
from two_bone_ik.node_main import run_node
from two_bone_ik.parameter_types import type_mismatch
from two_bone_ik.sim import ArmSim
from two_bone_ik.sim import DEFAULT_DAMPING_RATIO
from two_bone_ik.sim import DEFAULT_JOINT_DAMPING
from two_bone_ik.sim import DEFAULT_NATURAL_FREQUENCY
from two_bone_ik.sim import DEFAULT_TIMESTEP
from two_bone_ik.sim import match_command
from two_bone_ik.sim import SimError

NODE_NAME = 'two_bone_ik_sim'

#: Minimum seconds between two warnings of the same kind.
WARNING_THROTTLE = 5.0

#: When the physics falls further behind than this (wall seconds), the rest is skipped.
MAX_LAG = 0.25

#: Arm parameters shared with the IK node (read-only here: they describe the hardware).
ARM_PARAMETERS = ('link_lengths', 'joint_names', 'base_frame', 'plane', 'joint_lower_limits',
                  'joint_upper_limits')

_DOUBLE = ParameterType.PARAMETER_DOUBLE
_DOUBLES = ParameterType.PARAMETER_DOUBLE_ARRAY
_STRING = ParameterType.PARAMETER_STRING
_STRINGS = ParameterType.PARAMETER_STRING_ARRAY
_BOOL = ParameterType.PARAMETER_BOOL


def _range(low: float, high: float) -> dict:
    return {'floating_point_range': [FloatingPointRange(from_value=low, to_value=high,
                                                        step=0.0)]}


# name -> (type, default, description, extra descriptor fields); arm defaults come later.
_SIM_PARAMETERS = {
    'arm_params_file': (
        _STRING, '',
        'ROS params YAML of the IK node (its two_bone_ik or /** section); gives the defaults of '
        'the arm parameters. Empty: the default arm.', {}),
    'natural_frequency': (
        _DOUBLE, DEFAULT_NATURAL_FREQUENCY,
        'Natural frequency of each joint position loop, Hz (gains scale with the arm inertia).',
        _range(0.1, 50.0)),
    'damping_ratio': (
        _DOUBLE, DEFAULT_DAMPING_RATIO,
        'Damping ratio of each joint position loop (1: critical).', _range(0.05, 10.0)),
    'joint_damping': (
        _DOUBLE, DEFAULT_JOINT_DAMPING,
        'Viscous damping of each joint, N m s / rad.', _range(0.0, 100.0)),
    'timestep': (
        _DOUBLE, DEFAULT_TIMESTEP, 'Physics integration step, seconds.', _range(1e-4, 0.02)),
    'publish_rate': (
        _DOUBLE, 50.0, 'Rate of joint_states and tip_pose, Hz (wall clock).',
        _range(1.0, 1000.0)),
    'real_time_factor': (
        _DOUBLE, 1.0, 'Simulated seconds per wall-clock second.', _range(0.1, 100.0)),
    'gravity_compensation': (
        _BOOL, True, 'Cancel gravity (-z of base_frame) on the links.', {}),
    'initial_positions': (
        _DOUBLES, [0.0, 0.0], 'Joint angles at start, radians (shoulder, elbow).', {}),
}

_ARM_DESCRIPTIONS = {
    'link_lengths': (_DOUBLES, 'Shoulder-to-elbow and elbow-to-tip link lengths, metres.'),
    'joint_names': (_STRINGS, 'Names of the shoulder and elbow joints.'),
    'base_frame': (_STRING, 'Frame of the shoulder; frame_id of tip_pose.'),
    'plane': (_STRING, 'Axes (u, v) of base_frame spanned by the arm: xy, xz or yz.'),
    'joint_lower_limits': (_DOUBLES, 'Lower joint limits of the simulated arm, radians.'),
    'joint_upper_limits': (_DOUBLES, 'Upper joint limits of the simulated arm, radians.'),
}


class SimNode(Node):
    """Simulates the arm, follows ``joint_commands``, publishes the measured state.

    Parameters
    ----------
    **kwargs
        Passed to :class:`rclpy.node.Node` (e.g. ``parameter_overrides``, ``context``).

    Raises
    ------
    ArmConfigError
        If a parameter is invalid; the message starts with its name.
    """

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        settings = {name: self._declare(name, *spec)
                    for name, spec in _SIM_PARAMETERS.items()}
        config = self._declare_arm(settings['arm_params_file'])
        try:
            self._sim = ArmSim(
                config, natural_frequency=settings['natural_frequency'],
                damping_ratio=settings['damping_ratio'],
                joint_damping=settings['joint_damping'], timestep=settings['timestep'],
                gravity_compensation=settings['gravity_compensation'],
                initial_positions=settings['initial_positions'])
        except SimError as error:
            raise ArmConfigError(str(error)) from None
        self._config = config
        self._rate_factor = settings['real_time_factor']
        self._clock = self.get_clock()

        self._state_msg = JointState()
        self._state_msg.header.frame_id = config.base_frame
        self._state_msg.name = list(config.joint_names)
        self._tip_msg = PoseStamped()
        self._tip_msg.header.frame_id = config.base_frame

        qos = QoSProfile(depth=10)
        self._state_pub = self.create_publisher(JointState, 'joint_states', qos)
        self._tip_pub = self.create_publisher(PoseStamped, 'tip_pose', qos)
        self._wall_start = time.monotonic()
        self.create_timer(1.0 / settings['publish_rate'], self._on_timer)
        # Last, once everything the callback uses exists.
        self._command_sub = self.create_subscription(
            JointState, 'joint_commands', self._on_command, qos)
        self._warn_unknown_overrides()
        kp = ', '.join(f'{v:.3g}' for v in self._sim.kp)
        self.get_logger().info(
            f'ready: links {config.link_lengths[0]:g} + {config.link_lengths[1]:g} m in the '
            f"{config.plane} plane of '{config.base_frame}', joints "
            f"{', '.join(config.joint_names)}; kp [{kp}] N m/rad, step "
            f'{self._sim.timestep:g} s, {self._rate_factor:g}x real time')

    # -- parameters ---------------------------------------------------------------------------

    def _declare(self, name, type_, default, description, extra):
        descriptor = ParameterDescriptor(name=name, type=type_, description=description,
                                         read_only=True, **extra)
        try:
            value = self.declare_parameter(name, default, descriptor).value
        except ParameterException as error:
            raise ArmConfigError(self._declare_error(name, type_, error)) from None
        if type_ == _DOUBLES and len(value) != 2:
            raise ArmConfigError(f'{name}: expected 2 values, got {list(value)!r}')
        return value

    def _declare_error(self, name, type_, error) -> str:
        override = getattr(self, '_parameter_overrides', {}).get(name)
        mismatch = override is not None and type_mismatch(name, type_, override)
        if mismatch:
            return mismatch
        if override is not None and name in _SIM_PARAMETERS:
            bounds = _SIM_PARAMETERS[name][3]['floating_point_range'][0]
            return (f'{name}: expected {bounds.from_value:g} to {bounds.to_value:g}, got '
                    f'{override.value!r}')
        return f'{name}: ' + ' '.join(str(error).split())

    def _warn_unknown_overrides(self) -> None:
        overrides = getattr(self, '_parameter_overrides', {})
        for name in sorted(overrides):
            # The IK node's own parameters may come along in a shared (/**) params file.
            if not self.has_parameter(name) and name not in PARAMETER_NAMES:
                self.get_logger().warning(f"ignoring unknown parameter '{name}' (misspelt?)")

    def _declare_arm(self, params_file: str) -> ArmConfig:
        try:
            base = load_arm_config(params_file) if params_file else ArmConfig()
        except ArmConfigError as error:
            raise ArmConfigError(f'arm_params_file: {error}') from None
        defaults = base.as_parameters()
        values = {}
        for name in ARM_PARAMETERS:
            type_, description = _ARM_DESCRIPTIONS[name]
            values[name] = self._declare(name, type_, defaults[name], description, {})
        return ArmConfig.from_mapping({**defaults, **values})

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
        match = match_command(msg.name, msg.position, self._config.joint_names)
        if match.unknown:
            self.get_logger().warning(
                f"joint_commands: ignoring unknown joint(s) {', '.join(match.unknown)} "
                f"(this arm has {', '.join(self._config.joint_names)})",
                throttle_duration_sec=WARNING_THROTTLE)
        if match.invalid:
            self.get_logger().warning(
                'joint_commands: ignoring NaN, infinite or missing position for '
                f"{', '.join(match.invalid)}", throttle_duration_sec=WARNING_THROTTLE)
        if not msg.name and len(msg.position):
            self.get_logger().warning(
                'joint_commands: ignoring a command without joint names (joints are matched '
                'by name)', throttle_duration_sec=WARNING_THROTTLE)
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
