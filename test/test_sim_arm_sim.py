"""Tests of two_bone_ik.sim: the ROS-free MuJoCo arm."""

import dataclasses
import math
import os
from pathlib import Path
import subprocess
import sys

import mujoco
import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.params_file import load_arm_config
from two_bone_ik.arm.plane import from_plane
from two_bone_ik.arm.urdf_export import arm_urdf
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.arm_sim import SimError
from two_bone_ik.solver import forward

REPO = Path(__file__).resolve().parents[1]
DEFAULT_ARM = load_arm_config(REPO / 'config' / 'two_bone_ik.yaml')
SERVO_ARM = load_arm_config(REPO / 'config' / 'servo_arm.yaml')
NAMES = DEFAULT_ARM.joint_names


# -- settings ----------------------------------------------------------------------------

@pytest.mark.parametrize('kwargs, message', [
    ({'natural_frequency': 0.0}, 'natural_frequency'),
    ({'natural_frequency': math.inf}, 'natural_frequency'),
    ({'damping_ratio': -1.0}, 'damping_ratio'),
    ({'timestep': 0.0}, 'timestep'),
    ({'joint_damping': -0.1}, 'joint_damping'),
    ({'joint_damping': math.nan}, 'joint_damping'),
    ({'initial_positions': (0.0,)}, 'initial_positions'),
    ({'initial_positions': (0.0, math.nan)}, 'initial_positions'),
])
def test_bad_settings_are_rejected(kwargs, message):
    with pytest.raises(SimError, match=message):
        ArmSim(DEFAULT_ARM, **kwargs)


def test_urdf_without_the_configured_joints_is_rejected():
    other = arm_urdf(ArmConfig(joint_names=('a', 'b')))
    with pytest.raises(SimError, match="no joint named 'shoulder_joint'"):
        ArmSim(DEFAULT_ARM, urdf=other)


def test_settings_reach_the_model():
    sim = ArmSim(DEFAULT_ARM, natural_frequency=2.0, damping_ratio=0.8, joint_damping=0.2,
                 timestep=0.001)
    assert sim.timestep == 0.001
    np.testing.assert_array_equal(sim.model.dof_damping, [0.2, 0.2])
    assert sim.model.nu == 2
    np.testing.assert_array_equal(sim.model.actuator_gainprm[:, 0], sim.kp)
    np.testing.assert_array_equal(sim.model.actuator_biasprm[:, 1], np.negative(sim.kp))
    np.testing.assert_array_equal(sim.model.actuator_biasprm[:, 2], np.negative(sim.kv))
    assert sim.advance(0.1) == 100
    assert sim.time == pytest.approx(0.1)


@pytest.mark.parametrize('config', [DEFAULT_ARM, SERVO_ARM], ids=['default', 'servo'])
def test_gains_give_the_requested_loop_dynamics(config):
    # kp / M_ii = omega^2 and kv / M_ii = 2 zeta omega, with M at the zero pose.
    sim = ArmSim(config, natural_frequency=2.5, damping_ratio=0.7)
    full = np.zeros((2, 2))
    mujoco.mj_fullM(sim.model, sim.data, full)  # the sim starts at the zero pose
    omega = 2.0 * math.pi * 2.5
    np.testing.assert_allclose(np.divide(sim.kp, np.diag(full)), omega ** 2, rtol=1e-12)
    np.testing.assert_allclose(np.divide(sim.kv, np.diag(full)), 2 * 0.7 * omega, rtol=1e-12)


# -- motion ------------------------------------------------------------------------------

def _expected_tip(config, q):
    return np.array(from_plane(*forward(q[0], q[1], *config.link_lengths), config.plane))


@pytest.mark.parametrize('config', [DEFAULT_ARM, SERVO_ARM,
                                    ArmConfig(link_lengths=(0.4, 0.2), plane='yz')],
                         ids=['default', 'servo', 'yz'])
def test_reaches_commanded_angles_and_tip(config):
    sim = ArmSim(config)
    for q in [(0.7, -1.2), (-1.0, 0.9), (0.2, 0.1)]:
        sim.command(q)
        assert sim.settle(tolerance=1e-6, timeout=5.0)
        np.testing.assert_allclose(sim.positions, q, atol=1e-6)
        np.testing.assert_allclose(sim.tip_position, _expected_tip(config, q), atol=1e-6)


def test_tip_belongs_to_the_current_joint_angles_while_moving():
    sim = ArmSim(DEFAULT_ARM)
    sim.command((1.0, -1.0))
    for _ in range(5):
        sim.step(7)
        assert np.abs(sim.velocities).max() > 0.1
        np.testing.assert_allclose(sim.tip_position, _expected_tip(DEFAULT_ARM, sim.positions),
                                   rtol=0.0, atol=1e-12)


def test_tip_orientation_is_the_sum_of_joint_angles():
    sim = ArmSim(DEFAULT_ARM)  # xy plane: the tool frame turns about +z by q1 + q2
    sim.command((0.5, 0.3))
    assert sim.settle(tolerance=1e-7)
    w, x, y, z = sim.tip_quaternion
    assert x == pytest.approx(0.0, abs=1e-9) and y == pytest.approx(0.0, abs=1e-9)
    assert 2.0 * math.atan2(z, w) == pytest.approx(0.8, abs=1e-6)


def test_commands_are_clamped_into_joint_limits():
    sim = ArmSim(SERVO_ARM)
    lo, hi = SERVO_ARM.joint_lower_limits, SERVO_ARM.joint_upper_limits
    sim.command((3.0, -3.0))
    np.testing.assert_array_equal(sim.targets, (hi[0], lo[1]))
    peak = 0.0
    for _ in range(500):
        sim.step()
        peak = max(peak, np.abs(sim.positions).max())
    assert peak <= math.pi / 2 + 1e-3  # the limits hold during the move too
    assert sim.settle(tolerance=1e-6)
    np.testing.assert_allclose(sim.positions, (hi[0], lo[1]), atol=1e-6)


def test_limits_hold_against_a_push():
    # The MuJoCo joint range itself holds, not only the clamped targets.
    sim = ArmSim(SERVO_ARM)
    sim.reset((1.5, 0.0))
    sim.data.qvel[:] = (20.0, 0.0)  # swing hard toward the upper limit
    peak = 0.0
    for _ in range(200):
        sim.step()
        peak = max(peak, sim.positions[0])
    assert peak < math.pi / 2 + 0.03


def test_continuous_joint_takes_the_short_way_round():
    free = dataclasses.replace(DEFAULT_ARM, joint_lower_limits=(-math.inf, -math.inf),
                               joint_upper_limits=(math.inf, math.inf))
    sim = ArmSim(free, initial_positions=(3.0, 0.0))
    sim.command((-3.0, 0.0))  # 0.28 rad further on, not 6 rad back
    assert sim.targets[0] == pytest.approx(2.0 * math.pi - 3.0)
    low = math.inf
    for _ in range(100):
        sim.advance(0.01)
        low = min(low, sim.positions[0])
    assert low > 2.9
    assert sim.settle(tolerance=1e-7)
    np.testing.assert_allclose(sim.tip_position, _expected_tip(DEFAULT_ARM, (-3.0, 0.0)),
                               atol=1e-6)


def test_set_targets_keeps_unmentioned_joints():
    sim = ArmSim(DEFAULT_ARM)
    sim.command((0.4, -0.4))
    sim.set_targets({1: 0.6})
    np.testing.assert_allclose(sim.targets, (0.4, 0.6))
    with pytest.raises(ValueError, match='position: expected a finite angle, got nan'):
        sim.set_targets({1: 0.1, 0: math.nan})  # refused as a whole
    np.testing.assert_allclose(sim.targets, (0.4, 0.6))


def test_a_blocked_joint_holds_where_it_started_whatever_is_commanded():
    sim = ArmSim(DEFAULT_ARM, initial_positions=(0.2, -0.3), blocked_joints=['elbow_joint'])
    assert sim.blocked == {1}
    sim.command((0.8, 1.2))
    sim.set_targets({1: -1.0})
    sim.advance(1.0)
    np.testing.assert_allclose(sim.targets, (0.8, -0.3))
    np.testing.assert_allclose(sim.positions, (0.8, -0.3), atol=1e-4)
    with pytest.raises(SimError, match='blocked_joints: no simulated joint named wrist '
                                       r'\(the joints: shoulder_joint, elbow_joint\)'):
        ArmSim(DEFAULT_ARM, blocked_joints=['wrist'])


def test_gravity_compensation_holds_a_vertical_arm():
    q = (0.3, 0.4)  # the servo arm moves in the vertical xz plane
    held = ArmSim(SERVO_ARM, initial_positions=q)
    assert held.settle(tolerance=1e-7, timeout=2.0)
    np.testing.assert_allclose(held.positions, q, atol=1e-7)

    sagging = ArmSim(SERVO_ARM, initial_positions=q, gravity_compensation=False)
    sagging.advance(2.0)
    assert np.abs(sagging.velocities).max() < 1e-4  # at rest ...
    assert np.abs(sagging.positions - q).max() > 1e-3  # ... but pulled off the target


def test_reset():
    sim = ArmSim(DEFAULT_ARM, initial_positions=(0.1, 0.2))
    sim.command((1.0, 1.0))
    sim.advance(0.2)
    sim.reset()
    assert sim.time == 0.0
    np.testing.assert_array_equal(sim.positions, (0.1, 0.2))
    np.testing.assert_array_equal(sim.velocities, (0.0, 0.0))
    np.testing.assert_array_equal(sim.targets, (0.1, 0.2))
    sim.reset((0.5, -0.5))
    np.testing.assert_allclose(sim.tip_position, _expected_tip(DEFAULT_ARM, (0.5, -0.5)),
                               atol=1e-12)


# -- importing the sim ---------------------------------------------------------------------

@pytest.mark.parametrize('mujoco_gl, loads_glfw', [(None, False), ('glfw', True)])
def test_importing_the_sim_loads_no_gl_unless_the_user_asks(mujoco_gl, loads_glfw):
    # GLFW's import starts a second Python interpreter; the headless sim needs no GL at all.
    env = {k: v for k, v in os.environ.items() if k != 'MUJOCO_GL'}
    if mujoco_gl is not None:
        env['MUJOCO_GL'] = mujoco_gl
    env['PYTHONPATH'] = os.pathsep.join([str(REPO), env.get('PYTHONPATH', '')])
    script = ('import os, sys; import two_bone_ik.sim.arm_sim; '
              "print('glfw' in sys.modules, os.environ['MUJOCO_GL'])")
    out = subprocess.run([sys.executable, '-c', script], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == [str(loads_glfw), mujoco_gl or 'disable']
