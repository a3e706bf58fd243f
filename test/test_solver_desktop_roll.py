"""Tests of two_bone_ik.solver.desktop_roll: where a moved roll can reach a target.

Oracles: MuJoCo's forward kinematics (:class:`fk_oracle.MujocoChain`) for the tool point, and
the dense pitch search of ``test_solver_desktop`` (its own two-link law of cosines) for which
rolls reach a target.
"""

import math

from fk_oracle import MujocoChain
import numpy as np
import pytest
from test_solver_desktop import _feasible_anywhere, _fk_sampled, _geometry

from two_bone_ik.solver.desktop import DesktopSolver
from two_bone_ik.solver.desktop_results import DesktopStatus
from two_bone_ik.solver.desktop_roll import (
    roll_ends, RollTarget, stretch_trials, yaw_entry)
from urdf_arms import random_desktop_arm

SHAPE = 'yaw + pair + pitch + roll'


def test_a_stretch_of_reaching_rolls_narrower_than_a_degree_is_found():
    # A random arm (seed 7) and the tool point of one of its poses: with the roll held at 0
    # no pose faces it; the rolls that do are two slivers, the nearer 0.1 degree wide, between
    # the 6-degree steps the roll was tried on before (that solver answered JOINT_LIMITED).
    arm = random_desktop_arm(np.random.default_rng(7), SHAPE)
    geometry = _geometry(arm)
    model = geometry.model
    oracle = MujocoChain(arm.urdf, arm.base, arm.tip, arm.joints)
    target = oracle.tool([-1.0607619077177803, -2.3892501110577826, -0.5644126289863112,
                          -0.2331057796796303, -2.9299443851109577])
    sol = DesktopSolver(model).solve(*target)
    assert sol.reachable and sol.roll_moved and sol.yaw_branch == 'facing'
    assert np.linalg.norm(oracle.tool(sol.readings) - target) <= 1e-9 * model.reach
    roll = sol.readings[4]
    lower, upper = model.lower_limits, model.upper_limits
    rolls = roll + np.radians(np.linspace(-2.0, 2.0, 401))
    feasible = np.array([_feasible_anywhere(model, target, r, False, lower[0], upper[0])
                         for r in rolls])
    assert 0 < feasible.sum() and np.ptp(rolls[feasible]) < math.radians(1.0)
    # The roll is at the stretch's end nearest the held one (0), a hair inside it.
    assert not _feasible_anywhere(model, target, roll + 1e-4, False, lower[0], upper[0])
    assert abs(roll) <= np.abs(rolls[feasible]).min() + 1e-9


@pytest.mark.parametrize('seed', range(3))
def test_reachability_does_not_change_between_two_ends(seed):
    # Rolls sampled between every two neighbouring ends all reach the target or none does
    # (the solver's own exact pose at each roll).
    rng = np.random.default_rng(20 + seed)
    arm = random_desktop_arm(rng, SHAPE)
    model = _geometry(arm).model
    solver = DesktopSolver(model)
    lower, upper = model.lower_limits[4], model.upper_limits[4]
    low, high = max(lower, -math.pi), min(upper, math.pi)
    readings, targets = _fk_sampled(rng, _geometry(arm), 12)
    for target in targets:
        hu, hn = solver._horizontal(*target)
        dv = float(np.dot(np.subtract(target, model.origin), model.up)) - model.shoulder[1]
        for back in (False, True):
            ends = roll_ends(solver._roll_geometry, RollTarget(hu, hn, dv, back), low, high)
            assert ends[0] == low and ends[-1] == high and ends == sorted(ends)
            for start, end in zip(ends, ends[1:]):
                if end - start < 1e-7:
                    continue
                inside = np.linspace(start, end, 7)[1:-1]
                reached = {solver._exact(solver._attempt(*target, None, 0.0, float(r),
                                                         solver._tool(float(r)), back))
                           for r in inside}
                assert len(reached) == 1, (start, end, target, back)


def test_stretches_are_tried_nearest_the_held_roll_first():
    trials = stretch_trials([-3.0, -1.0, 0.5, 0.6, 2.0], 0.56, 1e-6)
    # The stretch holding the held roll is left out; the others from their nearest end.
    assert [t[0] for t in trials] == [pytest.approx(0.6 + 1e-6), pytest.approx(0.5 - 1e-6),
                                      pytest.approx(-1.0 - 1e-6)]
    assert trials[0][-1] == pytest.approx(1.3)  # then the middle


@pytest.mark.parametrize('seed', range(4))
def test_every_zero_of_the_boundary_functions_is_an_end(seed):
    # A dense scan of every tangency and corner function (2e-4 rad apart, far finer than the
    # sampling) finds no sign change that is not next to an end: zero pairs closer together
    # than the sampling (a function dipping through zero between two samples) included.
    rng = np.random.default_rng(60 + seed)
    arm = random_desktop_arm(rng, SHAPE)
    geometry = _geometry(arm)
    solver = DesktopSolver(geometry.model)
    model = geometry.model
    rolls = np.linspace(-math.pi, math.pi, 31417)
    _, targets = _fk_sampled(rng, geometry, 6)
    for target in targets:
        hu, hn = solver._horizontal(*target)
        dv = float(np.dot(np.subtract(target, model.origin), model.up)) - model.shoulder[1]
        for back in (False, True):
            roll_target = RollTarget(float(hu), float(hn), dv, back)
            ends = np.array(roll_ends(solver._roll_geometry, roll_target, -math.pi, math.pi))
            values = solver._roll_geometry.functions(roll_target, rolls)
            with np.errstate(invalid='ignore'):
                change = values[:, :-1] * values[:, 1:] < 0.0
            for column in np.unique(np.nonzero(change)[1]):
                assert np.abs(ends - rolls[column]).min() <= 4e-4, (rolls[column], back)


def _yaw_inside(solver, target, roll, back, margin):
    """Whether the yaw facing ``target`` (or back) at ``roll`` fits its limits less ``margin``.

    None: no yaw faces it there.
    """
    lateral = solver._tool(roll).lateral
    if back:
        facing = solver._back(*target, lateral, None)
        if facing is None:
            hu, hn = solver._horizontal(*target)
            return False if math.hypot(hu, hn) >= abs(lateral) else None
    else:
        facing = solver._face(*target, lateral, None)
        if facing.status is DesktopStatus.INSIDE_INNER:
            return None
        if facing.status is not None:
            return False
    lower, upper = solver.arm.lower_limits[0], solver.arm.upper_limits[0]
    return lower + margin <= facing.reading <= upper - margin


@pytest.mark.parametrize('seed', (81, 82, 90))  # arms whose yaw has limits
def test_no_roll_nearer_the_held_one_than_the_yaw_entry_fits_the_yaw(seed):
    # Random arms, targets and held rolls at which the yaw does not fit its limits: where
    # yaw_entry answers a roll, the yaw is outside them (moved inside by the moved roll's
    # margin) at every roll nearer the held one, on both sides (a dense scan), and inside
    # them just past the entry (FK-sampled targets and targets near the yaw axis).
    rng = np.random.default_rng(seed)
    arm = random_desktop_arm(rng, SHAPE)
    model = _geometry(arm).model
    solver = DesktopSolver(model)
    _, targets = _fk_sampled(rng, _geometry(arm), 40)
    # And targets the yaw faces at some rolls only (as near its axis as the tool swings).
    roll_geometry = solver._roll_geometry
    for angle, lateral, height in rng.uniform((-math.pi, -1.0, -0.2), (math.pi, 1.0, 0.2),
                                              (40, 3)):
        rho = abs(roll_geometry.lateral + lateral * roll_geometry.swing)
        targets.append(np.asarray(model.origin) + height * np.asarray(model.up) + rho * (
            math.cos(angle) * np.asarray(model.forward) + math.sin(angle) * np.asarray(
                model.normal)))
    lower, upper = model.lower_limits[4], model.upper_limits[4]
    answered, margin = 0, solver._yaw_margin
    for target in targets:
        hu, hn = solver._horizontal(*target)
        dv = float(np.dot(np.subtract(target, model.origin), model.up)) - model.shoulder[1]
        helds = rng.uniform(max(lower, -3.0), min(upper, 3.0), 6)
        for back, held in zip((False, True) * 3, helds.tolist()):
            low, high = max(lower, held - math.pi), min(upper, held + math.pi)
            entry = yaw_entry(solver._roll_geometry, RollTarget(hu, hn, dv, back), low, high,
                              held)
            if entry is None or _yaw_inside(solver, target, held, back, 0.0) is not False:
                continue
            distance = abs(entry - held)
            for roll in held + np.linspace(-distance, distance, 801)[1:-1]:
                if low <= roll <= high:
                    assert not _yaw_inside(solver, target, float(roll), back, margin), roll
            past = entry + math.copysign(1e-6, entry - held)
            assert _yaw_inside(solver, target, past, back, margin)
            answered += 1
    assert answered >= 5


@pytest.mark.parametrize('seed', range(6))
def test_no_pose_puts_the_tool_point_inside_the_hole_round_the_shoulder(seed):
    # Random arms: over a grid of elbow, pitch and roll readings within their limits, the
    # ideal arm's tool point (its own plane_points) is never nearer the shoulder than the
    # hole; arms with limited pitches have one.
    arm = random_desktop_arm(np.random.default_rng(110 + seed), SHAPE)
    model = _geometry(arm).model
    hole = DesktopSolver(model)._roll_geometry.hole
    lower, upper = model.lower_limits, model.upper_limits
    grids = [np.linspace(max(lower[i], -math.pi), min(upper[i], math.pi), 40) for i in (2, 3, 4)]
    nearest = math.inf
    for elbow in grids[0]:
        for pitch in grids[1]:
            for roll in grids[2]:
                _, points, _ = model.plane_points((0.0, 0.0, elbow, pitch, roll))
                nearest = min(nearest, math.dist(points[0], points[3]))
    assert hole <= nearest + 1e-12
    if math.isfinite(upper[3] - lower[3]) and upper[3] - lower[3] < 2.0:
        assert hole > 0.0
