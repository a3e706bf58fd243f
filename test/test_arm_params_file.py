"""Tests for two_bone_ik.arm.params_file: params files read the way rcl and rclpy read them."""

import math
import os
from pathlib import Path
import sys

import pytest

from two_bone_ik.arm.config import ArmConfig, ArmConfigError
from two_bone_ik.arm.params_file import check_command_line, check_params_file, load_arm_config
from two_bone_ik.arm.params_file import node_key_matches
from two_bone_ik.arm.params_file import parameters_for_node, params_files_in_arguments
from two_bone_ik.arm.params_file import ParamsFileError, read_params_file
from two_bone_ik.common.config_error import ConfigError
import yaml

CONFIG_DIR = Path(__file__).resolve().parents[1] / 'config'

TWO_ARMS = """
/left_arm/two_bone_ik:
  ros__parameters:
    link_lengths: [0.30, 0.25]
    elbow: up
/right_arm/two_bone_ik:
  ros__parameters:
    link_lengths: [0.20, 0.15]
    elbow: down
"""


def write(tmp_path, text, name='params.yaml'):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize('key, name, matches', [
    ('two_bone_ik', '/two_bone_ik', True),
    ('/two_bone_ik', '/two_bone_ik', True),
    ('two_bone_ik', '/left_arm/two_bone_ik', False),
    ('/**', '/two_bone_ik', True),
    ('/**', '/a/b/c/two_bone_ik', True),
    ('/**/two_bone_ik', '/two_bone_ik', True),
    ('/**/two_bone_ik', '/left_arm/two_bone_ik', True),
    ('/**/two_bone_ik', '/left_arm/two_bone_ik_sim', False),
    ('/*/two_bone_ik', '/left_arm/two_bone_ik', True),
    ('/*/two_bone_ik', '/two_bone_ik', False),
    ('/*/two_bone_ik', '/a/b/two_bone_ik', False),
    ('/left_arm/two_bone_ik', '/left_arm/two_bone_ik', True),
    ('/left_arm/two_bone_ik', '/right_arm/two_bone_ik', False),
    ('/left_arm/*', '/left_arm/two_bone_ik_sim', True),
    ('/**/*', '/x', True),
])
def test_node_keys_match_like_rclpy(key, name, matches):
    # The same table was checked against rclpy (Jazzy and Kilted) by starting a node with
    # --params-file and reading its overrides; the file-order test below pins the merge rule.
    assert node_key_matches(key, name) is matches


def test_two_arm_file_gives_each_node_its_own_section(tmp_path):
    path = write(tmp_path, TWO_ARMS)
    left = load_arm_config(path, '/left_arm/two_bone_ik')
    right = load_arm_config(path, '/right_arm/two_bone_ik')
    assert (left.link_lengths, left.elbow) == ((0.30, 0.25), 'up')
    assert (right.link_lengths, right.elbow) == ((0.20, 0.15), 'down')


def test_sections_apply_in_file_order_later_wins(tmp_path):
    # What rclpy does: every matching section, in file order, later overriding earlier.
    specific_last = write(tmp_path, '\n'.join([
        '/**:', '  ros__parameters:', '    base_frame: world', '    elbow: down',
        '/left_arm/two_bone_ik:', '  ros__parameters:', '    elbow: nearest',
        'other_node:', '  ros__parameters:', '    elbow: 7',
    ]), 'a.yaml')
    left = load_arm_config(specific_last, '/left_arm/two_bone_ik')
    assert (left.base_frame, left.elbow) == ('world', 'nearest')
    # The root-namespace node takes only /** (the bug was: any key ending in two_bone_ik).
    root = load_arm_config(specific_last, '/two_bone_ik')
    assert (root.base_frame, root.elbow) == ('world', 'down')
    wildcard_last = write(tmp_path, '\n'.join([
        '/left_arm/two_bone_ik:', '  ros__parameters:', '    elbow: nearest',
        '/**:', '  ros__parameters:', '    elbow: down',
    ]), 'b.yaml')
    assert load_arm_config(wildcard_last, '/left_arm/two_bone_ik').elbow == 'down'


def test_files_apply_in_command_line_order(tmp_path):
    first = write(tmp_path, '/**:\n  ros__parameters:\n    elbow: down\n    plane: xz\n', 'a.yaml')
    second = write(tmp_path, '/**:\n  ros__parameters:\n    elbow: up\n', 'b.yaml')
    found = parameters_for_node([first, second], '/two_bone_ik')
    assert found.values == {'elbow': 'up', 'plane': 'xz'}
    assert found.matched_keys == ('/**', '/**')


def test_no_matching_section_warns_with_the_keys_and_keeps_defaults(tmp_path):
    path = write(tmp_path, TWO_ARMS)
    warnings = []
    config = load_arm_config(path, '/two_bone_ik', warn=warnings.append)
    assert config == ArmConfig()
    (line,) = warnings
    assert 'no section for node /two_bone_ik' in line
    assert '/left_arm/two_bone_ik, /right_arm/two_bone_ik' in line
    assert '/**/two_bone_ik' in line
    # A matching section: no warning.
    load_arm_config(path, '/left_arm/two_bone_ik', warn=warnings.append)
    assert len(warnings) == 1


def test_nested_parameters_get_dotted_names(tmp_path):
    path = write(tmp_path, '\n'.join([
        'two_bone_ik_servo:', '  ros__parameters:', '    joints: [a, b]',
        '    servos:', '      a: {channel: 0, angle_range: [-1.0, 1.0]}',
        '      b:', '        channel: 3',
    ]))
    ((key, values),) = read_params_file(path)
    assert key == 'two_bone_ik_servo'
    assert values == {'joints': ['a', 'b'], 'servos.a.channel': 0,
                      'servos.a.angle_range': [-1.0, 1.0], 'servos.b.channel': 3}


def test_load_node_section(tmp_path):
    path = write(tmp_path, '\n'.join([
        'two_bone_ik:',
        '  ros__parameters:',
        '    link_lengths: [0.2, 0.1]',
        '    joint_names: [j1, j2]',
        '    base_frame: arm_base',
        '    plane: xz',
        '    elbow: nearest',
        '    joint_lower_limits: [-1.5708, -.inf]',
        '    joint_upper_limits: [1.5708, .inf]',
        '    allow_elbow_flip: false',
        '    out_of_plane_tolerance: 2e-3',
        '    use_sim_time: false',
    ]))
    config = load_arm_config(path)
    assert config == ArmConfig(
        link_lengths=(0.2, 0.1), joint_names=('j1', 'j2'), base_frame='arm_base', plane='xz',
        elbow='nearest', joint_lower_limits=(-1.5708, -math.inf),
        joint_upper_limits=(1.5708, math.inf), allow_elbow_flip=False,
        out_of_plane_tolerance=0.002)


def test_invalid_value_raises_naming_the_parameter(tmp_path):
    path = write(tmp_path, 'two_bone_ik:\n  ros__parameters:\n    link_lengths: [0.3, -0.1]\n')
    with pytest.raises(ArmConfigError, match=r'^link_lengths: expected 2 non-negative finite '
                                             r'values, got \[0\.3, -0\.1\]$'):
        load_arm_config(path)


@pytest.mark.parametrize('text, pattern', [
    ('two_bone_ik:\n  parameters: {}\n', r'two_bone_ik: expected a ros__parameters mapping'),
    ('- 1\n- 2\n', r'expected a mapping of node names'),
    ('two_bone_ik:\n  ros__parameters:\n    elbow: [up\n',
     r"^params file '.*params\.yaml': not valid YAML at line 4: "),
    ('two_bone_ik:\n  ros__parameters:\n    link_lengths: [0.3, 1]\n',
     r'two_bone_ik: link_lengths: a list must hold one type, got \[0\.3, 1\]; write 1\.0, '
     r'not 1, for a double$'),
])
def test_malformed_files_raise_one_line(tmp_path, text, pattern):
    path = write(tmp_path, text)
    for call in (check_params_file, load_arm_config):
        with pytest.raises(ParamsFileError, match=pattern) as info:
            call(path)
        assert '\n' not in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(ParamsFileError,
                       match=r"^params file '.*nope\.yaml': No such file or directory$"):
        load_arm_config(tmp_path / 'nope.yaml')


def test_params_files_found_only_inside_ros_args():
    args = ['node', '--params-file', 'not_ros.yaml', '--ros-args', '-p', 'a:=1',
            '--params-file', 'one.yaml', '-r', '__ns:=/x', '--params-file', 'two.yaml', '--',
            '--params-file', 'after.yaml', '--ros-args', '--params-file', 'three.yaml']
    assert params_files_in_arguments(args) == ['one.yaml', 'two.yaml', 'three.yaml']
    assert params_files_in_arguments(None) == []


def test_shipped_config_files_load():
    default = load_arm_config(CONFIG_DIR / 'two_bone_ik.yaml')
    # The parameters' defaults, with the limits of a real arm's revolute joints (+-2.8 rad).
    assert default == ArmConfig(joint_lower_limits=(-2.8, -2.8), joint_upper_limits=(2.8, 2.8))
    servo = load_arm_config(CONFIG_DIR / 'servo_arm.yaml')
    assert servo.plane == 'xz'
    assert servo.limited
    assert all(math.isfinite(v) for v in servo.joint_lower_limits + servo.joint_upper_limits)


def test_files_are_scanned_by_libyaml_and_read_floats_as_ros_does(tmp_path):
    # PyYAML's pure-Python scanner took 22-66 s over a 20 MB robot_description, so the node
    # took over a minute to start; libyaml (CSafeLoader) reads it in a fraction of a second.
    path = write(tmp_path, 'two_bone_ik:\n  ros__parameters:\n    robot_description: "'
                 + '<robot/>' * 1000 + '"\n    link_lengths: [3e-1, 2.5E-1]\n')
    called = set()

    def profile(frame, event, arg):
        if event == 'call':
            called.add(Path(frame.f_code.co_filename))
    sys.setprofile(profile)
    try:
        ((_, values),) = read_params_file(path)
    finally:
        sys.setprofile(None)
    assert values['link_lengths'] == [0.3, 0.25]  # floats without a dot, as the ROS parser
    assert values['robot_description'] == '<robot/>' * 1000
    pure_python = {path.name for path in called if path.parent.name == 'yaml'
                   and path.stem in ('reader', 'scanner', 'parser', 'composer')}
    assert pure_python == set()


@pytest.mark.parametrize('data, byte, where', [
    (b'two_bone_ik:\n  ros__parameters:\n    base_frame: "b\xffse"\n', 0xff,
     'line 3, column 19'),
    (b'\xfe\xff', 0xfe, 'line 1, column 1'),
], ids=['in_a_string', 'at_the_start'])
def test_a_file_that_is_not_utf8_is_one_line(tmp_path, data, byte, where):
    # It used to be a UnicodeDecodeError traceback (exit 1 from the node).
    path = tmp_path / 'latin.yaml'
    path.write_bytes(data)
    for call in (check_params_file, load_arm_config):
        with pytest.raises(ParamsFileError, match=rf"^params file '.*latin\.yaml': not UTF-8: "
                                                  rf'byte 0x{byte:02x} at {where}$'):
            call(path)


def test_command_line_arguments_that_are_not_utf8_are_refused():
    # Python holds an argument's undecodable bytes as lone surrogates, which rclpy.init cannot
    # encode (a UnicodeEncodeError traceback).
    description = os.fsdecode(b'robot_description:=<robot name="arm">\n<link name="\xe9"/>')
    with pytest.raises(ConfigError, match=r'^command line argument 3: not UTF-8: byte 0xe9 at '
                                          r'line 2, column 13$'):
        check_command_line(['node', '--ros-args', '-p', description])
    check_command_line(['node', '--ros-args', '-p', 'robot_description:=<robot name="é"/>'])


def test_reads_the_tuples_launch_ros_writes_as_rcl_does(tmp_path):
    # launch_ros turns the lists of a Node(parameters=[{...}]) dict into tuples and writes them
    # with yaml.dump: '!!python/tuple' sequences, which rcl reads as plain arrays.
    path = tmp_path / 'launch_params_x'
    path.write_text(yaml.dump({'/**': {'ros__parameters': {
        'joint_lower_limits': (-math.inf, -1.0), 'joint_names': ('a', 'b'), 'elbow': 'up'}}}))
    assert '!!python/tuple' in path.read_text()
    assert read_params_file(path) == [('/**', {'joint_lower_limits': [-math.inf, -1.0],
                                               'joint_names': ['a', 'b'], 'elbow': 'up'})]
