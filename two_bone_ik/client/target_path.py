"""A path of timed targets from a CSV file, for ``two_bone_ik_target --path`` (ROS-free).

One target per line, ``t,x,y,z`` or ``t,x,y,z,pitch,roll``: ``t`` in seconds from the start of
the path (never decreasing), ``x, y, z`` in metres in the frame the targets are sent in,
``pitch`` and ``roll`` in radians (see :mod:`two_bone_ik.client.approach`). The first line may
be a header naming those columns; blank lines and lines starting with ``#`` are skipped.
Anything else is an error naming the file, the line and what is wrong.
"""

import csv
import math
from typing import Iterable, List, NamedTuple, Optional, Sequence

#: The columns of a line, the last two optional.
COLUMNS = ('t', 'x', 'y', 'z', 'pitch', 'roll')


class TargetPathError(ValueError):
    """A path file cannot be used; the message names the file and line."""


class PathTarget(NamedTuple):
    """One target of a path.

    ``time`` is in seconds from the start, ``x, y, z`` in metres; ``pitch`` and ``roll`` in
    radians, or None when the line has no orientation.
    """

    time: float
    x: float
    y: float
    z: float
    pitch: Optional[float] = None
    roll: Optional[float] = None


def _is_header(fields: Sequence[str]) -> bool:
    try:
        float(fields[0])
    except ValueError:
        return True
    return False


def _header_columns(fields: Sequence[str], where: str) -> int:
    names = tuple(field.strip().lower() for field in fields)
    if names not in (COLUMNS[:4], COLUMNS):
        raise TargetPathError(f"{where}: {','.join(fields)!r} is neither a header naming the "
                              'columns t,x,y,z[,pitch,roll] nor a line of numbers')
    return len(names)


def _row(fields: Sequence[str], where: str, columns: Optional[int]) -> PathTarget:
    count = len(fields)
    if count not in (4, 6) or (columns is not None and count != columns):
        expected = f'{columns}' if columns is not None else '4 or 6'
        raise TargetPathError(f'{where}: expected {expected} values (t,x,y,z[,pitch,roll]), '
                              f'got {count}')
    values = []
    for name, field in zip(COLUMNS, fields):
        try:
            value = float(field)
        except ValueError:
            raise TargetPathError(f'{where}: {name} {field.strip()!r} is not a number') from None
        if not math.isfinite(value):
            raise TargetPathError(f'{where}: {name} is {field.strip()}, not a finite number')
        values.append(value)
    if values[0] < 0.0:
        raise TargetPathError(f'{where}: t is {values[0]:g} s, before the start of the path')
    return PathTarget(*values)


def parse_target_path(lines: Iterable[str], source: str = '<path>') -> List[PathTarget]:
    """Return the targets of a path, in time order.

    Parameters
    ----------
    lines : iterable of str
        The file's lines.
    source : str
        The file's name, for the error messages.

    Raises
    ------
    TargetPathError
        Naming ``source``, the line and the fault: a wrong number of values, a value that is
        not a finite number, a negative time or one before the previous line's, a header that
        does not name the columns, or no target at all.
    """
    targets: List[PathTarget] = []
    columns = None
    seen_line = False
    for number, fields in enumerate(csv.reader(lines), start=1):
        if not fields or not ''.join(fields).strip() or fields[0].lstrip().startswith('#'):
            continue
        where = f'{source} line {number}'
        if not seen_line and _is_header(fields):
            columns = _header_columns(fields, where)
            seen_line = True
            continue
        seen_line = True
        target = _row(fields, where, columns)
        if targets and target.time < targets[-1].time:
            raise TargetPathError(f'{where}: t is {target.time:g} s, before the previous '
                                  f"target's {targets[-1].time:g} s")
        targets.append(target)
    if not targets:
        raise TargetPathError(f'{source}: no targets (expected lines t,x,y,z[,pitch,roll])')
    return targets


def read_target_path(path) -> List[PathTarget]:
    """Return the targets of the CSV file ``path`` (see :func:`parse_target_path`).

    Raises
    ------
    TargetPathError
        If the file cannot be read (missing, not UTF-8, ...) or is malformed.
    """
    try:
        with open(path, encoding='utf-8', newline='') as stream:
            return parse_target_path(stream.readlines(), str(path))
    except OSError as error:
        raise TargetPathError(f'{path}: {error.strerror or error}') from None
    except UnicodeDecodeError as error:
        raise TargetPathError(f'{path}: not UTF-8 text ({error.reason} at byte '
                              f'{error.start})') from None
