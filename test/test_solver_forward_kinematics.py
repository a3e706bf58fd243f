"""Tests of two_bone_ik.solver.forward_kinematics.

forward and elbow_position are checked against the oracle in test_solver_closed_form too.
"""

from fk_oracle import arm_tips
import numpy as np

from two_bone_ik.solver import forward
from two_bone_ik.solver.forward_kinematics import forward_array


def test_forward_array_is_forward_for_each_pose():
    rng = np.random.default_rng(25)
    q1, q2 = rng.uniform(-50.0, 50.0, size=(2, 200))
    tips = forward_array(q1, q2, 0.3, 0.25)
    assert tips.shape == (200, 2)
    assert tips.tolist() == [list(forward(a, b, 0.3, 0.25)) for a, b in zip(q1, q2)]
    u, v = arm_tips(q1, q2, 0.3, 0.25)
    assert np.allclose(tips, np.stack((u, v), axis=1), rtol=0.0, atol=1e-13)
