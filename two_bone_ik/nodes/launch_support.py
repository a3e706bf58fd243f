"""What the launch files in ``launch/`` decide, in plain Python they import.

``launch`` and ``launch_ros`` come with a ROS distro, not from PyPI: this module imports them
only inside the function that builds a launch action, so the decisions can be tested without
them.

- :func:`end_launch_on_exit`: a node of this package that exits ends the launch (the others
  would command nothing, or nothing would obey them); when it exits with an error, ``ros2
  launch`` exits with an error too. ``LaunchService.run()`` (ros2/launch, Jazzy) returns 0 after
  a ``Shutdown`` action, whatever ended the nodes; it returns 1 when an exception escapes an
  event handler ("Caught exception in launch (see debug for traceback): ..."), so a nonzero exit
  is reported by raising :class:`RequiredNodeFailed` from the ``on_exit`` handler.
- :func:`ik_node_parameters`: the IK node's ``parameters=`` when the arm comes from a URDF,
  without the default params file's geometry (which the URDF replaces, and the node would warn
  about as if the user had given it).
- :data:`SHARED_ARGUMENTS`, :func:`declare_arguments`, :func:`forward_arguments`,
  :func:`include_launch_file`: the launch arguments several files declare, with one default and
  description each, and the include of another launch file with the values handed on to it.
- :func:`given_parameters`: a node's parameter overrides, only those given, text as text.
- :func:`description_parameters`: ``robot_description`` (a URDF file, or a ``.xacro`` expanded
  with xacro) or ``robot_description_topic``, whichever the arguments give.
- :func:`command_outputs`: the IK node's command outputs (``joint_commands``, a position or a
  trajectory controller) for ``output``, ``position_controller`` and ``trajectory_controller``.
- :func:`written_description`: the URDF ``two_bone_ik_urdf`` writes from the IK node's section
  of a params file, as a substitution.
- :func:`servo_overrides`: the servo driver's ``port`` and ``calibration_file`` overrides, and
  the refusal of a launch whose driver would have no calibration for a joint.

A launch argument that cannot be used (two that exclude each other, a .xacro that does not
expand) raises :class:`LaunchArgumentError` or
:class:`~two_bone_ik.arm.description_file.DescriptionFileError` from the launch file's
``OpaqueFunction``: ``ros2 launch`` prints ``Caught exception in launch (see debug for
traceback): <the message>`` and exits with code 1.
"""

import os
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union

from two_bone_ik.arm.config import GEOMETRY_PARAMETERS
from two_bone_ik.arm.description_file import read_description_file
from two_bone_ik.arm.params_file import parameters_for_node

#: tf2 publishes and listens on the absolute /tf and /tf_static; relative names give each
#: namespace (each arm) a TF tree of its own, and are the same topics without a namespace. For
#: robot_state_publisher and the IK node alike (the IK node's tf2 listener turns targets from
#: other frames into base_frame), so both see the same tree.
TF_REMAPPINGS = (('/tf', 'tf'), ('/tf_static', 'tf_static'))


#: This package's name, where launch finds its executables.
PACKAGE = 'two_bone_ik'


class RequiredNodeFailed(RuntimeError):
    """A node the launch needs exited with an error: the launch ends with an error too."""


class LaunchArgumentError(ValueError):
    """Launch arguments that cannot be used (together); the message is one line."""


def end_launch_on_exit(executable: str) -> Callable[[Any, Any], List[Any]]:
    """Return an ``on_exit`` handler for a node of ``executable`` that the launch needs.

    Parameters
    ----------
    executable : str
        The node's executable, for the messages.

    Returns
    -------
    callable
        ``handler(event, context)`` for ``launch_ros.actions.Node(on_exit=...)``: on any exit
        code but 0 (a node that cannot start exits 2, one killed by a signal has a negative
        code) it raises :class:`RequiredNodeFailed`, which ends the launch with exit code 1; on
        exit code 0 it returns a ``launch.actions.Shutdown`` (the launch ends, as Ctrl-C ends
        it), or nothing when the launch is ending already.
    """
    def handler(event, context) -> List[Any]:
        code = event.returncode
        if code != 0:
            raise RequiredNodeFailed(
                f'{executable} exited with code {code} (its own line above says why): the '
                'launch ends with an error')
        if context.is_shutdown:
            return []
        from launch.actions import Shutdown
        return [Shutdown(reason=f'{executable} exited')]
    return handler


def _same_file(first: str, second: str) -> bool:
    return os.path.realpath(first) == os.path.realpath(second)


def ik_node_parameters(params_file: str, default_params_file: str, urdf_given: bool,
                       node_name: str) -> List[Union[str, Dict[str, Any]]]:
    """Return what the IK node gets from its params file, as ``Node(parameters=[...])`` items.

    Parameters
    ----------
    params_file : str
        The launch's ``params_file``.
    default_params_file : str
        The launch file's default for it (the installed ``config/two_bone_ik.yaml``).
    urdf_given : bool
        Whether the arm comes from a URDF (``urdf_file`` or ``robot_description_topic`` given).
    node_name : str
        The IK node's full name (``/<namespace>/two_bone_ik``), whose section is read.

    Returns
    -------
    list
        ``[params_file]``, unless the arm comes from a URDF and ``params_file`` is the default
        one: then the default file's section for the node without the geometry parameters
        (:data:`~two_bone_ik.arm.config.GEOMETRY_PARAMETERS`), as a dict of plain
        YAML values. A params file the user gives is passed whole, so the node warns about
        geometry in it.
    """
    if not (urdf_given and _same_file(params_file, default_params_file)):
        return [params_file]
    values = parameters_for_node(params_file, node_name).values
    # launch_ros writes the dict to a params file with yaml.dump: lists, not tuples.
    return [{name: list(value) if isinstance(value, tuple) else value
             for name, value in values.items() if name not in GEOMETRY_PARAMETERS}]


def full_node_name(namespace: str, name: str) -> str:
    """Return the full name of node ``name`` in ``namespace`` (``'left_arm'``, ``'/a/b'``, ``''``).

    The key its section of a params file is matched against, e.g. ``/left_arm/two_bone_ik``.
    """
    namespace = namespace.strip('/')
    return f'/{namespace}/{name}' if namespace else f'/{name}'


class LaunchArgument(NamedTuple):
    """A launch argument's default, description and choices (None: any value)."""

    default: str
    description: str
    choices: Optional[Tuple[str, ...]] = None


#: Launch arguments with the same meaning in every launch file that declares them.
SHARED_ARGUMENTS = {
    'namespace': LaunchArgument(
        '', 'Namespace of the nodes and their topics, e.g. left_arm.'),
    'elbow': LaunchArgument(
        '', 'Elbow branch (up, down or nearest); empty keeps the params file value.',
        ('', 'up', 'down', 'nearest')),
    'urdf_file': LaunchArgument(
        '', 'URDF file of the arm, or a .xacro file (expanded with xacro_args): it becomes '
            'robot_description; empty: the arm of params_file.'),
    'xacro_args': LaunchArgument(
        '', "Arguments of a .xacro urdf_file as on xacro's command line, e.g. "
            "'prefix:=left_ length:=0.3'."),
    'robot_description_topic': LaunchArgument(
        '', 'Topic on which a robot_state_publisher that runs already publishes the URDF '
            '(usually robot_description): the IK node takes the arm from it; empty: none.'),
    'base_frame': LaunchArgument(
        '', 'Frame the targets are in, where the arm of a URDF starts (e.g. base_link); empty '
            'keeps the params file value.'),
    'tip_frame': LaunchArgument(
        '', 'URDF link whose origin is the tip (e.g. tool0); empty keeps the params file value '
            '(empty there: the end of the chain).'),
    'position_controller': LaunchArgument(
        '', 'Name of the position controller to command (<name>/commands, '
            'Float64MultiArray) instead of joint_commands; empty: see output.'),
    'trajectory_controller': LaunchArgument(
        '', 'Name of the joint_trajectory_controller to command (<name>/joint_trajectory) '
            'instead of joint_commands; empty: see output.'),
    'use_sim_time': LaunchArgument(
        'false', 'Every node started uses the time on /clock (from a simulator) instead of '
                 'the system clock.', ('true', 'false')),
}


def declare_arguments(*names: str) -> List[Any]:
    """Return a ``DeclareLaunchArgument`` for each of ``names``, from :data:`SHARED_ARGUMENTS`."""
    from launch.actions import DeclareLaunchArgument
    return [DeclareLaunchArgument(
        name, default_value=SHARED_ARGUMENTS[name].default,
        description=SHARED_ARGUMENTS[name].description,
        **({'choices': list(SHARED_ARGUMENTS[name].choices)}
           if SHARED_ARGUMENTS[name].choices else {})) for name in names]


def forward_arguments(*names: str) -> Dict[str, Any]:
    """Return ``{name: LaunchConfiguration(name)}``: this launch's values, for an include."""
    from launch.substitutions import LaunchConfiguration
    return {name: LaunchConfiguration(name) for name in names}


def include_launch_file(file_name: str, condition: Any = None, **arguments: Any) -> Any:
    """Return an include of a launch file of the including file's folder, in a scope of its own.

    Parameters
    ----------
    file_name : str
        A launch file beside the including one, e.g. ``'two_bone_ik.launch.py'``.
    condition : launch.Condition, optional
        When to include it (e.g. ``IfCondition(LaunchConfiguration('sim'))``).
    **arguments
        Every argument the included file declares, so none given on the command line reaches
        it unseen by ``--show-args`` (see :func:`forward_arguments`).

    Returns
    -------
    launch.actions.GroupAction
        The ``IncludeLaunchDescription`` in a group: its arguments end with it.
    """
    from launch.actions import GroupAction, IncludeLaunchDescription
    from launch.launch_description_sources import PythonLaunchDescriptionSource
    from launch.substitutions import ThisLaunchFileDir
    source = PythonLaunchDescriptionSource([ThisLaunchFileDir(), '/', file_name])
    return GroupAction([IncludeLaunchDescription(source, launch_arguments=arguments.items())],
                       condition=condition)


def given_parameters(**values: Any) -> Dict[str, Any]:
    """Return the parameter overrides actually given (the values that are not None).

    Text stays text (``ParameterValue(value_type=str)``): launch_ros reads a plain string as
    YAML, so ``base_frame:=0`` would become an integer and ``on`` a boolean.
    """
    from launch_ros.parameter_descriptions import ParameterValue
    return {name: ParameterValue(value, value_type=str) if isinstance(value, str) else value
            for name, value in values.items() if value is not None}


def description_parameters(urdf_file: str, xacro_args: str,
                           robot_description_topic: str) -> Dict[str, str]:
    """Return where the IK node's arm comes from, as parameter overrides.

    Parameters
    ----------
    urdf_file : str
        A URDF file, or a ``.xacro`` file to expand ('' for none).
    xacro_args : str
        Its xacro arguments, ``'name:=value ...'`` ('' for none).
    robot_description_topic : str
        The topic a running robot_state_publisher publishes the URDF on ('' for none).

    Returns
    -------
    dict
        ``{'robot_description': <URDF text>}``, ``{'robot_description_topic': <topic>}``, or
        ``{}`` when neither is given (the params file decides).

    Raises
    ------
    LaunchArgumentError
        If both ``urdf_file`` and ``robot_description_topic`` are given, or ``xacro_args``
        without ``urdf_file``.
    DescriptionFileError
        If the file cannot be read or expanded (see
        :func:`~two_bone_ik.arm.description_file.read_description_file`).
    """
    if urdf_file and robot_description_topic:
        raise LaunchArgumentError(
            f'urdf_file ({urdf_file}) and robot_description_topic ({robot_description_topic}) '
            'are both given: the arm comes from one of them')
    if xacro_args and not urdf_file:
        raise LaunchArgumentError(f'xacro_args ({xacro_args}) is given without urdf_file')
    if urdf_file:
        return {'robot_description': read_description_file(urdf_file, xacro_args)}
    if robot_description_topic:
        return {'robot_description_topic': robot_description_topic}
    return {}


def sim_description_parameters(urdf_file: str, xacro_args: str,
                               robot_description_topic: str) -> Dict[str, str]:
    """Return the simulated arm's ``robot_description`` override: the URDF of ``urdf_file``.

    The sim builds its arm once, at start, from a parameter: it cannot wait for a topic. With
    ``robot_description_topic`` (the IK node's), the sim still needs the same arm as a file.

    Returns
    -------
    dict
        ``{'robot_description': <URDF text>}``, or ``{}`` without ``urdf_file`` (the arm of the
        params file).

    Raises
    ------
    LaunchArgumentError
        If ``robot_description_topic`` is given without ``urdf_file``, or ``xacro_args``
        without ``urdf_file``.
    DescriptionFileError
        If the file cannot be read or expanded.
    """
    if robot_description_topic and not urdf_file:
        raise LaunchArgumentError(
            f'robot_description_topic ({robot_description_topic}) is given without urdf_file: '
            'the simulated arm is built from a file at start (give the same arm as urdf_file)')
    return description_parameters(urdf_file, xacro_args, '')


class CommandOutputs(NamedTuple):
    """The IK node's command outputs: its parameters of the same names."""

    publish_joint_commands: bool
    position_controller: str
    trajectory_controller: str

    @property
    def output(self) -> str:
        """The ``output`` these are (a key of :data:`OUTPUTS`), for one way out."""
        if self.position_controller:
            return 'position'
        return 'trajectory' if self.trajectory_controller else 'joint_commands'


#: ``output`` -> the IK node's outputs. The controller names, used unless
#: ``position_controller`` / ``trajectory_controller`` names another, are those of
#: config/ros2_controllers.yaml (and ros2_control_demos).
OUTPUTS = {
    'joint_commands': CommandOutputs(True, '', ''),
    'position': CommandOutputs(False, 'forward_position_controller', ''),
    'trajectory': CommandOutputs(False, '', 'joint_trajectory_controller'),
}


def command_outputs(output: str, position_controller: str = '',
                    trajectory_controller: str = '') -> Optional[CommandOutputs]:
    """Return the IK node's outputs for the launch arguments: exactly one way out, or None.

    Parameters
    ----------
    output : str
        ``joint_commands``, ``position``, ``trajectory`` (a key of :data:`OUTPUTS`), or ''
        (decided by the controller named, if any).
    position_controller : str
        The position controller's name ('' for ``forward_position_controller`` with
        ``output`` ``position``); alone, it implies ``position``.
    trajectory_controller : str
        The trajectory controller's name ('' for ``joint_trajectory_controller`` with
        ``output`` ``trajectory``); alone, it implies ``trajectory``.

    Returns
    -------
    CommandOutputs or None
        None when nothing is given: the params file decides.

    Raises
    ------
    LaunchArgumentError
        If ``output`` is unknown, both controllers are named, or a controller is named that
        ``output`` does not use.
    """
    named = {'position': position_controller, 'trajectory': trajectory_controller}
    given = [kind for kind, name in named.items() if name]
    if len(given) > 1:
        raise LaunchArgumentError(
            f'position_controller ({position_controller}) and trajectory_controller '
            f'({trajectory_controller}) are both given: the IK node commands one controller')
    if output and output not in OUTPUTS:
        raise LaunchArgumentError(
            f"output {output!r} is none of {', '.join(OUTPUTS)}")
    if given and output and output != given[0]:
        commands = 'no controller' if output == 'joint_commands' else f'a {output} controller'
        raise LaunchArgumentError(
            f'{given[0]}_controller ({named[given[0]]}) is given with output:={output}, which '
            f'commands {commands}')
    output = output or (given[0] if given else '')
    if not output:
        return None
    default = OUTPUTS[output]
    if output == 'position':
        return default._replace(position_controller=position_controller or
                                default.position_controller)
    if output == 'trajectory':
        return default._replace(trajectory_controller=trajectory_controller or
                                default.trajectory_controller)
    return default


def written_description(params_file: str, node_name: str) -> Any:
    """Return the URDF of the arm the IK node's section of ``params_file`` describes.

    Parameters
    ----------
    params_file : str
        The launch's ``params_file``.
    node_name : str
        The IK node's full name (``/<namespace>/two_bone_ik``), whose section is read.

    Returns
    -------
    launch.substitutions.Command
        ``two_bone_ik_urdf --params-file <params_file> --node-name <node_name>``, run when the
        launch performs it; its output is the URDF text. The program is found in the package's
        ``lib/two_bone_ik``, where a colcon install puts it (not on ``PATH``).
    """
    from launch.substitutions import Command
    from launch_ros.substitutions import ExecutableInPackage
    return Command([ExecutableInPackage('two_bone_ik_urdf', PACKAGE), ' --params-file ',
                    params_file, ' --node-name ', node_name])


def servo_overrides(params_file: str, node_name: str, port: str,
                    calibration_file: str) -> Dict[str, str]:
    """Return the servo driver's ``port`` and ``calibration_file`` overrides, those given.

    Parameters
    ----------
    params_file : str
        The launch's ``params_file``, with the driver's section.
    node_name : str
        The driver's full name (``/<namespace>/two_bone_ik_servo``), whose section is read.
    port : str
        The ``port`` argument ('' keeps the params file's).
    calibration_file : str
        The ``calibration_file`` argument ('' keeps the params file's); a leading ``~`` is the
        user's home (a shell does not expand it after ``:=``).

    Returns
    -------
    dict
        ``{'port': ..., 'calibration_file': ...}``, each only when given.

    Raises
    ------
    LaunchArgumentError
        If no calibration file is given, here or in the params file, while a joint of the
        driver's ``joints`` has no ``servos.<joint>.channel`` of its own: the driver could not
        calibrate it (it would exit naming only the channel).
    """
    overrides = {}
    if port:
        overrides['port'] = port
    if calibration_file:
        overrides['calibration_file'] = os.path.expanduser(calibration_file)
        return overrides
    values = parameters_for_node(params_file, node_name).values
    joints = values.get('joints', ())
    uncalibrated = [joint for joint in joints if f'servos.{joint}.channel' not in values]
    if not values.get('calibration_file') and uncalibrated:
        raise LaunchArgumentError(
            'calibration_file is not given: the servo driver takes the ids and calibration of '
            f"{', '.join(uncalibrated)} from LeRobot's calibration file of the arm: give "
            'calibration_file:=<the JSON lerobot-calibrate wrote, under '
            '~/.cache/huggingface/lerobot/calibration/robots/<robot>/>')
    return overrides
