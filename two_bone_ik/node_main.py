"""The process entry point both nodes share: start rclpy, spin one node, leave without a traceback.

:func:`run_node` is what ``main()`` of :mod:`two_bone_ik.ik_node` and
:mod:`two_bone_ik.sim_node` call. It guards against three shutdown problems seen on Jazzy and
Kilted:

- Ctrl-C: Python's default SIGINT handler raises ``KeyboardInterrupt`` wherever the main thread
  happens to be, once inside rclpy's own code (its ``Task`` constructor, whose ``__del__`` then
  printed a traceback). Here SIGINT interrupts only until rclpy is up; after that rclpy's own
  handler shuts the context down and ``spin`` returns at a clean point.
- A SIGINT or SIGTERM that lands while a callback publishes makes the publish raise rcl's
  ``publisher's context is invalid``: once the context is shut down that is a normal exit.
- A bad configuration: one line naming the parameter on stderr, exit code 2, and no teardown of
  the half-started node (see :data:`EXIT_BAD_CONFIG`).
"""

import gc
import os
import signal
import sys
from typing import Callable, Optional, Sequence

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node

from two_bone_ik.arm_config import ArmConfigError

#: Exit code for a command line or params file rcl rejects, or an invalid parameter.
EXIT_BAD_CONFIG = 2


def run_node(name: str, make_node: Callable[[], Node],
             args: Optional[Sequence[str]] = None) -> int:
    """Run one node until Ctrl-C, SIGTERM or shutdown; return the process exit code.

    Parameters
    ----------
    name : str
        Prefix of the error lines, e.g. ``'two_bone_ik'``.
    make_node : callable
        Creates the node once rclpy is initialised; raises :class:`ArmConfigError` (message
        starting with the parameter's name) for a bad configuration.
    args : sequence of str, optional
        Command line for ``rclpy.init`` (default: ``sys.argv``).

    Returns
    -------
    int
        0 after a signal or an external shutdown; :data:`EXIT_BAD_CONFIG` if rcl rejects the
        command line. An invalid parameter does not return: it prints
        ``<name>: invalid parameter <message>`` to stderr and ends the process at once with
        :data:`EXIT_BAD_CONFIG` (``os._exit``): on Kilted, destroying a node's services moments
        after creating them, while other participants were being discovered, occasionally
        deadlocked in the middleware, and the same teardown would run at interpreter exit.

    Raises
    ------
    RuntimeError
        An rcl error while the context is still valid (a real failure, not a shutdown race).
    """
    # rclpy's signal handler chains to the Python handler installed before rclpy.init, so this
    # one runs on every SIGINT; it interrupts only while rclpy is not up yet.
    rclpy_up = []

    def on_sigint(signum, frame):
        if not rclpy_up:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    try:
        rclpy.init(args=args)
        rclpy_up.append(True)
    except RuntimeError as error:  # rcl's errors are RuntimeErrors: bad arguments, params file
        print(f"{name}: cannot start: {' '.join(str(error).split())}", file=sys.stderr)
        return EXIT_BAD_CONFIG
    except KeyboardInterrupt:
        rclpy.try_shutdown()  # in case it came after init, before rclpy_up was set
        return 0
    node = None
    try:
        node = make_node()
        # Start-up objects live for good: keep the garbage collector from rescanning them.
        gc.freeze()
        rclpy.spin(node)
    except ArmConfigError as error:
        print(f'{name}: invalid parameter {error}', file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(EXIT_BAD_CONFIG)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except RuntimeError:
        # rcl's "context is invalid" from a publish, because a signal shut the context down
        # meanwhile: a normal exit too. With the context still valid it is a real error.
        if rclpy.ok():
            raise
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0
