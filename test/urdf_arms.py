"""URDF arms for tests, and an independent forward kinematics of any URDF chain.

:func:`chain_tip` walks a URDF with ElementTree and numpy, joint by joint (its own rpy and
axis-angle code), so tests can check the package's URDF importer and solver against it without
using any of the package's code as the oracle. :func:`random_planar_arm` writes random planar
two-link arms the way real descriptions look: fixed joints before, between and after the two
arm joints, arbitrary rpy on every joint, axes either way, offsets off the plane, a wrist joint
at the tip, and the elements an importer must pass over (meshes, ``<ros2_control>``,
``<gazebo>``, ``<transmission>``).
"""

import math
from typing import Dict, List, Mapping, NamedTuple, Tuple
import xml.etree.ElementTree as ElementTree

import numpy as np


def _rotation_rpy(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """Rz(yaw) @ Ry(pitch) @ Rx(roll), as URDF defines <origin rpy>."""
    def rx(a):
        return np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])

    def ry(a):
        return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])

    def rz(a):
        return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    return rz(yaw) @ ry(pitch) @ rx(roll)


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by ``angle`` about the unit vector ``axis`` (Rodrigues)."""
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def _floats(text: str, default: Tuple[float, ...]) -> np.ndarray:
    return np.array([float(v) for v in text.split()]) if text else np.array(default)


def chain_tip(urdf: str, base: str, tip: str, readings: Mapping[str, float]) -> np.ndarray:
    """Position of link ``tip``'s origin in link ``base``'s frame, m.

    ``readings`` gives revolute/continuous joint angles (rad) and prismatic joint offsets (m)
    by name; joints not named are at 0.
    """
    robot = ElementTree.fromstring(urdf)
    parent_joint = {}
    for joint in robot.findall('joint'):  # not the <joint>s inside <ros2_control>
        parent_joint[joint.find('child').get('link')] = joint
    chain: List[ElementTree.Element] = []
    link = tip
    while link != base:
        joint = parent_joint[link]
        chain.append(joint)
        link = joint.find('parent').get('link')
    rotation, position = np.eye(3), np.zeros(3)
    for joint in reversed(chain):
        origin = joint.find('origin')
        xyz = _floats(origin.get('xyz', '') if origin is not None else '', (0.0, 0.0, 0.0))
        rpy = _floats(origin.get('rpy', '') if origin is not None else '', (0.0, 0.0, 0.0))
        position = position + rotation @ xyz
        rotation = rotation @ _rotation_rpy(*rpy)
        kind = joint.get('type')
        value = float(readings.get(joint.get('name'), 0.0))
        if kind in ('revolute', 'continuous', 'prismatic') and value:
            axis_element = joint.find('axis')
            axis = _floats(axis_element.get('xyz', '') if axis_element is not None else '',
                           (1.0, 0.0, 0.0))
            axis = axis / np.linalg.norm(axis)
            if kind == 'prismatic':
                position = position + rotation @ (axis * value)
            else:
                rotation = rotation @ _axis_angle(axis, value)
    return position


class RandomArm(NamedTuple):
    """A random planar arm written as URDF (see :func:`random_planar_arm`)."""

    urdf: str
    base: str
    tip: str
    joints: Tuple[str, str]
    limits: Tuple[Tuple[float, float], Tuple[float, float]]


def _origin(rng, spread: float) -> Dict[str, str]:
    xyz = rng.uniform(-spread, spread, 3)
    rpy = rng.uniform(-math.pi, math.pi, 3)
    return {'xyz': ' '.join(repr(float(v)) for v in xyz),
            'rpy': ' '.join(repr(float(v)) for v in rpy)}


def random_planar_arm(rng: np.random.Generator) -> RandomArm:
    """Write a random planar two-link arm.

    Every joint has random xyz and rpy; the arm joints' axes are chosen in their own frames so
    that both are parallel (or antiparallel) in the base frame. Limits are random: continuous,
    revolute with finite limits, sometimes multi-turn.
    """
    robot = ElementTree.Element('robot', name='random_arm')
    ElementTree.SubElement(robot, 'link', name='world')
    rotation = np.eye(3)
    names = ['world']
    world_axis = None
    arm_joints = []
    limits = []

    def link(name, mesh=False):
        element = ElementTree.SubElement(robot, 'link', name=name)
        inertial = ElementTree.SubElement(element, 'inertial')
        ElementTree.SubElement(inertial, 'origin', xyz='0.01 0.02 -0.01', rpy='0 0 0')
        ElementTree.SubElement(inertial, 'mass', value=repr(float(rng.uniform(0.1, 2.0))))
        ElementTree.SubElement(inertial, 'inertia', ixx='0.01', ixy='0', ixz='0', iyy='0.01',
                               iyz='0', izz='0.01')
        if mesh:
            visual = ElementTree.SubElement(element, 'visual')
            geometry = ElementTree.SubElement(visual, 'geometry')
            ElementTree.SubElement(geometry, 'mesh', filename=f'package://nowhere/{name}.stl')
        names.append(name)

    def joint(name, kind, spread=0.3, axis=None):
        nonlocal rotation
        origin = _origin(rng, spread)
        element = ElementTree.SubElement(robot, 'joint', name=name, type=kind)
        ElementTree.SubElement(element, 'parent', link=names[-2])
        ElementTree.SubElement(element, 'child', link=names[-1])
        ElementTree.SubElement(element, 'origin', **origin)
        rotation = rotation @ _rotation_rpy(*[float(v) for v in origin['rpy'].split()])
        if axis is not None:
            ElementTree.SubElement(element, 'axis',
                                   xyz=' '.join(repr(float(v)) for v in axis))
        return element

    def fixed_links(prefix, count):
        for index in range(count):
            link(f'{prefix}_{index}')
            joint(f'{prefix}_fixed_{index}', 'fixed')

    fixed_links('pre', int(rng.integers(0, 3)))
    base = names[-1]
    # Frames relative to the base from here on: the chain below the base decides the arm.
    rotation = np.eye(3)
    for number in (1, 2):
        fixed_links(f'before{number}', int(rng.integers(0, 3)))
        link(f'arm_link{number}', mesh=bool(rng.integers(0, 2)))
        name = f'arm_joint{number}'
        # Draw the origin first to know the joint frame, then pick the local axis.
        origin = _origin(rng, 0.4)
        element = ElementTree.SubElement(robot, 'joint', name=name)
        ElementTree.SubElement(element, 'parent', link=names[-2])
        ElementTree.SubElement(element, 'child', link=names[-1])
        ElementTree.SubElement(element, 'origin', **origin)
        rotation = rotation @ _rotation_rpy(*[float(v) for v in origin['rpy'].split()])
        if world_axis is None:
            world_axis = rng.normal(size=3)
            world_axis /= np.linalg.norm(world_axis)
        sign = 1.0 if rng.integers(0, 2) else -1.0
        local = rotation.T @ (sign * world_axis) * float(rng.uniform(0.5, 2.0))
        ElementTree.SubElement(element, 'axis', xyz=' '.join(repr(float(v)) for v in local))
        kind = ('continuous', 'revolute', 'revolute')[int(rng.integers(0, 3))]
        element.set('type', kind)
        if kind == 'continuous':
            lo, hi = -math.inf, math.inf
            ElementTree.SubElement(element, 'limit', effort='10', velocity='2.5')
        else:
            if rng.integers(0, 4) == 0:
                lo = float(rng.uniform(-40.0, -5.0))
                hi = float(rng.uniform(5.0, 40.0))
            else:
                lo = float(rng.uniform(-3.0, 0.0))
                hi = lo + float(rng.uniform(0.5, 4.0))
            ElementTree.SubElement(element, 'limit', lower=repr(lo), upper=repr(hi),
                                   effort='10', velocity=repr(float(rng.uniform(0.5, 5.0))))
        arm_joints.append(name)
        limits.append((lo, hi))
    fixed_links('after', int(rng.integers(0, 3)))
    if rng.integers(0, 2):
        # A wrist that only turns the tip frame about its own origin: not an arm joint.
        link('tip')
        wrist = joint('wrist', 'revolute', axis=rng.normal(size=3))
        ElementTree.SubElement(wrist, 'limit', lower='-1', upper='1', effort='1', velocity='1')
    else:
        link('tip')
        joint('tip_fixed', 'fixed')
    control = ElementTree.SubElement(robot, 'ros2_control', name='arm', type='system')
    hardware = ElementTree.SubElement(control, 'hardware')
    ElementTree.SubElement(hardware, 'plugin').text = 'mock_components/GenericSystem'
    gazebo = ElementTree.SubElement(robot, 'gazebo')
    ElementTree.SubElement(gazebo, 'plugin', filename='gz_ros2_control-system',
                           name='gz_ros2_control::GazeboSimROS2ControlPlugin')
    transmission = ElementTree.SubElement(robot, 'transmission', name='t1')
    ElementTree.SubElement(transmission, 'type').text = \
        'transmission_interface/SimpleTransmission'
    return RandomArm(ElementTree.tostring(robot, encoding='unicode'), base, 'tip',
                     (arm_joints[0], arm_joints[1]), (limits[0], limits[1]))


# -- hand-written arms with the traits of real ones (see README: real arms) ----------------


def link_xml(name, mass='1.0'):
    """Return a URDF <link> with an inertial block."""
    return (f'<link name="{name}"><inertial><mass value="{mass}"/><inertia ixx="0.01" ixy="0" '
            'ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>')


def joint_xml(name, kind, parent, child, xyz='0 0 0', rpy='0 0 0', axis=None, limit=None):
    """Return a URDF <joint>; ``limit`` holds the <limit> attributes besides effort/velocity."""
    parts = [f'<joint name="{name}" type="{kind}"><parent link="{parent}"/>'
             f'<child link="{child}"/><origin xyz="{xyz}" rpy="{rpy}"/>']
    if axis is not None:
        parts.append(f'<axis xyz="{axis}"/>')
    if limit is not None:
        parts.append(f'<limit {limit} effort="10" velocity="3.0"/>')
    return ''.join(parts) + '</joint>'


def robot_xml(*parts):
    """Return a URDF document of these elements."""
    return '<?xml version="1.0"?><robot name="test">' + ''.join(parts) + '</robot>'


#: RRBot-like: shoulder 1.95 m up and 0.1 m aside, zero pose straight up, axes along +y,
#: a mesh, <ros2_control>, <gazebo> and <transmission>.
RAISED_UP = robot_xml(
    '<link name="world"/>', link_xml('base_link'), link_xml('link1'), link_xml('link2'),
    '<link name="tool_link"/>',
    '<link name="decor"><visual><geometry><mesh filename="package://x/base.dae"/></geometry>'
    '</visual></link>',
    joint_xml('fixed', 'fixed', 'world', 'base_link'),
    joint_xml('decor_joint', 'fixed', 'world', 'decor'),
    joint_xml('joint1', 'continuous', 'base_link', 'link1', '0 0.1 1.95', axis='0 1 0',
              limit=''),
    joint_xml('joint2', 'continuous', 'link1', 'link2', '0 0.1 0.9', axis='0 1 0', limit=''),
    joint_xml('tool_joint', 'fixed', 'link2', 'tool_link', '0 0 1'),
    '<ros2_control name="RRBot" type="system"><hardware><plugin>mock_components/GenericSystem'
    '</plugin></hardware><joint name="joint1"><command_interface name="position"/>'
    '</joint></ros2_control>',
    '<gazebo><plugin filename="gz_ros2_control-system" name="x"/></gazebo>',
    '<transmission name="t"><type>transmission_interface/SimpleTransmission</type>'
    '</transmission>')

#: SCARA-like: plane 0.44 m up, a fixed joint after the elbow written rpy="3.14 0 0".
SCARA = robot_xml(
    link_xml('base_link'), link_xml('link1'), link_xml('link2'), '<link name="flange"/>',
    '<link name="tool0"/>',
    joint_xml('joint1', 'revolute', 'base_link', 'link1', '0 0 0.44', axis='0 0 1',
              limit='lower="-2.5" upper="2.5"'),
    joint_xml('joint2', 'revolute', 'link1', 'link2', '0.425 0 0', axis='0 0 1',
              limit='lower="-2.0" upper="2.0"'),
    joint_xml('flange_joint', 'fixed', 'link2', 'flange', '0.345 0 0', '3.14 0 0'),
    joint_xml('tool_joint', 'fixed', 'flange', 'tool0', '0 0 0.11'))

#: Leg-stand-like: hanging down at zero (link 1 at -90 degrees), axes along +y, the foot
#: 0.045 m off the plane of the hip, a rail joint above the base that is not on the chain.
HANGING_LEG = robot_xml(
    '<link name="world"/>', link_xml('base_link'), link_xml('upper'), link_xml('lower'),
    '<link name="foot"/>',
    joint_xml('rail', 'prismatic', 'world', 'base_link', axis='0 0 1',
              limit='lower="0" upper="0.5"'),
    joint_xml('hip', 'revolute', 'base_link', 'upper', '0 0.02 0', axis='0 1 0',
              limit='lower="-10" upper="10"'),
    joint_xml('knee', 'revolute', 'upper', 'lower', '0 0.015 -0.16', axis='0 1 0',
              limit='lower="-10" upper="10"'),
    joint_xml('ankle', 'fixed', 'lower', 'foot', '0 0.01 -0.16'))

#: OpenManipulator-like: shoulder offset in the plane, zero angles of +-79.4 degrees, axes
#: along +y, a wrist joint whose child is the tip.
OFFSET_ZEROS = robot_xml(
    link_xml('link2'), link_xml('link3'), link_xml('link4'), link_xml('link5'),
    joint_xml('joint2', 'revolute', 'link2', 'link3', '0 0 0.0595', axis='0 1 0',
              limit='lower="-1.5" upper="1.5"'),
    joint_xml('joint3', 'revolute', 'link3', 'link4', '0.024 0 0.128', axis='0 1 0',
              limit='lower="-1.5" upper="1.4"'),
    joint_xml('joint4', 'revolute', 'link4', 'link5', '0.124 0 0', axis='0 1 0',
              limit='lower="-1.7" upper="2.0"'))


# -- desktop arms: yaw + pair + pitch + roll, random and fixed -----------------------------

#: A desktop arm described by parameters only (no URDF), as the IK node's params file gives it:
#: the shoulder off the yaw axis and the plane aside, kinked zero poses, a reversed axis, limits,
#: the tool point off the roll axis. No ``plane``: a desktop arm's default (xz) applies.
DESKTOP_PARAMETERS = {
    'joint_names': ['turn', 'lift', 'bend', 'tilt', 'twist'], 'base_frame': 'desk',
    'link_lengths': [0.15, 0.14], 'shoulder_position': [0.02, 0.01, 0.09],
    'joint_zero_angles': [0.0, 1.36, -1.36, 0.0, 0.0], 'joint_directions': [1, 1, -1, 1, 1],
    'joint_lower_limits': [-2.8, -1.8, -1.6, -1.9, -2.9],
    'joint_upper_limits': [2.8, 1.8, 2.4, 1.9, 2.9], 'tool_offset': [0.1, 0.006, 0.0]}

#: The moving joints of each desktop shape, in chain order.
DESKTOP_JOINTS = {
    'yaw + pair': ('yaw', 'shoulder', 'elbow'),
    'pair + pitch': ('shoulder', 'elbow', 'pitch'),
    'yaw + pair + pitch': ('yaw', 'shoulder', 'elbow', 'pitch'),
    'yaw + pair + pitch + roll': ('yaw', 'shoulder', 'elbow', 'pitch', 'roll'),
}


class DesktopArm(NamedTuple):
    """A desktop arm written as URDF (see :func:`random_desktop_arm`).

    ``axes`` are the moving joints' world axes at zero readings as designed (before any tilt),
    signed as the joints turn, for tests that need to know which side of the yaw axis a pose
    reaches.
    """

    urdf: str
    base: str
    tip: str
    shape: str
    joints: Tuple[str, ...]
    limits: Tuple[Tuple[float, float], ...]
    gripper: str
    axes: Tuple[np.ndarray, ...]


def _unit(vector) -> np.ndarray:
    vector = np.asarray(vector, dtype=float)
    return vector / np.linalg.norm(vector)


def _perpendicular(rng, axis) -> np.ndarray:
    """Return a random unit vector perpendicular to ``axis``."""
    vector = rng.normal(size=3)
    return _unit(vector - np.dot(vector, axis) * axis)


def _tilted(rng, axis, angle: float) -> np.ndarray:
    """``axis`` turned by ``angle`` (rad) about a random perpendicular direction."""
    if angle == 0.0:
        return axis
    return _axis_angle(_perpendicular(rng, axis), angle) @ axis


def _random_limits(rng):
    kind = ('continuous', 'revolute', 'revolute', 'revolute', 'revolute')[int(rng.integers(0, 5))]
    if kind == 'continuous':
        return kind, (-math.inf, math.inf)
    if rng.integers(0, 5) == 0:
        return kind, (float(rng.uniform(-20.0, -5.0)), float(rng.uniform(5.0, 20.0)))
    lo = float(rng.uniform(-3.0, 0.0))
    return kind, (lo, lo + float(rng.uniform(1.5, 5.0)))


class _Writer:
    """Builds a URDF chain link by link, tracking the world rotation of the last frame."""

    def __init__(self, rng, root: str):
        self.rng = rng
        self.robot = ElementTree.Element('robot', name='desktop_arm')
        self.rotation = np.eye(3)
        self.last = root
        self.link(root, inertial=False)

    def link(self, name, inertial=True):
        element = ElementTree.SubElement(self.robot, 'link', name=name)
        if inertial:
            block = ElementTree.SubElement(element, 'inertial')
            ElementTree.SubElement(block, 'mass', value='0.2')
            ElementTree.SubElement(block, 'inertia', ixx='1e-4', ixy='0', ixz='0', iyy='1e-4',
                                   iyz='0', izz='1e-4')
        return element

    def joint(self, name, kind, child, xyz, rpy, axis=None, limits=None, parent=None):
        element = ElementTree.SubElement(self.robot, 'joint', name=name, type=kind)
        ElementTree.SubElement(element, 'parent', link=parent or self.last)
        ElementTree.SubElement(element, 'child', link=child)
        ElementTree.SubElement(element, 'origin', xyz=' '.join(repr(float(v)) for v in xyz),
                               rpy=' '.join(repr(float(v)) for v in rpy))
        if axis is not None:
            ElementTree.SubElement(element, 'axis', xyz=' '.join(repr(float(v)) for v in axis))
        if kind != 'fixed':
            attributes = {'effort': '5', 'velocity': repr(float(self.rng.uniform(1.0, 6.0)))}
            if limits is not None and kind == 'revolute':
                attributes.update(lower=repr(limits[0]), upper=repr(limits[1]))
            ElementTree.SubElement(element, 'limit', **attributes)
        if parent is None:
            self.rotation = self.rotation @ _rotation_rpy(*rpy)
            self.last = child
        return element

    def fixed(self, prefix, count, spread):
        for index in range(count):
            name = f'{prefix}_{index}'
            self.link(name)
            self.joint(f'{prefix}_fixed_{index}', 'fixed', name,
                       self.rng.uniform(-spread, spread, 3),
                       self.rng.uniform(-math.pi, math.pi, 3))

    def text(self):
        return ElementTree.tostring(self.robot, encoding='unicode')


def random_desktop_arm(rng: np.random.Generator, shape: str, axis_error: float = 0.0,
                       roll_at_tip: bool = False) -> DesktopArm:
    """Write a random desktop arm of ``shape``.

    Fixed joints with random origins and rotations before, between and after the moving ones;
    each moving joint's origin random (offsets 2-25 cm, so kinked links, a shoulder off the
    yaw axis, a tool off the roll axis) and its local axis chosen so the world axes at zero
    readings have the shape, either sign, each then tilted by up to ``axis_error`` rad (so
    relations are off by up to twice that). Limits random (continuous, revolute, multi-turn).
    A gripper joint hangs off the last moving link, not on the chain. ``roll_at_tip``: the
    roll joint's child is the tip (the tool point on the roll axis).
    """
    writer = _Writer(rng, 'world')
    writer.fixed('pre', int(rng.integers(0, 2)), 0.2)
    base = writer.last
    writer.rotation = np.eye(3)
    yaw_axis = _unit(rng.normal(size=3) + np.array([0.0, 0.0, 1.5]))
    pair_axis = _perpendicular(rng, yaw_axis)
    roll_axis = _perpendicular(rng, pair_axis)
    world = {'yaw': yaw_axis, 'shoulder': pair_axis, 'elbow': pair_axis, 'pitch': pair_axis,
             'roll': roll_axis}
    names, limits, axes = [], [], []
    roles = DESKTOP_JOINTS[shape]
    for role in roles:
        writer.fixed(f'before_{role}', int(rng.integers(0, 2)), 0.1)
        child = 'tool' if roll_at_tip and role == 'roll' else f'{role}_link'
        writer.link(child)
        xyz = rng.uniform(-0.25, 0.25, 3) if role in ('elbow', 'pitch') else rng.uniform(
            -0.06, 0.06, 3)
        rpy = rng.uniform(-math.pi, math.pi, 3)
        rotation = writer.rotation @ _rotation_rpy(*rpy)
        sign = 1.0 if rng.integers(0, 2) else -1.0
        local = _tilted(rng, rotation.T @ (sign * world[role]), axis_error)
        kind, joint_limits = _random_limits(rng)
        writer.joint(f'{role}_joint', kind, child, xyz, rpy,
                     axis=local * float(rng.uniform(0.5, 2.0)), limits=joint_limits)
        names.append(f'{role}_joint')
        limits.append(joint_limits)
        axes.append(sign * world[role])
    hand = writer.last
    writer.link('jaw')
    writer.joint('gripper_joint', 'revolute', 'jaw', (0.02, 0.0, 0.01), (0.0, 0.0, 0.0),
                 axis=(0.0, 0.0, 1.0), limits=(-0.5, 0.5), parent=hand)
    if not (roll_at_tip and 'roll' in roles):
        writer.fixed('after', int(rng.integers(0, 2)), 0.03)
        writer.link('tool')
        writer.joint('tool_fixed', 'fixed', 'tool', rng.uniform(0.04, 0.12, 3) * (1, 0.2, 0.2),
                     rng.uniform(-math.pi, math.pi, 3))
    return DesktopArm(writer.text(), base, 'tool', shape, tuple(names), tuple(limits),
                      'gripper_joint', tuple(axes))


def _limit(lower, upper):
    return f'lower="{lower}" upper="{upper}"'


#: SO-101-like (LeRobot's arm), from its published figures: the shoulder 30 mm out from the
#: pan axis and 54 mm above the pan joint, the upper arm 112.6 mm + 28 mm (a 14 degree kink),
#: the forearm 134.9 mm + 5.2 mm, the roll joint 61.1 mm beyond the wrist pitch axis and 18.1 mm
#: aside, the tool point 98.1 mm along the roll axis and 7.9 mm off it, a jaw off the chain.
#: Rotations are written 1.5708 and 3.14159 as its URDF writes them, so the pair's and the
#: roll's axes are about 3.7e-6 rad off perpendicular. Frames and names are ours.
SO101_LIKE = robot_xml(
    link_xml('base'), link_xml('pan_link', '0.1'), link_xml('upper_arm', '0.1'),
    link_xml('forearm', '0.1'), link_xml('wrist', '0.05'), link_xml('hand', '0.05'),
    link_xml('jaw', '0.02'), '<link name="tool_point"/>',
    joint_xml('pan', 'revolute', 'base', 'pan_link', '0.039 0 0.062', '0 0 3.14159',
              axis='0 0 1', limit=_limit(-1.92, 1.92)),
    joint_xml('lift', 'revolute', 'pan_link', 'upper_arm', '-0.030 0 0.054',
              '1.5708 0 3.14159', axis='0 0 1', limit=_limit(-1.745, 1.745)),
    joint_xml('elbow', 'revolute', 'upper_arm', 'forearm', '0.028 0.1126 0', '0 0 -1.5708',
              axis='0 0 1', limit=_limit(-1.69, 1.69)),
    joint_xml('wrist_flex', 'revolute', 'forearm', 'wrist', '0.1349 0.0052 0', '0 0 1.5708',
              axis='0 0 1', limit=_limit(-1.658, 1.658)),
    joint_xml('wrist_roll', 'revolute', 'wrist', 'hand', '0 0.0611 0.0181', '-1.5708 0 0',
              axis='0 0 1', limit=_limit(-2.744, 2.841)),
    joint_xml('jaw_joint', 'revolute', 'hand', 'jaw', '0.0202 0.0188 -0.0234', '1.5708 0 0',
              axis='0 0 1', limit=_limit(-0.17, 1.75)),
    joint_xml('tool_joint', 'fixed', 'hand', 'tool_point', '-0.0079 0 0.0981', '0 3.14159 0'))

#: OpenManipulator-X-like, from its published figures: the waist 12 mm off the base origin,
#: the shoulder 59.5 mm above it, the upper arm 24 mm + 128 mm (a 10.6 degree kink from
#: vertical), the forearm 124 mm, the tool point 126 mm beyond the wrist pitch axis, two jaws
#: off the chain. Frames and names are ours.
OMX_LIKE = robot_xml(
    link_xml('omx_base'), link_xml('waist_link', '0.1'), link_xml('upper', '0.1'),
    link_xml('fore', '0.1'), link_xml('palm', '0.05'), link_xml('left_jaw', '0.01'),
    link_xml('right_jaw', '0.01'), '<link name="tool_center"/>',
    joint_xml('waist', 'revolute', 'omx_base', 'waist_link', '0.012 0 0.017', axis='0 0 1',
              limit=_limit(-3.14, 3.14)),
    joint_xml('shoulder', 'revolute', 'waist_link', 'upper', '0 0 0.0595', axis='0 1 0',
              limit=_limit(-1.5, 1.5)),
    joint_xml('elbow', 'revolute', 'upper', 'fore', '0.024 0 0.128', axis='0 1 0',
              limit=_limit(-1.5, 1.4)),
    joint_xml('wrist', 'revolute', 'fore', 'palm', '0.124 0 0', axis='0 1 0',
              limit=_limit(-1.7, 1.97)),
    joint_xml('left_finger', 'revolute', 'palm', 'left_jaw', '0.0817 0.021 0', axis='0 0 1',
              limit=_limit(-0.5, 0.5)),
    joint_xml('right_finger', 'revolute', 'palm', 'right_jaw', '0.0817 -0.021 0',
              axis='0 0 -1', limit=_limit(-0.5, 0.5)),
    joint_xml('tool_joint', 'fixed', 'palm', 'tool_center', '0.126 0 0'))

#: The yaw, pair and pitch of DESKTOP_4 and DESKTOP_5: the base link rotated, the yaw axis
#: along -z written as axis 0 0 -1 under a 180 degree roll, kinked links, reversed and mixed
#: axis signs, the wrist 4 mm off the plane, limits on every joint.
_DESKTOP_ARM = (
    link_xml('base_link'), link_xml('turret', '0.2'), link_xml('arm_a', '0.2'),
    link_xml('arm_b', '0.15'), link_xml('wrist_link', '0.05'), link_xml('jaw', '0.02'),
    '<link name="tool"/>',
    joint_xml('yaw_joint', 'revolute', 'base_link', 'turret', '0.01 0.02 0.05',
              '3.141592653589793 0 0', axis='0 0 -1', limit=_limit(-2.5, 2.5)),
    joint_xml('shoulder_joint', 'revolute', 'turret', 'arm_a', '0.025 0 -0.04',
              '1.5707963267948966 0 0', axis='0 0 -1', limit=_limit(-1.6, 1.6)),
    joint_xml('elbow_joint', 'revolute', 'arm_a', 'arm_b', '0.03 0.16 0', '0 0 0.3',
              axis='0 0 1', limit=_limit(-2.5, 2.2)),
    joint_xml('pitch_joint', 'revolute', 'arm_b', 'wrist_link', '0.02 0.15 0.004', '0 0 -0.5',
              axis='0 0 -1', limit=_limit(-2.0, 2.0)))

#: A 4-joint arm (yaw + pair + pitch) of our own for node tests: the tool point 9 cm out and
#: 6 mm off the plane, a jaw off the chain.
DESKTOP_4 = robot_xml(
    *_DESKTOP_ARM,
    joint_xml('jaw_joint', 'revolute', 'wrist_link', 'jaw', '0.02 0.05 0', axis='1 0 0',
              limit=_limit(0.0, 0.9)),
    joint_xml('tool_joint', 'fixed', 'wrist_link', 'tool', '0.005 0.09 0.006'))

#: A 5-joint arm (yaw + pair + pitch + roll) of our own for node tests: DESKTOP_4's yaw, pair
#: and pitch, a roll about the approach, the tool point 6 mm off the roll axis, a jaw off the
#: chain.
DESKTOP_5 = robot_xml(
    *_DESKTOP_ARM, link_xml('hand', '0.05'),
    joint_xml('roll_joint', 'revolute', 'wrist_link', 'hand', '0 0.03 0', '0 0 0',
              axis='0 -1 0', limit=_limit(-2.8, 2.8)),
    joint_xml('jaw_joint', 'revolute', 'hand', 'jaw', '0.02 0.05 0', axis='1 0 0',
              limit=_limit(0.0, 0.9)),
    joint_xml('tool_joint', 'fixed', 'hand', 'tool', '0.006 0.07 0'))

#: The fixed desktop test arms: (URDF, base, tip, joints on the chain, shape).
FIXED_DESKTOP_ARMS = {
    'so101_like': (SO101_LIKE, 'base', 'tool_point',
                   ('pan', 'lift', 'elbow', 'wrist_flex', 'wrist_roll'),
                   'yaw + pair + pitch + roll'),
    'omx_like': (OMX_LIKE, 'omx_base', 'tool_center', ('waist', 'shoulder', 'elbow', 'wrist'),
                 'yaw + pair + pitch'),
    'desktop_4': (DESKTOP_4, 'base_link', 'tool',
                  ('yaw_joint', 'shoulder_joint', 'elbow_joint', 'pitch_joint'),
                  'yaw + pair + pitch'),
    'desktop_5': (DESKTOP_5, 'base_link', 'tool',
                  ('yaw_joint', 'shoulder_joint', 'elbow_joint', 'pitch_joint', 'roll_joint'),
                  'yaw + pair + pitch + roll'),
}


def random_readings(rng, lower, upper, span: float = 3.0):
    """Return readings (rad) drawn uniformly within the limits, an open side at ``span``."""
    return [float(rng.uniform(max(lo, -span), min(hi, span))) for lo, hi in zip(lower, upper)]


def reaches_forward(arm: DesktopArm, readings, margin: float = 0.005):
    """Return whether the pose at ``readings`` reaches forward, by ``margin`` (m).

    Forward: to the side of the yaw axis where the tool point is at zero readings (the side the
    solver faces targets on).

    Independent of the package: the pose's tool point, turned back by the yaw reading about the
    yaw axis as designed, is compared with the zero pose's. True for an arm without a yaw;
    None when either point is within ``margin`` of the plane through the yaw axis across the
    arm (undecided).
    """
    if 'yaw' not in DESKTOP_JOINTS[arm.shape]:
        return True
    yaw, pair = arm.axes[0], arm.axes[1]
    pivot = chain_tip(arm.urdf, arm.base, 'yaw_link', {})
    side = np.cross(pair, yaw)
    side /= np.linalg.norm(side)
    zero = float(np.dot(chain_tip(arm.urdf, arm.base, arm.tip, {}) - pivot, side))
    tool = chain_tip(arm.urdf, arm.base, arm.tip, dict(zip(arm.joints, readings)))
    back = _axis_angle(yaw, -float(readings[0])) @ (tool - pivot)
    along = float(np.dot(back, side))
    if abs(zero) < margin or abs(along) < margin:
        return None
    return (zero > 0.0) == (along > 0.0)


# -- desktop arms of 4 and 5 joints (the sim's N-joint tests) ----------------------------------

#: yaw + pair + pitch: a mount joint turned by 90 degrees below the yaw, the shoulder 30 mm out
#: and 50 mm up from the yaw axis, a kinked upper arm (rpy pitch 0.2 at the elbow), a continuous
#: wrist pitch, the tool 60 mm beyond it; stretched out horizontally at zero readings.
YAW_PAIR_PITCH = robot_xml(
    '<link name="table"/>', link_xml('base_link', '0.5'), link_xml('turret', '0.3'),
    link_xml('upper_arm', '0.2'), link_xml('forearm', '0.15'), link_xml('wrist', '0.1'),
    '<link name="tool"/>',
    joint_xml('mount', 'fixed', 'table', 'base_link', '0.1 0.2 0', '0 0 1.5707963267948966'),
    joint_xml('base_yaw', 'revolute', 'base_link', 'turret', '0 0 0.04', axis='0 0 1',
              limit='lower="-2.8" upper="2.8"'),
    joint_xml('shoulder', 'revolute', 'turret', 'upper_arm', '0.03 0 0.05', axis='0 1 0',
              limit='lower="-1.6" upper="1.6"'),
    joint_xml('elbow', 'revolute', 'upper_arm', 'forearm', '0.12 0 0.01', '0 0.2 0',
              axis='0 -1 0', limit='lower="-2.5" upper="2.5"'),
    joint_xml('wrist_pitch', 'continuous', 'forearm', 'wrist', '0.11 0 0', axis='0 1 0',
              limit=''),
    joint_xml('tool_joint', 'fixed', 'wrist', 'tool', '0.06 0 0'))

#: yaw + pair + pitch + roll, the tool 8 mm off the roll axis, a prismatic gripper finger off
#: the chain and a second finger that mimics it, and a rail above base_link (not simulated).
YAW_PAIR_PITCH_ROLL_GRIPPER = robot_xml(
    '<link name="world"/>', link_xml('base_link', '0.5'), link_xml('turret', '0.3'),
    link_xml('upper_arm', '0.2'), link_xml('forearm', '0.15'), link_xml('wrist', '0.1'),
    link_xml('hand', '0.1'), link_xml('finger', '0.02'), link_xml('finger_mirror', '0.02'),
    '<link name="tool"/>',
    joint_xml('rail', 'prismatic', 'world', 'base_link', axis='1 0 0',
              limit='lower="0" upper="0.5"'),
    joint_xml('yaw', 'revolute', 'base_link', 'turret', '0 0 0.04', axis='0 0 1',
              limit='lower="-2.8" upper="2.8"'),
    joint_xml('shoulder', 'revolute', 'turret', 'upper_arm', '0.03 0 0.05', axis='0 1 0',
              limit='lower="-1.6" upper="1.6"'),
    joint_xml('elbow', 'revolute', 'upper_arm', 'forearm', '0.12 0 0', axis='0 1 0',
              limit='lower="-2.5" upper="2.5"'),
    joint_xml('wrist_pitch', 'revolute', 'forearm', 'wrist', '0.11 0 0', axis='0 1 0',
              limit='lower="-1.8" upper="1.8"'),
    joint_xml('wrist_roll', 'revolute', 'wrist', 'hand', '0.03 0 0', axis='1 0 0',
              limit='lower="-3.0" upper="3.0"'),
    joint_xml('tool_joint', 'fixed', 'hand', 'tool', '0.05 0.008 0'),
    joint_xml('gripper', 'prismatic', 'hand', 'finger', '0.02 0.01 0', axis='0 1 0',
              limit='lower="0.005" upper="0.03"'),
    '<joint name="gripper_mirror" type="prismatic"><parent link="hand"/>'
    '<child link="finger_mirror"/><origin xyz="0.02 -0.01 0"/><axis xyz="0 -1 0"/>'
    '<limit lower="0.005" upper="0.03" effort="10" velocity="1"/>'
    '<mimic joint="gripper"/></joint>')

# The sim's arms are desktop arms too (their reading is checked with the others).
FIXED_DESKTOP_ARMS.update({
    'sim_yaw_pair_pitch': (YAW_PAIR_PITCH, 'table', 'tool',
                           ('base_yaw', 'shoulder', 'elbow', 'wrist_pitch'), 'yaw + pair + pitch'),
    'sim_yaw_pair_pitch_roll': (YAW_PAIR_PITCH_ROLL_GRIPPER, 'base_link', 'tool',
                                ('yaw', 'shoulder', 'elbow', 'wrist_pitch', 'wrist_roll'),
                                'yaw + pair + pitch + roll'),
})


def with_elements(urdf: str, *parts: str) -> str:
    """Return ``urdf`` with more elements (``link_xml``, ``joint_xml``...) before its end."""
    return urdf.replace('</robot>', ''.join(parts) + '</robot>')


def with_fixed_links(urdf: str, count: int, parent: str = 'base_link') -> str:
    """Return ``urdf`` with ``count`` more links, each hung from ``parent`` by a fixed joint."""
    return with_elements(urdf, *(f'<link name="extra{i}"/>' + joint_xml(
        f'extra_joint{i}', 'fixed', parent, f'extra{i}') for i in range(count)))
