"""See an arm follow its targets in RViz, without a sim: the IK node, its URDF and its markers.

Arguments (``ros2 launch two_bone_ik view_arm.launch.py --show-args`` lists them):

- ``params_file``: the arm's parameters YAML; the URDF shown is generated from it by
  ``two_bone_ik_urdf``. Default the installed ``config/two_bone_ik.yaml``.
- ``urdf_file``: a URDF file used instead, by robot_state_publisher and by the IK node.
- ``namespace``: namespace of every node and topic, e.g. ``left_arm``.
- ``elbow``: ``up``, ``down`` or ``nearest`` overrides the params file's ``elbow``.
- ``rviz``: ``false`` leaves rviz2 out (connect one from elsewhere).
- ``rviz_config``: RViz config; default the installed ``rviz/two_bone_ik.rviz``.

robot_state_publisher reads the IK node's ``joint_commands`` as its ``joint_states``, so the
model shows the commanded pose: publishing a target on ``target_pose`` (or RViz's 2D Goal Pose
tool, which the shipped config points at it) moves the model; the IK node's ``ik_markers`` show
the workspace and the target. The model appears with the first command.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.actions import GroupAction
from launch.actions import IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch.substitutions import ThisLaunchFileDir

PACKAGE = 'two_bone_ik'


def _include(file_name, condition=None, **arguments):
    """Include a launch file of this folder, in a scope of its own, with ``arguments``."""
    source = PythonLaunchDescriptionSource([ThisLaunchFileDir(), '/', file_name])
    return GroupAction([IncludeLaunchDescription(source, launch_arguments=arguments.items())],
                       condition=condition)


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    params_file, urdf_file, namespace = (LaunchConfiguration(name)
                                         for name in ('params_file', 'urdf_file', 'namespace'))
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=os.path.join(share, 'config', 'two_bone_ik.yaml'),
            description='Parameters YAML of the arm, for the IK node and the generated URDF.'),
        DeclareLaunchArgument(
            'urdf_file', default_value='',
            description='URDF file to use instead of the generated one (robot_description of '
                        'robot_state_publisher and the IK node).'),
        DeclareLaunchArgument(
            'namespace', default_value='',
            description='Namespace for the nodes and their topics, e.g. left_arm.'),
        DeclareLaunchArgument(
            'elbow', default_value='', choices=['', 'up', 'down', 'nearest'],
            description='Elbow branch (up, down or nearest); empty keeps the params file value.'),
        DeclareLaunchArgument(
            'rviz', default_value='true', choices=['true', 'false'],
            description='Start rviz2 (false: the IK node and robot_state_publisher only).'),
        DeclareLaunchArgument(
            'rviz_config', default_value=os.path.join(share, 'rviz', 'two_bone_ik.rviz'),
            description='RViz config file: RobotModel, TF and the ik_markers by default.'),
        _include('two_bone_ik.launch.py', params_file=params_file, urdf_file=urdf_file,
                 namespace=namespace, elbow=LaunchConfiguration('elbow'),
                 output='joint_commands'),
        _include('display.launch.py', params_file=params_file, urdf_file=urdf_file,
                 namespace=namespace, joint_states='joint_commands',
                 rviz=LaunchConfiguration('rviz'),
                 rviz_config=LaunchConfiguration('rviz_config')),
    ])
