"""Tests of two_bone_ik.nodes.parameters: one schema, the node's own reasons first."""

import math

import pytest
import rclpy
from rclpy.context import Context
from rclpy.parameter import Parameter

from two_bone_ik.nodes.parameter_schema import ARM_PARAMETERS, IK_PARAMETERS, ik_parameters
from two_bone_ik.nodes.parameter_schema import names, SIM_PARAMETERS, WORKSPACE_PARAMETERS
from two_bone_ik.nodes.parameters import BOOL, DOUBLE, DOUBLES, INTEGER, ParameterError
from two_bone_ik.nodes.parameters import ParameterSpec, SchemaNode, STRING, STRINGS

LENGTHS = ParameterSpec('link_lengths', DOUBLES, [0.3, 0.25], 'lengths', length=2)


def problem(spec, value):
    parameter = Parameter(spec.name, value=value)
    return spec.problem(parameter.value, parameter.type_.value)


def test_right_value_has_no_problem():
    assert problem(LENGTHS, [0.3, 0.25]) is None


@pytest.mark.parametrize('spec, value, message', [
    (LENGTHS, [1, 2],
     'link_lengths: expected an array of 2 doubles (write 1.0, not 1), got integer_array [1, 2]'),
    (LENGTHS, [0.1, 0.2, 0.3],
     'link_lengths: expected an array of 2 doubles (write 1.0, not 1), got 3 value(s) '
     '[0.1, 0.2, 0.3]'),
    (ParameterSpec('elbow', STRING, 'up', ''), 3, 'elbow: expected a string, got integer 3'),
    (ParameterSpec('rate', DOUBLE, 1.0, '', bounds=(1.0, 10.0)), 2,
     'rate: expected a double (write 1.0, not 1), got integer 2'),
    (ParameterSpec('rate', DOUBLE, 1.0, '', bounds=(1.0, 10.0)), 50.0,
     'rate: expected 1 to 10, got 50.0'),
    (ParameterSpec('rate', DOUBLE, 1.0, '', bounds=(1.0, 10.0)), math.nan,
     'rate: expected 1 to 10, got nan'),
    (ParameterSpec('flip', BOOL, True, ''), 'yes',
     "flip: expected true or false, got string 'yes'"),
    (ParameterSpec('names', STRINGS, ['a', 'b'], '', length=2), ['a'],
     "names: expected an array of 2 strings, got 1 value(s) ['a']"),
    (ParameterSpec('id', INTEGER, 1, '', bounds=(0, 252)), 300, 'id: expected 0 to 252, got 300'),
])
def test_problems_in_words(spec, value, message):
    assert problem(spec, value) == message


def test_descriptor_carries_type_range_and_read_only():
    spec = ParameterSpec('rate', DOUBLE, 1.0, 'Rate, Hz.', 'positive', bounds=(1.0, 10.0),
                         read_only=False)
    descriptor = spec.descriptor()
    assert (descriptor.name, descriptor.type, descriptor.description) == ('rate', DOUBLE,
                                                                          'Rate, Hz.')
    assert descriptor.additional_constraints == 'positive'
    assert not descriptor.read_only
    (bounds,) = descriptor.floating_point_range
    assert (bounds.from_value, bounds.to_value) == (1.0, 10.0)


def test_one_schema_every_name_once():
    for specs in (ik_parameters(), ARM_PARAMETERS + SIM_PARAMETERS):
        assert len(set(names(specs))) == len(specs)
    # Only the controller names may be shared (the IK node publishes to the controllers the sim
    # stands in for, under the same parameter names).
    shared = set(names(IK_PARAMETERS)) & set(names(SIM_PARAMETERS))
    assert shared <= {'position_controller', 'trajectory_controller'}
    # The IK node may change limits and the elbow at runtime; the sim's arm is fixed hardware.
    runtime = {spec.name for spec in ik_parameters() if not spec.read_only}
    assert runtime == {'elbow', 'allow_elbow_flip', 'joint_lower_limits', 'joint_upper_limits',
                       'max_joint_velocity', 'max_joint_acceleration', 'max_joint_jerk',
                       'command_rate', 'twist_timeout', 'transform_timeout', 'use_orientation',
                       'approach_pitch', 'allow_reach_back', 'goal_tolerance', 'path_tolerance',
                       'goal_time', 'state_timeout', 'floor_height', 'keep_out_boxes',
                       'link_radius', 'motion_path'}
    # The workspace: the IK node's, at runtime (the sim reads them read-only, from its file).
    assert set(names(WORKSPACE_PARAMETERS)) <= set(names(ik_parameters()))
    assert all(spec.read_only for spec in ARM_PARAMETERS + SIM_PARAMETERS)


class _Node(SchemaNode):

    def __init__(self, **kwargs):
        super().__init__('schema_test', **kwargs)
        self.values = self.declare_schema([
            LENGTHS, ParameterSpec('elbow', STRING, 'up', '', read_only=False)])


@pytest.fixture
def context():
    context = Context()
    rclpy.init(context=context, domain_id=99)
    yield context
    rclpy.try_shutdown(context=context)


def test_schema_node_answers_first_in_words(context):
    node = _Node(context=context, start_parameter_services=False)
    try:
        assert node.values == {'link_lengths': [0.3, 0.25], 'elbow': 'up'}
        results = node.set_parameters([
            Parameter('elbow', value=3), Parameter('elbw', value='down'),
            Parameter('link_lengths', value=[0.1, 0.1]), Parameter('elbow', value='down')])
        assert [r.successful for r in results] == [False, False, False, True]
        assert results[0].reason == 'elbow: expected a string, got integer 3'
        assert results[1].reason == ('elbw: no such parameter on /schema_test (its parameters: '
                                     'elbow, link_lengths)')
        assert results[2].reason.startswith('link_lengths: read-only')
        assert node.get_parameter('elbow').value == 'down'
        unset = node.set_parameters_atomically([Parameter('elbow')])
        assert (unset.successful, unset.reason) == (False, 'elbow: cannot be unset')
    finally:
        node.destroy_node()


def test_bad_override_raises_the_nodes_own_line(context):
    with pytest.raises(ParameterError) as info:
        _Node(context=context, start_parameter_services=False,
              parameter_overrides=[Parameter('link_lengths', value=[1, 2])])
    assert str(info.value) == ('link_lengths: expected an array of 2 doubles (write 1.0, not 1), '
                               'got integer_array [1, 2]')


class _ListNode(SchemaNode):

    def __init__(self, **kwargs):
        super().__init__('empty_list_test', **kwargs)
        self.values = self.declare_schema([ParameterSpec('names', STRINGS, [], 'names')])


def test_an_empty_list_default_keeps_its_type(context):
    # rclpy would type an empty list as a byte array, and then refuse the string array given.
    node = _ListNode(context=context, start_parameter_services=False)
    try:
        assert node.values == {'names': []}
    finally:
        node.destroy_node()
    node = _ListNode(context=context, start_parameter_services=False,
                     parameter_overrides=[Parameter('names', value=['elbow_joint'])])
    try:
        assert node.values == {'names': ['elbow_joint']}
    finally:
        node.destroy_node()


class _BoxesNode(SchemaNode):

    def __init__(self, **kwargs):
        super().__init__('boxes_test', **kwargs)
        self.values = self.declare_schema([
            ParameterSpec('boxes', DOUBLES, [], 'boxes', read_only=False)])


def test_an_empty_array_default_is_declared_typed(context):
    # rclpy would take [] for a byte array and then refuse every array of doubles.
    node = _BoxesNode(context=context, start_parameter_services=False)
    try:
        assert node.values == {'boxes': []}
        result = node.set_parameters_atomically([Parameter('boxes', value=[0.0, 1.0])])
        assert result.successful, result.reason
        assert list(node.get_parameter('boxes').value) == [0.0, 1.0]
        # ros2 param set /node boxes "[]" sends an empty array of no type (a bool array).
        result = node.set_parameters_atomically(
            [Parameter('boxes', Parameter.Type.BOOL_ARRAY, [])])
        assert result.successful, result.reason
        assert node.get_parameter('boxes').type_ == Parameter.Type.DOUBLE_ARRAY
        assert list(node.get_parameter('boxes').value) == []
        refused = node.set_parameters_atomically([Parameter('boxes', value=[True])])
        assert refused.reason == 'boxes: expected an array of doubles (write 1.0, not 1), got ' \
                                 'bool_array [True]'
    finally:
        node.destroy_node()


def test_an_empty_array_default_takes_an_override(context):
    node = _BoxesNode(context=context, start_parameter_services=False,
                      parameter_overrides=[Parameter('boxes', value=[0.5, 0.25])])
    try:
        assert list(node.values['boxes']) == [0.5, 0.25]
    finally:
        node.destroy_node()
