"""Tests of two_bone_ik.arm.chain: the chain's joints and forward kinematics.

The oracles are independent: :func:`urdf_arms.chain_tip` (ElementTree + numpy, joint by joint)
and MuJoCo's URDF loader (:class:`fk_oracle.MujocoChain`).
"""

import math

from fk_oracle import MujocoChain
import numpy as np
import pytest

from two_bone_ik.arm.chain import ChainJoint, KinematicChain, rpy_of, rpy_rotation
from two_bone_ik.arm.urdf_import import chain_from_urdf
from urdf_arms import chain_tip, DESKTOP_JOINTS, FIXED_DESKTOP_ARMS, random_desktop_arm

ARMS = [random_desktop_arm(np.random.default_rng(seed), shape)
        for seed, shape in enumerate(list(DESKTOP_JOINTS) * 6)]


def _readings(rng, limits):
    return [float(rng.uniform(max(lo, -4.0), min(hi, 4.0))) for lo, hi in limits]


@pytest.mark.parametrize('arm', ARMS, ids=[f'{a.shape}-{i}' for i, a in enumerate(ARMS)])
def test_forward_kinematics_is_the_urdfs(arm):
    chain = chain_from_urdf(arm.urdf, arm.base, arm.tip)
    assert chain.moving_names == arm.joints  # the gripper joint is not on the chain
    oracle = MujocoChain(arm.urdf, arm.base, arm.tip, arm.joints)
    rng = np.random.default_rng(5)
    for _ in range(10):
        readings = _readings(rng, arm.limits)
        pose = chain.forward(readings)
        expected = chain_tip(arm.urdf, arm.base, arm.tip, dict(zip(arm.joints, readings)))
        np.testing.assert_allclose(pose.position, expected, rtol=0.0, atol=1e-12)
        position, rotation = oracle.pose(readings)
        np.testing.assert_allclose(pose.position, position, rtol=0.0, atol=1e-12)
        np.testing.assert_allclose(np.reshape(pose.rotation, (3, 3)), rotation, rtol=0.0,
                                   atol=1e-12)


@pytest.mark.parametrize('name', sorted(FIXED_DESKTOP_ARMS))
def test_joint_axes_and_origins_at_readings(name):
    # Each moving joint's world axis and origin, checked by turning it: the tip moves on a
    # circle about that axis, its velocity axis x (tip - origin).
    urdf, base, tip, joints, _ = FIXED_DESKTOP_ARMS[name]
    chain = chain_from_urdf(urdf, base, tip)
    readings = np.array([0.3, -0.4, 0.5, -0.6, 0.7][:len(joints)])
    pose = chain.forward(readings)
    for index in range(len(joints)):
        step = np.zeros(len(joints))
        step[index] = 1e-6
        moved = np.array(chain.forward(readings + step).position)
        velocity = (moved - np.array(chain.forward(readings - step).position)) / 2e-6
        lever = np.array(pose.position) - np.array(pose.points[index])
        np.testing.assert_allclose(velocity, np.cross(pose.axes[index], lever), atol=1e-8)
        assert np.linalg.norm(pose.axes[index]) == pytest.approx(1.0, abs=1e-15)


def test_readings_must_match_the_moving_joints():
    chain = chain_from_urdf(*FIXED_DESKTOP_ARMS['desktop_4'][:3])
    with pytest.raises(ValueError, match=r'readings: expected 4 values \(joints yaw_joint, '
                                         r'shoulder_joint, elbow_joint, pitch_joint\), got 5'):
        chain.forward([0.0] * 5)


def test_with_fixed_holds_a_joint_at_zero():
    urdf, base, tip, joints, _ = FIXED_DESKTOP_ARMS['desktop_5']
    chain = chain_from_urdf(urdf, base, tip)
    held = chain.with_fixed(['roll_joint'])
    assert held.moving_names == joints[:4]
    np.testing.assert_allclose(held.forward([0.1, 0.2, 0.3, 0.4]).position,
                               chain.forward([0.1, 0.2, 0.3, 0.4, 0.0]).position, atol=1e-15)


@pytest.mark.parametrize('rpy', [(0.3, -0.7, 2.1), (0.0, math.pi / 2, 0.4), (-1.0, 0.2, -3.0)])
def test_rpy_of_inverts_rpy_rotation(rpy):
    rotation = np.reshape(rpy_rotation(rpy), (3, 3))
    again = np.reshape(rpy_rotation(rpy_of(rotation[:, 0], rotation[:, 2])), (3, 3))
    np.testing.assert_allclose(again, rotation, atol=1e-12)


def test_a_chain_written_by_hand():
    # Two joints along x: the tip 0.3 m out, turned by the first about z.
    chain = KinematicChain('base', 'tip', (
        ChainJoint('a', 'revolute', 'base', 'l1', (0.0, 0.0, 0.1), axis=(0.0, 0.0, 1.0)),
        ChainJoint('b', 'fixed', 'l1', 'tip', (0.3, 0.0, 0.0)),
    ))
    np.testing.assert_allclose(chain.forward([math.pi / 2]).position, (0.0, 0.3, 0.1),
                               atol=1e-15)
