"""Tests of two_bone_ik.client.view_arguments: the command line of two_bone_ik_view."""

from pathlib import Path

import pytest

from two_bone_ik.client.view_arguments import parse_view_arguments


def test_the_defaults_follow_the_running_node_in_a_window():
    args = parse_view_arguments([])
    assert (args.urdf, args.params_file, args.render) == (None, None, None)
    assert (args.node_name, args.namespace, args.follow) == ('two_bone_ik', '', 'auto')
    assert (args.camera, args.size, args.joints, args.target) == ('front_side', (640, 480),
                                                                  (), None)


def test_a_picture_from_a_file():
    args = parse_view_arguments(['--urdf', 'arm.urdf', '--base', 'b', '--tip', 't',
                                 '--render', 'out.png', '--joints', '0.5', '-0.8',
                                 '--target', '0.3', '0', '0.1', '--size', '320', '240',
                                 '--camera', 'top'])
    assert (args.urdf, args.base, args.tip, args.render) == (Path('arm.urdf'), 'b', 't',
                                                             Path('out.png'))
    assert args.joints == (0.5, -0.8) and args.target == (0.3, 0.0, 0.1)
    assert (args.size, args.camera) == ((320, 240), 'top')


@pytest.mark.parametrize('argv, complaint', [
    (['--urdf', 'a.urdf', '--params-file', 'p.yaml'], 'not allowed with argument'),
    (['--base', 'b'], '--base and --tip go with --urdf'),
    (['--render', 'out.jpg'], 'out.jpg is not a .png file'),
    (['--joints', 'nan'], "'nan' is not a finite number"),
    (['--timeout', '0'], "'0' is not a positive number"),
    (['--follow', 'tf'], "invalid choice: 'tf'"),
])
def test_a_command_line_it_cannot_use_exits_2_with_a_reason(capsys, argv, complaint):
    with pytest.raises(SystemExit) as exited:
        parse_view_arguments(argv)
    assert exited.value.code == 2
    assert complaint in capsys.readouterr().err
