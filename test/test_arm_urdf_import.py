"""Tests of two_bone_ik.arm.urdf_import: any planar two-link arm from its URDF.

The oracle is independent of the importer: :func:`urdf_arms.chain_tip` (ElementTree + numpy,
joint by joint) and MuJoCo's own URDF loader.
"""

import math
import sys
import warnings

import mujoco
import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.arm.urdf_import import arm_from_urdf, arm_geometry, MAX_DESCRIPTION_LENGTH
from two_bone_ik.arm.urdf_import import MAX_JOINT_ELEMENTS, MAX_JOINTS, MAX_LINKS, MAX_TAGS
from two_bone_ik.arm.urdf_import import UrdfError
from two_bone_ik.ik.status import NodeStatus
from two_bone_ik.ik.target_solver import TargetSolver
from two_bone_ik.sim.mujoco_urdf import urdf_for_mujoco
from urdf_arms import chain_tip, HANGING_LEG, joint_xml, link_xml, OFFSET_ZEROS
from urdf_arms import RAISED_UP, random_planar_arm, SCARA, with_elements, with_fixed_links
from urdf_parser_py import urdf as urdf_model

#: Independent FK and the imported arm agree to this, relative to the arm's reach.
TOLERANCE = 1e-9


def _readings_within(rng, limits, count):
    columns = []
    for lo, hi in limits:
        lo = max(lo, -2.0 * math.pi)
        hi = min(hi, 2.0 * math.pi)
        columns.append(rng.uniform(lo, hi, count))
    return np.stack(columns, axis=1)


def _scale(geometry: ArmGeometry) -> float:
    return max(1.0, sum(geometry.link_lengths), max(map(abs, geometry.shoulder_position)))


ARMS = [random_planar_arm(np.random.default_rng(seed)) for seed in range(120)]


@pytest.mark.parametrize('arm', ARMS, ids=[f'arm{i}' for i in range(len(ARMS))])
def test_random_arms_import_to_their_own_kinematics(arm):
    geometry = arm_from_urdf(arm.urdf, arm.base, arm.tip)
    assert geometry.joint_names == arm.joints
    assert (geometry.lower_limits, geometry.upper_limits) == tuple(zip(*arm.limits))
    rng = np.random.default_rng(7)
    for readings in _readings_within(rng, arm.limits, 20):
        expected = chain_tip(arm.urdf, arm.base, arm.tip, dict(zip(arm.joints, readings)))
        np.testing.assert_allclose(geometry.tip_position(readings), expected, rtol=0.0,
                                   atol=TOLERANCE * _scale(geometry))


@pytest.mark.parametrize('arm', ARMS[:40], ids=[f'arm{i}' for i in range(40)])
def test_random_arms_solved_targets_put_the_tip_on_them(arm):
    # Targets the arm can reach (its own tips, within the limits) are REACHED or ELBOW_FLIPPED,
    # and the commanded readings put the independent FK's tip on them; a target moved off the
    # plane is never REACHED.
    geometry = arm_from_urdf(arm.urdf, arm.base, arm.tip)
    solver = TargetSolver(ArmConfig(base_frame=arm.base), geometry)
    rng = np.random.default_rng(11)
    scale = _scale(geometry)
    previous = None
    for readings in _readings_within(rng, arm.limits, 15):
        target = chain_tip(arm.urdf, arm.base, arm.tip, dict(zip(arm.joints, readings)))
        result = solver.solve(arm.base, *target, previous=previous)
        assert result.status in (NodeStatus.REACHED, NodeStatus.ELBOW_FLIPPED), result
        assert result.reachable
        commanded = (result.q1, result.q2)
        for value, (lo, hi) in zip(commanded, arm.limits):
            assert lo - 1e-9 <= value <= hi + 1e-9
        tip = chain_tip(arm.urdf, arm.base, arm.tip, dict(zip(arm.joints, commanded)))
        np.testing.assert_allclose(tip, target, rtol=0.0, atol=TOLERANCE * scale)
        previous = commanded
        off = np.asarray(target) + 0.01 * np.asarray(geometry.normal)
        moved = solver.solve(arm.base, *off, previous=previous)
        assert (moved.status, moved.reachable) == (NodeStatus.OFF_PLANE, False)
        assert abs(moved.off_plane) == pytest.approx(0.01, abs=1e-9)


@pytest.mark.parametrize('arm', ARMS[:25], ids=[f'arm{i}' for i in range(25)])
def test_random_arms_match_mujoco(arm):
    geometry = arm_from_urdf(arm.urdf, arm.base, arm.tip)
    model = mujoco.MjModel.from_xml_string(urdf_for_mujoco(arm.urdf, arm.joints))
    data = mujoco.MjData(model)
    base, tip = model.body(arm.base).id, model.body(arm.tip).id
    addresses = [model.jnt_qposadr[model.joint(name).id] for name in arm.joints]
    rng = np.random.default_rng(3)
    for readings in _readings_within(rng, arm.limits, 10):
        data.qpos[addresses] = readings
        mujoco.mj_kinematics(model, data)
        in_base = data.xmat[base].reshape(3, 3).T @ (data.xpos[tip] - data.xpos[base])
        np.testing.assert_allclose(geometry.tip_position(readings), in_base, rtol=0.0,
                                   atol=TOLERANCE * _scale(geometry))


# -- hand-written arms with the traits of real ones -----------------------------------------


@pytest.mark.parametrize('text, base, tip, expected', [
    (RAISED_UP, 'base_link', '', {
        'joint_names': ('joint1', 'joint2'), 'shoulder_position': (0.0, 0.2, 1.95),
        'link_lengths': (0.9, 1.0), 'zero_angles': (math.pi / 2, 0.0), 'directions': (-1, -1),
        'plane': 'xz', 'tip': 'tool_link'}),
    (SCARA, 'base_link', 'tool0', {
        'joint_names': ('joint1', 'joint2'),
        'shoulder_position': (0.0, 0.0, 0.44 + 0.11 * math.cos(3.14)),
        'link_lengths': (0.425, math.hypot(0.345, 0.11 * math.sin(3.14))),
        'zero_angles': (0.0, -math.atan2(0.11 * math.sin(3.14), 0.345)), 'directions': (1, 1),
        'plane': 'xy', 'tip': 'tool0'}),
    (HANGING_LEG, 'base_link', 'foot', {
        'joint_names': ('hip', 'knee'), 'shoulder_position': (0.0, 0.045, 0.0),
        'link_lengths': (0.16, 0.16), 'zero_angles': (-math.pi / 2, 0.0), 'directions': (-1, -1),
        'plane': 'xz', 'tip': 'foot'}),
    (OFFSET_ZEROS, 'link2', 'link5', {
        'joint_names': ('joint2', 'joint3'), 'shoulder_position': (0.0, 0.0, 0.0595),
        'link_lengths': (math.hypot(0.024, 0.128), 0.124),
        'zero_angles': (math.atan2(0.128, 0.024), -math.atan2(0.128, 0.024)),
        'directions': (-1, -1), 'plane': 'xz', 'tip': 'link5'}),
], ids=['raised_up_axes_plus_y', 'scara_rpy_3_14', 'hanging_leg', 'offset_zero_angles'])
def test_real_arm_traits(text, base, tip, expected):
    geometry = arm_from_urdf(text, base, tip)
    assert geometry.joint_names == expected['joint_names']
    assert geometry.tip_frame == expected['tip']
    assert geometry.directions == expected['directions']
    assert geometry.plane_name.startswith(expected['plane'])
    np.testing.assert_allclose(geometry.shoulder_position, expected['shoulder_position'],
                               atol=1e-12)
    np.testing.assert_allclose(geometry.link_lengths, expected['link_lengths'], atol=1e-12)
    np.testing.assert_allclose(geometry.zero_angles, expected['zero_angles'], atol=1e-12)
    rng = np.random.default_rng(5)
    for readings in rng.uniform(-1.5, 1.4, size=(50, 2)):
        np.testing.assert_allclose(
            geometry.tip_position(readings),
            chain_tip(text, base, geometry.tip_frame, dict(zip(geometry.joint_names, readings))),
            atol=1e-12)


def test_elbow_up_is_the_plus_z_side_for_a_vertical_arm():
    # RRBot's plane is xz with axes along +y: u = x, v = z, so "up" is above the line.
    geometry = arm_from_urdf(RAISED_UP, 'base_link')
    assert geometry.u_axis == pytest.approx((1.0, 0.0, 0.0))
    assert geometry.v_axis == pytest.approx((0.0, 0.0, 1.0))
    solver = TargetSolver(ArmConfig(elbow='up'), geometry)
    result = solver.solve('base_link', 1.2, 0.2, 1.95)
    assert result.status is NodeStatus.REACHED
    elbow = geometry.elbow_position((result.q1, result.q2))
    assert elbow[2] > 1.95  # above the shoulder-target line (which is horizontal here)


def test_limits_narrowed_by_parameters():
    geometry = arm_from_urdf(SCARA, 'base_link', 'tool0', (-1.0, -math.inf), (math.inf, 0.5))
    assert geometry.lower_limits == (-1.0, -2.0)
    assert geometry.upper_limits == (2.5, 0.5)
    assert geometry.velocity_limits == (3.0, 3.0)
    with pytest.raises(UrdfError, match=r'joint_lower_limits: shoulder lower limit 3\.0 is above '
                       r'its upper limit 2\.5'):
        arm_from_urdf(SCARA, 'base_link', 'tool0', (3.0, -math.inf), (math.inf, math.inf))


def test_arm_geometry_picks_the_source():
    config = ArmConfig(link_lengths=(0.2, 0.1))
    assert arm_geometry(config).link_lengths == (0.2, 0.1)
    assert arm_geometry(config, RAISED_UP).link_lengths == pytest.approx((0.9, 1.0))


BAD = {
    'malformed_xml': ('<robot name="x"><link name="a">', 'base_link', '',
                      r'^robot_description: not valid XML: '),
    'not_a_robot': ('<sdf version="1.9"/>', 'base_link', '',
                    r'^robot_description: the root element is <sdf>, not <robot>$'),
    'joint_without_child': ('<robot name="x"><link name="a"/><joint name="j" type="fixed">'
                            '<parent link="a"/></joint></robot>', 'a', '',
                            r'^robot_description: not a valid URDF: '),
    'empty': ('  ', 'base_link', '', r'^robot_description: empty$'),
    'missing_base': (RAISED_UP, 'nowhere', '',
                     r"^base_frame: 'nowhere' is not a link of the robot description \(links: "
                     r'base_link, decor, link1, link2, tool_link, world\)$'),
    'missing_tip': (RAISED_UP, 'base_link', 'nope', r"^tip_frame: 'nope' is not a link"),
    'tip_not_below_base': (RAISED_UP, 'link2', 'link1',
                           r"^tip_frame: 'link1' is not below base_frame 'link2'"),
    'two_ends': (RAISED_UP.replace('<parent link="world"/><child link="decor"/>',
                                   '<parent link="base_link"/><child link="decor"/>'),
                 'base_link', '',
                 r"^tip_frame: base_frame 'base_link' has 2 end links below it \(decor, "
                 r'tool_link\); set tip_frame to the one that is the tip$'),
    'prismatic_on_chain': (HANGING_LEG, 'world', 'foot',
                           r"^robot_description: joint 'rail' \(prismatic, world -> "
                           r'base_link\) is on the chain from world to foot'),
    'third_joint': (OFFSET_ZEROS, 'link2', 'link4',
                    None),
    'one_joint': (SCARA, 'link1', 'tool0',
                  r'^robot_description: the chain from link1 to tool0 has 1 movable '
                  r'joint\(s\) \(joint2\); exactly 2'),
    'skew_axes': (SCARA.replace('<origin xyz="0.425 0 0" rpy="0 0 0"/>',
                                '<origin xyz="0.425 0 0" rpy="0.001 0 0"/>'),
                  'base_link', 'tool0',
                  r"^robot_description: joints 'joint1' and 'joint2' have axes 0\.001 rad "
                  r'apart; a planar arm needs them parallel'),
    'zero_axis': (SCARA.replace('<axis xyz="0 0 1"/>', '<axis xyz="0 0 0"/>', 1),
                  'base_link', 'tool0',
                  r"^robot_description: joint 'joint1': axis \[0\.0, 0\.0, 0\.0\] has no "
                  r'direction$'),
    'floating': (SCARA.replace('type="fixed"><parent link="link2"/>',
                               'type="floating"><parent link="link2"/>'),
                 'base_link', 'tool0', r"^robot_description: joint 'flange_joint' \(floating, "),
    'huge_limit': (SCARA.replace('lower="-2.5" upper="2.5"', 'lower="-1e12" upper="2.5"'),
                   'base_link', 'tool0', r'^robot_description: joint_lower_limits: shoulder '
                                         r'lower limit -1e\+12 rad is beyond'),
}


@pytest.mark.parametrize('case', sorted(BAD))
def test_bad_descriptions_are_one_line_and_nothing_on_stderr(case, capfd):
    text, base, tip, pattern = BAD[case]
    if case == 'third_joint':
        # joint4's child is no longer the tip: it counts, and makes three.
        text = OFFSET_ZEROS.replace('</robot>', link_xml('link6') + joint_xml(
            'joint5', 'revolute', 'link5', 'link6', '0.1 0 0', axis='0 1 0',
            limit='lower="-1" upper="1"') + '</robot>')
        tip = 'link6'
        pattern = (r'^robot_description: the chain from link2 to link6 has 3 movable '
                   r'joint\(s\) \(joint2, joint3, joint4\); exactly 2')
    with pytest.raises(UrdfError, match=pattern) as info:
        arm_from_urdf(text, base, tip)
    assert '\n' not in str(info.value)
    captured = capfd.readouterr()
    assert captured.err == '' and captured.out == ''


def test_unknown_tags_stay_off_stderr(capfd):
    geometry = arm_from_urdf(RAISED_UP, 'base_link')
    assert geometry.joint_names == ('joint1', 'joint2')
    captured = capfd.readouterr()
    assert captured.err == '' and captured.out == ''


# -- hostile descriptions: refused at once, in one line, with nothing else on stderr ----------


def finishing_within(lines, function, *args):
    """Return ``function(*args)``; raise instead of hanging if it runs more than ``lines``.

    Counts the Python lines executed (a trace function), so a walk that never ends fails the
    test deterministically instead of hanging the suite while its memory grows.
    """
    executed = [0]

    def trace(frame, event, arg):
        executed[0] += 1
        if executed[0] > lines:
            raise RuntimeError(f'still running after {lines} Python lines')
        return trace
    sys.settrace(trace)
    try:
        return function(*args)
    finally:
        sys.settrace(None)


def _joint(name, parent, child):
    return joint_xml(name, 'fixed', parent, child)


NOT_A_TREE = {
    'base_in_a_cycle': (with_elements(SCARA, _joint('back', 'tool0', 'base_link')), '',
                        r'^robot_description: the joints form a cycle: link1 -> link2 -> flange '
                        r'-> tool0 -> base_link -> link1 \(joints joint2, flange_joint, '
                        r'tool_joint, back, joint1\); a URDF is a tree$'),
    'tip_in_a_cycle': (with_elements(SCARA, link_xml('c1'), link_xml('c2'),
                                     _joint('c12', 'c1', 'c2'), _joint('c21', 'c2', 'c1')),
                       'c2', r'^robot_description: the joints form a cycle: c2 -> c1 -> c2 '
                             r'\(joints c21, c12\); a URDF is a tree$'),
    'self_loop': (with_elements(SCARA, link_xml('c'), _joint('loop', 'c', 'c')), 'c',
                  r'^robot_description: the joints form a cycle: c -> c \(joints loop\); a '
                  r'URDF is a tree$'),
    'two_parents': (with_elements(SCARA, _joint('second', 'base_link', 'link2')), 'tool0',
                    r"^robot_description: link 'link2' is the child of two joints, 'joint2' "
                    r"and 'second'; a URDF is a tree$"),
    'two_joints_named_alike': (SCARA.replace('"tool_joint"', '"joint2"'), 'tool0',
                               r"^robot_description: two joints are named 'joint2'$"),
}


@pytest.mark.parametrize('case', sorted(NOT_A_TREE))
def test_descriptions_that_are_not_trees_are_refused_at_once(case, capfd):
    # A cycle used to hang the chain search for good, its memory growing; a link with two
    # parents, or two joints of one name, silently made an arm of whichever came last.
    text, tip, pattern = NOT_A_TREE[case]
    with pytest.raises(UrdfError, match=pattern):
        finishing_within(2_000_000, arm_from_urdf, text, 'base_link', tip)
    assert capfd.readouterr() == ('', '')


def _scara(old, new):
    changed = SCARA.replace(old, new, 1)
    assert changed != SCARA
    return changed


HOSTILE_NUMBERS = {
    'velocity_nan': (_scara('velocity="3.0"', 'velocity="nan"'),
                     r"^robot_description: joint 'joint1': <limit velocity> is nan; expected a "
                     r'speed >= 0 \(rad/s; 0 for none\)$'),
    'velocity_negative': (_scara('velocity="3.0"', 'velocity="-1"'),
                          r"^robot_description: joint 'joint1': <limit velocity> is -1; "
                          r'expected a speed >= 0'),
    'lower_nan': (_scara('lower="-2.0"', 'lower="nan"'),
                  r"^robot_description: joint 'joint2': <limit lower> is nan; expected an "
                  r'angle \(rad\)$'),
    'upper_nan': (_scara('upper="2.5"', 'upper="NaN"'),
                  r"^robot_description: joint 'joint1': <limit upper> is nan; expected an "
                  r'angle'),
    'xyz_inf': (_scara('0 0 0.44', 'inf 0 0.44'),
                r"^robot_description: joint 'joint1': <origin xyz> is \[inf, 0\.0, 0\.44\]; "
                r'expected finite values within \+-1e\+100$'),
    'xyz_nan': (_scara('0.345 0 0', '0.345 nan 0'),
                r"^robot_description: joint 'flange_joint': <origin xyz> is \[0\.345, nan, "),
    'xyz_1e308_first': (_scara('0 0 0.44', '1e308 0 0.44'),
                        r"^robot_description: joint 'joint1': <origin xyz> is \[1e\+308, "),
    'xyz_1e308_later': (_scara('0.345 0 0', '1e308 1e308 0'),
                        r"^robot_description: joint 'flange_joint': <origin xyz> is "
                        r'\[1e\+308, 1e\+308, 0\.0\]'),
    'rpy_inf': (_scara('3.14 0 0', '3.14 -inf 0'),
                r"^robot_description: joint 'flange_joint': <origin rpy> is \[3\.14, -inf, "
                r'0\.0\]; expected finite values$'),
    'axis_inf': (_scara('<axis xyz="0 0 1"/>', '<axis xyz="0 inf 1"/>'),
                 r"^robot_description: joint 'joint1': <axis xyz> is \[0\.0, inf, 1\.0\]; "
                 r'expected finite values$'),
}


@pytest.mark.parametrize('case', sorted(HOSTILE_NUMBERS))
def test_non_finite_and_huge_numbers_are_refused_naming_the_joint(case, capfd):
    # They used to be taken silently (velocity nan or -1: no velocity limit at all; a shoulder
    # at 1e308 m) or refused after numpy's overflow warnings, with a message naming something
    # else (the link lengths, skew axes).
    text, pattern = HOSTILE_NUMBERS[case]
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # a numpy RuntimeWarning fails the test
        with pytest.raises(UrdfError, match=pattern):
            arm_from_urdf(text, 'base_link', 'tool0')
    assert capfd.readouterr() == ('', '')


def test_huge_but_finite_axes_are_directions():
    text = _scara('<axis xyz="0 0 1"/>', '<axis xyz="0 1e308 1e308"/>').replace(
        '<axis xyz="0 0 1"/>', '<axis xyz="0 1 1"/>')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        geometry = arm_from_urdf(text, 'base_link', 'tool0')
    assert geometry.joint_names == ('joint1', 'joint2')


def test_velocity_zero_or_infinite_means_no_velocity_limit():
    text = _scara('velocity="3.0"', 'velocity="0"').replace('velocity="3.0"', 'velocity="inf"')
    assert arm_from_urdf(text, 'base_link', 'tool0').velocity_limits == (math.inf, math.inf)


def _fail_if_parsed(*args, **kwargs):
    raise AssertionError('the parser was asked to parse it')


def _heavy_link(count):
    return ('<link name="heavy">' + '<visual><geometry><box size="1 1 1"/></geometry></visual>'
            * count + '</link>')


@pytest.mark.parametrize('text, pattern', [
    (with_fixed_links(SCARA, MAX_LINKS - 4), rf'^robot_description: {MAX_LINKS + 1} <link> '
                                             rf'elements; at most {MAX_LINKS} are read$'),
    (with_elements(SCARA, *(_joint(f'j{i}', 'base_link', 'tool0') for i in range(MAX_JOINTS))),
     rf'^robot_description: {MAX_JOINTS + 4} <joint> elements; at most {MAX_JOINTS} are read$'),
    (SCARA.replace('<axis xyz="0 0 1"/>', '<dynamics/>' * MAX_JOINT_ELEMENTS, 1),  # and 15 others
     rf'^robot_description: {MAX_JOINT_ELEMENTS + 15} elements inside <joint>s; at most '
     rf'{MAX_JOINT_ELEMENTS} are read$'),
], ids=['one_link_too_many', 'joints', 'inside_joints'])
def test_too_many_links_or_joints_are_refused_before_the_slow_parse(monkeypatch, text, pattern):
    # urdf_parser_py takes about 0.03-0.3 ms per element (96 s for a few hundred thousand
    # links), so such a description is refused from its counts, before that parser sees it.
    monkeypatch.setattr(urdf_model.URDF, 'from_xml_string', _fail_if_parsed)
    with pytest.raises(UrdfError, match=pattern):
        arm_from_urdf(text, 'base_link', 'tool0')


@pytest.mark.parametrize('text, pattern', [
    (with_elements(SCARA, *(f'<link name="l{i}"/>' for i in range(200_000))),
     rf"^robot_description: 200047 tags \('<'\); at most {MAX_TAGS} are read$"),
    (with_elements(SCARA, _heavy_link(MAX_TAGS // 5)),  # 5 tags a visual, 2 for the link
     rf"^robot_description: 200049 tags \('<'\); at most {MAX_TAGS} are read$"),
    (SCARA + ' ' * (MAX_DESCRIPTION_LENGTH + 1 - len(SCARA)),
     rf'^robot_description: {MAX_DESCRIPTION_LENGTH + 1} characters; at most '
     rf'{MAX_DESCRIPTION_LENGTH} are read$'),
], ids=['200000_links', '40000_visuals', 'too_long'])
def test_too_large_a_description_is_refused_before_the_xml_parse(monkeypatch, text, pattern):
    monkeypatch.setattr('xml.etree.ElementTree.fromstring', _fail_if_parsed)
    with pytest.raises(UrdfError, match=pattern):
        arm_from_urdf(text, 'base_link', 'tool0')


def test_only_joints_and_link_names_reach_the_urdf_parser(monkeypatch):
    # Whatever the links hold (inertials, any number of visuals), the parser's time depends on
    # the joints and the number of links only.
    parsed = []
    parse = urdf_model.URDF.from_xml_string
    monkeypatch.setattr(urdf_model.URDF, 'from_xml_string',
                        lambda text: parsed.append(text) or parse(text))
    text = with_elements(RAISED_UP, _heavy_link(30_000))
    assert arm_from_urdf(text, 'base_link').joint_names == ('joint1', 'joint2')
    assert [tag in parsed[0] for tag in ('<joint', '<link', '<visual', '<inertial',
                                         '<gazebo', '<transmission', '<ros2_control')] == [
        True, True, False, False, False, False, False]


def test_a_description_at_the_limits_is_read():
    text = with_fixed_links(SCARA, MAX_LINKS - 5)  # SCARA has 5 links and 4 joints
    text = with_elements(text, '<!--' + '<' * (MAX_TAGS - text.count('<') - 1) + '-->')
    text += ' ' * (MAX_DESCRIPTION_LENGTH - len(text))
    assert arm_from_urdf(text, 'base_link', 'tool0').joint_names == ('joint1', 'joint2')


# -- the whole chain (desktop arms) ----------------------------------------------------------


def test_chain_from_urdf_holds_every_joint_on_the_way():
    from two_bone_ik.arm.urdf_import import chain_from_urdf
    chain = chain_from_urdf(RAISED_UP, 'world', 'tool_link')
    assert [j.name for j in chain.joints] == ['fixed', 'joint1', 'joint2', 'tool_joint']
    assert chain.moving_names == ('joint1', 'joint2')
    assert (chain.base_frame, chain.tip_frame) == ('world', 'tool_link')
    joint1 = chain.joints[1]
    assert (joint1.kind, joint1.xyz, joint1.axis) == ('continuous', (0.0, 0.1, 1.95),
                                                      (0.0, 1.0, 0.0))
    assert (joint1.lower, joint1.upper) == (-math.inf, math.inf)
    readings = {'joint1': 0.4, 'joint2': -0.7}
    np.testing.assert_allclose(chain.forward([0.4, -0.7]).position,
                               chain_tip(RAISED_UP, 'world', 'tool_link', readings), atol=1e-15)


def test_chain_from_urdf_refuses_what_arm_from_urdf_refuses():
    from two_bone_ik.arm.urdf_import import chain_from_urdf
    with pytest.raises(UrdfError, match="joint 'rail' \\(prismatic, world -> base_link\\) is on "
                                        'the chain'):
        chain_from_urdf(HANGING_LEG, 'world', 'foot')
    with pytest.raises(UrdfError, match="tip_frame: 'nowhere' is not a link"):
        chain_from_urdf(HANGING_LEG, 'base_link', 'nowhere')
