"""Tests of two_bone_ik.workspace.path_check: motions checked at and between their samples.

The oracle (:mod:`workspace_oracle`) is independent of the package's distances.
"""

import math

import numpy as np
import pytest
from ruckig import InputParameter, Ruckig, Trajectory

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.workspace.links import ArmLinks
from two_bone_ik.workspace.obstacles import check_keep_out_boxes, Obstacles
from two_bone_ik.workspace.path_check import LARGEST_STEP, MotionCheck, SMALLEST_STEP
from workspace_oracle import oracle_segment_box, random_boxes

#: How deep a link may graze a box's edge between two checked poses, relative to its radius.
GRAZE = 1.0 - math.sqrt(15.0) / 4.0


def _arm(radii=(0.01, 0.01)):
    geometry = ArmGeometry.from_config(ArmConfig(link_lengths=(0.3, 0.25), plane='xz',
                                                 joint_names=('shoulder', 'elbow')))
    return ArmLinks(geometry, radii)


def _straight(start, end):
    """Return readings along the straight joint motion from ``start`` (t = 0) to ``end`` (1)."""
    start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    return lambda ts: start + np.asarray(ts, dtype=float)[:, None] * (end - start)


@pytest.mark.parametrize('radii, step', [
    ((0.02, 0.01), 0.005), ((0.0, 0.03), 0.01), ((0.0, 0.0), SMALLEST_STEP),
    ((0.5, 0.5), LARGEST_STEP), ((1e-4, 1e-4), SMALLEST_STEP)])
def test_the_step_is_half_the_thinnest_radius_within_bounds(radii, step):
    assert MotionCheck(_arm(radii), Obstacles(0.0, ())).step == pytest.approx(step)


def test_a_thin_plate_between_two_samples_is_found():
    # The arm sweeps from pointing down-forward to up-forward through a 2 mm plate level with
    # the shoulder: both samples are clear, the motion is not.
    plate = check_keep_out_boxes([0.4, -0.1, -0.001, 0.5, 0.1, 0.001])
    check = MotionCheck(_arm(), Obstacles(-math.inf, plate))
    found = check.first_contact(_straight((-1.0, 0.0), (1.0, 0.0)), [0.0, 1.0])
    assert found is not None
    assert found.time == pytest.approx(0.5, abs=0.02)
    assert found.contact.link == 1 and 'keep-out box 1' in found.contact.obstacle
    assert found.describe().startswith(f'{found.time:.3f} s into it: link 2')


def test_a_motion_clear_of_the_plate_passes():
    plate = check_keep_out_boxes([0.4, -0.1, -0.001, 0.5, 0.1, 0.001])
    check = MotionCheck(_arm(), Obstacles(-math.inf, plate))
    assert check.first_contact(_straight((0.5, 0.0), (1.5, 0.0)), [0.0, 0.5, 1.0]) is None


def test_the_extra_poses_keep_every_point_within_the_step():
    links = _arm((0.02, 0.02))
    check = MotionCheck(links, Obstacles(0.0, ()))
    readings = np.array([[0.0, 0.0], [0.5, -0.2], [0.5, -0.2], [0.6, 0.9]])
    times = np.array([0.0, 1.0, 2.0, 3.0])
    extra = check.times(readings, times)
    both = np.sort(np.concatenate((times, extra)))
    along = np.array([np.interp(both, times, readings[:, j]) for j in range(2)]).T
    points = links.points_batch(along)
    # The tip moves farthest; between consecutive checked poses it moves at most a step.
    assert np.linalg.norm(np.diff(points, axis=0), axis=2).max() <= check.step + 1e-12
    assert not ((extra > 1.0) & (extra < 2.0)).any()  # nothing between two equal poses


@pytest.mark.parametrize('seed', range(3))
def test_a_cleared_motion_grazes_no_box_deeper_than_promised(seed):
    # Oracle: 1500 poses along each motion; a motion the check clears keeps every link at
    # least (1 - GRAZE) of its radius from every box.
    rng = np.random.default_rng(seed)
    links = _arm((0.02, 0.015))
    radii = np.array(links.radii)
    cleared = refused = 0
    for _ in range(12):
        boxes = check_keep_out_boxes(random_boxes(rng, 4, centre=(0.2, 0.0, 0.1), spread=0.35))
        check = MotionCheck(links, Obstacles(-math.inf, boxes))
        start, end = rng.uniform(-3.0, 3.0, 2), rng.uniform(-3.0, 3.0, 2)
        motion = _straight(start, end)
        if check.first_contact(motion, np.linspace(0.0, 1.0, 6)) is not None:
            refused += 1
            continue
        cleared += 1
        points = links.points_batch(motion(np.linspace(0.0, 1.0, 1500)))
        lower = np.array([box.lower for box in boxes])
        upper = np.array([box.upper for box in boxes])
        distance = oracle_segment_box(points[:, :-1, None, :], points[:, 1:, None, :], lower,
                                      upper)
        assert (distance >= (1.0 - GRAZE) * radii[None, :, None] - 1e-9).all()
    assert cleared and refused


def test_a_motion_that_starts_touching_may_leave_but_not_come_back():
    # Pointing down through a floor 0.1 m below the shoulder, then up out of it.
    check = MotionCheck(_arm(), Obstacles(-0.1, ()))
    leaving = _straight((-1.2, 0.0), (1.0, 0.0))
    assert check.first_contact(leaving, np.linspace(0.0, 1.0, 11)) is None
    back = _straight((1.0, 0.0), (-1.2, 0.0))
    found = check.first_contact(back, np.linspace(0.0, 1.0, 11))
    assert found is not None and found.time > 0.0


def test_a_motion_that_never_clears_is_refused_at_its_start():
    check = MotionCheck(_arm(), Obstacles(1.0, ()))  # everything below a floor at 1 m
    found = check.first_contact(_straight((0.0, 0.0), (0.5, 0.0)), [0.0, 1.0])
    assert found is not None and found.time == 0.0


def _ruckig_motion(start, goal):
    inp = InputParameter(2)
    inp.current_position, inp.target_position = list(start), list(goal)
    inp.max_velocity, inp.max_acceleration, inp.max_jerk = [2.0, 2.0], [8.0, 8.0], [80.0, 80.0]
    trajectory = Trajectory(2)
    Ruckig(2).calculate(inp, trajectory)
    return trajectory


def test_a_planned_motion_is_checked_at_its_streamed_samples_and_between():
    plate = check_keep_out_boxes([0.4, -0.1, -0.001, 0.5, 0.1, 0.001])
    check = MotionCheck(_arm(), Obstacles(-math.inf, plate))
    problem = check.trajectory_problem(_ruckig_motion((-1.0, 0.0), (1.0, 0.0)), 0.01)
    assert problem.startswith('it would touch, ') and 'keep-out box 1' in problem
    assert check.trajectory_problem(_ruckig_motion((0.5, 0.0), (1.5, 0.2)), 0.01) == ''
    # Coarse periods too: the extra poses find the plate between them.
    assert check.trajectory_problem(_ruckig_motion((-1.0, 0.0), (1.0, 0.0)), 0.5)
