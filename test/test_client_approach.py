"""Tests of two_bone_ik.client.approach: the target orientation from approach pitch and roll."""

import math

import numpy as np
import pytest

from two_bone_ik.client.approach import approach_quaternion, IDENTITY


def matrix(q):
    """Return the rotation matrix of a unit quaternion (x, y, z, w)."""
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def random_cases(count=500):
    rng = np.random.default_rng(0)
    for _ in range(count):
        x, y = rng.uniform(-1.0, 1.0, 2)
        pitch, roll = rng.uniform(-math.pi, math.pi, 2)
        yield x, y, pitch, roll


def test_unit_and_the_documented_product():
    for x, y, pitch, roll in random_cases():
        q = approach_quaternion(x, y, pitch, roll)
        assert math.isclose(sum(v * v for v in q), 1.0, abs_tol=1e-12)
        expected = rz(math.atan2(y, x)) @ ry(-pitch) @ rx(roll)
        np.testing.assert_allclose(matrix(q), expected, atol=1e-12)


def test_the_tool_x_axis_is_the_approach_toward_the_targets_azimuth():
    for x, y, pitch, roll in random_cases():
        yaw = math.atan2(y, x)
        approach = matrix(approach_quaternion(x, y, pitch, roll))[:, 0]
        np.testing.assert_allclose(approach, [math.cos(pitch) * math.cos(yaw),
                                              math.cos(pitch) * math.sin(yaw),
                                              math.sin(pitch)], atol=1e-12)


def test_positive_pitch_tilts_the_approach_up():
    up = matrix(approach_quaternion(0.3, 0.0, 0.5, 0.0))[:, 0]
    down = matrix(approach_quaternion(0.3, 0.0, -0.5, 0.0))[:, 0]
    assert up[2] == pytest.approx(math.sin(0.5)) and up[2] > 0
    assert down[2] == pytest.approx(-math.sin(0.5))


def test_at_zero_roll_y_is_horizontal_to_the_left_and_z_points_up():
    for x, y, pitch, _ in random_cases(100):
        yaw = math.atan2(y, x)
        rotation = matrix(approach_quaternion(x, y, pitch, 0.0))
        np.testing.assert_allclose(rotation[:, 1], [-math.sin(yaw), math.cos(yaw), 0.0],
                                   atol=1e-12)
        if abs(pitch) < math.pi / 2:
            assert rotation[2, 2] > 0


def test_roll_turns_about_the_approach_right_handed():
    for x, y, pitch, roll in random_cases(100):
        level = matrix(approach_quaternion(x, y, pitch, 0.0))
        rolled = matrix(approach_quaternion(x, y, pitch, roll))
        np.testing.assert_allclose(rolled[:, 0], level[:, 0], atol=1e-12)
        np.testing.assert_allclose(rolled[:, 1], math.cos(roll) * level[:, 1]
                                   + math.sin(roll) * level[:, 2], atol=1e-12)


def test_named_cases():
    # Straight ahead along +x, level, no roll: no rotation.
    assert approach_quaternion(0.4, 0.0, 0.0, 0.0) == pytest.approx(IDENTITY)
    # Along +y: a quarter turn about z.
    half = math.sqrt(0.5)
    assert approach_quaternion(0.0, 0.4, 0.0, 0.0) == pytest.approx((0, 0, half, half))
    # On the z axis the azimuth is taken as 0.
    assert approach_quaternion(0.0, 0.0, 0.0, 0.0) == pytest.approx(IDENTITY)
    # Straight up: the approach is +z.
    up = matrix(approach_quaternion(0.2, 0.0, math.pi / 2, 0.0))[:, 0]
    np.testing.assert_allclose(up, [0, 0, 1], atol=1e-12)


@pytest.mark.parametrize('name, args', [('x', (math.nan, 0.0, 0.0, 0.0)),
                                        ('y', (0.0, math.inf, 0.0, 0.0)),
                                        ('pitch', (0.1, 0.0, math.nan, 0.0)),
                                        ('roll', (0.1, 0.0, 0.0, -math.inf))])
def test_non_finite_is_refused_by_name(name, args):
    with pytest.raises(ValueError, match=f'^{name} must be finite'):
        approach_quaternion(*args)
