"""Console-script entry points: each node's holds Ctrl-C back from its first instruction."""

import signal

from two_bone_ik.nodes import hold_interrupts


def ik_node() -> int:
    """``two_bone_ik_node``: the IK node."""
    hold_interrupts()
    from two_bone_ik.nodes.ik_node import main
    return main()


def sim_node() -> int:
    """``two_bone_ik_sim``: the MuJoCo-simulated arm."""
    hold_interrupts()
    from two_bone_ik.nodes.sim_node import main
    return main()


def servo_node() -> int:
    """``two_bone_ik_servo``: the serial servo driver."""
    hold_interrupts()
    from two_bone_ik.nodes.servo_node import main
    return main()


def urdf_command() -> int:
    """``two_bone_ik_urdf``: print the arm's URDF; Ctrl-C ends it as any tool, quietly."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    from two_bone_ik.nodes.urdf_command import main
    return main()
