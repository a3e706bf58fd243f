"""Tests for two_bone_ik.arm.plane: the principal arm planes (ROS-free)."""

import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig, ELBOW_CHOICES
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.arm.plane import from_plane, PLANE_AXES, to_plane


def joint_axis(plane):
    """Return the joint axis u x v of a hand-written arm in ``plane``."""
    return ArmGeometry.from_config(ArmConfig(plane=plane)).normal


def test_plane_axes_and_joint_axis_right_handed():
    assert set(PLANE_AXES) == {'xy', 'xz', 'yz'}
    assert set(ELBOW_CHOICES) == {'up', 'down', 'nearest'}
    expected = {'xy': (0.0, 0.0, 1.0), 'xz': (0.0, -1.0, 0.0), 'yz': (1.0, 0.0, 0.0)}
    for plane, (iu, iv) in PLANE_AXES.items():
        u, v = np.eye(3)[iu], np.eye(3)[iv]
        assert joint_axis(plane) == expected[plane]
        np.testing.assert_array_equal(np.cross(u, v), joint_axis(plane))


@pytest.mark.parametrize('plane', sorted(PLANE_AXES))
def test_to_from_plane_round_trip(plane):
    rng = np.random.default_rng(0)
    axis = np.array(joint_axis(plane))
    for xyz in rng.uniform(-2.0, 2.0, size=(200, 3)):
        u, v, off = to_plane(xyz, plane)
        in_plane = np.array(from_plane(u, v, plane))
        assert off == pytest.approx(float(np.dot(xyz, axis)))
        np.testing.assert_allclose(in_plane + off * axis, xyz, atol=1e-15)
        assert to_plane(in_plane, plane)[2] == 0.0
