"""Launch one two_bone_ik node, optionally in a namespace of its own.

Arguments (``ros2 launch two_bone_ik two_bone_ik.launch.py --show-args`` lists them; docs/launch.md
explains each):

- ``params_file``: ROS parameters YAML for the arm; default the installed
  ``share/two_bone_ik/config/two_bone_ik.yaml``.
- ``namespace``: ROS namespace for the node and its relative topics, e.g. ``left_arm``.
- ``elbow``: ``up``, ``down`` or ``nearest`` overrides the params file's ``elbow``.
- ``urdf_file``: a URDF file, or a ``.xacro`` file expanded with ``xacro_args``, whose content
  becomes ``robot_description`` (the arm then comes from it).
- ``xacro_args``: the xacro arguments, ``'prefix:=left_ length:=0.3'``.
- ``robot_description_topic``: the topic a running robot_state_publisher publishes the URDF on
  (usually ``robot_description``): the node takes the arm from it (none is started here).
- ``base_frame``, ``tip_frame``: override the params file's; the chain of a URDF arm.
- ``output``: ``joint_commands``, ``position`` (``forward_position_controller/commands``) or
  ``trajectory`` (``joint_trajectory_controller/joint_trajectory``): where the commands go.
- ``position_controller``, ``trajectory_controller``: the controller to command, by name (alone,
  it implies ``output`` ``position`` / ``trajectory``).
- ``use_sim_time``: ``true`` gives the node the time on ``/clock``.

An argument left empty (the default for all but ``params_file`` and ``use_sim_time``) passes
nothing, so the params file's value stands: only the arguments given become parameter
overrides, after the params file (the last definition wins). With ``urdf_file`` or
``robot_description_topic`` and the default ``params_file``, the file's geometry
(``link_lengths``, ``joint_names``, ``plane``, ...) is left out: the URDF replaces it. The other
launch files of this package include this one for the IK node.

When the node exits the launch ends; when it cannot start (exit code 2), ``ros2 launch`` exits
with code 1, and so it does, with one line, for arguments that cannot be used (``urdf_file``
with ``robot_description_topic``, a ``.xacro`` that does not expand).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.actions import OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from two_bone_ik.nodes.launch_support import command_outputs, declare_arguments
from two_bone_ik.nodes.launch_support import description_parameters, end_launch_on_exit
from two_bone_ik.nodes.launch_support import full_node_name, given_parameters, ik_node_parameters
from two_bone_ik.nodes.launch_support import OUTPUTS, TF_REMAPPINGS

PACKAGE = 'two_bone_ik'


def _default_params():
    return os.path.join(get_package_share_directory(PACKAGE), 'config', 'two_bone_ik.yaml')


def _ik_node(context):
    arguments = {name: LaunchConfiguration(name).perform(context) for name in (
        'namespace', 'params_file', 'elbow', 'urdf_file', 'xacro_args', 'robot_description_topic',
        'base_frame', 'tip_frame', 'output', 'position_controller', 'trajectory_controller',
        'use_sim_time')}
    description = description_parameters(
        arguments['urdf_file'], arguments['xacro_args'], arguments['robot_description_topic'])
    outputs = command_outputs(arguments['output'], arguments['position_controller'],
                              arguments['trajectory_controller'])
    outputs = outputs._asdict() if outputs else {}
    namespace = arguments['namespace'].strip('/')
    from_params_file = ik_node_parameters(arguments['params_file'], _default_params(),
                                          bool(description),
                                          full_node_name(namespace, 'two_bone_ik'))
    return [Node(
        package=PACKAGE,
        executable='two_bone_ik_node',
        name='two_bone_ik',
        remappings=list(TF_REMAPPINGS),
        namespace=namespace,
        parameters=[*from_params_file, given_parameters(
            elbow=arguments['elbow'] or None,
            robot_description=description.get('robot_description'),
            robot_description_topic=description.get('robot_description_topic'),
            base_frame=arguments['base_frame'] or None, tip_frame=arguments['tip_frame'] or None,
            publish_joint_commands=outputs.get('publish_joint_commands'),
            position_controller=outputs.get('position_controller'),
            trajectory_controller=outputs.get('trajectory_controller'),
            use_sim_time=arguments['use_sim_time'] == 'true')],
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
        *declare_arguments('namespace', 'elbow', 'urdf_file', 'xacro_args',
                           'robot_description_topic', 'base_frame', 'tip_frame'),
        DeclareLaunchArgument(
            'output', default_value='', choices=['', *OUTPUTS],
            description='Where the commands go: joint_commands (sensor_msgs/JointState), '
                        'position (forward_position_controller/commands) or trajectory '
                        '(joint_trajectory_controller/joint_trajectory); empty: the controller '
                        'named by position_controller or trajectory_controller, else the '
                        'params file values.'),
        *declare_arguments('position_controller', 'trajectory_controller', 'use_sim_time'),
        OpaqueFunction(function=_ik_node),
    ])
