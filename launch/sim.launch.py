"""Launch the IK node and the MuJoCo-simulated arm it drives, for one arm.

Arguments (``ros2 launch two_bone_ik sim.launch.py --show-args`` lists them; docs/launch.md
explains each):

- ``params_file``: one parameters YAML for both nodes: the IK node's section describes the arm
  (the sim reads the same section, as ``arm_params_file``), and a ``two_bone_ik_sim`` section,
  if any, sets the sim's own parameters. Default the installed ``config/two_bone_ik.yaml``.
- ``urdf_file``: a URDF (or ``.xacro``) file whose content becomes ``robot_description`` of both
  nodes; ``xacro_args``: its xacro arguments.
- ``robot_description_topic``: the IK node takes its URDF from this topic, as on a robot whose
  robot_state_publisher runs; the sim still builds the arm from ``urdf_file`` (required then).
  With ``rviz:=true`` the robot_state_publisher started here publishes it on
  ``robot_description``; otherwise run one, or the IK node waits for it.
- ``namespace``: namespace of every node and topic, e.g. ``left_arm``.
- ``elbow``: ``up``, ``down`` or ``nearest`` overrides the params file's ``elbow``.
- ``base_frame``, ``tip_frame``: override the params file's, for both nodes.
- ``output``: how the commands reach the sim: ``joint_commands`` (sensor_msgs/JointState),
  ``position`` (``forward_position_controller/commands``, Float64MultiArray) or ``trajectory``
  (``joint_trajectory_controller/joint_trajectory``, JointTrajectory).
- ``position_controller``, ``trajectory_controller``: the controller's name, which the sim
  stands in for (alone, it implies ``output``).
- ``rviz``: ``true`` adds robot_state_publisher (fed by the sim's ``joint_states``) and rviz2.
- ``rviz_config``: RViz config; default the installed ``rviz/two_bone_ik.rviz``.
- ``use_sim_time``: ``true`` gives every node the time on ``/clock`` (the sim does not publish
  one).

When the IK node or the sim exits the launch ends; when one cannot start (a bad parameter: exit
code 2), ``ros2 launch`` exits with code 1.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.actions import OpaqueFunction
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from two_bone_ik.arm.params_file import parameters_for_node
from two_bone_ik.nodes.launch_support import command_outputs, declare_arguments, end_launch_on_exit
from two_bone_ik.nodes.launch_support import forward_arguments, full_node_name, given_parameters
from two_bone_ik.nodes.launch_support import (
    include_launch_file, OUTPUTS, sim_description_parameters)

PACKAGE = 'two_bone_ik'


def _arm(context):
    """Return the IK node (included) and the sim, commanding and following one controller."""
    namespace, params_file, urdf_file, xacro_args, topic, base_frame, tip_frame = (
        LaunchConfiguration(name).perform(context) for name in (
            'namespace', 'params_file', 'urdf_file', 'xacro_args', 'robot_description_topic',
            'base_frame', 'tip_frame'))
    outputs = command_outputs(*(LaunchConfiguration(name).perform(context) for name in (
        'output', 'position_controller', 'trajectory_controller'))) or OUTPUTS['joint_commands']
    description = sim_description_parameters(urdf_file, xacro_args, topic)
    # The file goes to the sim as a params file only when it has a section for the sim (the
    # sim warns about a params file without one).
    sim_node = full_node_name(namespace, 'two_bone_ik_sim')
    own = [params_file] if parameters_for_node(params_file, sim_node).matched_keys else []
    return [
        # With robot_description_topic the IK node takes its URDF from the topic.
        include_launch_file(
            'two_bone_ik.launch.py',
            **forward_arguments('params_file', 'namespace', 'elbow', 'robot_description_topic',
                                'base_frame', 'tip_frame', 'use_sim_time'),
            urdf_file='' if topic else urdf_file, xacro_args='' if topic else xacro_args,
            output=outputs.output, position_controller=outputs.position_controller,
            trajectory_controller=outputs.trajectory_controller),
        Node(
            package=PACKAGE,
            executable='two_bone_ik_sim',
            name='two_bone_ik_sim',
            namespace=namespace.strip('/'),
            parameters=[*own, given_parameters(
                arm_params_file=params_file,
                robot_description=description.get('robot_description'),
                base_frame=base_frame or None, tip_frame=tip_frame or None,
                position_controller=outputs.position_controller,
                trajectory_controller=outputs.trajectory_controller,
                use_sim_time=LaunchConfiguration('use_sim_time').perform(context) == 'true')],
            output='screen',
            # Without it the IK node commands nothing: end the launch (with an error if it
            # failed).
            on_exit=end_launch_on_exit('two_bone_ik_sim'),
        ),
    ]


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=os.path.join(share, 'config', 'two_bone_ik.yaml'),
            description='Parameters YAML of the arm: the IK node section (read by the sim as '
                        'well) and optionally a two_bone_ik_sim section.'),
        *declare_arguments('urdf_file', 'xacro_args'),
        DeclareLaunchArgument(
            'robot_description_topic', default_value='',
            description='The IK node takes its URDF from this topic (robot_description: the '
                        'robot_state_publisher of rviz:=true publishes it); the sim builds the '
                        'arm from urdf_file, required then.'),
        *declare_arguments('namespace', 'elbow', 'base_frame', 'tip_frame'),
        DeclareLaunchArgument(
            'output', default_value='', choices=['', *OUTPUTS],
            description='How the IK node commands the sim: joint_commands, position '
                        '(forward_position_controller/commands) or trajectory '
                        '(joint_trajectory_controller/joint_trajectory); empty: the controller '
                        'named, else joint_commands.'),
        *declare_arguments('position_controller', 'trajectory_controller'),
        DeclareLaunchArgument(
            'rviz', default_value='false', choices=['true', 'false'],
            description='Also start robot_state_publisher (on the sim joint_states) and rviz2 '
                        'with rviz_config.'),
        DeclareLaunchArgument(
            'rviz_config', default_value=os.path.join(share, 'rviz', 'two_bone_ik.rviz'),
            description='RViz config file (with rviz:=true).'),
        *declare_arguments('use_sim_time'),
        OpaqueFunction(function=_arm),
        include_launch_file(
            'display.launch.py', condition=IfCondition(LaunchConfiguration('rviz')),
            **forward_arguments('params_file', 'urdf_file', 'xacro_args', 'namespace',
                                'base_frame', 'rviz_config', 'use_sim_time'),
            robot_description_topic='', joint_states='joint_states', rviz='true'),
    ])
