"""Launch the IK node and the MuJoCo-simulated arm it drives, for one arm.

Arguments (``ros2 launch two_bone_ik sim.launch.py --show-args`` lists them):

- ``params_file``: one parameters YAML for both nodes: the IK node's section describes the arm
  (the sim reads the same section, as ``arm_params_file``), and a ``two_bone_ik_sim`` section,
  if any, sets the sim's own parameters. Default the installed ``config/two_bone_ik.yaml``.
- ``urdf_file``: a URDF file whose content becomes ``robot_description`` of both nodes.
- ``namespace``: namespace of every node and topic, e.g. ``left_arm``.
- ``elbow``: ``up``, ``down`` or ``nearest`` overrides the params file's ``elbow``.
- ``output``: how the commands reach the sim: ``joint_commands`` (sensor_msgs/JointState),
  ``position`` (``forward_position_controller/commands``, Float64MultiArray) or ``trajectory``
  (``joint_trajectory_controller/joint_trajectory``, JointTrajectory).
- ``rviz``: ``true`` adds robot_state_publisher (fed by the sim's ``joint_states``) and rviz2.
- ``rviz_config``: RViz config; default the installed ``rviz/two_bone_ik.rviz``.

When the IK node or the sim exits the launch ends; when one cannot start (a bad parameter: exit
code 2), ``ros2 launch`` exits with code 1.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.actions import GroupAction
from launch.actions import IncludeLaunchDescription
from launch.actions import OpaqueFunction
from launch.conditions import IfCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import FileContent
from launch.substitutions import LaunchConfiguration
from launch.substitutions import ThisLaunchFileDir
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from two_bone_ik.arm.params_file import parameters_for_node
from two_bone_ik.launch_support import end_launch_on_exit

PACKAGE = 'two_bone_ik'

#: ``output`` -> the sim's (position_controller, trajectory_controller): the controllers it
#: stands in for, named as two_bone_ik.launch.py names them for the IK node.
SIM_CONTROLLERS = {
    'joint_commands': ('', ''),
    'position': ('forward_position_controller', ''),
    'trajectory': ('', 'joint_trajectory_controller'),
}


def _include(file_name, condition=None, **arguments):
    """Include a launch file of this folder, in a scope of its own, with ``arguments``."""
    source = PythonLaunchDescriptionSource([ThisLaunchFileDir(), '/', file_name])
    return GroupAction([IncludeLaunchDescription(source, launch_arguments=arguments.items())],
                       condition=condition)


def _given(**values):
    """Return the parameters whose value is not None: the overrides actually given."""
    return {name: value for name, value in values.items() if value is not None}


def _sim_node(context):
    namespace, params_file, urdf_file, output = (
        LaunchConfiguration(name).perform(context)
        for name in ('namespace', 'params_file', 'urdf_file', 'output'))
    description = ParameterValue(FileContent(urdf_file), value_type=str) if urdf_file else None
    position, trajectory = SIM_CONTROLLERS[output]
    # The file goes to the sim as a params file only when it has a section for the sim (the
    # sim warns about a params file without one).
    namespace = namespace.strip('/')
    sim_node = f'/{namespace}/two_bone_ik_sim' if namespace else '/two_bone_ik_sim'
    own = [params_file] if parameters_for_node(params_file, sim_node).matched_keys else []
    return [Node(
        package=PACKAGE,
        executable='two_bone_ik_sim',
        name='two_bone_ik_sim',
        namespace=namespace,
        parameters=[*own, _given(
            arm_params_file=params_file, robot_description=description,
            position_controller=position, trajectory_controller=trajectory)],
        output='screen',
        # Without it the IK node commands nothing: end the launch (with an error if it failed).
        on_exit=end_launch_on_exit('two_bone_ik_sim'),
    )]


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    params_file, urdf_file, namespace = (LaunchConfiguration(name)
                                         for name in ('params_file', 'urdf_file', 'namespace'))
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=os.path.join(share, 'config', 'two_bone_ik.yaml'),
            description='Parameters YAML of the arm: the IK node section (read by the sim as '
                        'well) and optionally a two_bone_ik_sim section.'),
        DeclareLaunchArgument(
            'urdf_file', default_value='',
            description='URDF file whose content becomes robot_description of the IK node and '
                        'the sim; empty: the arm of the params file.'),
        DeclareLaunchArgument(
            'namespace', default_value='',
            description='Namespace for the nodes and their topics, e.g. left_arm.'),
        DeclareLaunchArgument(
            'elbow', default_value='', choices=['', 'up', 'down', 'nearest'],
            description='Elbow branch (up, down or nearest); empty keeps the params file value.'),
        DeclareLaunchArgument(
            'output', default_value='joint_commands', choices=list(SIM_CONTROLLERS),
            description='How the IK node commands the sim: joint_commands, position '
                        '(forward_position_controller/commands) or trajectory '
                        '(joint_trajectory_controller/joint_trajectory).'),
        DeclareLaunchArgument(
            'rviz', default_value='false', choices=['true', 'false'],
            description='Also start robot_state_publisher (on the sim joint_states) and rviz2 '
                        'with rviz_config.'),
        DeclareLaunchArgument(
            'rviz_config', default_value=os.path.join(share, 'rviz', 'two_bone_ik.rviz'),
            description='RViz config file (with rviz:=true).'),
        _include('two_bone_ik.launch.py', params_file=params_file, urdf_file=urdf_file,
                 namespace=namespace, elbow=LaunchConfiguration('elbow'),
                 output=LaunchConfiguration('output')),
        OpaqueFunction(function=_sim_node),
        _include('display.launch.py', condition=IfCondition(LaunchConfiguration('rviz')),
                 params_file=params_file, urdf_file=urdf_file, namespace=namespace,
                 joint_states='joint_states', rviz='true',
                 rviz_config=LaunchConfiguration('rviz_config')),
    ])
