"""``two_bone_ik_urdf``: print the URDF of the arm a params file describes.

A command-line tool (no ROS needed) over :func:`two_bone_ik.arm.urdf_export.arm_urdf` (two
joints) and :func:`~two_bone_ik.arm.urdf_export.desktop_urdf` (3 to 5 joint names)::

    two_bone_ik_urdf --params-file config/two_bone_ik.yaml > arm.urdf
    two_bone_ik_urdf --params-file config/two_arms.yaml --node-name /left_arm/two_bone_ik
    two_bone_ik_urdf --ros2-control gazebo -o arm.urdf   # with the <ros2_control> block
"""

import argparse
import os
from pathlib import Path
import sys
from typing import Optional, Sequence

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_config import arm_config_from_mapping, DesktopConfig
from two_bone_ik.arm.params_file import check_command_line, load_arm_config
from two_bone_ik.arm.params_file import read_params_file
from two_bone_ik.arm.urdf_export import (
    arm_urdf, DEFAULT_LINEAR_DENSITY, desktop_urdf, ROS2_CONTROL_HARDWARE)
from two_bone_ik.common.config_error import ConfigError

#: The controllers YAML shipped in ``config/`` (share/two_bone_ik/config once installed).
CONTROLLERS_FILE = 'ros2_controllers.yaml'


def _warn(line: str) -> None:
    print(f'two_bone_ik_urdf: warning: {line}', file=sys.stderr)


def default_controllers_file() -> str:
    """Return the absolute path of the shipped controllers YAML.

    The installed one (``share/two_bone_ik/config``, found through the ament index) when the
    package is installed, else the one in the source tree this module runs from.
    """
    try:
        from ament_index_python.packages import get_package_share_directory
        path = Path(get_package_share_directory('two_bone_ik')) / 'config' / CONTROLLERS_FILE
        if path.is_file():
            return str(path)
    except (ImportError, LookupError, OSError):  # no ament index, or not installed there
        pass
    return str(Path(__file__).resolve().parents[2] / 'config' / CONTROLLERS_FILE)


def controller_joints(path: str) -> dict:
    """Return ``{controller: joints}`` of the controllers a controllers YAML configures.

    Raises
    ------
    ParamsFileError
        If the file cannot be read or is not a ROS params file.
    """
    return {key: [str(joint) for joint in values['joints']]
            for key, values in read_params_file(path) if isinstance(values.get('joints'), list)}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='two_bone_ik_urdf',
        description='Print the URDF of the arm described by a two_bone_ik parameters file '
                    '(for robot_state_publisher, RViz, Gazebo or MuJoCo).')
    parser.add_argument('--params-file', metavar='YAML',
                        help='ROS parameters file of the IK node (default: the default arm)')
    parser.add_argument('--node-name', default='/two_bone_ik',
                        help='fully qualified name of the IK node whose parameters to read, '
                             'e.g. /left_arm/two_bone_ik; its sections are matched as rcl '
                             'does (default: %(default)s)')
    parser.add_argument('--robot-name', default='two_bone_arm',
                        help='<robot name> (default: %(default)s)')
    parser.add_argument('--link-radius', type=float,
                        help='link radius, m (default: 0.04 per metre of reach, at most 0.02)')
    parser.add_argument('--linear-density', type=float, default=DEFAULT_LINEAR_DENSITY,
                        help='link mass per length, kg/m (default: %(default)s)')
    parser.add_argument('--no-mujoco-extension', action='store_true',
                        help='leave out the <mujoco> block that the MuJoCo URDF importer reads')
    parser.add_argument('--ros2-control', choices=sorted(ROS2_CONTROL_HARDWARE),
                        help='add the <ros2_control> block: mock_components/GenericSystem '
                             '(mock) or gz_ros2_control/GazeboSimSystem with the '
                             'gz_ros2_control-system plugin (gazebo)')
    parser.add_argument('--controllers-file', metavar='YAML',
                        help='with --ros2-control gazebo: the controllers YAML the plugin loads '
                             '(default: the installed config/ros2_controllers.yaml)')
    parser.add_argument('-o', '--output', metavar='FILE',
                        help='write to FILE instead of standard output')
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line entry point ``two_bone_ik_urdf``; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    controllers_file = None
    if args.ros2_control == 'gazebo':
        controllers_file = os.path.abspath(args.controllers_file or default_controllers_file())
    elif args.controllers_file:
        parser.error('--controllers-file is only used with --ros2-control gazebo')
    try:
        check_command_line(sys.argv if argv is None else argv)
        if args.params_file:
            config = load_arm_config(args.params_file, node_name=args.node_name, warn=_warn,
                                     build=arm_config_from_mapping)
        else:
            config = ArmConfig()
        write = desktop_urdf if isinstance(config, DesktopConfig) else arm_urdf
        text = write(config, robot_name=args.robot_name, link_radius=args.link_radius,
                     linear_density=args.linear_density,
                     mujoco_extension=not args.no_mujoco_extension,
                     ros2_control=args.ros2_control, controllers_file=controllers_file)
        if controllers_file:
            for controller, joints in controller_joints(controllers_file).items():
                if sorted(joints) != sorted(config.joint_names):
                    _warn(f'{controllers_file}: {controller} controls '
                          f"{', '.join(joints) or 'no joints'}, but the arm's joints are "
                          f"{', '.join(config.joint_names)}")
    except (ConfigError, ValueError, OSError) as exc:
        print(f'two_bone_ik_urdf: error: {exc}', file=sys.stderr)
        return 1
    if args.output:
        try:
            with open(args.output, 'w', encoding='utf-8') as stream:
                stream.write(text)
        except OSError as exc:
            print(f'two_bone_ik_urdf: error: {exc}', file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
