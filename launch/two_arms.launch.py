"""Launch two arms with different geometry from one params file: left_arm and right_arm.

Arguments (``ros2 launch two_bone_ik two_arms.launch.py --show-args`` lists them):

- ``params_file``: parameters YAML with a section per arm, keyed by the node's full name
  (``/left_arm/two_bone_ik``, ``/right_arm/two_bone_ik``). Default the installed
  ``config/two_arms.yaml``.
- ``sim``: ``true`` also starts a MuJoCo-simulated arm in each namespace (sim.launch.py), each
  reading its own arm's section.

Each arm has its own topics: ``/left_arm/target_pose``, ``/right_arm/joint_commands``, ...
The included files get every argument of theirs from here, so an argument of theirs given on the
command line (``elbow:=``, ``output:=``, ...) changes nothing: each arm's params file section
decides. When a node exits the launch ends; when one cannot start, with an error.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.actions import GroupAction
from launch.actions import IncludeLaunchDescription
from launch.conditions import IfCondition
from launch.conditions import UnlessCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch.substitutions import ThisLaunchFileDir

PACKAGE = 'two_bone_ik'

#: The namespaces of the arms; params_file has a /<namespace>/two_bone_ik section for each.
ARMS = ('left_arm', 'right_arm')


def _include(file_name, condition=None, **arguments):
    """Include a launch file of this folder, in a scope of its own, with ``arguments``."""
    source = PythonLaunchDescriptionSource([ThisLaunchFileDir(), '/', file_name])
    return GroupAction([IncludeLaunchDescription(source, launch_arguments=arguments.items())],
                       condition=condition)


def generate_launch_description():
    default_params = os.path.join(
        get_package_share_directory(PACKAGE), 'config', 'two_arms.yaml')
    params_file, sim = LaunchConfiguration('params_file'), LaunchConfiguration('sim')
    arms = []
    for arm in ARMS:
        arms += [
            _include('two_bone_ik.launch.py', condition=UnlessCondition(sim),
                     params_file=params_file, namespace=arm, elbow='', urdf_file='',
                     output=''),
            _include('sim.launch.py', condition=IfCondition(sim),
                     params_file=params_file, namespace=arm, urdf_file='', elbow='',
                     output='joint_commands', rviz='false', rviz_config=''),
        ]
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=default_params,
            description='Parameters YAML with a /left_arm/two_bone_ik and a '
                        '/right_arm/two_bone_ik section.'),
        DeclareLaunchArgument(
            'sim', default_value='false', choices=['true', 'false'],
            description='Also start a simulated arm (two_bone_ik_sim) for each arm.'),
        *arms,
    ])
