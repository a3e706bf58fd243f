"""Tests of two_bone_ik.workspace.links: the capsules of a pose from the arm's kinematics.

The oracle for desktop arms is MuJoCo's own URDF kinematics (each joint's anchor and the tool
link), independent of the package's chain code; for planar arms, the complex-number chain of
:mod:`fk_oracle`.
"""

import math

from fk_oracle import arm_tips, MujocoChain
import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_config import arm_config_from_mapping, desktop_geometry
from two_bone_ik.arm.desktop_geometry import arm_from_description
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.workspace.links import ArmLinks, link_names
from urdf_arms import (
    DESKTOP_JOINTS, DESKTOP_PARAMETERS, FIXED_DESKTOP_ARMS, random_desktop_arm,
    random_readings)


def _oracle_points(oracle, joints, readings):
    """Return MuJoCo's joint anchors and tool point in the base frame: (N + 1, 3)."""
    oracle.pose(readings)  # runs the kinematics
    data, model = oracle.data, oracle.model
    rotation = data.xmat[oracle.base].reshape(3, 3)
    origin = data.xpos[oracle.base]
    anchors = [rotation.T @ (data.xanchor[model.joint(name).id] - origin) for name in joints]
    return np.array(anchors + [oracle.tool(readings)])


def test_link_names_say_which_joints_bound_each_link():
    assert link_names(('a', 'b', 'c')) == ("link 1 ('a' to 'b')", "link 2 ('b' to 'c')",
                                           "link 3 ('c' to the tool point)")


def test_a_planar_arm_is_shoulder_elbow_tip():
    config = ArmConfig(link_lengths=(0.3, 0.25), plane='xz', shoulder_position=(0.1, 0.2, 0.3),
                       joint_zero_angles=(0.4, -0.2), joint_directions=(1, -1))
    geometry = ArmGeometry.from_config(config)
    links = ArmLinks(geometry, (0.02, 0.01))
    rng = np.random.default_rng(0)
    readings = rng.uniform(-3.0, 3.0, (200, 2))
    batch = links.points_batch(readings)
    q1 = 0.4 + readings[:, 0]
    q2 = -0.2 - readings[:, 1]
    elbow_u, elbow_v = 0.3 * np.cos(q1), 0.3 * np.sin(q1)
    tip_u, tip_v = arm_tips(q1, q2, 0.3, 0.25)
    # xz plane: u = +x, v = +z, from the shoulder.
    np.testing.assert_allclose(batch[:, 1], np.stack((0.1 + elbow_u, np.full(200, 0.2),
                                                      0.3 + elbow_v), axis=1), atol=1e-14)
    np.testing.assert_allclose(batch[:, 2], np.stack((0.1 + tip_u, np.full(200, 0.2),
                                                      0.3 + tip_v), axis=1), atol=1e-14)
    np.testing.assert_allclose(batch[:, 0], np.tile((0.1, 0.2, 0.3), (200, 1)), atol=0)
    for row, pose in zip(readings[:20], batch[:20]):
        np.testing.assert_allclose(links.points(row), pose, atol=1e-15)
    assert links.levers == pytest.approx((0.55, 0.25))
    assert links.point_radii == (0.02, 0.02, 0.01)


@pytest.mark.parametrize('shape', sorted(DESKTOP_JOINTS))
@pytest.mark.parametrize('axis_error', (0.0, 5e-4))
def test_desktop_points_are_the_joint_origins_and_the_tool_point(shape, axis_error):
    rng = np.random.default_rng(sorted(DESKTOP_JOINTS).index(shape) + int(axis_error * 1e4))
    for _ in range(3):
        arm = random_desktop_arm(rng, shape, axis_error=axis_error)
        geometry = arm_from_description(arm.urdf, arm.base, arm.tip)
        links = ArmLinks(geometry, (0.01,) * len(arm.joints))
        # An exact arm takes the closed form (the chain's own when not).
        assert (links._fast is not None) == (axis_error == 0.0)
        oracle = MujocoChain(arm.urdf, arm.base, arm.tip, arm.joints)
        lower, upper = zip(*arm.limits)
        poses = np.array([random_readings(rng, lower, upper) for _ in range(25)])
        batch = links.points_batch(poses)
        scale = 1.0 + sum(geometry.reach)
        for readings, pose in zip(poses, batch):
            expected = _oracle_points(oracle, arm.joints, readings)
            np.testing.assert_allclose(links.points(readings), expected, atol=1e-12 * scale)
            np.testing.assert_allclose(pose, expected, atol=1e-12 * scale)


@pytest.mark.parametrize('name', sorted(FIXED_DESKTOP_ARMS))
def test_fixed_desktop_arms_take_the_closed_form(name):
    urdf, base, tip, joints, _ = FIXED_DESKTOP_ARMS[name]
    geometry = arm_from_description(urdf, base, tip)
    links = ArmLinks(geometry, (0.02,) * len(joints))
    oracle = MujocoChain(urdf, base, tip, joints)
    rng = np.random.default_rng(4)
    for _ in range(30):
        readings = random_readings(rng, geometry.lower_limits, geometry.upper_limits)
        np.testing.assert_allclose(links.points(readings),
                                   _oracle_points(oracle, joints, readings), atol=1e-12)
    assert geometry.model.exact == (links._fast is not None)


def test_an_arm_from_parameters_starts_at_its_first_joint():
    geometry = desktop_geometry(arm_config_from_mapping(DESKTOP_PARAMETERS))
    links = ArmLinks(geometry, (0.02,) * 5)
    points = links.points((0.0,) * 5)
    assert len(points) == 6
    assert points[0] == (0.0, 0.0, 0.0)  # the yaw's origin, on the base
    np.testing.assert_allclose(points[-1], geometry.tool_position((0.0,) * 5), atol=1e-15)


@pytest.mark.parametrize('seed', range(3))
def test_levers_bound_how_far_a_turn_moves_any_point_after_the_joint(seed):
    rng = np.random.default_rng(seed)
    arm = random_desktop_arm(rng, 'yaw + pair + pitch + roll')
    geometry = arm_from_description(arm.urdf, arm.base, arm.tip)
    links = ArmLinks(geometry, (0.01,) * 5)
    for _ in range(50):
        readings = np.array(random_readings(rng, geometry.lower_limits, geometry.upper_limits))
        joint = int(rng.integers(0, 5))
        turned = readings.copy()
        turned[joint] += rng.uniform(-0.3, 0.3)
        before, after = links.points_batch(np.stack((readings, turned)))
        # Points along each link too: the segments are rigid.
        for t in np.linspace(0.0, 1.0, 5):
            a = before[:-1] + t * (before[1:] - before[:-1])
            b = after[:-1] + t * (after[1:] - after[:-1])
            moved = np.linalg.norm(b - a, axis=1)
            assert moved.max() <= abs(turned[joint] - readings[joint]) * links.levers[
                joint] + 1e-12
            assert math.isfinite(moved.max())


def test_radii_must_match_the_links():
    geometry = ArmGeometry.from_config(ArmConfig())
    with pytest.raises(ValueError, match='3 radii for 2 links'):
        ArmLinks(geometry, (0.1, 0.1, 0.1))
