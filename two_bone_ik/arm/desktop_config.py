"""A desktop arm described by parameters (no URDF), validated, and its kinematic chain (no ROS).

The sibling of :class:`~two_bone_ik.arm.config.ArmConfig` for 3 to 5 joints: the same
parameters where they mean the same (``link_lengths``, ``base_frame``, ``plane``, ``elbow``,
``allow_elbow_flip``, ``out_of_plane_tolerance``, ``shoulder_position``), the per-joint ones with
N values (``joint_names``, ``joint_zero_angles``, ``joint_directions``, ``joint_lower_limits``,
``joint_upper_limits``), four new ones (``arm_shape``, ``tool_offset``, ``use_orientation``,
``approach_pitch``) and the gripper the arm's description carries (``gripper_joint``,
``gripper_limits``: a jaw off the chain, which the IK never moves). A two-joint arm stays an
``ArmConfig`` (:func:`arm_config_from_mapping` picks by the number of joint names).

The arm, in the plane (u, v) that ``plane`` names (normal ``u x v``, as for a planar arm):

- the yaw (first joint of a yaw shape) turns about +v through ``base_frame``'s origin; at
  reading 0 the arm faces ``joint_zero_angles[0]`` from +u, turned about +v;
  ``shoulder_position`` is where the shoulder axis meets the arm's plane with the arm facing +u
  (its normal coordinate is the plane's offset from the yaw axis);
- the pair as for a planar arm (link 1's angle from +u and link 2's relative to link 1 at zero
  readings, directions along the normal);
- the pitch at the end of link 2: ``joint_zero_angles`` gives the approach direction relative to
  link 2 at reading 0;
- the roll about the approach direction through the wrist pitch axis: ``joint_zero_angles``
  gives the turn at reading 0 (right hand about the approach; ``joint_directions`` +1 turns
  that way);
- the tool point at ``tool_offset`` from the wrist pitch axis, in the hand's frame: x along the
  approach, z along the normal, y = z x x (so [along, across toward +v when the approach is +u,
  aside]), turned by the roll; the tip frame has those axes. Without a pitch joint link 2 ends
  at the tool point and ``tool_offset`` must be 0.

:func:`desktop_chain` writes this arm as a :class:`~two_bone_ik.arm.chain.KinematicChain`, so a
URDF of it (:func:`two_bone_ik.arm.urdf_export.desktop_urdf`) and the parameters give the same
arm; :func:`desktop_geometry` reads it back through the desktop shape reader.
"""

from dataclasses import dataclass
import math
from typing import Any, Collection, Mapping, Optional, Tuple, Union

from two_bone_ik.arm.chain import ChainJoint, KinematicChain, rpy_of
from two_bone_ik.arm.config import (
    ArmConfig, ArmConfigError, checked_directions, checked_limits, checked_zero_angles,
    is_real, PARAMETER_NAMES, parameters_of, real_values, show_values)
from two_bone_ik.arm.desktop_geometry import desktop_from_chain, DesktopGeometry
from two_bone_ik.arm.geometry import cross
from two_bone_ik.arm.plane import PLANE_AXES
from two_bone_ik.solver.chain_kinematics import rotation_about
from two_bone_ik.solver.desktop_model import (
    PAIR_PITCH, SHAPES, YAW_PAIR, YAW_PAIR_PITCH, YAW_PAIR_PITCH_ROLL)
from two_bone_ik.solver.validation import MAX_JOINT_LIMIT

#: Names of the node parameters a desktop arm reads, in declaration order.
DESKTOP_PARAMETER_NAMES = PARAMETER_NAMES + (
    'arm_shape', 'tool_offset', 'use_orientation', 'approach_pitch', 'gripper_joint',
    'gripper_limits', 'allow_reach_back')

#: Parameters a node passes on only when given (see :func:`given_arm_values`).
GIVEN_ONLY = ('joint_zero_angles', 'joint_directions', 'joint_lower_limits',
              'joint_upper_limits', 'plane', 'arm_shape', 'tool_offset')

#: The shape of each joint count when ``arm_shape`` is empty (3 joints need it).
DEFAULT_SHAPES = {4: YAW_PAIR_PITCH, 5: YAW_PAIR_PITCH_ROLL}

#: Names of the generated links: after the yaw, the pair, the pitch, the roll; the tool.
LINKS = {'yaw': 'turntable', 'shoulder': 'link1', 'elbow': 'link2', 'pitch': 'wrist',
         'roll': 'hand'}
TOOL_LINK = 'tool'
TOOL_JOINT = 'tool_joint'

_ROLES = {YAW_PAIR: ('yaw', 'shoulder', 'elbow'), PAIR_PITCH: ('shoulder', 'elbow', 'pitch'),
          YAW_PAIR_PITCH: ('yaw', 'shoulder', 'elbow', 'pitch'),
          YAW_PAIR_PITCH_ROLL: ('yaw', 'shoulder', 'elbow', 'pitch', 'roll')}


def _names(value: Any) -> Tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not hasattr(value, '__len__'):
        raise ArmConfigError(f'joint_names: expected 3 to 5 joint names, got {value!r}')
    names = list(value)
    if not 3 <= len(names) <= 5 or not all(isinstance(n, str) and n.strip() for n in names):
        raise ArmConfigError(f'joint_names: expected 3 to 5 non-empty names, got {names!r}')
    if len(set(names)) != len(names):
        raise ArmConfigError(f'joint_names: the names must differ, got {names!r}')
    return tuple(names)


@dataclass(frozen=True)
class DesktopConfig:
    """Validated parameters of one desktop arm (3 to 5 joints).

    Attributes not listed mean what they mean in :class:`~two_bone_ik.arm.config.ArmConfig`
    (the pair's lengths, frame, plane, solving options). Per-joint tuples have N values, in
    chain order; ``None`` (the default) gives N zeros, +1s or unlimited sides.

    Attributes
    ----------
    joint_names : tuple of N str
    arm_shape : str
        ``'yaw + pair'``, ``'pair + pitch'``, ``'yaw + pair + pitch'``,
        ``'yaw + pair + pitch + roll'``; empty: from the joint count (4 and 5 joints; 3 joints
        need it).
    tool_offset : tuple of 3 float, m
        The tool point from the wrist pitch axis, in the hand's frame (see the module);
        ``None``: 5 cm along the approach (zeros without a pitch joint).
    use_orientation : bool
        Command the pitch and roll of each target's orientation.
    approach_pitch : float, rad
        Preferred approach pitch without ``use_orientation``, in [-pi, pi].
    allow_reach_back : bool
        Without ``use_orientation``: whether a target only the arm reaching back over the yaw
        axis reaches is reached that way (else ``JOINT_LIMITED``).
    gripper_joint : str
        A gripper's jaw joint, off the chain: the URDF of these parameters holds it
        (:func:`two_bone_ik.arm.urdf_export.desktop_urdf`), so a simulation of that URDF moves
        it and RViz shows it; the IK never commands it. Empty: none.
    gripper_limits : tuple of 2 float, rad
        The jaw joint's lower and upper limits; ``-inf`` / ``inf`` for an open side.

    Raises
    ------
    ArmConfigError
        If any field is invalid; the message starts with the parameter name.
    """

    joint_names: Tuple[str, ...] = ('base_yaw', 'shoulder_joint', 'elbow_joint', 'wrist_pitch')
    arm_shape: str = ''
    link_lengths: Tuple[float, float] = (0.30, 0.25)
    base_frame: str = 'base_link'
    plane: str = 'xz'
    elbow: str = 'up'
    joint_lower_limits: Optional[Tuple[float, ...]] = None
    joint_upper_limits: Optional[Tuple[float, ...]] = None
    allow_elbow_flip: bool = True
    out_of_plane_tolerance: float = 0.001
    shoulder_position: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    joint_zero_angles: Optional[Tuple[float, ...]] = None
    joint_directions: Optional[Tuple[int, ...]] = None
    tool_offset: Optional[Tuple[float, float, float]] = None
    use_orientation: bool = False
    approach_pitch: float = 0.0
    gripper_joint: str = ''
    gripper_limits: Tuple[float, float] = (-math.inf, math.inf)
    allow_reach_back: bool = True

    def __post_init__(self):
        names = _names(self.joint_names)
        count = len(names)
        self._set('joint_names', names)
        self._set('arm_shape', self._checked_shape(count))
        zeros = checked_zero_angles(
            (0.0,) * count if self.joint_zero_angles is None else self.joint_zero_angles, count)
        directions = checked_directions(
            (1,) * count if self.joint_directions is None else self.joint_directions, count)
        lower, upper = checked_limits(
            (-math.inf,) * count if self.joint_lower_limits is None else self.joint_lower_limits,
            (math.inf,) * count if self.joint_upper_limits is None else self.joint_upper_limits,
            names)
        self._set('joint_zero_angles', zeros)
        self._set('joint_directions', directions)
        self._set('joint_lower_limits', lower)
        self._set('joint_upper_limits', upper)
        pair = self.roles.index('shoulder')
        # The fields an ArmConfig shares, validated by it (same messages).
        shared = ArmConfig(
            link_lengths=self.link_lengths, joint_names=names[pair:pair + 2],
            base_frame=self.base_frame, plane=self.plane, elbow=self.elbow,
            joint_lower_limits=lower[pair:pair + 2], joint_upper_limits=upper[pair:pair + 2],
            allow_elbow_flip=self.allow_elbow_flip,
            out_of_plane_tolerance=self.out_of_plane_tolerance,
            shoulder_position=self.shoulder_position, joint_zero_angles=zeros[pair:pair + 2],
            joint_directions=directions[pair:pair + 2])
        for name in ('link_lengths', 'base_frame', 'out_of_plane_tolerance',
                     'shoulder_position'):
            self._set(name, getattr(shared, name))
        self._set('tool_offset', self._checked_tool())
        for name in ('use_orientation', 'allow_reach_back'):
            if not isinstance(getattr(self, name), bool):
                raise ArmConfigError(
                    f'{name}: expected true or false, got {getattr(self, name)!r}')
        pitch = self.approach_pitch
        if not is_real(pitch) or not -math.pi <= pitch <= math.pi:
            raise ArmConfigError(
                f'approach_pitch: expected an angle in radians within [-pi, pi], got {pitch!r}')
        self._set('approach_pitch', float(pitch))
        self._set('gripper_joint', self._checked_gripper())
        self._set('gripper_limits', self._checked_gripper_limits())

    def _set(self, name, value):
        object.__setattr__(self, name, value)

    def _checked_shape(self, count: int) -> str:
        shape = self.arm_shape
        if shape == '':
            if count not in DEFAULT_SHAPES:
                raise ArmConfigError(
                    f"arm_shape: 3 joint names fit '{YAW_PAIR}' and '{PAIR_PITCH}'; set "
                    'arm_shape to one of them')
            return DEFAULT_SHAPES[count]
        if shape not in SHAPES:
            raise ArmConfigError(f"arm_shape: expected one of {', '.join(SHAPES)}, got {shape!r}")
        if len(_ROLES[shape]) != count:
            raise ArmConfigError(f"arm_shape: '{shape}' has {len(_ROLES[shape])} joints, but "
                                 f'joint_names has {count}')
        return shape

    def _checked_tool(self) -> Tuple[float, float, float]:
        what = '3 finite distances in metres'
        offset = self.tool_offset
        if offset is None:
            offset = (0.05, 0.0, 0.0) if 'pitch' in self.roles else (0.0, 0.0, 0.0)
        offset = real_values('tool_offset', offset, what, 3)
        if not all(math.isfinite(v) for v in offset):
            raise ArmConfigError(f'tool_offset: expected {what}, got {show_values(offset)}')
        if 'pitch' not in self.roles and any(offset):
            raise ArmConfigError(
                f"tool_offset: a '{self.arm_shape}' arm has no wrist, link 2 ends at the tool "
                f'point; expected [0.0, 0.0, 0.0], got {show_values(offset)}')
        if 'pitch' in self.roles and math.hypot(offset[0], offset[1]) <= 0.0:
            raise ArmConfigError(
                'tool_offset: the tool point must be off the wrist pitch axis (along or across '
                f'the approach) for it to have an approach pitch, got {show_values(offset)}')
        return offset

    def _checked_gripper(self) -> str:
        name = self.gripper_joint
        if not isinstance(name, str) or name != name.strip():
            raise ArmConfigError(f'gripper_joint: expected a joint name or empty, got {name!r}')
        if name in self.joint_names:
            raise ArmConfigError(f'gripper_joint: {name!r} is one of joint_names (the chain); '
                                 'the gripper is a joint off it')
        return name

    def _checked_gripper_limits(self) -> Tuple[float, float]:
        what = ('2 angles in radians, lower <= upper, each within '
                f'+-{MAX_JOINT_LIMIT:g} (-.inf / .inf for an open side)')
        lower, upper = real_values('gripper_limits', self.gripper_limits, what)
        if not (-math.inf <= lower <= upper <= math.inf) or math.inf in (lower, -upper) or any(
                math.isfinite(v) and abs(v) > MAX_JOINT_LIMIT for v in (lower, upper)):
            raise ArmConfigError(f'gripper_limits: expected {what}, got '
                                 f'{show_values((lower, upper))}')
        return lower, upper

    @property
    def roles(self) -> Tuple[str, ...]:
        """Per joint: ``'yaw'``, ``'shoulder'``, ``'elbow'``, ``'pitch'`` or ``'roll'``."""
        return _ROLES[self.arm_shape]

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> 'DesktopConfig':
        """Build it from ``{parameter name: value}``; other names are ignored.

        Raises
        ------
        ArmConfigError
            If ``values`` is not a mapping or a value is invalid.
        """
        return cls(**parameters_of(values, DESKTOP_PARAMETER_NAMES))


def arm_config_from_mapping(values: Mapping[str, Any]) -> Union[ArmConfig, DesktopConfig]:
    """Return an ``ArmConfig`` for two joint names (or none given), else a ``DesktopConfig``.

    Raises
    ------
    ArmConfigError
        If a value is invalid.
    """
    names = values.get('joint_names') if isinstance(values, Mapping) else None
    if names is None or (hasattr(names, '__len__') and not isinstance(names, (str, bytes))
                         and len(names) == 2):
        return ArmConfig.from_mapping(values)
    return DesktopConfig.from_mapping(values)


def given_arm_values(values: Mapping[str, Any], given: Collection[str]) -> dict:
    """Return the arm parameters of ``values``, those of :data:`GIVEN_ONLY` only when given.

    A node declares the per-joint and shape parameters with a planar pair's defaults (two
    values, plane ``xy``, no shape); an arm of N joints takes N zeros, +1s and open sides, and a
    desktop arm plane ``xz``, instead, unless they are given.

    Parameters
    ----------
    values : mapping
        Parameter values by name (others than the arm's are dropped).
    given : collection of str
        The names given explicitly (params file, command line), not declared defaults.
    """
    return {name: value for name, value in values.items()
            if name in DESKTOP_PARAMETER_NAMES and (name in given or name not in GIVEN_ONLY)}


def urdf_arm_options(values: Mapping[str, Any]) -> ArmConfig:
    """Return the config of an arm whose geometry comes from a URDF: its frame and options.

    The geometry, the names and the per-joint parameters (:data:`GIVEN_ONLY`) stay at their
    defaults: the URDF gives them (given joint limits narrow the URDF's, one per joint).

    Raises
    ------
    ArmConfigError
        If ``base_frame`` or a solving option is invalid.
    """
    return ArmConfig.from_mapping({
        name: value for name, value in values.items()
        if name in PARAMETER_NAMES and name not in GIVEN_ONLY + ('joint_names', 'link_lengths')})


def desktop_chain(config: DesktopConfig) -> KinematicChain:
    """Return the chain of a desktop arm's parameters (see the module), ``base_frame`` to ``tool``.

    Joints: the configured ones (revolute with the configured limits, continuous where both
    sides are open) and the fixed ``tool_joint``. Links: ``turntable``, ``link1``, ``link2``,
    ``wrist``, ``hand`` (those the shape has), ``tool``. The turntable's frame is
    ``base_frame`` turned about +v by the yaw's zero angle, so the shoulder sits at
    ``shoulder_position`` in it.
    """
    iu, iv = PLANE_AXES[config.plane]
    u = tuple(1.0 if k == iu else 0.0 for k in range(3))
    v = tuple(1.0 if k == iv else 0.0 for k in range(3))
    normal = cross(u, v)
    l1, l2 = config.link_lengths
    joints = []
    parent = config.base_frame
    for index, role in enumerate(config.roles):
        zero, sign = config.joint_zero_angles[index], float(config.joint_directions[index])
        if role == 'yaw':
            turn = rotation_about(v, zero)
            xyz, rpy = (0.0, 0.0, 0.0), rpy_of(turn[0::3], turn[2::3])
            axis = (sign * v[0], sign * v[1], sign * v[2])
        elif role == 'shoulder':
            x_link1 = tuple(math.cos(zero) * a + math.sin(zero) * b for a, b in zip(u, v))
            xyz, rpy, axis = config.shoulder_position, rpy_of(x_link1, normal), (0.0, 0.0, sign)
        elif role in ('elbow', 'pitch'):
            length = l1 if role == 'elbow' else l2
            xyz, rpy, axis = (length, 0.0, 0.0), (0.0, 0.0, zero), (0.0, 0.0, sign)
        else:
            xyz, rpy, axis = (0.0, 0.0, 0.0), (zero, 0.0, 0.0), (sign, 0.0, 0.0)
        lower, upper = config.joint_lower_limits[index], config.joint_upper_limits[index]
        kind = 'continuous' if lower == -math.inf and upper == math.inf else 'revolute'
        joints.append(ChainJoint(config.joint_names[index], kind, parent, LINKS[role], xyz, rpy,
                                 axis, lower, upper))
        parent = LINKS[role]
    tool_xyz = config.tool_offset if 'pitch' in config.roles else (l2, 0.0, 0.0)
    joints.append(ChainJoint(TOOL_JOINT, 'fixed', parent, TOOL_LINK, tool_xyz))
    return KinematicChain(config.base_frame, TOOL_LINK, tuple(joints))


def desktop_geometry(config: DesktopConfig) -> DesktopGeometry:
    """Return the geometry of a desktop arm's parameters (its chain read like a URDF's)."""
    return desktop_from_chain(desktop_chain(config))
