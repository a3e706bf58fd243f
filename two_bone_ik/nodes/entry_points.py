"""Console-script entry points: Ctrl-C is quiet from the first instruction on.

Importing a node module takes a while (rclpy, the message packages, numpy). A Ctrl-C or SIGINT
in that time used to print a ``KeyboardInterrupt`` traceback from deep inside an import. This
module imports nothing heavy: it installs a SIGINT handler as soon as it is imported, then
imports the node lazily. Until :func:`mark_rclpy_up` is called the handler ends the process at
once, quietly, with exit code 0 (nothing has been started that needs tearing down); after it,
the handler does nothing and rclpy's own handler (which chains to this one) shuts the node down.
"""

import os
import signal

_rclpy_up = []


def _quiet_interrupt(signum, frame) -> None:
    if not _rclpy_up:
        os._exit(0)


def install_quiet_interrupt() -> None:
    """Make SIGINT end the process quietly until rclpy is up (idempotent)."""
    if signal.getsignal(signal.SIGINT) is not _quiet_interrupt:
        signal.signal(signal.SIGINT, _quiet_interrupt)


def mark_rclpy_up() -> None:
    """From now on SIGINT is rclpy's to handle (a clean shutdown of the spinning node)."""
    _rclpy_up.append(True)


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
