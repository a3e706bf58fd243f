"""Tests of two_bone_ik.client.arguments: the two tools' command lines and their help."""

import pytest

from two_bone_ik.client.arguments import DEFAULT_TIMEOUT, DEFAULT_WAIT, parse_target_arguments
from two_bone_ik.client.arguments import parse_teleop_arguments, TargetArguments
from two_bone_ik.client.arguments import target_parser, teleop_parser
from two_bone_ik.client.teleop_keys import BINDINGS, COMMANDS


def refused(parse, argv, capsys):
    """Return argparse's error line for a refused command line (it exits with 2)."""
    with pytest.raises(SystemExit) as leaving:
        parse(argv)
    assert leaving.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_one_target_and_defaults():
    assert parse_target_arguments(['0.4', '0.2', '0']) == TargetArguments(
        (0.4, 0.2, 0.0), None, '', '', None, None, DEFAULT_TIMEOUT, DEFAULT_WAIT)
    # Negative coordinates are numbers, not options.
    args = parse_target_arguments(['-0.3', '-.2', '-1e-3', '--pitch', '-5E-1', '-n', 'left_arm',
                                   '--frame', 'base_link', '--timeout', '2.5'])
    assert args == TargetArguments((-0.3, -0.2, -0.001), None, 'base_link', 'left_arm', -0.5,
                                   0.0, 2.5, DEFAULT_WAIT)


def test_waiting_for_arrival():
    assert DEFAULT_WAIT == 5.0
    assert parse_target_arguments(['1', '2', '3', '--wait', '12']).wait == 12.0
    assert parse_target_arguments(['1', '2', '3', '-w', '0.5']).wait == 0.5
    assert parse_target_arguments(['1', '2', '3', '--no-wait']).wait is None
    assert parse_target_arguments(['--path', 'p.csv']).wait is None  # a path never waits


def test_one_of_pitch_and_roll_sets_the_other_to_zero():
    assert parse_target_arguments(['1', '2', '3', '--roll', '0.3'])[4:6] == (0.0, 0.3)
    assert parse_target_arguments(['1', '2', '3', '--pitch', '0.3', '--roll', '-1'])[4:6] == (
        0.3, -1.0)


def test_a_path():
    args = parse_target_arguments(['--path', 'square.csv', '-t', '9'])
    assert (args.position, args.path, args.timeout) == (None, 'square.csv', 9.0)


@pytest.mark.parametrize('argv, message', [
    ([], 'expected the target X Y Z (or --path FILE), got 0 numbers'),
    (['1', '2'], 'expected the target X Y Z (or --path FILE), got 2 numbers'),
    (['1', '2', '3', '4'], 'expected the target X Y Z (or --path FILE), got 4 numbers'),
    (['1', 'nan', '3'], "argument X Y Z: 'nan' is not a finite number"),
    (['1', 'two', '3'], "argument X Y Z: 'two' is not a finite number"),
    (['1', '2', '3', '--pitch', 'inf'], "argument --pitch: 'inf' is not a finite number"),
    (['1', '-inf', '3'], "argument X Y Z: '-inf' is not a finite number"),
    (['1', '2', '3', '--timeout', '0'], "argument -t/--timeout: '0' is not a positive number"),
    (['1', '2', '3', '--path', 'p.csv'], 'give either X Y Z or --path FILE, not both'),
    (['--path', 'p.csv', '--roll', '1'], "--pitch and --roll are for one target; a path's "
                                         'lines carry their own (t,x,y,z,pitch,roll)'),
    (['1', '2', '3', '--wait', '0'], "argument -w/--wait: '0' is not a positive number"),
    (['1', '2', '3', '--wait', '2', '--no-wait'], 'argument --no-wait: not allowed with '
                                                  'argument -w/--wait'),
    (['--path', 'p.csv', '--no-wait'], '--wait and --no-wait are for one target; a path does '
                                       'not wait for arrival'),
])
def test_refused_target_command_lines(argv, message, capsys):
    assert refused(parse_target_arguments, argv, capsys) == f'two_bone_ik_target: error: {message}'


def test_target_help_explains_the_tool():
    text = target_parser().format_help()
    for needed in ('target_pose', 'ik_status', 'joint_commands', 'exit status:', '  0  the '
                   'target was reached', '  1  answered', '  2  nobody answered',
                   '  3  reached, but the arm did not arrive', 'motion_status', '--no-wait',
                   'arrived: tool point N mm',
                   'Rz(yaw) Ry(-pitch) Rx(roll)', 'positive tilts the approach up',
                   't,x,y,z or t,x,y,z,pitch,roll', 'examples:', '--ros-args'):
        assert needed in text, needed


def test_teleop_defaults_and_options(capsys):
    args = parse_teleop_arguments([])
    assert args == ('', '', 0.02, 0.2, 20.0)
    args = parse_teleop_arguments(['-n', '/arm', '-f', 'world', '--speed', '0.1',
                                   '--angular-speed', '1', '--rate', '50'])
    assert args == ('world', '/arm', 0.1, 1.0, 50.0)
    assert refused(parse_teleop_arguments, ['--rate', '-5'], capsys) == (
        "two_bone_ik_teleop: error: argument --rate: '-5' is not a positive number")


def test_teleop_help_lists_every_key():
    text = teleop_parser().format_help()
    assert 'target_twist' in text and 'ik_status' in text and 'reachable' in text
    for item in BINDINGS + COMMANDS:
        assert f'  {item.shown} ' in text and item.meaning in text, item
