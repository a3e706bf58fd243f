"""Tests of two_bone_ik.arm.desktop_config: a desktop arm from parameters, validated."""

import math

from fk_oracle import MujocoChain
import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig, ArmConfigError
from two_bone_ik.arm.desktop_config import (
    arm_config_from_mapping, desktop_chain, desktop_geometry, DesktopConfig, given_arm_values,
    urdf_arm_options)
from two_bone_ik.arm.desktop_geometry import arm_from_description
from two_bone_ik.arm.urdf_export import desktop_urdf

#: One config per shape, with offsets, zero angles and directions of every kind.
CONFIGS = {
    'yaw + pair + pitch + roll': DesktopConfig(
        joint_names=('yaw', 'lift', 'elbow', 'flex', 'roll'), plane='xz',
        link_lengths=(0.116, 0.135), shoulder_position=(0.03, 0.018, 0.116),
        joint_zero_angles=(0.3, 1.33, -1.29, 0.2, 0.4), joint_directions=(1, -1, -1, 1, -1),
        tool_offset=(0.16, 0.0079, 0.002),
        joint_lower_limits=(-1.9, -1.7, -1.7, -1.6, -2.7),
        joint_upper_limits=(1.9, 1.7, 1.7, 1.6, 2.8)),
    'yaw + pair + pitch': DesktopConfig(
        joint_names=('waist', 'shoulder', 'elbow', 'wrist'), plane='xz',
        link_lengths=(0.130, 0.124), shoulder_position=(0.0, 0.0, 0.0765),
        joint_zero_angles=(0.0, 1.385, -1.385, 0.0), tool_offset=(0.126, 0.0, 0.0)),
    'pair + pitch': DesktopConfig(
        joint_names=('shoulder', 'elbow', 'wrist'), arm_shape='pair + pitch', plane='yz',
        link_lengths=(0.3, 0.2), shoulder_position=(0.1, 0.0, 0.2),
        joint_directions=(-1, 1, -1), tool_offset=(0.05, -0.01, 0.0)),
    'yaw + pair': DesktopConfig(
        joint_names=('yaw', 'shoulder', 'elbow'), arm_shape='yaw + pair', plane='xy',
        link_lengths=(0.2, 0.15), shoulder_position=(0.02, 0.05, -0.01)),
}


@pytest.mark.parametrize('shape', sorted(CONFIGS))
def test_the_parameters_give_their_arm(shape):
    config = CONFIGS[shape]
    geometry = desktop_geometry(config)
    model = geometry.model
    assert (geometry.shape, geometry.joint_names) == (shape, config.joint_names)
    assert model.exact
    assert model.link_lengths == pytest.approx(config.link_lengths, abs=1e-15)
    assert geometry.lower_limits == config.joint_lower_limits
    # The same arm written as URDF, read back and run by MuJoCo.
    text = desktop_urdf(config)
    again = arm_from_description(text, config.base_frame, 'tool')
    oracle = MujocoChain(text, config.base_frame, 'tool', config.joint_names)
    rng = np.random.default_rng(0)
    for _ in range(10):
        readings = rng.uniform(-1.5, 1.5, len(config.joint_names))
        tool = oracle.tool(readings)
        np.testing.assert_allclose(geometry.tool_position(readings), tool, atol=1e-14)
        np.testing.assert_allclose(again.tool_position(readings), tool, atol=1e-14)
    assert again.model.link_lengths == pytest.approx(model.link_lengths, abs=1e-15)


def test_the_yaw_arm_sits_where_its_parameters_say():
    config = CONFIGS['yaw + pair + pitch + roll']
    model = desktop_geometry(config).model
    # Facing +x at yaw 0: the shoulder 3 cm out and 11.6 cm up, the plane 1.8 cm aside
    # (along -y, the xz plane's normal), link 1 at 1.33 rad from +x.
    assert model.up == (0.0, 0.0, 1.0)
    assert model.shoulder == pytest.approx((0.03, 0.116), abs=1e-15)
    assert model.wrist_lateral == pytest.approx(-0.018, abs=1e-15)
    assert model.zero_angles == pytest.approx((1.33, -1.29), abs=1e-15)
    # The tool 16 cm along the approach, 7.9 mm across it and 2 mm aside, turned by the
    # roll's zero angle 0.4 rad about the approach.
    assert model.max_tool_length() == pytest.approx(math.hypot(0.16, math.hypot(0.0079, 0.002)),
                                                    abs=1e-15)
    chain = desktop_chain(config)
    assert [j.child for j in chain.joints] == ['turntable', 'link1', 'link2', 'wrist', 'hand',
                                               'tool']


@pytest.mark.parametrize('changes, message', [
    ({'joint_names': ('a', 'b')}, r'joint_names: expected 3 to 5 non-empty names'),
    ({'joint_names': ('a', 'b', 'c', 'd', 'e', 'f')}, 'joint_names: expected 3 to 5'),
    ({'joint_names': ('a', 'b', 'b', 'c')}, 'joint_names: the names must differ'),
    ({'joint_names': ('a', 'b', 'c')},
     "arm_shape: 3 joint names fit 'yaw \\+ pair' and 'pair \\+ pitch'; set arm_shape"),
    ({'arm_shape': 'arm'}, 'arm_shape: expected one of yaw \\+ pair, pair \\+ pitch'),
    ({'arm_shape': 'yaw + pair'},
     "arm_shape: 'yaw \\+ pair' has 3 joints, but joint_names has 4"),
    ({'joint_zero_angles': (0.0, 0.0)}, 'joint_zero_angles: expected 4 finite angles'),
    ({'joint_directions': (1, 1, 2, 1)}, 'joint_directions: expected 4 values, each 1 or -1'),
    ({'joint_lower_limits': (0.0, 0.0, 0.0, 2.0), 'joint_upper_limits': (1.0, 1.0, 1.0, 1.0)},
     'joint_lower_limits: wrist_pitch lower limit 2.0 is above its upper limit 1.0'),
    ({'link_lengths': (0.3, -0.1)}, 'link_lengths: expected 2 non-negative finite values'),
    ({'plane': 'xw'}, 'plane: expected one of xy, xz, yz'),
    ({'tool_offset': (0.0, 0.0, 0.01)},
     'tool_offset: the tool point must be off the wrist pitch axis'),
    ({'tool_offset': (0.1, math.inf, 0.0)}, 'tool_offset: expected 3 finite distances'),
    ({'use_orientation': 'yes'}, 'use_orientation: expected true or false'),
    ({'approach_pitch': 4.0},
     r'approach_pitch: expected an angle in radians within \[-pi, pi\], got 4.0'),
])
def test_invalid_parameters_are_named(changes, message):
    with pytest.raises(ArmConfigError, match=message):
        DesktopConfig(**changes)


def test_a_yaw_and_pair_arm_has_no_tool_offset():
    with pytest.raises(ArmConfigError, match="tool_offset: a 'yaw \\+ pair' arm has no wrist"):
        DesktopConfig(joint_names=('a', 'b', 'c'), arm_shape='yaw + pair',
                      tool_offset=(0.05, 0.0, 0.0))


def test_from_a_mapping_by_the_number_of_joint_names():
    assert arm_config_from_mapping({}) == ArmConfig()
    assert arm_config_from_mapping({'joint_names': ['a', 'b'], 'plane': 'xz'}) == ArmConfig(
        joint_names=('a', 'b'), plane='xz')
    config = arm_config_from_mapping({'joint_names': ['a', 'b', 'c', 'd'], 'use_sim_time': True,
                                      'approach_pitch': -1.5, 'use_orientation': True})
    assert config == DesktopConfig(joint_names=('a', 'b', 'c', 'd'), approach_pitch=-1.5,
                                   use_orientation=True)
    assert config.joint_directions == (1, 1, 1, 1)
    assert config.joint_lower_limits == (-math.inf,) * 4
    with pytest.raises(ArmConfigError, match='ros__parameters: expected a mapping'):
        DesktopConfig.from_mapping([1, 2])


def test_declared_defaults_of_per_joint_and_shape_parameters_count_only_when_given():
    # What a node declares: a planar pair's defaults for every parameter.
    declared = {**ArmConfig().as_parameters(), 'arm_shape': '', 'tool_offset': [0.05, 0.0, 0.0],
                'joint_names': ['a', 'b', 'c', 'd'], 'robot_description': ''}
    values = given_arm_values(declared, {'joint_names', 'link_lengths'})
    assert set(values) == {'link_lengths', 'joint_names', 'base_frame', 'elbow',
                           'allow_elbow_flip', 'out_of_plane_tolerance', 'shoulder_position'}
    config = arm_config_from_mapping(values)
    assert config.plane == 'xz' and config.joint_zero_angles == (0.0,) * 4
    given = given_arm_values({**declared, 'joint_lower_limits': [-1.0] * 4},
                             {'joint_names', 'joint_lower_limits'})
    assert arm_config_from_mapping(given).joint_lower_limits == (-1.0,) * 4
    # An arm from a URDF: only its frame and the solving options.
    assert urdf_arm_options({**declared, 'base_frame': 'desk', 'elbow': 'down'}) == ArmConfig(
        base_frame='desk', elbow='down')
