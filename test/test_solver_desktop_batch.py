"""Tests of two_bone_ik.solver.desktop_batch: row i is the scalar solve of target i."""

import math

import numpy as np
import pytest

from two_bone_ik.arm.desktop_geometry import desktop_from_chain
from two_bone_ik.arm.urdf_import import chain_from_urdf
from two_bone_ik.solver import IkInputError
from two_bone_ik.solver.desktop import DesktopSolver
from urdf_arms import DESKTOP_JOINTS, random_desktop_arm

SHAPES = tuple(DESKTOP_JOINTS)

#: Readings of a row and of the scalar solve agree to this, rad (a pose on a boundary of the
#: feasible pitches holds its joint there exactly in both).
READINGS = 1e-12


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
