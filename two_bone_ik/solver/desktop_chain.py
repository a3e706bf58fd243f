"""The real chain's tool point, fast: every joint turned about its own z (math and numpy).

:func:`~two_bone_ik.solver.chain_kinematics.chain_pose` walks a URDF chain as written (a fixed
rotation, then a turn about any axis, per joint) and gives every joint's axis and origin too.
The exactness correction of a desktop arm needs only the tool point, twice per target, so
:class:`FoldedChain` rewrites the chain once: each joint's frame turned so that its axis is z
(the turn folded into the fixed rotations before and after it), and the point is carried from
the tool back to the base, one ``s_i + G_i Rz(q_i) p`` per joint. The same kinematics to
rounding (the tests compare the two); several times faster in plain Python.
"""

import math
from typing import Sequence, Tuple

import numpy as np

from two_bone_ik.solver.chain_kinematics import apply, multiply, Rotation, Segment, transpose
from two_bone_ik.solver.chain_kinematics import Vector

_IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def _z_onto(axis: Vector) -> Rotation:
    """Return a rotation whose third column is the unit ``axis`` (row-major)."""
    x, y, z = axis
    helper = (0.0, 0.0, 1.0) if abs(z) < 0.9 else (1.0, 0.0, 0.0)
    ux, uy, uz = (helper[1] * z - helper[2] * y, helper[2] * x - helper[0] * z,
                  helper[0] * y - helper[1] * x)
    norm = math.sqrt(ux * ux + uy * uy + uz * uz)
    ux, uy, uz = ux / norm, uy / norm, uz / norm
    vx, vy, vz = y * uz - z * uy, z * ux - x * uz, x * uy - y * ux
    return (ux, vx, x, uy, vy, y, uz, vz, z)


class FoldedChain:
    """A chain's tool point as a function of its readings (see the module docstring).

    Parameters
    ----------
    segments : sequence of Segment
        The chain's moving joints (:mod:`~two_bone_ik.solver.chain_kinematics`).
    tail : (rotation, translation)
        From the last moving joint's frame to the tip frame.
    """

    def __init__(self, segments: Sequence[Segment], tail: Tuple[Rotation, Vector]):
        folded = []
        before = _IDENTITY
        for fixed, offset, axis in segments:
            turn = _z_onto(axis)
            back = transpose(before)
            folded.append((multiply(multiply(back, fixed), turn), apply(back, offset)))
            before = turn
        #: Per joint (G_i row-major, s_i): the point before joint i is s_i + G_i Rz(q_i) p.
        self.joints = tuple(folded)
        #: The tool point in the last joint's folded frame, m.
        self.tool = apply(transpose(before), tail[1])
        self._unrolled = self.joints[:4]

    def point4(self, r0: float, r1: float, r2: float, r3: float, last=None) -> Vector:
        """:meth:`point` of the first four joints' readings (rad), unrolled: the hot path.

        The quick correction's tool point (yaw, pair, pitch; ``last`` the tool point carried
        back through the roll). The tests compare it with :meth:`point`.
        """
        x, y, z = self.tool if last is None else last
        cos, sin = math.cos, math.sin
        (g0, g1, g2, g3, g4, g5, g6, g7, g8), (s0, s1, s2) = self._unrolled[3]
        c, s = cos(r3), sin(r3)
        x, y = c * x - s * y, s * x + c * y
        x, y, z = (g0 * x + g1 * y + g2 * z + s0, g3 * x + g4 * y + g5 * z + s1,
                   g6 * x + g7 * y + g8 * z + s2)
        (g0, g1, g2, g3, g4, g5, g6, g7, g8), (s0, s1, s2) = self._unrolled[2]
        c, s = cos(r2), sin(r2)
        x, y = c * x - s * y, s * x + c * y
        x, y, z = (g0 * x + g1 * y + g2 * z + s0, g3 * x + g4 * y + g5 * z + s1,
                   g6 * x + g7 * y + g8 * z + s2)
        (g0, g1, g2, g3, g4, g5, g6, g7, g8), (s0, s1, s2) = self._unrolled[1]
        c, s = cos(r1), sin(r1)
        x, y = c * x - s * y, s * x + c * y
        x, y, z = (g0 * x + g1 * y + g2 * z + s0, g3 * x + g4 * y + g5 * z + s1,
                   g6 * x + g7 * y + g8 * z + s2)
        (g0, g1, g2, g3, g4, g5, g6, g7, g8), (s0, s1, s2) = self._unrolled[0]
        c, s = cos(r0), sin(r0)
        x, y = c * x - s * y, s * x + c * y
        return (g0 * x + g1 * y + g2 * z + s0, g3 * x + g4 * y + g5 * z + s1,
                g6 * x + g7 * y + g8 * z + s2)

    def point(self, readings: Sequence[float], last=None) -> Vector:
        """Return the tool point in the base frame (m) at ``readings`` (rad), in chain order.

        ``last``, when given, is the tool point carried back through the joints after
        ``readings`` (from :meth:`carried`): ``readings`` then hold only the first ones.
        """
        return self.carried(readings, 0, last)

    def carried(self, readings: Sequence[float], start: int, last=None) -> Vector:
        """Return the tool point (m) carried back to the frame before joint ``start``.

        Through the joints ``start`` to ``start + len(readings) - 1`` at ``readings`` (rad);
        ``last``: the point after those joints (default: the tool point, for the last ones).
        """
        cos, sin = math.cos, math.sin
        x, y, z = self.tool if last is None else last
        joints = self.joints
        for offset in range(len(readings) - 1, -1, -1):
            angle = readings[offset]
            c, s = cos(angle), sin(angle)
            x, y = c * x - s * y, s * x + c * y
            (g0, g1, g2, g3, g4, g5, g6, g7, g8), (s0, s1, s2) = joints[start + offset]
            x, y, z = (g0 * x + g1 * y + g2 * z + s0, g3 * x + g4 * y + g5 * z + s1,
                       g6 * x + g7 * y + g8 * z + s2)
        return x, y, z

    def points(self, readings: np.ndarray, last=None, start: int = 0) -> np.ndarray:
        """Return :meth:`carried` of many poses: readings (n, k) rad, ``last`` (n, 3); (n, 3) m.

        From the base (``start`` 0) unless ``start`` is given.
        """
        readings = np.asarray(readings, dtype=float)
        count, joints = readings.shape
        p = np.broadcast_to(np.asarray(self.tool), (count, 3)) if last is None else last
        x, y, z = p[:, 0], p[:, 1], p[:, 2]
        for offset in range(joints - 1, -1, -1):
            c, s = np.cos(readings[:, offset]), np.sin(readings[:, offset])
            x, y = c * x - s * y, s * x + c * y
            (g0, g1, g2, g3, g4, g5, g6, g7, g8), (s0, s1, s2) = self.joints[start + offset]
            x, y, z = (g0 * x + g1 * y + g2 * z + s0, g3 * x + g4 * y + g5 * z + s1,
                       g6 * x + g7 * y + g8 * z + s2)
        return np.stack((x, y, z), axis=1)
