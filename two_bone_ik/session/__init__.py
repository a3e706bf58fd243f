"""The IK node's decisions for one arm, without ROS: target -> solution -> what to publish.

:class:`ArmSession` is the entry point (see :mod:`two_bone_ik.session.arm_session`); the node
(:mod:`two_bone_ik.nodes.ik_node`) only converts messages to and from it. While a planned motion
streams, a new target is planned at the next command period (only the newest waiting one),
so its ``motion_remaining`` is an estimate from the state when it came.
"""

from two_bone_ik.session.arm_session import ArmChange, ArmSession, Picture

__all__ = ['ArmChange', 'ArmSession', 'Picture']
