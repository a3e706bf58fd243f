"""Tests of two_bone_ik.solver.chain_kinematics: the scalar chain pose and its batch twin."""

import math

import numpy as np
import pytest

from two_bone_ik.arm.urdf_import import chain_from_urdf
from two_bone_ik.solver.chain_kinematics import (
    chain_pose, chain_poses, jacobian_columns, rotation_about, rotation_angle)
from urdf_arms import DESKTOP_JOINTS, random_desktop_arm


@pytest.mark.parametrize('seed', range(8))
def test_batch_twin_equals_the_scalar(seed):
    rng = np.random.default_rng(seed)
    arm = random_desktop_arm(rng, list(DESKTOP_JOINTS)[seed % 4])
    segments, tail = chain_from_urdf(arm.urdf, arm.base, arm.tip).segments()
    readings = rng.uniform(-4.0, 4.0, (20, len(segments)))
    position, rotation, axes, points = chain_poses(segments, tail, readings)
    for row, values in enumerate(readings):
        pose = chain_pose(segments, tail, values)
        np.testing.assert_allclose(position[row], pose.position, atol=1e-15)
        np.testing.assert_allclose(rotation[row].ravel(), pose.rotation, atol=1e-15)
        np.testing.assert_allclose(axes[row], pose.axes, atol=1e-15)
        np.testing.assert_allclose(points[row], pose.points, atol=1e-15)


def test_jacobian_columns_are_the_tip_velocity():
    rng = np.random.default_rng(3)
    arm = random_desktop_arm(rng, 'yaw + pair + pitch + roll')
    segments, tail = chain_from_urdf(arm.urdf, arm.base, arm.tip).segments()
    readings = rng.uniform(-2.0, 2.0, 5)
    columns = jacobian_columns(chain_pose(segments, tail, readings), range(5))
    for index, column in enumerate(columns):
        step = np.zeros(5)
        step[index] = 1e-6
        ahead = np.array(chain_pose(segments, tail, readings + step).position)
        behind = np.array(chain_pose(segments, tail, readings - step).position)
        np.testing.assert_allclose((ahead - behind) / 2e-6, column, atol=1e-8)


@pytest.mark.parametrize('angle', [0.0, 1e-9, 0.4, math.pi / 2, 3.0, math.pi])
def test_rotation_angle_of_a_rotation_about_an_axis(angle):
    axis = np.array([0.2, -0.5, 0.8]) / np.linalg.norm([0.2, -0.5, 0.8])
    assert rotation_angle(rotation_about(axis, angle)) == pytest.approx(angle, abs=1e-12)
