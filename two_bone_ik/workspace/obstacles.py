"""What the arm must keep out of: the floor (its table) and keep-out boxes, validated (no ROS).

Everything is in ``base_frame``, metres:

- ``floor_height``: the floor (the table top) is the plane z = ``floor_height``; ``-inf`` for
  none;
- ``keep_out_boxes``: axis-aligned boxes, six values each (min x, y, z, max x, y, z);
- ``link_radius``: the radius of each moving link's capsule (see
  :mod:`two_bone_ik.workspace.links`), one value for every link or one per link of the chain,
  base first (N + 1 for N joints: the base's is accepted and never used, as the base's segment
  below the first joint never counts);
- ``motion_path``: how a planned motion goes to a target, ``joint`` (straight in joint space)
  or ``linear`` (the tool point on the straight line).

Each check raises :class:`WorkspaceError` with a message that starts with the parameter's name.
"""

import math
from typing import Any, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.common.config_error import ConfigError

Vector3 = Tuple[float, float, float]

#: The workspace parameters (every one runtime on the IK node, read-only on the sim).
WORKSPACE_PARAMETERS = ('floor_height', 'keep_out_boxes', 'link_radius', 'motion_path')

#: ``motion_path`` values.
MOTION_PATHS = ('joint', 'linear')

#: Most keep-out boxes (each costs every checked pose a test).
MAX_BOXES = 100

#: Largest coordinate (m) of a floor or a box, and largest link radius (m).
MAX_COORDINATE = 1e3
MAX_RADIUS = 10.0

#: The defaults: no floor, no boxes, 2 cm links, joint-space motions.
DEFAULT_FLOOR_HEIGHT = -math.inf
DEFAULT_LINK_RADIUS = (0.02,)
DEFAULT_MOTION_PATH = 'joint'


class WorkspaceError(ConfigError):
    """A workspace parameter is invalid; the message starts with its name."""


class Box(NamedTuple):
    """A keep-out box: its lower and upper corners in ``base_frame``, m, and its number (1...)."""

    lower: Vector3
    upper: Vector3
    number: int

    def describe(self) -> str:
        """``'keep-out box 2 [0.1, -0.1, 0] to [0.2, 0.1, 0.05] m'``."""
        lo = ', '.join(f'{v:g}' for v in self.lower)
        hi = ', '.join(f'{v:g}' for v in self.upper)
        return f'keep-out box {self.number} [{lo}] to [{hi}] m'

    def contains(self, point: Sequence[float]) -> bool:
        """Whether ``point`` (m) is inside the box or on its surface."""
        return all(lo <= p <= hi for p, lo, hi in zip(point, self.lower, self.upper))


class Obstacles(NamedTuple):
    """The floor and the keep-out boxes.

    Attributes
    ----------
    floor_height : float
        z of the floor in ``base_frame``, m; ``-inf`` for none.
    boxes : tuple of Box
    """

    floor_height: float = DEFAULT_FLOOR_HEIGHT
    boxes: Tuple[Box, ...] = ()

    @property
    def active(self) -> bool:
        """Whether there is anything to keep out of (else nothing is ever checked)."""
        return self.floor_height > -math.inf or bool(self.boxes)

    def describe(self) -> str:
        """Return the floor and the boxes in words, for logs."""
        parts = []
        if self.floor_height > -math.inf:
            parts.append(f'floor at z = {self.floor_height:g} m')
        parts += [box.describe() for box in self.boxes]
        return '; '.join(parts) if parts else 'no floor, no keep-out boxes'

    def point_problem(self, point: Sequence[float]) -> str:
        """Why a point (the target) cannot be reached: below the floor, in a box; else ''."""
        if point[2] < self.floor_height:
            return (f'the target is {self.floor_height - point[2]:.3f} m below the floor '
                    f'(floor_height {self.floor_height:g} m)')
        for box in self.boxes:
            if box.contains(point):
                return f'the target is inside {box.describe()}'
        return ''


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WorkspaceError(f'{name}: expected a number in metres, got {value!r}')
    return float(value)


def check_floor_height(value: Any) -> float:
    """Return ``floor_height`` (m; ``-inf``: none) or raise :class:`WorkspaceError`."""
    height = _number('floor_height', value)
    if not (height == -math.inf or abs(height) <= MAX_COORDINATE):  # NaN fails
        raise WorkspaceError(f'floor_height: expected a height within +-{MAX_COORDINATE:g} m '
                             f'in base_frame, or -.inf for no floor, got {value!r}')
    return height


def _values(name: str, value: Any, what: str) -> Tuple[float, ...]:
    """Return an array parameter as floats (None: empty)."""
    if value is None:
        return ()
    if isinstance(value, (str, bytes)) or not hasattr(value, '__len__'):
        raise WorkspaceError(f'{name}: expected {what}, got {value!r}')
    items = list(value)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
        raise WorkspaceError(f'{name}: expected {what}, got {items!r}')
    return tuple(float(v) for v in items)


def check_keep_out_boxes(value: Any) -> Tuple[Box, ...]:
    """Return the boxes of ``keep_out_boxes`` or raise :class:`WorkspaceError`.

    Six finite values per box (min x, y, z, max x, y, z, m), each min <= its max; at most
    :data:`MAX_BOXES` boxes; empty (or None): none.
    """
    what = '6 values per box: min x, y, z, max x, y, z in metres'
    values = _values('keep_out_boxes', value, what)
    if len(values) % 6:
        raise WorkspaceError(f'keep_out_boxes: expected {what}, got {len(values)} values')
    if len(values) > 6 * MAX_BOXES:
        raise WorkspaceError(f'keep_out_boxes: at most {MAX_BOXES} boxes, got '
                             f'{len(values) // 6}')
    boxes = []
    for start in range(0, len(values), 6):
        number = start // 6 + 1
        lower, upper = values[start:start + 3], values[start + 3:start + 6]
        if not all(abs(v) <= MAX_COORDINATE for v in lower + upper):  # NaN and inf fail
            raise WorkspaceError(f'keep_out_boxes: box {number} has a coordinate beyond '
                                 f'+-{MAX_COORDINATE:g} m (or not finite): '
                                 f'{list(lower + upper)!r}')
        for axis, lo, hi in zip('xyz', lower, upper):
            if lo > hi:
                raise WorkspaceError(f'keep_out_boxes: box {number} has min {axis} {lo:g} m '
                                     f'above its max {axis} {hi:g} m')
        boxes.append(Box(lower, upper, number))
    return tuple(boxes)


def check_link_radius(value: Any, joints: Optional[int] = None) -> Tuple[float, ...]:
    """Return the radius of each moving link (m), or raise :class:`WorkspaceError`.

    Parameters
    ----------
    value : sequence of float
        One radius for every link, or one per link of the chain, base first (N + 1).
    joints : int, optional
        N, the arm's moving joints; None to check only the values (the arm is not known yet).

    Returns
    -------
    tuple of float
        N radii, link 1 (after the first joint) first; without ``joints``, the values given.
    """
    what = ('one radius in metres for every link, or one per link of the chain, base first'
            + (f' ({joints + 1})' if joints is not None else ''))
    radii = _values('link_radius', value, what)
    if not radii or not all(0.0 <= r <= MAX_RADIUS for r in radii):  # NaN fails
        raise WorkspaceError(f'link_radius: expected {what}, each 0 to {MAX_RADIUS:g} m, got '
                             f'{list(radii)!r}')
    if joints is None:
        return radii
    if len(radii) == 1:
        return radii * joints
    if len(radii) != joints + 1:
        raise WorkspaceError(f'link_radius: expected {what}, got {len(radii)} values')
    return radii[1:]


def check_motion_path(value: Any) -> str:
    """Return ``motion_path`` (``joint`` or ``linear``) or raise :class:`WorkspaceError`."""
    if value not in MOTION_PATHS:
        raise WorkspaceError(f"motion_path: expected one of: {', '.join(MOTION_PATHS)}, got "
                             f'{value!r}')
    return value


def obstacles_from_values(values) -> Obstacles:
    """Return the obstacles of ``floor_height`` and ``keep_out_boxes`` in ``values`` (defaults).

    Raises
    ------
    WorkspaceError
        Naming the parameter at fault.
    """
    return Obstacles(check_floor_height(values.get('floor_height', DEFAULT_FLOOR_HEIGHT)),
                     check_keep_out_boxes(values.get('keep_out_boxes', ())))
