"""Tests of two_bone_ik.workspace.obstacles: the workspace parameters, validated."""

import math

import pytest

from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.workspace.obstacles import (
    Box, check_floor_height, check_keep_out_boxes, check_link_radius, check_motion_path,
    MAX_BOXES, Obstacles, obstacles_from_values, WorkspaceError)


def test_defaults_are_no_floor_no_boxes_and_nothing_to_check():
    obstacles = obstacles_from_values({})
    assert obstacles == Obstacles(-math.inf, ())
    assert not obstacles.active
    assert obstacles.describe() == 'no floor, no keep-out boxes'
    assert obstacles_from_values({'keep_out_boxes': None}).boxes == ()


def test_a_floor_or_a_box_makes_it_active():
    assert obstacles_from_values({'floor_height': 0.0}).active
    obstacles = obstacles_from_values({'keep_out_boxes': [0.1, -0.1, 0.0, 0.2, 0.1, 0.05]})
    assert obstacles.active
    assert obstacles.boxes == (Box((0.1, -0.1, 0.0), (0.2, 0.1, 0.05), 1),)
    assert obstacles.describe() == 'keep-out box 1 [0.1, -0.1, 0] to [0.2, 0.1, 0.05] m'


def test_boxes_are_numbered_in_order():
    boxes = check_keep_out_boxes([0, 0, 0, 1, 1, 1, -1, -1, -1, 0, 0, 0.5])
    assert [box.number for box in boxes] == [1, 2]
    assert boxes[1].lower == (-1.0, -1.0, -1.0) and boxes[1].upper == (0.0, 0.0, 0.5)
    assert all(isinstance(v, float) for v in boxes[0].lower + boxes[0].upper)


@pytest.mark.parametrize('value, message', [
    (math.nan, 'floor_height: expected a height'),
    (math.inf, 'floor_height: expected a height'),
    (2e3, 'floor_height: expected a height'),
    ('0.0', 'floor_height: expected a number'),
    (True, 'floor_height: expected a number'),
])
def test_bad_floor_heights_are_refused_naming_the_parameter(value, message):
    with pytest.raises(WorkspaceError, match=message):
        check_floor_height(value)


def test_floor_height_takes_minus_infinity_and_integers():
    assert check_floor_height(-math.inf) == -math.inf
    assert check_floor_height(0) == 0.0 and isinstance(check_floor_height(0), float)


@pytest.mark.parametrize('value, message', [
    ([0.0] * 5, 'keep_out_boxes: expected 6 values per box.*got 5 values'),
    ([0, 0, 0, 1, 1, math.nan], 'keep_out_boxes: box 1 has a coordinate beyond'),
    ([0, 0, 0, 1, 1, math.inf], 'keep_out_boxes: box 1 has a coordinate beyond'),
    ([0, 0, 0, 1, 1, 1, 0, 0.5, 0, 1, 0.2, 1], 'keep_out_boxes: box 2 has min y 0.5 m above '
                                               'its max y 0.2 m'),
    ('box', 'keep_out_boxes: expected 6 values'),
    ([0, 0, 0, 1, 1, True], 'keep_out_boxes: expected 6 values'),
    ([0.0, 0.0, 0.0, 1.0, 1.0, 1.0] * (MAX_BOXES + 1), 'keep_out_boxes: at most 100 boxes'),
])
def test_bad_boxes_are_refused_naming_the_box(value, message):
    with pytest.raises(WorkspaceError, match=message):
        check_keep_out_boxes(value)


def test_a_flat_box_is_a_wall_and_allowed():
    box, = check_keep_out_boxes([0.1, -0.1, 0.0, 0.1, 0.1, 0.3])
    assert box.contains((0.1, 0.0, 0.2)) and not box.contains((0.1001, 0.0, 0.2))


def test_link_radius_one_value_for_every_link_or_one_per_link_base_first():
    assert check_link_radius([0.02], 3) == (0.02, 0.02, 0.02)
    # N + 1 values: the base's (first) is dropped, as its segment never counts.
    assert check_link_radius([0.5, 0.03, 0.02, 0.01], 3) == (0.03, 0.02, 0.01)
    assert check_link_radius([0.0], 2) == (0.0, 0.0)
    assert check_link_radius([0.01, 0.02, 0.03]) == (0.01, 0.02, 0.03)  # the arm not known


@pytest.mark.parametrize('value, joints, message', [
    ([0.02, 0.02], 2, r'link_radius: expected .* base first \(3\).*got 2 values'),
    ([], 2, 'link_radius: expected one radius'),
    ([-0.01], 2, 'link_radius: expected one radius.*each 0 to 10 m'),
    ([math.nan], None, 'link_radius: expected one radius'),
    ([11.0], 2, 'link_radius: expected'),
    ('0.02', 2, 'link_radius: expected'),
])
def test_bad_link_radii_are_refused(value, joints, message):
    with pytest.raises(WorkspaceError, match=message):
        check_link_radius(value, joints)


def test_motion_path_is_joint_or_linear():
    assert check_motion_path('joint') == 'joint'
    assert check_motion_path('linear') == 'linear'
    with pytest.raises(WorkspaceError,
                       match="motion_path: expected one of: joint, linear, got 'straight'"):
        check_motion_path('straight')


def test_the_error_is_a_config_error_so_the_node_exits_with_its_line():
    assert issubclass(WorkspaceError, ConfigError)


def test_a_point_below_the_floor_or_inside_a_box_is_named():
    obstacles = Obstacles(0.0, check_keep_out_boxes([0.1, -0.1, 0.0, 0.2, 0.1, 0.05]))
    assert obstacles.point_problem((0.3, 0.0, 0.01)) == ''
    assert obstacles.point_problem((0.3, 0.0, 0.0)) == ''  # on the floor is not below it
    assert obstacles.point_problem((0.3, 0.0, -0.05)) == (
        'the target is 0.050 m below the floor (floor_height 0 m)')
    assert obstacles.point_problem((0.15, 0.0, 0.02)) == (
        'the target is inside keep-out box 1 [0.1, -0.1, 0] to [0.2, 0.1, 0.05] m')
