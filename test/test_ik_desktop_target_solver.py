"""Tests of two_bone_ik.ik.desktop_target_solver: the node's per-target logic for a desktop arm."""

import math

import numpy as np
import pytest

from two_bone_ik.arm.desktop_config import desktop_geometry, DesktopConfig
from two_bone_ik.ik.desktop_target_solver import DesktopTargetSolver
from two_bone_ik.ik.status import NodeStatus
from two_bone_ik.solver.chain_kinematics import rotation_about

CONFIG = DesktopConfig(
    joint_names=('yaw', 'shoulder', 'elbow', 'pitch', 'roll'), link_lengths=(0.12, 0.10),
    plane='xz', shoulder_position=(0.03, 0.0, 0.05), joint_zero_angles=(0.0, 0.5, -0.5, 0.0, 0.0),
    joint_directions=(1, -1, -1, -1, 1), tool_offset=(0.05, 0.005, 0.0),
    joint_lower_limits=(-2.0, -1.5, -2.5, -1.8, -2.5),
    joint_upper_limits=(2.0, 1.5, 2.5, 1.8, 2.5))

DOWN = (0.0, math.sin(math.pi / 4), 0.0, math.cos(math.pi / 4))  # the hand pointing down


def _solver(**options):
    return DesktopTargetSolver.from_config(DesktopConfig(**{**CONFIG.__dict__, **options}),
                                           desktop_geometry(CONFIG))


def test_the_interface_the_node_uses():
    solver = _solver()
    geometry = solver.geometry
    assert geometry.joint_names == CONFIG.joint_names and geometry.base_frame == 'base_link'
    assert geometry.tip_frame == 'tool' and geometry.limited
    assert geometry.continuous == (False,) * 5
    assert len(geometry.velocity_limits) == 5 and geometry.describe()
    result = solver.solve('', 0.2, 0.0, 0.1, previous=(0.0,) * 5)
    assert result.status is NodeStatus.REACHED and result.reachable and not result.rejected
    assert len(result.readings) == 5 and result.error == 0.0
    assert np.linalg.norm(np.subtract(geometry.tool_position(result.readings),
                                      (0.2, 0.0, 0.1))) < 1e-12
    assert result.frame_id == '' and result.position == (0.2, 0.0, 0.1)
    assert result.approach_pitch == 0.0 and math.isnan(result.orientation_error)


@pytest.mark.parametrize('frame, position, status', [
    ('world', (0.2, 0.0, 0.1), NodeStatus.WRONG_FRAME),
    ('base_link', (math.nan, 0.0, 0.1), NodeStatus.INVALID_TARGET),
    ('', (0.2, math.inf, 0.1), NodeStatus.INVALID_TARGET),
    ('', (1e200, 0.0, 0.1), NodeStatus.INVALID_TARGET),
])
def test_rejected_targets_command_nothing(frame, position, status):
    solver = _solver()
    result = solver.solve(frame, *position)
    assert result.status is status and result.rejected and not result.reachable
    assert len(result.readings) == 5 and all(math.isnan(r) for r in result.readings)
    line = solver.describe(result)
    assert line.startswith(status.name) and '\n' not in line


def test_an_orientation_that_is_no_rotation_is_rejected_only_when_used():
    assert _solver().solve('', 0.2, 0.0, 0.1, orientation=(0.0,) * 4).status is \
        NodeStatus.REACHED
    result = _solver(use_orientation=True).solve('', 0.2, 0.0, 0.1, orientation=(0.0,) * 4)
    assert result.status is NodeStatus.INVALID_TARGET
    assert 'orientation is not a rotation' in _solver().describe(result)


@pytest.mark.parametrize('target, options, status', [
    ((0.2, 0.0, 0.1), {}, NodeStatus.REACHED),
    ((0.6, 0.2, 0.3), {}, NodeStatus.OUT_OF_REACH),
    ((-0.15, 0.01, 0.1), {'allow_reach_back': False}, NodeStatus.JOINT_LIMITED),
    ((-0.15, 0.01, 0.1), {}, NodeStatus.ELBOW_FLIPPED),  # reaching back, the elbow down
    ((0.25, 0.0, 0.05), {'use_orientation': True}, NodeStatus.APPROACH_ADJUSTED),
])
def test_statuses_and_their_lines(target, options, status):
    solver = _solver(**options)
    result = solver.solve('base_link', *target, previous=(0.0,) * 5, orientation=DOWN)
    assert result.status is status
    line = solver.describe(result)
    assert line.startswith(status.name + ': ') and '\n' not in line
    keys = [key for key, _ in solver.values(result)]
    expected = ['code', 'status', 'target_distance', 'tip_error', 'elbow', 'off_plane',
                'solver_status', 'approach_pitch', 'use_orientation', 'yaw_branch',
                'roll_moved']
    assert keys == expected + (['orientation_error'] if options.get('use_orientation') else [])
    values = dict(solver.values(result))
    assert values['yaw_branch'] == ('back' if target[0] < 0.0 and not options else 'facing')
    assert values['roll_moved'] == 'false'
    assert dict(solver.values(result))['code'] == str(int(status))
    # Whether the target's orientation was used: two_bone_ik_target says so when it was not.
    assert dict(solver.values(result))['use_orientation'] == (
        'true' if options.get('use_orientation') else 'false')


def test_options_change_at_runtime():
    solver = _solver()
    assert solver.solve('', 0.2, 0.0, 0.1).approach_pitch == 0.0
    solver.approach_pitch = -0.5
    assert solver.solve('', 0.2, 0.0, 0.1).approach_pitch == pytest.approx(-0.5, abs=1e-12)
    solver.use_orientation = True
    result = solver.solve('', 0.25, 0.0, 0.05, orientation=DOWN)
    assert result.status is NodeStatus.APPROACH_ADJUSTED
    assert result.asked_pitch == pytest.approx(-math.pi / 2, abs=1e-12)


def _quaternion(rotation):
    r = np.asarray(rotation).reshape(3, 3)
    w = math.sqrt(1 + np.trace(r)) / 2
    return ((r[2, 1] - r[1, 2]) / (4 * w), (r[0, 2] - r[2, 0]) / (4 * w),
            (r[1, 0] - r[0, 1]) / (4 * w), w)


def test_the_dropped_orientation_is_reported():
    solver = _solver(use_orientation=True)
    level = np.reshape(solver.geometry.model.tip_rotation, (3, 3))  # the hand level, forward
    reached = solver.solve('', 0.2, 0.0, 0.05, previous=(0.0,) * 5,
                           orientation=_quaternion(level))
    assert reached.status is NodeStatus.REACHED and reached.orientation_error < 1e-12
    # The same, turned about the vertical: the position fixes the yaw, the turn is dropped.
    turn = np.reshape(rotation_about((0.0, 0.0, 1.0), 0.2), (3, 3))
    result = solver.solve('', 0.2, 0.0, 0.05, previous=(0.0,) * 5,
                          orientation=_quaternion(turn @ level))
    assert result.status is NodeStatus.REACHED
    assert result.orientation_error == pytest.approx(0.2, abs=1e-9)
    assert 'orientation 0.200 rad from the asked one' in solver.describe(result)


def test_a_previous_command_of_the_wrong_size_is_ignored():
    solver = _solver()
    assert solver.solve('', 0.2, 0.0, 0.1, previous=(0.0, 0.0)).status is NodeStatus.REACHED
    assert solver.solve('', 0.2, 0.0, 0.1,
                        previous=(0.0, math.nan, 0.0, 0.0, 0.0)).status is NodeStatus.REACHED


#: An arm without a yaw: the pair and a pitch in the xz plane (targets off it are off the arm).
FLAT = DesktopConfig(joint_names=('shoulder', 'elbow', 'wrist'), arm_shape='pair + pitch',
                     plane='xz', link_lengths=(0.12, 0.10), tool_offset=(0.05, 0.0, 0.0))


def test_an_arm_without_a_yaw_says_projected_within_the_tolerance_never_reachable():
    solver = DesktopTargetSolver.from_config(FLAT, desktop_geometry(FLAT))
    within = solver.solve('', 0.2, -0.0004, 0.05)  # 0.4 mm off the plane, tolerance 1 mm
    assert (within.status, within.reachable) == (NodeStatus.PROJECTED, False)
    assert within.error == pytest.approx(0.0004, abs=1e-12)
    assert solver.describe(within).startswith(
        "PROJECTED: target 0.0004 m off the arm's plane, within out_of_plane_tolerance "
        '(0.001 m): its projection reached, elbow ')
    beyond = solver.solve('', 0.2, -0.0015, 0.05)
    assert (beyond.status, beyond.reachable) == (NodeStatus.OFF_PLANE, False)
    assert solver.describe(beyond).startswith(
        "OFF_PLANE: target 0.0015 m off the arm's plane, beyond out_of_plane_tolerance "
        '(0.001 m); its projection commanded')
    on = solver.solve('', 0.2, 0.0, 0.05)
    assert (on.status, on.reachable) == (NodeStatus.REACHED, True)
    batch = solver._solver.solve_batch([[0.2, -0.0004, 0.05], [0.2, -0.0015, 0.05],
                                        [0.2, 0.0, 0.05]])
    assert [int(s) for s in batch.status] == [
        int(NodeStatus.PROJECTED), int(NodeStatus.OFF_PLANE), int(NodeStatus.REACHED)]
    assert list(batch.reachable) == [False, False, True]


def test_absurdly_far_is_the_planar_arms_rule_and_far_reads_in_people_numbers():
    solver = _solver()
    for xyz in ((1.01e100, 0.0, 0.0), (0.0, 0.0, 1.01e100)):
        assert solver.solve('', *xyz).status is NodeStatus.INVALID_TARGET
    assert solver.solve('', 0.0, 0.0, 0.99e100).status is NodeStatus.OUT_OF_REACH
    far = solver.solve('', 1e20, 0.0, 0.0)
    assert solver.describe(far).startswith('OUT_OF_REACH: target 1e+20 m beyond reach (0.')


def test_solve_on_yaw_branch_gives_the_node_result_or_none():
    solver = _solver()
    behind, previous = (-0.15, 0.01, 0.1), (0.3, 0.0, 0.0, 0.0, 0.4)
    result = solver.solve_on_yaw_branch(*behind, 'back', previous, 0.2)
    assert result.status is NodeStatus.ELBOW_FLIPPED  # (only elbow down reaches back there)
    assert result.reachable and not result.rejected and result.elbow == 'down'
    assert result.yaw_branch == 'back' and not result.roll_moved and result.readings[4] == 0.4
    assert np.linalg.norm(np.subtract(solver.geometry.tool_position(result.readings),
                                      behind)) < 1e-12
    assert result.frame_id == '' and result.position == behind
    assert solver.solve_on_yaw_branch(*behind, 'facing', previous, 0.2) is None
    # Input the solver cannot use is None too (a line falls back to the solver's own answer).
    assert solver.solve_on_yaw_branch(math.nan, 0.01, 0.1, 'back', previous, 0.2) is None
    assert solver.solve_on_yaw_branch(*behind, 'back', (math.nan,) * 5, 0.2) is None
