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
- :func:`ik_node_parameters`: the IK node's ``parameters=`` when the arm comes from a URDF file,
  without the default params file's geometry (which the URDF replaces, and the node would warn
  about as if the user had given it).
- :func:`servo_overrides`: the servo driver's ``port`` and ``calibration_file`` overrides, and
  the refusal of a launch whose driver would have no calibration for a joint.

A launch argument that cannot be used raises :class:`LaunchArgumentError` from the launch file's
``OpaqueFunction``: ``ros2 launch`` prints ``Caught exception in launch (see debug for
traceback): <the message>`` and exits with code 1.
"""

import os
from typing import Any, Callable, Dict, List, Union

from two_bone_ik.arm.config import GEOMETRY_PARAMETERS
from two_bone_ik.arm.params_file import parameters_for_node


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
        Whether ``urdf_file`` was given, so the arm comes from a URDF.
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
