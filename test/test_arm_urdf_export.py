"""Tests of two_bone_ik.arm.urdf_export: the generated URDF and its MuJoCo import."""

import dataclasses
import math
from pathlib import Path
import xml.etree.ElementTree as ET

import mujoco
import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.arm.params_file import load_arm_config
from two_bone_ik.arm.urdf_export import arm_urdf
from two_bone_ik.arm.urdf_export import default_link_radius
from two_bone_ik.arm.urdf_export import OPEN_SIDE_SPAN
from two_bone_ik.arm.urdf_export import rpy_of
from two_bone_ik.arm.urdf_export import urdf_joint_limits
from two_bone_ik.arm.urdf_import import arm_from_urdf

REPO = Path(__file__).resolve().parents[1]

#: What the README promises: links of 2 kg/m, at least 0.05 kg each.
LINEAR_DENSITY = 2.0
MIN_LINK_MASS = 0.05
#: The planar arms' params files in config/ (the controllers YAML describes no arm; the
#: desktop arms' are tested in test_config_so101.py and test_arm_desktop_config.py).
CONFIGS = sorted(path for path in (REPO / 'config').glob('*.yaml')
                 if path.name not in ('ros2_controllers.yaml', 'so101.yaml'))

#: Extra arms covering the third plane, half-open limits and a zero-length link.
EXTRA_ARMS = {
    'yz_half_open': ArmConfig(link_lengths=(0.4, 0.15), joint_names=('j1', 'j2'),
                              base_frame='arm_base', plane='yz',
                              joint_lower_limits=(-1.0, -math.inf),
                              joint_upper_limits=(math.inf, 0.5)),
    'xz_zero_link': ArmConfig(link_lengths=(0.2, 0.0), plane='xz'),
    'raised_up_reversed': ArmConfig(link_lengths=(0.9, 1.0), plane='xz',
                                    shoulder_position=(0.0, 0.2, 1.95),
                                    joint_zero_angles=(math.pi / 2, 0.0),
                                    joint_directions=(-1, -1),
                                    joint_lower_limits=(-1.0, -2.0),
                                    joint_upper_limits=(1.0, 2.0)),
    'offset_odd_zeros': ArmConfig(link_lengths=(0.13, 0.124), plane='yz',
                                  shoulder_position=(-0.3, 0.05, 0.06),
                                  joint_zero_angles=(1.385, -1.385),
                                  joint_directions=(1, -1)),
}


def _arms():
    arms = [pytest.param(load_arm_config(path), id=path.stem) for path in CONFIGS]
    arms += [pytest.param(config, id=name) for name, config in EXTRA_ARMS.items()]
    return arms


def test_shipped_configs_exist():
    names = {path.name for path in CONFIGS}
    assert {'two_bone_ik.yaml', 'servo_arm.yaml'} <= names


def _floats(text):
    return [float(v) for v in text.split()]


@pytest.mark.parametrize('config', _arms())
def test_structure_follows_config(config):
    robot = ET.fromstring(arm_urdf(config, robot_name='my_arm'))
    assert robot.tag == 'robot' and robot.get('name') == 'my_arm'
    links = [link.get('name') for link in robot.findall('link')]
    assert links == [config.base_frame, 'link1', 'link2', 'tool']
    joints = {joint.get('name'): joint for joint in robot.findall('joint')}
    assert list(joints) == [*config.joint_names, 'tool_joint']

    chain = [(config.base_frame, 'link1'), ('link1', 'link2'), ('link2', 'tool')]
    for joint, (parent, child) in zip(joints.values(), chain):
        assert joint.find('parent').get('link') == parent
        assert joint.find('child').get('link') == child
    assert joints['tool_joint'].get('type') == 'fixed'

    # Joint frames: link 1's frame at the shoulder, x along link 1 at zero readings, z along
    # the plane's normal u x v; link 2's turned by its zero angle; the tool at l2 along x.
    geometry = ArmGeometry.from_config(config)
    l1, l2 = config.link_lengths
    z1, z2 = config.joint_zero_angles
    x1 = np.cos(z1) * np.array(geometry.u_axis) + np.sin(z1) * np.array(geometry.v_axis)
    origins = [(list(config.shoulder_position), list(rpy_of(x1, geometry.normal))),
               ([l1, 0.0, 0.0], [0.0, 0.0, z2]), ([l2, 0.0, 0.0], [0.0, 0.0, 0.0])]
    for joint, (xyz, rpy) in zip(joints.values(), origins):
        assert _floats(joint.find('origin').get('xyz')) == xyz
        assert _floats(joint.find('origin').get('rpy')) == pytest.approx(rpy, abs=1e-15)

    for i, name in enumerate(config.joint_names):
        joint = joints[name]
        assert _floats(joint.find('axis').get('xyz')) == [0.0, 0.0, config.joint_directions[i]]
        lo, hi = config.joint_lower_limits[i], config.joint_upper_limits[i]
        limit = joint.find('limit')
        assert float(limit.get('effort')) > 0.0 and float(limit.get('velocity')) > 0.0
        if math.isinf(lo) and math.isinf(hi):
            assert joint.get('type') == 'continuous'
            assert limit.get('lower') is None and limit.get('upper') is None
        else:
            assert joint.get('type') == 'revolute'
            urdf_lo, urdf_hi = float(limit.get('lower')), float(limit.get('upper'))
            assert urdf_lo == (hi - OPEN_SIDE_SPAN if math.isinf(lo) else lo)
            assert urdf_hi == (lo + OPEN_SIDE_SPAN if math.isinf(hi) else hi)

    u_index = 0  # each link's frame has x along the link
    for name, length in zip(('link1', 'link2'), config.link_lengths):
        link = robot.find(f"link[@name='{name}']")
        inertial = link.find('inertial')
        mass, axial, transverse = _expected_inertial(config, length)
        assert float(inertial.find('mass').get('value')) == pytest.approx(mass, rel=1e-12)
        com = [0.0, 0.0, 0.0]
        com[u_index] = 0.5 * length  # the middle of the link
        assert _floats(inertial.find('origin').get('xyz')) == pytest.approx(com, abs=1e-15)
        inertia = inertial.find('inertia')
        diagonal = [float(inertia.get(k)) for k in ('ixx', 'iyy', 'izz')]
        expected = [transverse, transverse, transverse]
        expected[u_index] = axial  # the cylinder's own axis is the link
        assert diagonal == pytest.approx(expected, rel=1e-12)
        assert [float(inertia.get(k)) for k in ('ixy', 'ixz', 'iyz')] == [0.0, 0.0, 0.0]
        # A hub at the joint, and a cylinder along the link unless it has no length.
        assert len(link.findall('visual')) == (2 if length > 0.0 else 1)
    assert robot.find(f"link[@name='{config.base_frame}']").find('inertial') is None


def _expected_inertial(config, length):
    """(mass kg, axial and transverse inertia kg m^2) of a link: a solid cylinder."""
    mass = max(LINEAR_DENSITY * length, MIN_LINK_MASS)
    radius = default_link_radius(config)
    return (mass, mass * radius ** 2 / 2.0, mass * (3.0 * radius ** 2 + length ** 2) / 12.0)


def test_joint_limit_mapping():
    assert urdf_joint_limits(-math.inf, math.inf) is None
    assert urdf_joint_limits(-1.0, 2.0) == (-1.0, 2.0)
    assert urdf_joint_limits(-math.inf, 0.5) == (0.5 - 2 * math.tau, 0.5)
    assert urdf_joint_limits(-0.5, math.inf) == (-0.5, -0.5 + 2 * math.tau)


def test_bad_generator_settings_are_rejected():
    with pytest.raises(ValueError, match='link_radius'):
        arm_urdf(ArmConfig(), link_radius=-0.01)
    with pytest.raises(ValueError, match='linear_density'):
        arm_urdf(ArmConfig(), linear_density=math.nan)
    with pytest.raises(ValueError, match='base_frame'):
        arm_urdf(ArmConfig(base_frame='tool'))
    with pytest.raises(ValueError, match='joint_names'):
        arm_urdf(ArmConfig(joint_names=('tool_joint', 'elbow')))


def test_names_are_escaped():
    config = ArmConfig(joint_names=('a"<b>', 'c&d'), base_frame="o'base")
    robot = ET.fromstring(arm_urdf(config))
    assert [j.get('name') for j in robot.findall('joint')][:2] == ['a"<b>', 'c&d']
    assert robot.find('link').get('name') == "o'base"


def _mujoco_model(config, **kwargs):
    return mujoco.MjModel.from_xml_string(arm_urdf(config, **kwargs))


@pytest.mark.parametrize('config', _arms())
def test_mujoco_loads_it(config):
    model = _mujoco_model(config)
    bodies = [model.body(i).name for i in range(model.nbody)]
    assert bodies == ['world', config.base_frame, 'link1', 'link2', 'tool']
    assert [model.joint(i).name for i in range(model.njnt)] == list(config.joint_names)
    assert all(model.jnt_type == mujoco.mjtJoint.mjJNT_HINGE)
    # Every URDF visual becomes a geom (discardvisual="false"): base pedestal, a hub per joint,
    # a cylinder per link with length, the tool sphere.
    visuals = len(ET.fromstring(arm_urdf(config)).findall('link/visual'))
    assert visuals == 4 + sum(length > 0.0 for length in config.link_lengths)
    assert model.ngeom == visuals
    for name, length in zip(('link1', 'link2'), config.link_lengths):
        mass, axial, transverse = _expected_inertial(config, length)
        body = model.body(name)
        assert body.mass[0] == pytest.approx(mass, rel=1e-12)
        # MuJoCo keeps the principal moments (its own order): one axial, two transverse.
        assert sorted(body.inertia) == pytest.approx(sorted([axial, transverse, transverse]),
                                                     rel=1e-9)
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    normal = np.array(ArmGeometry.from_config(config).normal)
    for i in range(2):
        # The joint axis in base_frame (MuJoCo's world): +-(u x v) by the joint's direction.
        np.testing.assert_allclose(data.xaxis[i], config.joint_directions[i] * normal,
                                   atol=1e-15)
        expected = urdf_joint_limits(config.joint_lower_limits[i], config.joint_upper_limits[i])
        assert bool(model.jnt_limited[i]) == (expected is not None)
        if expected is not None:
            np.testing.assert_array_equal(model.jnt_range[i], expected)


@pytest.mark.parametrize('config', _arms())
def test_mujoco_forward_kinematics_is_the_arms(config):
    # MuJoCo, reading the file on its own, puts the tool and the elbow where the arm's
    # geometry (shoulder, plane, zero angles, directions) says, for any joint readings.
    model = _mujoco_model(config)
    data = mujoco.MjData(model)
    tool, link2 = model.body('tool').id, model.body('link2').id
    geometry = ArmGeometry.from_config(config)
    rng = np.random.default_rng(0)
    for readings in rng.uniform(-2.0 * math.pi, 2.0 * math.pi, size=(500, 2)):
        data.qpos[:] = readings
        mujoco.mj_kinematics(model, data)
        np.testing.assert_allclose(data.xpos[tool], geometry.tip_position(readings),
                                   rtol=0.0, atol=1e-9)
        np.testing.assert_allclose(data.xpos[link2], geometry.elbow_position(readings),
                                   rtol=0.0, atol=1e-9)


@pytest.mark.parametrize('config', _arms())
def test_importing_the_generated_file_gives_back_the_arm(config):
    # YAML -> URDF -> node: the same arm.
    written = ArmGeometry.from_config(config)
    read = arm_from_urdf(arm_urdf(config), config.base_frame, 'tool')
    assert (read.joint_names, read.base_frame, read.directions) == \
        (written.joint_names, written.base_frame, written.directions)
    for field in ('shoulder_position', 'u_axis', 'v_axis', 'link_lengths'):
        np.testing.assert_allclose(getattr(read, field), getattr(written, field), atol=1e-12)
    if config.link_lengths[1] > 0.0:
        np.testing.assert_allclose(read.zero_angles, written.zero_angles, atol=1e-12)
    else:  # no link 2 to point anywhere: its zero angle is undefined and read as 0
        assert read.zero_angles[0] == pytest.approx(written.zero_angles[0], abs=1e-12)
    urdf_limits = [urdf_joint_limits(lo, hi) for lo, hi in
                   zip(config.joint_lower_limits, config.joint_upper_limits)]
    for i, limits in enumerate(urdf_limits):
        expected = (-math.inf, math.inf) if limits is None else limits
        assert (read.lower_limits[i], read.upper_limits[i]) == expected


def test_rpy_of_reproduces_the_frame():
    rng = np.random.default_rng(1)
    for _ in range(200):
        x = rng.normal(size=3)
        x /= np.linalg.norm(x)
        z = np.cross(x, rng.normal(size=3))
        z /= np.linalg.norm(z)
        roll, pitch, yaw = rpy_of(x, z)
        cr, sr, cp, sp, cy, sy = (np.cos(roll), np.sin(roll), np.cos(pitch), np.sin(pitch),
                                  np.cos(yaw), np.sin(yaw))
        rotation = np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                             [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                             [-sp, cp * sr, cp * cr]])
        np.testing.assert_allclose(rotation[:, 0], x, atol=1e-12)
        np.testing.assert_allclose(rotation[:, 2], z, atol=1e-12)


def test_without_extension_mujoco_fuses_the_tool_away():
    # Why the <mujoco> block exists: MuJoCo's URDF defaults fuse fixed links and drop visuals.
    text = arm_urdf(ArmConfig(), mujoco_extension=False)
    assert '<mujoco>' not in text
    model = mujoco.MjModel.from_xml_string(text)
    assert 'tool' not in [model.body(i).name for i in range(model.nbody)]
    assert model.ngeom == 0


# -- ros2_control -------------------------------------------------------------------------------
# What ros2_control (Jazzy) reads, from hardware_interface/src/component_parser.cpp: <ros2_control
# name= type=> holding <hardware><plugin>NAME</plugin><param name=...>...</hardware> and per
# joint <joint name=> with <command_interface name=> / <state_interface name=>, whose <param>s
# "min" and "max" bound a command. Plugin names from the pluginlib descriptions:
# ros2_control's mock_components_plugin_description.xml and gz_ros2_control's
# gz_hardware_plugins.xml; the Gazebo system plugin from gz_ros2_control's docs and demos.

HARDWARE = {'mock': 'mock_components/GenericSystem',
            'gazebo': 'gz_ros2_control/GazeboSimSystem'}
#: mock_components/GenericSystem's hardware parameters (mock_components_userdoc.rst).
GENERIC_SYSTEM_PARAMETERS = {'calculate_dynamics', 'custom_interface_with_following_offset',
                             'disable_commands', 'mock_gpio_commands', 'mock_sensor_commands',
                             'position_state_following_offset'}
CONTROLLERS_FILE = '/opt/arm/config/ros2_controllers.yaml'


def _with_control(config, kind, **kwargs):
    files = {'controllers_file': CONTROLLERS_FILE} if kind == 'gazebo' else {}
    return arm_urdf(config, ros2_control=kind, **files, **kwargs)


def _params(element):
    return {param.get('name'): param.text for param in element.findall('param')}


@pytest.mark.parametrize('kind', ['mock', 'gazebo'])
@pytest.mark.parametrize('config', _arms())
def test_ros2_control_block(config, kind):
    robot = ET.fromstring(_with_control(config, kind, robot_name='my_arm'))
    (control,) = robot.findall('ros2_control')
    assert control.attrib == {'name': 'my_arm', 'type': 'system'}
    assert [child.tag for child in control] == ['hardware', 'joint', 'joint']
    hardware = control.find('hardware')
    assert [child.tag for child in hardware][0] == 'plugin'
    assert hardware.find('plugin').text == HARDWARE[kind]
    parameters = _params(hardware)
    if kind == 'mock':
        assert parameters == {'calculate_dynamics': 'true'}
        assert set(parameters) <= GENERIC_SYSTEM_PARAMETERS
    else:
        assert parameters == {}
    joints = control.findall('joint')
    assert [joint.get('name') for joint in joints] == list(config.joint_names)
    for joint, lower, upper in zip(joints, config.joint_lower_limits, config.joint_upper_limits):
        assert [child.tag for child in joint] == ['command_interface', 'state_interface',
                                                  'state_interface']
        (command,) = joint.findall('command_interface')
        assert command.attrib == {'name': 'position'}
        # The arm's own limits (not the URDF's closed half-open range), only where finite.
        expected = {bound: value for bound, value in (('min', lower), ('max', upper))
                    if math.isfinite(value)}
        assert {k: float(v) for k, v in _params(command).items()} == expected
        assert [state.attrib for state in joint.findall('state_interface')] == \
            [{'name': 'position'}, {'name': 'velocity'}]
        assert all(len(state) == 0 for state in joint.findall('state_interface'))
    gazebo = robot.findall('gazebo')
    if kind == 'mock':
        assert gazebo == []
    else:
        (element,) = gazebo
        (plugin,) = element.findall('plugin')
        assert plugin.attrib == {'filename': 'gz_ros2_control-system',
                                 'name': 'gz_ros2_control::GazeboSimROS2ControlPlugin'}
        assert [child.tag for child in plugin] == ['parameters']
        assert plugin.find('parameters').text == CONTROLLERS_FILE
    # Everything else is the plain URDF's.
    for extra in robot.findall('ros2_control') + gazebo:
        robot.remove(extra)
    plain = arm_urdf(config, robot_name='my_arm')
    assert ET.canonicalize(ET.tostring(robot), strip_text=True) == \
        ET.canonicalize(plain, strip_text=True)


def test_ros2_control_names_and_path_are_escaped():
    config = ArmConfig(joint_names=('a"<b>', 'c&d'))
    robot = ET.fromstring(arm_urdf(config, robot_name='r&"', ros2_control='gazebo',
                                   controllers_file='/x/<a&b>.yaml'))
    control = robot.find('ros2_control')
    assert control.get('name') == 'r&"'
    assert [joint.get('name') for joint in control.findall('joint')] == ['a"<b>', 'c&d']
    assert robot.find('gazebo/plugin/parameters').text == '/x/<a&b>.yaml'


def test_bad_ros2_control_settings_are_rejected():
    with pytest.raises(ValueError, match="ros2_control: expected one of mock, gazebo, got 'gz'"):
        arm_urdf(ArmConfig(), ros2_control='gz')
    with pytest.raises(ValueError, match='controllers_file: the Gazebo plugin needs'):
        arm_urdf(ArmConfig(), ros2_control='gazebo')
    # A mock system needs no controllers file (the controller manager gets it on its command
    # line); without ros2_control the file is not used.
    assert '<gazebo>' not in arm_urdf(ArmConfig(), ros2_control='mock',
                                      controllers_file=CONTROLLERS_FILE)
    assert '<ros2_control' not in arm_urdf(ArmConfig(), controllers_file=CONTROLLERS_FILE)


@pytest.mark.parametrize('kind', ['mock', 'gazebo'])
def test_urdf_with_ros2_control_still_reads_as_the_arm(kind):
    # robot_state_publisher hands the description with the block to everyone: the IK node's
    # importer and MuJoCo read the same arm from it.
    config = load_arm_config(REPO / 'config' / 'servo_arm.yaml')
    text = _with_control(config, kind)
    read = arm_from_urdf(text, config.base_frame, 'tool')
    assert read == arm_from_urdf(arm_urdf(config), config.base_frame, 'tool')
    model = mujoco.MjModel.from_xml_string(text)
    assert [model.joint(i).name for i in range(model.njnt)] == list(config.joint_names)


# -- desktop arms ----------------------------------------------------------------------------


def _desktop_config():
    from two_bone_ik.arm.desktop_config import DesktopConfig
    return DesktopConfig(joint_names=('yaw', 'lift', 'elbow', 'flex', 'roll'), plane='xz',
                         link_lengths=(0.12, 0.13), shoulder_position=(0.03, 0.0, 0.1),
                         joint_lower_limits=(-2.0, -1.5, -math.inf, -1.0, -math.inf),
                         joint_upper_limits=(2.0, 1.5, 2.0, 1.0, math.inf))


def test_desktop_urdf_structure_and_limits():
    from two_bone_ik.arm.urdf_export import desktop_urdf
    config = _desktop_config()
    robot = ET.fromstring(desktop_urdf(config, robot_name='desk', ros2_control='mock'))
    assert robot.get('name') == 'desk'
    assert [link.get('name') for link in robot.findall('link')] == [
        'base_link', 'turntable', 'link1', 'link2', 'wrist', 'hand', 'tool']
    joints = {joint.get('name'): joint for joint in robot.findall('joint')}
    assert list(joints) == ['yaw', 'lift', 'elbow', 'flex', 'roll', 'tool_joint']
    assert joints['roll'].get('type') == 'continuous'
    # A half-open side is closed two turns beyond the finite one, as for planar arms.
    assert float(joints['elbow'].find('limit').get('lower')) == pytest.approx(2.0 - OPEN_SIDE_SPAN)
    control = robot.find('ros2_control')
    assert [j.get('name') for j in control.findall('joint')] == list(config.joint_names)
    bounds = {j.get('name'): {p.get('name'): float(p.text) for p in j.iter('param')}
              for j in control.findall('joint')}
    assert bounds['yaw'] == {'min': -2.0, 'max': 2.0} and bounds['roll'] == {}


def test_desktop_urdf_loads_in_mujoco_with_every_joint():
    from two_bone_ik.arm.urdf_export import desktop_urdf
    config = _desktop_config()
    model = mujoco.MjModel.from_xml_string(desktop_urdf(config))
    assert model.njnt == 5 and all(model.jnt_type == mujoco.mjtJoint.mjJNT_HINGE)
    assert model.body('tool').id > 0


def test_desktop_urdf_refuses_clashing_names():
    from two_bone_ik.arm.desktop_config import DesktopConfig
    from two_bone_ik.arm.urdf_export import desktop_urdf
    with pytest.raises(ValueError, match="base_frame: 'wrist' clashes with a generated link"):
        desktop_urdf(DesktopConfig(base_frame='wrist'))
    with pytest.raises(ValueError, match="joint_names: 'tool_joint' is the name of the "
                                         'generated fixed joint'):
        desktop_urdf(DesktopConfig(joint_names=('a', 'b', 'c', 'tool_joint')))


def test_desktop_urdf_with_a_gripper_off_the_chain():
    from two_bone_ik.arm.desktop_config import DesktopConfig
    from two_bone_ik.arm.desktop_geometry import arm_from_description
    from two_bone_ik.arm.urdf_export import desktop_urdf
    config = dataclasses.replace(_desktop_config(), gripper_joint='gripper',
                                 gripper_limits=(-0.17, 1.75), tool_offset=(0.1, 0.0, 0.0))
    text = desktop_urdf(config, ros2_control='mock')
    robot = ET.fromstring(text)
    joints = {joint.get('name'): joint for joint in robot.findall('joint')}
    jaw = joints['gripper']
    assert (jaw.get('type'), jaw.find('parent').get('link'), jaw.find('child').get('link')) == (
        'revolute', 'hand', 'jaw')
    assert jaw.find('origin').get('xyz') == '0.05 0 0'   # halfway to the tool
    assert (float(jaw.find('limit').get('lower')), float(jaw.find('limit').get('upper'))) == (
        -0.17, 1.75)
    # Not in <ros2_control> (the arm's controllers), and the chain reads as before.
    assert 'gripper' not in [j.get('name') for j in robot.find('ros2_control').findall('joint')]
    geometry = arm_from_description(text, 'base_link', 'tool')
    assert geometry.joint_names == config.joint_names
    # MuJoCo simulates it beside the arm's joints, within its limits.
    model = mujoco.MjModel.from_xml_string(text)
    assert model.njnt == 6
    assert list(model.jnt_range[model.joint('gripper').id]) == pytest.approx([-0.17, 1.75])
    # Unlimited: continuous. A clash with the generated names is refused.
    open_jaw = desktop_urdf(dataclasses.replace(config, gripper_limits=(-math.inf, math.inf)))
    assert '<joint name="gripper" type="continuous">' in open_jaw
    with pytest.raises(ValueError, match="gripper_joint: 'tool_joint' is the name of the "
                                         'generated fixed joint'):
        desktop_urdf(dataclasses.replace(config, gripper_joint='tool_joint'))
    with pytest.raises(ValueError, match="base_frame: 'jaw' clashes with a generated link"):
        desktop_urdf(DesktopConfig(base_frame='jaw', gripper_joint='gripper'))
