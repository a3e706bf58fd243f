"""Bring up an SO-101: the IK node on its geometry, and its Feetech servos or a MuJoCo sim of it.

Arguments (``ros2 launch two_bone_ik so101.launch.py --show-args`` lists them; docs/so101.md
explains the arm):

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
  ``joint_states``) and rviz2, showing the same description.
- ``rviz_config``: RViz config; default the installed ``rviz/two_bone_ik.rviz``.
- ``urdf_file``: your own SO-101 URDF instead of the description written from ``params_file``:
  the IK node, the sim and robot_state_publisher use it (give ``tip_frame`` too).
- ``robot_description_topic``: the IK node takes the URDF from this topic (a
  robot_state_publisher's, e.g. ``robot_description``; with ``rviz:=true`` the one started
  here publishes it).
- ``tip_frame``: the URDF link whose origin is the tool point in ``urdf_file`` or the topic's
  URDF, e.g. ``gripper_frame_link`` in the SO-ARM100 project's URDF.
- ``use_sim_time``: ``true`` gives the IK node, the driver and the sim the time on ``/clock``
  (the sim publishes none).

The description written from ``params_file`` is ``two_bone_ik_urdf``'s (links ``base_link``,
``turntable``, ``link1``, ``link2``, ``wrist``, ``hand``, ``tool``, and the gripper's ``jaw``);
the sim and robot_state_publisher get the same text. When a node of this package exits the
launch ends; when one cannot start (a missing ``port`` or calibration file: exit code 2), or
the arguments cannot be used together, ``ros2 launch`` exits with code 1.
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
from launch.substitutions import Command
from launch.substitutions import FileContent
from launch.substitutions import LaunchConfiguration
from launch.substitutions import ThisLaunchFileDir
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import ExecutableInPackage
from two_bone_ik.launch_support import end_launch_on_exit, ik_node_parameters
from two_bone_ik.launch_support import LaunchArgumentError, servo_overrides

PACKAGE = 'two_bone_ik'

#: The tool link of the URDF ``two_bone_ik_urdf`` writes (the sim's tip there).
GENERATED_TIP = 'tool'


def _include(file_name, condition=None, **arguments):
    """Include a launch file of this folder, in a scope of its own, with ``arguments``."""
    source = PythonLaunchDescriptionSource([ThisLaunchFileDir(), '/', file_name])
    return GroupAction([IncludeLaunchDescription(source, launch_arguments=arguments.items())],
                       condition=condition)


def _given(**values):
    """Return the parameters whose value is not None: the overrides actually given."""
    return {name: value for name, value in values.items() if value is not None}


def _default_params():
    return os.path.join(get_package_share_directory(PACKAGE), 'config', 'so101.yaml')


def _full_name(namespace, name):
    return f'/{namespace}/{name}' if namespace else f'/{name}'


def _written_description(params_file, ik_node):
    """Return the URDF ``two_bone_ik_urdf`` writes from the IK node's section, as display does."""
    # A colcon install puts executables in lib/two_bone_ik, which is not on PATH.
    return ParameterValue(Command([ExecutableInPackage('two_bone_ik_urdf', PACKAGE),
                                   ' --params-file ', params_file, ' --node-name ', ik_node]),
                          value_type=str)


def _nodes(context):
    """Return the IK node and, with ``sim:=true``, the sim, else the servo driver."""
    namespace, params_file, port, calibration_file, urdf_file, topic, tip_frame = (
        LaunchConfiguration(name).perform(context) for name in (
            'namespace', 'params_file', 'port', 'calibration_file', 'urdf_file',
            'robot_description_topic', 'tip_frame'))
    sim = IfCondition(LaunchConfiguration('sim')).evaluate(context)
    use_sim_time = IfCondition(LaunchConfiguration('use_sim_time')).evaluate(context)
    namespace = namespace.strip('/')
    ik_node = _full_name(namespace, 'two_bone_ik')
    if urdf_file and topic:
        raise LaunchArgumentError(
            f'urdf_file ({urdf_file}) and robot_description_topic ({topic}) are both given: '
            'the arm comes from one of them')
    if sim and topic and not urdf_file:
        raise LaunchArgumentError(
            f'robot_description_topic ({topic}) is given with sim:=true: the sim builds its arm '
            'at start from a file (give urdf_file, or neither for the description of '
            'params_file)')
    description = (ParameterValue(FileContent(urdf_file), value_type=str) if urdf_file
                   else None)
    nodes = [Node(
        package=PACKAGE,
        executable='two_bone_ik_node',
        name='two_bone_ik',
        namespace=namespace,
        parameters=[*ik_node_parameters(params_file, _default_params(),
                                        bool(urdf_file or topic), ik_node), _given(
            robot_description=description, robot_description_topic=topic or None,
            tip_frame=tip_frame or None, use_sim_time=use_sim_time)],
        output='screen',
        on_exit=end_launch_on_exit('two_bone_ik_node'),
    )]
    if sim:
        nodes.append(Node(
            package=PACKAGE,
            executable='two_bone_ik_sim',
            name='two_bone_ik_sim',
            namespace=namespace,
            parameters=[params_file, _given(
                robot_description=description or _written_description(params_file, ik_node),
                tip_frame=tip_frame if urdf_file else GENERATED_TIP,
                use_sim_time=use_sim_time)],
            output='screen',
            # Without it the IK node commands nothing: end the launch (with an error if it
            # failed).
            on_exit=end_launch_on_exit('two_bone_ik_sim'),
        ))
    else:
        overrides = servo_overrides(params_file, _full_name(namespace, 'two_bone_ik_servo'),
                                    port, calibration_file)
        nodes.append(Node(
            package=PACKAGE,
            executable='two_bone_ik_servo',
            name='two_bone_ik_servo',
            namespace=namespace,
            parameters=[params_file, _given(
                port=overrides.get('port'), calibration_file=overrides.get('calibration_file'),
                use_sim_time=use_sim_time)],
            output='screen',
            on_exit=end_launch_on_exit('two_bone_ik_servo'),
        ))
    return nodes


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=_default_params(),
            description='Parameters YAML with a two_bone_ik section (the SO-101 arm), a '
                        'two_bone_ik_servo section (feetech, the joints) and a two_bone_ik_sim '
                        'section.'),
        DeclareLaunchArgument(
            'namespace', default_value='',
            description='Namespace for the nodes and their topics, e.g. so101.'),
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
        DeclareLaunchArgument(
            'urdf_file', default_value='',
            description='Your own SO-101 URDF instead of the description written from '
                        'params_file (give tip_frame too).'),
        DeclareLaunchArgument(
            'robot_description_topic', default_value='',
            description='Topic the IK node takes the URDF from (robot_description: the '
                        'robot_state_publisher of rviz:=true publishes it); empty: none.'),
        DeclareLaunchArgument(
            'tip_frame', default_value='',
            description='The tool point link of urdf_file or of the topic URDF, e.g. '
                        'gripper_frame_link.'),
        DeclareLaunchArgument(
            'use_sim_time', default_value='false', choices=['true', 'false'],
            description='The IK node, the driver and the sim use the time on /clock.'),
        OpaqueFunction(function=_nodes),
        _include('display.launch.py', condition=IfCondition(LaunchConfiguration('rviz')),
                 params_file=LaunchConfiguration('params_file'),
                 urdf_file=LaunchConfiguration('urdf_file'),
                 namespace=LaunchConfiguration('namespace'), joint_states='joint_states',
                 rviz='true', rviz_config=LaunchConfiguration('rviz_config')),
    ])
