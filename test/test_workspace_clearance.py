"""Tests of two_bone_ik.workspace.clearance: capsules against the floor and boxes.

The oracle (:mod:`workspace_oracle`) is independent of the package: a golden-section search
for the distance from a segment to a box, many points along it for the floor.
"""

import math

import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_geometry import arm_from_description
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.workspace.clearance import (
    Clearance, first_contact, first_contact_batch, segment_box, segment_box_distances, touching)
from two_bone_ik.workspace.links import ArmLinks
from two_bone_ik.workspace.obstacles import Box, check_keep_out_boxes, Obstacles
from urdf_arms import FIXED_DESKTOP_ARMS, random_readings
from workspace_oracle import oracle_point_box, oracle_segment_box, oracle_touches, random_boxes


def test_segment_box_distance_is_exact_against_the_search():
    rng = np.random.default_rng(0)
    for _ in range(400):
        lower = rng.uniform(-0.2, 0.1, 3)
        upper = lower + rng.uniform(0.0, 0.2, 3)
        a, b = rng.uniform(-0.4, 0.4, (2, 3))
        distance, t = segment_box(tuple(a), tuple(b), tuple(lower), tuple(upper))
        assert distance == pytest.approx(oracle_segment_box(a, b, lower, upper), abs=1e-9)
        assert 0.0 <= t <= 1.0
        assert float(oracle_point_box(a + t * (b - a), lower, upper)) == pytest.approx(
            distance, abs=1e-12)


@pytest.mark.parametrize('a, b, expected', [
    ((-1.0, 0.5, 0.5), (2.0, 0.5, 0.5), 0.0),        # straight through
    ((0.2, 0.2, 0.2), (0.8, 0.8, 0.8), 0.0),          # inside
    ((-1.0, 2.0, 0.5), (2.0, 2.0, 0.5), 1.0),         # parallel to a face
    ((3.0, 0.5, 0.5), (3.0, 0.5, 0.5), 2.0),          # a point
    ((2.0, 2.0, 0.5), (3.0, 3.0, 0.5), math.sqrt(2.0)),  # toward an edge, nearest at its end
    ((2.0, -1.0, 2.0), (-1.0, 2.0, 2.0), 1.0),        # across above the top face
    ((1.0 + 3e-3, 0.5, -5.0), (1.0 + 3e-3, 0.5, 5.0), 3e-3),  # grazing a face
])
def test_segment_box_named_cases(a, b, expected):
    distance, _ = segment_box(a, b, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    assert distance == pytest.approx(expected, abs=1e-12)
    batch = segment_box_distances(np.array([a]), np.array([b]), np.zeros((1, 3)),
                                  np.ones((1, 3)))
    assert batch[0] == pytest.approx(expected, abs=1e-12)


def test_the_batch_distance_is_the_scalar_one():
    rng = np.random.default_rng(1)
    a, b = rng.uniform(-0.5, 0.5, (2, 2000, 3))
    lower = rng.uniform(-0.3, 0.2, (2000, 3))
    upper = lower + rng.uniform(0.0, 0.3, (2000, 3))
    b[:50] = a[:50]  # points too
    batch = segment_box_distances(a, b, lower, upper)
    scalar = [segment_box(*(tuple(v) for v in row))[0] for row in zip(a, b, lower, upper)]
    np.testing.assert_allclose(batch, scalar, atol=1e-12)


def _desktop_links(radius=0.02):
    urdf, base, tip, joints, _ = FIXED_DESKTOP_ARMS['so101_like']
    geometry = arm_from_description(urdf, base, tip)
    return ArmLinks(geometry, (radius,) * len(joints)), geometry


@pytest.mark.parametrize('seed', range(4))
def test_poses_against_random_boxes_and_a_floor_agree_with_the_oracle(seed):
    rng = np.random.default_rng(10 + seed)
    links, geometry = _desktop_links(radius=float(rng.uniform(0.0, 0.035)))
    # (The first joint is 0.062 m up: a floor above 0.027 m would touch every pose.)
    obstacles = Obstacles(float(rng.uniform(-0.1, 0.02)),
                          check_keep_out_boxes(random_boxes(rng, 10)))
    clearance = Clearance(links, obstacles)
    poses = np.array([random_readings(rng, geometry.lower_limits, geometry.upper_limits)
                      for _ in range(150)])
    batch_points = links.points_batch(poses)
    batch = touching(links, batch_points, obstacles)
    near_a_radius = 0
    for readings, points, hit in zip(poses, batch_points, batch):
        expected = oracle_touches(points, links.radii, obstacles)
        scalar = first_contact(links, links.points(readings), obstacles)
        fast = clearance.contact(links.points(readings))
        assert (scalar is not None) == expected == bool(hit) == (fast is not None)
        if scalar is not None:
            assert scalar == fast
            near_a_radius += scalar.distance > 0.0
    assert batch.any() and not batch.all()  # both kinds were drawn


def test_the_contact_names_the_first_link_and_the_floor():
    geometry = ArmGeometry.from_config(ArmConfig(link_lengths=(0.3, 0.25), plane='xz',
                                                 joint_names=('shoulder', 'elbow')))
    links = ArmLinks(geometry, (0.02, 0.01))
    # Elbow up, tip down to z = 0.005 above a floor at 0: only link 2 (radius 0.01) touches.
    points = ((0.0, 0.0, 0.1), (0.2, 0.0, 0.2), (0.3, 0.0, 0.005))
    contact = first_contact(links, points, Obstacles(-0.05, ()))
    assert contact is None
    contact = first_contact(links, points, Obstacles(0.0, ()))
    assert contact.link == 1 and contact.obstacle == 'the floor (z = 0 m)'
    assert contact.distance == pytest.approx(0.005) and contact.normal == (0.0, 0.0, 1.0)
    assert contact.describe() == ("link 2 ('elbow' to the tool point) would touch the floor "
                                  '(z = 0 m) at (0.300, 0.000, 0.005) m (its axis 0.005 m '
                                  'from it, radius 0.010 m)')
    # The shoulder within 0.02 of the floor: link 1 first.
    assert first_contact(links, points, Obstacles(0.09, ())).link == 0


def test_the_contact_with_a_box_names_it_and_points_away_from_it():
    geometry = ArmGeometry.from_config(ArmConfig(link_lengths=(0.3, 0.25), plane='xz'))
    links = ArmLinks(geometry, (0.02, 0.02))
    box = Box((0.25, -0.1, -0.2), (0.4, 0.1, 0.1), 3)
    points = ((0.0, 0.0, 0.0), (0.2, 0.0, 0.2), (0.45, 0.0, 0.0))
    contact = first_contact(links, points, Obstacles(-math.inf, (box,)))
    assert contact.link == 1 and contact.distance == 0.0  # link 2 goes through it
    assert 'keep-out box 3' in contact.describe() and 'its axis through it' in \
        contact.describe()
    assert sum(c * c for c in contact.normal) == pytest.approx(1.0)
    # Beside the box: the normal points from the box to the link.
    points = ((0.0, 0.0, 0.0), (0.2, 0.0, 0.2), (0.38, 0.0, 0.11))
    contact = first_contact(links, points, Obstacles(-math.inf, (box,)))
    assert contact.distance < 0.02
    above = np.array(contact.point) - np.clip(contact.point, box.lower, box.upper)
    np.testing.assert_allclose(contact.normal, above / np.linalg.norm(above), atol=1e-12)


def test_first_contact_batch_finds_the_first_touching_pose():
    links, geometry = _desktop_links()
    obstacles = Obstacles(0.0, ())
    rng = np.random.default_rng(7)
    poses = [random_readings(rng, geometry.lower_limits, geometry.upper_limits)
             for _ in range(60)]
    verdicts = [oracle_touches(links.points(p), links.radii, obstacles) for p in poses]
    clear = [p for p, hit in zip(poses, verdicts) if not hit]
    hitting = [p for p, hit in zip(poses, verdicts) if hit]
    batch = np.array([clear[0], clear[1], hitting[0], clear[2], hitting[1]])
    index, contact = first_contact_batch(links, links.points_batch(batch), obstacles)
    assert index == 2
    assert contact == first_contact(links, links.points(hitting[0]), obstacles)
    assert first_contact_batch(links, links.points_batch(batch[:2]), obstacles) is None


def test_touching_exactly_is_clear():
    geometry = ArmGeometry.from_config(ArmConfig(link_lengths=(0.5, 0.5), plane='xz'))
    links = ArmLinks(geometry, (0.25, 0.25))
    points = ((0.0, 0.0, 0.5), (0.5, 0.0, 0.5), (1.0, 0.0, 0.5))
    assert first_contact(links, points, Obstacles(0.25, ())) is None
    assert first_contact(links, points, Obstacles(0.2500001, ())) is not None
    box = Box((0.0, 0.0, 0.75), (1.0, 1.0, 1.0), 1)
    assert first_contact(links, points, Obstacles(-math.inf, (box,))) is None
    assert not touching(links, np.array([points]), Obstacles(-math.inf, (box,)))[0]
