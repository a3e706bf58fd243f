"""The rclpy shells: one module per executable, the shared parameter schema and entry points.

A node's process holds Ctrl-C back (SIGINT blocked) from its first instruction until the node
spins (see :func:`two_bone_ik.nodes.node_runner.run_node`), so that no ``KeyboardInterrupt``
lands inside an import or a half-built node.
"""

import signal
import sys


def hold_interrupts() -> None:
    """Block SIGINT in this thread, and in the threads it starts, until ``run_node`` spins."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


if sys.argv[:1] == ['-m']:
    # ``python -m two_bone_ik.nodes.<node>``: Python is still looking for the node's module.
    hold_interrupts()
