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


def with_elements(urdf: str, *parts: str) -> str:
    """Return ``urdf`` with more elements (``link_xml``, ``joint_xml``...) before its end."""
    return urdf.replace('</robot>', ''.join(parts) + '</robot>')


def with_fixed_links(urdf: str, count: int, parent: str = 'base_link') -> str:
    """Return ``urdf`` with ``count`` more links, each hung from ``parent`` by a fixed joint."""
    return with_elements(urdf, *(f'<link name="extra{i}"/>' + joint_xml(
        f'extra_joint{i}', 'fixed', parent, f'extra{i}') for i in range(count)))
