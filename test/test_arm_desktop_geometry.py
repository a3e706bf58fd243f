"""Tests of two_bone_ik.arm.desktop_geometry: a desktop arm's shape and geometry from its chain.

The oracles are MuJoCo's URDF loader (:class:`fk_oracle.MujocoChain`) and the published figures
the fixed test arms are written from (:mod:`urdf_arms`).
"""

import math

from fk_oracle import MujocoChain
import numpy as np
import pytest

from two_bone_ik.arm import desktop_geometry, urdf_import
from two_bone_ik.arm.desktop_geometry import (
    arm_from_description, ArmShapeError, AXIS_TOLERANCE, desktop_from_chain, DesktopGeometry)
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.arm.urdf_import import arm_from_urdf, chain_from_urdf, UrdfError
from urdf_arms import (
    DESKTOP_JOINTS, FIXED_DESKTOP_ARMS, joint_xml, link_xml, OFFSET_ZEROS, RAISED_UP,
    random_desktop_arm, random_planar_arm, random_readings, robot_xml, SCARA)

SHAPES = tuple(DESKTOP_JOINTS)


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('seed', range(6))
def test_random_arms_read_as_their_shape_and_kinematics(shape, seed):
    rng = np.random.default_rng(900 + seed)
    arm = random_desktop_arm(rng, shape, axis_error=(0.0, 1e-5, 9e-4)[seed % 3],
                             roll_at_tip=seed % 2 == 1)
    geometry = arm_from_description(arm.urdf, arm.base, arm.tip)
    assert isinstance(geometry, DesktopGeometry)
    assert (geometry.shape, geometry.joint_names) == (shape, arm.joints)  # no gripper
    assert tuple(zip(geometry.lower_limits, geometry.upper_limits)) == arm.limits
    assert geometry.model.exact == (seed % 3 == 0)
    oracle = MujocoChain(arm.urdf, arm.base, arm.tip, arm.joints)
    scale = sum(geometry.reach) + 1.0
    for _ in range(10):
        readings = [rng.uniform(max(lo, -4.0), min(hi, 4.0)) for lo, hi in arm.limits]
        tool = oracle.tool(readings)
        np.testing.assert_allclose(geometry.tool_position(readings), tool, rtol=0,
                                   atol=1e-12 * scale)
        np.testing.assert_allclose(geometry.arm_points(readings)[4], tool, rtol=0,
                                   atol=1e-12 * scale)
        # The ideal arm is the real one to within its model error (to rounding when exact).
        yaw, points, lateral = geometry.model.plane_points(readings)
        ideal = geometry.model.to_world(yaw, points[3][0], points[3][1], lateral)
        assert np.linalg.norm(np.array(ideal) - tool) <= geometry.model.model_error + 1e-12


def _axes_off(geometry, readings):
    """Return the pair's plane at readings: the wrist point lies on it, at the pair's tip."""
    plane = geometry.pair_plane(readings)
    _, i1, i2, _, _ = geometry.model.indices
    return plane, plane.tip_position((readings[i1], readings[i2]))


@pytest.mark.parametrize('name', sorted(FIXED_DESKTOP_ARMS))
def test_pair_plane_and_arm_points(name):
    urdf, base, tip, joints, _ = FIXED_DESKTOP_ARMS[name]
    geometry = arm_from_description(urdf, base, tip)
    rng = np.random.default_rng(3)
    for _ in range(5):
        readings = random_readings(rng, geometry.lower_limits, geometry.upper_limits)
        plane, wrist = _axes_off(geometry, readings)
        assert isinstance(plane, ArmGeometry)
        base_point, shoulder, elbow, wrist_point, _ = geometry.arm_points(readings)
        np.testing.assert_allclose(wrist, wrist_point, atol=1e-12)
        np.testing.assert_allclose(plane.shoulder_position, shoulder, atol=1e-12)
        assert np.linalg.norm(np.subtract(elbow, shoulder)) == pytest.approx(
            plane.link_lengths[0], abs=1e-12)
        # The plane turns with the yaw: its v axis is up, its normal the pair's axis.
        assert plane.v_axis == geometry.model.up


def test_so101_like_reads_as_its_published_figures():
    urdf, base, tip, joints, _ = FIXED_DESKTOP_ARMS['so101_like']
    geometry = arm_from_description(urdf, base, tip)
    model = geometry.model
    assert geometry.shape == 'yaw + pair + pitch + roll' and geometry.joint_names == joints
    assert geometry.axis_error == pytest.approx(abs(math.pi / 2 - 1.5708), rel=1e-3)
    assert not model.exact
    close = {'abs': 2e-6}
    assert model.link_lengths[0] == pytest.approx(math.hypot(0.1126, 0.028), **close)
    assert model.link_lengths[1] == pytest.approx(math.hypot(0.1349, 0.0052), **close)
    # The shoulder 30 mm out from the pan axis and 62 + 54 mm up; the upper arm's 14 degree
    # kink; the tool 61.1 + 98.1 mm along the roll axis, 7.9 mm off it, 18.1 mm aside.
    assert model.shoulder == pytest.approx((0.030, 0.116), **close)
    assert math.degrees(math.atan2(0.028, 0.1126)) == pytest.approx(14.0, abs=0.05)
    assert model.max_tool_length() == pytest.approx(math.hypot(0.1592, 0.0079), **close)
    assert abs(model.tool_at(0.0).lateral) == pytest.approx(0.0181, **close)
    assert abs(model.tool_at(math.pi / 2).lateral) == pytest.approx(0.0181 + 0.0079, **close)


def test_omx_like_reads_as_its_published_figures():
    urdf, base, tip, joints, _ = FIXED_DESKTOP_ARMS['omx_like']
    geometry = arm_from_description(urdf, base, tip)
    model = geometry.model
    assert (geometry.shape, geometry.joint_names) == ('yaw + pair + pitch', joints)
    assert model.exact and geometry.axis_error < 1e-15
    assert model.link_lengths == pytest.approx((math.hypot(0.024, 0.128), 0.124), abs=1e-15)
    assert model.zero_angles[0] == pytest.approx(math.atan2(0.128, 0.024), abs=1e-15)
    assert model.shoulder == pytest.approx((0.0, 0.017 + 0.0595), abs=1e-15)
    assert model.max_tool_length() == pytest.approx(0.126, abs=1e-15)
    assert model.wrist_lateral == 0.0
    line = geometry.describe()
    assert '\n' not in line and line.startswith("yaw + pair + pitch arm in 'omx_base'")


def test_a_tip_joint_parallel_to_the_pair_only_turns_the_tip():
    # OpenManipulator-X-like to the wrist link: the wrist joint's child is the tip.
    urdf = FIXED_DESKTOP_ARMS['omx_like'][0]
    geometry = arm_from_description(urdf, 'omx_base', 'palm')
    assert (geometry.shape, geometry.joint_names) == ('yaw + pair', ('waist', 'shoulder',
                                                                     'elbow'))


def test_a_tip_joint_perpendicular_to_the_pitch_is_the_roll():
    rng = np.random.default_rng(11)
    arm = random_desktop_arm(rng, 'yaw + pair + pitch + roll', roll_at_tip=True)
    geometry = arm_from_description(arm.urdf, arm.base, arm.tip)
    assert geometry.shape == 'yaw + pair + pitch + roll'
    assert geometry.model.tool[1] == (0.0, 0.0, 0.0)  # the tool point on the roll axis


@pytest.mark.parametrize('text, base, tip', [
    (RAISED_UP, 'base_link', ''), (SCARA, 'base_link', 'tool0'),
    (OFFSET_ZEROS, 'link2', 'link5'),
])
def test_planar_arms_are_todays(text, base, tip):
    assert arm_from_description(text, base, tip) == arm_from_urdf(text, base, tip)


def test_random_planar_arms_are_todays():
    for seed in range(10):
        arm = random_planar_arm(np.random.default_rng(seed))
        assert arm_from_description(arm.urdf, arm.base, arm.tip) == arm_from_urdf(
            arm.urdf, arm.base, arm.tip)
    assert arm_from_description(RAISED_UP, 'base_link', '', (-1.0, -2.0), (1.0, 2.0)) == \
        arm_from_urdf(RAISED_UP, 'base_link', '', (-1.0, -2.0), (1.0, 2.0))


def _chain_text(*axes, rpy=None, tip_axis=None):
    """Return a chain of revolute joints j0.. with the given local axes, 0.1 m apart along x."""
    parts = [link_xml('base')]
    parent = 'base'
    for index, axis in enumerate(axes):
        child = f'l{index}'
        parts += [link_xml(child),
                  joint_xml(f'j{index}', 'revolute', parent, child, '0.1 0 0.02',
                            rpy[index] if rpy else '0 0 0', axis=axis,
                            limit='lower="-2" upper="2"')]
        parent = child
    parts += ['<link name="tool"/>',
              joint_xml('tool_joint', 'revolute' if tip_axis else 'fixed', parent, 'tool',
                        '0.05 0.01 0', axis=tip_axis,
                        limit='lower="-2" upper="2"' if tip_axis else None)]
    return robot_xml(*parts)


@pytest.mark.parametrize('axes, message', [
    (('0 0 1', '0 1 0', '0 1 0', '0 1 0', '1 0 0', '1 0 0'),
     r'has 6 moving joints \(j0, j1, j2, j3, j4, j5\); a desktop arm has 2 to 5'),
    (('0 0.1 1', '0 1 0', '0 1 0'),
     r"read as yaw \+ pair, joints 'j0' and 'j1' have axes 0\.0997 rad from perpendicular"),
    (('0 0 1', '0 1 0', '0.01 1 0', '0 1 0'),
     r"read as yaw \+ pair \+ pitch, joints 'j1' and 'j2' have axes 0\.01 rad from parallel"),
    (('0 0 1', '0 1 0', '0 1 0', '0 1 0', '0 1 0'),
     r"joints 'j3' and 'j4' have axes 1\.57 rad from perpendicular"),
    (('0 1 0', '0 1 0', '0 1 0', '1 0 0'),  # pair + pitch + roll: the roll needs a yaw
     r"read as yaw \+ pair \+ pitch, joints 'j1' and 'j3' have axes 1\.57 rad from "
     'parallel'),
])
def test_other_shapes_are_refused_in_one_line(axes, message):
    with pytest.raises(ArmShapeError, match=message) as caught:
        arm_from_description(_chain_text(*axes), 'base', 'tool')
    assert '\n' not in str(caught.value) and str(caught.value).startswith('robot_description')


def test_axis_tolerance_is_2e_3_rad():
    assert AXIS_TOLERANCE == 2e-3
    inside = math.tan(1.9e-3)
    geometry = arm_from_description(_chain_text('0 0 1', f'{inside!r} 1 0', '0 1 0', '0 1 0'),
                                    'base', 'tool')
    assert geometry.axis_error == pytest.approx(1.9e-3, rel=1e-6)
    outside = math.tan(2.1e-3)
    with pytest.raises(ArmShapeError, match=r'0\.0021 rad from parallel \(tolerance 0\.002'):
        arm_from_description(_chain_text('0 0 1', f'{outside!r} 1 0', '0 1 0', '0 1 0'),
                             'base', 'tool')


def test_a_tool_on_the_wrist_pitch_axis_is_refused():
    limit = 'lower="-1" upper="1"'
    text = robot_xml(
        link_xml('base'), link_xml('a'), link_xml('b'), link_xml('c'), '<link name="tool"/>',
        joint_xml('yaw', 'revolute', 'base', 'a', '0 0 0.1', axis='0 0 1', limit=limit),
        joint_xml('j1', 'revolute', 'a', 'b', '0 0 0.1', axis='0 1 0', limit=limit),
        joint_xml('j2', 'revolute', 'b', 'c', '0.1 0 0', axis='0 1 0', limit=limit),
        joint_xml('j3', 'revolute', 'c', 'tool2', '0.1 0 0', axis='0 1 0', limit=limit),
        link_xml('tool2'), joint_xml('tool_joint', 'fixed', 'tool2', 'tool', '0 0.03 0'))
    with pytest.raises(ArmShapeError, match="lies on the axis of the wrist pitch joint 'j3'"):
        arm_from_description(text, 'base', 'tool')


def test_limits_narrow_the_urdfs_and_must_fit_the_joints():
    urdf, base, tip, joints, _ = FIXED_DESKTOP_ARMS['desktop_4']
    geometry = arm_from_description(urdf, base, tip, (-1.0, -5.0, -5.0, -0.5),
                                    (1.0, 5.0, 1.0, 5.0))
    assert geometry.lower_limits == (-1.0, -1.6, -2.5, -0.5)
    assert geometry.upper_limits == (1.0, 1.6, 1.0, 2.0)
    with pytest.raises(UrdfError, match=r'joint_lower_limits: expected 4 values \(joints '
                                        r'yaw_joint, shoulder_joint, elbow_joint, '
                                        r'pitch_joint\) or none, got 2'):
        arm_from_description(urdf, base, tip, (-1.0, -1.0), (1.0, 1.0))
    with pytest.raises(UrdfError, match="joint 'yaw_joint': lower limit 3.0 is above"):
        arm_from_description(urdf, base, tip, (3.0, -5.0, -5.0, -5.0), ())


def test_a_planar_chain_is_not_a_desktop_arm():
    with pytest.raises(ArmShapeError, match='is a planar pair'):
        desktop_from_chain(chain_from_urdf(SCARA, 'base_link', 'tool0'))


@pytest.mark.parametrize('urdf, base, tip, kind', [
    (RAISED_UP, 'base_link', '', ArmGeometry),
    (SCARA, 'base_link', 'tool0', ArmGeometry),
    (*FIXED_DESKTOP_ARMS['so101_like'][:3], DesktopGeometry),
    (*FIXED_DESKTOP_ARMS['omx_like'][:3], DesktopGeometry),
])
def test_a_description_is_parsed_once_and_its_shape_read_once(
        monkeypatch, urdf, base, tip, kind):
    parses, shapes = [], []
    parse, read = urdf_import.parse_urdf, desktop_geometry.read_shape
    monkeypatch.setattr(urdf_import, 'parse_urdf', lambda text: parses.append(text) or parse(text))
    monkeypatch.setattr(desktop_geometry, 'read_shape',
                        lambda chain: shapes.append(chain) or read(chain))
    geometry = arm_from_description(urdf, base, tip)
    assert isinstance(geometry, kind)
    assert (len(parses), len(shapes)) == (1, 1)
    assert geometry == arm_from_description(urdf, base, tip)  # the same arm every time
