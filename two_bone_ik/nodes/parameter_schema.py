"""Every parameter of every node in this package, declared once.

The arm parameters are shared: the IK node and the simulated arm read the same names with the
same meaning (the sim treats them all as read-only: they describe its hardware). Defaults come
from :class:`two_bone_ik.arm.config.ArmConfig` and the simulation's constants, so there is one
default per value.
"""

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.nodes.parameters import BOOL, DOUBLE, DOUBLES, INTEGERS, ParameterSpec
from two_bone_ik.nodes.parameters import STRING, STRINGS
from two_bone_ik.sim.defaults import (DEFAULT_DAMPING_RATIO, DEFAULT_JOINT_DAMPING,
                                      DEFAULT_NATURAL_FREQUENCY, DEFAULT_TIMESTEP)

_ARM = ArmConfig()

_LIMITS = ('2 angles in radians, shoulder then elbow; -.inf/.inf (YAML) for an unlimited side; '
           'each lower <= its upper')

#: The arm's description, shared by the IK node and the simulated arm.
ARM_PARAMETERS = (
    ParameterSpec(
        'link_lengths', DOUBLES, list(_ARM.link_lengths),
        'Shoulder-to-elbow and elbow-to-tip link lengths, metres.',
        '2 finite values >= 0, not both 0', length=2),
    ParameterSpec(
        'joint_names', STRINGS, list(_ARM.joint_names),
        'Names of the shoulder and elbow joints, as in joint_commands and joint_states.',
        '2 distinct non-empty names', length=2),
    ParameterSpec(
        'base_frame', STRING, _ARM.base_frame,
        'Frame the shoulder is at the origin of; targets must be in it (or have an empty '
        'frame_id). Also the frame_id of what the node publishes.',
        'non-empty frame id'),
    ParameterSpec(
        'plane', STRING, _ARM.plane,
        'Axes (u, v) of base_frame spanned by the arm; the joint axes are u x v.',
        'one of: xy, xz, yz'),
    ParameterSpec(
        'joint_lower_limits', DOUBLES, list(_ARM.joint_lower_limits),
        'Lower joint limits, radians (shoulder, elbow).', _LIMITS, length=2),
    ParameterSpec(
        'joint_upper_limits', DOUBLES, list(_ARM.joint_upper_limits),
        'Upper joint limits, radians (shoulder, elbow).', _LIMITS, length=2),
    ParameterSpec(
        'shoulder_position', DOUBLES, list(_ARM.shoulder_position),
        'Where the shoulder axis meets the plane the tip moves in, metres in base_frame.',
        '3 finite coordinates', length=3),
    ParameterSpec(
        'joint_zero_angles', DOUBLES, list(_ARM.joint_zero_angles),
        "Where each link points when its joint reads 0, radians: link 1's angle from +u toward "
        "+v, link 2's angle relative to link 1.", '2 finite angles', length=2),
    ParameterSpec(
        'joint_directions', INTEGERS, list(_ARM.joint_directions),
        'Per joint, +1 when a positive reading turns the link from +u toward +v, else -1.',
        '2 values, each 1 or -1', length=2),
    ParameterSpec(
        'robot_description', STRING, '',
        'The URDF of the arm. When set, the arm comes from it (chain base_frame -> tip_frame) '
        'and the geometry parameters above are not used.'),
    ParameterSpec(
        'tip_frame', STRING, '',
        'The URDF link whose origin is the tip. Empty: the end of the chain below base_frame '
        'when there is exactly one.'),
)

#: Geometry parameters a URDF replaces.
GEOMETRY_PARAMETERS = ('link_lengths', 'joint_names', 'plane', 'shoulder_position',
                       'joint_zero_angles', 'joint_directions')

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
        'robot_description_topic', STRING, '',
        'When set (usually robot_description) and robot_description is empty: the topic '
        '(std_msgs/String, reliable, transient local) the URDF comes from; the arm is rebuilt '
        'whenever a new one arrives.'),
    ParameterSpec(
        'out_of_plane_tolerance', DOUBLE, _ARM.out_of_plane_tolerance,
        'Off-plane distance up to which a target that cannot be reached in the plane reports '
        'why (OUT_OF_REACH, ...) rather than OFF_PLANE, metres. A target off the plane is never '
        'REACHED.',
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
    ParameterSpec(
        'initial_positions', DOUBLES, [0.0, 0.0],
        'Joint angles at start, radians (shoulder, elbow).', '2 finite angles', length=2),
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
)


def ik_parameters():
    """Specs of the IK node, arm parameters first, with their read-only flags for it."""
    arm = tuple(spec._replace(read_only=spec.name not in IK_RUNTIME_ARM_PARAMETERS)
                for spec in ARM_PARAMETERS)
    return arm + IK_PARAMETERS


def names(specs) -> tuple:
    """Return the names of ``specs``, in order."""
    return tuple(spec.name for spec in specs)
