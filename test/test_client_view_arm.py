"""Tests of two_bone_ik.client.view_arm: which arm two_bone_ik_view shows, which joints."""

from pathlib import Path

import numpy as np
import pytest
from ros_harness import write_params

from two_bone_ik.client.view_arm import arm_from_params_file, arm_from_urdf_file
from two_bone_ik.client.view_arm import FollowedJoints, fully_qualified_node, given_by_node
from two_bone_ik.client.view_arm import JOINT_COMMANDS, JOINT_STATES, STATES_STALE
from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.nodes.parameter_schema import ARM_PARAMETERS, names
from two_bone_ik.sim.simulated_arm import arm_from_parameters

REPO = Path(__file__).resolve().parents[1]
DESKTOP = {'joint_names': ['yaw', 'shoulder', 'elbow', 'pitch'], 'link_lengths': [0.1, 0.1],
           'tool_offset': [0.03, 0.0, 0.0]}


def test_the_node_is_named_in_its_namespace():
    assert fully_qualified_node('', 'two_bone_ik') == '/two_bone_ik'
    assert fully_qualified_node('left_arm', 'two_bone_ik') == '/left_arm/two_bone_ik'
    assert fully_qualified_node('/a/b/', 'ik') == '/a/b/ik'
    assert fully_qualified_node('left_arm', '/other/ik') == '/other/ik'


def test_a_urdf_file_gives_its_chain_from_the_root_by_default():
    arm = arm_from_urdf_file(REPO / 'demo' / 'desktop_arm.urdf', None, 'tool')
    assert arm.base_frame == 'base_link' and len(arm.joint_names) == 5
    assert arm.extra_joints  # the gripper jaw
    with pytest.raises(ConfigError, match='nowhere'):
        arm_from_urdf_file(REPO / 'demo' / 'desktop_arm.urdf', 'nowhere', 'tool')


def test_a_params_file_gives_the_arm_of_the_nodes_section(tmp_path):
    params = write_params(tmp_path / 'p.yaml', DESKTOP, node_name='/left_arm/two_bone_ik')
    arm = arm_from_params_file(params, '/left_arm/two_bone_ik', names(ARM_PARAMETERS))
    assert arm.joint_names == ('yaw', 'shoulder', 'elbow', 'pitch')
    with pytest.raises(ConfigError, match='/right_arm/two_bone_ik'):
        arm_from_params_file(params, '/right_arm/two_bone_ik', names(ARM_PARAMETERS))


def test_a_running_nodes_values_read_as_the_file_it_was_given():
    # The running node answers with every value, declared defaults too: those that are
    # defaults read as not given, and the arm is the one its params file describes.
    defaults = {spec.name: spec.default for spec in ARM_PARAMETERS}
    values = dict(defaults, **DESKTOP)
    given = given_by_node(values, defaults)
    assert given == {'joint_names', 'link_lengths', 'tool_offset'}
    assert arm_from_parameters(values, given) == arm_from_parameters(DESKTOP, set(DESKTOP))


def test_auto_follows_joint_states_and_commands_only_while_no_states_come():
    now = [100.0]
    joints = FollowedJoints(np.zeros(3), {'a': 0, 'b': 2}, 'auto', clock=lambda: now[0])
    assert joints.apply(JOINT_COMMANDS, ['b', 'x'], [0.5, 9.0])
    assert joints.qpos.tolist() == [0.0, 0.0, 0.5]  # unknown names passed over
    assert joints.apply(JOINT_STATES, ['a', 'b'], [0.1, float('nan')])
    assert joints.qpos.tolist() == [0.1, 0.0, 0.5]  # NaN passed over
    now[0] += STATES_STALE
    assert not joints.apply(JOINT_COMMANDS, ['a'], [0.7])  # states came a moment ago
    now[0] += 0.01
    assert joints.apply(JOINT_COMMANDS, ['a'], [0.7])
    assert joints.qpos[0] == 0.7


@pytest.mark.parametrize('follow', [JOINT_STATES, JOINT_COMMANDS])
def test_a_topic_asked_for_is_the_only_one_followed(follow):
    joints = FollowedJoints(np.zeros(1), {'a': 0}, follow, clock=lambda: 0.0)
    other = JOINT_COMMANDS if follow == JOINT_STATES else JOINT_STATES
    assert not joints.apply(other, ['a'], [1.0]) and joints.qpos[0] == 0.0
    assert joints.apply(follow, ['a'], [2.0]) and joints.qpos[0] == 2.0
