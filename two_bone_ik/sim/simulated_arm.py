"""Which joints the simulated arm drives, and the URDF MuJoCo loads for it (ROS-free).

The arm comes from the IK node's parameters (the URDF generated from them: a planar pair's by
:func:`~two_bone_ik.arm.urdf_export.arm_urdf`, a desktop arm's by
:func:`~two_bone_ik.arm.urdf_export.desktop_urdf`) or from the user's URDF, chain
``base_frame`` -> ``tip_frame``, read by :func:`~two_bone_ik.arm.urdf_import.robot_chain` (the
IK node's reader: the same links, joints and refusals):

- a planar two-link arm is read as the IK node reads it
  (:func:`two_bone_ik.arm.urdf_import.arm_from_urdf`: two parallel revolute or continuous joints;
  a joint whose child is ``tip_frame`` after them only turns the tip and is held fixed);
- any other chain of 2 to 5 revolute or continuous joints (a desktop arm: base yaw, the pair, a
  wrist pitch and roll) gives every one of them, in chain order from ``base_frame`` to
  ``tip_frame``, whatever their axes: the simulation needs no more;
- besides the arm's joints, every revolute, continuous or prismatic joint below ``base_frame``
  that is off the chain and mimics no other (a gripper) is simulated too, commanded by name
  only; joints above ``base_frame`` and mimic joints are held fixed where the description puts
  them (robot_state_publisher computes mimic joints from their leader).

Angles are radians, prismatic positions metres.
"""

import math
from typing import Any, Collection, Mapping, NamedTuple, Sequence, Tuple, Union

from two_bone_ik.arm.config import ArmConfig, checked_limits
from two_bone_ik.arm.desktop_config import arm_config_from_mapping, desktop_geometry
from two_bone_ik.arm.desktop_config import DesktopConfig, given_arm_values, urdf_arm_options
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.arm.urdf_export import arm_urdf, desktop_urdf, TOOL_LINK
from two_bone_ik.arm.urdf_import import arm_from_urdf, parse_urdf, robot_chain, UrdfError
from two_bone_ik.sim.mujoco_urdf import urdf_for_mujoco

#: Most moving joints a simulated arm's chain may have (a base yaw, the pair, pitch and roll).
MAX_ARM_JOINTS = 5

_ACTUATED_OFF_CHAIN = ('revolute', 'continuous', 'prismatic')


class SimulatedArm(NamedTuple):
    """The joints a simulation drives and the model it loads.

    Attributes
    ----------
    joint_names : tuple of str
        The arm's joints, 2 to 5, in chain order from ``base_frame``: the order of
        ``initial_positions``, of a ``commands`` message and of ``joint_states``.
    base_frame : str
        The link ``tip_pose`` is expressed in.
    tip_frame : str
        The link whose origin ``tip_pose`` reports.
    lower_limits, upper_limits : tuple of float
        Per arm joint, limits that narrow the URDF's, rad; infinite for none.
    extra_joints : tuple of str
        Simulated joints off the chain (a gripper), after the arm's in ``joint_states``.
    urdf : str
        The URDF MuJoCo loads: generated, or the user's prepared by
        :func:`two_bone_ik.sim.mujoco_urdf.urdf_for_mujoco`.
    summary : str
        The arm in words, for the start-up line.
    """

    joint_names: Tuple[str, ...]
    base_frame: str
    tip_frame: str
    lower_limits: Tuple[float, ...]
    upper_limits: Tuple[float, ...]
    extra_joints: Tuple[str, ...]
    urdf: str
    summary: str

    @classmethod
    def from_geometry(cls, geometry: ArmGeometry, urdf: str = '') -> 'SimulatedArm':
        """Return the planar arm ``geometry``, simulated from ``urdf`` or a generated URDF.

        With ``urdf`` (the description ``geometry`` was read from, see
        :func:`two_bone_ik.arm.urdf_import.arm_from_urdf`) its joints off the chain are found
        as for :func:`simulated_arm`.
        """
        names = tuple(geometry.joint_names)
        if not urdf:
            return cls(names, geometry.base_frame, TOOL_LINK, tuple(geometry.lower_limits),
                       tuple(geometry.upper_limits), (), arm_urdf(geometry), geometry.describe())
        robot = parse_urdf(urdf)
        chain = robot_chain(robot, geometry.base_frame, geometry.tip_frame)
        extra = _off_chain_joints(robot, geometry.base_frame, chain.joints)
        return cls(names, geometry.base_frame, geometry.tip_frame,
                   tuple(geometry.lower_limits), tuple(geometry.upper_limits), extra,
                   urdf_for_mujoco(urdf, names + extra), geometry.describe())


def _below(robot, base_frame: str) -> list:
    """Return the links of the tree below ``base_frame`` (itself first), each once."""
    seen = {base_frame}
    order = [base_frame]
    for link in order:  # grows while walking: breadth first
        for _, child in robot.child_map.get(link, ()):
            if child not in seen:
                seen.add(child)
                order.append(child)
    return order


def _off_chain_joints(robot, base_frame: str, chain: Sequence) -> Tuple[str, ...]:
    """Names of the movable joints below ``base_frame``, off ``chain``, mimicking none."""
    below = set(_below(robot, base_frame))
    on_chain = {joint.name for joint in chain}
    return tuple(joint.name for joint in robot.joints
                 if joint.type in _ACTUATED_OFF_CHAIN and joint.parent in below
                 and joint.name not in on_chain and joint.mimic is None)


def _narrowing(lower: Sequence[float], upper: Sequence[float],
               joints: Sequence[str]) -> Tuple[Tuple[float, ...], Tuple[float, ...]]:
    """Return limits for ``joints`` that narrow a URDF's: all-infinite (or none) fit any count.

    Raises
    ------
    UrdfError
        If given limits are not one per joint; ``ArmConfigError`` if they are not angles.
    """
    count = len(joints)
    sides = []
    for name, limits, open_side in (('joint_lower_limits', lower, -math.inf),
                                    ('joint_upper_limits', upper, math.inf)):
        limits = tuple(float(v) for v in limits)
        if all(math.isinf(v) for v in limits):
            limits = (limits[0] if limits else open_side,) * count
        elif len(limits) != count:
            raise UrdfError(f'{name}: {len(limits)} values for an arm of {count} joints '
                            f"({', '.join(joints)}); give {count} or leave them unlimited")
        sides.append(limits)
    return checked_limits(sides[0], sides[1], joints)


def urdf_simulated_arm(robot_description: str, base_frame: str, tip_frame: str = '',
                       lower_limits: Sequence[float] = (),
                       upper_limits: Sequence[float] = ()) -> SimulatedArm:
    """Return the arm a simulation drives from a URDF (see the module docstring).

    Parameters
    ----------
    robot_description : str
        The URDF.
    base_frame : str
        The chain's root link.
    tip_frame : str
        The link whose origin is the tip; empty: the single end link below ``base_frame``.
    lower_limits, upper_limits : sequence of float
        Limits that narrow the URDF's, rad: one per moving joint of the chain, or all infinite
        (or none) for the URDF's own.

    Raises
    ------
    UrdfError
        If the description cannot be read, the chain holds a prismatic, floating or planar
        joint or other than 2 to 5 revolute or continuous ones, or the limits do not fit.
    """
    robot = parse_urdf(robot_description)
    chain = robot_chain(robot, base_frame, tip_frame)
    base, tip = chain.base_frame, chain.tip_frame
    moving = chain.moving_names
    if len(moving) in (2, 3):
        try:  # a planar arm, as the IK node reads it
            return SimulatedArm.from_geometry(
                arm_from_urdf(robot_description, base, tip, *_narrowing(
                    lower_limits, upper_limits, moving[:2])), robot_description)
        except UrdfError:
            if len(moving) == 2:
                raise
    if not 2 <= len(moving) <= MAX_ARM_JOINTS:
        raise UrdfError(
            f'robot_description: the chain from {base} to {tip} has {len(moving)} movable '
            f"joint(s){' (' + ', '.join(moving) + ')' if moving else ''}; 2 to "
            f'{MAX_ARM_JOINTS} (revolute or continuous) are needed')
    lower, upper = _narrowing(lower_limits, upper_limits, moving)
    extra = _off_chain_joints(robot, base, chain.joints)
    summary = f"{len(moving)} joints from '{base}' to '{tip}'"
    return SimulatedArm(moving, base, tip, lower, upper, extra,
                        urdf_for_mujoco(robot_description, moving + extra), summary)


def simulated_arm(config: Union[ArmConfig, DesktopConfig], robot_description: str = '',
                  tip_frame: str = '') -> SimulatedArm:
    """Return the arm a simulation drives (see the module docstring).

    Parameters
    ----------
    config : ArmConfig or DesktopConfig
        The arm's parameters: the whole arm without ``robot_description`` (a desktop arm's is
        simulated from the URDF :func:`two_bone_ik.arm.urdf_export.desktop_urdf` writes for
        it); with it only ``base_frame`` and the joint limits (which narrow the URDF's) apply.
    robot_description : str
        The user's URDF, or empty.
    tip_frame : str
        The link whose origin is the tip; empty: the single end link below ``base_frame``.

    Raises
    ------
    UrdfError
        As :func:`urdf_simulated_arm`.
    """
    if robot_description:
        return urdf_simulated_arm(robot_description, config.base_frame, tip_frame,
                                  config.joint_lower_limits, config.joint_upper_limits)
    if isinstance(config, DesktopConfig):
        arm = urdf_simulated_arm(desktop_urdf(config), config.base_frame, TOOL_LINK)
        return arm._replace(summary=desktop_geometry(config).describe())
    return SimulatedArm.from_geometry(ArmGeometry.from_config(config))


def arm_from_parameters(values: Mapping[str, Any], given: Collection[str]) -> SimulatedArm:
    """Return the simulated arm of the IK node's arm parameters, read as the IK node reads them.

    Parameters
    ----------
    values : mapping
        The arm parameters by name (``link_lengths``, ``joint_names``, ..., ``robot_description``,
        ``tip_frame``); others are ignored.
    given : collection of str
        The names given explicitly (the per-joint and shape parameters count only then; see
        :func:`~two_bone_ik.arm.desktop_config.given_arm_values`).

    Raises
    ------
    ConfigError
        If a value is invalid (the message starts with its name), or the arm cannot be
        simulated.
    """
    arm = given_arm_values(values, given)
    description = values.get('robot_description') or ''
    if description:
        config = urdf_arm_options(arm)
        return urdf_simulated_arm(description, config.base_frame, values.get('tip_frame') or '',
                                  arm.get('joint_lower_limits', ()),
                                  arm.get('joint_upper_limits', ()))
    return simulated_arm(arm_config_from_mapping(arm))
