"""Tests of two_bone_ik.solver.closest_pose_batch: solve_batch within limits, row by row.

Each row of a batch with limits must agree with the slow reference (test/solver_reference.py)
as the scalar search does: the same status, the same tip distance to within 1e-10 of the arm's
reach, the angles inside the limits.
"""

import math

import numpy as np
import pytest
from solver_reference import random_limit_pair, reference_solve

from two_bone_ik.solver import solve_batch
from two_bone_ik.solver.closest_pose import clamp_into_arc
from two_bone_ik.solver.closest_pose_batch import clamp_into_arc_array


@pytest.mark.parametrize('elbow, flip', [('up', True), ('down', True), ('up', False),
                                         ('down', False)])
def test_each_row_agrees_with_the_slow_reference(elbow, flip):
    rng = np.random.default_rng(23)
    for _ in range(12):
        l1, l2 = rng.uniform(0.05, 1.0, size=2)
        limits = (random_limit_pair(rng), random_limit_pair(rng))
        radius = rng.uniform(0.0, 1.3 * (l1 + l2), size=12)
        radius[0] = 0.0
        angle = rng.uniform(-math.pi, math.pi, size=12)
        xy = np.stack((radius * np.cos(angle), radius * np.sin(angle)), axis=1)
        batch = solve_batch(xy, l1, l2, elbow=elbow, limits=limits, allow_elbow_flip=flip)
        for row, (x, y) in enumerate(xy):
            reference = reference_solve(x, y, l1, l2, elbow, limits, flip)
            assert batch.status[row] == reference.status, (x, y, l1, l2, limits)
            assert batch.error[row] == pytest.approx(reference.distance, abs=1e-10 * (l1 + l2))
            for q, (lo, hi) in zip(batch.q[row], limits):
                assert lo <= q <= hi


def test_clamp_into_arc_array_is_the_scalar_clamp_for_each_angle():
    rng = np.random.default_rng(24)
    for _ in range(50):
        start = rng.uniform(-10.0, 10.0)
        width = rng.choice([0.0, 1e-12, rng.uniform(0.0, 2 * math.pi)])
        angles = rng.uniform(-20.0, 20.0, size=40)
        clamped = clamp_into_arc_array(angles, start, width, start + width)
        assert clamped.tolist() == [clamp_into_arc(a, start, width, start + width)
                                    for a in angles.tolist()]
