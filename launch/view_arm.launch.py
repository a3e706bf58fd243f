"""See an arm follow its targets in RViz, without a sim: the IK node, its URDF and its markers.

Arguments (``ros2 launch two_bone_ik view_arm.launch.py --show-args`` lists them; docs/launch.md
explains each):

- ``params_file``: the arm's parameters YAML; the URDF shown is generated from it by
  ``two_bone_ik_urdf``. Default the installed ``config/two_bone_ik.yaml``.
- ``urdf_file``: a URDF (or ``.xacro``) file used instead, by robot_state_publisher and by the
  IK node; ``xacro_args``: its xacro arguments.
- ``robot_description_topic``: a robot_state_publisher runs already and publishes the URDF on
  this topic: the IK node takes the arm from it, none is started here, and RViz shows that
  robot_state_publisher's model (the pose of its ``joint_states``, not the commanded one).
- ``namespace``: namespace of every node and topic, e.g. ``left_arm``.
- ``elbow``: ``up``, ``down`` or ``nearest`` overrides the params file's ``elbow``.
- ``base_frame``, ``tip_frame``: override the params file's (``base_frame`` is RViz's fixed
  frame too).
- ``rviz``: ``false`` leaves rviz2 out (connect one from elsewhere).
- ``rviz_config``: RViz config; default the installed ``rviz/two_bone_ik.rviz``.
- ``use_sim_time``: ``true`` gives every node the time on ``/clock``.

robot_state_publisher reads the IK node's ``joint_commands`` as its ``joint_states``, so the
model shows the commanded pose: publishing a target on ``target_pose`` (or RViz's 2D Goal Pose
tool, which the shipped config points at it) moves the model; the IK node's ``ik_markers`` show
the workspace and the target. The model appears with the first command.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from two_bone_ik.nodes.launch_support import declare_arguments, forward_arguments
from two_bone_ik.nodes.launch_support import include_launch_file

PACKAGE = 'two_bone_ik'


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=os.path.join(share, 'config', 'two_bone_ik.yaml'),
            description='Parameters YAML of the arm, for the IK node and the generated URDF.'),
        *declare_arguments('urdf_file', 'xacro_args'),
        DeclareLaunchArgument(
            'robot_description_topic', default_value='',
            description='Topic on which a robot_state_publisher that runs already publishes the '
                        'URDF: the IK node takes the arm from it and none is started here.'),
        *declare_arguments('namespace', 'elbow', 'base_frame', 'tip_frame'),
        DeclareLaunchArgument(
            'rviz', default_value='true', choices=['true', 'false'],
            description='Start rviz2 (false: the IK node and robot_state_publisher only).'),
        DeclareLaunchArgument(
            'rviz_config', default_value=os.path.join(share, 'rviz', 'two_bone_ik.rviz'),
            description='RViz config file: RobotModel, TF and the ik_markers by default.'),
        *declare_arguments('use_sim_time'),
        include_launch_file(
            'two_bone_ik.launch.py',
            **forward_arguments('params_file', 'urdf_file', 'xacro_args',
                                'robot_description_topic', 'namespace', 'elbow', 'base_frame',
                                'tip_frame', 'use_sim_time'),
            output='joint_commands', position_controller='', trajectory_controller=''),
        include_launch_file(
            'display.launch.py',
            **forward_arguments('params_file', 'urdf_file', 'xacro_args',
                                'robot_description_topic', 'namespace', 'base_frame', 'rviz',
                                'rviz_config', 'use_sim_time'),
            joint_states='joint_commands'),
    ])
