"""ROS 2 parameters files read the way rcl and rclpy read them, without ROS.

A params file maps node names to ``ros__parameters``::

    /**/two_bone_ik:            # this node name in any namespace
      ros__parameters:
        link_lengths: [0.3, 0.25]
        servos:                 # nested mappings become dotted names: servos.shoulder.channel
          shoulder: {channel: 0}

How a node finds its parameters (as rclpy does on Jazzy and Kilted):

- every key gets a leading ``/`` if it has none, so ``two_bone_ik`` means ``/two_bone_ik``;
- in a key, ``/*`` matches exactly one namespace or name token and ``/**`` any number of them
  (tokens are letters, digits and ``_``); the key must match the node's whole fully qualified
  name, e.g. ``/**/two_bone_ik`` matches ``/two_bone_ik`` and ``/left_arm/two_bone_ik``,
  ``/*/two_bone_ik`` only the latter;
- every matching section applies, in the order the keys appear (file after file): a later
  section overrides a parameter set by an earlier one. So in a file with ``/**`` first and
  ``/left_arm/two_bone_ik`` after it, the specific section wins; written the other way round,
  ``/**`` wins.

:func:`check_params_file` reports what rcl would refuse (unreadable file, text that is not UTF-8,
YAML syntax, mixed types in a list) as one readable line, before rcl prints its own error; and
:func:`check_command_line` an argument rclpy cannot pass to rcl. Files are read with libyaml
(PyYAML's ``CSafeLoader``) where PyYAML has it: its pure-Python scanner takes about a minute
over a 20 MB ``robot_description``.
"""

import os
import re
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.common.config_error import ConfigError
import yaml

#: The key under a node name that holds its parameters.
PARAMETERS_KEY = 'ros__parameters'


class ParamsFileError(ConfigError):
    """A params file cannot be read or is malformed; the message names the file first."""


class _ParamsLoader(getattr(yaml, 'CSafeLoader', yaml.SafeLoader)):
    """The safe loader, libyaml's: reads ``1e-3`` as a float and launch_ros's tuples, as rcl."""


_ParamsLoader.add_implicit_resolver(
    'tag:yaml.org,2002:float',
    re.compile(r'^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$'),
    list('-+0123456789'))
# launch_ros writes the lists of a Node's parameters dict as '!!python/tuple' sequences (it
# turns them into tuples, then yaml.dump), which rcl reads as arrays.
_ParamsLoader.add_constructor('tag:yaml.org,2002:python/tuple', yaml.SafeLoader.construct_sequence)


class NodeParameters(NamedTuple):
    """The parameters one node takes from params files (see :func:`parameters_for_node`).

    Attributes
    ----------
    values : dict
        ``{parameter name: value}`` (nested names dotted), after every matching section.
    matched_keys : tuple of str
        Keys of the sections that matched, in the order they were applied.
    keys : tuple of str
        Every node key of the files, as written, in file order.
    """

    values: Dict[str, Any]
    matched_keys: Tuple[str, ...]
    keys: Tuple[str, ...]

    def describe_unmatched(self, fully_qualified_name: str, paths: Sequence) -> str:
        """One line saying that no section matched, listing the keys found."""
        files = ', '.join(repr(str(p)) for p in paths)
        keys = ', '.join(self.keys) if self.keys else 'none'
        return (f'params file {files} has no section for node {fully_qualified_name} (its keys: '
                f'{keys}); key it /**/{fully_qualified_name.rsplit("/", 1)[-1]} to match this '
                'node in any namespace')


def _key_pattern(key: str) -> 're.Pattern':
    """Build the regular expression rclpy makes of a node key: ``/*`` one token, ``/**`` any."""
    if not key.startswith('/'):
        key = '/' + key
    return re.compile(key.replace('/*', r'(/[A-Za-z0-9_]+)'))


def node_key_matches(key: str, fully_qualified_name: str) -> bool:
    """Whether the section ``key`` of a params file applies to a node.

    Parameters
    ----------
    key : str
        Node key as written in the file (``two_bone_ik``, ``/**``, ``/*/two_bone_ik``, ...).
    fully_qualified_name : str
        The node's namespace and name, e.g. ``/left_arm/two_bone_ik``.
    """
    return _key_pattern(key).fullmatch(fully_qualified_name) is not None


def fully_qualified(node_name: str) -> str:
    """``'two_bone_ik'`` -> ``'/two_bone_ik'``; names with a leading slash are kept."""
    return node_name if node_name.startswith('/') else '/' + node_name


def _not_utf8(text, start: int) -> str:
    """Say where the first byte that is not UTF-8 is, in bytes or in a str holding it.

    A str holds undecodable bytes as lone surrogates (PEP 383), one per byte.
    """
    newline = b'\n' if isinstance(text, bytes) else '\n'
    line = text.count(newline, 0, start) + 1
    column = start - text.rfind(newline, 0, start)
    byte = text[start] if isinstance(text, bytes) else ord(text[start]) & 0xff
    return f'not UTF-8: byte 0x{byte:02x} at line {line}, column {column}'


def _flatten(mapping: dict, prefix: str, out: Dict[str, Any], where: str) -> None:
    for name, value in mapping.items():
        dotted = f'{prefix}{name}'
        if isinstance(value, dict):
            _flatten(value, dotted + '.', out, where)
            continue
        if isinstance(value, list):
            kinds = {_kind(item) for item in value}
            if len(kinds) > 1:
                hint = '; write 1.0, not 1, for a double' if kinds == {'integer', 'double'} \
                    else ''
                raise ParamsFileError(
                    f'{where}: {dotted}: a list must hold one type, got {value!r}{hint}')
        out[dotted] = value


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return 'bool'
    if isinstance(value, int):
        return 'integer'
    if isinstance(value, float):
        return 'double'
    if isinstance(value, str):
        return 'string'
    return type(value).__name__


def read_params_file(path) -> List[Tuple[str, Dict[str, Any]]]:
    """Read a params file: ``[(node key, {dotted parameter name: value}), ...]`` in file order.

    Raises
    ------
    ParamsFileError
        If the file cannot be read, is not UTF-8 text or valid YAML, is not laid out as
        ``node: {ros__parameters: {...}}``, or a list mixes value types (rcl refuses those).
    """
    where = f'params file {str(path)!r}'
    try:
        with open(path, 'rb') as stream:
            data = stream.read()
        document = yaml.load(data.decode('utf-8'), Loader=_ParamsLoader)
    except OSError as error:
        raise ParamsFileError(f'{where}: {error.strerror or error}') from None
    except UnicodeDecodeError as error:
        raise ParamsFileError(f'{where}: {_not_utf8(data, error.start)}') from None
    except yaml.YAMLError as error:
        mark = getattr(error, 'problem_mark', None)
        problem = getattr(error, 'problem', None) or str(error)
        line = f' at line {mark.line + 1}' if mark is not None else ''
        raise ParamsFileError(f'{where}: not valid YAML{line}: {problem}') from None
    if not isinstance(document, dict):
        raise ParamsFileError(
            f'{where}: expected a mapping of node names to {PARAMETERS_KEY}, got '
            f'{type(document).__name__}')
    sections = []
    for key, section in document.items():
        if not isinstance(section, dict) or not isinstance(section.get(PARAMETERS_KEY), dict):
            raise ParamsFileError(f'{where}: {key}: expected a {PARAMETERS_KEY} mapping')
        values: Dict[str, Any] = {}
        _flatten(section[PARAMETERS_KEY], '', values, f'{where}: {key}')
        sections.append((str(key), values))
    return sections


def check_params_file(path) -> None:
    """Raise :class:`ParamsFileError` if rcl would refuse the file (see read_params_file)."""
    read_params_file(path)


def parameters_for_node(paths, fully_qualified_name: str) -> NodeParameters:
    """Collect the parameters a node takes from one or more params files, as rclpy applies them.

    Parameters
    ----------
    paths : path or sequence of paths
        Params files, in the order given on the command line.
    fully_qualified_name : str
        The node's namespace and name, e.g. ``/right_arm/two_bone_ik``.

    Raises
    ------
    ParamsFileError
        If a file cannot be read or is malformed.
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    fully_qualified_name = fully_qualified(fully_qualified_name)
    values: Dict[str, Any] = {}
    matched = []
    keys = []
    for path in paths:
        for key, section in read_params_file(path):
            keys.append(key)
            if node_key_matches(key, fully_qualified_name):
                matched.append(key)
                values.update(section)
    return NodeParameters(values, tuple(matched), tuple(keys))


def params_files_in_arguments(args: Optional[Sequence[str]]) -> List[str]:
    """Paths given as ``--params-file PATH`` inside the ``--ros-args`` parts of a command line."""
    paths = []
    inside = False
    args = list(args or ())
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == '--ros-args':
            inside = True
        elif arg == '--':
            inside = False
        elif inside and arg == '--params-file' and index + 1 < len(args):
            paths.append(args[index + 1])
            index += 1
        index += 1
    return paths


def check_command_line(args: Sequence[str]) -> None:
    """Raise :class:`ConfigError` if an argument is not UTF-8 text, which rcl cannot take.

    Python decodes the bytes of an argument that are not UTF-8 to lone surrogates; rclpy then
    fails to encode them (a ``UnicodeEncodeError`` traceback).
    """
    for index, arg in enumerate(args):
        try:
            arg.encode('utf-8')
        except UnicodeEncodeError as error:
            raise ConfigError(f'command line argument {index}: '
                              f'{_not_utf8(arg, error.start)}') from None


def load_arm_config(path, node_name: str = '/two_bone_ik', warn=None,
                    build=ArmConfig.from_mapping):
    """Read and validate the arm configuration a node would take from a params file.

    Parameters
    ----------
    path : str or os.PathLike
        ROS 2 params file.
    node_name : str
        Fully qualified name of the node whose parameters to read, e.g.
        ``/right_arm/two_bone_ik`` (a name without a leading slash is in the root namespace).
    warn : callable, optional
        Called with one line when no section of the file matches the node (the defaults are
        then used), listing the keys found.
    build : callable
        Makes the configuration of the ``{parameter: value}`` mapping (default
        ``ArmConfig.from_mapping``; a desktop arm's:
        :func:`two_bone_ik.arm.desktop_config.arm_config_from_mapping`).

    Returns
    -------
    ArmConfig
        Or what ``build`` returns.

    Raises
    ------
    ParamsFileError
        If the file cannot be read or is malformed.
    ArmConfigError
        If a value is invalid.
    """
    found = parameters_for_node(path, node_name)
    if not found.matched_keys and warn is not None:
        warn(found.describe_unmatched(fully_qualified(node_name), [path]))
    return build(found.values)
