"""Tests of two_bone_ik.sim.trajectory_follower: joint_trajectory_controller's spline following."""

import math

import numpy as np
import pytest

from two_bone_ik.sim.trajectory_follower import overflowing_joints
from two_bone_ik.sim.trajectory_follower import segment_coefficients
from two_bone_ik.sim.trajectory_follower import TrajectoryFollower, TrajectoryOverflow
from two_bone_ik.sim.trajectory_follower import TrajectoryPoint
from two_bone_ik.sim.trajectory_follower import unwrapped_start

P = TrajectoryPoint


def analytic(duration, start, end, degree):
    """Coefficients of the polynomial of ``degree`` meeting the boundary values, per joint.

    Solves the boundary conditions as a linear system (independently of the closed forms under
    test): positions at both ends; velocities too for degree 3; accelerations too for degree 5.
    """
    rows = []

    def derivative_row(t, order):
        row = np.zeros(degree + 1)
        for k in range(order, degree + 1):
            row[k] = math.factorial(k) / math.factorial(k - order) * t ** (k - order)
        return row
    orders = {1: (0,), 3: (0, 1), 5: (0, 1, 2)}[degree]
    for order in orders:
        rows += [derivative_row(0.0, order), derivative_row(duration, order)]
    fields = ('positions', 'velocities', 'accelerations')
    coefficients = []
    for joint in range(len(start.positions)):
        rhs = []
        for order in orders:
            rhs += [getattr(start, fields[order])[joint], getattr(end, fields[order])[joint]]
        coefficients.append(np.linalg.solve(np.array(rows), np.array(rhs)))
    return coefficients


def polynomial(coefficients, t, order=0):
    return sum(math.factorial(k) / math.factorial(k - order) * c * t ** (k - order)
               for k, c in enumerate(coefficients) if k >= order)


A = P(0.0, (0.3, -1.2), (0.5, -0.1), (2.0, 1.5))
B = P(0.0, (-0.7, 0.4), (-0.2, 0.9), (-1.0, 0.25))
KINDS = {
    'quintic': (5, A, B),
    'cubic': (3, A._replace(accelerations=()), B._replace(accelerations=())),
    'linear': (1, A._replace(velocities=(), accelerations=()),
               B._replace(velocities=(), accelerations=())),
}


@pytest.mark.parametrize('kind', KINDS.values(), ids=list(KINDS))
def test_segment_is_the_analytic_spline_with_its_boundary_values(kind):
    degree, start, end = kind
    duration = 1.7
    coefficients = segment_coefficients(duration, start, end)
    assert coefficients.shape == (2, 6)
    assert not coefficients[:, degree + 1:].any()  # no higher terms than the kind's degree
    expected = analytic(duration, start, end, degree)
    for joint in range(2):
        np.testing.assert_allclose(coefficients[joint, :degree + 1], expected[joint],
                                   rtol=1e-12, atol=1e-12)
    # Through the follower: the boundary values at both ends and the polynomial in between.
    follower = TrajectoryFollower([False, False])
    follower.start([start._replace(time_from_start=0.0), end._replace(time_from_start=duration)],
                   now=10.0, positions=(0.0, 0.0), velocities=(0.0, 0.0))
    at_start, at_end = follower.sample(10.0), follower.sample(10.0 + duration - 1e-12)
    np.testing.assert_allclose(at_start.positions, start.positions, atol=1e-12)
    np.testing.assert_allclose(at_end.positions, end.positions, atol=1e-9)
    if degree >= 3:
        np.testing.assert_allclose(at_start.velocities, start.velocities, atol=1e-12)
        np.testing.assert_allclose(at_end.velocities, end.velocities, atol=1e-9)
    else:  # linear: a constant velocity
        slope = (np.subtract(end.positions, start.positions)) / duration
        np.testing.assert_allclose(at_start.velocities, slope, atol=1e-12)
        np.testing.assert_allclose(at_end.velocities, slope, atol=1e-9)
    if degree == 5:
        np.testing.assert_allclose(at_start.accelerations, start.accelerations, atol=1e-12)
        np.testing.assert_allclose(at_end.accelerations, end.accelerations, atol=1e-8)
    for t in np.linspace(0.0, duration, 11)[1:-1]:
        sample = follower.sample(10.0 + t)
        for joint in range(2):
            for order, values in enumerate(sample):
                assert values[joint] == pytest.approx(
                    polynomial(expected[joint], t, order), abs=1e-10)


def test_accelerations_without_velocities_interpolate_linearly():
    # joint_trajectory_controller computes nothing for such a segment; the follower goes
    # straight, as with positions only.
    start = P(0.0, (0.0, 1.0), (), (3.0, 3.0))
    end = P(2.0, (1.0, 0.0), (), (-3.0, 0.0))
    coefficients = segment_coefficients(2.0, start, end)
    np.testing.assert_allclose(coefficients[:, :2], [[0.0, 0.5], [1.0, -0.5]])
    assert not coefficients[:, 2:].any()


SPLINE_POINTS = [
    P(1.0, (0.5, -0.5), (0.8, 0.0), (0.0, -1.0)),
    P(1.8, (1.0, -0.2), (0.2, 0.6), (-1.5, 0.5)),
    P(2.5, (0.9, 0.3), (-0.3, 0.4), (0.0, 0.0)),
    P(4.0, (0.2, 0.6), (0.0, 0.0), (0.0, 0.0)),
]


@pytest.mark.parametrize('fields', ['pva', 'pv', 'p'])
def test_continuous_at_every_point_and_through_each_point(fields):
    points = [P(p.time_from_start, p.positions,
                p.velocities if 'v' in fields else (),
                p.accelerations if 'a' in fields else ()) for p in SPLINE_POINTS]
    follower = TrajectoryFollower([False, False])
    now = 5.0
    follower.start(points, now, positions=(0.1, -0.1), velocities=(0.2, -0.3))
    eps = 1e-7
    for point in points:
        t = now + point.time_from_start
        before, at, after = follower.sample(t - eps), follower.sample(t), follower.sample(t + eps)
        np.testing.assert_allclose(at.positions, point.positions, atol=1e-12)
        np.testing.assert_allclose(before.positions, at.positions, atol=1e-5)
        np.testing.assert_allclose(after.positions, at.positions, atol=1e-5)
        if 'v' in fields:
            np.testing.assert_allclose(at.velocities, point.velocities, atol=1e-9)
            np.testing.assert_allclose(before.velocities, after.velocities, atol=1e-5)
        if 'a' in fields:
            np.testing.assert_allclose(at.accelerations, point.accelerations, atol=1e-8)
            np.testing.assert_allclose(before.accelerations, after.accelerations, atol=1e-4)


@pytest.mark.parametrize('fields', ['pva', 'pv', 'p'])
def test_starts_from_the_current_state(fields):
    first = P(1.5, (1.0, -1.0), (0.0, 0.0) if 'v' in fields else (),
              (0.0, 0.0) if 'a' in fields else ())
    follower = TrajectoryFollower([False, False])
    follower.start([first], now=3.0, positions=(0.2, 0.4), velocities=(-0.5, 0.7))
    sample = follower.sample(3.0)
    np.testing.assert_allclose(sample.positions, (0.2, 0.4), atol=1e-12)
    if 'v' in fields:  # the measured velocity: no jump in velocity either
        np.testing.assert_allclose(sample.velocities, (-0.5, 0.7), atol=1e-12)
    if 'a' in fields:  # the state's acceleration is taken as zero
        np.testing.assert_allclose(sample.accelerations, (0.0, 0.0), atol=1e-12)
    # The spline from the state to the first point is the analytic one.
    state = P(0.0, (0.2, 0.4), (-0.5, 0.7) if 'v' in fields else (),
              (0.0, 0.0) if 'a' in fields else ())
    degree = {'pva': 5, 'pv': 3, 'p': 1}[fields]
    expected = analytic(1.5, state, first, degree)
    sample = follower.sample(3.0 + 0.6)
    for joint in range(2):
        assert sample.positions[joint] == pytest.approx(polynomial(expected[joint], 0.6),
                                                        abs=1e-12)
    np.testing.assert_allclose(follower.sample(4.5).positions, first.positions, atol=1e-12)


def test_holds_the_last_point():
    follower = TrajectoryFollower([False, False])
    assert not follower.active
    last = P(2.0, (0.7, -0.4), (0.0, 0.0), (0.0, 0.0))
    follower.start([P(1.0, (0.3, 0.1), (0.4, -0.2), (0.0, 0.0)), last], now=0.0,
                   positions=(0.0, 0.0), velocities=(0.0, 0.0))
    assert follower.active and follower.end_time == 2.0
    for t in (2.0, 2.5, 100.0):
        sample = follower.sample(t)
        np.testing.assert_allclose(sample.positions, last.positions)
        np.testing.assert_allclose(sample.velocities, (0.0, 0.0))
        np.testing.assert_allclose(sample.accelerations, (0.0, 0.0))
    # Positions only: the held velocities and accelerations are zero too.
    follower.start([P(0.5, (1.0, 1.0))], now=0.0, positions=(0.0, 0.0), velocities=(0.0, 0.0))
    np.testing.assert_allclose(follower.sample(1.0).velocities, (0.0, 0.0))
    follower.clear()
    assert not follower.active
    with pytest.raises(RuntimeError, match='no trajectory'):
        follower.sample(1.0)


def test_a_new_trajectory_replaces_the_old_one_from_now_on():
    follower = TrajectoryFollower([False, False])
    old = [P(1.0, (1.0, 1.0), (0.5, 0.5), (0.0, 0.0)), P(2.0, (2.0, 2.0), (0.0, 0.0), (0.0, 0.0))]
    follower.start(old, now=0.0, positions=(0.0, 0.0), velocities=(0.0, 0.0))
    replaced_at = 1.3
    state = follower.sample(replaced_at)
    new = [P(1.0, (-1.0, 0.5), (0.0, 0.0), (0.0, 0.0))]
    follower.start(new, now=replaced_at, positions=state.positions, velocities=state.velocities)
    # It goes on from where the old one was, at that velocity, to the new point; the old points
    # are gone.
    sample = follower.sample(replaced_at)
    np.testing.assert_allclose(sample.positions, state.positions, atol=1e-12)
    np.testing.assert_allclose(sample.velocities, state.velocities, atol=1e-12)
    assert follower.end_time == pytest.approx(replaced_at + 1.0)
    np.testing.assert_allclose(follower.sample(replaced_at + 1.0).positions, (-1.0, 0.5))
    np.testing.assert_allclose(follower.sample(5.0).positions, (-1.0, 0.5))


def test_stamp_in_the_future_delays_the_points_and_the_motion_starts_at_reception():
    # As the controller does: time_from_start counts from the stamp, and the segment from the
    # state to the first point runs from reception to stamp + time_from_start.
    follower = TrajectoryFollower([False, False])
    now, stamp = 10.0, 12.0
    points = [P(1.0, (1.0, 0.0), (0.0, 0.0)), P(2.0, (1.0, 1.0), (0.0, 0.0))]
    follower.start(points, now, positions=(0.0, 0.0), velocities=(0.0, 0.0), start_time=stamp)
    assert follower.end_time == pytest.approx(stamp + 2.0)
    np.testing.assert_allclose(follower.sample(now).positions, (0.0, 0.0), atol=1e-12)
    state = P(0.0, (0.0, 0.0), (0.0, 0.0))
    expected = analytic(stamp + 1.0 - now, state, points[0], 3)
    middle = follower.sample(now + 1.5).positions
    assert middle[0] == pytest.approx(polynomial(expected[0], 1.5), abs=1e-12)
    assert 0.0 < middle[0] < 1.0
    np.testing.assert_allclose(follower.sample(stamp + 1.0).positions, (1.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(follower.sample(stamp + 1.5).positions, (1.0, 0.5), atol=1e-12)


def test_stamp_in_the_past_starts_inside_the_trajectory():
    # As the controller does: the points already due are skipped, from the segment now is in.
    follower = TrajectoryFollower([False])
    points = [P(0.5, (0.0,)), P(2.0, (3.0,))]
    follower.start(points, now=10.0, positions=(5.0,), velocities=(0.0,), start_time=9.0)
    np.testing.assert_allclose(follower.sample(10.0).positions, (1.0,), atol=1e-12)
    np.testing.assert_allclose(follower.sample(11.0).positions, (3.0,), atol=1e-12)


def test_first_point_at_zero_time_is_commanded_at_once():
    follower = TrajectoryFollower([False, False])
    follower.start([P(0.0, (0.4, 0.4)), P(1.0, (0.8, 0.4))], now=2.0, positions=(0.0, 0.0),
                   velocities=(0.0, 0.0))
    np.testing.assert_allclose(follower.sample(2.0).positions, (0.4, 0.4), atol=1e-12)
    np.testing.assert_allclose(follower.sample(2.5).positions, (0.6, 0.4), atol=1e-12)


def test_continuous_joint_starts_the_short_way_round():
    # Joint 0 continuous, at 0.1 rad; the first point at 6.0 rad is 0.38 rad behind it the
    # short way: the start is unwrapped to 0.1 + 2 pi. Joint 1 is limited: taken as it is.
    follower = TrajectoryFollower([True, False])
    follower.start([P(1.0, (6.0, 6.0))], now=0.0, positions=(0.1, 0.1), velocities=(0.0, 0.0))
    start = follower.sample(0.0).positions
    assert start[0] == pytest.approx(0.1 + math.tau)
    assert start[1] == pytest.approx(0.1)
    samples = np.array([follower.sample(t).positions for t in np.linspace(0.0, 1.0, 21)])
    assert np.ptp(samples[:, 0]) == pytest.approx(0.1 + math.tau - 6.0)


@pytest.mark.parametrize('current, first, expected', [
    (0.0, 0.5, 0.0),
    (0.1, 6.0, 0.1 + math.tau),
    (7.0, 0.5, 7.0 - math.tau),
    (0.0, math.pi, 0.0),  # half a turn: toward first, the way first - current points
    (0.0, -math.pi, 0.0),
    (math.pi, 0.0, math.pi),
    (-5 * math.pi, 0.0, -math.pi),
])
def test_unwrapped_start(current, first, expected):
    assert unwrapped_start(current, first) == pytest.approx(expected, abs=1e-12)


def test_start_needs_a_point():
    with pytest.raises(ValueError, match='at least one point'):
        TrajectoryFollower([False, False]).start([], 0.0, (0.0, 0.0), (0.0, 0.0))


# -- overflow -------------------------------------------------------------------------------

@pytest.mark.parametrize('start, end, duration, bad', [
    (P(0.0, (0.0, 0.0)), P(0.0, (1e308, -1e308)), 1.0, []),  # huge, but finite all along
    (P(0.0, (1e308, 0.0)), P(0.0, (-1e308, 0.0)), 1.0, [0]),  # the difference overflows
    (P(0.0, (0.0, 0.0)), P(0.0, (0.0, 1e300)), 1e-9, [1]),  # in a nanosecond
    (P(0.0, (0.0, 0.0), (0.0, 0.0)), P(0.0, (0.0, 0.0), (1.7e308, 0.0)), 1.0, [0]),
    (P(0.0, (0.0,), (0.0,), (0.0,)), P(0.0, (0.0,), (0.0,), (-1e308,)), 1.0, [0]),
])
def test_overflowing_joints(start, end, duration, bad):
    coefficients = segment_coefficients(duration, start, end)
    assert overflowing_joints(coefficients, duration).tolist() == bad


def test_a_started_trajectory_samples_finite_everywhere():
    # Random trajectories of every magnitude and spacing: each is refused, or its positions,
    # velocities and accelerations are finite at any time, computed without a numpy warning.
    rng = np.random.default_rng(1)

    def values():
        return tuple(rng.choice([-1.0, 1.0], 2) * 10.0 ** rng.uniform(-3, 308.25, 2))
    started = 0
    for _ in range(1000):
        times = np.cumsum(10.0 ** rng.uniform(-9, 2, 2))
        points = [P(float(t), values(), values(), values()) for t in times]
        follower = TrajectoryFollower([False, False])
        try:
            follower.start(points, now=0.0, positions=values(), velocities=values())
        except TrajectoryOverflow:
            continue
        started += 1
        with np.errstate(all='raise'):
            for t in rng.uniform(0.0, times[-1], 5):
                assert all(np.isfinite(field).all() for field in follower.sample(float(t)))
    assert 100 < started < 900


def test_an_overflowing_trajectory_is_refused_and_the_one_before_stays():
    follower = TrajectoryFollower([False, False])
    follower.start([P(1.0, (1.0, 1.0))], now=0.0, positions=(0.0, 0.0), velocities=(0.0, 0.0))
    with pytest.raises(TrajectoryOverflow) as error:
        follower.start([P(1.0, (0.0, 0.0)), P(2.0, (0.0, 1e308)), P(3.0, (0.0, -1e308))],
                       now=0.5, positions=(0.5, 0.5), velocities=(0.0, 0.0))
    assert (error.value.point, error.value.joint, error.value.from_state) == (2, 1, False)
    assert str(error.value) == 'the spline from point 1 to point 2 overflows for joint 1'
    assert follower.end_time == 1.0
    np.testing.assert_allclose(follower.sample(0.75).positions, (0.75, 0.75))
