"""Tests of two_bone_ik.sim.controller_commands: messages checked as ros2_controllers does."""

import math

import pytest

from two_bone_ik.sim.controller_commands import CommandRejected
from two_bone_ik.sim.controller_commands import position_command
from two_bone_ik.sim.controller_commands import trajectory_command
from two_bone_ik.sim.controller_commands import ZERO_VELOCITY
from two_bone_ik.sim.trajectory_follower import TrajectoryPoint as P

JOINTS = ('shoulder_joint', 'elbow_joint')


def test_position_command_accepts_one_finite_value_per_joint():
    assert position_command([0.5, -1.25], JOINTS) == (0.5, -1.25)
    assert position_command((1, 2), JOINTS) == (1.0, 2.0)


@pytest.mark.parametrize('data, rule, text', [
    ([0.5], 'wrong_length', 'expected 2 values (positions of shoulder_joint, elbow_joint, in '
                            'that order), got 1'),
    ([0.5, 0.1, 0.2], 'wrong_length', 'got 3'),
    ([], 'wrong_length', 'got 0'),
    ([math.nan, 0.1], 'non_finite', 'data[0] (shoulder_joint) is nan; every value must be '
                                    'finite'),
    ([0.1, math.inf], 'non_finite', 'data[1] (elbow_joint) is inf'),
    ([0.1, -math.inf], 'non_finite', 'data[1] (elbow_joint) is -inf'),
])
def test_position_command_rejections(data, rule, text):
    with pytest.raises(CommandRejected) as caught:
        position_command(data, JOINTS)
    assert caught.value.rule == rule
    assert text in str(caught.value)


STOP = (0.0, 0.0)
GOOD = [P(0.5, (0.1, 0.2), (1.0, 2.0), (3.0, 4.0)), P(1.0, (0.3, 0.4), STOP, (5.0, 6.0))]


def test_trajectory_in_another_joint_order_is_reordered():
    # The message names elbow first: every field comes back in the arm's order.
    names = ['elbow_joint', 'shoulder_joint']
    trajectory = trajectory_command(names, GOOD, None, JOINTS)
    assert trajectory.start_delay is None
    first, last = trajectory.points
    assert first == P(0.5, (0.2, 0.1), (2.0, 1.0), (4.0, 3.0))
    assert last == P(1.0, (0.4, 0.3), STOP, (6.0, 5.0))
    # Positions only, one point, a start time: kept as they are.
    trajectory = trajectory_command(names, [P(2.0, (1.0, 2.0))], 0.25, JOINTS)
    assert trajectory.points == (P(2.0, (2.0, 1.0)),)
    assert trajectory.start_delay == 0.25


def test_trajectory_acceptance_limits():
    # A final velocity within float epsilon counts as zero; a stamp in the past is fine while
    # the trajectory still ends after now; the first point may be at time 0.
    tiny = ZERO_VELOCITY * 0.99
    points = [P(0.0, (0.0, 0.0)), P(1.0, (0.1, 0.1), (tiny, -tiny))]
    assert len(trajectory_command(JOINTS, points, -0.999, JOINTS).points) == 2
    assert len(trajectory_command(JOINTS, points, -1.0, JOINTS).points) == 2


def _point(**changes):
    return GOOD[0]._replace(**changes)


#: case: (joint_names, points, start_delay, rule, text in the message)
REJECTED = {
    'no_joint_names': ([], GOOD, None, 'no_joint_names', 'joint_names is empty'),
    'unknown_joint': (['shoulder_joint', 'elbow_joint', 'wrist'], GOOD, None, 'unknown_joint',
                      'unknown joint(s) wrist (the controller has shoulder_joint, elbow_joint)'),
    'missing_joint': (['elbow_joint'], [P(1.0, (0.1,))], None, 'missing_joint',
                      'joint(s) shoulder_joint missing: every joint of the controller must be '
                      'named (no partial goals)'),
    'repeated_joint': (['elbow_joint', 'elbow_joint'], GOOD, None, 'repeated_joint',
                       'joint(s) elbow_joint named more than once'),
    'no_points': (JOINTS, [], None, 'no_points', 'the trajectory has no points'),
    'time_equal': (JOINTS, [GOOD[0], GOOD[1]._replace(time_from_start=0.5)], None,
                   'time_not_increasing', 'time_from_start of points 0 and 1 is 0.5 s and '
                   '0.5 s: it must increase strictly'),
    'time_decreasing': (JOINTS, [GOOD[0], GOOD[1], GOOD[1]._replace(time_from_start=0.9)],
                        None, 'time_not_increasing', 'points 1 and 2 is 1 s and 0.9 s'),
    'positions_short': (JOINTS, [_point(positions=(0.1,)), GOOD[1]], None, 'wrong_length',
                        'point 0: 1 positions for 2 joint_names'),
    'positions_empty': (JOINTS, [GOOD[0], GOOD[1]._replace(positions=())], None,
                        'wrong_length', 'point 1: 0 positions for 2 joint_names'),
    'velocities_long': (JOINTS, [_point(velocities=(1.0, 2.0, 3.0)), GOOD[1]], None,
                        'wrong_length', 'point 0: 3 velocities for 2 joint_names'),
    'accelerations_short': (JOINTS, [_point(accelerations=(1.0,)), GOOD[1]], None,
                            'wrong_length', 'point 0: 1 accelerations for 2 joint_names'),
    'nan_position': (JOINTS, [_point(positions=(0.1, math.nan)), GOOD[1]], None, 'non_finite',
                     'point 0: positions of elbow_joint is nan; every value must be finite'),
    'inf_velocity': (JOINTS, [_point(velocities=(math.inf, 0.0)), GOOD[1]], None, 'non_finite',
                     'point 0: velocities of shoulder_joint is inf'),
    'nan_acceleration': (JOINTS, [GOOD[0], GOOD[1]._replace(accelerations=(0.0, math.nan))],
                         None, 'non_finite', 'point 1: accelerations of elbow_joint is nan'),
    'effort': (JOINTS, [GOOD[0], GOOD[1]._replace(effort=(1.0, 1.0))], None, 'effort',
               'point 1 gives efforts: only a controller with an effort command interface '
               'takes them'),
    'nonzero_final_velocity': (JOINTS, [GOOD[0], GOOD[1]._replace(velocities=(0.0, 0.25))],
                               None, 'nonzero_final_velocity',
                               "the last point's velocities must be zero, got elbow_joint "
                               '0.25 rad/s'),
    'final_velocity_above_epsilon': (
        ['elbow_joint', 'shoulder_joint'], [GOOD[1]._replace(velocities=(0.0, 2e-7))], None,
        'nonzero_final_velocity', 'got shoulder_joint 2e-07 rad/s'),
    'ends_in_past': (JOINTS, GOOD, -1.5, 'ends_in_past',
                     'the trajectory ended (header.stamp plus the last time_from_start) 0.5 s '
                     'before it arrived'),
}


@pytest.mark.parametrize('case', REJECTED.values(), ids=list(REJECTED))
def test_trajectory_rejections(case):
    names, points, start_delay, rule, text = case
    with pytest.raises(CommandRejected) as caught:
        trajectory_command(names, points, start_delay, JOINTS)
    assert caught.value.rule == rule
    assert text in str(caught.value)
