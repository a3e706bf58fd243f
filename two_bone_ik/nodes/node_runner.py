"""The process entry point every node shares: start rclpy, spin one node, leave quietly.

:func:`run_node` is what ``main()`` of each node module calls. What it guards against (seen on
Jazzy and Kilted):

- Ctrl-C before the node spins: held back (see :func:`two_bone_ik.nodes.hold_interrupts`), then
  a quiet exit 0: before rclpy starts, or with the built node torn down without spinning.
- Ctrl-C while spinning: rclpy's, so ``spin`` returns at a clean point; a second one while the
  node stops (``ros2 launch`` forwards the terminal's) is ignored. SIGTERM keeps its meaning.
- A params file or an argument rcl cannot use: one line, not rcl's log line or a traceback.
- A params file with no section for the node: a warning listing its keys.
- A signal inside a callback's publish (rcl's ``publisher's context is invalid``): a normal exit.
- A bad parameter: one line naming it, exit code 2 (see :data:`EXIT_BAD_CONFIG`).
"""

import gc
import os
import re
import select
import signal
import socket
import sys
import tempfile
import threading
from typing import Callable, Optional, Sequence

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.signals import install_signal_handlers, SignalHandlerOptions

from two_bone_ik.arm.params_file import check_command_line, parameters_for_node
from two_bone_ik.arm.params_file import params_files_in_arguments, read_params_file
from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.nodes import hold_interrupts, interrupt_held

#: Exit code for a command line or params file that cannot be used, or an invalid parameter.
EXIT_BAD_CONFIG = 2

_C_SOURCE_LOCATION = re.compile(r',? at /\S+:\d+')


def rcl_error_text(error: BaseException) -> str:
    """Return rcl's error message on one line, without the C source locations it appends."""
    return ' '.join(_C_SOURCE_LOCATION.sub('', str(error)).split())


def _init_rclpy(args: Optional[Sequence[str]]) -> Optional[str]:
    """Initialise rclpy; return None, or the reason it refused (its own log line held back).

    rcl logs ``Failed to parse global arguments`` to stderr before raising; stderr is captured
    meanwhile and passed on only if initialisation succeeds.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            # rclpy's signal handlers go in only once the node is built (see run_node).
            rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
            failure = None
        except RuntimeError as error:  # rcl's errors: bad arguments, a params file it refuses
            failure = rcl_error_text(error)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        if failure is None:
            captured.seek(0)
            held = captured.read()
            if held:
                os.write(2, held)
    return failure


def _warn_unmatched_params_files(node: Node, paths: Sequence[str]) -> None:
    name = node.get_fully_qualified_name()
    for path in paths:
        found = parameters_for_node(path, name)
        if not found.matched_keys:
            node.get_logger().warning(found.describe_unmatched(name, [path]))


#: How often the spin's watcher looks at the context, s (the longest a missed shutdown lasts).
SHUTDOWN_POLL = 0.5


def _spin(executor) -> None:
    """Spin until the context shuts down or a Ctrl-C comes, whatever rclpy makes of it.

    rclpy's own ``spin`` waits for good once a wake-up is missed: on Kilted a Ctrl-C landing
    just as the spin began (rclpy wakes the executor before it shuts the context down) left
    the node running (about one start in fifteen), and one in a dozen Ctrl-Cs while spinning
    left the context running (seen on Kilted in a sim node's test). A watcher thread hears
    every SIGINT through Python's wake-up fd (rclpy's handler chains to Python's, which writes
    it from whichever thread took the signal) and hands the spin a task that shuts the context
    down; it looks at the context at least every SHUTDOWN_POLL s too. (A thread, not a spin
    with a timeout: for that rclpy builds a timer on every wake-up.) The shutdown is the spin's
    task, run between callbacks, because on Kilted it destroys the context's nodes: from the
    watcher it closed the servo node's port under its state timer's write (exit code 1).
    """
    context = executor.context
    heard, wakeup = socket.socketpair()
    heard.setblocking(False)
    wakeup.setblocking(False)
    main = threading.current_thread() is threading.main_thread()  # (where Python allows it)
    previous = signal.set_wakeup_fd(wakeup.fileno(), warn_on_full_buffer=False) if main else -1
    stopped = threading.Event()

    def watch() -> None:
        while not stopped.is_set():
            if select.select([heard], [], [], SHUTDOWN_POLL)[0] and \
                    signal.SIGINT in _signals_heard(heard):
                executor.create_task(_shut_down, context)  # (create_task wakes the spin)
            if not context.ok():
                executor.wake()
                return
    watcher = threading.Thread(target=watch, name='shutdown watch', daemon=True)
    watcher.start()
    try:
        while context.ok():
            executor.spin_once()
    finally:
        stopped.set()
        if main:
            signal.set_wakeup_fd(previous)
        wakeup.send(b'\0')  # wakes the watcher's select
        watcher.join()
        heard.close()
        wakeup.close()


def _shut_down(context) -> None:
    """Shut the context down unless something else (rclpy's own SIGINT handler) just did.

    rclpy's check-then-shutdown is not atomic against its C signal handler: the context may be
    shut down between the two, and rcl then raises "rcl_shutdown already called".
    """
    try:
        context.try_shutdown()
    except RuntimeError:
        if context.ok():
            raise


def _signals_heard(heard: socket.socket) -> set:
    """Read what the wake-up fd holds: the numbers of the signals that came."""
    try:
        return set(heard.recv(64))
    except BlockingIOError:
        return set()


def run_node(name: str, make_node: Callable[[], Node],
             args: Optional[Sequence[str]] = None) -> int:
    """Run one node until Ctrl-C, SIGTERM or shutdown; return the process exit code.

    Parameters
    ----------
    name : str
        Prefix of the error lines, e.g. ``'two_bone_ik'``.
    make_node : callable
        Creates the node once rclpy is initialised; raises :class:`ConfigError` (message
        starting with the parameter's name) for a bad configuration.
    args : sequence of str, optional
        Command line for ``rclpy.init`` (default: ``sys.argv``).

    Returns
    -------
    int
        0 after a signal or an external shutdown; :data:`EXIT_BAD_CONFIG` if a params file or
        the command line cannot be used (one line ``<name>: cannot start: <reason>`` on
        stderr). An invalid parameter does not return: it prints ``<name>: invalid parameter
        <message>`` to stderr and ends the process at once with :data:`EXIT_BAD_CONFIG`
        (``os._exit``): on Kilted, destroying a node's services moments after creating them,
        while other participants were being discovered, occasionally deadlocked in the
        middleware, and the same teardown would run at interpreter exit.

    Raises
    ------
    RuntimeError
        An rcl error while the context is still valid (a real failure, not a shutdown race).
    """
    hold_interrupts()  # as the entry points do, for a caller of main() that did not
    if interrupt_held():
        return 0  # Ctrl-C while the node's modules were imported: nothing started yet
    command_line = sys.argv if args is None else args
    params_files = params_files_in_arguments(command_line)
    try:
        check_command_line(command_line)
        for path in params_files:
            read_params_file(path)
    except ConfigError as error:
        print(f'{name}: cannot start: {error}', file=sys.stderr)
        return EXIT_BAD_CONFIG
    failure = _init_rclpy(args)
    if failure is not None:
        print(f'{name}: cannot start: {failure}', file=sys.stderr)
        return EXIT_BAD_CONFIG
    node = None
    executor = None
    try:
        node = make_node()
        _warn_unmatched_params_files(node, params_files)
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        # Ctrl-C is rclpy's from here on (chained to Python's, which only notes it).
        install_signal_handlers(SignalHandlerOptions.ALL)
        # One held back is not let through: on Kilted, rclpy wakes the executor before it
        # shuts the context down, and a spin just begun missed that and waited for good.
        if not interrupt_held():
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            # Start-up objects live for good: keep the garbage collector from rescanning them.
            gc.freeze()
            _spin(executor)
    except ConfigError as error:
        print(f'{name}: invalid parameter {error}', file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(EXIT_BAD_CONFIG)
    except ExternalShutdownException:
        pass
    except RuntimeError:
        # rcl's "context is invalid" from a publish, because a signal shut the context down
        # meanwhile: a normal exit too. With the context still valid it is a real error.
        if rclpy.ok():
            raise
    finally:
        # Stopping now: a repeated Ctrl-C (a terminal's and the one ros2 launch forwards) must
        # not kill the teardown, nor the interpreter's exit, which would restore SIGINT's
        # default action (death by the signal) for a Python handler but leaves an ignored one.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if executor is not None:
            executor.shutdown()
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
        # Let the collector free what start-up froze (the node and everything it holds), so
        # that extension objects (Ruckig's) go before their modules do, as nanobind expects:
        # otherwise it reports them as leaked at exit.
        node = executor = None
        gc.unfreeze()
        gc.collect()
    return 0
