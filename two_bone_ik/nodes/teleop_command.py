"""``two_bone_ik_teleop``: jog the arm's tool point from the keyboard, in a terminal.

A thin rclpy shell over :mod:`two_bone_ik.client.teleop_keys` (keys to twists, the hold after
a key) and :mod:`two_bone_ik.client.teleop_screen` (the curses screen). It publishes
``geometry_msgs/TwistStamped`` on ``target_twist`` and shows what ``ik_status`` and
``reachable`` say, and the tool point commanded and measured (from ``ik_status`` or
``motion_status``, whichever came last). Every way out (``q``, Esc, Ctrl-C, SIGTERM) sends a
zero twist, waits (briefly) for it to be delivered and restores the terminal.
"""

import curses
import sys
import time
from typing import Callable, Optional, Sequence

from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import TwistStamped
from rclpy.duration import Duration
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import Bool

from two_bone_ik.client.arguments import parse_teleop_arguments, TeleopArguments
from two_bone_ik.client.ik_answer import EXIT_NO_ANSWER, IkAnswer
from two_bone_ik.client.teleop_keys import Jog, Twist, ZERO
from two_bone_ik.client.teleop_screen import screen_lines, Terminal, ToolPoints
from two_bone_ik.nodes.client_node import answer_of, ClientError, ClientNode
from two_bone_ik.nodes.client_node import motion_answer_of, run_client

PROG = 'two_bone_ik_teleop'
#: ``reachable`` is latched by the node: a late subscriber gets the latest.
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: Seconds to wait for the last zero twist to be delivered when quitting.
ZERO_DELIVERY_TIMEOUT = 1.0


class TeleopLink:
    """The tool's endpoints: twists out; the node's statuses and ``reachable`` in."""

    def __init__(self, client: ClientNode, frame: str):
        self.client = client
        self.frame = frame
        self.answer: Optional[IkAnswer] = None
        self.reachable: Optional[bool] = None
        self.points = ToolPoints()
        self.last_twist: Twist = ZERO
        node = client.node
        self._status_sub = node.create_subscription(DiagnosticStatus, 'ik_status',
                                                    self._on_status, 10)
        self._reachable_sub = node.create_subscription(Bool, 'reachable', self._on_reachable,
                                                       LATCHED)
        self._motion_sub = node.create_subscription(DiagnosticStatus, 'motion_status',
                                                    self._on_motion, 10)
        self._twist_pub = node.create_publisher(TwistStamped, 'target_twist', 10)

    @property
    def twist_topic(self) -> str:
        return self._twist_pub.topic_name

    @property
    def status_topic(self) -> str:
        return self._status_sub.topic_name

    def _on_status(self, msg: DiagnosticStatus) -> None:
        answer = self.answer = answer_of(msg)
        self.points = ToolPoints(answer.tool_point, answer.measured_tool_point, answer.arrival)

    def _on_motion(self, msg: DiagnosticStatus) -> None:
        motion = motion_answer_of(msg)
        self.points = ToolPoints(motion.tool_point, motion.measured_tool_point, motion.name)

    def _on_reachable(self, msg: Bool) -> None:
        self.reachable = bool(msg.data)

    def send(self, twist: Twist) -> None:
        """Publish one twist (linear m/s, angular rad/s), stamped now, in ``frame``."""
        msg = TwistStamped()
        msg.header.frame_id = self.frame
        msg.header.stamp = self.client.node.get_clock().now().to_msg()
        (msg.twist.linear.x, msg.twist.linear.y, msg.twist.linear.z,
         msg.twist.angular.x, msg.twist.angular.y, msg.twist.angular.z) = twist
        self._twist_pub.publish(msg)
        self.last_twist = twist

    def send_zero_and_flush(self) -> None:
        """Send a zero twist and wait (at most a second) until subscribers have it."""
        self.send(ZERO)
        self._twist_pub.wait_for_all_acked(Duration(seconds=ZERO_DELIVERY_TIMEOUT))


def _held(jog: Jog):
    return (jog.moving, jog.speed)


def run(terminal: Terminal, link: TeleopLink, jog: Jog, rate: float,
        clock: Callable[[], float] = time.monotonic) -> None:
    """Read keys, send twists at ``rate`` Hz while one is held, redraw; until ``jog.quit``."""
    period = 1.0 / rate
    next_tick = clock()
    while not jog.quit:
        before = _held(jog)
        for name in terminal.keys(max(0.0, next_tick - clock())):
            jog.key(name, clock())
        now = clock()
        if _held(jog) != before:
            next_tick = now  # a new motion or speed goes out at once, then at the rate
        if now >= next_tick:
            twist = jog.twist(now)
            if twist is not None:
                link.send(twist)
            next_tick = max(next_tick + period, now)
        link.client.spin_pending()
        terminal.draw(screen_lines(jog, link.twist_topic, link.status_topic, link.answer,
                                   link.reachable, link.last_twist, terminal.width, link.points))


def _run(args: TeleopArguments, ros_args: Sequence[str]) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(f'{PROG}: needs a terminal (standard input and output are not one)',
              file=sys.stderr)
        return EXIT_NO_ANSWER
    client = ClientNode(PROG, args.namespace, ros_args)
    try:
        link = TeleopLink(client, args.frame)
        try:
            with Terminal() as terminal:
                run(terminal, link, Jog(args.speed, args.angular_speed), args.rate)
        except KeyboardInterrupt:
            pass  # Ctrl-C quits like q; the terminal is restored on the way out
        except curses.error as error:
            raise ClientError(f'cannot use this terminal: {error}') from None
        finally:
            link.send_zero_and_flush()
        print(f'{PROG}: stopped (zero twist sent on {link.twist_topic})')
        return 0
    finally:
        client.close()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line entry point ``two_bone_ik_teleop``; returns the exit status.

    A Ctrl-C before the screen is up ends it quietly with 0, as one afterwards does.
    """
    return run_client(PROG, argv, parse_teleop_arguments, _run, interrupted=(0, ''))


if __name__ == '__main__':
    sys.exit(main())
