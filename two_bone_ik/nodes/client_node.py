"""The ROS side both command-line clients share (``two_bone_ik_target``, ``two_bone_ik_teleop``).

A node of the tool's own in a context of its own, spun by hand on a monotonic deadline; the
IK node's messages read into the ROS-free :mod:`two_bone_ik.client` types; Ctrl-C as an
ordinary ``KeyboardInterrupt`` (the tools restore what they changed and exit quietly).
"""

import os
import signal
import sys
import time
from typing import Any, Callable, List, Optional, Sequence, Tuple, Type

from diagnostic_msgs.msg import DiagnosticStatus
import rclpy
from rclpy.context import Context
from rclpy.exceptions import InvalidNamespaceException
from rclpy.executors import SingleThreadedExecutor
from rclpy.impl.implementation_singleton import rclpy_implementation
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions
from rclpy.utilities import remove_ros_args
from rclpy.validate_namespace import validate_namespace
from sensor_msgs.msg import JointState

from two_bone_ik.client.ik_answer import answer_from_status, EXIT_INTERRUPTED, EXIT_NO_ANSWER
from two_bone_ik.client.ik_answer import IkAnswer, JointPositions
from two_bone_ik.client.motion_answer import motion_answer_from_status, MotionAnswer
from two_bone_ik.nodes import interrupt_held
from two_bone_ik.nodes.node_runner import rcl_error_text


class ClientError(RuntimeError):
    """The tool cannot talk to ROS as asked (e.g. an invalid namespace); one line."""


def _exit_on_signal(signum, frame) -> None:
    raise SystemExit(128 + signum)


def interrupts_raise() -> None:
    """Make Ctrl-C raise ``KeyboardInterrupt``, SIGTERM and SIGHUP ``SystemExit``.

    Whatever the process's start-up plumbing set before (a node's entry point holds SIGINT
    back or quiets it), a tool must unwind on a signal: send its zero twist, restore the
    terminal.
    """
    signal.signal(signal.SIGTERM, _exit_on_signal)
    signal.signal(signal.SIGHUP, _exit_on_signal)
    # A Ctrl-C held back so far (pending, or noted by the hold's handler) arrives now, as a
    # KeyboardInterrupt raised here: call this inside the tool's ``try``. Unblocking a pending
    # one under Python's handler would raise it at whatever bytecode runs next, which may be a
    # callback whose exceptions Python ignores (the interrupt is then lost).
    held = interrupt_held()
    if held:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a pending one is discarded on unblock
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if held:
        raise KeyboardInterrupt


def _ros_arguments_error(error: RuntimeError) -> ClientError:
    if isinstance(error, rclpy_implementation.UnknownROSArgsError):
        return ClientError(f"unknown ROS arguments {error} (the tool's own options go before "
                           '--ros-args)')
    return ClientError(rcl_error_text(error))


def split_arguments(argv: Optional[Sequence[str]]) -> Tuple[List[str], List[str]]:
    """Return (the tool's arguments without the program name, the full list for rclpy).

    Raises
    ------
    ClientError
        If rcl cannot parse the ROS arguments (after ``--ros-args``).
    """
    full = list(sys.argv if argv is None else [sys.argv[0]] + list(argv))
    try:
        return remove_ros_args(args=full)[1:], full
    except RuntimeError as error:  # rclpy's RCLInvalidROSArgsError, UnknownROSArgsError
        raise _ros_arguments_error(error) from None


def _checked_namespace(namespace: str) -> str:
    """Return ``namespace`` made absolute; ClientError if it is no valid ROS namespace."""
    absolute = namespace if namespace.startswith('/') or not namespace else '/' + namespace
    try:
        validate_namespace(absolute or '/')
    except InvalidNamespaceException as error:
        reason = str(error).splitlines()[0].rstrip(':')
        raise ClientError(f'invalid namespace {namespace!r}: {reason}') from None
    return absolute


def answer_of(msg: DiagnosticStatus) -> IkAnswer:
    """Return the :class:`IkAnswer` an ``ik_status`` message says."""
    level = msg.level if isinstance(msg.level, int) else int.from_bytes(msg.level, 'little')
    return answer_from_status(level, msg.message, {kv.key: kv.value for kv in msg.values})


def motion_answer_of(msg: DiagnosticStatus) -> MotionAnswer:
    """Return the :class:`MotionAnswer` a ``motion_status`` message says."""
    return motion_answer_from_status(msg.message, {kv.key: kv.value for kv in msg.values})


def joint_positions(msg: JointState) -> JointPositions:
    """Return the names and positions of a ``joint_commands`` message."""
    return JointPositions(tuple(msg.name), tuple(float(p) for p in msg.position))


class ClientNode:
    """A tool's rclpy node, in a context and executor of its own.

    Parameters
    ----------
    name : str
        Node name; the process id is appended, so that several tools can run at once.
    namespace : str
        The IK node's namespace: the tool's relative topic names resolve in it.
    ros_args : sequence of str
        The command line for ``rclpy.init`` (``--ros-args`` remappings apply).

    Raises
    ------
    ClientError
        If the namespace is not a valid ROS namespace, or rcl refuses the ROS arguments.
        (Checked before the node exists: rclpy warns when a node fails half-made.)
    """

    def __init__(self, name: str, namespace: str, ros_args: Sequence[str]):
        namespace = _checked_namespace(namespace)
        self.context = Context()
        try:
            rclpy.init(args=list(ros_args), context=self.context,
                       signal_handler_options=SignalHandlerOptions.NO)
        except RuntimeError as error:  # rcl refuses the ROS arguments
            raise _ros_arguments_error(error) from None
        self.node = Node(f'{name}_{os.getpid()}', namespace=namespace, context=self.context,
                         start_parameter_services=False)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def spin_until(self, predicate: Callable[[], Any], deadline: float) -> bool:
        """Spin until ``predicate()`` holds or ``time.monotonic()`` passes ``deadline``.

        Returns whether it holds. Never sleeps past the deadline by more than 50 ms.
        """
        while True:
            if predicate():
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0.0:
                return bool(predicate())
            self.executor.spin_once(timeout_sec=min(remaining, 0.05))

    def spin_pending(self, rounds: int = 20) -> None:
        """Handle the messages that have arrived (at most ``rounds`` callbacks), not waiting."""
        for _ in range(rounds):
            self.executor.spin_once(timeout_sec=0.0)

    def close(self) -> None:
        """Destroy the node and shut its context down."""
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)


def run_client(prog: str, argv: Optional[Sequence[str]], parse: Callable[[List[str]], Any],
               run: Callable[[Any, List[str]], int],
               errors: Tuple[Type[BaseException], ...] = (),
               interrupted: Tuple[int, str] = (EXIT_INTERRUPTED, 'interrupted')) -> int:
    """Run a client's ``main``: signals, ROS arguments, its arguments, then ``run``.

    Parameters
    ----------
    prog : str
        The tool's name, starting its error lines.
    argv : sequence of str or None
        The command line without the program name (default ``sys.argv[1:]``).
    parse : callable
        The tool's own arguments (ROS arguments removed) -> what ``run`` takes; exits with 2
        on a command line it cannot use (argparse's way).
    run : callable
        ``run(arguments, ros_args)`` -> exit status.
    errors : tuple of exception types
        Besides :class:`ClientError`, what ends the tool with one line and
        :data:`EXIT_NO_ANSWER` (2).
    interrupted : (int, str)
        Exit status and line (none if empty) after a Ctrl-C that ``run`` did not handle.
    """
    try:
        interrupts_raise()
        own, ros_args = split_arguments(argv)
        return run(parse(own), ros_args)
    except (ClientError,) + tuple(errors) as error:
        print(f'{prog}: {error}', file=sys.stderr, flush=True)
        return EXIT_NO_ANSWER
    except KeyboardInterrupt:
        code, line = interrupted
        if line:
            print(f'{prog}: {line}', file=sys.stderr, flush=True)
        return code
