"""Tests of two_bone_ik.motion.limits: the motion limits and the command rate, checked."""

import math

import pytest

from two_bone_ik.motion.limits import check_command_rate, MotionConfigError, MotionLimits

INF = math.inf


@pytest.mark.parametrize('velocity, acceleration, jerk, message', [
    ((0.0, 1.0), (INF, INF), (INF, INF), r'^max_joint_velocity: expected 2 positive values'),
    ((1.0,), (INF, INF), (INF, INF), r'^max_joint_velocity: '),
    ((INF, INF), (math.nan, 1.0), (INF, INF), r'^max_joint_acceleration: '),
    ((INF, INF), (INF, INF), (-1.0, 1.0), r'^max_joint_jerk: '),
])
def test_bad_limits_are_refused_naming_the_parameter(velocity, acceleration, jerk, message):
    with pytest.raises(MotionConfigError, match=message):
        MotionLimits.checked(velocity, acceleration, jerk)


def test_limits_helpers():
    assert not MotionLimits().limited
    assert MotionLimits(jerk=(INF, 10.0)).limited
    assert check_command_rate(500.0) == 500.0
    with pytest.raises(MotionConfigError, match=r'^command_rate: expected 1 to 1000 Hz'):
        check_command_rate(0.5)
