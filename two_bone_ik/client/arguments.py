"""The command lines of ``two_bone_ik_target`` and ``two_bone_ik_teleop`` (ROS-free).

Each parser's ``-h`` explains the whole tool: what it sends, what it prints or shows, the
conventions and the exit codes. ROS arguments (``--ros-args ...``) are taken out before these
parsers see the command line (the shells pass them to rclpy).
"""

import argparse
import math
import sys
from typing import List, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.client.teleop_keys import key_help

TARGET_DESCRIPTION = """\
Send the two_bone_ik IK node one target (or a timed path of targets) and print its answer.

Publishes geometry_msgs/PoseStamped on <namespace>/target_pose once the node subscribes to it,
then prints what the node answered: the status (code, name, level) and message from
<namespace>/ik_status, the tip error (m), and the joint command from <namespace>/joint_commands
(for a planned motion, its last command, at rest). Then it waits (--wait) for what
<namespace>/motion_status says about the target and prints one line: `arrived: tool point N mm
from the target (measured)`, or why not (the arm did not follow, missed the goal, nobody
publishes joint_states). No ROS distro is needed: it runs from the virtualenv
(.venv-jazzy/bin/two_bone_ik_target) as well as with `ros2 run two_bone_ik
two_bone_ik_target`."""

TARGET_EPILOG = """\
orientation (--pitch, --roll, and a path's pitch,roll columns), for a desktop arm whose node
has use_orientation true: yaw about the base z axis toward the target's azimuth atan2(y, x),
then pitch about the arm's horizontal axis (positive tilts the approach up, toward +z), then
roll about the approach direction (the tool's x axis); R = Rz(yaw) Ry(-pitch) Rx(roll).
Giving one of --pitch/--roll sets the other to 0. Without either, the orientation is the
identity quaternion (a planar two-link arm ignores it).

path file (--path): CSV, one target per line, t,x,y,z or t,x,y,z,pitch,roll: t in seconds
from the start (never decreasing), x y z in metres, pitch and roll in radians. An optional
first line names the columns (t,x,y,z[,pitch,roll]); blank lines and lines starting with #
are skipped. Each target is published at its time; the answers are tied to the targets in
order, and a table follows: per target its time, position, status and tip error, then the
count per status and the worst tip error.

exit status:
  0  the target was reached (REACHED 0, ELBOW_FLIPPED 4, APPROACH_ADJUSTED 14) and the arm
     arrived (motion_status ARRIVED 21; with --no-wait: reached);
     with --path: every target was reached
  1  answered, but not reached (out of reach, joint limited, wrong frame, ...);
     with --path: some target not reached or not answered
  2  nobody answered within --timeout (no node subscribes to the target topic, or no
     ik_status came), or the command line or path file cannot be used
  3  reached, but the arm did not arrive: NOT_FOLLOWING 22, GOAL_MISSED 23,
     NOT_MONITORED 24 (nobody publishes joint_states), or no verdict within --wait

ROS arguments after --ros-args go to rclpy (remappings, ...).

examples:
  two_bone_ik_target 0.4 0.2 0
  two_bone_ik_target -0.3 0.1 0 --namespace left_arm --timeout 10
  two_bone_ik_target 0.2 0.0 0.15 --pitch -0.5 --roll 0
  two_bone_ik_target --path square.csv
  two_bone_ik_target 0.4 0.2 0 --ros-args -r target_pose:=goal"""

TELEOP_DESCRIPTION = """\
Jog the tool point of the arm the two_bone_ik IK node drives, from the keyboard.

Publishes geometry_msgs/TwistStamped on <namespace>/target_twist (linear m/s, angular rad/s,
in --frame, or the node's base_frame when empty) while a motion key is held: at --rate, until
no key came for a short while (0.6 s after a first press, covering the terminal's delay
before it repeats a held key; 0.15 s once it repeats), then one zero twist. Shows the speed,
the twist being sent and the node's latest status from <namespace>/ik_status (name and
message) and <namespace>/reachable. Needs a terminal; no ROS distro."""

TELEOP_EPILOG_HEAD = """\
Every quit (q, Esc, Ctrl-C) sends a zero twist first and restores the terminal.

keys:
"""

#: Default seconds to wait for the node and its answer.
DEFAULT_TIMEOUT = 5.0
#: Default seconds to wait for the arm to arrive, after a planned motion's end.
DEFAULT_WAIT = 5.0


class TargetArguments(NamedTuple):
    """What ``two_bone_ik_target`` was asked.

    ``position`` (m) or ``path`` is set, not both. ``pitch`` and ``roll`` (rad) are None
    without an orientation. ``timeout`` and ``wait`` in seconds; ``wait`` None: do not wait
    for arrival (``--no-wait``, and always with a path).
    """

    position: Optional[Tuple[float, float, float]]
    path: Optional[str]
    frame: str
    namespace: str
    pitch: Optional[float]
    roll: Optional[float]
    timeout: float
    wait: Optional[float] = DEFAULT_WAIT


class TeleopArguments(NamedTuple):
    """What ``two_bone_ik_teleop`` was asked (speeds in m/s and rad/s, rate in Hz)."""

    frame: str
    namespace: str
    speed: float
    angular_speed: float
    rate: float


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f'{text.strip()!r} is not a finite number')
    return value


def _numbers_as_values(argv: Sequence[str]) -> List[str]:
    """Return ``argv`` with every negative number argparse would take for an option shielded.

    argparse reads ``-0.5`` as a value but ``-1e-3`` or ``-.5e2`` as an unknown option; a
    leading space (which ``float`` ignores) keeps any number a value.
    """
    shielded = []
    for arg in argv:
        try:
            float(arg)
            is_number = arg.startswith('-')
        except ValueError:
            is_number = False
        shielded.append(' ' + arg if is_number else arg)
    return shielded


def _positive(text: str) -> float:
    value = _finite(text)
    if value <= 0.0:
        raise argparse.ArgumentTypeError(f'{text.strip()!r} is not a positive number')
    return value


def _add_node_options(parser: argparse.ArgumentParser) -> None:
    """Add the options both tools share: which node, which frame."""
    parser.add_argument('-n', '--namespace', default='', metavar='NS',
                        help="the IK node's namespace, e.g. left_arm (default: none)")
    parser.add_argument('-f', '--frame', default='', metavar='F',
                        help='header.frame_id of what is sent (default: empty, which the node '
                             'reads as its base_frame)')


def target_parser() -> argparse.ArgumentParser:
    """Return the parser of ``two_bone_ik_target``."""
    parser = argparse.ArgumentParser(
        prog='two_bone_ik_target', description=TARGET_DESCRIPTION, epilog=TARGET_EPILOG,
        usage='%(prog)s X Y Z [options] [--ros-args ...]\n'
              '       %(prog)s --path FILE [options] [--ros-args ...]',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('position', nargs='*', type=_finite, metavar='X Y Z',
                        help='the target, metres in --frame')
    parser.add_argument('--path', metavar='FILE',
                        help='stream the timed targets of a CSV file instead (see below)')
    _add_node_options(parser)
    parser.add_argument('--pitch', type=_finite, metavar='P',
                        help='approach pitch, rad (desktop arms; see "orientation" below)')
    parser.add_argument('--roll', type=_finite, metavar='R',
                        help='roll about the approach, rad (desktop arms)')
    parser.add_argument('-t', '--timeout', type=_positive, default=DEFAULT_TIMEOUT, metavar='S',
                        help='seconds to wait for the node, then for its answer (from the '
                             "target, or a path's last target; a planned motion adds its "
                             'duration) (default: %(default)g)')
    arrival = parser.add_mutually_exclusive_group()
    arrival.add_argument('-w', '--wait', type=_positive, metavar='S',
                         help="seconds to wait for motion_status's verdict on the target "
                              'after the answer (a planned motion adds its duration) '
                              f'(default: {DEFAULT_WAIT:g})')
    arrival.add_argument('--no-wait', action='store_true',
                         help='do not wait for arrival: exit 0 once the target is reached')
    return parser


def parse_target_arguments(argv: Optional[Sequence[str]] = None) -> TargetArguments:
    """Parse ``two_bone_ik_target``'s command line (``sys.argv[1:]`` by default).

    Exits with status 2 and a usage line for a command line it cannot use (argparse's way).
    """
    parser = target_parser()
    args = parser.parse_args(_numbers_as_values(sys.argv[1:] if argv is None else argv))
    if args.path is None and len(args.position) != 3:
        parser.error(f'expected the target X Y Z (or --path FILE), got {len(args.position)} '
                     'numbers')
    if args.path is not None and args.position:
        parser.error('give either X Y Z or --path FILE, not both')
    if args.path is not None and (args.no_wait or args.wait is not None):
        parser.error('--wait and --no-wait are for one target; a path does not wait for '
                     'arrival')
    if args.path is not None and (args.pitch is not None or args.roll is not None):
        parser.error("--pitch and --roll are for one target; a path's lines carry their own "
                     '(t,x,y,z,pitch,roll)')
    pitch, roll = args.pitch, args.roll
    if (pitch is None) != (roll is None):
        pitch, roll = pitch or 0.0, roll or 0.0
    position = tuple(args.position) if args.path is None else None
    wait = None if args.no_wait or args.path is not None else (
        DEFAULT_WAIT if args.wait is None else args.wait)
    return TargetArguments(position, args.path, args.frame, args.namespace, pitch, roll,
                           args.timeout, wait)


def teleop_parser() -> argparse.ArgumentParser:
    """Return the parser of ``two_bone_ik_teleop``."""
    parser = argparse.ArgumentParser(
        prog='two_bone_ik_teleop', description=TELEOP_DESCRIPTION,
        epilog=TELEOP_EPILOG_HEAD + key_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_node_options(parser)
    parser.add_argument('--speed', type=_positive, default=0.02, metavar='V',
                        help='starting linear speed, m/s (default: %(default)g)')
    parser.add_argument('--angular-speed', type=_positive, default=0.2, metavar='W',
                        help='starting angular speed, rad/s (default: %(default)g)')
    parser.add_argument('--rate', type=_positive, default=20.0, metavar='HZ',
                        help='twists per second while a key is held (default: %(default)g)')
    return parser


def parse_teleop_arguments(argv: Optional[Sequence[str]] = None) -> TeleopArguments:
    """Parse ``two_bone_ik_teleop``'s command line (``sys.argv[1:]`` by default)."""
    args = teleop_parser().parse_args(
        _numbers_as_values(sys.argv[1:] if argv is None else argv))
    return TeleopArguments(args.frame, args.namespace, args.speed, args.angular_speed,
                           args.rate)
