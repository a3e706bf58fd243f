"""Independent forward kinematics for the solver tests (numpy, not the solver's own forward).

Each joint is a rotation and each link a complex number: the tip of a planar chain is the sum
of ``length * exp(i * heading)``, the heading being the sum of the joint angles so far.
"""

import numpy as np


def chain_end(angles, lengths):
    """End (u, v), metres, of a planar chain: ndarray of shape (2,).

    ``angles`` (rad) are each relative to the previous link; ``lengths`` in metres.
    """
    heading = np.cumsum(np.asarray(angles, dtype=float))
    end = np.sum(np.asarray(lengths, dtype=float) * np.exp(1j * heading))
    return np.array((end.real, end.imag))


def arm_tips(q1, q2, l1, l2):
    """Tips (u, v), metres, of a two-link arm: two arrays of the broadcast shape of q1, q2."""
    q1 = np.asarray(q1, dtype=float)
    end = l1 * np.exp(1j * q1) + l2 * np.exp(1j * (q1 + np.asarray(q2, dtype=float)))
    return end.real, end.imag


def arm_tip(q1, q2, l1, l2):
    """Tip (u, v), metres, of a two-link arm at joint angles q1, q2 (rad): tuple of float."""
    u, v = arm_tips(q1, q2, l1, l2)
    return float(u), float(v)


def elbow_point(q1, l1):
    """Elbow (u, v), metres, for shoulder angle q1 (rad): tuple of float."""
    end = l1 * np.exp(1j * float(q1))
    return float(end.real), float(end.imag)


def tip_distance(q1, q2, l1, l2, x, y):
    """Distance (m) from the tip at angles q1, q2 (rad) to the target (x, y)."""
    u, v = arm_tip(q1, q2, l1, l2)
    return float(np.hypot(u - x, v - y))


class MujocoChain:
    """MuJoCo's own forward kinematics of a URDF chain: an oracle independent of the package.

    MuJoCo loads the URDF (meshes dropped and joints other than ``joints`` fixed by
    :func:`two_bone_ik.sim.mujoco_urdf.urdf_for_mujoco`, which leaves the kinematics alone) and
    places the ``tip`` link for given readings; poses are expressed in the ``base`` link's frame.
    """

    def __init__(self, urdf, base, tip, joints):
        import mujoco
        from two_bone_ik.sim.mujoco_urdf import urdf_for_mujoco
        self._mujoco = mujoco
        self.model = mujoco.MjModel.from_xml_string(urdf_for_mujoco(urdf, joints))
        self.data = mujoco.MjData(self.model)
        self.base, self.tip = self.model.body(base).id, self.model.body(tip).id
        self.addresses = [self.model.jnt_qposadr[self.model.joint(name).id] for name in joints]

    def pose(self, readings):
        """(position (3,), rotation (3, 3)) of the tip in the base frame at readings (rad)."""
        self.data.qpos[self.addresses] = readings
        self._mujoco.mj_kinematics(self.model, self.data)
        base_rotation = self.data.xmat[self.base].reshape(3, 3)
        position = base_rotation.T @ (self.data.xpos[self.tip] - self.data.xpos[self.base])
        return position, base_rotation.T @ self.data.xmat[self.tip].reshape(3, 3)

    def tool(self, readings):
        """Tip position (3,) in the base frame at readings, m."""
        return self.pose(readings)[0]
