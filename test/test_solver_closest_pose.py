"""Tests of two_bone_ik.solver.closest_pose: solve within limits against the slow reference.

The reference (test/solver_reference.py) applies the rules of solve with limits and finds the
closest pose by dense sampling and compass descent; the fast search scores the box's edges in
closed form. They must agree: the same status, the same tip distance to within 1e-10 of the
arm's reach, and the fast pose inside the limits (on the requested side without the flip).
"""

import math
from typing import NamedTuple

from fk_oracle import tip_distance
from hypothesis import example, given, settings
from hypothesis import strategies as st
import numpy as np
import pytest
from solver_reference import random_limit_pair, reference_solve, side_intervals

from two_bone_ik.solver import IkStatus, solve
import two_bone_ik.solver.closest_pose as closest_pose_module
from two_bone_ik.solver.closest_pose import branch_of, clamp_into_arc
from two_bone_ik.solver.limit_box import BoxSide, limit_box, LimitBox

TWO_PI = 2 * math.pi


class Case(NamedTuple):
    """One call of solve with limits: target and lengths (m), elbow, limits (rad), flip."""

    x: float
    y: float
    l1: float
    l2: float
    elbow: str
    limits: tuple
    allow_elbow_flip: bool


def random_case(rng):
    """Return an arm, limits, a target (inside, outside, at the origin), elbow and flip."""
    l1, l2 = rng.uniform(0.05, 1.0, size=2)
    r = 0.0 if rng.random() < 0.03 else rng.uniform(0.0, 1.3 * (l1 + l2))
    angle = rng.uniform(-math.pi, math.pi)
    return Case(r * math.cos(angle), r * math.sin(angle), l1, l2,
                ('up', 'down')[rng.integers(2)], (random_limit_pair(rng), random_limit_pair(rng)),
                bool(rng.integers(2)))


def disagreement(case):
    """Say why the fast solve disagrees with the reference on a case; None if it agrees."""
    x, y, l1, l2, elbow, limits, flip = case
    fast = solve(x, y, l1, l2, elbow=elbow, limits=limits, allow_elbow_flip=flip)
    reference = reference_solve(x, y, l1, l2, elbow, limits, flip)
    if fast.status is not reference.status:
        return f'status {fast.status.name}, reference {reference.status.name}'
    if abs(fast.error - reference.distance) > 1e-10 * (l1 + l2):
        return f'distance {fast.error!r} m, reference {reference.distance!r} m'
    for q, (lo, hi) in zip((fast.q1, fast.q2), limits):
        if not lo <= q <= hi:
            return f'angle {q!r} rad outside ({lo!r}, {hi!r})'
    if abs(tip_distance(fast.q1, fast.q2, l1, l2, x, y) - fast.error) > 1e-12 * (l1 + l2):
        return f'error {fast.error!r} m is not the distance of the pose'
    side = -1 if elbow == 'up' else 1
    if not flip and side_intervals(*limits[1], side):
        wrapped = math.remainder(fast.q2, TWO_PI)  # on the side, or within 1e-10 rad of it
        if not (wrapped * side >= -1e-10 or abs(abs(wrapped) - math.pi) <= 1e-10):
            return f'q2 {fast.q2!r} rad is off the {elbow} side'
    return None


def test_the_fast_search_agrees_with_the_slow_reference():
    rng = np.random.default_rng(21)
    seen = set()
    for _ in range(400):
        case = random_case(rng)
        assert disagreement(case) is None, case
        seen.add(solve(*case[:4], elbow=case.elbow, limits=case.limits,
                       allow_elbow_flip=case.allow_elbow_flip).status)
    assert {IkStatus.JOINT_LIMITED, IkStatus.ELBOW_FLIPPED, IkStatus.REACHED} <= seen


limit_pair = st.one_of(
    st.just((-math.inf, math.inf)),
    st.floats(-4.0, 4.0).map(lambda lo: (lo, math.inf)),
    st.floats(-4.0, 4.0).map(lambda hi: (-math.inf, hi)),
    st.tuples(st.floats(-4.0, 3.0), st.floats(0.0, 7.0)).map(lambda p: (p[0], p[0] + p[1])),
    st.tuples(st.sampled_from([-math.pi, -math.pi / 2, 0.0, math.pi / 2, math.pi]),
              st.sampled_from([0.0, math.pi / 2, math.pi, 1.5 * math.pi]))
    .map(lambda p: (p[0], p[0] + p[1])),
    # Ranges of no or almost no width: a single angle, and arcs the direction tests must not
    # mistake for their opposite.
    st.tuples(st.floats(-4.0, 4.0), st.sampled_from([0.0, 1e-300, 1e-12, 1e-6]))
    .map(lambda p: (p[0], p[0] + p[1])))


@settings(max_examples=400, deadline=None)
# An elbow range narrower than the rounding of the shoulder's limit, and the target straight
# back from the elbow: the direction tests must not take it for inside the range.
@example(l1=1.0, l2=1.0, fraction=0.0, angle=0.0, limits=((0.0, 1.0), (0.0, 6.35e-48)),
         elbow='down', flip=False)
@example(l1=0.6, l2=0.3, fraction=0.2 / 0.9, angle=1.0, limits=((1.0, 2.0), (0.0, 1e-300)),
         elbow='down', flip=True)
@given(l1=st.floats(0.05, 1.0), l2=st.floats(0.05, 1.0),
       fraction=st.one_of(st.floats(0.0, 1.3), st.sampled_from([0.0, 1.0])),
       angle=st.floats(-math.pi, math.pi), limits=st.tuples(limit_pair, limit_pair),
       elbow=st.sampled_from(['up', 'down']), flip=st.booleans())
def test_property_the_fast_search_agrees_with_the_slow_reference(
        l1, l2, fraction, angle, limits, elbow, flip):
    r = fraction * (l1 + l2)
    case = Case(r * math.cos(angle), r * math.sin(angle), l1, l2, elbow, limits, flip)
    assert disagreement(case) is None, case


def test_a_search_missing_an_edge_is_caught_by_the_reference(monkeypatch):
    # The comparison has teeth: with the shoulder's upper-limit edge left out of every box,
    # the fast search answers wrongly and the reference says so.
    def without_last_shoulder_edge(limits, l1, l2):
        box = limit_box(limits, l1, l2)
        return LimitBox(box.q1_arc, tuple(
            BoxSide(side.fixed_elbow, side.fixed_shoulder[:-1], side.whole)
            for side in box.sides))

    monkeypatch.setattr(closest_pose_module, 'limit_box', without_last_shoulder_edge)
    rng = np.random.default_rng(22)
    wrong = sum(disagreement(random_case(rng)) is not None for _ in range(200))
    assert wrong >= 5


def test_servo_arm_target_behind_the_shoulder_matches_the_reference():
    # Both joints within +-90 degrees, target up and behind: the pose on the reach circle.
    limits = ((-math.pi / 2, math.pi / 2), (-math.pi / 2, math.pi / 2))
    case = Case(-0.3, 0.3, 0.3, 0.25, 'up', limits, True)
    assert disagreement(case) is None
    assert reference_solve(-0.3, 0.3, 0.3, 0.25, 'up', limits, True).distance == \
        pytest.approx(0.05, abs=1e-12)


@pytest.mark.parametrize('q2, requested, branch', [
    (-1.0, 'down', 'up'), (1.0, 'up', 'down'), (0.0, 'up', 'up'), (0.0, 'down', 'down'),
    (math.pi, 'up', 'up'), (-math.pi, 'down', 'down'), (TWO_PI - 1.0, 'down', 'up'),
    (-5.0, 'up', 'down'), (3 * math.pi, 'down', 'down')])
def test_branch_of_reads_the_sign_of_the_wrapped_elbow_angle(q2, requested, branch):
    assert branch_of(q2, requested) == branch


@pytest.mark.parametrize('angle, expected', [
    (0.5, 0.5), (0.5 + TWO_PI, 0.5), (1.2, 1.0), (-0.1, 0.0), (3.0, 1.0), (4.0, 0.0)])
def test_clamp_into_arc_keeps_an_angle_inside_and_takes_the_nearer_end_outside(angle, expected):
    # The arc [0, 1] rad: its gap (1, 2pi) has its middle at about 3.64 rad.
    assert clamp_into_arc(angle, 0.0, 1.0, 1.0) == pytest.approx(expected, abs=1e-15)
