"""Show an arm in RViz: robot_state_publisher with its URDF, and rviz2 with the shipped config.

Arguments (``ros2 launch two_bone_ik display.launch.py --show-args`` lists them; docs/launch.md
explains each):

- ``params_file``: the IK node's parameters YAML; the URDF is generated from its section for
  ``<namespace>/two_bone_ik`` by ``two_bone_ik_urdf``, and RViz's fixed frame is its
  ``base_frame``. Default the installed ``config/two_bone_ik.yaml``.
- ``urdf_file``: a URDF (or ``.xacro``) file to show instead of the generated one;
  ``xacro_args``: its xacro arguments.
- ``robot_description_topic``: a robot_state_publisher runs already and publishes the URDF on
  this topic: none is started here, and rviz2 reads the model from that topic.
- ``namespace``: namespace of both nodes and their topics (``tf`` and ``tf_static`` too).
- ``joint_states``: the sensor_msgs/JointState topic robot_state_publisher turns into TF;
  ``joint_commands`` shows what the IK node commands.
- ``base_frame``: RViz's fixed frame; empty: the params file's ``base_frame``.
- ``rviz``: ``false`` starts robot_state_publisher alone.
- ``rviz_config``: RViz config; default the installed ``rviz/two_bone_ik.rviz``.
- ``use_sim_time``: ``true`` gives both nodes the time on ``/clock``.

view_arm.launch.py and sim.launch.py (``rviz:=true``) include this file. robot_state_publisher
and rviz2 are not dependencies of the IK node: when one is not installed, a warning says so and
the rest starts.
"""

import os

from ament_index_python.packages import get_package_prefix
from ament_index_python.packages import get_package_share_directory
from ament_index_python.packages import PackageNotFoundError
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.actions import OpaqueFunction
from launch.conditions import IfCondition
from launch.logging import get_logger
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from two_bone_ik.arm.params_file import parameters_for_node
from two_bone_ik.nodes.launch_support import declare_arguments, description_parameters
from two_bone_ik.nodes.launch_support import full_node_name, TF_REMAPPINGS, written_description

PACKAGE = 'two_bone_ik'


def _installed(package):
    try:
        get_package_prefix(package)
    except PackageNotFoundError:
        debian_name = package.replace('_', '-')
        get_logger('two_bone_ik.display').warning(
            f'{package} is not installed, so it is not started (install it with '
            f'`sudo apt install ros-$ROS_DISTRO-{debian_name}`)')
        return False
    return True


def _description(context, params_file, ik_node):
    """Return (robot_description or None when a topic has it, the topic)."""
    urdf_file, xacro_args, topic = (LaunchConfiguration(name).perform(context)
                                    for name in ('urdf_file', 'xacro_args',
                                                 'robot_description_topic'))
    given = description_parameters(urdf_file, xacro_args, topic)
    if topic:
        return None, topic
    if urdf_file:
        return given['robot_description'], 'robot_description'
    return written_description(params_file, ik_node), 'robot_description'


def _display(context):
    namespace, params_file, joint_states, base_frame, use_sim_time = (
        LaunchConfiguration(name).perform(context)
        for name in ('namespace', 'params_file', 'joint_states', 'base_frame', 'use_sim_time'))
    namespace = namespace.strip('/')
    ik_node = full_node_name(namespace, 'two_bone_ik')
    description, topic = _description(context, params_file, ik_node)
    sim_time = use_sim_time == 'true'
    actions = []
    # With robot_description_topic, the robot_state_publisher that publishes it runs already.
    if description is not None and _installed('robot_state_publisher'):
        actions.append(Node(
            package='robot_state_publisher',
            executable='robot_state_publisher',
            namespace=namespace,
            parameters=[{'robot_description': ParameterValue(description, value_type=str),
                         'use_sim_time': sim_time}],
            remappings=[('joint_states', joint_states), *TF_REMAPPINGS],
            output='screen',
        ))
    if IfCondition(LaunchConfiguration('rviz')).evaluate(context) and _installed('rviz2'):
        base_frame = base_frame or parameters_for_node(params_file, ik_node).values.get(
            'base_frame', 'base_link')
        actions.append(Node(
            package='rviz2',
            executable='rviz2',
            name='rviz2',
            namespace=namespace,
            arguments=['-d', LaunchConfiguration('rviz_config'), '-f', base_frame],
            parameters=[{'use_sim_time': sim_time}],
            # The config's RobotModel reads robot_description.
            remappings=[*([('robot_description', topic)] if topic != 'robot_description' else []),
                        *TF_REMAPPINGS],
            output='screen',
        ))
    return actions


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=os.path.join(share, 'config', 'two_bone_ik.yaml'),
            description='The IK node parameters YAML: the URDF is generated from it (and '
                        "RViz's fixed frame is its base_frame)."),
        *declare_arguments('urdf_file', 'xacro_args'),
        DeclareLaunchArgument(
            'robot_description_topic', default_value='',
            description='Topic on which a robot_state_publisher that runs already publishes the '
                        'URDF: none is started here, and rviz2 shows the model from it.'),
        *declare_arguments('namespace'),
        DeclareLaunchArgument(
            'joint_states', default_value='joint_states',
            description='sensor_msgs/JointState topic robot_state_publisher turns into TF '
                        '(joint_commands: the commanded pose).'),
        DeclareLaunchArgument(
            'base_frame', default_value='',
            description="RViz's fixed frame; empty: the params file's base_frame."),
        DeclareLaunchArgument(
            'rviz', default_value='true', choices=['true', 'false'],
            description='Start rviz2 (false: robot_state_publisher alone).'),
        DeclareLaunchArgument(
            'rviz_config', default_value=os.path.join(share, 'rviz', 'two_bone_ik.rviz'),
            description='RViz config file: RobotModel, TF and the ik_markers by default.'),
        *declare_arguments('use_sim_time'),
        OpaqueFunction(function=_display),
    ])
