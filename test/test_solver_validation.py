"""Tests of input validation shared by the solvers: two_bone_ik.solver.validation."""

import math

import numpy as np
import pytest

from two_bone_ik.solver import (IkInputError, MAX_JOINT_LIMIT, MAX_MAGNITUDE, solve, solve_batch,
                                solve_ccd)

SERVO = ((-math.pi / 2, math.pi / 2), (-math.pi / 2, math.pi / 2))
ABOVE = math.nextafter(1e100, math.inf)


def test_max_magnitude_is_1e100_metres():
    assert MAX_MAGNITUDE == 1e100


@pytest.mark.parametrize('limits', [None, SERVO])
@pytest.mark.parametrize('args, message', [
    ((-1e308, 1.7e308, 0.3, 0.25), r'^x is too large to solve exactly: -1e\+308 m '
                                   r'\(limit 1e\+100 m\)$'),
    ((1e308, -1e308, 0.3, 0.25), r'^x is too large to solve exactly: 1e\+308 m'),
    ((0.1, -1e101, 0.3, 0.25), r'^y is too large to solve exactly: -1e\+101 m '
                               r'\(limit 1e\+100 m\)$'),
    ((0.1, 0.2, 2e100, 0.25), r'^l1 is too large to solve exactly: 2e\+100 m'),
    ((0.1, 0.2, 0.3, ABOVE), r'^l2 is too large to solve exactly: 1.0000000000000002e\+100 m'),
])
def test_solve_rejects_values_too_large_to_solve_exactly(args, message, limits):
    # Before: with limits, (-1e308, 1.7e308) crashed with a TypeError, and (1e308, -1e308) was
    # answered while (1e308, 1e308) was rejected.
    with pytest.raises(IkInputError, match=message):
        solve(*args, limits=limits)


@pytest.mark.parametrize('limits', [None, SERVO])
def test_values_of_exactly_the_limit_are_solved(limits):
    for args in ((1e100, -1e100, 1e100, 1e100), (-1e100, 1e100, 1e100, 0.0),
                 (1e100, 1e100, 0.3, 0.25)):
        solution = solve(*args, limits=limits)
        assert math.isfinite(solution.q1) and math.isfinite(solution.q2)
        assert all(math.isfinite(value) for value in (*solution.tip, solution.error))


def test_batch_names_the_row_and_column_too_large():
    xy = [[0.1, 0.2], [0.3, 1e300], [2e100, 0.0]]
    with pytest.raises(IkInputError, match=r'^xy\[1, 1\] is too large to solve exactly: '
                                           r'1e\+300 m \(limit 1e\+100 m\)$'):
        solve_batch(xy, 0.3, 0.25)
    with pytest.raises(IkInputError, match=r'^xy\[1, 1\] is too large'):
        solve_batch(xy, 0.3, 0.25, limits=SERVO)
    with pytest.raises(IkInputError, match=r'^l2 is too large to solve exactly: 1e\+101 m'):
        solve_batch([[0.1, 0.2]], 0.3, 1e101)
    with pytest.raises(IkInputError, match=r'^xy\[0, 0\] must be finite, got nan'):
        solve_batch([[math.nan, 1e300]], 0.3, 0.25)
    batch = solve_batch([[1e100, -1e100], [-1e100, 0.0]], 1e100, 1e100, limits=SERVO)
    assert np.isfinite(batch.q).all() and np.isfinite(batch.error).all()


def test_ccd_names_the_value_too_large():
    with pytest.raises(IkInputError, match=r'^target\[0\] is too large to solve exactly: '
                                           r'-1e\+200 m \(limit 1e\+100 m\)$'):
        solve_ccd((-1e200, 0.0), (0.3, 0.25), (0.0, 0.0))
    with pytest.raises(IkInputError, match=r'^lengths\[1\] is too large to solve exactly'):
        solve_ccd((0.1, 0.0), (0.3, 1e200), (0.0, 0.0))
    result = solve_ccd((1e100, 0.0), (1e100, 0.5e100), (0.1, 0.1))
    assert np.isfinite(result.angles).all() and math.isfinite(result.error)


def test_max_joint_limit_is_1e5_radians():
    assert MAX_JOINT_LIMIT == 1e5


@pytest.mark.parametrize('limits, message', [
    (((-1e12, 0.0), (-1.0, 1.0)), r'^joint 1 lower limit -1e\+12 rad is beyond the supported '
                                  r'\+-1e\+05 rad \(use -inf for an unlimited side\)$'),
    (((-1.7e308, 0.0), (-1.0, 1.0)), r'^joint 1 lower limit -1.7e\+308 rad is beyond'),
    (((0.0, 1.0), (-1.0, 100000.5)), r'^joint 2 upper limit 100000.5 rad is beyond the '
                                     r'supported \+-1e\+05 rad \(use inf for an unlimited'),
    (((math.inf, math.inf), (-1.0, 1.0)), r'^joint 1 lower limit must be finite or -inf, got inf'),
    (((0.0, 1.0), (-math.inf, -math.inf)), r'^joint 2 upper limit must be finite or inf'),
])
def test_limits_beyond_the_supported_magnitude_raise(limits, message):
    # Before: lower limit -1e12 gave q1 near -1e12 rad, status REACHED and a tip 5e-5 m off;
    # -1.7e308 crashed.
    with pytest.raises(IkInputError, match=message):
        solve(0.3, 0.2, 0.3, 0.25, limits=limits)
    with pytest.raises(IkInputError, match=message):
        solve_batch([[0.3, 0.2]], 0.3, 0.25, limits=limits)
    with pytest.raises(IkInputError, match=message):
        solve_ccd((0.3, 0.2), (0.3, 0.25), (0.0, 0.0), limits=limits)


def test_limits_of_exactly_the_supported_magnitude_are_solved():
    limits = ((-1e5, -1e5 + 1.0), (1e5 - 4.0, 1e5))
    solution = solve(0.3, 0.2, 0.3, 0.25, limits=limits)
    assert -1e5 <= solution.q1 <= -1e5 + 1.0 and 1e5 - 4.0 <= solution.q2 <= 1e5
    unlimited = solve(0.3, 0.2, 0.3, 0.25, limits=((-math.inf, math.inf), (-1e5, math.inf)))
    assert unlimited.reachable


@pytest.mark.parametrize('previous, message', [
    ((math.nan, 0.0), r'^previous q1 must be finite, got nan'),
    ((0.0, math.inf), r'^previous q2 must be finite, got inf'),
    ((1.0,), r'^previous must be two angles \(q1, q2\) in radians, got \(1.0,\)'),
])
def test_previous_must_be_two_finite_angles_when_it_picks_the_representative(previous, message):
    # Before: with limits and elbow 'up', previous was not looked at, so not checked.
    with pytest.raises(IkInputError, match=message):
        solve(0.3, 0.2, 0.3, 0.25, limits=((-10.0, 10.0), (-10.0, 10.0)), previous=previous)


def test_previous_must_be_finite_at_the_origin():
    # Before: a NaN previous q1 came back as the shoulder angle for a target at the origin.
    with pytest.raises(IkInputError, match=r'^previous q1 must be finite, got nan'):
        solve(0.0, 0.0, 0.3, 0.25, previous=(math.nan, 0.0))
