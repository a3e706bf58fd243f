"""Tests of two_bone_ik.parameter_types: the words for a parameter override of the wrong type."""

from rcl_interfaces.msg import ParameterType
from rclpy.parameter import Parameter

from two_bone_ik.parameter_types import type_mismatch
from two_bone_ik.parameter_types import TYPE_TEXT


def test_right_type_is_no_mismatch():
    override = Parameter('link_lengths', value=[0.3, 0.25])
    assert type_mismatch('link_lengths', ParameterType.PARAMETER_DOUBLE_ARRAY, override) is None


def test_integers_for_doubles_name_the_fix_and_the_value():
    override = Parameter('link_lengths', value=[1, 2])
    message = type_mismatch('link_lengths', ParameterType.PARAMETER_DOUBLE_ARRAY, override)
    assert message == ('link_lengths: expected an array of 2 doubles (write 1.0, not 1), '
                       'got integer_array [1, 2]')


def test_every_declared_type_has_words():
    override = Parameter('x', value='text')
    for expected in (ParameterType.PARAMETER_DOUBLE, ParameterType.PARAMETER_DOUBLE_ARRAY,
                     ParameterType.PARAMETER_STRING_ARRAY, ParameterType.PARAMETER_BOOL):
        assert type_mismatch('x', expected, override) == \
            f"x: expected {TYPE_TEXT[expected]}, got string 'text'"
