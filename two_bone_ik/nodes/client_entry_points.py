"""Console-script entry points of the command-line clients: Ctrl-C while they load is quiet.

Importing a tool (rclpy, the message packages) takes a moment. A Ctrl-C meanwhile ends the
process at once, with exit status 130 and no traceback; nothing has been started that needs
undoing. Once the tool's ``main()`` runs, Ctrl-C is its own (see
:func:`two_bone_ik.nodes.client_node.interrupts_raise`).
"""

import os
import signal

from two_bone_ik.client.ik_answer import EXIT_INTERRUPTED


def _exit_quietly(signum, frame) -> None:
    os._exit(EXIT_INTERRUPTED)


def target_command() -> int:
    """``two_bone_ik_target``: send a target, print the answer."""
    signal.signal(signal.SIGINT, _exit_quietly)
    from two_bone_ik.nodes.target_command import main
    return main()


def teleop_command() -> int:
    """``two_bone_ik_teleop``: jog the tool point from the keyboard."""
    signal.signal(signal.SIGINT, _exit_quietly)
    from two_bone_ik.nodes.teleop_command import main
    return main()


def view_command() -> int:
    """``two_bone_ik_view``: look at an arm in MuJoCo (a window, or one picture)."""
    signal.signal(signal.SIGINT, _exit_quietly)
    from two_bone_ik.nodes.view_command import main
    return main()
