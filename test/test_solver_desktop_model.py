"""Tests of two_bone_ik.solver.desktop_model: the canonical arm, its tool and orientations."""

import math

import numpy as np
import pytest

from two_bone_ik.arm.desktop_geometry import arm_from_description
from two_bone_ik.solver import IkInputError
from two_bone_ik.solver.chain_kinematics import multiply, rotation_about
from two_bone_ik.solver.desktop_model import quaternion_rotation, split_orientation
from urdf_arms import FIXED_DESKTOP_ARMS


def _arm(name):
    urdf, base, tip, _, _ = FIXED_DESKTOP_ARMS[name]
    return arm_from_description(urdf, base, tip).model


@pytest.mark.parametrize('name', sorted(FIXED_DESKTOP_ARMS))
def test_split_recovers_the_rotations_it_is_made_of(name):
    arm = _arm(name)
    rng = np.random.default_rng(2)
    for _ in range(50):
        yaw, pitch_sum = rng.uniform(-math.pi, math.pi, 2)
        roll = rng.uniform(-math.pi, math.pi) if arm.has_roll else 0.0
        rotation = multiply(multiply(multiply(rotation_about(arm.up, yaw),
                                              rotation_about(arm.normal, pitch_sum)),
                                     rotation_about(arm.roll_axis, roll)), arm.tip_rotation)
        split = split_orientation(arm, rotation, yaw + rng.uniform(-1.0, 1.0))
        assert math.remainder(split.yaw - yaw, math.tau) == pytest.approx(0.0, abs=1e-9)
        assert math.remainder(split.pitch_sum - pitch_sum, math.tau) == pytest.approx(
            0.0, abs=1e-9)
        assert math.remainder(split.roll - roll, math.tau) == pytest.approx(0.0, abs=1e-9)


def test_the_other_split_is_taken_for_a_yaw_hint_half_a_turn_away():
    arm = _arm('desktop_5')
    rotation = multiply(multiply(multiply(rotation_about(arm.up, 0.3),
                                          rotation_about(arm.normal, 0.4)),
                                 rotation_about(arm.roll_axis, 0.5)), arm.tip_rotation)
    split = split_orientation(arm, rotation, 0.3 + math.pi)
    assert math.remainder(split.yaw - 0.3 - math.pi, math.tau) == pytest.approx(0.0, abs=1e-12)
    again = multiply(multiply(multiply(rotation_about(arm.up, split.yaw),
                                       rotation_about(arm.normal, split.pitch_sum)),
                              rotation_about(arm.roll_axis, split.roll)), arm.tip_rotation)
    np.testing.assert_allclose(again, rotation, atol=1e-12)


def test_quaternions_are_normalised_and_checked():
    np.testing.assert_allclose(quaternion_rotation((0.0, 0.0, 2.0, 2.0)),
                               rotation_about((0.0, 0.0, 1.0), math.pi / 2), atol=1e-15)
    for bad in ((0.0, 0.0, 0.0, 0.0), (math.nan, 0.0, 0.0, 1.0), (1.0, 2.0)):
        with pytest.raises(IkInputError, match='orientation'):
            quaternion_rotation(bad)


@pytest.mark.parametrize('name', ['desktop_5', 'so101_like'])
def test_max_tool_length_is_the_largest_over_the_roll(name):
    arm = _arm(name)
    sampled = max(arm.tool_at(r).length for r in np.linspace(-math.pi, math.pi, 20001))
    assert arm.max_tool_length() == pytest.approx(sampled, abs=1e-9)
