"""Launch two arms with different geometry from one params file: left_arm and right_arm.

Arguments (``ros2 launch two_bone_ik two_arms.launch.py --show-args`` lists them; docs/launch.md
explains each):

- ``params_file``: parameters YAML with a section per arm, keyed by the node's full name
  (``/left_arm/two_bone_ik``, ``/right_arm/two_bone_ik``). Default the installed
  ``config/two_arms.yaml``.
- ``sim``: ``true`` also starts a MuJoCo-simulated arm in each namespace (sim.launch.py), each
  reading its own arm's section.
- ``robot_description_topic``: each IK node takes its arm from this topic in its own namespace
  (``robot_description``: ``/left_arm/robot_description`` and ``/right_arm/robot_description``,
  as a robot_state_publisher per arm publishes them); none is started here. Not with
  ``sim:=true`` (the sims are built from the params file at start: the launch refuses).
- ``use_sim_time``: ``true`` gives every node the time on ``/clock``.

Each arm has its own topics: ``/left_arm/target_pose``, ``/right_arm/joint_commands``, ...
The included files get every argument of theirs from here, so an argument of theirs given on the
command line (``elbow:=``, ``output:=``, ...) changes nothing: each arm's params file section
decides (``tip_frame``, ``trajectory_controller`` and the like go there). When a node exits the
launch ends; when one cannot start, with an error.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.conditions import UnlessCondition
from launch.substitutions import LaunchConfiguration
from two_bone_ik.nodes.launch_support import declare_arguments, forward_arguments
from two_bone_ik.nodes.launch_support import include_launch_file

PACKAGE = 'two_bone_ik'

#: The namespaces of the arms; params_file has a /<namespace>/two_bone_ik section for each.
ARMS = ('left_arm', 'right_arm')


#: Arguments of the included files left empty: each arm's params file section decides.
SECTION_DECIDES = ('elbow', 'urdf_file', 'xacro_args', 'base_frame', 'tip_frame',
                   'position_controller', 'trajectory_controller')


def generate_launch_description():
    default_params = os.path.join(
        get_package_share_directory(PACKAGE), 'config', 'two_arms.yaml')
    sim = LaunchConfiguration('sim')
    arms = []
    for arm in ARMS:
        arms += [
            include_launch_file(
                'two_bone_ik.launch.py', condition=UnlessCondition(sim),
                **forward_arguments('params_file', 'robot_description_topic', 'use_sim_time'),
                namespace=arm, output='', **dict.fromkeys(SECTION_DECIDES, '')),
            include_launch_file(
                'sim.launch.py', condition=IfCondition(sim),
                **forward_arguments('params_file', 'robot_description_topic', 'use_sim_time'),
                namespace=arm, output='joint_commands', rviz='false', rviz_config='',
                **dict.fromkeys(SECTION_DECIDES, '')),
        ]
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=default_params,
            description='Parameters YAML with a /left_arm/two_bone_ik and a '
                        '/right_arm/two_bone_ik section.'),
        DeclareLaunchArgument(
            'sim', default_value='false', choices=['true', 'false'],
            description='Also start a simulated arm (two_bone_ik_sim) for each arm.'),
        DeclareLaunchArgument(
            'robot_description_topic', default_value='',
            description="Each IK node takes its arm's URDF from this topic in its namespace "
                        '(a robot_state_publisher per arm publishes it); not with sim:=true.'),
        *declare_arguments('use_sim_time'),
        *arms,
    ])
