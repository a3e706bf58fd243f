"""Tests of two_bone_ik.solver.solve_batch: the same results as solve, element by element."""

import math

from fk_oracle import arm_tips
from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np
import pytest

from two_bone_ik.solver import IkInputError, IkStatus, solve, solve_batch


def mixed_targets(rng, l1, l2, count):
    """Targets inside, on and outside the workspace, at the origin and on both circles."""
    s, d = l1 + l2, abs(l1 - l2)
    radius = rng.uniform(0.0, 1.4 * s, size=count)
    radius[:5] = (0.0, s, d, 2 * s, d / 2)
    angle = rng.uniform(-math.pi, math.pi, size=count)
    return np.stack((radius * np.cos(angle), radius * np.sin(angle)), axis=1)


def assert_matches_scalar(batch, xy, l1, l2, relative=False, **kwargs):
    """Row i of the batch equals solve on target i: status, angles within 1e-12 rad.

    Tips and errors within 1e-12 m, or within 1e-12 of the arm's or target's size when
    ``relative``; then, for a target so far that a link is below the rounding of its distance
    (poses that differ in that link's angle are equally close, up to rounding), the angles
    and tips are not compared.
    """
    previous = kwargs.pop('previous', None)
    for i, (x, y) in enumerate(xy):
        one = solve(x, y, l1, l2, previous=None if previous is None else previous[i], **kwargs)
        assert batch.status[i] == one.status, (i, x, y)
        assert batch.reachable[i] == one.reachable
        size = max(l1 + l2, math.hypot(x, y)) if relative else 1.0
        if not relative or min(l1, l2) > 1e-6 * size:
            assert batch.q[i] == pytest.approx((one.q1, one.q2), abs=1e-12)
            assert batch.tip[i] == pytest.approx(one.tip, abs=1e-12 * size)
        assert batch.error[i] == pytest.approx(one.error, abs=1e-12 * size)


@pytest.mark.parametrize('elbow', ['up', 'down', 'nearest'])
@pytest.mark.parametrize('l1, l2', [(0.3, 0.25), (0.25, 0.3), (0.4, 0.4), (0.0, 0.5), (2.0, 0.0)])
def test_batch_equals_scalar_without_limits(elbow, l1, l2):
    rng = np.random.default_rng(3)
    xy = mixed_targets(rng, l1, l2, 400)
    batch = solve_batch(xy, l1, l2, elbow=elbow)
    assert batch.q.shape == (400, 2) and batch.tip.shape == (400, 2)
    assert set(np.unique(batch.status)) <= {IkStatus.REACHED, IkStatus.OUT_OF_REACH,
                                            IkStatus.INSIDE_INNER}
    assert_matches_scalar(batch, xy, l1, l2, elbow=elbow)


def test_batch_nearest_uses_previous_per_target():
    rng = np.random.default_rng(4)
    xy = mixed_targets(rng, 0.3, 0.25, 300)
    previous = rng.uniform(-math.pi, math.pi, size=(300, 2))
    batch = solve_batch(xy, 0.3, 0.25, elbow='nearest', previous=previous)
    assert (batch.q[:, 1] > 0).any() and (batch.q[:, 1] < 0).any()
    assert_matches_scalar(batch, xy, 0.3, 0.25, elbow='nearest', previous=previous)


@pytest.mark.parametrize('allow_elbow_flip', [True, False])
@pytest.mark.parametrize('elbow', ['up', 'down'])
def test_batch_equals_scalar_with_limits(elbow, allow_elbow_flip):
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(12):
        lo1, lo2 = rng.uniform(-4.0, 2.0, size=2)
        limits = ((lo1, lo1 + rng.uniform(0.2, 5.0)), (lo2, lo2 + rng.uniform(0.2, 5.0)))
        xy = mixed_targets(rng, 0.3, 0.25, 150)
        batch = solve_batch(xy, 0.3, 0.25, elbow=elbow, limits=limits,
                            allow_elbow_flip=allow_elbow_flip)
        seen.update(int(code) for code in batch.status)
        assert_matches_scalar(batch, xy, 0.3, 0.25, elbow=elbow, limits=limits,
                              allow_elbow_flip=allow_elbow_flip)
    assert IkStatus.JOINT_LIMITED in seen
    assert (IkStatus.ELBOW_FLIPPED in seen) == allow_elbow_flip


def test_batch_with_half_open_and_infinite_limits():
    rng = np.random.default_rng(6)
    xy = mixed_targets(rng, 0.3, 0.25, 300)
    for limits in (((-math.inf, 0.5), (-1.0, math.inf)),
                   ((-math.inf, math.inf), (0.0, 1.0)),
                   ((0.0, 0.5), (-math.inf, math.inf))):
        batch = solve_batch(xy, 0.3, 0.25, limits=limits)
        assert_matches_scalar(batch, xy, 0.3, 0.25, limits=limits)


def test_batch_of_no_targets():
    batch = solve_batch(np.zeros((0, 2)), 0.3, 0.25)
    assert batch.q.shape == (0, 2) and batch.status.shape == (0,)


def test_batch_invalid_input_names_the_value():
    with pytest.raises(IkInputError, match=r'xy\[1, 0\] must be finite, got nan'):
        solve_batch([[0.1, 0.2], [math.nan, 0.0]], 0.3, 0.25)
    with pytest.raises(IkInputError, match=r'xy must have shape \(n, 2\), got \(3,\)'):
        solve_batch([0.1, 0.2, 0.3], 0.3, 0.25)
    with pytest.raises(IkInputError, match='l2 must be non-negative, got -1.0'):
        solve_batch([[0.1, 0.2]], 0.3, -1.0)
    with pytest.raises(IkInputError, match='lower limit'):
        solve_batch([[0.1, 0.2]], 0.3, 0.25, limits=((1.0, 0.0), (0.0, 1.0)))
    with pytest.raises(IkInputError, match='elbow must be'):
        solve_batch([[0.1, 0.2]], 0.3, 0.25, elbow='sideways')


def test_batch_radius_is_exact_for_huge_and_tiny_coordinates():
    xy = np.array([[3e-170, 4e-170], [3e99, 4e99], [0.0, 0.0], [0.3, 0.4]])
    batch = solve_batch(xy, 0.3, 0.25)
    assert_matches_scalar(batch, xy, 0.3, 0.25)
    # The tiny target is not the origin: the arm points along its direction.
    assert batch.q[0, 0] == pytest.approx(math.atan2(4.0, 3.0))
    assert batch.error[1] == pytest.approx(5e99)


# Sizes from a millimetre to the largest solvable (MAX_MAGNITUDE = 1e100 m), log-uniform.
magnitude = st.floats(min_value=-3.0, max_value=100.0).map(lambda e: 10.0 ** e)
coordinate = st.one_of(st.just(0.0), magnitude, magnitude.map(lambda m: -m))
SERVO = ((-math.pi / 2, math.pi / 2), (-math.pi / 2, math.pi / 2))


@settings(max_examples=300, deadline=None)
@given(xy=st.lists(st.tuples(coordinate, coordinate), min_size=1, max_size=8),
       l1=magnitude, l2=magnitude,
       limits=st.sampled_from([None, SERVO, ((0.0, 2 * math.pi), (-3.0, 0.5)),
                               ((-math.inf, 0.3), (0.2, math.inf))]),
       elbow=st.sampled_from(['up', 'down']), flip=st.booleans())
def test_property_any_magnitude_batch(xy, l1, l2, limits, elbow, flip):
    xy = np.array(xy)
    batch = solve_batch(xy, l1, l2, elbow=elbow, limits=limits, allow_elbow_flip=flip)
    assert np.isfinite(batch.q).all() and np.isfinite(batch.tip).all()
    assert np.isfinite(batch.error).all()
    tip_u, tip_v = arm_tips(batch.q[:, 0], batch.q[:, 1], l1, l2)
    distance = np.hypot(tip_u - xy[:, 0], tip_v - xy[:, 1])
    assert (distance[batch.reachable] <= 1e-9 * (l1 + l2)).all()
    assert_matches_scalar(batch, xy, l1, l2, elbow=elbow, limits=limits, allow_elbow_flip=flip,
                          relative=True)
