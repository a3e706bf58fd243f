"""Closed-form inverse kinematics for planar two-link arms, with a ROS 2 node around it."""

from two_bone_ik.solver import (
    CcdSolution,
    elbow_position,
    forward,
    IkBatchSolution,
    IkInputError,
    IkSolution,
    IkStatus,
    JointLimits,
    MAX_JOINT_LIMIT,
    MAX_MAGNITUDE,
    seek,
    solve,
    solve_batch,
    solve_ccd,
    wrap_angle,
    wrap_angles,
)

__all__ = [
    'CcdSolution',
    'IkBatchSolution',
    'IkInputError',
    'IkSolution',
    'IkStatus',
    'JointLimits',
    'MAX_JOINT_LIMIT',
    'MAX_MAGNITUDE',
    'elbow_position',
    'forward',
    'seek',
    'solve',
    'solve_batch',
    'solve_ccd',
    'wrap_angle',
    'wrap_angles',
]
