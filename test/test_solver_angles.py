"""Tests of angle wrapping: two_bone_ik.solver.wrap_angle and wrap_angles."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np
import pytest

from two_bone_ik.solver import wrap_angle, wrap_angles

TWO_PI = 2 * math.pi


@pytest.mark.parametrize('angle, expected', [
    (0.0, 0.0), (1.0, 1.0), (-1.0, -1.0), (math.pi, math.pi), (-math.pi, -math.pi),
    (TWO_PI, 0.0), (-TWO_PI, 0.0), (3 * math.pi, math.pi), (-3 * math.pi, -math.pi),
    (TWO_PI + 1.0, 1.0), (-TWO_PI - 1.0, -1.0),
])
def test_named_angles(angle, expected):
    assert wrap_angle(angle) == pytest.approx(expected, abs=1e-15)
    assert wrap_angles([angle])[0] == pytest.approx(expected, abs=1e-15)


def test_angles_inside_the_range_come_back_unchanged():
    rng = np.random.default_rng(9)
    angles = np.concatenate((rng.uniform(-math.pi, math.pi, 1000), (-math.pi, math.pi, 0.0)))
    assert all(wrap_angle(a) == a for a in angles.tolist())
    assert np.array_equal(wrap_angles(angles), angles)


@settings(max_examples=500, deadline=None)
@given(angle=st.floats(min_value=-1e6, max_value=1e6))
def test_property_result_is_in_range_and_a_whole_number_of_turns_away(angle):
    wrapped = wrap_angle(angle)
    assert -math.pi <= wrapped <= math.pi
    turns = (angle - wrapped) / TWO_PI
    assert abs(turns - round(turns)) <= 1e-9
    assert wrap_angles(np.array([angle, -angle]))[0] == wrapped  # twin: the same value


def test_vectorised_twin_keeps_shape_and_does_not_modify_its_input():
    angles = np.array([[4.0, -4.0], [0.5, 7.0]])
    before = angles.copy()
    wrapped = wrap_angles(angles)
    assert wrapped.shape == (2, 2)
    assert np.array_equal(angles, before)
    assert wrapped == pytest.approx(np.array([[4.0 - TWO_PI, TWO_PI - 4.0], [0.5, 7.0 - TWO_PI]]))
    assert float(wrap_angles(7.0)) == pytest.approx(7.0 - TWO_PI)
