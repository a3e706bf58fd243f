"""A robot description file read into URDF text: a URDF as it is, a ``.xacro`` file expanded.

What the launch files' ``urdf_file`` argument turns into ``robot_description`` (no ROS). A file
whose name ends in ``.xacro`` (``arm.urdf.xacro``, ``arm.xacro``) is expanded with xacro (PyPI
``xacro``; a ROS distro's ``ros-$ROS_DISTRO-xacro``), which is imported only then, with the
arguments given as on xacro's own command line (``'prefix:=left_ length:=0.3'``). Every
problem (no such file, an unknown xacro argument, a macro error, XML that does not parse) is
one line that names the file.
"""

import os
import shlex
from typing import Dict
import xml.parsers.expat

from two_bone_ik.common.config_error import ConfigError

#: The file name ending that marks a file to expand with xacro.
XACRO_SUFFIX = '.xacro'


class DescriptionFileError(ConfigError):
    """A robot description file cannot be read or expanded; the message is one line."""


def _one_line(text: str) -> str:
    return ' '.join(text.split())


def parse_xacro_args(text: str) -> Dict[str, str]:
    """Return the xacro arguments of ``text``, written as on xacro's command line.

    Parameters
    ----------
    text : str
        ``name:=value`` items separated by spaces, e.g. ``'prefix:=left_ length:=0.3'``; a
        value with spaces is quoted (``"name:='a b'"``). Empty: no arguments.

    Returns
    -------
    dict
        ``{name: value}``, values as text (xacro reads them as ``$(arg name)``).

    Raises
    ------
    DescriptionFileError
        If an item is not ``name:=value`` with a non-empty name, names an argument twice, or
        the quotes do not close.
    """
    try:
        items = shlex.split(text)
    except ValueError as error:
        raise DescriptionFileError(f'xacro_args {text!r}: {error}') from None
    arguments = {}
    for item in items:
        name, separator, value = item.partition(':=')
        if not separator or not name:
            raise DescriptionFileError(
                f'xacro_args: {item!r} is not name:=value (e.g. prefix:=left_)')
        if name in arguments:
            raise DescriptionFileError(f'xacro_args: {name} is given twice')
        arguments[name] = value
    return arguments


def _expand_xacro(path: str, arguments: Dict[str, str]) -> str:
    try:
        import xacro
    except ImportError:
        raise DescriptionFileError(
            f'{path}: expanding a .xacro file needs xacro (ROS: rosdep key xacro; pip: '
            'xacro)') from None
    try:
        document = xacro.process_file(path, mappings=arguments)
    except xml.parsers.expat.ExpatError as error:
        raise DescriptionFileError(f'{path}: not valid XML: {error}') from None
    except Exception as error:  # noqa: B902 - xacro raises many kinds; each is one line
        reason = _one_line(str(error)) or type(error).__name__
        raise DescriptionFileError(f'{path}: xacro: {reason}') from None
    return document.toxml()


def read_description_file(path: str, xacro_args: str = '') -> str:
    """Return the URDF text of a robot description file.

    Parameters
    ----------
    path : str
        A URDF file, or a xacro file (name ending in ``.xacro``) to expand.
    xacro_args : str
        The xacro arguments (see :func:`parse_xacro_args`); only for a ``.xacro`` file.

    Returns
    -------
    str
        The URDF: the file's text, or what xacro expanded it to.

    Raises
    ------
    DescriptionFileError
        If the file does not exist or cannot be read, xacro cannot expand it (or is not
        installed), or ``xacro_args`` is given for a file that is not ``.xacro``.
    """
    arguments = parse_xacro_args(xacro_args)
    if not os.path.isfile(path):
        raise DescriptionFileError(f'{path}: no such file')
    if not path.endswith(XACRO_SUFFIX):
        if arguments:
            raise DescriptionFileError(
                f'xacro_args is given but {path} is not a {XACRO_SUFFIX} file')
        try:
            with open(path, encoding='utf-8') as description:
                return description.read()
        except (OSError, UnicodeDecodeError) as error:
            reason = _one_line(str(error))
            raise DescriptionFileError(f'{path}: cannot read it: {reason}') from None
    return _expand_xacro(path, arguments)
