"""Tests of two_bone_ik.motion.path_timing: a path timed within every joint's limits."""

import math

import numpy as np
import pytest

from two_bone_ik.motion.limits import MotionLimits
from two_bone_ik.motion.path_timing import path_limits, PathBounds, time_path
from two_bone_ik.motion.trajectory import MotionError


class CurvedPath:
    """q(s) = (0.8 sin(2 s), 0.5 s^2 - 0.2 s, 0.3 s), its derivatives in closed form."""

    def readings(self, s):
        s = np.asarray(s, dtype=float)
        return np.stack((0.8 * np.sin(2.0 * s), 0.5 * s * s - 0.2 * s, 0.3 * s), axis=1)

    interpolated = readings

    def derivatives(self, s, third=False):
        s = np.asarray(s, dtype=float)
        zero = np.zeros_like(s)
        out = (np.stack((1.6 * np.cos(2.0 * s), s - 0.2, zero + 0.3), axis=1),
               np.stack((-3.2 * np.sin(2.0 * s), zero + 1.0, zero), axis=1),
               np.stack((-6.4 * np.cos(2.0 * s), zero, zero), axis=1))
        return out if third else out[:2]

    def bounds(self):
        s = np.linspace(0.0, 1.0, 10001)
        return PathBounds(*(tuple(np.abs(d).max(axis=0)) for d in self.derivatives(s, True)))


LIMITS = MotionLimits((1.0, 0.8, 2.0), (4.0, 3.0, 10.0), (40.0, 30.0, 100.0))


def _finite_differences(motion, step=1e-3):
    times = np.arange(0.0, motion.duration, step)
    q = motion.path.readings(motion.states(times)[:, 0])
    return (np.abs(np.diff(q, axis=0)) / step, np.abs(np.diff(q, 2, axis=0)) / step ** 2,
            np.abs(np.diff(q, 3, axis=0)) / step ** 3)


def test_a_straight_joint_path_takes_the_joints_limits():
    bounds = PathBounds((0.5, 0.0), (0.0, 0.0), (0.0, 0.0))
    limits = path_limits(bounds, MotionLimits((1.0, 9.0), (4.0, 9.0), (40.0, 9.0)))
    assert limits.velocity == pytest.approx(2.0)  # V / |q'|
    assert limits.acceleration == pytest.approx(8.0)
    assert limits.jerk == pytest.approx(80.0)


def test_infinite_limits_constrain_nothing_but_one_must_bound_the_path():
    bounds = PathBounds((0.5, 1.0), (0.1, 0.0), (0.0, 0.0))
    limits = path_limits(bounds, MotionLimits((math.inf, 2.0), (math.inf, math.inf),
                                              (math.inf, math.inf)))
    assert limits.velocity == pytest.approx(2.0)
    assert math.isinf(limits.acceleration) and math.isinf(limits.jerk)
    with pytest.raises(MotionError, match='no motion limit bounds the joints'):
        path_limits(PathBounds((0.0, 1.0), (0.0, 0.0), (0.0, 0.0)),
                    MotionLimits((2.0, math.inf), (8.0, math.inf), (80.0, math.inf)))


def test_a_timed_path_goes_from_rest_to_rest_along_it():
    path = CurvedPath()
    motion = time_path(path, path.bounds(), LIMITS)
    start, end = motion.states([0.0, motion.duration])
    np.testing.assert_allclose(start, (0.0, 0.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(end, (1.0, 0.0, 0.0), atol=1e-9)
    s = motion.states(np.linspace(0.0, motion.duration, 400))[:, 0]
    assert (np.diff(s) >= -1e-12).all()  # never backwards along the path


def test_every_joint_keeps_its_velocity_acceleration_and_jerk_limits():
    path = CurvedPath()
    motion = time_path(path, path.bounds(), LIMITS)
    velocity, acceleration, jerk = _finite_differences(motion)
    assert (velocity.max(axis=0) <= np.array(LIMITS.velocity) * (1 + 1e-6)).all()
    assert (acceleration.max(axis=0) <= np.array(LIMITS.acceleration) * (1 + 1e-6)).all()
    assert (jerk.max(axis=0) <= np.array(LIMITS.jerk) * (1 + 1e-6)).all()
    # ... and uses them: the joint nearest a limit is within 15 % of it.
    ratios = [(velocity.max(axis=0) / LIMITS.velocity).max(),
              (acceleration.max(axis=0) / LIMITS.acceleration).max(),
              (jerk.max(axis=0) / LIMITS.jerk).max()]
    assert max(ratios) > 0.85
    # The samples' velocities and accelerations are the path's: q' s. and q'' s.^2 + q' s..
    times = np.linspace(0.0, motion.duration, 50)
    q, v, a = motion.samples(times)
    states = motion.states(times)
    first, second = path.derivatives(states[:, 0])
    np.testing.assert_allclose(q, path.readings(states[:, 0]), atol=0)
    np.testing.assert_allclose(v, first * states[:, 1:2], atol=1e-12)
    np.testing.assert_allclose(a, second * states[:, 1:2] ** 2 + first * states[:, 2:3],
                               atol=1e-12)


def test_at_time_is_the_remembered_sample():
    path = CurvedPath()
    motion = time_path(path, path.bounds(), LIMITS)
    q, v, a = motion.samples([0.1, 0.2])
    assert motion.at_time(0.2) == (tuple(q[1]), tuple(v[1]), tuple(a[1]))
    fresh = motion.at_time(0.123)
    np.testing.assert_allclose(fresh[0], path.readings(motion.states([0.123])[:, 0])[0])


def test_braking_stays_on_the_path_within_the_limits():
    path = CurvedPath()
    motion = time_path(path, path.bounds(), LIMITS)
    t = 0.4 * motion.duration
    braking = motion.brake(t)
    now, first = motion.states([t])[0], braking.states([0.0])[0]
    np.testing.assert_allclose(first, now, atol=1e-12)  # continuous: s, s., s..
    end = braking.states([braking.duration])[0]
    assert now[0] < end[0] < 1.0 and end[1] == pytest.approx(0.0, abs=1e-9)
    assert braking.duration < motion.duration - t
    velocity, acceleration, jerk = _finite_differences(braking)
    assert (acceleration.max(axis=0) <= np.array(LIMITS.acceleration) * (1 + 1e-6)).all()
    assert (jerk.max(axis=0) <= np.array(LIMITS.jerk) * (1 + 1e-6)).all()


def test_extrema_cover_the_motion():
    path = CurvedPath()
    motion = time_path(path, path.bounds(), LIMITS)
    extrema = motion.position_extrema
    q = path.readings(np.linspace(0.0, 1.0, 1001))
    for joint, bound in enumerate(extrema):
        assert bound.min == pytest.approx(q[:, joint].min(), abs=1e-6)
        assert bound.max == pytest.approx(q[:, joint].max(), abs=1e-6)
