"""Tests of the closed-form solver without joint limits: two_bone_ik.solver.solve."""

import math

from fk_oracle import arm_tip, elbow_point, tip_distance
from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np
import pytest

from two_bone_ik.solver import elbow_position, forward, IkInputError, IkStatus, solve
from two_bone_ik.solver.closed_form import pair_angles
from two_bone_ik.solver.results import REACH_TOLERANCE

HALF_PI = math.pi / 2


def elbow_side(q1, l1, x, y):
    """Cross product of shoulder->target with shoulder->elbow: > 0 when the elbow is on +v."""
    ex, ey = elbow_point(q1, l1)
    return x * ey - y * ex


def random_arms(rng, count):
    """Link lengths log-uniform in [1e-3, 1e3] m."""
    return 10.0 ** rng.uniform(-3.0, 3.0, size=(count, 2))


def test_forward_and_elbow_position_match_the_oracle():
    rng = np.random.default_rng(8)
    for q1, q2, l1, l2 in zip(rng.uniform(-7.0, 7.0, 200), rng.uniform(-7.0, 7.0, 200),
                              rng.uniform(0.0, 2.0, 200), rng.uniform(0.0, 2.0, 200)):
        assert forward(q1, q2, l1, l2) == pytest.approx(arm_tip(q1, q2, l1, l2), abs=1e-15)
        assert elbow_position(q1, l1) == pytest.approx(elbow_point(q1, l1), abs=1e-15)


@pytest.mark.parametrize('target, up, down', [
    ((1.0, 1.0), (HALF_PI, -HALF_PI), (0.0, HALF_PI)),
    ((-1.0, 1.0), (math.pi, -HALF_PI), (HALF_PI, HALF_PI)),
    ((-1.0, -1.0), (-HALF_PI, -HALF_PI), (-math.pi, HALF_PI)),
    ((1.0, -1.0), (0.0, -HALF_PI), (-HALF_PI, HALF_PI)),
])
def test_each_quadrant_both_elbows_hand_checked(target, up, down):
    # Unit links and a target at distance sqrt(2): the elbow is a right angle.
    for elbow, expected in (('up', up), ('down', down)):
        solution = solve(*target, 1.0, 1.0, elbow=elbow)
        # q1 = -pi and q1 = pi are the same pose; compare modulo a whole turn.
        assert math.remainder(solution.q1 - expected[0], 2 * math.pi) == pytest.approx(
            0.0, abs=1e-12)
        assert solution.q2 == pytest.approx(expected[1], abs=1e-12)
        assert -math.pi <= solution.q1 <= math.pi
        assert solution.status is IkStatus.REACHED
        assert solution.reachable
        assert solution.elbow == elbow
        assert solution.error == pytest.approx(0.0, abs=1e-15)
        assert arm_tip(solution.q1, solution.q2, 1.0, 1.0) == pytest.approx(target, abs=1e-12)


def test_elbow_up_is_on_the_plus_v_side_of_the_target_line():
    up = solve(0.4, 0.1, 0.3, 0.25, elbow='up')
    down = solve(0.4, 0.1, 0.3, 0.25, elbow='down')
    assert up.q2 < 0.0 < down.q2
    assert elbow_side(up.q1, 0.3, 0.4, 0.1) > 0.0 > elbow_side(down.q1, 0.3, 0.4, 0.1)


def test_full_stretch_is_reached_with_a_straight_arm():
    for angle in (0.0, 0.7, -2.5, math.pi):
        x, y = arm_tip(angle, 0.0, 0.3, 0.25)  # exactly l1 + l2 away, up to rounding
        solution = solve(x, y, 0.3, 0.25)
        assert solution.status is IkStatus.REACHED
        assert solution.q2 == 0.0
        assert math.remainder(solution.q1 - angle, 2 * math.pi) == pytest.approx(0.0, abs=1e-12)


def test_fully_folded_on_the_inner_circle_is_reached():
    # |l1 - l2| = 0.05 m: the tip of the folded arm.
    solution = solve(0.0, 0.05, 0.3, 0.25, elbow='down')
    assert solution.status is IkStatus.REACHED
    assert solution.q2 == pytest.approx(math.pi, abs=1e-7)
    assert solution.q1 == pytest.approx(HALF_PI, abs=1e-7)
    assert arm_tip(solution.q1, solution.q2, 0.3, 0.25) == pytest.approx((0.0, 0.05), abs=1e-12)


def test_beyond_reach_stretches_toward_the_target():
    solution = solve(0.0, -2.0, 0.3, 0.25)
    assert solution.status is IkStatus.OUT_OF_REACH
    assert not solution.reachable
    assert (solution.q1, solution.q2) == pytest.approx((-HALF_PI, 0.0), abs=1e-15)
    assert solution.tip == pytest.approx((0.0, -0.55), abs=1e-15)
    assert solution.error == pytest.approx(1.45, abs=1e-15)


@pytest.mark.parametrize('l1, l2, expected_q1', [(0.3, 0.25, math.pi), (0.25, 0.3, 0.0)])
def test_inside_the_inner_hole_folds_toward_the_target(l1, l2, expected_q1):
    # Target at (-0.01, 0): the folded arm's tip (radius 0.05) must point at it.
    solution = solve(-0.01, 0.0, l1, l2, elbow='down')
    assert solution.status is IkStatus.INSIDE_INNER
    assert not solution.reachable
    assert abs(solution.q2) == pytest.approx(math.pi, abs=1e-15)
    assert abs(math.remainder(solution.q1 - expected_q1, 2 * math.pi)) < 1e-12
    assert solution.tip == pytest.approx((-0.05, 0.0), abs=1e-15)
    assert arm_tip(solution.q1, solution.q2, l1, l2) == pytest.approx((-0.05, 0.0), abs=1e-15)
    assert solution.error == pytest.approx(0.04, abs=1e-15)


@pytest.mark.parametrize('l1, l2', [(1.0, 1e16), (1e16, 1.0), (1e-3, 1e100)])
def test_folds_toward_the_target_when_the_short_link_is_below_the_long_ones_rounding(l1, l2):
    # l2 - l1 rounds to l2: the fold direction must still come from which link is longer.
    solution = solve(0.0, 1e-3 * max(l1, l2), l1, l2)
    assert solution.status is IkStatus.INSIDE_INNER
    u, v = arm_tip(solution.q1, solution.q2, l1, l2)
    assert v > 0.0  # on the target's side of the shoulder, not opposite it


def test_target_at_origin_with_equal_links_is_reached_folded():
    solution = solve(0.0, 0.0, 0.3, 0.3)
    assert solution.status is IkStatus.REACHED
    assert (solution.q1, solution.q2) == (0.0, -math.pi)
    assert arm_tip(solution.q1, solution.q2, 0.3, 0.3) == pytest.approx((0.0, 0.0), abs=1e-15)


def test_target_at_origin_keeps_the_previous_shoulder_angle():
    assert solve(0.0, 0.0, 0.3, 0.3, previous=(1.25, 0.4)).q1 == 1.25
    assert solve(0.0, 0.0, 0.3, 0.2, previous=(-2.0, 0.4)).q1 == -2.0
    assert solve(0.0, 0.0, 0.3, 0.2).q1 == 0.0
    folded = solve(0.0, 0.0, 0.3, 0.2, previous=(-2.0, 0.4))
    assert folded.status is IkStatus.INSIDE_INNER
    assert folded.error == pytest.approx(0.1, abs=1e-15)


@pytest.mark.parametrize('l1, l2', [(0.0, 0.4), (0.4, 0.0)])
def test_zero_length_link_has_a_circle_workspace(l1, l2):
    on_circle = solve(0.0, 0.4, l1, l2)
    assert on_circle.status is IkStatus.REACHED
    assert arm_tip(on_circle.q1, on_circle.q2, l1, l2) == pytest.approx((0.0, 0.4), abs=1e-15)
    outside = solve(0.0, 1.0, l1, l2)
    assert outside.status is IkStatus.OUT_OF_REACH
    assert outside.error == pytest.approx(0.6, abs=1e-15)
    inside = solve(0.0, 0.1, l1, l2)
    assert inside.status is IkStatus.INSIDE_INNER
    assert inside.tip == pytest.approx((0.0, 0.4), abs=1e-15)
    assert inside.error == pytest.approx(0.3, abs=1e-15)
    for solution in (on_circle, outside, inside):
        assert math.isfinite(solution.q1) and math.isfinite(solution.q2)


def test_both_links_zero_length():
    solution = solve(0.3, 0.4, 0.0, 0.0)
    assert solution.status is IkStatus.OUT_OF_REACH
    assert solution.error == pytest.approx(0.5)
    assert math.isfinite(solution.q1) and math.isfinite(solution.q2)
    assert solve(0.0, 0.0, 0.0, 0.0).status is IkStatus.REACHED


def test_nearest_follows_the_previous_branch():
    down = solve(0.4, 0.1, 0.3, 0.25, elbow='down')
    up = solve(0.4, 0.1, 0.3, 0.25, elbow='up')
    assert solve(0.4, 0.12, 0.3, 0.25, elbow='nearest', previous=(down.q1, down.q2)).q2 > 0.0
    assert solve(0.4, 0.12, 0.3, 0.25, elbow='nearest', previous=(up.q1, up.q2)).q2 < 0.0
    assert solve(0.4, 0.12, 0.3, 0.25, elbow='nearest').elbow == 'up'


def test_a_stream_of_targets_with_nearest_never_flips_the_elbow():
    previous = solve(0.5, 0.0, 0.3, 0.25, elbow='down')
    for angle in np.linspace(0.0, 4 * math.pi, 400):
        x, y = 0.45 * math.cos(angle), 0.45 * math.sin(angle)
        solution = solve(x, y, 0.3, 0.25, elbow='nearest', previous=(previous.q1, previous.q2))
        assert solution.q2 > 0.0
        previous = solution


@pytest.mark.parametrize('args, message', [
    ((math.nan, 0.0, 0.3, 0.25), 'x must be finite, got nan'),
    ((0.0, math.inf, 0.3, 0.25), 'y must be finite, got inf'),
    ((0.1, 0.0, -0.3, 0.25), 'l1 must be non-negative, got -0.3'),
    ((0.1, 0.0, 0.3, math.nan), 'l2 must be finite, got nan'),
    ((0.1, 0.0, 0.3, -math.inf), 'l2 must be finite, got -inf'),
])
def test_invalid_input_raises_naming_the_value(args, message):
    with pytest.raises(IkInputError, match=message):
        solve(*args)


def test_invalid_elbow_and_limits_raise():
    assert issubclass(IkInputError, ValueError)
    with pytest.raises(IkInputError, match="elbow must be 'up', 'down' or 'nearest', got 'left'"):
        solve(0.1, 0.1, 0.3, 0.25, elbow='left')
    with pytest.raises(IkInputError, match='joint 2 lower limit 1.0 rad is above upper limit'):
        solve(0.1, 0.1, 0.3, 0.25, limits=((-1.0, 1.0), (1.0, -1.0)))
    with pytest.raises(IkInputError, match='joint 1 limits must not be NaN'):
        solve(0.1, 0.1, 0.3, 0.25, limits=((math.nan, 1.0), (-1.0, 1.0)))
    with pytest.raises(IkInputError, match='previous q2 must be finite'):
        solve(0.1, 0.1, 0.3, 0.25, elbow='nearest', previous=(0.0, math.nan))


def test_random_reachable_targets_any_quadrant_and_scale():
    rng = np.random.default_rng(0)
    for l1, l2 in random_arms(rng, 3000):
        s, d = l1 + l2, abs(l1 - l2)
        r = rng.uniform(d, s)
        angle = rng.uniform(-math.pi, math.pi)
        x, y = r * math.cos(angle), r * math.sin(angle)
        for elbow in ('up', 'down'):
            solution = solve(x, y, l1, l2, elbow=elbow)
            assert solution.status is IkStatus.REACHED
            assert solution.reachable
            tip = arm_tip(solution.q1, solution.q2, l1, l2)
            assert math.hypot(tip[0] - x, tip[1] - y) <= 1e-9 * s
            assert math.hypot(solution.tip[0] - x, solution.tip[1] - y) <= 1e-9 * s
            assert (solution.q2 <= 0.0) if elbow == 'up' else (solution.q2 >= 0.0)
            assert -math.pi <= solution.q1 <= math.pi


def test_random_unreachable_targets_give_the_closest_workspace_point():
    rng = np.random.default_rng(1)
    for l1, l2 in random_arms(rng, 3000):
        s, d = l1 + l2, abs(l1 - l2)
        outside = rng.random() < 0.5 or d == 0.0
        r = rng.uniform(s * 1.000001, 3 * s) if outside else rng.uniform(0.0, d * 0.999999)
        angle = rng.uniform(-math.pi, math.pi)
        x, y = r * math.cos(angle), r * math.sin(angle)
        solution = solve(x, y, l1, l2, elbow='up' if rng.random() < 0.5 else 'down')
        assert not solution.reachable
        assert solution.status is (IkStatus.OUT_OF_REACH if outside else IkStatus.INSIDE_INNER)
        closest = min(max(r, d), s)
        assert solution.error == pytest.approx(abs(r - closest), abs=1e-9 * s)
        tip = arm_tip(solution.q1, solution.q2, l1, l2)
        assert math.hypot(tip[0] - x, tip[1] - y) == pytest.approx(abs(r - closest), abs=1e-9 * s)
        # Stretched or folded along the target's ray.
        assert tip[0] * x + tip[1] * y >= 0.0
        assert math.hypot(*tip) == pytest.approx(closest, abs=1e-9 * s)


lengths = st.floats(min_value=1e-3, max_value=1e3)
unit = st.floats(min_value=0.0, max_value=1.0)
angles = st.floats(min_value=-math.pi, max_value=math.pi)


@settings(max_examples=400, deadline=None)
@given(l1=lengths, l2=lengths, fraction=unit, angle=angles, elbow=st.sampled_from(['up', 'down']))
def test_property_reachable_tip_hits_target(l1, l2, fraction, angle, elbow):
    s, d = l1 + l2, abs(l1 - l2)
    r = d + fraction * (s - d)
    x, y = r * math.cos(angle), r * math.sin(angle)
    solution = solve(x, y, l1, l2, elbow=elbow)
    assert solution.reachable
    tip = arm_tip(solution.q1, solution.q2, l1, l2)
    assert math.hypot(tip[0] - x, tip[1] - y) <= 1e-9 * s
    # q2 has the elbow's sign; only a straight arm (full stretch) has q2 = 0.
    straight = solution.q2 == 0.0 and abs(r - s) <= 1e-12 * s
    assert math.copysign(1.0, solution.q2) == (-1.0 if elbow == 'up' else 1.0) or straight


# Zero-length links, or links from a nanometre to a kilometre (far tinier ones underflow when
# squared, which no real arm meets).
any_length = st.one_of(st.just(0.0), st.floats(min_value=1e-9, max_value=1e3))


@settings(max_examples=400, deadline=None)
@given(l1=any_length, l2=any_length,
       x=st.floats(min_value=-1e4, max_value=1e4), y=st.floats(min_value=-1e4, max_value=1e4),
       elbow=st.sampled_from(['up', 'down', 'nearest']))
def test_property_any_target_gives_the_closest_workspace_point(l1, l2, x, y, elbow):
    solution = solve(x, y, l1, l2, elbow=elbow)
    s, d = l1 + l2, abs(l1 - l2)
    r = math.hypot(x, y)
    scale = max(s, r, 1e-300)
    assert math.isfinite(solution.q1) and math.isfinite(solution.q2)
    expected = abs(r - min(max(r, d), s))
    tip = arm_tip(solution.q1, solution.q2, l1, l2)
    assert math.hypot(tip[0] - x, tip[1] - y) == pytest.approx(expected, abs=1e-9 * scale)
    assert solution.error == pytest.approx(expected, abs=1e-9 * scale)
    assert solution.reachable == (solution.status is IkStatus.REACHED)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(min_value=0.0, max_value=10.0), min_size=4, max_size=4),
       position=st.integers(min_value=0, max_value=3),
       bad=st.sampled_from([math.nan, math.inf, -math.inf, -0.5]))
def test_property_a_bad_value_anywhere_raises_naming_it(values, position, bad):
    names = ('x', 'y', 'l1', 'l2')
    if bad == -0.5 and position < 2:
        bad = math.nan  # negative coordinates are fine; negative lengths are not
    values[position] = bad
    with pytest.raises(IkInputError, match=rf'^{names[position]} must be'):
        solve(*values)


# Sizes from a millimetre to the largest solvable (MAX_MAGNITUDE = 1e100 m), log-uniform.
magnitude = st.floats(min_value=-3.0, max_value=100.0).map(lambda e: 10.0 ** e)
coordinate = st.one_of(st.just(0.0), magnitude, magnitude.map(lambda m: -m))
length_or_zero = st.one_of(st.just(0.0), magnitude)


@settings(max_examples=1000, deadline=None)
@given(x=coordinate, y=coordinate, l1=length_or_zero, l2=length_or_zero,
       elbow=st.sampled_from(['up', 'down', 'nearest']))
def test_property_any_magnitude_up_to_the_limit_is_solved(x, y, l1, l2, elbow):
    solution = solve(x, y, l1, l2, elbow=elbow)
    values = (solution.q1, solution.q2, *solution.tip, solution.error)
    assert all(math.isfinite(value) for value in values)
    distance = tip_distance(solution.q1, solution.q2, l1, l2, x, y)
    if solution.reachable:
        assert distance <= 1e-9 * (l1 + l2)
    scale = max(l1 + l2, math.hypot(x, y))
    assert abs(solution.error - distance) <= 1e-9 * scale


@pytest.mark.parametrize('seed', range(4))
def test_pair_angles_are_solves_angles_on_its_branch_bit_for_bit(seed):
    # The desktop solver's hot path: solve's (q1, q2) on a branch when it says REACHED, else
    # None, over targets in reach, on its edges (stretched, folded, just past either within
    # and beyond the tolerance) and beyond; links long, short, equal and zero.
    rng = np.random.default_rng(90 + seed)
    reached = 0
    for _ in range(600):
        l1, l2 = rng.uniform(0.01, 0.5, 2)
        pick = rng.integers(0, 6)
        if pick == 0:
            l2 = l1
        elif pick == 1:
            l1 = 0.0 if rng.integers(0, 2) else l1
            l2 = 0.0 if l1 else l2
        edge = rng.choice([l1 + l2, abs(l1 - l2)])
        slack = REACH_TOLERANCE * (l1 + l2) * rng.choice([0.5, 0.99, 1.01, 2.0])
        radius = float(rng.choice([rng.uniform(0.0, 1.2 * (l1 + l2)), edge,
                                   edge + slack, edge - slack]))
        angle = rng.uniform(-math.pi, math.pi)
        x, y = radius * math.cos(angle), radius * math.sin(angle)
        if x == y == 0.0:
            continue
        for elbow, sign in (('up', -1.0), ('down', 1.0)):
            sol = solve(x, y, l1, l2, elbow)
            got = pair_angles(x, y, l1, l2, sign)
            if sol.status is IkStatus.REACHED:
                assert got is not None
                assert (got[0].hex(), got[1].hex()) == (sol.q1.hex(), sol.q2.hex())
                reached += 1
            else:
                assert got is None
    assert reached > 500
