"""Arm configuration: the parameters that describe one two-bone arm, validated.

ROS-free, so the IK node, the URDF generator and the simulation all read the same
file the same way. The values mirror the node parameters one to one (see
``config/two_bone_ik.yaml``); :mod:`two_bone_ik.arm.params_file` reads them from a
ROS 2 parameters file and :mod:`two_bone_ik.arm.plane` holds the plane geometry.
"""

from dataclasses import dataclass
import math
from typing import Any, Mapping, Sequence, Tuple

from two_bone_ik.arm.plane import PLANE_AXES
from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.solver.validation import MAX_JOINT_LIMIT, MAX_MAGNITUDE

#: Largest finite joint limit, rad (the solver's: beyond it whole-turn arithmetic on the angles
#: loses the digits that keep the tip on the target); and largest shoulder coordinate, m.
MAX_COORDINATE = MAX_MAGNITUDE

#: Elbow branch choices understood by the solver.
ELBOW_CHOICES = ('up', 'down', 'nearest')

#: Names of the node parameters that ``ArmConfig`` mirrors, in declaration order.
PARAMETER_NAMES = (
    'link_lengths', 'joint_names', 'base_frame', 'plane', 'elbow',
    'joint_lower_limits', 'joint_upper_limits', 'allow_elbow_flip', 'out_of_plane_tolerance',
    'shoulder_position', 'joint_zero_angles', 'joint_directions',
)

#: The geometry parameters, which a URDF replaces (the rest are solving options and limits).
GEOMETRY_PARAMETERS = ('link_lengths', 'joint_names', 'plane', 'shoulder_position',
                       'joint_zero_angles', 'joint_directions')


class ArmConfigError(ConfigError):
    """An arm configuration value is invalid; the message starts with the parameter name."""


def is_real(value: Any) -> bool:
    """Whether ``value`` is an int or a float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def real_values(name: str, value: Any, what: str, count: int = 2) -> Tuple[float, ...]:
    """Return ``value`` as a tuple of ``count`` floats or raise ``ArmConfigError`` naming it."""
    if isinstance(value, (str, bytes)) or not hasattr(value, '__len__'):
        raise ArmConfigError(f'{name}: expected {what}, got {value!r}')
    items = list(value)
    if len(items) != count or not all(is_real(item) for item in items):
        raise ArmConfigError(f'{name}: expected {what}, got {items!r}')
    return tuple(float(item) for item in items)


def show_values(values) -> str:
    """``[0.1, 0.2]``: floats as a list, for messages."""
    return '[' + ', '.join(repr(float(v)) for v in values) + ']'


def checked_zero_angles(values: Any, count: int) -> Tuple[float, ...]:
    """``joint_zero_angles`` as ``count`` finite angles (rad), or ``ArmConfigError``."""
    what = f'{count} finite angles in radians, each within +-{MAX_JOINT_LIMIT:g}'
    angles = real_values('joint_zero_angles', values, what, count)
    if not all(math.isfinite(a) and abs(a) <= MAX_JOINT_LIMIT for a in angles):
        raise ArmConfigError(f'joint_zero_angles: expected {what}, got {show_values(angles)}')
    return angles


def checked_directions(values: Any, count: int) -> Tuple[int, ...]:
    """``joint_directions`` as ``count`` values of 1 or -1, or ``ArmConfigError``."""
    items = list(values) if hasattr(values, '__len__') and not isinstance(
        values, (str, bytes)) else None
    if (items is None or len(items) != count
            or not all(is_real(d) and d in (1, -1) and float(d).is_integer() for d in items)):
        raise ArmConfigError(
            f'joint_directions: expected {count} values, each 1 or -1, got {values!r}')
    return tuple(int(d) for d in items)


def checked_limits(lower: Any, upper: Any, joints: Sequence[str]):
    """``joint_lower_limits`` and ``joint_upper_limits`` for these joints, or ``ArmConfigError``.

    ``joints`` names them in messages (``shoulder``, ``elbow`` for a planar arm).
    """
    count = len(joints)
    what = f'{count} angles in radians (-.inf / .inf for unlimited)'
    lower = real_values('joint_lower_limits', lower, what, count)
    upper = real_values('joint_upper_limits', upper, what, count)
    if any(math.isnan(v) or v == math.inf for v in lower):
        raise ArmConfigError(
            f'joint_lower_limits: expected {count} angles below +inf, got {show_values(lower)}')
    if any(math.isnan(v) or v == -math.inf for v in upper):
        raise ArmConfigError(
            f'joint_upper_limits: expected {count} angles above -inf, got {show_values(upper)}')
    for i, joint in enumerate(joints):
        for name, side, value, infinite in (
                ('joint_lower_limits', 'lower', lower[i], '-.inf'),
                ('joint_upper_limits', 'upper', upper[i], '.inf')):
            if math.isfinite(value) and abs(value) > MAX_JOINT_LIMIT:
                raise ArmConfigError(
                    f'{name}: {joint} {side} limit {value:g} rad is beyond the supported '
                    f'+-{MAX_JOINT_LIMIT:g} rad (about 15 900 turns); use {infinite} for an '
                    'unlimited side')
        if lower[i] > upper[i]:
            raise ArmConfigError(
                f'joint_lower_limits: {joint} lower limit {lower[i]!r} is above its upper '
                f'limit {upper[i]!r} (joint_upper_limits)')
    return lower, upper


def parameters_of(values: Mapping[str, Any], names) -> dict:
    """Return the entries of ``values`` whose keys are in ``names`` (other settings ignored).

    Raises
    ------
    ArmConfigError
        If ``values`` is not a mapping.
    """
    if not isinstance(values, Mapping):
        raise ArmConfigError(f'ros__parameters: expected a mapping, got {values!r}')
    return {name: values[name] for name in names if name in values}


@dataclass(frozen=True)
class ArmConfig:
    """Validated configuration of one planar two-bone arm.

    Constructing an instance validates it (``ArmConfigError`` on the first bad
    field); sequences are normalised to tuples of floats or strings, so
    ``dataclasses.replace(config, elbow='down')`` is the way to try a change.

    Attributes
    ----------
    link_lengths : tuple of 2 float, metres
        Shoulder-to-elbow and elbow-to-tip lengths; non-negative, finite, not both 0.
    joint_names : tuple of 2 str
        Names of the shoulder and elbow joints, distinct and non-empty.
    base_frame : str
        Frame the shoulder sits at the origin of; targets must be expressed in it.
    plane : {'xy', 'xz', 'yz'}
        Axes (u, v) of ``base_frame`` that span the arm plane.
    elbow : {'up', 'down', 'nearest'}
        Preferred elbow branch (``'nearest'``: the one closer to the previous solution).
    joint_lower_limits, joint_upper_limits : tuple of 2 float, radians
        Joint limits; ``-inf`` / ``inf`` mean unlimited on that side; lower <= upper.
    allow_elbow_flip : bool
        Whether the solver may use the other elbow branch when the preferred one
        cannot reach the target within the limits.
    out_of_plane_tolerance : float, metres
        Off-plane distance up to which a target is ``PROJECTED`` (its projection reached) or
        reports its in-plane reason (``OUT_OF_REACH``, ...) rather than ``OFF_PLANE``; a target
        off the plane is never reached.
    shoulder_position : tuple of 3 float, metres
        Where the shoulder axis meets the plane the tip moves in, in ``base_frame``.
    joint_zero_angles : tuple of 2 float, radians
        Where each link points when its joint reads 0: link 1's angle from +u toward +v,
        link 2's angle relative to link 1.
    joint_directions : tuple of 2 int
        +1 when a positive joint reading turns the link from +u toward +v, else -1.

    The joint limits are in the arm's joint readings.

    Raises
    ------
    ArmConfigError
        If any field is invalid; the message starts with the field name.
    """

    link_lengths: Tuple[float, float] = (0.30, 0.25)
    joint_names: Tuple[str, str] = ('shoulder_joint', 'elbow_joint')
    base_frame: str = 'base_link'
    plane: str = 'xy'
    elbow: str = 'up'
    joint_lower_limits: Tuple[float, float] = (-math.inf, -math.inf)
    joint_upper_limits: Tuple[float, float] = (math.inf, math.inf)
    allow_elbow_flip: bool = True
    out_of_plane_tolerance: float = 0.001
    shoulder_position: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    joint_zero_angles: Tuple[float, float] = (0.0, 0.0)
    joint_directions: Tuple[int, int] = (1, 1)

    def __post_init__(self):
        self._set('link_lengths', self._checked_lengths())
        self._set('joint_names', self._checked_joint_names())
        self._set('base_frame', self._checked_base_frame())
        self._set('plane', self._checked_choice('plane', self.plane, tuple(PLANE_AXES)))
        self._set('elbow', self._checked_choice('elbow', self.elbow, ELBOW_CHOICES))
        lower, upper = self._checked_limits()
        self._set('joint_lower_limits', lower)
        self._set('joint_upper_limits', upper)
        if not isinstance(self.allow_elbow_flip, bool):
            raise ArmConfigError(
                f'allow_elbow_flip: expected true or false, got {self.allow_elbow_flip!r}')
        tolerance = self.out_of_plane_tolerance
        if not is_real(tolerance) or not math.isfinite(tolerance) or tolerance < 0.0:
            raise ArmConfigError(
                'out_of_plane_tolerance: expected a non-negative finite distance in metres, '
                f'got {tolerance!r}')
        self._set('out_of_plane_tolerance', float(tolerance))
        self._set('shoulder_position', self._checked_shoulder())
        self._set('joint_zero_angles', self._checked_zero_angles())
        self._set('joint_directions', self._checked_directions())

    def _checked_shoulder(self):
        what = f'3 finite coordinates in metres, each within +-{MAX_COORDINATE:g}'
        position = real_values('shoulder_position', self.shoulder_position, what, 3)
        if not all(math.isfinite(c) and abs(c) <= MAX_COORDINATE for c in position):
            raise ArmConfigError(f'shoulder_position: expected {what}, got '
                                 f'{show_values(position)}')
        return position

    def _checked_zero_angles(self):
        return checked_zero_angles(self.joint_zero_angles, 2)

    def _checked_directions(self):
        return checked_directions(self.joint_directions, 2)

    def _set(self, name, value):
        object.__setattr__(self, name, value)

    def _checked_lengths(self):
        what = '2 non-negative finite values'
        lengths = real_values('link_lengths', self.link_lengths, what, 2)
        if not all(math.isfinite(v) and v >= 0.0 for v in lengths):
            raise ArmConfigError(f'link_lengths: expected {what}, got {show_values(lengths)}')
        if lengths[0] + lengths[1] <= 0.0:
            raise ArmConfigError('link_lengths: at least one link must be longer than 0, got '
                                 f'{show_values(lengths)}')
        return lengths

    def _checked_joint_names(self):
        names = self.joint_names
        if isinstance(names, (str, bytes)) or not hasattr(names, '__len__'):
            raise ArmConfigError(f'joint_names: expected 2 joint names, got {names!r}')
        names = list(names)
        if len(names) != 2 or not all(isinstance(n, str) and n.strip() for n in names):
            raise ArmConfigError(f'joint_names: expected 2 non-empty names, got {names!r}')
        if names[0] == names[1]:
            raise ArmConfigError(f'joint_names: the 2 names must differ, got {names!r}')
        return (names[0], names[1])

    def _checked_base_frame(self):
        frame = self.base_frame
        if not isinstance(frame, str) or not frame.strip():
            raise ArmConfigError(f'base_frame: expected a non-empty frame id, got {frame!r}')
        return frame

    @staticmethod
    def _checked_choice(name, value, choices):
        if not isinstance(value, str) or value not in choices:
            raise ArmConfigError(
                f"{name}: expected one of {', '.join(choices)}, got {value!r}")
        return value

    def _checked_limits(self):
        return checked_limits(self.joint_lower_limits, self.joint_upper_limits,
                              ('shoulder', 'elbow'))

    @property
    def limits(self):
        """Joint limits in the solver's form.

        Returns
        -------
        tuple
            ``((lo1, hi1), (lo2, hi2))`` in radians; infinite where unlimited.
        """
        lower, upper = self.joint_lower_limits, self.joint_upper_limits
        return ((lower[0], upper[0]), (lower[1], upper[1]))

    @property
    def limited(self) -> bool:
        """Whether any joint limit is finite."""
        return any(math.isfinite(v) for v in self.joint_lower_limits + self.joint_upper_limits)

    @property
    def reach(self) -> Tuple[float, float]:
        """Inner and outer reach radius ``(|l1 - l2|, l1 + l2)`` in metres, ignoring limits."""
        l1, l2 = self.link_lengths
        return (abs(l1 - l2), l1 + l2)

    def as_parameters(self) -> dict:
        """Return the fields as a ``{parameter name: value}`` dict (lists for arrays)."""
        values = {}
        for name in PARAMETER_NAMES:
            value = getattr(self, name)
            values[name] = list(value) if isinstance(value, tuple) else value
        return values

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> 'ArmConfig':
        """Build a config from a ``{parameter name: value}`` mapping.

        Missing names keep their defaults; names that are not arm parameters are
        ignored (a params file may hold other settings such as ``use_sim_time``).

        Raises
        ------
        ArmConfigError
            If ``values`` is not a mapping or a value is invalid.
        """
        return cls(**parameters_of(values, PARAMETER_NAMES))
