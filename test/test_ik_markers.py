"""Tests of two_bone_ik.ik.markers: the marker geometry, ROS-free."""

import math

import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.ik.markers import CLAMPED_AMBER, limit_curves, limit_shapes, REACHED_GREEN
from two_bone_ik.ik.markers import REJECTED_RED, target_shapes, workspace_shapes
from two_bone_ik.ik.status import NodeStatus
from two_bone_ik.solver import solve

#: A vertical arm, raised and turned about: plane xz, shoulder off the origin, zero pose up,
#: reversed axes, joint limits.
RAISED = ArmGeometry.from_config(ArmConfig(
    link_lengths=(0.4, 0.25), plane='xz', shoulder_position=(0.1, 0.2, 1.0),
    joint_zero_angles=(math.pi / 2, 0.0), joint_directions=(-1, -1),
    joint_lower_limits=(-1.2, -2.0), joint_upper_limits=(1.0, 0.3)))
FREE = ArmGeometry.from_config(ArmConfig())


def plane_coordinates(geometry, points):
    return np.array([geometry.to_plane(p) for p in points])


@pytest.mark.parametrize('geometry', [RAISED, FREE], ids=['raised', 'free'])
def test_reach_circles_lie_in_the_arms_plane_around_its_shoulder(geometry):
    shapes = workspace_shapes(geometry)
    inner, outer = geometry.reach
    assert [(s.namespace, s.marker_id, s.kind) for s in shapes] == [
        ('workspace', 0, 'line_strip'), ('workspace', 1, 'line_strip')]
    for shape, radius in zip(shapes, (outer, inner)):
        uvw = plane_coordinates(geometry, shape.points)
        np.testing.assert_allclose(np.hypot(uvw[:, 0], uvw[:, 1]), radius, atol=1e-12)
        np.testing.assert_allclose(uvw[:, 2], 0.0, atol=1e-12)
        assert shape.points[0] == pytest.approx(shape.points[-1])  # closed


def test_equal_links_have_no_inner_circle():
    geometry = ArmGeometry.from_config(ArmConfig(link_lengths=(0.2, 0.2)))
    assert len(workspace_shapes(geometry)) == 1


def test_limit_outline_is_reachable_within_the_limits_and_bounds_the_region():
    shapes = limit_shapes(RAISED)
    assert len(shapes) >= 4 and all(s.namespace == 'limits' for s in shapes)
    # Every outline point is the tip of a pose inside the limits.
    for curve in limit_curves(RAISED):
        for r1, r2 in curve:
            assert -1.2 - 1e-12 <= r1 <= 1.0 + 1e-12 and -2.0 - 1e-12 <= r2 <= 0.3 + 1e-12
    outline = np.vstack([plane_coordinates(RAISED, s.points)[:, :2] for s in shapes])
    # Tips of random poses inside the limits: none further from the shoulder than the outline's
    # farthest point, and the outline reaches the farthest the arm gets within the limits.
    rng = np.random.default_rng(0)
    poses = np.stack([rng.uniform(-1.2, 1.0, 4000), rng.uniform(-2.0, 0.3, 4000)], axis=1)
    tips = plane_coordinates(RAISED, [RAISED.tip_position(p) for p in poses])[:, :2]
    assert np.hypot(*tips.T).max() <= np.hypot(*outline.T).max() + 1e-9
    assert np.hypot(*outline.T).max() == pytest.approx(sum(RAISED.link_lengths), abs=1e-9)


def test_no_limits_no_outline():
    assert limit_shapes(FREE) == [] and limit_curves(FREE) == []


@pytest.mark.parametrize('status, color', [
    (NodeStatus.REACHED, REACHED_GREEN), (NodeStatus.ELBOW_FLIPPED, REACHED_GREEN),
    (NodeStatus.OUT_OF_REACH, CLAMPED_AMBER), (NodeStatus.JOINT_LIMITED, CLAMPED_AMBER),
    (NodeStatus.OFF_PLANE, CLAMPED_AMBER), (NodeStatus.WRONG_FRAME, REJECTED_RED),
    (NodeStatus.INVALID_TARGET, REJECTED_RED), (NodeStatus.NO_ARM_DESCRIPTION, REJECTED_RED),
])
def test_target_colour_says_reached_clamped_or_rejected(status, color):
    (target,) = [s for s in target_shapes(FREE, (0.3, 0.1, 0.0), status, None)
                 if s.namespace == 'target']
    assert target.color == color and target.kind == 'sphere'
    assert target.points == ((0.3, 0.1, 0.0),)


def test_commanded_arm_and_closest_point():
    target = (0.9, 0.2, 0.0)  # beyond the default arm's 0.55 m
    sol = solve(0.9, 0.2, 0.30, 0.25)
    shapes = {(s.namespace, s.marker_id): s for s in target_shapes(
        FREE, target, NodeStatus.OUT_OF_REACH, (sol.q1, sol.q2))}
    arm = shapes[('arm', 0)]
    assert arm.kind == 'line_strip' and len(arm.points) == 3
    np.testing.assert_allclose(arm.points[0], (0.0, 0.0, 0.0), atol=1e-15)
    np.testing.assert_allclose(arm.points[2], (*sol.tip, 0.0), atol=1e-12)
    assert math.dist(arm.points[0], arm.points[1]) == pytest.approx(0.30)
    closest = shapes[('closest', 0)]
    np.testing.assert_allclose(closest.points[0], (*sol.tip, 0.0), atol=1e-12)
    assert math.dist(closest.points[0], target) == pytest.approx(math.hypot(0.9, 0.2) - 0.55)
    assert shapes[('closest', 1)].points[1] == target
    # Reached: no closest-point marker; rejected: no arm either; a NaN target: no sphere.
    reached = target_shapes(FREE, (0.3, 0.1, 0.0), NodeStatus.REACHED, (0.1, 0.2))
    assert {s.namespace for s in reached} == {'target', 'arm'}
    assert target_shapes(FREE, (math.nan, 0.0, 0.0), NodeStatus.INVALID_TARGET, None) == []


def test_arm_in_a_raised_reversed_arm_is_at_its_real_joints():
    readings = (0.4, -0.7)
    (arm,) = [s for s in target_shapes(RAISED, RAISED.tip_position(readings),
                                       NodeStatus.REACHED, readings) if s.namespace == 'arm']
    assert arm.points[0] == (0.1, 0.2, 1.0)
    # Zero pose straight up; a positive reading turns it from +z toward +x (directions -1).
    q1 = math.pi / 2 - 0.4
    np.testing.assert_allclose(arm.points[1], (0.1 + 0.4 * math.cos(q1), 0.2,
                                               1.0 + 0.4 * math.sin(q1)), atol=1e-12)


def test_the_floor_and_the_boxes_are_translucent_cubes():
    from two_bone_ik.ik.markers import FLOOR_THICKNESS, obstacle_shapes
    from two_bone_ik.workspace.obstacles import check_keep_out_boxes, Obstacles
    geometry = ArmGeometry.from_config(ArmConfig(link_lengths=(0.3, 0.25), plane='xz'))
    boxes = check_keep_out_boxes([0.1, -0.1, 0.0, 0.3, 0.1, 0.05, 0.2, 0.2, 0.0, 0.2, 0.3, 0.1])
    floor, first, wall = obstacle_shapes(geometry, Obstacles(-0.1, boxes), (0.05, 0.0, 0.0))
    assert (floor.namespace, floor.kind) == ('floor', 'cube')
    assert floor.points == ((0.05, 0.0, -0.1 - FLOOR_THICKNESS / 2),)  # its top at the floor
    assert floor.size[0] == floor.size[1] >= 2 * 0.55 and floor.color[3] < 1.0
    assert (first.namespace, first.marker_id) == ('keep_out', 1)
    assert first.points == ((0.2, 0.0, 0.025),) and first.size == pytest.approx((0.2, 0.2, 0.05))
    assert wall.marker_id == 2 and min(wall.size) > 0.0  # a flat box still shows
    assert obstacle_shapes(geometry, Obstacles(-math.inf, ()), (0.0, 0.0, 0.0)) == []
