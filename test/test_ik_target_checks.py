"""Tests of two_bone_ik.ik.target_checks: what the planar and desktop target solvers share.

Both solvers are checked side by side: one rule, one text, one set of values for every arm.
"""

import math

import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_config import desktop_geometry, DesktopConfig
from two_bone_ik.ik.desktop_target_solver import DesktopTargetSolver
from two_bone_ik.ik.status import NodeStatus
from two_bone_ik.ik.target_checks import ArmTargetSolver, valid_position
from two_bone_ik.ik.target_solver import TargetSolver
from two_bone_ik.ik.target_texts import MAX_TARGET_DISTANCE

PLANAR = TargetSolver(ArmConfig())
DESKTOP = DesktopTargetSolver(desktop_geometry(DesktopConfig(
    joint_names=('yaw', 'shoulder', 'elbow', 'pitch'), link_lengths=(0.12, 0.10))))
SOLVERS = {'planar': PLANAR, 'desktop': DESKTOP}
COMMON_KEYS = ('code', 'status', 'target_distance', 'tip_error', 'elbow', 'off_plane',
               'solver_status')


def test_both_solvers_are_arm_target_solvers():
    assert isinstance(PLANAR, ArmTargetSolver) and isinstance(DESKTOP, ArmTargetSolver)


@pytest.mark.parametrize('position, valid', [
    ((0.1, 0.2, 0.3), True), ((MAX_TARGET_DISTANCE, 0.0, 0.0), True),
    ((MAX_TARGET_DISTANCE * 1.5, 0.0, 0.0), False), ((math.nan, 0.0, 0.0), False),
    ((0.0, math.inf, 0.0), False), ((0.0, 0.0, -math.inf), False)])
def test_valid_position_is_finite_and_within_the_distance(position, valid):
    assert valid_position(*position) is valid


@pytest.mark.parametrize('arm', SOLVERS)
def test_another_frame_is_wrong_frame_and_a_bad_number_invalid_for_every_arm(arm):
    solver = SOLVERS[arm]
    assert solver.checked('', 0.1, 0.0, 0.1) is None
    assert solver.checked('base_link', 0.1, 0.0, 0.1) is None
    wrong = solver.checked('world', 0.1, 0.0, 0.1)
    assert (wrong.status, wrong.rejected, wrong.frame_id) == (NodeStatus.WRONG_FRAME, True,
                                                              'world')
    assert solver.solve('world', 0.1, 0.0, 0.1) == wrong
    invalid = solver.solve('', math.nan, 0.0, 0.1)
    assert (invalid.status, invalid.rejected) == (NodeStatus.INVALID_TARGET, True)
    assert solver.describe(wrong) == ("WRONG_FRAME: target frame 'world' is not base_frame "
                                      "'base_link'; transform targets into 'base_link' upstream")


def test_the_invalid_target_text_is_shared_and_the_desktop_adds_its_orientation():
    planar = PLANAR.describe(PLANAR.solve('', 1e101, 0.0, 0.0))
    desktop = DESKTOP.describe(DESKTOP.solve('', 1e101, 0.0, 0.0))
    assert planar.startswith(
        'INVALID_TARGET: target position (1e+101, 0.000, 0.000) m is not finite')
    assert desktop == planar + ', or its orientation is not a rotation'


@pytest.mark.parametrize('arm', SOLVERS)
def test_every_arm_starts_its_values_with_the_same_keys(arm):
    solver = SOLVERS[arm]
    for result in (solver.solve('', 0.15, 0.0, 0.1), solver.solve('map', 0.15, 0.0, 0.1)):
        values = solver.values(result)
        assert tuple(key for key, _ in values[:len(COMMON_KEYS)]) == COMMON_KEYS
        assert dict(values)['status'] == result.status.name
        assert dict(values)['solver_status'] == ('' if result.rejected
                                                 else result.solver_status.name)
