"""Console-script entry points: Ctrl-C is quiet from the first instruction on.

Importing a node module takes a while (rclpy, the message packages, numpy), and so does building
the node. A Ctrl-C or SIGINT in that time used to print a ``KeyboardInterrupt`` traceback from
deep inside an import, or an rclpy error from a half-built executor. This module imports nothing
heavy: it installs a SIGINT handler as soon as it is imported, then imports the node lazily.
What the handler does depends on the start-up phase (see :func:`set_phase`):

- ``'importing'``: end the process at once, quietly, with exit code 0 (nothing has been started
  that needs tearing down);
- ``'starting'`` (rclpy is initialised without its signal handlers, the node is being built):
  remember the interrupt; :func:`two_bone_ik.nodes.node_runner.run_node` then tears the node
  down and exits 0 instead of spinning;
- ``'spinning'``: nothing; rclpy's own handler (installed just before spinning, it chains to
  this one) shuts the node down.
"""

import os
import signal

_state = {'phase': 'importing', 'interrupted': False}


def _on_sigint(signum, frame) -> None:
    if _state['phase'] == 'importing':
        os._exit(0)
    if _state['phase'] == 'starting':
        _state['interrupted'] = True


def install_quiet_interrupt() -> None:
    """Make SIGINT quiet during start-up (idempotent; see the module docstring)."""
    if signal.getsignal(signal.SIGINT) is not _on_sigint:
        signal.signal(signal.SIGINT, _on_sigint)


def set_phase(phase: str) -> None:
    """Enter start-up phase ``'importing'``, ``'starting'`` or ``'spinning'``."""
    _state['phase'] = phase


def interrupted() -> bool:
    """Whether a SIGINT came while the node was being built."""
    return _state['interrupted']


install_quiet_interrupt()


def ik_node() -> int:
    """``two_bone_ik_node``: the IK node."""
    from two_bone_ik.nodes.ik_node import main
    return main()


def sim_node() -> int:
    """``two_bone_ik_sim``: the MuJoCo-simulated arm."""
    from two_bone_ik.nodes.sim_node import main
    return main()


def servo_node() -> int:
    """``two_bone_ik_servo``: the serial servo driver."""
    from two_bone_ik.nodes.servo_node import main
    return main()


def urdf_command() -> int:
    """``two_bone_ik_urdf``: print the arm's URDF."""
    from two_bone_ik.nodes.urdf_command import main
    return main()
