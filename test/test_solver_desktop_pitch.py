"""Tests of two_bone_ik.solver.desktop_pitch: the roots of the feasibility boundaries."""

import math

import numpy as np
import pytest

from two_bone_ik.solver.desktop_pitch import (
    BoundaryRoots, ELBOW, limit_circle_joints, limit_circles, PITCH, pitch_boundaries,
    pitch_boundaries_array, pitch_limit_angles)


def _e(angle):
    return np.array([math.cos(angle), math.sin(angle)])


@pytest.mark.parametrize('seed', range(20))
def test_every_root_is_on_its_boundary(seed):  # (seeds with no root test the twin's agreement)
    # Each root puts the wrist (or the elbow) exactly on a boundary circle, and the arrays
    # twin gives the same roots.
    rng = np.random.default_rng(seed)
    l1, l2, l3 = rng.uniform(0.05, 0.3, 3)
    beta = rng.uniform(-math.pi, math.pi)
    q1_limits = tuple(sorted(rng.uniform(-3.0, 3.0, 2)))
    q2_limits = tuple(sorted(rng.uniform(-3.0, 3.0, 2)))
    q3_limits = tuple(sorted(rng.uniform(-3.0, 3.0, 2)))
    circles = limit_circles(l1, l2, q1_limits, q2_limits)
    angles = pitch_limit_angles(q3_limits)
    assert len(circles) == 6 and angles == q3_limits
    du, dv = rng.uniform(-0.3, 0.3, 2)
    roots = pitch_boundaries(du, dv, l3, beta, l1, l2, circles, angles)
    target = np.array([du, dv])
    for phi in roots:
        wrist = target - l3 * _e(phi)
        on_circle = [abs(np.linalg.norm(wrist - np.array(c[:2])) - c[2]) for c in circles]
        on_pitch = [abs(np.linalg.norm(wrist - l2 * _e(phi - beta - c)) - l1) for c in angles]
        assert min(on_circle + on_pitch) <= 1e-7
    array = pitch_boundaries_array(np.array([du]), np.array([dv]), np.array([l3]),
                                   np.array([beta]), l1, l2, circles, angles)
    np.testing.assert_allclose(sorted(array[0][np.isfinite(array[0])]), sorted(roots),
                               atol=1e-12)


def test_a_turn_or_an_open_side_has_no_boundary():
    assert pitch_limit_angles((-4.0, 4.0)) == ()
    assert pitch_limit_angles((-1.0, math.inf)) == ()
    assert len(limit_circles(0.2, 0.1, (-math.inf, math.inf), (-4.0, 4.0))) == 2


@pytest.mark.parametrize('seed', range(10))
def test_sorted_roots_are_the_boundaries_nearest_first(seed):
    # BoundaryRoots (constants once, roots sorted by distance) gives pitch_boundaries' roots
    # and what each holds, nearest the wanted pitch first.
    rng = np.random.default_rng(40 + seed)
    l1, l2, l3 = rng.uniform(0.05, 0.3, 3)
    beta, wanted = rng.uniform(-math.pi, math.pi, 2)
    limits = [tuple(sorted(rng.uniform(-3.0, 3.0, 2))) for _ in range(3)]
    circles = limit_circles(l1, l2, limits[0], limits[1])
    joints = limit_circle_joints(limits[0], limits[1])
    angles = pitch_limit_angles(limits[2])
    roots = BoundaryRoots(l1, l2, circles, joints, angles)
    for _ in range(20):
        du, dv = rng.uniform(-0.5, 0.5, 2)
        held = []
        expected = pitch_boundaries(du, dv, l3, beta, l1, l2, circles, angles, joints, held)
        found = roots.sorted_roots(du, dv, l3, beta, wanted)
        assert [(phi, what) for _, phi, what in found] == sorted(
            zip(expected, held), key=lambda item: abs(math.remainder(item[0] - wanted,
                                                                     math.tau)))
        distances = [distance for distance, _, _ in found]
        assert distances == sorted(distances)


def test_held_lists_what_every_boundary_holds_once():
    # BoundaryRoots.held: one entry per boundary equation (the reach circles, each limit),
    # in pitch_boundaries' order; every root's held is among them (the solver looks its
    # per-boundary constants up by it).
    l1, l2, l3, beta = 0.12, 0.14, 0.1, 0.3
    limits = [(-0.4, 3.0), (-3.0, 0.4), (-1.6, 1.6)]
    circles = limit_circles(l1, l2, limits[0], limits[1])
    joints = limit_circle_joints(limits[0], limits[1])
    angles = pitch_limit_angles(limits[2])
    held = BoundaryRoots(l1, l2, circles, joints, angles).held()
    assert held == tuple(joints) + tuple((PITCH, angle) for angle in angles)
    assert len(held) == len(set(held)) == 8
    rng = np.random.default_rng(3)
    roots = BoundaryRoots(l1, l2, circles, joints, angles)
    for du, dv in rng.uniform(-0.35, 0.35, (50, 2)):
        assert {what for _, _, what in roots.sorted_roots(du, dv, l3, beta, 0.0)} <= set(held)


@pytest.mark.parametrize('elbow, dropped', [
    ((-3.0, 0.4), {(ELBOW, math.pi)}),            # stretches, cannot fold
    ((-0.4, 3.0), {(ELBOW, math.pi)}),
    ((0.3, 2.0), {(ELBOW, 0.0), (ELBOW, math.pi)}),  # neither
    ((-3.0, 3.2), set()),                         # folds at +pi
    ((-3.2, -1.0), {(ELBOW, 0.0)}),               # folds at -pi, the same pose
    ((3.0, 7.0), set()),                          # a whole turn of 0 is inside
])
def test_elbow_limits_drop_only_the_circles_the_elbow_cannot_hold(elbow, dropped):
    # With the elbow's limits, a reach circle holding the elbow at an angle no whole turn of
    # which fits is dropped (no pose on it fits); every other boundary and its roots stay.
    l1, l2, l3, beta = 0.12, 0.14, 0.1, 0.3
    shoulder, pitch = (-0.4, 3.0), (-1.6, 1.6)
    circles = limit_circles(l1, l2, shoulder, elbow)
    joints = limit_circle_joints(shoulder, elbow)
    angles = pitch_limit_angles(pitch)
    every = BoundaryRoots(l1, l2, circles, joints, angles)
    kept = BoundaryRoots(l1, l2, circles, joints, angles, elbow)
    assert set(every.held()) - set(kept.held()) == dropped
    assert [held for held in every.held() if held not in dropped] == list(kept.held())
    rng = np.random.default_rng(5)
    seen = set()
    for du, dv in rng.uniform(-0.35, 0.35, (300, 2)):
        wanted = float(rng.uniform(-math.pi, math.pi))
        all_roots = every.sorted_roots(du, dv, l3, beta, wanted)
        seen.update(what for _, _, what in all_roots)
        assert kept.sorted_roots(du, dv, l3, beta, wanted) == [
            root for root in all_roots if root[2] not in dropped]
    assert dropped <= seen  # the dropped circles had roots to drop


def test_tagged_roots_carry_the_tags_in_place_of_what_they_hold():
    # BoundaryRoots.tag: the same roots in the same order, each carrying its boundary's tag
    # (a boundary left out of the tags carries its held); held() is unchanged.
    l1, l2, l3, beta = 0.12, 0.14, 0.1, 0.3
    limits = [(-0.4, 3.0), (-3.0, 0.4), (-1.6, 1.6)]
    circles = limit_circles(l1, l2, limits[0], limits[1])
    joints = limit_circle_joints(limits[0], limits[1])
    angles = pitch_limit_angles(limits[2])
    plain = BoundaryRoots(l1, l2, circles, joints, angles)
    tagged = BoundaryRoots(l1, l2, circles, joints, angles)
    held = plain.held()
    tags = {what: ('tag', index) for index, what in enumerate(held[1:])}  # (not the first)
    tagged.tag(tags)
    assert tagged.held() == held
    rng = np.random.default_rng(8)
    carried = set()
    for du, dv in rng.uniform(-0.35, 0.35, (200, 2)):
        wanted = float(rng.uniform(-math.pi, math.pi))
        expected = plain.sorted_roots(du, dv, l3, beta, wanted)
        got = tagged.sorted_roots(du, dv, l3, beta, wanted)
        assert [(distance, phi, tags.get(what, what)) for distance, phi, what in expected] == got
        carried.update(what for _, _, what in got)
    assert carried == set(tags.values()) | {held[0]}


@pytest.mark.parametrize('stretch', [1e-12, -1e-12, 1e-10, 0.0])
def test_a_tangent_rounded_past_an_end_of_the_cosine_is_that_end(stretch):
    # Targets whose circle is (nearly) tangent to the tool's: the cosine rounds to just past
    # +-1 (within TANGENT_SLACK), and the roots are those of acos at that end, as
    # pitch_boundaries gives them; beyond the slack there are none.
    l1, l2, l3, beta = 0.12, 0.14, 0.1, 0.3
    limits = [(-0.4, 3.0), (-3.0, 0.4), (-1.6, 1.6)]
    circles = limit_circles(l1, l2, limits[0], limits[1])
    joints = limit_circle_joints(limits[0], limits[1])
    angles = pitch_limit_angles(limits[2])
    roots = BoundaryRoots(l1, l2, circles, joints, angles)
    near = 0
    for distance in (l1 + l2 + l3, l1 + l2 - l3, l3 - abs(l1 - l2), abs(l1 - l2) + l3):
        for turn in (0.0, 1.0, -2.5):
            scale = distance * (1.0 + stretch)
            du, dv = scale * math.cos(turn), scale * math.sin(turn)
            held = []
            expected = pitch_boundaries(du, dv, l3, beta, l1, l2, circles, angles, joints, held)
            found = roots.sorted_roots(du, dv, l3, beta, 0.0)
            assert sorted((phi, what) for _, phi, what in found) == sorted(zip(expected, held))
            near += sum(what[0] == ELBOW and what[1] in (0.0, limits[1][0]) for what in held)
    assert near > 0
