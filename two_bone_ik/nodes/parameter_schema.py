"""Every parameter of every node in this package, declared once.

The arm parameters are shared: the IK node and the simulated arm read the same names with the
same meaning (the sim treats them all as read-only: they describe its hardware). Defaults come
from :class:`two_bone_ik.arm.config.ArmConfig` and the simulation's constants, so there is one
default per value.
"""

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.nodes.parameters import BOOL, DOUBLE, DOUBLES, INTEGER, INTEGERS
from two_bone_ik.nodes.parameters import ParameterSpec
from two_bone_ik.nodes.parameters import STRING, STRINGS
from two_bone_ik.sim.defaults import (DEFAULT_CAMERA, DEFAULT_DAMPING_RATIO,
                                      DEFAULT_JOINT_DAMPING, DEFAULT_NATURAL_FREQUENCY,
                                      DEFAULT_TIMESTEP)

_ARM = ArmConfig()

#: Joints an arm may have: the pair, a base yaw, a wrist pitch and roll.
JOINTS = (2, 5)

_LIMITS = ('one angle per joint in chain order, radians; -.inf/.inf (YAML) for an unlimited '
           'side; each lower <= its upper')

#: The arm's description, shared by the IK node and the simulated arm.
ARM_PARAMETERS = (
    ParameterSpec(
        'link_lengths', DOUBLES, list(_ARM.link_lengths),
        'Shoulder-to-elbow and elbow-to-tip link lengths, metres.',
        '2 finite values >= 0, not both 0', length=2),
    ParameterSpec(
        'joint_names', STRINGS, list(_ARM.joint_names),
        'Names of the joints in chain order, as in joint_commands and joint_states: shoulder and '
        'elbow, or a desktop arm (base yaw, shoulder, elbow, wrist pitch, wrist roll).',
        '2 to 5 distinct non-empty names', length=JOINTS),
    ParameterSpec(
        'base_frame', STRING, _ARM.base_frame,
        "Frame targets are expressed in (or an empty frame_id); for a URDF arm, the chain's "
        'root link. Also the frame_id of what the node publishes.',
        'non-empty frame id'),
    ParameterSpec(
        'plane', STRING, _ARM.plane,
        "Axes (u, v) of base_frame spanned by the arm; the pair's joint axes are u x v. A "
        'desktop arm without it: xz (its yaw turns about +v).',
        'one of: xy, xz, yz'),
    ParameterSpec(
        'joint_lower_limits', DOUBLES, list(_ARM.joint_lower_limits),
        'Lower joint limits, radians.', _LIMITS, length=JOINTS),
    ParameterSpec(
        'joint_upper_limits', DOUBLES, list(_ARM.joint_upper_limits),
        'Upper joint limits, radians.', _LIMITS, length=JOINTS),
    ParameterSpec(
        'shoulder_position', DOUBLES, list(_ARM.shoulder_position),
        'Where the shoulder axis meets the plane the tip moves in, metres in base_frame.',
        '3 finite coordinates', length=3),
    ParameterSpec(
        'joint_zero_angles', DOUBLES, list(_ARM.joint_zero_angles),
        "Where each link points when its joint reads 0, radians: link 1's angle from +u toward "
        "+v, link 2's angle relative to link 1 (a desktop arm: see docs/desktop_arms.md).",
        'one finite angle per joint', length=JOINTS),
    ParameterSpec(
        'joint_directions', INTEGERS, list(_ARM.joint_directions),
        'Per joint, +1 when a positive reading turns the link from +u toward +v, else -1.',
        'one value per joint, each 1 or -1', length=JOINTS),
    ParameterSpec(
        'arm_shape', STRING, '',
        'The shape of a desktop arm: "yaw + pair", "pair + pitch", "yaw + pair + pitch", '
        '"yaw + pair + pitch + roll". Empty: from the number of joints (3 joints need it).',
        'empty or one of the shapes'),
    ParameterSpec(
        'tool_offset', DOUBLES, [0.05, 0.0, 0.0],
        "A desktop arm's tool point from the wrist pitch axis, metres in the hand's frame "
        '(along the approach, across it, aside); used only when given.', '3 finite values',
        length=3),
    ParameterSpec(
        'gripper_joint', STRING, '',
        "A desktop arm's gripper: a jaw joint off the chain that the arm's URDF written from "
        'these parameters holds (two_bone_ik_urdf; so the sim moves it and RViz shows it). '
        'The IK node never commands it. Empty: none.', 'a name not in joint_names'),
    ParameterSpec(
        'gripper_limits', DOUBLES, [-float('inf'), float('inf')],
        "The gripper joint's lower and upper limits, radians (-.inf/.inf: an open side).",
        'lower <= upper', length=2),
    ParameterSpec(
        'robot_description', STRING, '',
        'The URDF of the arm. When set, the arm comes from it (chain base_frame -> tip_frame) '
        'and the geometry parameters above are not used.'),
    ParameterSpec(
        'tip_frame', STRING, '',
        'The URDF link whose origin is the tip. Empty: the end of the chain below base_frame '
        'when there is exactly one.'),
)

_INF = float('inf')

#: Where the arm is at start when nothing measures it, shared by the IK node and the sim.
INITIAL_POSITIONS = ParameterSpec(
    'initial_positions', DOUBLES, [0.0, 0.0],
    'Joint readings at start, radians, one per joint: where the first motion starts from '
    'when no joint_states have come. All zeros: zeros for any number of joints.',
    'one finite angle per joint', length=JOINTS)

_MOTION = ('one positive value per joint, .inf for unlimited; all infinite (for any number of '
           'joints): no motion planning, one command per target')

#: The IK node's outputs and motion (ros2_control controllers, Ruckig).
MOTION_PARAMETERS = (
    ParameterSpec(
        'publish_joint_commands', BOOL, True,
        'Publish joint_commands (sensor_msgs/JointState).'),
    ParameterSpec(
        'position_controller', STRING, '',
        'Name of a position controller (e.g. forward_position_controller): publish '
        'std_msgs/Float64MultiArray on <name>/commands. Empty: none.'),
    ParameterSpec(
        'trajectory_controller', STRING, '',
        'Name of a joint_trajectory_controller: publish the planned motion as '
        'trajectory_msgs/JointTrajectory on <name>/joint_trajectory. Empty: none.'),
    ParameterSpec(
        'max_joint_velocity', DOUBLES, [_INF, _INF],
        "Velocity limit per joint, rad/s. Not given, an arm from a URDF takes the URDF's <limit "
        'velocity>.', _MOTION,
        read_only=False, length=JOINTS),
    ParameterSpec(
        'max_joint_acceleration', DOUBLES, [_INF, _INF],
        'Acceleration limit per joint, rad/s^2.', _MOTION, read_only=False, length=JOINTS),
    ParameterSpec(
        'max_joint_jerk', DOUBLES, [_INF, _INF],
        'Jerk limit per joint, rad/s^3.', _MOTION, read_only=False, length=JOINTS),
    ParameterSpec(
        'command_rate', DOUBLE, 100.0,
        'Rate of the streamed commands while a planned motion runs, Hz.', '1 to 1000 Hz',
        read_only=False, bounds=(1.0, 1000.0)),
    INITIAL_POSITIONS,
    ParameterSpec(
        'twist_timeout', DOUBLE, 0.2,
        'Seconds without a target_twist after which jogging ends (the arm stops where the jog '
        'point is).', '0.01 to 10 s', read_only=False, bounds=(0.01, 10.0)),
    ParameterSpec(
        'transform_timeout', DOUBLE, 0.1,
        'Seconds a target in another frame than base_frame waits for its tf2 transform (at its '
        'stamp; the latest for stamp 0) before it is answered WRONG_FRAME; it waits without '
        'blocking the node (0: not at all).', '0 to 10 s', read_only=False, bounds=(0.0, 10.0)),
    ParameterSpec(
        'twist_stamped', BOOL, True,
        'target_twist is geometry_msgs/TwistStamped (true) or unstamped geometry_msgs/Twist '
        'in base_frame (false: what teleop_twist_keyboard and teleop_twist_joy publish).'),
)

#: Whether the arm got there: the rules of the IK node's motion_status.
ARRIVAL_PARAMETERS = (
    ParameterSpec(
        'goal_tolerance', DOUBLES, [0.02, 0.02],
        "Per joint, how close (rad) the measured readings must come to a command's final "
        'position for ARRIVED. The default fits any number of joints.',
        'one positive finite value per joint', read_only=False, length=JOINTS),
    ParameterSpec(
        'path_tolerance', DOUBLES, [0.5, 0.5],
        'Per joint, how far (rad) the measured readings may lag the streamed command of a '
        'planned motion before NOT_FOLLOWING (the stream stops; the arm holds where it is); '
        '.inf: not checked. The default fits any number of joints.',
        'one positive value per joint, .inf allowed', read_only=False, length=JOINTS),
    ParameterSpec(
        'goal_time', DOUBLE, 2.0,
        "Seconds after a command's end (its last streamed sample, or the command itself "
        'without motion planning) within which the readings must be within goal_tolerance; '
        "then GOAL_MISSED. 0: no limit (as joint_trajectory_controller's goal_time).",
        '0 to 3600 s', read_only=False, bounds=(0.0, 3600.0)),
    ParameterSpec(
        'state_timeout', DOUBLE, 0.5,
        'Seconds without joint_states for a commanded joint after which the arm is '
        'NOT_FOLLOWING (NOT_MONITORED when none came for any).', '0.01 to 60 s',
        read_only=False, bounds=(0.01, 60.0)),
)

#: The arm's workspace (two_bone_ik/workspace/): runtime on the IK node, read-only on the sim,
#: which reads them as it reads the arm's (from ``arm_params_file`` too).
WORKSPACE_PARAMETERS = (
    ParameterSpec(
        'floor_height', DOUBLE, -_INF,
        'The floor (the table top the arm stands on): the plane z = floor_height of base_frame, '
        'metres. No link, no target and no planned motion goes through it. -.inf: none.',
        'a height within +-1000 m, or -.inf', read_only=False),
    ParameterSpec(
        'keep_out_boxes', DOUBLES, [],
        'Boxes no link, target or planned motion may enter: six values per box, min x, y, z '
        'and max x, y, z, metres in base_frame. Empty: none.',
        '6 finite values per box, each min <= its max; at most 100 boxes', read_only=False),
    ParameterSpec(
        'link_radius', DOUBLES, [0.02],
        'Radius of each moving link, metres: one value for every link, or one per link of the '
        'chain, base first (N + 1; the base never counts). A link is the segment between '
        'consecutive joint origins, the last one to the tool point.',
        'one value, or N + 1 values, each 0 to 10 m', read_only=False),
    ParameterSpec(
        'motion_path', STRING, 'joint',
        'How a planned motion reaches a target: joint (straight in joint space) or linear (the '
        'tool point on the straight line, the approach pitch turning linearly; needs motion '
        'limits).', 'one of: joint, linear', read_only=False),
)

#: Parameters of the IK node (``two_bone_ik``) besides the arm's.
IK_PARAMETERS = (
    ParameterSpec(
        'elbow', STRING, _ARM.elbow,
        'Elbow branch: up (elbow on the +v side of the shoulder-target line), down, or nearest '
        '(the branch closer to the last command).',
        'one of: up, down, nearest', read_only=False),
    ParameterSpec(
        'allow_elbow_flip', BOOL, _ARM.allow_elbow_flip,
        'Use the other elbow branch when the configured one breaks a joint limit.',
        read_only=False),
    ParameterSpec(
        'use_orientation', BOOL, False,
        "A desktop arm: command the pitch (and roll) of each target's orientation; false: "
        'position only, the pitch nearest approach_pitch.', read_only=False),
    ParameterSpec(
        'approach_pitch', DOUBLE, 0.0,
        'A desktop arm without use_orientation: the approach pitch preferred, radians from the '
        'forward horizontal toward up.', '-pi to pi', read_only=False,
        bounds=(-3.141592653589793, 3.141592653589793)),
    ParameterSpec(
        'allow_reach_back', BOOL, True,
        'A desktop arm without use_orientation: reach a target only the arm reaching back over '
        'the yaw axis reaches that way (false: JOINT_LIMITED).', read_only=False),
    ParameterSpec(
        'robot_description_topic', STRING, '',
        'When set (usually robot_description) and robot_description is empty: the topic '
        '(std_msgs/String, reliable, transient local) the URDF comes from; the arm is rebuilt '
        'whenever a new one arrives.'),
    ParameterSpec(
        'out_of_plane_tolerance', DOUBLE, _ARM.out_of_plane_tolerance,
        'Off-plane distance up to which a target is PROJECTED (its projection reached) or gets '
        'its in-plane reason (OUT_OF_REACH, ...) rather than OFF_PLANE, metres. A target off '
        'the plane is never REACHED.',
        '0 to 10 m', bounds=(0.0, 10.0)),
)

#: Arm parameters the IK node may change while it runs.
IK_RUNTIME_ARM_PARAMETERS = ('joint_lower_limits', 'joint_upper_limits')

#: Parameters of the simulated arm (``two_bone_ik_sim``) besides the arm's.
SIM_PARAMETERS = (
    ParameterSpec(
        'arm_params_file', STRING, '',
        "ROS params YAML of the IK node; its section for this node's namespace (as rcl matches "
        'it) gives the defaults of the arm parameters. Empty: the default arm.'),
    ParameterSpec(
        'natural_frequency', DOUBLE, DEFAULT_NATURAL_FREQUENCY,
        'Natural frequency of each joint position loop, Hz (gains scale with the arm inertia).',
        bounds=(0.1, 50.0)),
    ParameterSpec(
        'damping_ratio', DOUBLE, DEFAULT_DAMPING_RATIO,
        'Damping ratio of each joint position loop (1: critical).', bounds=(0.05, 10.0)),
    ParameterSpec(
        'joint_damping', DOUBLE, DEFAULT_JOINT_DAMPING,
        'Viscous damping of each joint, N m s / rad.', bounds=(0.0, 100.0)),
    ParameterSpec(
        'timestep', DOUBLE, DEFAULT_TIMESTEP, 'Physics integration step, seconds.',
        bounds=(1e-4, 0.02)),
    ParameterSpec(
        'publish_rate', DOUBLE, 50.0, 'Rate of joint_states and tip_pose, Hz (wall clock).',
        bounds=(1.0, 1000.0)),
    ParameterSpec(
        'real_time_factor', DOUBLE, 1.0, 'Simulated seconds per wall-clock second.',
        bounds=(0.1, 100.0)),
    ParameterSpec(
        'gravity_compensation', BOOL, True, 'Cancel gravity (-z of base_frame) on the links.'),
    INITIAL_POSITIONS._replace(
        description='Joint readings at start, radians, one per arm joint in chain order (from '
        'base_frame). Default: all 0.', constraints='one finite angle per arm joint',
        length=None),
    ParameterSpec(
        'position_controller', STRING, '',
        'Name of the position controller (position_controllers/JointGroupPositionController) '
        'the sim stands in for: it follows std_msgs/Float64MultiArray on '
        '<position_controller>/commands (relative), one position per joint in joint_names '
        'order. Empty: not subscribed.'),
    ParameterSpec(
        'trajectory_controller', STRING, '',
        'Name of the joint_trajectory_controller the sim stands in for: it follows '
        'trajectory_msgs/JointTrajectory on <trajectory_controller>/joint_trajectory '
        '(relative) as that controller does. Empty: not subscribed.'),
    ParameterSpec(
        'viewer', BOOL, False,
        "Open MuJoCo's viewer window on the simulated arm (and the target); without a display "
        'one line says so and the sim runs on. Closing the window leaves the sim running.'),
    ParameterSpec(
        'camera_rate', DOUBLE, 0.0,
        'Pictures per second on camera/image_raw (with camera/camera_info and camera/pose), '
        'rendered offscreen (EGL, else OSMesa). 0: no camera.', '0 (off) to 100 Hz',
        bounds=(0.0, 100.0)),
    ParameterSpec(
        'camera_size', INTEGERS, [640, 480], 'Width and height of the pictures, pixels.',
        'two values, each 1 to 4096', length=2),
    ParameterSpec(
        'camera', STRING, DEFAULT_CAMERA,
        'The camera of the model the pictures are taken with: front_side (in front of the arm, '
        'to its right, above), side (from -y) or top; each frames the whole reach.',
        'a camera of the model'),
    ParameterSpec(
        'blocked_joints', STRINGS, [],
        'Simulated joints held where they start whatever is commanded (their actuators hold '
        'their position), as by an obstacle: for tests and demos of an arm that does not '
        'follow. Empty: none.', 'names of simulated joints'),
)


def ik_parameters():
    """Specs of the IK node, arm parameters first, with their read-only flags for it."""
    arm = tuple(spec._replace(read_only=spec.name not in IK_RUNTIME_ARM_PARAMETERS)
                for spec in ARM_PARAMETERS)
    return (arm + IK_PARAMETERS + MOTION_PARAMETERS + ARRIVAL_PARAMETERS
            + WORKSPACE_PARAMETERS)


def names(specs) -> tuple:
    """Return the names of ``specs``, in order."""
    return tuple(spec.name for spec in specs)


#: Parameters of the servo driver (``two_bone_ik_servo``) besides the per-joint ones.
SERVO_PARAMETERS = (
    ParameterSpec(
        'protocol', STRING, '',
        'Serial protocol of the servo controller: maestro (Pololu Maestro, compact protocol), '
        'ssc32u (Lynxmotion SSC-32U), dynamixel (ROBOTIS Dynamixel X series, Protocol 2.0), '
        'dynamixel1 (Dynamixel AX series, Protocol 1.0), feetech (Feetech STS/SMS bus servos, '
        'e.g. STS3215) or feetech_scs (Feetech SCS bus servos).',
        'one of: maestro, ssc32u, dynamixel, dynamixel1, feetech, feetech_scs'),
    ParameterSpec(
        'port', STRING, '', 'Serial device path of the controller, e.g. /dev/ttyACM0.',
        'an existing device path'),
    ParameterSpec(
        'baud_rate', INTEGER, 0,
        "Baud rate; 0 for the controller's factory default (maestro 9600, ssc32u 9600, "
        'dynamixel 57600, dynamixel1 1000000, feetech and feetech_scs 1000000).',
        bounds=(0, 4_500_000)),
    ParameterSpec(
        'state_rate', DOUBLE, 50.0,
        'Rate of reading the servos back and publishing joint_states, Hz.',
        bounds=(0.1, 1000.0)),
    ParameterSpec(
        'reconnect_period', DOUBLE, 1.0,
        'Seconds between reconnect attempts while the controller is unreachable.',
        bounds=(0.01, 3600.0)),
    ParameterSpec(
        'torque_off_on_exit', BOOL, False,
        'On shutdown, stop driving the servos (Dynamixel, Feetech: torque off; maestro: target 0, '
        'ssc32u: output low, i.e. no pulses) instead of leaving them holding.'),
    ParameterSpec(
        'joints', STRINGS, list(_ARM.joint_names),
        'Joints driven, as named in joint_commands and joint_states; each has its '
        'servos.<joint>.* parameters.', 'distinct non-empty names'),
    ParameterSpec(
        'calibration_file', STRING, '',
        'A LeRobot calibration JSON (motor name -> id, drive_mode, homing_offset, range_min, '
        "range_max): each joint takes the motor of its name, angles in LeRobot's degrees mode "
        '(in radians), commands clamped to [range_min, range_max]. servos.<joint>.* '
        'parameters given replace its values. Empty: none.',
        'a readable LeRobot calibration file; protocols feetech, feetech_scs, dynamixel'),
    ParameterSpec(
        'move_time', DOUBLE, 0.02,
        'ssc32u only: T of each group move, seconds (the time the SSC-32U takes to reach '
        'the new targets); near the command period, so streamed commands blend.',
        bounds=(0.0, 65.535)),
)


def servo_joint_parameters(joint: str) -> tuple:
    """Specs of one joint's servo, ``servos.<joint>.*``.

    ``output_limits`` defaults to the ends of ``output_range``: the node declares it with that
    default.
    """
    prefix = f'servos.{joint}.'
    return (
        ParameterSpec(
            prefix + 'channel', INTEGER, -1,
            'Servo channel of the joint on the controller; the servo ID for dynamixel, '
            "dynamixel1, feetech and feetech_scs. Default: the calibration_file motor's id.",
            'maestro 0-23, ssc32u 0-31, dynamixel 0-252, dynamixel1 and feetech 0-253; '
            'distinct'),
        ParameterSpec(
            prefix + 'angle_range', DOUBLES, [0.0, 0.0],
            'Two joint angles of the calibration, rad. With output_range, replaces the '
            "calibration_file's mapping.", '2 different finite angles', length=2),
        ParameterSpec(
            prefix + 'output_range', DOUBLES, [0.0, 0.0],
            'Device outputs at those two angles: pulse width in µs (maestro, ssc32u) or '
            'position steps (dynamixel, dynamixel1, feetech); decreasing for a reversed servo.',
            '2 different finite outputs', length=2),
        ParameterSpec(
            prefix + 'output_limits', DOUBLES, [0.0, 0.0],
            'Lowest and highest device output ever sent; commands beyond are clamped. '
            "Default: the calibration_file motor's [range_min, range_max], else the ends of "
            'output_range.', 'lower <= upper, within the controller', length=2),
        ParameterSpec(
            prefix + 'max_velocity', DOUBLE, 1.0,
            'Joint speed limit the controller enforces, rad/s (maestro Set Speed, ssc32u S, '
            'dynamixel Profile Velocity, dynamixel1 Moving Speed, feetech Goal Speed); 0 for '
            'none.', bounds=(0.0, 1000.0)),
        ParameterSpec(
            prefix + 'max_acceleration', DOUBLE, 0.0,
            'Joint acceleration limit the controller enforces, rad/s^2 (maestro Set '
            'Acceleration, dynamixel Profile Acceleration, feetech Acceleration; ssc32u, '
            'dynamixel1 and feetech_scs have none); 0 for none.',
            bounds=(0.0, 100000.0)),
        ParameterSpec(
            prefix + 'plus_joint', STRING, '',
            'Another joint whose angle this servo adds (a parallel-linkage forearm: the servo '
            'sets q_joint + q_plus_joint). Commands and read-back convert both ways; a command '
            'moving only plus_joint moves this servo too. Empty: not coupled.',
            'one of joints, not this one, no circle'),
    )
