"""Tests of two_bone_ik.sim.simulated_arm (which joints are simulated) and ArmSim on N joints."""

import math

import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig, ArmConfigError
from two_bone_ik.arm.desktop_config import desktop_geometry, DesktopConfig
from two_bone_ik.arm.urdf_import import arm_from_urdf, UrdfError
from two_bone_ik.sim.arm_sim import ArmSim, SimError
from two_bone_ik.sim.simulated_arm import simulated_arm, SimulatedArm, urdf_simulated_arm
from urdf_arms import chain_tip, DESKTOP_PARAMETERS, HANGING_LEG, joint_xml, link_xml
from urdf_arms import OFFSET_ZEROS, robot_xml
from urdf_arms import YAW_PAIR_PITCH, YAW_PAIR_PITCH_ROLL_GRIPPER

FOUR = ('base_yaw', 'shoulder', 'elbow', 'wrist_pitch')
FIVE = ('yaw', 'shoulder', 'elbow', 'wrist_pitch', 'wrist_roll')


def _arm(urdf, base='base_link', tip='tool', **limits):
    return simulated_arm(ArmConfig(base_frame=base, **limits), urdf, tip)


# -- which joints ---------------------------------------------------------------------------

def test_desktop_arms_simulate_every_chain_joint_in_chain_order():
    four = _arm(YAW_PAIR_PITCH, base='table')
    assert four.joint_names == FOUR
    assert (four.base_frame, four.tip_frame, four.extra_joints) == ('table', 'tool', ())
    assert four.summary == "4 joints from 'table' to 'tool'"
    five = _arm(YAW_PAIR_PITCH_ROLL_GRIPPER)
    assert five.joint_names == FIVE
    # The gripper is simulated; its mimic twin and the rail above base_link are held fixed.
    assert five.extra_joints == ('gripper',)
    assert five.lower_limits == (-math.inf,) * 5 and five.upper_limits == (math.inf,) * 5


def test_a_planar_arm_is_read_as_the_ik_node_reads_it():
    # Two joints, and two parallel joints plus one whose child is the tip (held fixed): the
    # joints, frames and description of arm_from_urdf, as before desktop arms.
    for urdf, base, tip in ((HANGING_LEG, 'base_link', 'foot'), (OFFSET_ZEROS, 'link2', '')):
        geometry = arm_from_urdf(urdf, base, tip)
        arm = _arm(urdf, base=base, tip=tip)
        assert arm == SimulatedArm.from_geometry(geometry, urdf)
        assert arm.joint_names == geometry.joint_names
        assert arm.summary == geometry.describe()
    assert _arm(OFFSET_ZEROS, base='link2', tip='').joint_names == ('joint2', 'joint3')


def test_limits_of_the_parameters_narrow_a_planar_arm_as_before():
    arm = _arm(HANGING_LEG, tip='foot', joint_lower_limits=(-1.0, -math.inf),
               joint_upper_limits=(math.inf, 0.5))
    assert arm.lower_limits == (-1.0, -10.0) and arm.upper_limits == (10.0, 0.5)


def _two_ends():
    return robot_xml(link_xml('base_link'), link_xml('a'), link_xml('b'), link_xml('c'),
                     joint_xml('j1', 'revolute', 'base_link', 'a', axis='0 0 1',
                               limit='lower="-1" upper="1"'),
                     joint_xml('j2', 'revolute', 'a', 'b', '0.1 0 0', axis='0 0 1',
                               limit='lower="-1" upper="1"'),
                     joint_xml('j3', 'revolute', 'a', 'c', '0.1 0 0', axis='0 0 1',
                               limit='lower="-1" upper="1"'))


def _chain_of(count, kind='revolute'):
    links = [link_xml(f'l{i}') for i in range(count + 1)]
    joints = [joint_xml(f'j{i}', kind, f'l{i}', f'l{i + 1}', '0.1 0 0', axis='0 1 0',
                        limit='lower="-1" upper="1"') for i in range(count)]
    return robot_xml(*links, *joints)


@pytest.mark.parametrize('urdf, base, tip, limits, message', [
    (_chain_of(1), 'l0', 'l1', {}, 'the chain from l0 to l1 has 1 movable joint(s) (j0); 2 to 5'),
    (_chain_of(6), 'l0', 'l6', {}, 'has 6 movable joint(s) (j0, j1, j2, j3, j4, j5); 2 to 5'),
    (_chain_of(3, 'prismatic'), 'l0', 'l3', {},
     "joint 'j0' (prismatic, l0 -> l1) is on the chain from l0 to l3"),
    (_two_ends(), 'base_link', '', {}, "base_frame 'base_link' has 2 end links below it (b, c)"),
    (_chain_of(4), 'l0', 'nowhere', {}, "tip_frame: 'nowhere' is not a link"),
    (_chain_of(4), 'l2', 'l1', {}, "tip_frame: 'l1' is not below base_frame 'l2'"),
    (_chain_of(4), 'l0', 'l4', {'joint_lower_limits': (-1.0, -1.0)},
     'joint_lower_limits: 2 values for an arm of 4 joints (j0, j1, j2, j3); give 4 or leave '
     'them unlimited'),
    ('<robot name="x"', 'l0', 'l1', {}, 'robot_description: not valid XML'),
    (_chain_of(2)[:-len('</robot>')] + joint_xml('back', 'fixed', 'l2', 'l1') + '</robot>',
     'l0', 'l2', {}, "robot_description: link 'l1' is the child of two joints, 'j0' and "
     "'back'; a URDF is a tree"),
])
def test_arms_that_cannot_be_simulated_are_refused_in_one_line(urdf, base, tip, limits, message):
    with pytest.raises(UrdfError, match='^[^\n]*$') as error:
        _arm(urdf, base=base, tip=tip, **limits)
    assert message in str(error.value)


# -- the simulation of N joints -------------------------------------------------------------

@pytest.mark.parametrize('urdf, base, names, poses', [
    (YAW_PAIR_PITCH, 'table', FOUR, [(0.7, -0.4, 0.9, -2.0), (-2.0, 0.5, -1.2, 1.0)]),
    (YAW_PAIR_PITCH_ROLL_GRIPPER, 'base_link', FIVE,
     [(0.7, -0.4, 0.9, -1.0, 2.0), (-2.0, 0.5, -1.2, 1.5, -0.3)]),
], ids=['4 joints', '5 joints'])
def test_desktop_arm_reaches_its_commands_and_the_tip_is_the_urdfs(urdf, base, names, poses):
    sim = ArmSim(_arm(urdf, base=base), timestep=0.001)
    assert sim.model.nu == len(sim.joint_names)
    for pose in poses:
        sim.command(pose)
        assert sim.settle(tolerance=1e-6, timeout=10.0)
        np.testing.assert_allclose(sim.positions[:len(names)], pose, atol=1e-6)
        expected = chain_tip(urdf, base, 'tool', dict(zip(names, sim.positions)))
        np.testing.assert_allclose(sim.tip_position, expected, atol=1e-9)


def test_urdf_limits_hold_and_a_continuous_joint_goes_the_short_way():
    sim = ArmSim(_arm(YAW_PAIR_PITCH, base='table'), initial_positions=(0, 0, 0, 3.0))
    assert sim.joint_ranges[:3] == ((-2.8, 2.8), (-1.6, 1.6), (-2.5, 2.5))
    assert sim.joint_ranges[3] is None  # the continuous wrist pitch
    sim.command((5.0, -5.0, 5.0, -3.0))
    np.testing.assert_allclose(sim.targets, (2.8, -1.6, 2.5, 2.0 * math.pi - 3.0))


def test_limits_of_the_parameters_narrow_the_urdfs_when_one_per_joint():
    arm = _arm(YAW_PAIR_PITCH, base='table')._replace(
        lower_limits=(-1.0, -math.inf, -math.inf, -0.5), upper_limits=(math.inf,) * 4)
    sim = ArmSim(arm)
    assert sim.joint_ranges[0] == (-1.0, 2.8)
    assert sim.joint_ranges[3] == (-0.5, -0.5 + 4.0 * math.pi)  # half-open: closed 4 pi on
    with pytest.raises(SimError, match=r'^shoulder: the limits leave no range \(2 > 1.6\)$'):
        ArmSim(arm._replace(lower_limits=(-1.0, 2.0, -1.0, -1.0)))


def test_gripper_is_simulated_off_the_chain_and_starts_in_its_range():
    sim = ArmSim(_arm(YAW_PAIR_PITCH_ROLL_GRIPPER), initial_positions=(0.1, 0.2, 0.3, 0.4, 0.5))
    assert sim.joint_names == FIVE + ('gripper',)
    assert sim.joint_ranges[5] == (0.005, 0.03)  # metres
    np.testing.assert_allclose(sim.positions, (0.1, 0.2, 0.3, 0.4, 0.5, 0.005))
    sim.set_targets({5: 0.025})
    assert sim.settle(tolerance=1e-6)
    assert sim.positions[5] == pytest.approx(0.025, abs=1e-6)
    np.testing.assert_allclose(sim.positions[:5], (0.1, 0.2, 0.3, 0.4, 0.5), atol=1e-6)
    # Gripper and mimic finger leave the tip where the chain puts it.
    expected = chain_tip(YAW_PAIR_PITCH_ROLL_GRIPPER, 'base_link', 'tool',
                         dict(zip(FIVE, sim.positions)))
    np.testing.assert_allclose(sim.tip_position, expected, atol=1e-9)


@pytest.mark.parametrize('initial', [(0.0, 0.0), (0.0,) * 6, (0.0, 0.0, 0.0, 0.0, math.nan)])
def test_initial_positions_need_one_finite_angle_per_arm_joint(initial):
    with pytest.raises(SimError, match='^initial_positions: expected 5 finite angles .one per '
                       'joint: yaw, shoulder, elbow, wrist_pitch, wrist_roll.'):
        ArmSim(_arm(YAW_PAIR_PITCH_ROLL_GRIPPER), initial_positions=initial)


# -- a desktop arm from its parameters (no URDF) ----------------------------------------------

DESKTOP_CONFIG = DesktopConfig.from_mapping(DESKTOP_PARAMETERS)


def test_a_desktop_arm_from_parameters_is_simulated_from_its_generated_urdf():
    config = DESKTOP_CONFIG
    arm = simulated_arm(config)
    assert arm.joint_names == config.joint_names
    assert (arm.base_frame, arm.tip_frame, arm.extra_joints) == ('desk', 'tool', ())
    assert arm.summary == desktop_geometry(config).describe()
    assert arm.summary.startswith("yaw + pair + pitch + roll arm in 'desk'")
    # No viscous damping: the light hand's position loop (gains scaled by its inertia about
    # the roll axis) would be slowed down by the default's more than the others.
    sim = ArmSim(arm, timestep=0.001, joint_damping=0.0,
                 initial_positions=(0.3, 0.2, 0.4, -0.5, 0.6))
    # The parameters' limits are the simulated joints' ranges.
    assert sim.joint_ranges[:5] == tuple(zip(config.joint_lower_limits,
                                             config.joint_upper_limits))
    geometry = desktop_geometry(config)
    np.testing.assert_allclose(sim.tip_position, geometry.tool_position(sim.positions),
                               atol=1e-9)
    for pose in ((-1.0, 0.5, 1.2, -1.0, 2.0), (2.0, -0.4, -0.8, 1.2, -1.5)):
        sim.command(pose)
        assert sim.settle(tolerance=1e-6, timeout=10.0)
        np.testing.assert_allclose(sim.positions, pose, atol=1e-6)
        # The tool point is the parameters' own arm (the IK node's) at the measured readings.
        np.testing.assert_allclose(sim.tip_position, geometry.tool_position(sim.positions),
                                   atol=1e-9)


def test_a_three_joint_desktop_arm_from_parameters():
    config = DesktopConfig(joint_names=('yaw', 'shoulder', 'elbow'), arm_shape='yaw + pair',
                           link_lengths=(0.2, 0.15), shoulder_position=(0.02, 0.0, 0.05))
    sim = ArmSim(config, initial_positions=(0.5, 0.3, -0.6))  # simulated_arm(config) for it
    assert sim.arm == simulated_arm(config)
    assert sim.joint_names == ('yaw', 'shoulder', 'elbow')
    assert all(r is None for r in sim.joint_ranges)  # unlimited: continuous
    np.testing.assert_allclose(sim.tip_position,
                               desktop_geometry(config).tool_position((0.5, 0.3, -0.6)),
                               atol=1e-9)


def test_limits_for_a_urdf_arm_come_one_per_joint_of_its_chain_and_are_checked():
    arm = urdf_simulated_arm(YAW_PAIR_PITCH, 'table', 'tool', (-1.0, -math.inf, -1.0, -0.5),
                             (1.0, math.inf, 2.0, 0.5))
    assert arm.lower_limits == (-1.0, -math.inf, -1.0, -0.5)
    assert ArmSim(arm).joint_ranges[:4] == ((-1.0, 1.0), (-1.6, 1.6), (-1.0, 2.0), (-0.5, 0.5))
    with pytest.raises(ArmConfigError, match='^joint_lower_limits: elbow lower limit 2.0 is '
                       r'above its upper limit 1.0 \(joint_upper_limits\)$'):
        urdf_simulated_arm(YAW_PAIR_PITCH, 'table', 'tool', (-1.0, -1.0, 2.0, -1.0),
                           (1.0, 1.0, 1.0, 1.0))
