"""The rclpy shells: one module per executable, the shared parameter schema and entry points.

A node's process holds Ctrl-C back from its first instruction until the node spins (see
:func:`two_bone_ik.nodes.node_runner.run_node`), so that none lands inside an import or a
half-built node.
"""

import signal
import sys

_held = []  # the SIGINTs Python's handler took while held back


def hold_interrupts() -> None:
    """Hold Ctrl-C back: block SIGINT in this thread and the threads it starts from now on.

    A thread started before may still take one (numpy's, say); Python's handler, which runs
    in this thread whichever took it, only notes it then. rclpy's handler chains to it later.
    """
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, lambda signum, frame: _held.append(signum))


def interrupt_held() -> bool:
    """Whether a Ctrl-C came while held back (blocked and pending, or noted)."""
    return bool(_held) or signal.SIGINT in signal.sigpending()


if sys.argv[:1] == ['-m']:
    # ``python -m two_bone_ik.nodes.<node>``: Python is still looking for the node's module.
    hold_interrupts()
