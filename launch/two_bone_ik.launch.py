"""Launch one two_bone_ik node, optionally in a namespace of its own.

Arguments (``ros2 launch two_bone_ik two_bone_ik.launch.py --show-args`` lists them):

- ``params_file``: ROS parameters YAML for the arm; default the installed
  ``share/two_bone_ik/config/two_bone_ik.yaml``.
- ``namespace``: ROS namespace for the node and its relative topics, e.g. ``left_arm``.
- ``elbow``: ``up``, ``down`` or ``nearest`` overrides the params file's ``elbow``.
- ``urdf_file``: a URDF file whose content becomes ``robot_description`` (the arm then comes
  from it; ``base_frame``, ``tip_frame`` and the rest still come from the params file).
- ``output``: ``joint_commands``, ``position`` (``forward_position_controller/commands``) or
  ``trajectory`` (``joint_trajectory_controller/joint_trajectory``): where the commands go.

An argument left empty (the default for the last three) passes nothing, so the params file's
value stands: only the arguments given become parameter overrides, after the params file (the
last definition wins). With ``urdf_file`` and the default ``params_file``, the file's geometry
(``link_lengths``, ``joint_names``, ``plane``, ...) is left out: the URDF replaces it. The other
launch files of this package include this one for the IK node.

When the node exits the launch ends; when it cannot start (exit code 2), ``ros2 launch`` exits
with code 1.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.actions import OpaqueFunction
from launch.substitutions import FileContent
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from two_bone_ik.launch_support import end_launch_on_exit, ik_node_parameters

PACKAGE = 'two_bone_ik'

#: ``output`` -> (publish_joint_commands, position_controller, trajectory_controller). The
#: controller names are those of config/ros2_controllers.yaml (and ros2_control_demos).
OUTPUTS = {
    'joint_commands': (True, '', ''),
    'position': (False, 'forward_position_controller', ''),
    'trajectory': (False, '', 'joint_trajectory_controller'),
}


def _given(**values):
    """Return the parameters whose value is not None: the overrides actually given."""
    return {name: value for name, value in values.items() if value is not None}


def _default_params():
    return os.path.join(get_package_share_directory(PACKAGE), 'config', 'two_bone_ik.yaml')


def _ik_node(context):
    namespace, params_file, elbow, urdf_file, output = (
        LaunchConfiguration(name).perform(context)
        for name in ('namespace', 'params_file', 'elbow', 'urdf_file', 'output'))
    description = ParameterValue(FileContent(urdf_file), value_type=str) if urdf_file else None
    publish, position, trajectory = OUTPUTS.get(output, (None, None, None))
    namespace = namespace.strip('/')
    node_name = f'/{namespace}/two_bone_ik' if namespace else '/two_bone_ik'
    return [Node(
        package=PACKAGE,
        executable='two_bone_ik_node',
        name='two_bone_ik',
        namespace=namespace,
        parameters=[*ik_node_parameters(params_file, _default_params(), bool(urdf_file),
                                        node_name), _given(
            elbow=elbow or None, robot_description=description,
            publish_joint_commands=publish, position_controller=position,
            trajectory_controller=trajectory)],
        output='screen',
        on_exit=end_launch_on_exit('two_bone_ik_node'),
    )]


def generate_launch_description():
    default_params = _default_params()
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=default_params,
            description='ROS parameters YAML describing the arm (link lengths, joint names, '
                        'plane, limits, ...).'),
        DeclareLaunchArgument(
            'namespace', default_value='',
            description='Namespace for the node and its topics, e.g. left_arm.'),
        DeclareLaunchArgument(
            'elbow', default_value='', choices=['', 'up', 'down', 'nearest'],
            description='Elbow branch (up, down or nearest); empty keeps the params file value.'),
        DeclareLaunchArgument(
            'urdf_file', default_value='',
            description='URDF file whose content becomes robot_description (the arm comes '
                        'from it); empty: the arm of the params file.'),
        DeclareLaunchArgument(
            'output', default_value='', choices=['', *OUTPUTS],
            description='Where the commands go: joint_commands (sensor_msgs/JointState), '
                        'position (forward_position_controller/commands) or trajectory '
                        '(joint_trajectory_controller/joint_trajectory); empty keeps the '
                        'params file values.'),
        OpaqueFunction(function=_ik_node),
    ])
