"""Tests for two_bone_ik.arm.config: the arm configuration and its validation (ROS-free)."""

import dataclasses
import math

import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig, ArmConfigError, PARAMETER_NAMES


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
    ('joint_lower_limits', (-1e12, 0.0),
     r'^joint_lower_limits: shoulder lower limit -1e\+12 rad is beyond the supported '
     r'\+-100000 rad \(about 15 900 turns\); use -\.inf for an unlimited side$'),
    ('joint_lower_limits', (-1.7e308, -1.7e308), r'^joint_lower_limits: shoulder lower limit '),
    ('joint_upper_limits', (0.0, 100000.5), r'^joint_upper_limits: elbow upper limit 100000 rad'),
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


def test_limits_up_to_the_supported_magnitude_accepted():
    config = ArmConfig(joint_lower_limits=(-1e5, -100.0), joint_upper_limits=(1e5, 0.0))
    assert config.joint_lower_limits == (-1e5, -100.0)


def test_elbow_lower_above_upper_names_elbow_joint():
    with pytest.raises(ArmConfigError, match=r'elbow lower limit 1\.0 is above .* 0\.5'):
        ArmConfig(joint_lower_limits=(-1.0, 1.0), joint_upper_limits=(1.0, 0.5))
