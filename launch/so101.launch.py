"""Bring up an SO-101: the IK node on its geometry, and its Feetech servos or a MuJoCo sim of it.

Arguments (``ros2 launch two_bone_ik so101.launch.py --show-args`` lists them; docs/launch.md
explains each, docs/so101.md the arm):

- ``params_file``: parameters YAML with a section per node: ``two_bone_ik`` (the arm, as
  desktop-arm parameters), ``two_bone_ik_servo`` (protocol ``feetech``, the joints) and
  ``two_bone_ik_sim``. Default the installed ``config/so101.yaml``.
- ``namespace``: namespace of every node and topic, e.g. ``so101``.
- ``port``: serial device of the servo bus, e.g. ``/dev/ttyACM0``; empty keeps the params
  file's ``port``.
- ``calibration_file``: the LeRobot calibration JSON of this arm (``lerobot-calibrate`` writes
  it): each joint takes the motor of its name (id, range, LeRobot's degrees mapping). Needed to
  drive the servos; a leading ``~`` is the home directory.
- ``sim``: ``true`` starts the MuJoCo sim (``two_bone_ik_sim``) of the arm's description instead
  of the servo driver; the gripper is simulated too.
- ``rviz``: ``true`` adds robot_state_publisher (fed by the driver's or the sim's
  ``joint_states``) and rviz2, showing the same description (``display.launch.py``).
- ``rviz_config``: RViz config; default the installed ``rviz/two_bone_ik.rviz``.
- ``urdf_file``: your own SO-101 URDF (or ``.xacro``, with ``xacro_args``) instead of the
  description written from ``params_file``: the IK node, the sim and robot_state_publisher use
  it (give ``tip_frame`` too).
- ``robot_description_topic``: a robot_state_publisher runs already and publishes the URDF on
  this topic: the IK node (and RViz) take it from there, none is started here.
- ``tip_frame``: the link of ``urdf_file`` or of the topic's URDF whose origin is the tool
  point, e.g. ``gripper_frame_link`` in the SO-ARM100 project's URDF.
- ``use_sim_time``: ``true`` gives every node the time on ``/clock`` (the sim publishes none).

The description written from ``params_file`` is ``two_bone_ik_urdf``'s (links ``base_link``,
``turntable``, ``link1``, ``link2``, ``wrist``, ``hand``, ``tool``, and the gripper's ``jaw``);
the sim and robot_state_publisher get the same text. When a node of this package exits the
launch ends; when one cannot start (a missing ``port``: exit code 2), or the arguments cannot be
used (no calibration for the servos, ``urdf_file`` with ``robot_description_topic``, ``sim``
with a topic but no file), ``ros2 launch`` exits with code 1.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.actions import OpaqueFunction
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from two_bone_ik.nodes.launch_support import declare_arguments, description_parameters
from two_bone_ik.nodes.launch_support import end_launch_on_exit, forward_arguments, full_node_name
from two_bone_ik.nodes.launch_support import (
    given_parameters, ik_node_parameters, include_launch_file)
from two_bone_ik.nodes.launch_support import servo_overrides, sim_description_parameters
from two_bone_ik.nodes.launch_support import TF_REMAPPINGS, written_description

PACKAGE = 'two_bone_ik'

#: The tool link of the URDF ``two_bone_ik_urdf`` writes: the sim's tip there.
WRITTEN_TIP = 'tool'


def _default_params():
    return os.path.join(get_package_share_directory(PACKAGE), 'config', 'so101.yaml')


def _sim_node(arguments, ik_node, use_sim_time):
    """Return the sim of the user's URDF, or of the one written from the IK node's section."""
    description = sim_description_parameters(
        arguments['urdf_file'], arguments['xacro_args'], arguments['robot_description_topic'])
    written = not description
    return Node(
        package=PACKAGE,
        executable='two_bone_ik_sim',
        name='two_bone_ik_sim',
        namespace=arguments['namespace'],
        parameters=[arguments['params_file'], given_parameters(
            robot_description=description.get('robot_description') or ParameterValue(
                written_description(arguments['params_file'], ik_node), value_type=str),
            tip_frame=WRITTEN_TIP if written else arguments['tip_frame'],
            use_sim_time=use_sim_time)],
        output='screen',
        # Without it the IK node commands nothing: end the launch (with an error if it failed).
        on_exit=end_launch_on_exit('two_bone_ik_sim'),
    )


def _servo_node(arguments, use_sim_time):
    """Return the servo driver, with the port and calibration file given."""
    overrides = servo_overrides(
        arguments['params_file'], full_node_name(arguments['namespace'], 'two_bone_ik_servo'),
        arguments['port'], arguments['calibration_file'])
    return Node(
        package=PACKAGE,
        executable='two_bone_ik_servo',
        name='two_bone_ik_servo',
        namespace=arguments['namespace'],
        parameters=[arguments['params_file'], given_parameters(
            port=overrides.get('port'), calibration_file=overrides.get('calibration_file'),
            use_sim_time=use_sim_time)],
        output='screen',
        on_exit=end_launch_on_exit('two_bone_ik_servo'),
    )


def _nodes(context):
    """Return the IK node and, with ``sim:=true``, the sim, else the servo driver."""
    arguments = {name: LaunchConfiguration(name).perform(context) for name in (
        'namespace', 'params_file', 'port', 'calibration_file', 'urdf_file', 'xacro_args',
        'robot_description_topic', 'tip_frame')}
    arguments['namespace'] = arguments['namespace'].strip('/')
    use_sim_time = IfCondition(LaunchConfiguration('use_sim_time')).evaluate(context)
    ik_node = full_node_name(arguments['namespace'], 'two_bone_ik')
    description = description_parameters(
        arguments['urdf_file'], arguments['xacro_args'], arguments['robot_description_topic'])
    driven = (_sim_node(arguments, ik_node, use_sim_time)
              if IfCondition(LaunchConfiguration('sim')).evaluate(context)
              else _servo_node(arguments, use_sim_time))
    return [Node(
        package=PACKAGE,
        executable='two_bone_ik_node',
        name='two_bone_ik',
        remappings=list(TF_REMAPPINGS),
        namespace=arguments['namespace'],
        parameters=[*ik_node_parameters(arguments['params_file'], _default_params(),
                                        bool(description), ik_node), given_parameters(
            robot_description=description.get('robot_description'),
            robot_description_topic=description.get('robot_description_topic'),
            tip_frame=arguments['tip_frame'] or None, use_sim_time=use_sim_time)],
        output='screen',
        on_exit=end_launch_on_exit('two_bone_ik_node'),
    ), driven]


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=_default_params(),
            description='Parameters YAML with a two_bone_ik section (the SO-101 arm), a '
                        'two_bone_ik_servo section (feetech, the joints) and a two_bone_ik_sim '
                        'section.'),
        *declare_arguments('namespace'),
        DeclareLaunchArgument(
            'port', default_value='',
            description='Serial device of the servo bus, e.g. /dev/ttyACM0; empty keeps the '
                        'params file value.'),
        DeclareLaunchArgument(
            'calibration_file', default_value='',
            description="The arm's LeRobot calibration JSON (lerobot-calibrate writes it); "
                        'needed to drive the servos.'),
        DeclareLaunchArgument(
            'sim', default_value='false', choices=['true', 'false'],
            description='Start the MuJoCo sim of the arm instead of the servo driver.'),
        DeclareLaunchArgument(
            'rviz', default_value='false', choices=['true', 'false'],
            description='Also start robot_state_publisher (on joint_states) and rviz2 with '
                        'the arm description.'),
        DeclareLaunchArgument(
            'rviz_config', default_value=os.path.join(share, 'rviz', 'two_bone_ik.rviz'),
            description='RViz config file (with rviz:=true).'),
        *declare_arguments('urdf_file', 'xacro_args', 'robot_description_topic', 'tip_frame',
                           'use_sim_time'),
        OpaqueFunction(function=_nodes),
        include_launch_file(
            'display.launch.py', condition=IfCondition(LaunchConfiguration('rviz')),
            **forward_arguments('params_file', 'urdf_file', 'xacro_args',
                                'robot_description_topic', 'namespace', 'rviz_config',
                                'use_sim_time'),
            joint_states='joint_states', base_frame='', rviz='true'),
    ])
