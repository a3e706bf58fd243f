"""URDF description of a two-bone arm, generated from the same parameters the IK node uses.

The arm has one link per bone and two revolute joints about the plane's joint axis u x v:

``base_frame`` --(joint_names[0] at the origin)--> ``link1`` --(joint_names[1] at l1 * u)-->
``link2`` --(fixed ``tool_joint`` at l2 * u)--> ``tool``.

At zero joint angles both links point along +u, so the ``tool`` origin is exactly
``from_plane(*forward(q1, q2, l1, l2), plane)`` for any joint angles (the solver's convention).

Joint limits come from the configuration. URDF cannot express a half-open range, so:

- both sides infinite: the joint is ``continuous`` (no position limits);
- one side infinite: the joint is ``revolute`` and the open side is placed two full turns
  (4 pi rad) beyond the finite one, which covers every orientation with room to spare.

The generated file also carries a ``<mujoco><compiler .../></mujoco>`` block, an extension that
MuJoCo's URDF importer reads and other URDF consumers (robot_state_publisher, RViz, Gazebo) ignore:
it keeps the ``tool`` frame and the visual geometry, which MuJoCo would otherwise fuse away and
discard. The command line tool :mod:`two_bone_ik.nodes.urdf_command` prints it::

    two_bone_ik_urdf --params-file config/two_bone_ik.yaml > arm.urdf
"""

import math
from typing import Optional, Sequence, Tuple
from xml.sax.saxutils import quoteattr

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.plane import joint_axis
from two_bone_ik.arm.plane import PLANE_AXES

#: Names of the generated links and of the fixed joint to the tool frame.
LINK_NAMES = ('link1', 'link2')
TOOL_LINK = 'tool'
TOOL_JOINT = 'tool_joint'

#: Default physical properties of the generated links.
MAX_LINK_RADIUS = 0.02  # m, default link radius of an arm longer than 0.5 m
LINK_RADIUS_PER_REACH = 0.04  # default link radius of smaller arms, per metre of reach l1 + l2
DEFAULT_LINEAR_DENSITY = 2.0  # kg/m, a light aluminium tube with its wiring
DEFAULT_MIN_LINK_MASS = 0.05  # kg, so that even a zero-length link has a mass
DEFAULT_EFFORT = 20.0  # N m, URDF <limit effort>
DEFAULT_VELOCITY = 6.0  # rad/s, URDF <limit velocity>

#: How far beyond its finite side a half-open joint range is closed, rad.
OPEN_SIDE_SPAN = 2.0 * math.tau


def _num(value: float) -> str:
    """Format a float so that it reads back exactly (repr is round-trip safe)."""
    value = float(value)
    if value == 0.0:
        return '0'
    return repr(value)


def _vec(values: Sequence[float]) -> str:
    return ' '.join(_num(v) for v in values)


def _unit(index: int) -> Tuple[float, float, float]:
    out = [0.0, 0.0, 0.0]
    out[index] = 1.0
    return tuple(out)


def _rpy_z_to(index: int) -> Tuple[float, float, float]:
    """Roll-pitch-yaw that turns a URDF cylinder's local z axis onto axis ``index`` (0=x)."""
    if index == 0:
        return (0.0, math.pi / 2.0, 0.0)
    if index == 1:
        return (-math.pi / 2.0, 0.0, 0.0)
    return (0.0, 0.0, 0.0)


def urdf_joint_limits(lower: float, upper: float) -> Optional[Tuple[float, float]]:
    """Position limits written to the URDF for one joint.

    Parameters
    ----------
    lower, upper : float
        Joint limits from the configuration, rad; ``-inf`` / ``+inf`` mean unlimited.

    Returns
    -------
    tuple of 2 float or None
        ``None`` for a joint unlimited on both sides (written as ``continuous``); otherwise
        finite ``(lower, upper)`` in rad, with an open side placed ``OPEN_SIDE_SPAN`` beyond
        the finite one.
    """
    lower, upper = float(lower), float(upper)
    if math.isinf(lower) and math.isinf(upper):
        return None
    if math.isinf(lower):
        lower = upper - OPEN_SIDE_SPAN
    if math.isinf(upper):
        upper = lower + OPEN_SIDE_SPAN
    return (lower, upper)


def _link_inertial(length: float, radius: float, mass: float, u: int) -> str:
    """Inertial block of a solid cylinder along axis ``u`` from the link origin to ``length``."""
    axial = 0.5 * mass * radius ** 2
    transverse = mass * (3.0 * radius ** 2 + length ** 2) / 12.0
    diag = [transverse, transverse, transverse]
    diag[u] = axial
    com = [0.0, 0.0, 0.0]
    com[u] = 0.5 * length
    return (
        '    <inertial>\n'
        f'      <origin xyz="{_vec(com)}" rpy="0 0 0"/>\n'
        f'      <mass value="{_num(mass)}"/>\n'
        f'      <inertia ixx="{_num(diag[0])}" ixy="0" ixz="0" iyy="{_num(diag[1])}" iyz="0"'
        f' izz="{_num(diag[2])}"/>\n'
        '    </inertial>\n'
    )


def _cylinder_visual(xyz, rpy, radius: float, length: float, material: str) -> str:
    return (
        '    <visual>\n'
        f'      <origin xyz="{_vec(xyz)}" rpy="{_vec(rpy)}"/>\n'
        f'      <geometry><cylinder radius="{_num(radius)}" length="{_num(length)}"/></geometry>\n'
        f'      <material name="{material}"/>\n'
        '    </visual>\n'
    )


def default_link_radius(config: ArmConfig) -> float:
    """Link radius used when none is given: slim for small arms, m."""
    return min(MAX_LINK_RADIUS, LINK_RADIUS_PER_REACH * sum(config.link_lengths))


def arm_urdf(config: ArmConfig, robot_name: str = 'two_bone_arm',
             link_radius: Optional[float] = None,
             linear_density: float = DEFAULT_LINEAR_DENSITY,
             effort: float = DEFAULT_EFFORT, velocity: float = DEFAULT_VELOCITY,
             mujoco_extension: bool = True) -> str:
    """Generate the URDF of a two-bone arm.

    Parameters
    ----------
    config : ArmConfig
        Arm geometry: link lengths (m), joint names, base frame, plane and joint limits (rad).
    robot_name : str
        ``<robot name>``.
    link_radius : float, optional
        Radius of the links' cylinders, m (visual and inertia); default
        ``default_link_radius(config)``.
    linear_density : float
        Mass per length of the links, kg/m; each link weighs at least
        ``DEFAULT_MIN_LINK_MASS`` kg.
    effort : float
        ``<limit effort>`` of both joints, N m. Informative for URDF consumers; MuJoCo's importer
        turns it into an actuator force range (``two_bone_ik.sim`` does not apply it).
    velocity : float
        ``<limit velocity>`` of both joints, rad/s.
    mujoco_extension : bool
        Add the ``<mujoco><compiler fusestatic="false" discardvisual="false"/></mujoco>`` block
        so that MuJoCo keeps the ``tool`` body and the visual geometry.

    Returns
    -------
    str
        The URDF document.

    Raises
    ------
    ValueError
        If ``link_radius``, ``linear_density``, ``effort`` or ``velocity`` is not a positive
        finite number, or a configured name clashes with a generated one.
    """
    if link_radius is None:
        link_radius = default_link_radius(config)
    for name, value in (('link_radius', link_radius), ('linear_density', linear_density),
                        ('effort', effort), ('velocity', velocity)):
        if not (math.isfinite(value) and value > 0.0):
            raise ValueError(f'{name}: expected a positive finite number, got {value!r}')
    if config.base_frame in LINK_NAMES + (TOOL_LINK,):
        raise ValueError(f'base_frame: {config.base_frame!r} clashes with a generated link name '
                         f'{LINK_NAMES + (TOOL_LINK,)}')
    if TOOL_JOINT in config.joint_names:
        raise ValueError(f'joint_names: {TOOL_JOINT!r} is the name of the generated fixed joint')
    u_index, _ = PLANE_AXES[config.plane]
    u = _unit(u_index)
    axis = joint_axis(config.plane)
    axis_index = max(range(3), key=lambda i: abs(axis[i]))
    lengths = [float(v) for v in config.link_lengths]
    masses = [max(linear_density * length, DEFAULT_MIN_LINK_MASS) for length in lengths]
    hub_radius = 1.5 * link_radius
    hub_length = 3.0 * link_radius

    parts = ['<?xml version="1.0"?>\n',
             '<!-- Generated by two_bone_ik_urdf from the arm configuration; do not edit. -->\n',
             f'<robot name={quoteattr(robot_name)}>\n']
    if mujoco_extension:
        parts.append(
            '  <!-- Read by MuJoCo only (ignored by other URDF parsers): keep the tool frame\n'
            '       and the visual geometry. -->\n'
            '  <mujoco>\n'
            '    <compiler fusestatic="false" discardvisual="false"/>\n'
            '  </mujoco>\n')
    parts.append('  <material name="base_grey"><color rgba="0.35 0.35 0.38 1"/></material>\n'
                 '  <material name="link_blue"><color rgba="0.20 0.45 0.80 1"/></material>\n'
                 '  <material name="joint_dark"><color rgba="0.15 0.15 0.15 1"/></material>\n'
                 '  <material name="tool_orange"><color rgba="0.95 0.55 0.10 1"/></material>\n')

    # Base: a pedestal around the shoulder axis; no inertial block (KDL warns about a root
    # link with inertia, and the base is fixed anyway).
    parts.append(f'  <link name={quoteattr(config.base_frame)}>\n')
    parts.append(_cylinder_visual((0.0, 0.0, 0.0), _rpy_z_to(axis_index), 2.0 * link_radius,
                                  2.0 * link_radius, 'base_grey'))
    parts.append('  </link>\n')

    parents = [config.base_frame, LINK_NAMES[0]]
    origins = [(0.0, 0.0, 0.0), tuple(lengths[0] * c for c in u)]
    for i in range(2):
        limits = urdf_joint_limits(config.joint_lower_limits[i], config.joint_upper_limits[i])
        kind = 'continuous' if limits is None else 'revolute'
        parts.append(f'  <joint name={quoteattr(config.joint_names[i])} type="{kind}">\n'
                     f'    <parent link={quoteattr(parents[i])}/>\n'
                     f'    <child link="{LINK_NAMES[i]}"/>\n'
                     f'    <origin xyz="{_vec(origins[i])}" rpy="0 0 0"/>\n'
                     f'    <axis xyz="{_vec(axis)}"/>\n')
        if limits is None:
            parts.append(f'    <limit effort="{_num(effort)}" velocity="{_num(velocity)}"/>\n')
        else:
            parts.append(f'    <limit lower="{_num(limits[0])}" upper="{_num(limits[1])}"'
                         f' effort="{_num(effort)}" velocity="{_num(velocity)}"/>\n')
        parts.append('  </joint>\n')

        parts.append(f'  <link name="{LINK_NAMES[i]}">\n')
        parts.append(_link_inertial(lengths[i], link_radius, masses[i], u_index))
        parts.append(_cylinder_visual((0.0, 0.0, 0.0), _rpy_z_to(axis_index), hub_radius,
                                      hub_length, 'joint_dark'))
        if lengths[i] > 0.0:
            center = tuple(0.5 * lengths[i] * c for c in u)
            parts.append(_cylinder_visual(center, _rpy_z_to(u_index), link_radius, lengths[i],
                                          'link_blue'))
        parts.append('  </link>\n')

    parts.append(f'  <joint name="{TOOL_JOINT}" type="fixed">\n'
                 f'    <parent link="{LINK_NAMES[1]}"/>\n'
                 f'    <child link="{TOOL_LINK}"/>\n'
                 f'    <origin xyz="{_vec(tuple(lengths[1] * c for c in u))}" rpy="0 0 0"/>\n'
                 '  </joint>\n')
    parts.append(f'  <link name="{TOOL_LINK}">\n'
                 '    <visual>\n'
                 '      <origin xyz="0 0 0" rpy="0 0 0"/>\n'
                 f'      <geometry><sphere radius="{_num(1.2 * link_radius)}"/></geometry>\n'
                 '      <material name="tool_orange"/>\n'
                 '    </visual>\n'
                 '  </link>\n')
    parts.append('</robot>\n')
    return ''.join(parts)
