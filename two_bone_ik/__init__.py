"""Closed-form inverse kinematics for planar two-link arms, with ROS 2 nodes around it.

The solver's public names are importable from here (``from two_bone_ik import solve``). They
are loaded on first use, so that importing a submodule (e.g. a node's entry point) stays cheap.
"""

_SOLVER_NAMES = (
    'CcdSolution',
    'IkBatchSolution',
    'IkInputError',
    'IkSolution',
    'IkStatus',
    'JointLimits',
    'LIMIT_TOLERANCE',
    'MAX_JOINT_LIMIT',
    'MAX_MAGNITUDE',
    'REACH_TOLERANCE',
    'elbow_position',
    'forward',
    'seek',
    'solve',
    'solve_batch',
    'solve_ccd',
    'wrap_angle',
    'wrap_angles',
)

__all__ = list(_SOLVER_NAMES)


def __getattr__(name):
    if name in _SOLVER_NAMES:
        from two_bone_ik import solver
        return getattr(solver, name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


def __dir__():
    return sorted(list(globals()) + list(_SOLVER_NAMES))
