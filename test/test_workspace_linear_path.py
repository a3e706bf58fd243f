"""Tests of two_bone_ik.workspace.linear_path: the straight line, every pose in closed form."""

import dataclasses
import math

import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_config import (
    arm_config_from_mapping, desktop_geometry, DesktopConfig)
from two_bone_ik.ik.desktop_target_solver import DesktopTargetSolver
from two_bone_ik.ik.target_solver import TargetSolver
from two_bone_ik.workspace.linear_path import (
    approach_pitch, elbow_of, LineError, LinePlanner, yaw_branch_of)
from urdf_arms import DESKTOP_PARAMETERS

PLANAR = ArmConfig(link_lengths=(0.3, 0.25), plane='xz')


def _planar(config=PLANAR):
    return TargetSolver(config)


def _desktop(pitch=-1.2):
    config = arm_config_from_mapping(DESKTOP_PARAMETERS)
    solver = DesktopTargetSolver.from_config(config, desktop_geometry(config))
    solver.approach_pitch = pitch
    return solver


def _pose(solver, point, previous=None, **options):
    result = solver.solve('', *point, previous, **options)
    assert result.reachable, result.status
    return result.readings


def _off_the_line(line, s, readings, geometry):
    tips = np.array([geometry.tip_position(q) for q in readings])
    expected = line.start_point + np.asarray(s)[:, None] * (line.goal_point - line.start_point)
    return np.abs(tips - expected).max()


@pytest.mark.parametrize('start, goal', [
    ((0.3, 0.0, 0.2), (0.3, 0.0, -0.2)), ((0.2, 0.0, 0.3), (0.25, 0.0, -0.2)),
    ((0.45, 0.0, 0.0), (-0.1, 0.0, 0.4))])
def test_a_planar_line_is_on_the_line_at_every_s(start, goal):
    solver = _planar()
    a = _pose(solver, start)
    line = LinePlanner(solver).line(a, _pose(solver, goal, a))
    s = np.random.default_rng(0).uniform(0.0, 1.0, 300)
    readings = line.readings(s)
    assert _off_the_line(line, s, readings, solver.geometry) <= 1e-9
    np.testing.assert_allclose(line.readings([0.0, 1.0]), [line.start, line.goal], atol=1e-9)
    # The densely solved poses bound the derivatives the timing uses.
    steps = np.abs(np.diff(line.dense, axis=0)) / np.diff(line.s)[:, None]
    assert (steps.max(axis=0) <= np.array(line.bounds.first)).all()


@pytest.mark.parametrize('start, goal', [
    ((0.25, -0.1, 0.05), (0.2, 0.12, 0.15)), ((0.15, 0.15, 0.2), (0.28, -0.05, 0.0))])
def test_a_desktop_line_moves_the_tool_point_straight_and_the_pitch_linearly(start, goal):
    solver = _desktop()
    a = _pose(solver, start)
    b = _pose(solver, goal, a, approach_pitch=-0.6)
    line = LinePlanner(solver).line(a, b)
    s = np.linspace(0.0, 1.0, 101)
    readings = line.readings(s)
    assert _off_the_line(line, s, readings, solver.geometry) <= 1e-9
    pitches = np.array([approach_pitch(solver.geometry, q) for q in readings])
    expected = -1.2 + s * (-0.6 + 1.2)
    np.testing.assert_allclose(pitches, expected, atol=1e-9)
    roll = solver.geometry.model.indices[4]
    np.testing.assert_allclose(readings[:, roll], a[roll], atol=1e-12)  # the roll held


def test_the_roll_turns_linearly_between_two_rolls():
    solver = _desktop()
    a = _pose(solver, (0.25, -0.1, 0.05))
    b = list(_pose(solver, (0.2, 0.1, 0.1), a))
    roll = solver.geometry.model.indices[4]
    b[roll] = a[roll] + 0.8
    b = _pose(solver, (0.2, 0.1, 0.1), b)  # the roll held from its previous
    line = LinePlanner(solver).line(a, b)
    s = np.linspace(0.0, 1.0, 21)
    np.testing.assert_allclose(line.readings(s)[:, roll], a[roll] + 0.8 * s, atol=1e-12)
    assert _off_the_line(line, s, line.readings(s), solver.geometry) <= 1e-9


def test_a_line_through_the_inner_hole_leaves_the_workspace():
    solver = _planar(dataclasses.replace(PLANAR, link_lengths=(0.3, 0.15)))
    a, b = _pose(solver, (0.2, 0.0, 0.1)), _pose(solver, (-0.2, 0.0, 0.1))
    with pytest.raises(LineError, match=r'leaves the workspace at \(0\.1.*% along it '
                                        r'\(INSIDE_INNER\)'):
        LinePlanner(solver).line(a, b)


def test_a_line_past_a_joint_limit_is_refused_where_it_crosses():
    solver = _planar(dataclasses.replace(PLANAR, joint_lower_limits=(-3.0, -0.6),
                                         joint_upper_limits=(3.0, 0.0)))
    a = _pose(solver, (0.54 * math.cos(-0.4), 0.0, 0.54 * math.sin(-0.4)))
    b = _pose(solver, (0.54 * math.cos(0.4), 0.0, 0.54 * math.sin(0.4)), a)
    with pytest.raises(LineError, match=r'crosses a joint limit at .* \(JOINT_LIMITED\)') as info:
        LinePlanner(solver).line(a, b)
    percent = int(str(info.value).split(' % along')[0].rsplit(' ', 1)[1])
    assert 5 < percent < 50  # between the start and the middle, where the elbow bends most


def test_a_line_past_the_shoulder_axis_passes_a_singularity():
    # Equal links reach the shoulder's own axis folded: there the shoulder's angle is any,
    # and a line 1 mm from it turns the shoulder half a turn in a few millimetres.
    solver = _planar(dataclasses.replace(PLANAR, link_lengths=(0.25, 0.25)))
    a, b = _pose(solver, (-0.1, 0.0, 0.001)), _pose(solver, (0.1, 0.0, 0.001))
    with pytest.raises(LineError, match=r'passes a singularity at \(-?0\.000, 0\.000, '
                                        r"0\.001\) m, 5\d % along it: 'shoulder_joint' would"):
        LinePlanner(solver).line(a, b)


def test_a_line_between_two_elbows_is_refused():
    up = _planar()
    down = _planar(dataclasses.replace(PLANAR, elbow='down'))
    a = _pose(up, (0.3, 0.0, 0.2))
    with pytest.raises(LineError, match="cannot change the elbow: the arm's pose is elbow up, "
                                        "the target's elbow down"):
        LinePlanner(up).line(a, _pose(down, (0.3, 0.0, -0.2)))


def test_a_desktop_line_whose_pitch_a_joint_limit_breaks_is_refused_where():
    # Across in front of the base, the pitch turning from 0.235 to -0.236 rad: about half way
    # the closed form cannot keep the pitch turned linearly (a joint at its limit). Unrefused,
    # this line would be followed with the pitch up to 0.2 rad off its linear turn.
    solver = _desktop()
    a = _pose(solver, (-0.236, 0.08, 0.121), approach_pitch=0.235)
    b = _pose(solver, (0.135, 0.092, 0.14), a, approach_pitch=-0.236)
    with pytest.raises(LineError, match=r'cannot keep the approach pitch 0\.0\d\d rad at '
                                        r'.* 4\d % along it \(a joint limit\)'):
        LinePlanner(solver).line(a, b)


# A pose of the test arm reaching back over the yaw axis where the arm facing the target
# reaches its tool point too (the preference order's first class), and a point 6 cm away.
BACK_START = (-1.23, 1.39, -0.75, 0.16, -1.93)
BACK_GOAL_POINT = (-0.125, 0.24, 0.337)


def test_yaw_branch_of_says_which_side_of_the_yaw_axis_the_tool_point_is():
    solver = _desktop()
    geometry = solver.geometry
    assert yaw_branch_of(geometry, BACK_START) == 'back'
    assert yaw_branch_of(geometry, _pose(solver, (0.2, 0.1, 0.1))) == 'facing'
    # Pointing up with the tool point above the yaw axis in the arm's plane (the tool is
    # 1 cm off the plane, along its normal): on both branches.
    model = geometry.model
    above = model.tool_at(0.0).lateral * np.array(model.normal) + 0.35 * np.array(model.up)
    assert yaw_branch_of(geometry, _pose(solver, above, approach_pitch=math.pi / 2)) == ''
    assert yaw_branch_of(_planar().geometry, (0.1, 0.2)) == ''


def test_a_desktop_line_reaching_back_stays_back_where_facing_would_reach_too():
    # Unchanged, every pose was the preference order's (facing, at another pitch): refused
    # at once ('cannot keep the approach pitch', 0 %) although a straight line exists.
    solver = _desktop()
    geometry = solver.geometry
    start = BACK_START
    pitch = approach_pitch(geometry, start)
    first = solver.solve('', *geometry.tip_position(start), start, approach_pitch=pitch)
    assert first.reachable and first.yaw_branch == 'facing'
    goal = DesktopTargetSolver(geometry, elbow_of(geometry, start), False).solve_on_yaw_branch(
        *BACK_GOAL_POINT, 'back', start, pitch)
    line = LinePlanner(solver).line(start, goal.readings)
    s = np.linspace(0.0, 1.0, 41)
    readings = line.readings(s)
    assert _off_the_line(line, s, readings, geometry) <= 1e-9
    assert {yaw_branch_of(geometry, q) for q in line.dense} == {'back'}
    np.testing.assert_allclose(line.readings([0.0, 1.0]), [start, goal.readings], atol=1e-9)


def test_a_desktop_line_over_the_yaw_axis_keeps_the_yaw_and_changes_branch():
    # In the arm's plane from in front of the base to behind it, the yaw limits (+-2 rad)
    # ruling out facing the far end: the tool point passes over the yaw axis, the yaw kept at
    # 0 and the branch changing there (the nearer yaw chosen pose by pose).
    config = DesktopConfig(
        joint_names=('yaw', 'shoulder', 'elbow', 'pitch', 'roll'), link_lengths=(0.12, 0.10),
        plane='xz', shoulder_position=(0.0, 0.0, 0.05),
        joint_zero_angles=(0.0, 0.5, -0.5, 0.0, 0.0), joint_directions=(1, -1, -1, -1, 1),
        tool_offset=(0.05, 0.0, 0.0), joint_lower_limits=(-2.0, -1.5, -2.5, -1.8, -2.5),
        joint_upper_limits=(2.0, 1.5, 2.5, 1.8, 2.5))
    geometry = desktop_geometry(config)
    solver = DesktopTargetSolver.from_config(config, geometry)
    a = (0.0, -0.05336283540199038, 1.9735793109808677, -0.2782191349964258, 0.0)
    b = (0.0, 0.5203796614588168, 2.0954430981691123, 1.176571186404196, 0.0)
    assert (yaw_branch_of(geometry, a), yaw_branch_of(geometry, b)) == ('facing', 'back')
    line = LinePlanner(solver).line(a, b)
    assert np.abs(line.dense[:, 0]).max() <= 1e-9
    assert {yaw_branch_of(geometry, q) for q in line.dense} >= {'facing', 'back'}
    s = np.linspace(0.0, 1.0, 101)
    readings = line.readings(s)
    assert _off_the_line(line, s, readings, geometry) <= 1e-9
    assert np.abs(readings[:, 0]).max() <= 1e-9
    np.testing.assert_allclose(line.readings([0.0, 1.0]), [a, b], atol=1e-9)


def test_a_line_from_reaching_back_to_facing_the_target_is_solved_and_refused_where():
    # Not over the yaw axis: solved pose by pose (not refused up front for its ends'
    # branches), and refused where the pitch turning to the target's cannot be kept.
    solver = _desktop()
    facing = _pose(solver, (0.2, 0.1, 0.1))
    with pytest.raises(LineError, match=r'cannot keep the approach pitch .* 37 % along it'):
        LinePlanner(solver).line(BACK_START, facing)


def test_a_line_whose_point_only_a_moved_roll_reaches_is_refused_where():
    # Near the yaw axis, 38 % along: no pose faces the point with the roll turned linearly;
    # the preference order's answer there moves the roll off the line's, which is refused.
    solver = _desktop()
    a, b = (2.62, 0.57, 0.11, 0.09, 2.16), (-0.87, 0.33, 1.13, -0.55, 0.11)
    with pytest.raises(LineError, match=r'has no pose facing the target with the roll as the '
                                        r'line turns it at .* 38 % along it: the point there is '
                                        r'reached with the roll moved'):
        LinePlanner(solver).line(a, b)


def test_a_line_between_reaching_back_and_the_yaw_axis_keeps_the_yaw():
    # The tool in the arm's plane and the shoulder on a plane through the yaw axis: the point
    # on the axis is on both yaw branches (the yaw kept), so a line from a pose reaching back
    # to it (and back again) is followed, the yaw held, not refused at its end as 'facing'.
    config = arm_config_from_mapping({**DESKTOP_PARAMETERS, 'tool_offset': [0.1, 0.0, 0.0],
                                      'shoulder_position': [0.02, 0.0, 0.09]})
    solver = DesktopTargetSolver.from_config(config, desktop_geometry(config))
    geometry = solver.geometry
    back = (0.26, 1.52, 0.65, 0.93, 0.0)
    assert yaw_branch_of(geometry, back) == 'back'
    over = _pose(solver, (0.0, 0.0, 0.32), back, approach_pitch=approach_pitch(geometry, back))
    assert yaw_branch_of(geometry, over) == '' and over[0] == back[0]
    for start, goal in ((back, over), (over, back)):
        line = LinePlanner(solver).line(start, goal)
        s = np.linspace(0.0, 1.0, 41)
        readings = line.readings(s)
        assert _off_the_line(line, s, readings, geometry) <= 1e-9
        np.testing.assert_allclose(readings[:, 0], back[0], atol=1e-9)  # the yaw held
        assert {yaw_branch_of(geometry, q) for q in line.dense} == {'back', ''}


def test_a_line_whose_point_only_the_other_branch_reaches_is_refused_where():
    # Reaching back, 3 % along (near the yaw axis) no pose reaches back with the roll as
    # turned; the preference order's answer there faces the point, which is refused, named.
    solver = _desktop()
    geometry = solver.geometry
    start = (2.32, 1.07, -0.59, -1.5, 2.18)
    goal = DesktopTargetSolver(geometry, elbow_of(geometry, start), False).solve_on_yaw_branch(
        0.014, 0.1, 0.305, 'back', start, approach_pitch(geometry, start))
    with pytest.raises(LineError, match=r'has no pose reaching back over the yaw axis with the '
                                        r'roll as the line turns it at .* 3 % along it: the '
                                        r'point there is reached facing the target'):
        LinePlanner(solver).line(start, goal.readings)
