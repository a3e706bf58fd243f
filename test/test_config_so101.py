"""Tests of config/so101.yaml: the SO-101 written as desktop-arm parameters is the published arm.

The oracle is the SO-101 as the SO-ARM100 project publishes it with LeRobot's calibration
(TheRobotStudio/SO-ARM100, Simulation/SO101/so101_new_calib.urdf at fda892cb): its joint origins,
axes and limits, written below as figures (our own frames' names; π where the file writes
3.14159 and π/2 where it writes 1.5708, as it means them), walked joint by joint with numpy
(``urdf_arms.chain_tip``), independently of the package. The package's description is the URDF
``two_bone_ik_urdf`` writes from the params file; its base_link is the published one moved
38.8353 mm forward, onto the pan axis.
"""

import functools
import math

import numpy as np
import pytest
from ros_harness import REPO_ROOT

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_config import arm_config_from_mapping, desktop_geometry
from two_bone_ik.arm.desktop_geometry import arm_from_description
from two_bone_ik.arm.params_file import load_arm_config
from two_bone_ik.arm.urdf_export import desktop_urdf
from two_bone_ik.ik.status import IkStatus
from two_bone_ik.sim.simulated_arm import simulated_arm
from two_bone_ik.solver.desktop import DesktopSolver
from urdf_arms import chain_tip, joint_xml, link_xml, robot_xml

CONFIG = load_arm_config(REPO_ROOT / 'config' / 'so101.yaml', build=arm_config_from_mapping)
JOINTS = ('shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll')
PI, HALF_PI = math.pi, math.pi / 2

#: The published SO-101: (joint, type, parent, child, xyz m, rpy rad, limits rad); every axis
#: is the child's z. The gripper's jaw is off the chain to the gripper frame (the tool point).
PUBLISHED = (
    ('shoulder_pan', 'revolute', 'base', 'shoulder', (0.0388353, -8.97657e-09, 0.0624),
     (PI, 0.0, -PI), (-1.91986, 1.91986)),
    ('shoulder_lift', 'revolute', 'shoulder', 'upper_arm', (-0.0303992, -0.0182778, -0.0542),
     (-HALF_PI, -HALF_PI, 0.0), (-1.74533, 1.74533)),
    ('elbow_flex', 'revolute', 'upper_arm', 'lower_arm', (-0.11257, -0.028, 0.0),
     (0.0, 0.0, HALF_PI), (-1.69, 1.69)),
    ('wrist_flex', 'revolute', 'lower_arm', 'wrist', (-0.1349, 0.0052, 0.0),
     (0.0, 0.0, -HALF_PI), (-1.65806, 1.65806)),
    ('wrist_roll', 'revolute', 'wrist', 'gripper_body', (0.0, -0.0611, 0.0181),
     (HALF_PI, 0.0486795, PI), (-2.74385, 2.84121)),
    ('gripper_frame_joint', 'fixed', 'gripper_body', 'gripper_frame',
     (-0.0079, -0.000218121, -0.0981274), (0.0, PI, 0.0), None),
    ('gripper', 'revolute', 'gripper_body', 'jaw', (0.0202, 0.0188, -0.0234),
     (HALF_PI, 0.0, 0.0), (-0.174533, 1.74533)),
)

#: Where the published base_link is in ours, m.
PUBLISHED_BASE = np.array([-0.0388353, 8.97657e-09, 0.0])


def _published_urdf():
    def text(values):
        return ' '.join(repr(float(v)) for v in values)
    links = ['base', *(joint[3] for joint in PUBLISHED)]
    joints = [joint_xml(name, kind, parent, child, text(xyz), text(rpy), axis='0 0 1',
                        limit=f'lower="{limits[0]}" upper="{limits[1]}"' if limits else None)
              for name, kind, parent, child, xyz, rpy, limits in PUBLISHED]
    return robot_xml(*(link_xml(link) for link in links), *joints)


PUBLISHED_URDF = _published_urdf()
WRITTEN_URDF = desktop_urdf(CONFIG)


def _published_tool(readings):
    """Return the published arm's tool point at ``readings``, in our base_link, m."""
    return PUBLISHED_BASE + chain_tip(PUBLISHED_URDF, 'base', 'gripper_frame',
                                      dict(zip(JOINTS, readings)))


def _written_tool(readings):
    return chain_tip(WRITTEN_URDF, 'base_link', 'tool', dict(zip(JOINTS, readings)))


def _random_poses(count, seed=0):
    lower, upper = CONFIG.joint_lower_limits, CONFIG.joint_upper_limits
    return np.random.default_rng(seed).uniform(lower, upper, (count, len(JOINTS)))


def test_the_written_description_is_the_published_arm():
    assert CONFIG.joint_names == JOINTS
    for readings in [np.zeros(5), *_random_poses(500)]:
        np.testing.assert_allclose(_written_tool(readings), _published_tool(readings),
                                   rtol=0, atol=1e-12)
    published_limits = {joint[0]: joint[6] for joint in PUBLISHED}
    assert [(lower, upper) for lower, upper in zip(CONFIG.joint_lower_limits,
                                                   CONFIG.joint_upper_limits)] == [
        published_limits[joint] for joint in JOINTS]
    # At zero readings (every servo mid-range): the gripper level, 39.1 cm out and 22.6 cm up.
    np.testing.assert_allclose(_written_tool(np.zeros(5)), [0.3525, 0.0, 0.2265], atol=5e-4)


def test_the_gripper_has_the_published_travel_about_the_middle():
    lower, upper = next(joint[6] for joint in PUBLISHED if joint[0] == 'gripper')
    assert CONFIG.gripper_joint == 'gripper'
    assert CONFIG.gripper_limits == pytest.approx(
        (-(upper - lower) / 2, (upper - lower) / 2), abs=1e-5)
    # The sim of the written description moves it beside the arm's joints (sim:=true), and
    # so does a sim given the params file alone (sim.launch.py params_file:=so101.yaml).
    for arm in (simulated_arm(ArmConfig(base_frame='base_link'), WRITTEN_URDF, 'tool'),
                simulated_arm(CONFIG)):
        assert arm.joint_names == JOINTS and arm.extra_joints == ('gripper',)


def test_the_ik_points_the_gripper_down_at_the_table():
    # Position only, the approach pitch preferred straight down (-pi/2, as the file's comment
    # and docs/launch.md say), not the parameter's default of 0 (level).
    assert CONFIG.use_orientation is False
    assert CONFIG.approach_pitch == -HALF_PI


@functools.lru_cache()
def _facing_poses(count):
    """Poses within the limits, roll 0, whose tool point is ahead of the pan axis by 2 cm."""
    poses = []
    for readings in _random_poses(4 * count, seed=1):
        readings[4] = 0.0
        x, y, _ = _written_tool(readings)
        heading = np.array([math.cos(readings[0]), -math.sin(readings[0])])  # pan turns about -z
        if np.dot(heading, (x, y)) > 0.02:
            poses.append(readings)
    return tuple(poses[:count])


#: The statuses that put the tool point on the target (``reachable``).
ON_TARGET = (IkStatus.REACHED, IkStatus.ELBOW_FLIPPED)


@pytest.mark.parametrize('pitch', [-HALF_PI, 0.0])
def test_the_ik_puts_the_tool_point_on_every_target_the_arm_reaches(pitch):
    # Every pose within the limits, roll held at 0 as the IK holds it, facing its target: the
    # IK reaches it (on either elbow branch), within the limits (a joint put on a limit may
    # land an ulp beyond it), and its readings put the published arm's tool point there.
    geometry = desktop_geometry(CONFIG)
    solver = DesktopSolver(geometry.model, elbow=CONFIG.elbow,
                           allow_elbow_flip=CONFIG.allow_elbow_flip)
    reach = geometry.reach[1]
    poses = _facing_poses(300)
    assert len(poses) == 300
    for readings in poses:
        target = _published_tool(readings)
        solution = solver.solve(*target, previous=None, approach_pitch=pitch)
        assert solution.status in ON_TARGET, (readings, solution.status)
        assert all(lo - 1e-12 <= q <= hi + 1e-12 for q, lo, hi in zip(
            solution.readings, CONFIG.joint_lower_limits, CONFIG.joint_upper_limits))
        np.testing.assert_allclose(_published_tool(solution.readings), target, rtol=0,
                                   atol=1e-9 * reach)


def test_a_users_own_so101_urdf_gives_the_same_answers():
    # urdf_file:= with the published description (tip_frame gripper frame): the same arm, so
    # the same readings for the same point (its frame 38.8 mm behind ours).
    theirs = arm_from_description(PUBLISHED_URDF, 'base', 'gripper_frame')
    ours = desktop_geometry(CONFIG)
    assert theirs.joint_names == ours.joint_names == JOINTS
    solvers = [DesktopSolver(g.model, elbow='up', allow_elbow_flip=True) for g in (theirs, ours)]
    for readings in _facing_poses(50):
        target = _published_tool(readings)
        answers = [solver.solve(*point, previous=None, approach_pitch=-HALF_PI)
                   for solver, point in zip(solvers, (target - PUBLISHED_BASE, target))]
        assert answers[0].status == answers[1].status
        assert answers[0].status in ON_TARGET
        # The same pose, to the rounding of the pitch's end points (an arc end where two
        # limits meet is a root found in each arm's own frames).
        np.testing.assert_allclose(answers[0].readings, answers[1].readings, rtol=0, atol=1e-6)
        for answer in answers:
            np.testing.assert_allclose(_published_tool(answer.readings), target, rtol=0,
                                       atol=1e-9 * ours.reach[1])
