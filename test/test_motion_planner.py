"""Tests of two_bone_ik.motion.planner: Ruckig motion within the limits, sampled in plan time."""

import math

from braking import check_brakes_forward
import numpy as np
import pytest

from two_bone_ik.motion.limits import MotionLimits
from two_bone_ik.motion.planner import MotionPlanner

INF = math.inf
PERIOD = 0.01
LIMITS = MotionLimits((1.5, 2.0), (4.0, 6.0), (30.0, 50.0))
UNLIMITED = ((-INF, INF), (-INF, INF))
#: Relative slack on every limit check (the issue's 1e-6).
RELATIVE = 1e-6


def run(planner, steps=100000):
    """Advance until at rest; return the samples."""
    samples = []
    for _ in range(steps):
        samples.append(planner.advance())
        if not planner.moving:
            return samples
    raise AssertionError('never came to rest')


def check_within_limits(samples, limits, start=None):
    """Check sampled velocity, acceleration and jerk (from the accelerations) within limits."""
    positions = np.array([s.position for s in samples])
    velocities = np.array([s.velocity for s in samples])
    accelerations = np.array([s.acceleration for s in samples])
    if start is not None:
        accelerations = np.vstack([start.acceleration, accelerations])
    assert np.all(np.isfinite(positions))
    for joint in range(2):
        assert np.abs(velocities[:, joint]).max() <= limits.velocity[joint] * (1 + RELATIVE)
        assert np.abs(accelerations[:, joint]).max() <= \
            limits.acceleration[joint] * (1 + RELATIVE)
        if len(accelerations) > 1:
            jerk = np.abs(np.diff(accelerations[:, joint])) / PERIOD
            assert jerk.max() <= limits.jerk[joint] * (1 + RELATIVE)


def test_limits_never_exceeded_and_arrival_exact():
    planner = MotionPlanner(LIMITS, UNLIMITED, PERIOD, (0.0, 0.0))
    duration = planner.plan((1.2, -2.5))
    assert duration > 0.0 and planner.moving
    samples = run(planner)
    check_within_limits(samples, LIMITS)
    assert samples[-1].position == (1.2, -2.5)  # exactly the goal
    assert samples[-1].velocity == (0.0, 0.0) and not samples[-1].moving
    # Plan time: multiples of the period, one per sample, and the motion took its duration.
    times = np.array([s.time for s in samples])
    np.testing.assert_allclose(np.diff(times), PERIOD, rtol=0, atol=1e-12)
    assert times[-1] - times[0] + PERIOD == pytest.approx(duration, abs=PERIOD)
    # Time-optimal: the slower joint reaches one of its limits.
    velocities = np.abs([s.velocity for s in samples])
    assert velocities[:, 1].max() == pytest.approx(2.0, rel=1e-3)


def test_replanning_mid_motion_is_continuous():
    planner = MotionPlanner(LIMITS, UNLIMITED, PERIOD, (0.0, 0.0))
    planner.plan((2.0, 2.0))
    before = [planner.advance() for _ in range(40)]
    planner.plan((-1.0, 0.5))  # mid-motion, at speed
    after = run(planner)
    samples = before + after
    check_within_limits(samples, LIMITS)
    positions = np.array([s.position for s in samples])
    velocities = np.array([s.velocity for s in samples])
    for joint in range(2):
        # No jump: steps bounded by the velocity and acceleration limits.
        assert np.abs(np.diff(positions[:, joint])).max() <= \
            LIMITS.velocity[joint] * PERIOD * (1 + RELATIVE)
        assert np.abs(np.diff(velocities[:, joint])).max() <= \
            LIMITS.acceleration[joint] * PERIOD * (1 + RELATIVE)
    assert samples[-1].position == (-1.0, 0.5)


def test_continuous_joints_take_the_short_way_and_never_wrap():
    planner = MotionPlanner(LIMITS, UNLIMITED, PERIOD, (3.0, -3.0))
    planner.plan((-3.0, 3.0))  # 0.28 rad the short way, not 6 rad back
    samples = run(planner)
    positions = np.array([s.position for s in samples])
    assert samples[-1].position == pytest.approx((-3.0 + 2 * math.pi, 3.0 - 2 * math.pi),
                                                 abs=1e-12)
    assert np.all(positions[:, 0] >= 3.0 - 1e-12) and np.all(positions[:, 1] <= -3.0 + 1e-12)
    assert np.abs(np.diff(positions, axis=0)).max() < 0.1  # continuous, no 2 pi jump


def _at_speed_near_the_upper_limit():
    """Return a planner moving joint 1 at full speed toward 0.98, its upper limit 1.0."""
    bounds = ((-1.0, 1.0), (-2.0, 0.5))
    planner = MotionPlanner(LIMITS, bounds, PERIOD, (-0.9, -1.9))
    planner.plan((0.98, 0.45))
    samples = []
    while not samples or samples[-1].position[0] < 0.7:
        samples.append(planner.advance())
    assert samples[-1].velocity[0] > 1.4
    return planner, bounds, samples


def test_limited_joints_stay_inside_even_when_a_replan_would_overshoot():
    planner, bounds, samples = _at_speed_near_the_upper_limit()
    plans = planner.plans
    # With the acceleration limit lowered (a runtime change), stopping at 0.75 from 1.4 rad/s
    # at 0.71 would overshoot 1.0 and come back: the current motion goes on to 0.98 (inside,
    # planned with the old limits), then the arm comes back to 0.75 from rest.
    slow = LIMITS._replace(acceleration=(1.0, 6.0))
    planner.set_limits(slow)
    planner.plan((0.75, 0.45))
    assert planner.plans == plans  # queued, not started
    samples += run(planner)
    assert planner.plans == plans + 1
    positions = np.array([s.position for s in samples])
    for joint, (lo, hi) in enumerate(bounds):
        assert positions[:, joint].min() >= lo and positions[:, joint].max() <= hi
    assert positions[:, 0].max() == pytest.approx(0.98, abs=1e-9)
    assert samples[-1].position == pytest.approx((0.75, 0.45), abs=1e-12)
    check_within_limits(samples, LIMITS)
    check_within_limits(samples[-40:], slow)  # the way back: the new limits


@pytest.mark.parametrize('seed', range(6))
def test_random_replans_stay_within_every_limit(seed):
    rng = np.random.default_rng(seed)
    bounds = ((-2.0, 2.5), (-INF, INF))
    limits = MotionLimits(tuple(rng.uniform(0.5, 3.0, 2)), tuple(rng.uniform(1.0, 10.0, 2)),
                          tuple(rng.uniform(5.0, 100.0, 2)))
    planner = MotionPlanner(limits, bounds, PERIOD, (0.0, 0.0))
    samples = []
    for _ in range(8):
        planner.plan((rng.uniform(-2.0, 2.5), rng.uniform(-8.0, 8.0)))
        for _ in range(int(rng.integers(1, 80))):
            samples.append(planner.advance())
    samples += run(planner)
    check_within_limits(samples, limits)
    positions = np.array([s.position for s in samples])
    assert positions[:, 0].min() >= -2.0 and positions[:, 0].max() <= 2.5


def test_goals_exactly_on_the_limits_never_sample_beyond_them():
    # Ruckig's samples of motions onto a limit, replanned from speed, overshoot it by up to
    # 5e-9 rad (in about one in ten of these random sets of limits): the planner clamps what it
    # hands out. Every value inside, with no tolerance, trajectory points included.
    bounds = ((-2.5, 2.5), (-2.8, 2.8))
    for seed in range(100):
        rng = np.random.default_rng(seed)
        limits = MotionLimits(tuple(rng.uniform(0.5, 3.0, 2)),
                              tuple(rng.uniform(1.0, 10.0, 2)), tuple(rng.uniform(5.0, 100.0, 2)))
        planner = MotionPlanner(limits, bounds, PERIOD, tuple(rng.uniform(-2.5, 2.5, 2)))
        values = []
        for _ in range(6):
            planner.plan(tuple(bound[int(side)]
                               for bound, side in zip(bounds, rng.integers(0, 2, 2))))
            values += [p.position for p in planner.points()]
            values += [planner.advance().position for _ in range(int(rng.integers(20, 200)))]
        values += [s.position for s in run(planner)]
        positions = np.array(values)
        for joint, (lo, hi) in enumerate(bounds):
            assert positions[:, joint].min() >= lo and positions[:, joint].max() <= hi, seed


@pytest.mark.parametrize('after', [10, 50, 120])
def test_stop_brakes_within_the_limits_and_holds(after):
    planner = MotionPlanner(LIMITS, UNLIMITED, PERIOD, (0.0, 0.0))
    planner.plan((3.0, -3.0))
    moving = [planner.advance() for _ in range(after)]
    speed = np.abs(moving[-1].velocity)
    assert speed.max() > 0.1
    where, duration, note = planner.stop()
    assert note == ''
    braking = run(planner)
    check_within_limits(braking, LIMITS, start=moving[-1])
    # Each joint rests beyond where it was, in its direction of travel, within its braking
    # distance (a stop planned as a move elsewhere, e.g. back to (0, 0), fails here).
    at = moving[-1]
    check_brakes_forward(at.position, at.velocity, at.acceleration, where,
                         [s.velocity for s in braking], LIMITS.acceleration, LIMITS.jerk)
    assert braking[-1].position == pytest.approx(where, abs=1e-12)
    assert braking[-1].velocity == (0.0, 0.0)
    assert len(braking) * PERIOD == pytest.approx(duration, abs=PERIOD)
    # Short of the goal, and it stays there.
    assert where[0] < 3.0 and where[1] > -3.0
    held = [planner.advance() for _ in range(10)]
    assert all(s.position == braking[-1].position and not s.moving for s in held)
    assert planner.stop() == (braking[-1].position, 0.0, '')


def test_trajectory_points_at_the_period_with_zero_end_velocity():
    planner = MotionPlanner(LIMITS, UNLIMITED, PERIOD, (0.0, 0.0))
    duration = planner.plan((0.5, -0.3))
    points = planner.points()
    times = [p.time_from_start for p in points]
    assert times[0] == pytest.approx(PERIOD)
    assert all(b > a for a, b in zip(times, times[1:]))
    np.testing.assert_allclose(np.diff(times[:-1]), PERIOD, atol=1e-12)
    assert times[-1] == pytest.approx(duration, abs=1e-12)
    assert points[-1].velocity == (0.0, 0.0) and points[-1].acceleration == (0.0, 0.0)
    assert points[-1].position == pytest.approx((0.5, -0.3), abs=1e-12)
    # The points are the samples the stream gives.
    for point in points[:-1]:
        sample = planner.advance()
        assert sample.position == pytest.approx(point.position, abs=1e-12)
        assert sample.velocity == pytest.approx(point.velocity, abs=1e-12)
    # Idle: one point, one period ahead, holding.
    run(planner)
    (hold,) = planner.points()
    assert hold.time_from_start == PERIOD and hold.velocity == (0.0, 0.0)


class _Straight:
    """A path motion for :meth:`MotionPlanner.follow`: straight in joint space, at 1 rad/s."""

    def __init__(self, start, goal):
        self.start, self.goal = np.array(start), np.array(goal)
        self.duration = float(np.abs(self.goal - self.start).max())
        self.braked_at = None

    def at_time(self, t):
        f = min(max(t / self.duration, 0.0), 1.0)
        v = (self.goal - self.start) / self.duration if 0.0 < f < 1.0 else 0.0 * self.goal
        return tuple(self.start + f * (self.goal - self.start)), tuple(v), (0.0, 0.0)

    @property
    def position_extrema(self):
        return []

    def brake(self, t):
        self.braked_at = t
        here = np.array(self.at_time(t)[0])
        return _Straight(here, here + 0.01 * np.sign(self.goal - self.start))


def test_a_path_motion_is_followed_from_rest_and_braked_by_its_own_brake():
    planner = MotionPlanner(LIMITS, UNLIMITED, PERIOD, (0.0, 0.0))
    motion = _Straight((0.0, 0.0), (0.5, -0.25))
    assert planner.follow(motion, (0.5, -0.25)) == pytest.approx(0.5)
    samples = run(planner)
    assert samples[-1].position == (0.5, -0.25) and not samples[-1].moving
    np.testing.assert_allclose(samples[10].position, (0.11, -0.055), atol=1e-12)
    second = _Straight((0.5, -0.25), (0.0, 0.0))
    planner.follow(second, (0.0, 0.0))
    for _ in range(20):
        planner.advance()
    with pytest.raises(Exception, match='starts from rest'):
        planner.follow(_Straight((0.0, 0.0), (1.0, 1.0)), (1.0, 1.0))
    brake = planner.stop()
    assert second.braked_at == pytest.approx(20 * PERIOD)
    assert brake.duration == pytest.approx(0.01) and brake.note == ''
    np.testing.assert_allclose(brake.position, (0.29, -0.14), atol=1e-12)


def test_every_new_motion_is_checked_before_it_starts():
    seen = []

    def check(trajectory, period):
        seen.append((trajectory.duration, period))
        return 'it would touch, somewhere' if len(seen) == 2 else ''
    planner = MotionPlanner(LIMITS, UNLIMITED, PERIOD, (0.0, 0.0), check)
    planner.plan((0.3, 0.2))
    run(planner)
    from two_bone_ik.motion.trajectory import MotionError
    with pytest.raises(MotionError, match='it would touch, somewhere'):
        planner.plan((0.0, 0.0))
    assert not planner.moving and planner.state.position == pytest.approx((0.3, 0.2))
    motion = _Straight((0.3, 0.2), (0.0, 0.0))
    motion.checked_with = check  # already checked with it: not asked again
    planner.follow(motion, (0.0, 0.0))
    assert len(seen) == 2 and seen[0][1] == PERIOD


def test_hold_leaves_the_motion_for_where_the_arm_is_within_the_limits():
    planner = MotionPlanner(LIMITS, UNLIMITED, PERIOD, (0.0, 0.0))
    planner.plan((2.0, -2.0))
    samples = [planner.advance() for _ in range(60)]
    # The arm is measured behind its command: the motion brakes and comes back to it.
    measured = (samples[-1].position[0] - 0.3, samples[-1].position[1] + 0.2)
    brake = planner.hold(measured)
    assert brake.note == '' and brake.duration > 0.0
    assert brake.position == pytest.approx(measured, abs=1e-12)
    held = run(planner)
    check_within_limits(held, LIMITS, start=samples[-1])
    assert held[-1].position == pytest.approx(measured, abs=1e-12)
    assert held[-1].velocity == (0.0, 0.0)


def test_a_hold_that_would_pass_a_joint_limit_brakes_where_the_motion_is():
    planner, bounds, samples = _at_speed_near_the_upper_limit()
    planner.set_limits(LIMITS._replace(acceleration=(1.0, 6.0)))
    brake = planner.hold((0.75, 0.45))  # braking toward it would overshoot 1.0: not queued
    held = run(planner)
    positions = np.array([s.position for s in samples + held])
    for joint, (lo, hi) in enumerate(bounds):
        assert positions[:, joint].min() >= lo and positions[:, joint].max() <= hi
    # As ~/stop would: the note says it could not brake within the limits in force.
    assert brake.note.startswith('braking')
    assert held[-1].position == pytest.approx(brake.position, abs=1e-12)
    assert held[-1].position != pytest.approx((0.75, 0.45), abs=1e-3)
