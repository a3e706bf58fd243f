"""Closed-form inverse kinematics for a planar two-link arm, and CCD for longer chains.

This package is the ROS-free core of two_bone_ik: pure functions on floats and numpy arrays.
It imports only ``math``, ``enum``, ``typing`` and ``numpy``. Its modules, one per concern:
``results`` (status codes, result types, the input error), ``validation`` (input checks),
``angles`` (wrapping), ``forward_kinematics`` (``forward``, ``elbow_position``),
``closed_form`` (``solve``), ``limits`` (``JointLimits``, whole-turn representatives),
``limit_box`` (the box of limits as the arm's tip sees it), ``closest_pose`` (how ``solve``
finishes within limits: whole turns, the elbow flip, the closest pose), ``closest_pose_batch``
(its batch twin), ``batch`` (``solve_batch``), ``ccd`` (``solve_ccd``) and ``seek``. Every
public name is re-exported here; the other names of the modules are the package's own.

Conventions
-----------
The arm lives in a plane with axes (u, v); the shoulder joint is at the origin.

* ``q1`` is the angle of link 1 measured from +u toward +v, in radians.
* ``q2`` is the angle of link 2 relative to link 1, same sense, in radians.
* ``elbow='up'`` puts the elbow on the +v side of the line from shoulder to target (q2
  wrapped into [-pi, pi] is ``<= 0``); ``'down'`` mirrors it (``>= 0``); ``'nearest'`` picks
  the branch closest to a previous configuration (``'up'`` when there is none). The branch a
  result reports is that of its pose: by the sign of q2 wrapped into [-pi, pi], the requested
  one for a straight or exactly folded arm.

Unconstrained angles are returned in [-pi, pi] (an unlimited joint too when the other one is
limited). With joint limits, each angle is a whole-turn representative inside its limits: of
several, the one nearest ``previous`` (nearest 0 without it).
"""

from two_bone_ik.solver.angles import wrap_angle, wrap_angles
from two_bone_ik.solver.batch import solve_batch
from two_bone_ik.solver.ccd import solve_ccd
from two_bone_ik.solver.closed_form import solve
from two_bone_ik.solver.forward_kinematics import elbow_position, forward
from two_bone_ik.solver.limits import JointLimits, LIMIT_TOLERANCE
from two_bone_ik.solver.results import (
    CcdSolution,
    IkBatchSolution,
    IkInputError,
    IkSolution,
    IkStatus,
    REACH_TOLERANCE,
)
from two_bone_ik.solver.seek import seek
from two_bone_ik.solver.validation import MAX_JOINT_LIMIT, MAX_MAGNITUDE

__all__ = [
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
]
