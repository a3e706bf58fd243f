"""URDF description of a two-bone arm, generated from the same parameters the IK node uses.

The arm has one link per bone and two revolute joints about the plane's normal:

``base_frame`` --(joint_names[0] at shoulder_position)--> ``link1`` --(joint_names[1] at l1
along link 1)--> ``link2`` --(fixed ``tool_joint`` at l2 along link 2)--> ``tool``.

Each link's frame has x along the link and z along the plane's normal u x v; the joint axis is
``(0, 0, direction)`` in it, and the frame of link 1 is turned so that link 1 points at its zero
angle from +u when the joint reads 0 (link 2 likewise relative to link 1). So the ``tool``
origin is :meth:`two_bone_ik.arm.geometry.ArmGeometry.tip_position` of the readings, and
importing the file (:mod:`two_bone_ik.arm.urdf_import`) gives back the same arm.

Joint limits come from the configuration, in the arm's readings. URDF cannot express a
half-open range, so:

- both sides infinite: the joint is ``continuous`` (no position limits);
- one side infinite: the joint is ``revolute`` and the open side is placed two full turns
  (4 pi rad) beyond the finite one, which covers every orientation with room to spare.

The generated file also carries a ``<mujoco><compiler .../></mujoco>`` block, an extension that
MuJoCo's URDF importer reads and other URDF consumers (robot_state_publisher, RViz, Gazebo) ignore:
it keeps the ``tool`` frame and the visual geometry, which MuJoCo would otherwise fuse away and
discard. The command line tool :mod:`two_bone_ik.nodes.urdf_command` prints it::

    two_bone_ik_urdf --params-file config/two_bone_ik.yaml > arm.urdf

With ``ros2_control='mock'`` or ``'gazebo'`` it also holds the ``<ros2_control>`` block that
ros2_control's controller manager reads (hardware ``mock_components/GenericSystem`` or
``gz_ros2_control/GazeboSimSystem``; per joint a ``position`` command interface, bounded by the
joint's finite limits, and ``position`` and ``velocity`` state interfaces), and for Gazebo the
``gz_ros2_control-system`` plugin element that starts the controller manager with a controllers
YAML (element names as ros2_control's ``component_parser.cpp`` and gz_ros2_control's plugin
read them, Jazzy).
"""

import math
from typing import Optional, Sequence, Tuple, Union
from xml.sax.saxutils import escape, quoteattr

from two_bone_ik.arm.chain import rpy_of
from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_config import desktop_chain, DesktopConfig, LINKS
from two_bone_ik.arm.desktop_geometry import desktop_from_chain
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.arm.plane import PLANE_AXES

#: Names of the generated links and of the fixed joint to the tool frame.
LINK_NAMES = ('link1', 'link2')
TOOL_LINK = 'tool'
TOOL_JOINT = 'tool_joint'
#: A desktop arm's gripper jaw link (with ``gripper_joint``).
JAW_LINK = 'jaw'

#: Default physical properties of the generated links.
MAX_LINK_RADIUS = 0.02  # m, default link radius of an arm longer than 0.5 m
LINK_RADIUS_PER_REACH = 0.04  # default link radius of smaller arms, per metre of reach l1 + l2
DEFAULT_LINEAR_DENSITY = 2.0  # kg/m, a light aluminium tube with its wiring
DEFAULT_MIN_LINK_MASS = 0.05  # kg, so that even a zero-length link has a mass
DEFAULT_EFFORT = 20.0  # N m, URDF <limit effort>
DEFAULT_VELOCITY = 6.0  # rad/s, URDF <limit velocity> (unless the arm has its own)

#: How far beyond its finite side a half-open joint range is closed, rad.
OPEN_SIDE_SPAN = 2.0 * math.tau

#: The ros2_control hardware plugin of each ``ros2_control`` kind.
ROS2_CONTROL_HARDWARE = {
    'mock': 'mock_components/GenericSystem',
    'gazebo': 'gz_ros2_control/GazeboSimSystem',
}

#: ``filename`` and ``name`` of the Gazebo (gz sim) system plugin that runs ros2_control.
GZ_ROS2_CONTROL_PLUGIN = ('gz_ros2_control-system', 'gz_ros2_control::GazeboSimROS2ControlPlugin')

#: Local rotations of the link frame (x along the link, z along the normal) that turn a URDF
#: cylinder's axis (local z) onto x (the link) and onto z (the joint axis).
_ALONG_LINK = (0.0, math.pi / 2.0, 0.0)
_ALONG_AXIS = (0.0, 0.0, 0.0)


def _num(value: float) -> str:
    """Format a float so that it reads back exactly (repr is round-trip safe)."""
    value = float(value)
    if value == 0.0:
        return '0'
    return repr(value)


def _vec(values: Sequence[float]) -> str:
    return ' '.join(_num(v) for v in values)


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


def ros2_control_block(geometry: ArmGeometry, kind: str, name: str,
                       controllers_file: Optional[str] = None) -> str:
    """Return the ``<ros2_control>`` element (and Gazebo's plugin element) for the arm.

    Parameters
    ----------
    geometry : ArmGeometry
        The arm: joint names and limits (rad).
    kind : str
        ``'mock'`` (``mock_components/GenericSystem``, states computed from the commands) or
        ``'gazebo'`` (``gz_ros2_control/GazeboSimSystem`` plus the ``<gazebo>`` plugin element).
    name : str
        ``<ros2_control name>``.
    controllers_file : str, optional
        The controllers YAML the Gazebo plugin starts the controller manager with (its
        ``<parameters>``); required for ``'gazebo'``, unused for ``'mock'``.

    Returns
    -------
    str
        The elements, indented as children of ``<robot>``.

    Raises
    ------
    ValueError
        If ``kind`` is unknown, or ``'gazebo'`` comes without ``controllers_file``.
    """
    if kind not in ROS2_CONTROL_HARDWARE:
        raise ValueError(f'ros2_control: expected one of {", ".join(ROS2_CONTROL_HARDWARE)}, '
                         f'got {kind!r}')
    if kind == 'gazebo' and not controllers_file:
        raise ValueError('controllers_file: the Gazebo plugin needs the controllers YAML')
    parts = [f'  <ros2_control name={quoteattr(name)} type="system">\n'
             '    <hardware>\n'
             f'      <plugin>{ROS2_CONTROL_HARDWARE[kind]}</plugin>\n']
    if kind == 'mock':
        # Velocity states from the position commands (finite differences), not left at 0.
        parts.append('      <param name="calculate_dynamics">true</param>\n')
    parts.append('    </hardware>\n')
    for joint, lower, upper in zip(geometry.joint_names, geometry.lower_limits,
                                   geometry.upper_limits):
        parts.append(f'    <joint name={quoteattr(joint)}>\n'
                     '      <command_interface name="position">\n')
        for bound, value in (('min', lower), ('max', upper)):
            if math.isfinite(value):
                parts.append(f'        <param name="{bound}">{_num(value)}</param>\n')
        parts.append('      </command_interface>\n'
                     '      <state_interface name="position"/>\n'
                     '      <state_interface name="velocity"/>\n'
                     '    </joint>\n')
    parts.append('  </ros2_control>\n')
    if kind == 'gazebo':
        filename, plugin = GZ_ROS2_CONTROL_PLUGIN
        parts.append('  <gazebo>\n'
                     f'    <plugin filename="{filename}" name="{plugin}">\n'
                     f'      <parameters>{escape(controllers_file)}</parameters>\n'
                     '    </plugin>\n'
                     '  </gazebo>\n')
    return ''.join(parts)


def default_link_radius(arm: Union[ArmConfig, ArmGeometry, DesktopConfig]) -> float:
    """Link radius used when none is given: slim for small arms, m."""
    return min(MAX_LINK_RADIUS, LINK_RADIUS_PER_REACH * sum(arm.link_lengths))


def arm_urdf(arm: Union[ArmConfig, ArmGeometry], robot_name: str = 'two_bone_arm',
             link_radius: Optional[float] = None,
             linear_density: float = DEFAULT_LINEAR_DENSITY,
             effort: float = DEFAULT_EFFORT, velocity: Optional[float] = None,
             mujoco_extension: bool = True, ros2_control: Optional[str] = None,
             controllers_file: Optional[str] = None) -> str:
    """Generate the URDF of a two-bone arm.

    Parameters
    ----------
    arm : ArmConfig or ArmGeometry
        Arm geometry: link lengths (m), joint names, base frame, plane, shoulder position (m),
        zero angles and limits (rad, in the arm's readings), directions.
    robot_name : str
        ``<robot name>``.
    link_radius : float, optional
        Radius of the links' cylinders, m (visual and inertia); default
        ``default_link_radius(arm)``.
    linear_density : float
        Mass per length of the links, kg/m; each link weighs at least
        ``DEFAULT_MIN_LINK_MASS`` kg.
    effort : float
        ``<limit effort>`` of both joints, N m. Informative for URDF consumers; MuJoCo's importer
        turns it into an actuator force range (``two_bone_ik.sim`` does not apply it).
    velocity : float, optional
        ``<limit velocity>`` of both joints, rad/s; default the arm's velocity limits where
        finite, else ``DEFAULT_VELOCITY``.
    mujoco_extension : bool
        Add the ``<mujoco><compiler fusestatic="false" discardvisual="false"/></mujoco>`` block
        so that MuJoCo keeps the ``tool`` body and the visual geometry.
    ros2_control : {None, 'mock', 'gazebo'}
        Add the ``<ros2_control>`` block for this hardware (see :func:`ros2_control_block`).
    controllers_file : str, optional
        With ``ros2_control='gazebo'``: the controllers YAML the Gazebo plugin loads.

    Returns
    -------
    str
        The URDF document.

    Raises
    ------
    ValueError
        If ``link_radius``, ``linear_density``, ``effort`` or ``velocity`` is not a positive
        finite number, a configured name clashes with a generated one, or ``ros2_control`` is
        unknown (or ``'gazebo'`` without ``controllers_file``).
    """
    geometry = arm if isinstance(arm, ArmGeometry) else ArmGeometry.from_config(arm)
    if link_radius is None:
        link_radius = default_link_radius(geometry)
    velocities = _velocities(geometry.velocity_limits, velocity)
    _check_options(link_radius, linear_density, effort, velocities)
    _check_names(geometry.base_frame, geometry.joint_names, LINK_NAMES + (TOOL_LINK,),
                 TOOL_JOINT)
    control = ('' if ros2_control is None else
               ros2_control_block(geometry, ros2_control, robot_name, controllers_file))
    normal = geometry.normal
    zero1, zero2 = geometry.zero_angles
    x_link1 = tuple(math.cos(zero1) * a + math.sin(zero1) * b
                    for a, b in zip(geometry.u_axis, geometry.v_axis))
    lengths = [float(v) for v in geometry.link_lengths]

    parts = _header(robot_name, mujoco_extension)
    parts.append(_base_link(geometry.base_frame, geometry.shoulder_position,
                            rpy_of(x_link1, normal), link_radius))
    joints = (
        (geometry.base_frame, geometry.shoulder_position, rpy_of(x_link1, normal)),
        (LINK_NAMES[0], (lengths[0], 0.0, 0.0), (0.0, 0.0, zero2)),
    )
    for i, (parent, xyz, rpy) in enumerate(joints):
        limits = urdf_joint_limits(geometry.lower_limits[i], geometry.upper_limits[i])
        parts.append(_joint(geometry.joint_names[i], parent, LINK_NAMES[i], xyz, rpy,
                            f'0 0 {geometry.directions[i]}', limits, effort, velocities[i]))
        parts.append(_arm_link(LINK_NAMES[i], lengths[i], link_radius, linear_density))
    parts.append(_tool(LINK_NAMES[1], (lengths[1], 0.0, 0.0), link_radius))
    parts.append(control)
    parts.append('</robot>\n')
    return ''.join(parts)


def _velocities(limits: Sequence[float], velocity: Optional[float]):
    """Per joint: ``velocity`` if given, else the arm's own where finite, else the default."""
    return [velocity if velocity is not None else (v if math.isfinite(v) else DEFAULT_VELOCITY)
            for v in limits]


def _check_options(link_radius, linear_density, effort, velocities) -> None:
    for name, value in (('link_radius', link_radius), ('linear_density', linear_density),
                        ('effort', effort), *(('velocity', v) for v in velocities)):
        if not (math.isfinite(value) and value > 0.0):
            raise ValueError(f'{name}: expected a positive finite number, got {value!r}')


def _check_names(base_frame, joint_names, links, tool_joint) -> None:
    if base_frame in links:
        raise ValueError(f'base_frame: {base_frame!r} clashes with a generated link '
                         f'name {links}')
    if tool_joint in joint_names:
        raise ValueError(f'joint_names: {tool_joint!r} is the name of the generated fixed joint')


def _header(robot_name: str, mujoco_extension: bool) -> list:
    """Return the document's start: declaration, comment, ``<robot>``, MuJoCo block, materials."""
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
    return parts


def _base_link(name: str, xyz, rpy, link_radius: float) -> str:
    """Return the base link: a pedestal at ``xyz``.

    No inertial block: KDL warns about a root link with inertia, and the base is fixed anyway.
    """
    return (f'  <link name={quoteattr(name)}>\n'
            + _cylinder_visual(xyz, rpy, 2.0 * link_radius, 2.0 * link_radius, 'base_grey')
            + '  </link>\n')


def _joint(name: str, parent: str, child: str, xyz, rpy, axis: str,
           limits: Optional[Tuple[float, float]], effort: float, velocity: float) -> str:
    """Return a moving joint: ``continuous`` without ``limits``, else ``revolute``."""
    kind = 'continuous' if limits is None else 'revolute'
    parts = [f'  <joint name={quoteattr(name)} type="{kind}">\n'
             f'    <parent link={quoteattr(parent)}/>\n'
             f'    <child link="{child}"/>\n'
             f'    <origin xyz="{_vec(xyz)}" rpy="{_vec(rpy)}"/>\n'
             f'    <axis xyz="{axis}"/>\n']
    if limits is None:
        parts.append(f'    <limit effort="{_num(effort)}" velocity="{_num(velocity)}"/>\n')
    else:
        parts.append(f'    <limit lower="{_num(limits[0])}" upper="{_num(limits[1])}"'
                     f' effort="{_num(effort)}" velocity="{_num(velocity)}"/>\n')
    parts.append('  </joint>\n')
    return ''.join(parts)


def _arm_link(name: str, length: float, link_radius: float, linear_density: float,
              solid_length: float = 0.0) -> str:
    """Return a link along its frame's x axis: a cylinder of ``length`` and a hub at its joint.

    Its inertia is a solid cylinder's of at least ``solid_length`` (MuJoCo refuses the
    borderline inertia of a zero-length one once rounded).
    """
    mass = max(linear_density * length, DEFAULT_MIN_LINK_MASS)
    parts = [f'  <link name="{name}">\n',
             _link_inertial(max(length, solid_length), link_radius, mass, 0),
             _cylinder_visual((0.0, 0.0, 0.0), _ALONG_AXIS, 1.5 * link_radius,
                              3.0 * link_radius, 'joint_dark')]
    if length > 0.0:
        parts.append(_cylinder_visual((0.5 * length, 0.0, 0.0), _ALONG_LINK, link_radius, length,
                                      'link_blue'))
    parts.append('  </link>\n')
    return ''.join(parts)


def _tool(parent: str, xyz, link_radius: float) -> str:
    """Return the fixed ``tool_joint`` at ``xyz`` in ``parent`` and the ``tool`` link."""
    return (f'  <joint name="{TOOL_JOINT}" type="fixed">\n'
            f'    <parent link="{parent}"/>\n'
            f'    <child link="{TOOL_LINK}"/>\n'
            f'    <origin xyz="{_vec(xyz)}" rpy="0 0 0"/>\n'
            '  </joint>\n'
            f'  <link name="{TOOL_LINK}">\n'
            '    <visual>\n'
            '      <origin xyz="0 0 0" rpy="0 0 0"/>\n'
            f'      <geometry><sphere radius="{_num(1.2 * link_radius)}"/></geometry>\n'
            '      <material name="tool_orange"/>\n'
            '    </visual>\n'
            '  </link>\n')


def desktop_urdf(config: DesktopConfig, robot_name: str = 'desktop_arm',
                 link_radius: Optional[float] = None,
                 linear_density: float = DEFAULT_LINEAR_DENSITY,
                 effort: float = DEFAULT_EFFORT, velocity: Optional[float] = None,
                 mujoco_extension: bool = True, ros2_control: Optional[str] = None,
                 controllers_file: Optional[str] = None) -> str:
    """Generate the URDF of a desktop arm (3 to 5 joints) from its parameters.

    The chain is :func:`two_bone_ik.arm.desktop_config.desktop_chain`'s (links ``turntable``,
    ``link1``, ``link2``, ``wrist``, ``hand`` as the shape has them, and ``tool``), so importing
    the file gives back the same arm. The options mean what they mean for :func:`arm_urdf`;
    ``<ros2_control>`` holds every joint of the chain.

    With ``config.gripper_joint``, a jaw off the chain too (:func:`_jaw`): a revolute joint of
    that name (``continuous`` without limits) on the chain's last link, at half the tool's
    distance along it, about that link's z axis, and the ``jaw`` link, a bar reaching to the
    tool's distance. A stand-in for drawing and simulating a gripper, not its real shape.

    Raises
    ------
    ValueError
        As :func:`arm_urdf`.
    """
    chain = desktop_chain(config)
    if link_radius is None:
        link_radius = default_link_radius(config)
    velocities = _velocities([math.inf] * len(config.joint_names), velocity)
    _check_options(link_radius, linear_density, effort, velocities)
    links = tuple(LINKS.values()) + (TOOL_LINK,) + ((JAW_LINK,) if config.gripper_joint else ())
    _check_names(config.base_frame, config.joint_names, links, TOOL_JOINT)
    if config.gripper_joint == TOOL_JOINT:
        raise ValueError(f'gripper_joint: {TOOL_JOINT!r} is the name of the generated fixed '
                         'joint')
    control = ('' if ros2_control is None else ros2_control_block(
        desktop_from_chain(chain), ros2_control, robot_name, controllers_file))
    iu, iv = PLANE_AXES[config.plane]
    u, v = tuple(float(k == iu) for k in range(3)), tuple(float(k == iv) for k in range(3))
    parts = _header(robot_name, mujoco_extension)
    if 'yaw' in config.roles:
        parts.append(_base_link(config.base_frame, tuple(-link_radius * c for c in v),
                                rpy_of(u, v), link_radius))
    else:
        parts.append(_base_link(config.base_frame, config.shoulder_position,
                                chain.joints[0].rpy, link_radius))
    lengths = {'link1': config.link_lengths[0], 'link2': config.link_lengths[1],
               'wrist': 0.0, 'hand': 0.0, 'turntable': 0.0}
    lengths['hand' if 'roll' in config.roles else 'wrist'] = max(0.0, config.tool_offset[0])
    for index, joint in enumerate(chain.moving):
        limits = urdf_joint_limits(joint.lower, joint.upper)
        parts.append(_joint(joint.name, joint.parent, joint.child, joint.xyz, joint.rpy,
                            _vec(joint.axis), limits, effort, velocities[index]))
        parts.append(_arm_link(joint.child, lengths[joint.child], link_radius, linear_density,
                               3.0 * link_radius))
    tool = chain.joints[-1]
    parts.append(_tool(tool.parent, tool.xyz, link_radius))
    if config.gripper_joint:
        parts.append(_jaw(config, tool.parent, tool.xyz[0], effort, link_radius,
                          linear_density))
    parts.append(control)
    parts.append('</robot>\n')
    return ''.join(parts)


def _jaw(config: DesktopConfig, parent: str, reach: float, effort: float, link_radius: float,
         linear_density: float) -> str:
    """Return the gripper's joint and its ``jaw`` link (see :func:`desktop_urdf`).

    ``reach`` is the tool's distance along ``parent``'s x axis, m.
    """
    hinge = 0.5 * reach
    limits = urdf_joint_limits(*config.gripper_limits)
    return (_joint(config.gripper_joint, parent, JAW_LINK, (hinge, 0.0, 0.0), (0.0, 0.0, 0.0),
                   '0 0 1', limits, effort, DEFAULT_VELOCITY)
            + _arm_link(JAW_LINK, reach - hinge, 0.5 * link_radius, linear_density,
                        3.0 * link_radius))
