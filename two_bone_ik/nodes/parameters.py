"""Declaring and checking node parameters from one schema, with reasons a user can read.

Each node lists its parameters as :class:`ParameterSpec` entries (see
:mod:`two_bone_ik.nodes.parameter_schema`). From a spec come the ``ParameterDescriptor``
(type, description, constraints, range, read-only, so rclpy enforces them too) and the node's
own check of a value, which answers first, in words:

- at start (:func:`declare_parameters`), a bad override raises :class:`ParameterError`, one line
  such as ``link_lengths: expected an array of 2 doubles (write 1.0, not 1), got integer_array
  [1, 2]``, instead of rclpy's ``Trying to set parameter ... expecting type 'Type.DOUBLE_ARRAY'``;
- at runtime, :class:`SchemaNode` checks every change before rclpy does, so ``ros2 param set``
  prints ``elbow: expected a string, got integer 3`` rather than ``Wrong parameter type, expected
  '4' got '2'``, and an unknown name gets ``elbw: no such parameter on /two_bone_ik`` rather
  than ``Invalid access to undeclared parameter(s): []``.
"""

import math
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rcl_interfaces.msg import ParameterType, SetParametersResult
from rclpy.exceptions import ParameterException
from rclpy.node import Node
from rclpy.parameter import Parameter

from two_bone_ik.common.config_error import ConfigError

DOUBLE = ParameterType.PARAMETER_DOUBLE
DOUBLES = ParameterType.PARAMETER_DOUBLE_ARRAY
INTEGER = ParameterType.PARAMETER_INTEGER
INTEGERS = ParameterType.PARAMETER_INTEGER_ARRAY
STRING = ParameterType.PARAMETER_STRING
STRINGS = ParameterType.PARAMETER_STRING_ARRAY
BOOL = ParameterType.PARAMETER_BOOL

_ARRAYS = (DOUBLES, INTEGERS, STRINGS)

_WORDS = {
    DOUBLE: ('a double', ' (write 1.0, not 1)'),
    DOUBLES: ('doubles', ' (write 1.0, not 1)'),
    INTEGER: ('an integer', ''),
    INTEGERS: ('integers', ''),
    STRING: ('a string', ''),
    STRINGS: ('strings', ''),
    BOOL: ('true or false', ''),
}


class ParameterError(ConfigError):
    """A parameter value a node cannot take; the message starts with the parameter's name."""


class ParameterSpec(NamedTuple):
    """One node parameter: everything needed to declare it and to check a value for it.

    Attributes
    ----------
    name : str
        Parameter name (dotted for nested ones, e.g. ``servos.shoulder.channel``).
    type_ : int
        A ``rcl_interfaces.msg.ParameterType`` constant.
    default : any
        Default value, of that type.
    description : str
        What it is, with units.
    constraints : str
        What values are accepted, in words (``additional_constraints``); empty if only the
        type matters.
    read_only : bool
        Fixed once the node has started.
    bounds : tuple of 2 numbers, optional
        Inclusive bounds of a double or integer (``floating_point_range`` / ``integer_range``).
    length : int or (int, int), optional
        Number of elements of an array: exact, or the least and most.
    """

    name: str
    type_: int
    default: Any
    description: str
    constraints: str = ''
    read_only: bool = True
    bounds: Optional[Tuple[float, float]] = None
    length: Optional[Union[int, Tuple[int, int]]] = None

    def _counts(self) -> Optional[Tuple[int, int]]:
        if self.length is None or isinstance(self.length, tuple):
            return self.length
        return (self.length, self.length)

    def expected(self) -> str:
        """Return the accepted type in words, e.g. ``'an array of 2 doubles'``."""
        word, hint = _WORDS[self.type_]
        if self.type_ in (DOUBLES, INTEGERS, STRINGS):
            counts = self._counts()
            count = ''
            if counts is not None:
                count = f'{counts[0]} ' if counts[0] == counts[1] else \
                    f'{counts[0]} to {counts[1]} '
            return f'an array of {count}{word}{hint}'
        return word + hint

    def problem(self, value: Any, type_: int) -> Optional[str]:
        """Why ``value`` (of ``ParameterType`` ``type_``) cannot be this parameter, or None."""
        if type_ != self.type_:
            return (f'{self.name}: expected {self.expected()}, got {_type_name(type_)} '
                    f'{_shown(value)}')
        counts = self._counts()
        if counts is not None and not counts[0] <= len(value) <= counts[1]:
            return (f'{self.name}: expected {self.expected()}, got {len(value)} value(s) '
                    f'{_shown(value)}')
        if self.bounds is not None:
            low, high = self.bounds
            if not (low <= value <= high):  # NaN fails too
                return f'{self.name}: expected {low:g} to {high:g}, got {_shown(value)}'
        return None

    def descriptor(self) -> ParameterDescriptor:
        """Return the ``ParameterDescriptor`` rclpy declares the parameter with."""
        descriptor = ParameterDescriptor(
            name=self.name, type=self.type_, description=self.description,
            additional_constraints=self.constraints, read_only=self.read_only)
        if self.bounds is not None and self.type_ == DOUBLE:
            descriptor.floating_point_range = [FloatingPointRange(
                from_value=float(self.bounds[0]), to_value=float(self.bounds[1]), step=0.0)]
        elif self.bounds is not None and self.type_ == INTEGER:
            descriptor.integer_range = [IntegerRange(
                from_value=int(self.bounds[0]), to_value=int(self.bounds[1]), step=0)]
        return descriptor


def _type_name(type_: int) -> str:
    return Parameter.Type(type_).name.lower()


def _shown(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if hasattr(value, 'tolist'):
        value = value.tolist()
    return repr(list(value)) if isinstance(value, (tuple, list)) else repr(value)


def parameter_overrides(node: Node) -> Dict[str, Parameter]:
    """Return the values given for a node at start (params files, ``-p``), by name.

    rclpy keeps them in ``Node._parameter_overrides`` (there since Foxy, no public accessor);
    this is the one place that reads it.
    """
    return dict(getattr(node, '_parameter_overrides', {}))


def declare_parameters(node: Node, specs: Iterable[ParameterSpec],
                       defaults: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Declare parameters from their specs and return ``{name: value}``.

    Parameters
    ----------
    node : rclpy.node.Node
    specs : iterable of ParameterSpec
    defaults : dict, optional
        Defaults that replace the specs' own (e.g. read from a params file).

    Raises
    ------
    ParameterError
        For an override of the wrong type, length or range, with the node's own reason.
    """
    overrides = parameter_overrides(node)
    values = {}
    for spec in specs:
        override = overrides.get(spec.name)
        if override is not None:
            problem = spec.problem(override.value, override.type_.value)
            if problem:
                raise ParameterError(problem)
        default = spec.default if defaults is None else defaults.get(spec.name, spec.default)
        # rclpy types an empty list as a byte array: declare the type alone (unset until given).
        empty = isinstance(default, list) and not default
        try:
            parameter = node.declare_parameter(
                spec.name, Parameter.Type(spec.type_) if empty else default, spec.descriptor())
        except ParameterException as error:
            raise ParameterError(f'{spec.name}: ' + ' '.join(str(error).split())) from None
        values[spec.name] = [] if parameter.type_ == Parameter.Type.NOT_SET else parameter.value
    return values


def warn_unknown_overrides(node: Node, also_known: Sequence[str] = ()) -> List[str]:
    """Log a warning for each override that names no parameter of the node; return the names.

    ``also_known`` lists names to pass over silently (e.g. another node's parameters that come
    along in a shared ``/**`` section).
    """
    unknown = sorted(name for name in parameter_overrides(node)
                     if not node.has_parameter(name) and name not in also_known)
    for name in unknown:
        node.get_logger().warning(f"ignoring unknown parameter '{name}' (misspelt?)")
    return unknown


class SchemaNode(Node):
    """A node whose parameter changes are checked against its specs before rclpy sees them.

    Subclasses call :meth:`declare_schema` with their specs. Changes to declared parameters
    outside the schema (e.g. ``use_sim_time``) go to rclpy unchanged.
    """

    def declare_schema(self, specs: Iterable[ParameterSpec],
                       defaults: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """Declare the parameters of ``specs`` (see :func:`declare_parameters`)."""
        specs = list(specs)
        if not hasattr(self, '_schema'):
            self._schema: Dict[str, ParameterSpec] = {}
        self._schema.update((spec.name, spec) for spec in specs)
        return declare_parameters(self, specs, defaults)

    def parameter_change_problem(self, parameters: Sequence[Parameter]) -> Optional[str]:
        """Why a change cannot be made, in words, or None; the node's on-set check follows."""
        schema = getattr(self, '_schema', {})
        for parameter in parameters:
            name = parameter.name
            if not self.has_parameter(name):
                known = ', '.join(sorted(schema)) if schema else 'none'
                return (f'{name}: no such parameter on {self.get_fully_qualified_name()} '
                        f'(its parameters: {known})')
            spec = schema.get(name)
            if spec is None:
                continue
            if parameter.type_ == Parameter.Type.NOT_SET:
                return f'{name}: cannot be unset'
            if spec.read_only:
                return (f'{name}: read-only; give it at start (params file or -p '
                        f'{name}:=...)')
            problem = spec.problem(parameter.value, parameter.type_.value)
            if problem:
                return problem
        return None

    def _typed_empty(self, parameter: Parameter) -> Parameter:
        """Return an empty array for an array parameter as that parameter's type.

        ``ros2 param set /node name "[]"`` sends an empty array of no particular type.
        """
        spec = getattr(self, '_schema', {}).get(parameter.name)
        if (spec is not None and spec.type_ in _ARRAYS and parameter.type_.value != spec.type_
                and isinstance(parameter.value, (list, tuple)) and not parameter.value):
            return Parameter(parameter.name, Parameter.Type(spec.type_), [])
        return parameter

    def set_parameters_atomically(self, parameter_list: List[Parameter]) -> SetParametersResult:
        """Set parameters all at once; a change the schema refuses comes back with its reason."""
        parameter_list = [self._typed_empty(parameter) for parameter in parameter_list]
        problem = self.parameter_change_problem(parameter_list)
        if problem:
            return SetParametersResult(successful=False, reason=problem)
        return super().set_parameters_atomically(parameter_list)

    def set_parameters(self, parameter_list: List[Parameter]) -> List[SetParametersResult]:
        """Set parameters one by one; each refused one comes back with its reason."""
        return [self.set_parameters_atomically([parameter]) for parameter in parameter_list]
