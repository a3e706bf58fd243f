"""Launch a real servo arm: the IK node and the serial servo driver, from one params file.

Arguments (``ros2 launch two_bone_ik servo_arm.launch.py --show-args`` lists them):

- ``params_file``: parameters YAML with a section per node, ``two_bone_ik`` (the arm) and
  ``two_bone_ik_servo`` (protocol, port, calibration); its joint names must agree. Default the
  installed ``config/servo_arm_maestro.yaml`` (the servo arm of ``servo_arm.yaml`` on a Pololu
  Maestro).
- ``namespace``: namespace of both nodes and their topics, e.g. ``left_arm``.
- ``port``: serial device of the servo controller, e.g. ``/dev/ttyACM1``; empty keeps the params
  file's ``port``.
- ``elbow``: ``up``, ``down`` or ``nearest`` overrides the params file's ``elbow``.

The IK node publishes ``joint_commands``, which the driver sends to the servos; the driver's
``joint_states`` (what the servos report) is where the IK node's planned motions start from.
When either node exits the launch ends; when one cannot start (no such ``port``, say: exit
code 2), ``ros2 launch`` exits with code 1.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.actions import GroupAction
from launch.actions import IncludeLaunchDescription
from launch.actions import OpaqueFunction
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch.substitutions import ThisLaunchFileDir
from launch_ros.actions import Node
from two_bone_ik.launch_support import end_launch_on_exit

PACKAGE = 'two_bone_ik'


def _include(file_name, condition=None, **arguments):
    """Include a launch file of this folder, in a scope of its own, with ``arguments``."""
    source = PythonLaunchDescriptionSource([ThisLaunchFileDir(), '/', file_name])
    return GroupAction([IncludeLaunchDescription(source, launch_arguments=arguments.items())],
                       condition=condition)


def _given(**values):
    """Return the parameters whose value is not None: the overrides actually given."""
    return {name: value for name, value in values.items() if value is not None}


def _servo_node(context):
    port = LaunchConfiguration('port').perform(context)
    return [Node(
        package=PACKAGE,
        executable='two_bone_ik_servo',
        name='two_bone_ik_servo',
        namespace=LaunchConfiguration('namespace'),
        parameters=[LaunchConfiguration('params_file'), _given(port=port or None)],
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
        DeclareLaunchArgument(
            'namespace', default_value='',
            description='Namespace for the nodes and their topics, e.g. left_arm.'),
        DeclareLaunchArgument(
            'port', default_value='',
            description='Serial device of the servo controller, e.g. /dev/ttyACM1; empty keeps '
                        'the params file value.'),
        DeclareLaunchArgument(
            'elbow', default_value='', choices=['', 'up', 'down', 'nearest'],
            description='Elbow branch (up, down or nearest); empty keeps the params file value.'),
        _include('two_bone_ik.launch.py', params_file=LaunchConfiguration('params_file'),
                 namespace=LaunchConfiguration('namespace'),
                 elbow=LaunchConfiguration('elbow'), urdf_file='', output='joint_commands'),
        OpaqueFunction(function=_servo_node),
    ])
