"""Tests of two_bone_ik.arm.joint_commands: JointState commands matched to the arm by name."""

import math

from two_bone_ik.arm.joint_commands import command_problems, match_command

NAMES = ('shoulder_joint', 'elbow_joint')  # the arm's joints, in its order


def test_match_command_by_name_not_index():
    match = match_command(['elbow_joint', 'shoulder_joint'], [0.2, -0.1], NAMES)
    assert match.targets == {0: -0.1, 1: 0.2}
    assert match.unknown == () and match.invalid == ()


def test_match_command_reports_unknown_invalid_and_missing():
    match = match_command(['wrist', 'shoulder_joint', 'elbow_joint'], [1.0, math.nan, 0.5],
                          NAMES)
    assert match.targets == {1: 0.5}
    assert match.unknown == ('wrist',) and match.invalid == ('shoulder_joint',)

    match = match_command(['shoulder_joint', 'elbow_joint'], [0.3], NAMES)  # short positions
    assert match.targets == {0: 0.3} and match.invalid == ('elbow_joint',)

    match = match_command(['elbow_joint'], [math.inf], NAMES)
    assert match.targets == {} and match.invalid == ('elbow_joint',)

    match = match_command([], [0.1, 0.2], NAMES)  # positions without names: nothing matches
    assert match.targets == {} and match.unknown == () and match.invalid == ()


def test_match_command_last_repeat_wins():
    match = match_command(['elbow_joint', 'elbow_joint'], [0.1, 0.2], NAMES)
    assert match.targets == {1: 0.2}


def test_command_problems_word_each_kind_once():
    match = match_command(['wrist', 'shoulder_joint', 'elbow_joint'], [1.0, math.nan], NAMES)
    assert command_problems(match, NAMES) == (
        ('unknown', 'joint_commands: ignoring unknown joint(s) wrist (this arm has '
                    'shoulder_joint, elbow_joint)'),
        ('invalid', 'joint_commands: ignoring NaN, infinite or missing position for '
                    'shoulder_joint, elbow_joint'))
    unnamed = match_command([], [0.1], NAMES)
    assert command_problems(unnamed, NAMES, unnamed=True) == (
        ('unnamed', 'joint_commands: ignoring a command without joint names (joints are '
                    'matched by name)'),)
    assert command_problems(match_command(['elbow_joint'], [0.1], NAMES), NAMES) == ()
