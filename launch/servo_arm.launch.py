"""Launch a real servo arm: the IK node and the serial servo driver, from one params file.

Arguments (``ros2 launch two_bone_ik servo_arm.launch.py --show-args`` lists them; docs/launch.md
explains each):

- ``params_file``: parameters YAML with a section per node, ``two_bone_ik`` (the arm) and
  ``two_bone_ik_servo`` (protocol, port, calibration); its joint names must agree. Default the
  installed ``config/servo_arm_maestro.yaml`` (the servo arm of ``servo_arm.yaml`` on a Pololu
  Maestro).
- ``namespace``: namespace of both nodes and their topics, e.g. ``left_arm``.
- ``port``: serial device of the servo controller, e.g. ``/dev/ttyACM1``; empty keeps the params
  file's ``port``.
- ``elbow``: ``up``, ``down`` or ``nearest`` overrides the params file's ``elbow``.
- ``robot_description_topic``: the topic a running robot_state_publisher publishes the arm's
  URDF on: the IK node takes the arm from it (its joint names must be the driver's ``joints``);
  no robot_state_publisher is started here.
- ``base_frame``, ``tip_frame``: override the params file's (the chain of a URDF arm).
- ``use_sim_time``: ``true`` gives both nodes the time on ``/clock``.

The IK node publishes ``joint_commands``, which the driver sends to the servos; the driver's
``joint_states`` (what the servos report) is where the IK node's planned motions start from.
When either node exits the launch ends; when one cannot start (no such ``port``, say: exit
code 2), ``ros2 launch`` exits with code 1.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.actions import OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from two_bone_ik.nodes.launch_support import declare_arguments, end_launch_on_exit
from two_bone_ik.nodes.launch_support import (
    forward_arguments, given_parameters, include_launch_file)

PACKAGE = 'two_bone_ik'


def _servo_node(context):
    port = LaunchConfiguration('port').perform(context)
    return [Node(
        package=PACKAGE,
        executable='two_bone_ik_servo',
        name='two_bone_ik_servo',
        namespace=LaunchConfiguration('namespace'),
        parameters=[LaunchConfiguration('params_file'), given_parameters(
            port=port or None,
            use_sim_time=LaunchConfiguration('use_sim_time').perform(context) == 'true')],
        output='screen',
        # Without it the IK node commands nothing: end the launch (with an error if it failed).
        on_exit=end_launch_on_exit('two_bone_ik_servo'),
    )]


def generate_launch_description():
    default_params = os.path.join(
        get_package_share_directory(PACKAGE), 'config', 'servo_arm_maestro.yaml')
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=default_params,
            description='Parameters YAML with a two_bone_ik section (the arm) and a '
                        'two_bone_ik_servo section (protocol, port, servo calibration).'),
        *declare_arguments('namespace'),
        DeclareLaunchArgument(
            'port', default_value='',
            description='Serial device of the servo controller, e.g. /dev/ttyACM1; empty keeps '
                        'the params file value.'),
        *declare_arguments('elbow', 'robot_description_topic', 'base_frame', 'tip_frame',
                           'use_sim_time'),
        include_launch_file(
            'two_bone_ik.launch.py',
            **forward_arguments('params_file', 'namespace', 'elbow', 'robot_description_topic',
                                'base_frame', 'tip_frame', 'use_sim_time'),
            urdf_file='', xacro_args='', output='joint_commands', position_controller='',
            trajectory_controller=''),
        OpaqueFunction(function=_servo_node),
    ])
