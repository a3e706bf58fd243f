"""Tests of two_bone_ik.solver.desktop_batch: row i is the scalar solve of target i."""

import math

import numpy as np
import pytest

from two_bone_ik.arm.desktop_config import desktop_geometry, DesktopConfig
from two_bone_ik.arm.desktop_geometry import arm_from_description, desktop_from_chain
from two_bone_ik.arm.urdf_import import chain_from_urdf
from two_bone_ik.solver import IkInputError
from two_bone_ik.solver.desktop import DesktopSolver
from two_bone_ik.solver.desktop_batch import _entry_trials
from urdf_arms import DESKTOP_JOINTS, FIXED_DESKTOP_ARMS, random_desktop_arm, random_readings

SHAPES = tuple(DESKTOP_JOINTS)

#: Readings of a row and of the scalar solve agree to this, rad (a pose on a boundary of the
#: feasible pitches holds its joint there exactly in both).
READINGS = 1e-12
#: ... and this for a pose whose pitch is a boundary root near a tangency of two boundaries
#: (the batch's roots and the scalar's come from different formulas: up to ~4e-12 rad apart
#: on FK-sampled targets, facing or back).
NEAR_TANGENCY = 1e-11


def _case(rng, arm, geometry, count):
    """Targets near and away from the arm's poses, previous commands, wanted pitches."""
    limits = arm.limits
    poses = np.array([[rng.uniform(max(lo, -3.0), min(hi, 3.0)) for lo, hi in limits]
                      for _ in range(count)])
    targets = np.array([geometry.tool_position(p) for p in poses])
    targets += rng.normal(size=targets.shape) * 0.05 * (rng.uniform(size=(count, 1)) < 0.5)
    previous = np.clip(poses + rng.normal(size=poses.shape) * 0.3, *np.transpose(limits))
    return targets, previous, rng.uniform(-3.0, 3.0, count)


def _assert_rows_equal(solver, batch, targets, previous, wanted, orientations=None):
    for row in range(targets.shape[0]):
        sol = solver.solve(*targets[row], previous=previous[row], approach_pitch=wanted[row],
                           orientation=None if orientations is None else orientations[row])
        assert int(batch.status[row]) == int(sol.status), (row, sol)
        assert bool(batch.reachable[row]) == sol.reachable
        np.testing.assert_allclose(batch.readings[row], sol.readings, rtol=0, atol=READINGS)
        np.testing.assert_allclose(batch.tool[row], sol.tool, rtol=0, atol=1e-12)
        assert batch.error[row] == pytest.approx(sol.error, abs=1e-12)
        np.testing.assert_allclose(
            (batch.approach_pitch[row], batch.asked_pitch[row], batch.off_plane[row]),
            (sol.approach_pitch, sol.asked_pitch, sol.off_plane), rtol=0, atol=1e-9)
        if orientations is not None:
            assert batch.orientation_error[row] == pytest.approx(sol.orientation_error,
                                                                 abs=1e-9)


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('seed', range(8))
def test_rows_equal_the_scalar_solve(shape, seed):
    rng = np.random.default_rng(500 + seed)
    arm = random_desktop_arm(rng, shape)
    geometry = desktop_from_chain(chain_from_urdf(arm.urdf, arm.base, arm.tip))
    solver = DesktopSolver(geometry.model, elbow=('up', 'down', 'nearest')[seed % 3],
                           allow_elbow_flip=bool(seed % 2))
    targets, previous, wanted = _case(rng, arm, geometry, 30)
    _assert_rows_equal(solver, solver.solve_batch(targets, previous, wanted), targets,
                       previous, wanted)


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('axis_error', [0.0, 5e-6, 5e-4])
def test_rows_equal_the_scalar_solve_with_orientations(shape, axis_error):
    rng = np.random.default_rng(600 + int(axis_error * 1e6))
    arm = random_desktop_arm(rng, shape, axis_error=axis_error)
    geometry = desktop_from_chain(chain_from_urdf(arm.urdf, arm.base, arm.tip))
    solver = DesktopSolver(geometry.model, elbow='nearest')
    targets, previous, wanted = _case(rng, arm, geometry, 30)
    orientations = rng.normal(size=(30, 4))
    batch = solver.solve_batch(targets, previous, wanted, orientations)
    _assert_rows_equal(solver, batch, targets, previous, wanted, orientations)


def test_without_previous_or_with_one_pitch():
    rng = np.random.default_rng(7)
    arm = random_desktop_arm(rng, 'yaw + pair + pitch + roll')
    geometry = desktop_from_chain(chain_from_urdf(arm.urdf, arm.base, arm.tip))
    solver = DesktopSolver(geometry.model)
    targets, _, _ = _case(rng, arm, geometry, 20)
    batch = solver.solve_batch(targets, approach_pitch=-0.7)
    for row, target in enumerate(targets):
        sol = solver.solve(*target, approach_pitch=-0.7)
        assert int(batch.status[row]) == int(sol.status)
        np.testing.assert_allclose(batch.readings[row], sol.readings, rtol=0, atol=READINGS)


@pytest.mark.parametrize('beyond', [0.0, 4e-13, -4e-13])
def test_roots_tied_with_the_nearest_are_posed_and_the_tie_is_the_scalar_ones(beyond):
    # No limits, a target beyond l1 + l2 unless the tool points roughly at it, the wanted
    # pitch straight back: the feasible arc's two ends are equally near it (``beyond`` 0), or
    # within the tie window of each other (the farther one posed in the second round only);
    # the last command decides, as in the scalar solve.
    geometry = desktop_geometry(DesktopConfig(
        joint_lower_limits=None, joint_upper_limits=None, shoulder_position=(0.0, 0.0, 0.0),
        link_lengths=(0.10, 0.10), tool_offset=(0.15, 0.0, 0.0)))
    solver = DesktopSolver(geometry.model)
    wanted = math.pi + beyond
    for previous_pitch in (0.5, -0.5):
        previous = solver.solve(0.3, 0.0, 0.0, approach_pitch=previous_pitch).readings
        sol = solver.solve(0.33, 0.0, 0.0, previous=previous, approach_pitch=wanted)
        batch = solver.solve_batch([[0.33, 0.0, 0.0]], [previous], wanted)
        assert sol.reachable and math.copysign(1.0, sol.approach_pitch) == previous_pitch * 2
        assert batch.approach_pitch[0] == pytest.approx(sol.approach_pitch, abs=1e-12)
        np.testing.assert_allclose(batch.readings[0], sol.readings, rtol=0, atol=READINGS)


def _scalar_rows_of(solver, batch_call):
    """Return (the batch, the targets it left to the scalar solve): ``solve_general`` watched."""
    asked = []
    general = solver.solve_general

    def watched(x, y, z, *rest):
        asked.append((x, y, z))
        return general(x, y, z, *rest)
    solver.solve_general = watched
    try:
        return batch_call(), asked
    finally:
        del solver.solve_general


def _kind_case(case):
    """(solver, FK-sampled targets, the kind of row they hold) of one case of the test below."""
    if case == 'so101_like':  # (its URDF's rounded pi: the quick correction's rows)
        urdf, base, tip, _, _ = FIXED_DESKTOP_ARMS[case]
        geometry, rng, kind = arm_from_description(urdf, base, tip), np.random.default_rng(11), \
            'shortcut'
    else:
        seed, axis_error = case
        rng = np.random.default_rng(seed)
        arm = random_desktop_arm(rng, 'yaw + pair + pitch + roll', axis_error=axis_error,
                                 roll_at_tip=bool(seed % 2))
        geometry = desktop_from_chain(chain_from_urdf(arm.urdf, arm.base, arm.tip))
        kind = 'bound' if seed % 2 else 'shortcut'
    targets = np.array([geometry.tool_position(random_readings(
        rng, geometry.lower_limits, geometry.upper_limits)) for _ in range(300)])
    return DesktopSolver(geometry.model), targets, kind


def _kind_of(solver, target, previous, wanted, sol):
    """Return the kind of a row (None: neither), from the scalar solve's answer ``sol``.

    'shortcut': its moved roll (class (b)) is the one past the yaw's entry; 'bound': it
    reaches back (class (c)), a moved roll ruled out by the reach bound
    (arms 27 and 75: by the hole round the shoulder).
    """
    if sol.yaw_branch == 'back' and not sol.roll_moved and not solver._roll_may_reach(
            *target, False):
        return 'bound'
    if sol.yaw_branch == 'back' or not sol.roll_moved:
        return None
    held = 0.0 if previous is None else previous[solver.arm.indices[4]]
    window = solver._moved_roll_window(*target, held, False, False)
    return 'shortcut' if window is not None and solver._past_yaw_entry(
        *target, previous, wanted, held, *window) is not None else None


@pytest.mark.parametrize('case', ['so101_like', (4, 0.0), (4, 5e-6), (7, 0.0), (7, 5e-6),
                                  (27, 0.0), (75, 0.0)])
@pytest.mark.parametrize('wanted', [0.0, -math.pi / 2])
def test_moved_roll_and_reach_back_rows_are_vectorised_and_equal_the_scalar_solve(case, wanted):
    # FK-sampled targets: the rows the moved roll's shortcut answers (class (b)) and those
    # reaching back whose moved roll the reach bound rules out (class (c)) are the scalar
    # solve's rows (also the roll moved and the yaw branch), and none is left to the scalar
    # solve; with and without the last command (which holds the roll elsewhere).
    solver, targets, kind = _kind_case(case)
    previous = np.array([random_readings(np.random.default_rng(row), solver.arm.lower_limits,
                                         solver.arm.upper_limits) for row in range(300)])
    found = 0
    for given in (None, previous):
        batch, asked = _scalar_rows_of(solver, lambda: solver.solve_batch(targets, given, wanted))
        left = {tuple(map(float, t)) for t in asked}
        for row, target in enumerate(map(tuple, targets.tolist())):
            row_previous = None if given is None else tuple(given[row])
            sol = solver.solve(*target, row_previous, wanted)
            assert (int(batch.status[row]), bool(batch.back[row]), bool(batch.roll_moved[row])
                    ) == (int(sol.status), sol.yaw_branch == 'back', sol.roll_moved), row
            np.testing.assert_allclose(batch.readings[row], sol.readings, rtol=0,
                                       atol=NEAR_TANGENCY)
            np.testing.assert_allclose(batch.tool[row], sol.tool, rtol=0, atol=1e-12)
            if _kind_of(solver, target, row_previous, wanted, sol) == kind:
                found += 1
                assert target not in left, row
    assert found > 0


@pytest.mark.parametrize('seed', [0, 2, 4, 8, 10, 12])
def test_the_moved_rolls_trial_is_the_scalar_ones_where_the_batch_is_sure(seed):
    # The shortcut's trial roll, vectorised (the scalar checks decide the rows it is unsure
    # of): FK-sampled targets and targets near them, held rolls anywhere; arms (seeds) whose
    # yaw limits leave many targets to a moved roll.
    rng = np.random.default_rng(seed)
    arm = random_desktop_arm(rng, 'yaw + pair + pitch + roll', roll_at_tip=bool(seed % 2))
    geometry = desktop_from_chain(chain_from_urdf(arm.urdf, arm.base, arm.tip))
    solver = DesktopSolver(geometry.model)
    lower, upper = geometry.lower_limits[4], geometry.upper_limits[4]
    targets = np.array([geometry.tool_position(random_readings(rng, geometry.lower_limits,
                                                               geometry.upper_limits))
                        for _ in range(200)])
    targets = np.concatenate((targets, targets + rng.normal(size=targets.shape) * 0.03))
    held = rng.uniform(max(lower, -3.0), min(upper, 3.0), len(targets))
    trials, unsure = _entry_trials(solver, targets, held)
    found = 0
    for target, roll, trial, odd in zip(targets.tolist(), held.tolist(), trials, unsure):
        window = solver._moved_roll_window(*target, roll, False, False)
        scalar = None if window is None else solver._entry_trial(*window, roll)
        if odd:
            assert math.isnan(trial)
        elif scalar is None:
            assert math.isnan(trial), target
        else:
            found += 1
            assert trial == pytest.approx(scalar, abs=1e-12)
    assert found > 10 and unsure.sum() < 0.05 * len(targets)


@pytest.mark.parametrize('arguments, match', [
    ({'targets': np.zeros((3, 2))}, r'targets must have shape \(n, 3\)'),
    ({'targets': [[0.1, math.nan, 0.0]]}, r'targets\[0, 1\] must be finite'),
    ({'targets': np.zeros((2, 3)), 'previous': np.zeros((2, 3))}, 'previous must be finite'),
    ({'targets': np.zeros((1, 3)), 'orientations': np.zeros((1, 4))},
     'orientations must be 1 rotation quaternions'),
    ({'targets': np.zeros((1, 3)), 'approach_pitch': math.inf}, 'approach_pitch must be finite'),
])
def test_invalid_batches_are_refused_naming_the_value(arguments, match):
    rng = np.random.default_rng(1)
    arm = random_desktop_arm(rng, 'yaw + pair + pitch + roll')
    geometry = desktop_from_chain(chain_from_urdf(arm.urdf, arm.base, arm.tip))
    with pytest.raises(IkInputError, match=match):
        DesktopSolver(geometry.model).solve_batch(**arguments)
