"""``two_bone_ik_target``: send the IK node a target (or a timed path) and print its answer.

A thin rclpy shell over :mod:`two_bone_ik.client` (the command line, the orientation, the
path file, the answer, the report and the exit codes)::

    two_bone_ik_target 0.4 0.2 0 [--frame F] [--namespace NS] [--pitch P] [--roll R]
    two_bone_ik_target --path targets.csv [--timeout S]

It waits for matched endpoints (the node subscribing to ``target_pose``, publishing
``ik_status``), subscribes before it publishes, and takes the ``ik_status`` messages that
arrive after its first target as the answers to its targets, in order (the node publishes one
per target while a subscriber is matched). Another client sending targets at the same moment
would mix its answers in. For one target it then waits for the ``motion_status`` verdict whose
``target_id`` is its target's stamp (not with a path, nor with ``--no-wait``).
"""

import dataclasses
import sys
import time
from typing import List, Optional, Sequence, Tuple

from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from sensor_msgs.msg import JointState

from two_bone_ik.client.approach import approach_quaternion, IDENTITY
from two_bone_ik.client.arguments import parse_target_arguments, TargetArguments
from two_bone_ik.client.ik_answer import EXIT_NO_ANSWER, IkAnswer, path_exit_code
from two_bone_ik.client.ik_answer import target_exit_code
from two_bone_ik.client.motion_answer import arrival_line, MotionAnswer, MOVING
from two_bone_ik.client.target_path import PathTarget, read_target_path, TargetPathError
from two_bone_ik.client.target_report import format_answer, orientation_note, summary_table
from two_bone_ik.nodes.client_node import answer_of, ClientNode, joint_positions
from two_bone_ik.nodes.client_node import motion_answer_of, run_client
from two_bone_ik.nodes.diagnostics import target_id

PROG = 'two_bone_ik_target'
#: Depth of the answer subscriptions: a planned motion streams a command per period.
ANSWER_DEPTH = 1000


def _tell(line: str) -> None:
    print(f'{PROG}: {line}', file=sys.stderr, flush=True)


def _at_rest(msg: JointState) -> bool:
    """Whether a command is a planned motion's last (velocities given, all zero)."""
    return len(msg.velocity) == len(msg.position) > 0 and not any(msg.velocity)


class TargetSender:
    """The tool's endpoints: target out; ``ik_status``, commands, ``motion_status`` in."""

    def __init__(self, client: ClientNode, frame: str, timeout: float):
        self.client = client
        self.frame = frame
        self.timeout = timeout
        node = client.node
        self.statuses: List[DiagnosticStatus] = []
        self.joints: List[JointState] = []
        # Subscribe first: an answer published right after the target must find us matched.
        self._joints_sub = node.create_subscription(JointState, 'joint_commands',
                                                    self.joints.append, ANSWER_DEPTH)
        self._status_sub = node.create_subscription(DiagnosticStatus, 'ik_status',
                                                    self.statuses.append, ANSWER_DEPTH)
        self.motions: List[DiagnosticStatus] = []
        self._motion_sub = node.create_subscription(DiagnosticStatus, 'motion_status',
                                                    self.motions.append, ANSWER_DEPTH)
        self._target_pub = node.create_publisher(PoseStamped, 'target_pose', 10)

    @property
    def status_topic(self) -> str:
        """The full name of the ``ik_status`` topic."""
        return self._status_sub.topic_name

    def wait_for_node(self, deadline: float) -> Optional[str]:
        """Wait for an IK node's endpoints; return None, or why the tool cannot go on."""
        target_topic = self._target_pub.topic_name
        if not self.client.spin_until(lambda: self._target_pub.get_subscription_count(),
                                      deadline):
            return (f'no node subscribes to {target_topic} (waited {self.timeout:g} s): is the '
                    'IK node running, in this namespace and ROS_DOMAIN_ID?')
        if not self.client.spin_until(lambda: self._status_sub.get_publisher_count(), deadline):
            return (f'something subscribes to {target_topic}, but nothing publishes '
                    f'{self.status_topic} (waited {self.timeout:g} s)')
        return None

    def publish(self, x: float, y: float, z: float, pitch: Optional[float] = None,
                roll: Optional[float] = None) -> str:
        """Publish one target (m; pitch and roll in rad, or None); return its ``target_id``."""
        msg = PoseStamped()
        msg.header.frame_id = self.frame
        msg.header.stamp = self.client.node.get_clock().now().to_msg()
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = x, y, z
        quaternion = IDENTITY if pitch is None else approach_quaternion(x, y, pitch, roll)
        orientation = msg.pose.orientation
        orientation.x, orientation.y, orientation.z, orientation.w = quaternion
        self._target_pub.publish(msg)
        return target_id(msg.header.stamp)

    def arrival(self, wanted: str, first: int, wait: float) -> Tuple[str, bool]:
        """Wait up to ``wait`` s for the verdict about target ``wanted``.

        Returns the line to print, and whether the arm arrived.

        ``first`` is how many ``motion_status`` messages had come before the target. Another
        command's ``MOVING`` after this target's ends the wait: no verdict will come.
        """
        if not self._motion_sub.get_publisher_count():
            return arrival_line(None, wait, unpublished=self._motion_sub.topic_name), False
        found: List[Tuple[Optional[MotionAnswer], Optional[str]]] = []

        def decided() -> bool:
            heard = False
            for answer in map(motion_answer_of, self.motions[first:]):
                if answer.target_id == wanted and answer.final:
                    found.append((answer, None))
                elif answer.target_id == wanted:
                    heard = True
                elif heard and answer.code == MOVING:
                    found.append((None, answer.target_id))
                if found:
                    return True
            return False

        self.client.spin_until(decided, time.monotonic() + wait)
        verdict, other = found[0] if found else (None, None)
        return arrival_line(verdict, wait, other), verdict is not None and verdict.arrived

    def joints_for(self, answer: IkAnswer, first: int) -> Tuple[Optional[JointState], str]:
        """Return the command for an answered target (or None and why), waiting if need be.

        ``first`` is how many commands had come before the target. For a planned motion the
        command is its last, at rest (within its remaining time plus the timeout).
        """
        topic = self._joints_sub.topic_name
        if not answer.commands:
            return None, f'none: the node commands nothing for a {answer.name} target'
        if not self._joints_sub.get_publisher_count():
            return None, f'not known: nothing publishes {topic}'
        wait = self.timeout + (answer.motion_remaining if answer.moving else 0.0)
        found: List[JointState] = []

        def arrived() -> bool:
            for msg in self.joints[first:]:
                if not answer.moving or _at_rest(msg):
                    found.append(msg)
                    return True
            return False

        if self.client.spin_until(arrived, time.monotonic() + wait):
            return found[0], ''
        return None, f'none came on {topic} within {wait:g} s'


def send_target(sender: TargetSender, args: TargetArguments) -> int:
    """Send one target; print the answer; return the exit code."""
    first_status, first_joint = len(sender.statuses), len(sender.joints)
    first_motion = len(sender.motions)
    wanted = sender.publish(*args.position, args.pitch, args.roll)
    if not sender.client.spin_until(lambda: len(sender.statuses) > first_status,
                                    time.monotonic() + args.timeout):
        _tell(f'no answer on {sender.status_topic} within {args.timeout:g} s')
        return EXIT_NO_ANSWER
    status = sender.statuses[first_status]
    answer = answer_of(status)
    joints, note = sender.joints_for(answer, first_joint)
    if joints is not None:
        answer = dataclasses.replace(answer, joints=joint_positions(joints))
    sys.stdout.write(format_answer(answer, note))
    if args.pitch is not None and orientation_note(answer, status.name):
        _tell(orientation_note(answer, status.name))
    if args.wait is None or not answer.commands:
        return target_exit_code(answer)
    # After the motion's last command (joints found at rest), or from the answer on.
    wait = args.wait + (answer.motion_remaining if answer.moving and joints is None else 0.0)
    line, arrived = sender.arrival(wanted, first_motion, wait)
    print(line, flush=True)
    return target_exit_code(answer, arrived)


def send_path(sender: TargetSender, targets: Sequence[PathTarget]) -> int:
    """Stream a path's targets at their times; print the summary table; return the exit code."""
    first = len(sender.statuses)
    start = time.monotonic()
    for target in targets:
        sender.client.spin_until(lambda: False, start + target.time)
        sender.publish(target.x, target.y, target.z, target.pitch, target.roll)
    sender.client.spin_until(lambda: len(sender.statuses) - first >= len(targets),
                             time.monotonic() + sender.timeout)
    answers: List[Optional[IkAnswer]] = [answer_of(msg) for msg in
                                         sender.statuses[first:first + len(targets)]]
    answers += [None] * (len(targets) - len(answers))
    sys.stdout.write(summary_table(targets, answers))
    oriented = [answer for target, answer in zip(targets, answers) if target.pitch is not None]
    notes = [orientation_note(answer, sender.statuses[first].name) for answer in oriented]
    if any(notes):
        _tell(next(note for note in notes if note))
    return path_exit_code(answers)


def _run(args: TargetArguments, ros_args: Sequence[str]) -> int:
    targets = read_target_path(args.path) if args.path is not None else None
    client = ClientNode(PROG, args.namespace, ros_args)
    try:
        sender = TargetSender(client, args.frame, args.timeout)
        problem = sender.wait_for_node(time.monotonic() + args.timeout)
        if problem is not None:
            _tell(problem)
            return EXIT_NO_ANSWER
        if targets is None:
            return send_target(sender, args)
        return send_path(sender, targets)
    finally:
        client.close()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line entry point ``two_bone_ik_target``; returns the exit status."""
    return run_client(PROG, argv, parse_target_arguments, _run, errors=(TargetPathError,))


if __name__ == '__main__':
    sys.exit(main())
