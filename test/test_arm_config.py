"""Tests for two_bone_ik.arm_config (ROS-free)."""

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from two_bone_ik.arm_config import (
    ArmConfig, ArmConfigError, ELBOW_CHOICES, from_plane, joint_axis, load_arm_config,
    PARAMETER_NAMES, PLANE_AXES, to_plane)

CONFIG_DIR = Path(__file__).resolve().parents[1] / 'config'


def write(tmp_path, text, name='params.yaml'):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_defaults_are_the_default_arm():
    config = ArmConfig()
    assert config.link_lengths == (0.30, 0.25)
    assert config.joint_names == ('shoulder_joint', 'elbow_joint')
    assert config.base_frame == 'base_link'
    assert config.plane == 'xy'
    assert config.elbow == 'up'
    assert config.joint_lower_limits == (-math.inf, -math.inf)
    assert config.joint_upper_limits == (math.inf, math.inf)
    assert config.allow_elbow_flip is True
    assert config.out_of_plane_tolerance == 0.001
    assert config.limits == ((-math.inf, math.inf), (-math.inf, math.inf))
    assert not config.limited
    assert config.reach == pytest.approx((0.05, 0.55))


def test_sequences_are_normalised_to_tuples_of_floats():
    config = ArmConfig(link_lengths=[1, 2], joint_names=['a', 'b'],
                       joint_lower_limits=np.array([-1.0, -2.0]), joint_upper_limits=[1, 2])
    assert config.link_lengths == (1.0, 2.0)
    assert all(type(v) is float for v in config.link_lengths)
    assert config.joint_names == ('a', 'b')
    assert config.limits == ((-1.0, 1.0), (-2.0, 2.0))
    assert config.limited
    assert hash(config) == hash(dataclasses.replace(config))


def test_replace_validates():
    config = ArmConfig()
    assert dataclasses.replace(config, elbow='nearest').elbow == 'nearest'
    pattern = r"^elbow: expected one of up, down, nearest, got 'x'"
    with pytest.raises(ArmConfigError, match=pattern):
        dataclasses.replace(config, elbow='x')


def test_as_parameters_round_trips():
    config = ArmConfig(plane='yz', elbow='down', joint_lower_limits=(-1.0, -math.inf))
    values = config.as_parameters()
    assert list(values) == list(PARAMETER_NAMES)
    assert values['link_lengths'] == [0.30, 0.25]
    assert ArmConfig.from_mapping(values) == config


def test_equal_limits_allowed():
    assert ArmConfig(joint_lower_limits=(0.5, 0.0), joint_upper_limits=(0.5, 0.0)).limited


def test_one_zero_length_link_allowed():
    assert ArmConfig(link_lengths=(0.3, 0.0)).reach == (0.3, 0.3)


@pytest.mark.parametrize('field, value, pattern', [
    ('link_lengths', (0.3, -0.1),
     r'^link_lengths: expected 2 non-negative finite values, got \[0\.3, -0\.1\]$'),
    ('link_lengths', (0.3, 0.2, 0.1), r'^link_lengths: expected 2 .*got \[0\.3, 0\.2, 0\.1\]'),
    ('link_lengths', (0.3,), r'^link_lengths: expected 2 '),
    ('link_lengths', (0.3, math.nan), r'^link_lengths: expected 2 non-negative finite'),
    ('link_lengths', (0.3, math.inf), r'^link_lengths: expected 2 non-negative finite'),
    ('link_lengths', (0.0, 0.0), r'^link_lengths: at least one link'),
    ('link_lengths', 0.3, r'^link_lengths: expected 2 '),
    ('link_lengths', ('a', 'b'), r'^link_lengths: expected 2 '),
    ('link_lengths', (True, 0.2), r'^link_lengths: expected 2 '),
    ('joint_names', ('a',), r'^joint_names: expected 2 non-empty names'),
    ('joint_names', ('a', ''), r'^joint_names: expected 2 non-empty names'),
    ('joint_names', ('a', 'a'), r'^joint_names: the 2 names must differ'),
    ('joint_names', 'ab', r'^joint_names: expected 2 joint names'),
    ('base_frame', '', r'^base_frame: expected a non-empty frame id'),
    ('base_frame', 3, r'^base_frame: expected a non-empty frame id'),
    ('plane', 'zx', r"^plane: expected one of xy, xz, yz, got 'zx'$"),
    ('elbow', 'left', r"^elbow: expected one of up, down, nearest, got 'left'$"),
    ('joint_lower_limits', (0.0,), r'^joint_lower_limits: expected 2 angles'),
    ('joint_upper_limits', (0.0, 1.0, 2.0), r'^joint_upper_limits: expected 2 angles'),
    ('joint_lower_limits', (math.nan, 0.0), r'^joint_lower_limits: expected 2 angles below'),
    ('joint_lower_limits', (math.inf, 0.0), r'^joint_lower_limits: expected 2 angles below'),
    ('joint_upper_limits', (-math.inf, 0.0), r'^joint_upper_limits: expected 2 angles above'),
    ('joint_lower_limits', (2.0, -1.0),
     r'^joint_lower_limits: shoulder lower limit 2\.0 is above its upper limit 1\.5'),
    ('allow_elbow_flip', 1, r'^allow_elbow_flip: expected true or false'),
    ('out_of_plane_tolerance', -0.1, r'^out_of_plane_tolerance: expected a non-negative'),
    ('out_of_plane_tolerance', math.inf, r'^out_of_plane_tolerance: expected a non-negative'),
    ('out_of_plane_tolerance', '0.1', r'^out_of_plane_tolerance: expected a non-negative'),
])
def test_invalid_values_raise_naming_the_parameter(field, value, pattern):
    base = {'joint_upper_limits': (1.5, 1.5)} if field == 'joint_lower_limits' else {}
    with pytest.raises(ArmConfigError, match=pattern) as info:
        ArmConfig(**{**base, field: value})
    assert isinstance(info.value, ValueError)
    assert '\n' not in str(info.value)


def test_elbow_lower_above_upper_names_elbow_joint():
    with pytest.raises(ArmConfigError, match=r'elbow lower limit 1\.0 is above .* 0\.5'):
        ArmConfig(joint_lower_limits=(-1.0, 1.0), joint_upper_limits=(1.0, 0.5))


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


def test_load_wildcard_and_node_key_wins(tmp_path):
    path = write(tmp_path, '\n'.join([
        '/**:',
        '  ros__parameters:',
        '    base_frame: world',
        '    elbow: down',
        '/left_arm/two_bone_ik:',
        '  ros__parameters:',
        '    elbow: nearest',
        'other_node:',
        '  ros__parameters:',
        '    elbow: 7',
    ]))
    config = load_arm_config(path)
    assert (config.base_frame, config.elbow) == ('world', 'nearest')
    assert load_arm_config(path, node_name='somebody').elbow == 'down'


def test_load_wildcard_only(tmp_path):
    path = write(tmp_path, '/**:\n  ros__parameters:\n    plane: yz\n')
    assert load_arm_config(path).plane == 'yz'


@pytest.mark.parametrize('text, pattern', [
    ('two_bone_ik:\n  ros__parameters:\n    link_lengths: [0.3, -0.1]\n',
     r'^link_lengths: expected 2 non-negative finite values, got \[0\.3, -0\.1\]$'),
    ('two_bone_ik:\n  ros__parameters:\n    plane: ab\n', r'^plane: '),
    ('other:\n  ros__parameters:\n    plane: xy\n', r"no section for node 'two_bone_ik'"),
    ('two_bone_ik:\n  parameters: {}\n', r'two_bone_ik: expected a ros__parameters mapping'),
    ('- 1\n- 2\n', r'expected a mapping of node names'),
    ('two_bone_ik: [\n', r"params file '.*params\.yaml': "),
])
def test_load_errors(tmp_path, text, pattern):
    with pytest.raises(ArmConfigError, match=pattern) as info:
        load_arm_config(write(tmp_path, text))
    assert '\n' not in str(info.value)


def test_load_missing_file(tmp_path):
    with pytest.raises(ArmConfigError, match=r"params file '.*nope\.yaml'"):
        load_arm_config(tmp_path / 'nope.yaml')


def test_shipped_config_files_load():
    default = load_arm_config(CONFIG_DIR / 'two_bone_ik.yaml')
    assert default == ArmConfig()
    servo = load_arm_config(CONFIG_DIR / 'servo_arm.yaml')
    assert servo.plane == 'xz'
    assert servo.limited
    assert all(math.isfinite(v) for v in servo.joint_lower_limits + servo.joint_upper_limits)


def test_plane_axes_and_joint_axis_right_handed():
    assert set(PLANE_AXES) == {'xy', 'xz', 'yz'}
    assert set(ELBOW_CHOICES) == {'up', 'down', 'nearest'}
    expected = {'xy': (0.0, 0.0, 1.0), 'xz': (0.0, -1.0, 0.0), 'yz': (1.0, 0.0, 0.0)}
    for plane, (iu, iv) in PLANE_AXES.items():
        u, v = np.eye(3)[iu], np.eye(3)[iv]
        assert joint_axis(plane) == expected[plane]
        np.testing.assert_array_equal(np.cross(u, v), joint_axis(plane))


@pytest.mark.parametrize('plane', sorted(PLANE_AXES))
def test_to_from_plane_round_trip(plane):
    rng = np.random.default_rng(0)
    axis = np.array(joint_axis(plane))
    for xyz in rng.uniform(-2.0, 2.0, size=(200, 3)):
        u, v, off = to_plane(xyz, plane)
        in_plane = np.array(from_plane(u, v, plane))
        assert off == pytest.approx(float(np.dot(xyz, axis)))
        np.testing.assert_allclose(in_plane + off * axis, xyz, atol=1e-15)
        assert to_plane(in_plane, plane)[2] == 0.0
