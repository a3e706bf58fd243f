"""Tests of two_bone_ik.solver.desktop_roll_walk: the moved roll's stretches, walked lazily.

Oracle: the exhaustive order, every end :func:`roll_ends` finds cut into stretches by
:func:`stretch_trials`, each stretch tried in turn with the solver's own exact pose.
"""

import bisect
import math
from pathlib import Path

import numpy as np
import pytest
from test_solver_desktop import _fk_sampled, _geometry

from two_bone_ik.arm.desktop_geometry import desktop_from_chain
from two_bone_ik.arm.urdf_import import chain_from_urdf
from two_bone_ik.solver import desktop_moved_roll, desktop_roll_walk
from two_bone_ik.solver.desktop import DesktopSolver
from two_bone_ik.solver.desktop_results import DesktopStatus
from two_bone_ik.solver.desktop_roll import roll_ends, RollTarget, stretch_trials
from two_bone_ik.solver.desktop_roll_walk import nearest_stretches
from urdf_arms import random_desktop_arm

SHAPE = 'yaw + pair + pitch + roll'
DEMO_URDF = (Path(__file__).resolve().parents[1] / 'demo' / 'desktop_arm.urdf').read_text()


def _solver(seed):
    geometry = _geometry(random_desktop_arm(np.random.default_rng(seed), SHAPE))
    return geometry, DesktopSolver(geometry.model)


def _window(solver, target, held, back):
    """(roll target, low, high) as the moved roll cuts them."""
    model, (x, y, z) = solver.arm, target
    hu, hn = solver._horizontal(x, y, z)
    o, w = model.origin, model.up  # (summed in the moved roll's order, to the bit)
    dv = (x - o[0]) * w[0] + (y - o[1]) * w[1] + (z - o[2]) * w[2] - model.shoulder[1]
    low = max(model.lower_limits[4], held - math.pi)
    high = min(model.upper_limits[4], held + math.pi)
    return RollTarget(float(hu), float(hn), float(dv), back), low, high


def _exhaustive(solver, target, held, back):
    """Every stretch's rolls in the exhaustive order, and the first of each that reaches."""
    roll_target, low, high = _window(solver, target, held, back)
    stretches = stretch_trials(roll_ends(solver._roll_geometry, roll_target, low, high), held,
                               solver._roll_margin)
    reached = [next((r for r in rolls if solver._exact(
        solver._attempt(*target, None, 0.0, r, solver._tool(r), back))), None)
        for rolls in stretches]
    return stretches, reached


def _walked(solver, target, held, back):
    attempt = solver._moved_roll(*target, None, 0.0, held, back, True)
    return None if attempt is None else attempt.roll


# (arm seed, readings of the target's pose, held roll, back): the first stretches the walk
# meets do not reach. The first: four of them, two each side, and a reaching stretch on each
# side, the one above held 1.78 rad away, the one below 1.86. The second: two, above held,
# then the first that reaches there. The third: one, and the reaching stretch below held.
CROSSINGS = [
    (7, [-1.2803033967997248, 1.3639486604312632, -0.18630453293352645, 1.9546006902127955,
         1.0452059426112674], -2.6593538256424996, False),
    (7, [0.6568857479216006, 2.041012902950338, -2.2057991640664274, 0.622674151901192,
         -0.12482103066225125], -2.112071107427612, True),
    (7, [-0.023103242111971456, 0.8113571033982794, -1.9884104255832178, -2.628807491061755,
         -0.5308990590121505], 1.9519404018002415, True),
]


@pytest.mark.parametrize('case', range(len(CROSSINGS)))
def test_the_walk_crosses_stretches_that_do_not_reach_to_the_nearest_that_does(case):
    seed, readings, held, back = CROSSINGS[case]
    geometry, solver = _solver(seed)
    target = np.array(geometry.tool_position(readings))
    stretches, reached = _exhaustive(solver, target, held, back)
    first = next(i for i, roll in enumerate(reached) if roll is not None)
    assert first >= 1 and reached[0] is None  # the nearest stretch does not reach
    assert _walked(solver, target, held, back) == reached[first]


def test_the_nearer_side_wins_when_both_sides_reach():
    # The first case: reaching stretches above and below the held roll, the walk alternating
    # sides by distance; the one above is nearer (by 0.08 rad), so it is the answer.
    seed, readings, held, back = CROSSINGS[0]
    geometry, solver = _solver(seed)
    target = np.array(geometry.tool_position(readings))
    stretches, reached = _exhaustive(solver, target, held, back)
    sides = {}
    for rolls, roll in zip(stretches, reached):
        if roll is not None:
            sides.setdefault(rolls[-1] > held, abs(rolls[0] - held))
    assert len(sides) == 2 and sides[True] < sides[False]
    roll = _walked(solver, target, held, back)
    assert roll > held and roll == reached[next(i for i, r in enumerate(reached) if r)]


@pytest.mark.parametrize('seed', range(3))
def test_the_whole_walk_is_the_exhaustive_order(seed):
    # Walked to its end, the walk yields every stretch of roll_ends in stretch_trials' order,
    # the same rolls to the bit: held rolls at random, on the window's lower end, on an end
    # inside it (a tie: the stretches on both sides of the held roll at distance 0) and inside
    # brackets (their zeros on either side of the held roll).
    geometry, solver = _solver(30 + seed)
    rng = np.random.default_rng(40 + seed)
    lower, upper = solver.arm.lower_limits[4], solver.arm.upper_limits[4]
    _, targets = _fk_sampled(rng, geometry, 8)
    for target in targets:
        held = float(rng.uniform(max(lower, -3.0), min(upper, 3.0)))
        for back in (False, True):
            roll_target, low, high = _window(solver, target, held, back)
            ends = roll_ends(solver._roll_geometry, roll_target, low, high)
            pending = desktop_roll_walk.roll_brackets(solver._roll_geometry, roll_target, low,
                                                      high)[1]
            inside = [0.5 * (start + end) for start, end, _, _ in pending[:4]]
            for hold in [held, low, ends[len(ends) // 2]] + inside:
                walked = [tuple(rolls) for rolls in nearest_stretches(
                    solver._roll_geometry, roll_target, low, high, hold, solver._roll_margin)]
                assert walked == stretch_trials(ends, hold, solver._roll_margin)


def test_a_bound_lies_between_the_roll_asked_from_and_the_next_end():
    # From rolls inside the brackets still to refine (their zeros either side) and on ends:
    # each side's bound is on that side of the roll, no farther than the next end there (the
    # exhaustive set), and is that end when it says it is exact.
    geometry, solver = _solver(33)
    rng = np.random.default_rng(43)
    checked = 0
    for target in _fk_sampled(rng, geometry, 8)[1]:
        roll_target, low, high = _window(solver, target, 0.0, False)
        ends = roll_ends(solver._roll_geometry, roll_target, low, high)
        walk = desktop_roll_walk._Ends(solver._roll_geometry, roll_target, low, high)
        pending = desktop_roll_walk.roll_brackets(solver._roll_geometry, roll_target, low,
                                                  high)[1]
        for after in [0.5 * (start + end) for start, end, _, _ in pending] + ends:
            for side in (-1.0, 1.0):
                beyond = [e for e in ends if side * (e - after) > 0.0]
                bound, exact = walk.bound(after, side)
                if not beyond:
                    assert bound is None
                    continue
                following = min(beyond, key=lambda e: abs(e - after))
                assert 0.0 <= side * (bound - after) <= side * (following - after)
                assert bound == following or not exact
                checked += 1
    assert checked >= 50


def test_the_walk_answers_as_the_exhaustive_order_refining_only_what_it_passes(monkeypatch):
    # Random arms, targets and held rolls: the roll the walk answers is the exhaustive one;
    # no bracket farther from the held roll than every end of the stretches tried (up to the
    # first that reaches) is refined, and some are left.
    resolved = []
    real = desktop_roll_walk.resolve

    def resolve(geometry, target, item):
        resolved.append(item)
        return real(geometry, target, item)

    monkeypatch.setattr(desktop_roll_walk, 'resolve', resolve)
    crossed, left = 0, 0
    for seed in range(4):
        geometry, solver = _solver(50 + seed)
        rng = np.random.default_rng(60 + seed)
        lower, upper = solver.arm.lower_limits[4], solver.arm.upper_limits[4]
        for target in _fk_sampled(rng, geometry, 10)[1]:
            held = float(rng.uniform(max(lower, -3.0), min(upper, 3.0)))
            for back in (False, True):
                resolved.clear()
                answer = _checked_walk(solver, target, held, back, resolved)
                crossed += answer is not None and answer >= 1
                pending = _pending(solver, target, held, back)
                left += answer is not None and len(resolved) < pending
    assert crossed >= 5 and left >= 5


def _checked_walk(solver, target, held, back, resolved):
    """Check the walk's roll and the brackets it refined; return the first reaching stretch.

    The index of the first stretch that reaches in the exhaustive order, None if none does.
    """
    stretches, reached = _exhaustive(solver, target, held, back)
    roll = _walked(solver, target, held, back)
    first = next((i for i, r in enumerate(reached) if r is not None), None)
    assert roll == (None if first is None else reached[first])
    if first is not None:
        roll_target, low, high = _window(solver, target, held, back)
        ends = roll_ends(solver._roll_geometry, roll_target, low, high)
        reach = max(abs(ends[bisect.bisect(ends, rolls[-1]) + k] - held)
                    for rolls in stretches[:first + 1] for k in (-1, 0))
        for start, end, _, _ in resolved:
            assert start <= held <= end or min(abs(start - held), abs(end - held)) <= reach
    return first


def _pending(solver, target, held, back):
    roll_target, low, high = _window(solver, target, held, back)
    return len(desktop_roll_walk.roll_brackets(solver._roll_geometry, roll_target, low, high)[1])


@pytest.mark.parametrize('seed', (81, 82, 90))  # arms whose yaw has limits
def test_past_the_yaw_entry_the_moved_roll_is_the_exhaustive_one(seed, monkeypatch):
    # Exact arms, held rolls at which the yaw faces the target outside its limits: the moved
    # roll, found past the yaw's entry without the walk when that reaches, is the exhaustive
    # order's roll to the bit (the walk runs only when the shortcut cannot answer).
    geometry, solver = _solver(seed)
    rng = np.random.default_rng(seed + 100)
    lower, upper = solver.arm.lower_limits[4], solver.arm.upper_limits[4]
    helds = rng.uniform(max(lower, -3.0), min(upper, 3.0), 300).tolist()
    shortcut, _ = _shortcut_cases(solver, _fk_sampled(rng, geometry, 150)[1], helds,
                                  monkeypatch)
    assert shortcut >= 3


def test_past_two_yaw_entries_as_near_the_one_below_is_the_exhaustive_one(monkeypatch):
    # The demo arm held at roll 0, where the yaw meets its limits as far below as above: the
    # shortcut takes the stretch below first, as the walk does, to the bit.
    geometry = desktop_from_chain(chain_from_urdf(DEMO_URDF, 'base_link', 'tool'))
    solver = DesktopSolver(geometry.model)
    targets = _fk_sampled(np.random.default_rng(5), geometry, 400)[1]
    shortcut, ties = _shortcut_cases(solver, targets, [0.0] * 800, monkeypatch)
    assert shortcut >= 3 and ties >= 3


def _shortcut_cases(solver, targets, helds, monkeypatch):
    """Check the moved roll against the exhaustive order where the yaw is out at ``held``.

    Returns how many the shortcut answered (no walk), and how many of those had two yaw
    entries as near.
    """
    walks = []
    real = desktop_moved_roll.nearest_stretches

    def walk(*args):
        walks.append(args)
        return real(*args)

    monkeypatch.setattr(desktop_moved_roll, 'nearest_stretches', walk)
    shortcut, ties = 0, 0
    cases = ((target, back) for target in targets for back in (False, True))
    for (target, back), held in zip(cases, helds):
        tool = solver._tool(held)
        at_held = solver._attempt(*target, None, 0.0, held, tool, back)
        if math.hypot(*solver._horizontal(*target)) < abs(tool.lateral) or (
                (at_held is not None) if back else
                at_held.facing.status is not DesktopStatus.JOINT_LIMITED):
            continue  # the yaw fits at the held roll, or no yaw faces the target there
        walks.clear()
        attempt = solver._moved_roll(*target, None, 0.0, held, back, False)
        stretches, reached = _exhaustive(solver, target, held, back)
        first = next((r for r in reached if r is not None), None)
        assert (None if attempt is None else attempt.roll) == first
        if attempt is not None and not walks:
            shortcut += 1
            roll_target, low, high = _window(solver, target, held, back)
            near = sorted(abs(math.remainder(e - held, 2.0 * math.pi)) for e in
                          solver._roll_geometry.closed_form_ends(roll_target, True))
            ties += len(near) > 1 and near[0] == near[1] and attempt.roll < held
    return shortcut, ties
