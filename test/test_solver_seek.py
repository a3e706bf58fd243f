"""Tests of smooth seeking toward a new solution: two_bone_ik.solver.seek."""

import math

import numpy as np
import pytest

from two_bone_ik.solver import IkInputError, seek, solve


def test_joints_move_together_and_arrive_together():
    current = np.array((0.0, 0.0))
    goal = np.array((1.0, -0.5))
    steps = 0
    while not np.allclose(current, goal, atol=0.0):
        previous = current
        current = seek(current, goal, 0.1)
        change = current - previous
        assert np.max(np.abs(change)) <= 0.1 + 1e-15
        # Same direction in joint space: a straight line toward the goal.
        assert change[0] * -0.5 == pytest.approx(change[1] * 1.0, abs=1e-15)
        steps += 1
    assert steps == 10


def test_seek_goes_the_short_way_round():
    step = seek((3.0, 0.0), (-3.0, 0.0), 0.1)
    assert step[0] > 3.0  # through +pi, not back through zero
    assert seek((3.0, 0.0), (-3.0, 0.0), 1.0)[0] == pytest.approx(2 * math.pi - 3.0)


def test_seek_without_wrap_stays_on_the_straight_path_inside_limits():
    step = seek((3.0, 0.0), (-3.0, 0.0), 0.1, wrap=False)
    assert step[0] == pytest.approx(2.9)


def test_seeking_a_stream_of_solutions_converges_on_the_last():
    goal = solve(0.2, 0.35, 0.3, 0.25)
    angles = np.zeros(2)
    for _ in range(100):
        angles = seek(angles, (goal.q1, goal.q2), 0.05)
    assert angles == pytest.approx((goal.q1, goal.q2), abs=1e-12)


def test_seek_rejects_bad_input():
    with pytest.raises(IkInputError, match='max_step must be non-negative'):
        seek((0.0,), (1.0,), -0.1)
    with pytest.raises(IkInputError, match='angles must be finite'):
        seek((0.0,), (math.nan,), 0.1)
    with pytest.raises(IkInputError, match='one shape'):
        seek((0.0, 0.0), (1.0,), 0.1)
