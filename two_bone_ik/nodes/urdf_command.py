"""``two_bone_ik_urdf``: print the URDF of the arm a params file describes.

A command-line tool (no ROS needed) over :func:`two_bone_ik.arm.urdf_export.arm_urdf`::

    two_bone_ik_urdf --params-file config/two_bone_ik.yaml > arm.urdf
    two_bone_ik_urdf --params-file config/two_arms.yaml --node-name /left_arm/two_bone_ik
"""

import argparse
import sys
from typing import Optional, Sequence

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.params_file import load_arm_config
from two_bone_ik.arm.urdf_export import arm_urdf, DEFAULT_LINEAR_DENSITY
from two_bone_ik.config_error import ConfigError


def _warn(line: str) -> None:
    print(f'two_bone_ik_urdf: warning: {line}', file=sys.stderr)


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
    parser.add_argument('-o', '--output', metavar='FILE',
                        help='write to FILE instead of standard output')
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line entry point ``two_bone_ik_urdf``; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.params_file:
            config = load_arm_config(args.params_file, node_name=args.node_name, warn=_warn)
        else:
            config = ArmConfig()
        text = arm_urdf(config, robot_name=args.robot_name, link_radius=args.link_radius,
                        linear_density=args.linear_density,
                        mujoco_extension=not args.no_mujoco_extension)
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
