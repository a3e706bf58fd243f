"""The command line of ``two_bone_ik_view`` (ROS-free).

ROS arguments (``--ros-args ...``) are taken out before this parser sees the command line.
"""

import argparse
from pathlib import Path
from typing import List, NamedTuple, Optional, Sequence, Tuple

# The number checks of the other tools' command lines: the same words for the same mistakes.
from two_bone_ik.client.arguments import _finite, _positive

VIEW_DESCRIPTION = """\
Look at an arm in MuJoCo: a window that follows it live, or one rendered picture.

The arm comes from a URDF file (--urdf, chain --base to --tip), from the IK node's params file
(--params-file), or, with neither, from the running IK node (its parameters, read over ROS).
The window is MuJoCo's viewer; it follows the joint positions on <namespace>/joint_states (the
measured arm: the sim's or a real driver's), or <namespace>/joint_commands while no
joint_states come (the IK node alone), and marks <namespace>/target_pose. Closing the window
ends the tool, as Ctrl-C does. With --render it writes one picture from a camera of the model
and exits: no window, no display, and with a file no ROS graph."""

VIEW_EPILOG = """\
cameras (--camera): front_side (in front of the arm, to its right, above it), side (from -y),
top (from above); each frames everything the arm can reach.

exit status:
  0  the window was closed, or the picture written
  2  the arm, the command line or the picture cannot be used; no headless OpenGL for
     --render; no window can open (no display); the IK node did not answer within --timeout

examples:
  two_bone_ik_view --urdf demo/desktop_arm.urdf --base base_link --tip tool
  two_bone_ik_view --params-file config/two_bone_ik.yaml --render arm.png --joints 0.5 -0.8
  two_bone_ik_view                      # the running IK node's arm, following joint_states
  two_bone_ik_view --namespace left_arm --follow joint_commands"""

FOLLOW = ('auto', 'joint_states', 'joint_commands')


class ViewArguments(NamedTuple):
    """What ``two_bone_ik_view`` was asked (see :func:`parse_view_arguments`)."""

    urdf: Optional[Path]
    base: Optional[str]
    tip: Optional[str]
    params_file: Optional[Path]
    node_name: str
    namespace: str
    follow: str
    render: Optional[Path]
    joints: Tuple[float, ...]
    target: Optional[Tuple[float, float, float]]
    camera: str
    size: Tuple[int, int]
    timeout: float


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=VIEW_DESCRIPTION, epilog=VIEW_EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group()
    source.add_argument('--urdf', type=Path, help="the arm's URDF (or .xacro) file")
    source.add_argument('--params-file', type=Path,
                        help="the IK node's ROS params file (the arm its parameters describe)")
    parser.add_argument('--base', help="with --urdf: the chain's root link (default: the "
                        "URDF's root)")
    parser.add_argument('--tip', help="with --urdf: the tool link (default: the chain's one end)")
    parser.add_argument('--node-name', default='two_bone_ik',
                        help='the IK node whose parameters give the arm: its section of '
                        '--params-file, or the running node (default: %(default)s)')
    parser.add_argument('--namespace', default='',
                        help="the IK node's namespace (topics and the running node)")
    parser.add_argument('--follow', choices=FOLLOW, default='auto',
                        help='the topic the window follows (default: %(default)s: joint_states, '
                        'or joint_commands while no joint_states come)')
    parser.add_argument('--render', type=Path, metavar='OUT.png',
                        help='write one picture (PNG) and exit, without a window')
    parser.add_argument('--joints', type=_finite, nargs='+', default=[], metavar='Q',
                        help='joint positions in chain order, rad (then joints off the chain); '
                        'the others 0')
    parser.add_argument('--target', type=_finite, nargs=3, metavar=('X', 'Y', 'Z'),
                        help='mark this target, m in base_frame')
    parser.add_argument('--camera', default='front_side',
                        help='with --render: the camera of the model (default: %(default)s)')
    parser.add_argument('--size', type=int, nargs=2, default=[640, 480], metavar=('W', 'H'),
                        help='with --render: picture width and height, pixels (default: 640 480)')
    parser.add_argument('--timeout', type=_positive, default=10.0,
                        help='seconds to wait for the running IK node (default: %(default)s)')
    return parser


def parse_view_arguments(argv: Sequence[str], prog: str = 'two_bone_ik_view') -> ViewArguments:
    """Return the parsed command line; exits with status 2 and a message on a bad one."""
    parser = _parser(prog)
    args = parser.parse_args(list(argv))
    if (args.base or args.tip) and args.urdf is None:
        parser.error('--base and --tip go with --urdf')
    if args.render is not None and args.render.suffix.lower() != '.png':
        parser.error(f'--render: {args.render} is not a .png file')
    joints: List[float] = list(args.joints)
    return ViewArguments(args.urdf, args.base, args.tip, args.params_file, args.node_name,
                         args.namespace, args.follow, args.render, tuple(joints),
                         tuple(args.target) if args.target else None, args.camera,
                         tuple(args.size), args.timeout)
