"""Tests of two_bone_ik.solver.desktop_correction: the quick exactness correction."""

import math

from fk_oracle import MujocoChain
import numpy as np
import pytest

from two_bone_ik.arm.desktop_geometry import arm_from_description
from two_bone_ik.solver.desktop import DesktopSolver
from two_bone_ik.solver.desktop_correction import QuickCorrection
from urdf_arms import FIXED_DESKTOP_ARMS, random_readings


def _so101_like():
    urdf, base, tip, joints, _ = FIXED_DESKTOP_ARMS['so101_like']
    return arm_from_description(urdf, base, tip), MujocoChain(urdf, base, tip, joints)


def test_an_arm_whose_axes_are_off_gets_the_quick_correction():
    geometry, _ = _so101_like()
    assert not geometry.model.exact and geometry.model.model_error > 1e-9 * geometry.model.reach
    assert DesktopSolver(geometry.model)._quick is not None
    exact, _ = (arm_from_description(*FIXED_DESKTOP_ARMS['desktop_5'][:3]), None)
    assert DesktopSolver(exact.model)._quick is None  # nothing to correct


@pytest.mark.parametrize('wanted', [0.0, -math.pi / 2, 1.0])
def test_two_steps_at_most_put_the_tool_point_on_the_target(wanted):
    # The SO-101-like URDF (pi written 3.14159, pi/2 1.5708): every pose the closed form
    # finds for the ideal arm is corrected within 1e-9 x reach by at most two steps on the
    # real chain (MuJoCo's forward kinematics as oracle); the pitch joint turns back what
    # the pair turns (the approach pitch stays), a boundary's joint stays on it, the roll too.
    geometry, oracle = _so101_like()
    model = geometry.model
    solver = DesktopSolver(model)
    quick = solver._quick
    calls, general = [], []
    point = quick.chain.point4
    quick.chain.point4 = lambda *args: calls.append(1) or point(*args)
    correct = solver._correct
    solver._correct = lambda *args: general.append(1) or correct(*args)
    rng = np.random.default_rng(3)
    corrected = 0
    for _ in range(150):
        target = oracle.tool(random_readings(rng, geometry.lower_limits, geometry.upper_limits))
        calls.clear()
        sol = solver.solve(*target, approach_pitch=wanted)
        assert sol.reachable
        assert np.linalg.norm(oracle.tool(sol.readings) - target) <= 1e-9 * solver.reach
        corrected += bool(calls)
        # The tool point at the ideal pose, after each step; a moved roll may try a second
        # roll of its stretch (the first, by its end, leaving the yaw too little leverage).
        assert len(calls) <= (6 if sol.roll_moved else 3)
    assert corrected == 150 and not general


def test_the_hand_translates_or_the_boundary_joint_stays():
    geometry, oracle = _so101_like()
    model = geometry.model
    solver = DesktopSolver(model)
    rng = np.random.default_rng(8)
    kinds = set()
    for _ in range(200):
        target = oracle.tool(random_readings(rng, geometry.lower_limits, geometry.upper_limits))
        tool = solver._tool(0.0)
        facing = solver._face(*target, tool.lateral, None)
        su, sv = model.shoulder
        plane = solver._plane(facing.u - su, facing.v - sv, tool, 0.0, None, False, False)
        if plane is None or facing.status is not None:
            continue
        readings = solver._readings(facing, plane, 0.0, None)
        result = solver._quick.correct(readings, target, facing.yaw, plane.q1, plane.q2,
                                       plane.phi, tool, plane.fixed)
        if result is None:
            continue
        values, _, error = result
        assert error <= 1e-9 * solver.reach and values[4] == readings[4]
        kinds.add(plane.fixed)
        moved = np.subtract(values, readings)
        if plane.fixed is None:  # the approach pitch kept: q1 + q2 + q3 unchanged
            d = model.directions
            assert abs(d[1] * moved[1] + d[2] * moved[2] + d[3] * moved[3]) <= 1e-15
        else:
            assert moved[plane.fixed] == 0.0
    assert None in kinds and 2 in kinds


def test_rows_are_the_scalar_correction():
    geometry, oracle = _so101_like()
    solver = DesktopSolver(geometry.model)
    rng = np.random.default_rng(9)
    targets = np.array([oracle.tool(random_readings(rng, geometry.lower_limits,
                                                    geometry.upper_limits)) for _ in range(80)])
    batch = solver.solve_batch(targets, approach_pitch=-1.0)
    for row, target in enumerate(targets):
        sol = solver.solve(*target, approach_pitch=-1.0)
        np.testing.assert_allclose(batch.readings[row], sol.readings, rtol=0, atol=1e-12)
        assert batch.error[row] == pytest.approx(sol.error, abs=1e-15)
        assert bool(batch.back[row]) == (sol.yaw_branch == 'back')
        assert bool(batch.roll_moved[row]) == sol.roll_moved


def test_a_singular_pose_is_left_to_the_general_correction():
    geometry, _ = _so101_like()
    quick = QuickCorrection(geometry.model, 1e-9 * geometry.model.reach)
    tool = geometry.model.tool_at(0.0)
    # The pair stretched at the wanted pitch: its Jacobian is singular.
    assert quick.correct((0.0,) * 5, (0.3, 0.0, 0.1), 0.0, 0.0, 0.0, 0.0, tool, None) is None


def test_correct_rows_is_correct_row_by_row():
    # The vectorised twin on poses of the ideal arm (the facing plane's, at the wanted pitch
    # or on a boundary): the same readings, tool points and errors as the scalar, row by row.
    geometry, oracle = _so101_like()
    model = geometry.model
    solver = DesktopSolver(model)
    tool = solver._tool(0.0)
    su, sv = model.shoulder
    rng = np.random.default_rng(12)
    rows = []
    while len(rows) < 60:
        target = oracle.tool(random_readings(rng, geometry.lower_limits, geometry.upper_limits))
        facing = solver._face(*target, tool.lateral, None)
        plane = solver._plane(facing.u - su, facing.v - sv, tool, -0.4, None, False, False)
        if plane is not None and facing.status is None:
            rows.append((target, facing, plane, solver._readings(facing, plane, 0.0, None)))
    scalar = [solver._quick.correct(r, t, f.yaw, p.q1, p.q2, p.phi, tool, p.fixed)
              for t, f, p, r in rows]
    column = np.array
    values, points, sizes, done = solver._quick.correct_rows(
        column([r for _, _, _, r in rows]), column([t for t, _, _, _ in rows]),
        column([f.yaw for _, f, _, _ in rows]), column([p.q1 for _, _, p, _ in rows]),
        column([p.q2 for _, _, p, _ in rows]), column([p.phi for _, _, p, _ in rows]),
        np.full(len(rows), tool.length), np.full(len(rows), tool.lateral),
        column([p.fixed or 0 for _, _, p, _ in rows]))
    assert list(done) == [s is not None for s in scalar] and done.sum() >= 55
    for row, expected in enumerate(scalar):
        if expected is not None:
            np.testing.assert_allclose(values[row], expected[0], rtol=0, atol=1e-13)
            np.testing.assert_allclose(points[row], expected[1], rtol=0, atol=1e-15)
            assert sizes[row] == pytest.approx(expected[2], abs=1e-15)
