"""Tests for two_bone_ik.ik.target_frame (a target moved into base_frame, no ROS)."""

import math

from hypothesis import given
from hypothesis import strategies as st
import numpy as np
import pytest
from tf2_stand_in import matrix_of, quaternion_of

from two_bone_ik.ik.target_frame import FrameTransform, multiply, needs_transform, rotate
from two_bone_ik.ik.target_frame import to_base_frame, transform_problem

QUARTER_ABOUT_Z = (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4))

finite = st.floats(-10.0, 10.0)
quaternions = st.tuples(finite, finite, finite, finite).filter(
    lambda q: np.linalg.norm(q) > 1e-3).map(lambda q: tuple(np.array(q) / np.linalg.norm(q)))
vectors = st.tuples(finite, finite, finite)


def test_which_frames_need_a_transform():
    assert not needs_transform('', 'base_link')
    assert not needs_transform('base_link', 'base_link')
    assert needs_transform('camera_link', 'base_link')
    assert needs_transform('/base_link', 'base_link')  # tf2 ids have no leading slash


def test_a_quarter_turn_about_z_and_a_shift():
    # camera_link's x axis is base_link's y; its origin at (1, 2, 3).
    camera = FrameTransform((1.0, 2.0, 3.0), QUARTER_ABOUT_Z)
    position, orientation = to_base_frame(camera, (0.5, 0.0, 0.25), (0.0, 0.0, 0.0, 1.0))
    np.testing.assert_allclose(position, (1.0, 2.5, 3.25), atol=1e-15)
    np.testing.assert_allclose(orientation, QUARTER_ABOUT_Z, atol=1e-15)
    assert to_base_frame(camera, (0.0, 0.0, 0.0))[1] is None


@given(quaternions, vectors)
def test_rotate_is_the_rotation_matrix(q, v):
    np.testing.assert_allclose(rotate(q, v), matrix_of(q) @ np.array(v), atol=1e-12)


@given(quaternions, quaternions)
def test_multiply_composes_the_rotations(a, b):
    np.testing.assert_allclose(matrix_of(multiply(a, b)), matrix_of(a) @ matrix_of(b),
                               atol=1e-12)


@given(quaternions, vectors, vectors, quaternions)
def test_to_base_frame_is_the_frames_pose_applied(rotation, translation, point, orientation):
    position, turned = to_base_frame(FrameTransform(translation, rotation), point, orientation)
    np.testing.assert_allclose(position, matrix_of(rotation) @ point + translation, atol=1e-12)
    np.testing.assert_allclose(matrix_of(turned), matrix_of(rotation) @ matrix_of(orientation),
                               atol=1e-12)


def test_a_rotation_a_hair_off_unit_is_normalised():
    # tf2 accepts rotations within 0.01 of unit norm; the point must not be scaled by it.
    q = tuple(1.000001 * c for c in QUARTER_ABOUT_Z)
    assert transform_problem(FrameTransform((0.0, 0.0, 0.0), q)) == ''
    position, _ = to_base_frame(FrameTransform((0.0, 0.0, 0.0), q), (1.0, 0.0, 0.0))
    np.testing.assert_allclose(position, (0.0, 1.0, 0.0), atol=1e-15)


@pytest.mark.parametrize('found, words', [
    ('LookupException: "x" does not exist', 'LookupException'),
    ('', 'no reason given'),
    (None, 'returned NoneType'),
    (FrameTransform((0.0, math.nan, 0.0), (0.0, 0.0, 0.0, 1.0)), 'not 7 finite'),
    (FrameTransform((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 2.0)), 'norm 2'),
    (FrameTransform((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0)), 'norm 0'),
])
def test_what_is_no_usable_transform(found, words):
    assert words in transform_problem(found)


def test_the_stand_ins_conversions_are_inverse():
    rng = np.random.default_rng(0)
    for _ in range(200):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        q *= 1 if q[3] >= 0 else -1
        np.testing.assert_allclose(quaternion_of(matrix_of(q)), q, atol=1e-12)
