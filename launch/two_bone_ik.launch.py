"""Launch one two_bone_ik node, optionally in a namespace of its own.

Arguments (``ros2 launch two_bone_ik two_bone_ik.launch.py --show-args`` lists them):

- ``params_file``: ROS parameters YAML for the arm; default the installed
  ``share/two_bone_ik/config/two_bone_ik.yaml``.
- ``namespace``: ROS namespace for the node and its relative topics, e.g. ``left_arm``.
- ``elbow``: ``up``, ``down`` or ``nearest`` overrides the params file's ``elbow``; left empty
  (the default) the params file's value stands.

The launch file starts exactly one of two equivalent nodes, so that an ``elbow`` that was not
given never clobbers the params file: without ``elbow`` only the params file is passed, with it
the override is passed after the params file (the last definition wins).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.conditions import UnlessCondition
from launch.substitutions import EqualsSubstitution
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = 'two_bone_ik'


def generate_launch_description():
    default_params = os.path.join(
        get_package_share_directory(PACKAGE), 'config', 'two_bone_ik.yaml')
    params_file = LaunchConfiguration('params_file')
    namespace = LaunchConfiguration('namespace')
    elbow = LaunchConfiguration('elbow')
    elbow_not_given = EqualsSubstitution(elbow, '')

    def ik_node(parameters, condition):
        return Node(
            package=PACKAGE,
            executable='two_bone_ik_node',
            name='two_bone_ik',
            namespace=namespace,
            parameters=parameters,
            output='screen',
            condition=condition,
        )

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
        ik_node([params_file], IfCondition(elbow_not_given)),
        ik_node([params_file, {'elbow': elbow}], UnlessCondition(elbow_not_given)),
    ])
