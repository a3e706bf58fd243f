"""Arm configuration: the parameters that describe one two-bone arm, validated.

ROS-free, so the IK node, the URDF generator and the simulation all read the same
file the same way. The values mirror the node parameters one to one (see
``config/two_bone_ik.yaml``).

Plane convention: the arm moves in a plane spanned by two axes (u, v) of
``base_frame``. ``plane`` names them: ``'xy'`` (u = x, v = y), ``'xz'`` (u = x,
v = z) or ``'yz'`` (u = y, v = z). The joint axes point along u x v, and the
signed offset of a point from the plane is measured along that axis.
"""

from dataclasses import dataclass
import math
import re
from typing import Any, Mapping, Tuple

import yaml

#: Indices (into x, y, z) of the arm plane's u and v axes.
PLANE_AXES = {'xy': (0, 1), 'xz': (0, 2), 'yz': (1, 2)}

#: Elbow branch choices understood by the solver.
ELBOW_CHOICES = ('up', 'down', 'nearest')

#: Names of the node parameters that ``ArmConfig`` mirrors, in declaration order.
PARAMETER_NAMES = (
    'link_lengths', 'joint_names', 'base_frame', 'plane', 'elbow',
    'joint_lower_limits', 'joint_upper_limits', 'allow_elbow_flip', 'out_of_plane_tolerance',
)

#: Per plane: (index of the plane normal in x, y, z; sign of the joint axis u x v along it).
PLANE_NORMALS = {'xy': (2, 1.0), 'xz': (1, -1.0), 'yz': (0, 1.0)}


class _ParamsLoader(yaml.SafeLoader):
    """SafeLoader that also reads ``1e-3`` as a float, as the ROS params parser does."""


_ParamsLoader.add_implicit_resolver(
    'tag:yaml.org,2002:float',
    re.compile(r'^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$'),
    list('-+0123456789'))


class ArmConfigError(ValueError):
    """An arm configuration value is invalid; the message starts with the parameter name."""


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _pair_of_reals(name: str, value: Any, what: str) -> Tuple[float, float]:
    """Return ``value`` as a tuple of 2 floats or raise ``ArmConfigError`` naming ``name``."""
    if isinstance(value, (str, bytes)) or not hasattr(value, '__len__'):
        raise ArmConfigError(f'{name}: expected {what}, got {value!r}')
    items = list(value)
    if len(items) != 2 or not all(_is_real(item) for item in items):
        raise ArmConfigError(f'{name}: expected {what}, got {items!r}')
    return (float(items[0]), float(items[1]))


def _show(values) -> str:
    return '[' + ', '.join(repr(float(v)) for v in values) + ']'


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
        Targets further than this from the arm plane are reported ``OFF_PLANE``.

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
        if not _is_real(tolerance) or not math.isfinite(tolerance) or tolerance < 0.0:
            raise ArmConfigError(
                'out_of_plane_tolerance: expected a non-negative finite distance in metres, '
                f'got {tolerance!r}')
        self._set('out_of_plane_tolerance', float(tolerance))

    def _set(self, name, value):
        object.__setattr__(self, name, value)

    def _checked_lengths(self):
        what = '2 non-negative finite values'
        lengths = _pair_of_reals('link_lengths', self.link_lengths, what)
        if not all(math.isfinite(v) and v >= 0.0 for v in lengths):
            raise ArmConfigError(f'link_lengths: expected {what}, got {_show(lengths)}')
        if lengths[0] + lengths[1] <= 0.0:
            raise ArmConfigError(
                f'link_lengths: at least one link must be longer than 0, got {_show(lengths)}')
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
        what = '2 angles in radians (-.inf / .inf for unlimited)'
        lower = _pair_of_reals('joint_lower_limits', self.joint_lower_limits, what)
        upper = _pair_of_reals('joint_upper_limits', self.joint_upper_limits, what)
        if any(math.isnan(v) or v == math.inf for v in lower):
            raise ArmConfigError(
                f'joint_lower_limits: expected 2 angles below +inf, got {_show(lower)}')
        if any(math.isnan(v) or v == -math.inf for v in upper):
            raise ArmConfigError(
                f'joint_upper_limits: expected 2 angles above -inf, got {_show(upper)}')
        for i, joint in enumerate(('shoulder', 'elbow')):
            if lower[i] > upper[i]:
                raise ArmConfigError(
                    f'joint_lower_limits: {joint} lower limit {lower[i]!r} is above its upper '
                    f'limit {upper[i]!r} (joint_upper_limits)')
        return lower, upper

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
        if not isinstance(values, Mapping):
            raise ArmConfigError(f'ros__parameters: expected a mapping, got {values!r}')
        return cls(**{name: values[name] for name in PARAMETER_NAMES if name in values})


def load_arm_config(path, node_name: str = 'two_bone_ik') -> ArmConfig:
    """Read and validate the arm configuration from a ROS 2 parameters YAML file.

    Parameters
    ----------
    path : str or os.PathLike
        File laid out like ``node_name: {ros__parameters: {...}}``. Parameters under
        the ``/**`` wildcard key apply too; the node's own key wins over it. The
        node key may be written ``two_bone_ik``, ``/two_bone_ik`` or with a
        namespace (``/left_arm/two_bone_ik``); the first match is used.
    node_name : str
        Name of the node whose parameters to read.

    Returns
    -------
    ArmConfig

    Raises
    ------
    ArmConfigError
        If the file cannot be read or parsed, holds neither the node's key nor
        ``/**``, or a value is invalid.
    """
    try:
        with open(path, encoding='utf-8') as stream:
            document = yaml.load(stream, Loader=_ParamsLoader)
    except (OSError, yaml.YAMLError) as error:
        reason = str(error).replace('\n', ' ')
        raise ArmConfigError(f'params file {str(path)!r}: {reason}') from None
    if not isinstance(document, dict):
        raise ArmConfigError(f'params file {str(path)!r}: expected a mapping of node names')
    bare = node_name.strip('/').split('/')[-1]
    sections = []
    for key in ('/**', '**'):
        if key in document:
            sections.append((key, document[key]))
    for key, section in document.items():
        if isinstance(key, str) and key.strip('/').split('/')[-1] == bare:
            sections.append((key, section))
            break
    if not sections:
        raise ArmConfigError(
            f'params file {str(path)!r}: no section for node {node_name!r} or /**')
    values = {}
    for key, section in sections:
        if not isinstance(section, dict) or not isinstance(section.get('ros__parameters'), dict):
            raise ArmConfigError(
                f'params file {str(path)!r}: {key}: expected a ros__parameters mapping')
        values.update(section['ros__parameters'])
    return ArmConfig.from_mapping(values)


def to_plane(xyz, plane: str) -> Tuple[float, float, float]:
    """Express a point of ``base_frame`` in the arm plane.

    Parameters
    ----------
    xyz : sequence of 3 float, metres
        Point in ``base_frame``.
    plane : {'xy', 'xz', 'yz'}

    Returns
    -------
    tuple of 3 float, metres
        ``(u, v, off_plane)``: in-plane coordinates and the signed offset from the
        plane along the joint axis u x v.
    """
    iu, iv = PLANE_AXES[plane]
    normal, sign = PLANE_NORMALS[plane]
    return (float(xyz[iu]), float(xyz[iv]), sign * float(xyz[normal]))


def from_plane(u: float, v: float, plane: str) -> Tuple[float, float, float]:
    """Return the point ``(x, y, z)`` of ``base_frame`` at plane coordinates (u, v), metres."""
    xyz = [0.0, 0.0, 0.0]
    iu, iv = PLANE_AXES[plane]
    xyz[iu] = float(u)
    xyz[iv] = float(v)
    return (xyz[0], xyz[1], xyz[2])


def joint_axis(plane: str) -> Tuple[float, float, float]:
    """Return the unit joint axis u x v in ``base_frame`` (xy: +z, xz: -y, yz: +x)."""
    normal, sign = PLANE_NORMALS[plane]
    axis = [0.0, 0.0, 0.0]
    axis[normal] = sign
    return (axis[0], axis[1], axis[2])
