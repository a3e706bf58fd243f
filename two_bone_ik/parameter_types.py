"""How the nodes name ROS parameter types when a parameter override has the wrong one.

Shared by :mod:`two_bone_ik.ik_node` and :mod:`two_bone_ik.sim_node`, whose start-up errors
read e.g. ``link_lengths: expected an array of 2 doubles (write 1.0, not 1), got integer_array
[1, 2]``.
"""

from typing import Optional

from rcl_interfaces.msg import ParameterType

#: What a value of each declared parameter type looks like, for error messages. Every array
#: parameter of these nodes has exactly 2 elements.
TYPE_TEXT = {
    ParameterType.PARAMETER_DOUBLE: 'a double (write 1.0, not 1)',
    ParameterType.PARAMETER_DOUBLE_ARRAY: 'an array of 2 doubles (write 1.0, not 1)',
    ParameterType.PARAMETER_STRING: 'a string',
    ParameterType.PARAMETER_STRING_ARRAY: 'an array of 2 strings',
    ParameterType.PARAMETER_BOOL: 'true or false',
}


def type_mismatch(name: str, expected: int, override) -> Optional[str]:
    """Return the error line for an override whose type is not ``expected``, else None.

    Parameters
    ----------
    name : str
        Parameter name; the line starts with it.
    expected : int
        The declared type, a ``rcl_interfaces.msg.ParameterType`` constant (a key of
        :data:`TYPE_TEXT`).
    override : rclpy.parameter.Parameter
        The value given on the command line or in a params file.
    """
    if override.type_.value == expected:
        return None
    return (f'{name}: expected {TYPE_TEXT[expected]}, got '
            f'{override.type_.name.lower()} {override.value!r}')
