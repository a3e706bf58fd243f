"""Tests of the two_bone_ik_sim node as a real process over DDS: commands, state, robustness."""

import math
import signal

from geometry_msgs.msg import PoseStamped
import numpy as np
import pytest
from ros_harness import claim_domain_id
from ros_harness import isolate_ros_domain
from ros_harness import NodeProcess
from ros_harness import REPO_ROOT
from ros_harness import RosProbe
from sensor_msgs.msg import JointState

from two_bone_ik.arm_config import from_plane
from two_bone_ik.arm_config import load_arm_config
from two_bone_ik.solver import forward

MODULE = 'two_bone_ik.sim_node'
DEFAULT_PARAMS = REPO_ROOT / 'config' / 'two_bone_ik.yaml'
SERVO_PARAMS = REPO_ROOT / 'config' / 'servo_arm.yaml'
SHOULDER, ELBOW = 'shoulder_joint', 'elbow_joint'

#: Joint angle error (rad) within which the arm counts as at its target.
ANGLE_TOLERANCE = 1e-3


def _command(names, positions):
    return JointState(name=list(names), position=[float(p) for p in positions])


class Arm:
    """A running sim node and a probe that commands it and records what it publishes."""

    def __init__(self, node, probe):
        self.node = node
        self.probe = probe
        self.commands = probe.publisher(JointState, 'joint_commands')
        self.states = probe.collect(JointState, 'joint_states')
        self.tips = probe.collect(PoseStamped, 'tip_pose')
        probe.wait_for_subscribers(self.commands)
        probe.wait_for_publishers(self.states)
        probe.wait_for_publishers(self.tips)
        self.states.wait_for_count(1)

    def send(self, names, positions):
        self.commands.publish(_command(names, positions))

    def wait_at(self, expected, timeout=15.0):
        """Wait for a joint_states message at rest at ``expected`` angles; return it."""
        expected = np.asarray(expected, dtype=float)

        def at_rest_there(msg):
            return (np.abs(np.asarray(msg.position) - expected).max() < ANGLE_TOLERANCE
                    and np.abs(np.asarray(msg.velocity)).max() < 1e-2)
        return self.states.wait_for(at_rest_there, start=len(self.states), timeout=timeout)

    def alive(self):
        """Check that the node still runs and still publishes."""
        assert self.node.returncode is None, self.node.output()
        self.states.wait_for_count(len(self.states) + 3)


@pytest.fixture(scope='module')
def own_domain():
    """Claim a second domain for this process, for sims that must not meet the ``arm``."""
    return claim_domain_id()


@pytest.fixture(scope='module')
def arm(tmp_path_factory):
    domain = isolate_ros_domain()
    log_dir = tmp_path_factory.mktemp('sim_node')
    ros_args = ['-p', f'arm_params_file:={DEFAULT_PARAMS}', '-p', 'real_time_factor:=2.0']
    with NodeProcess(MODULE, ros_args=ros_args, domain_id=domain, log_dir=log_dir,
                     name='sim') as node, RosProbe(domain) as probe:
        yield Arm(node, probe)


def test_publishes_state_and_tip_of_the_configured_arm(arm):
    msg = arm.states.last
    assert list(msg.name) == [SHOULDER, ELBOW]
    assert len(msg.position) == len(msg.velocity) == len(msg.effort) == 2
    assert msg.header.frame_id == 'base_link'
    tip = arm.tips.wait_for_count(1)[-1]
    assert tip.header.frame_id == 'base_link'


def test_matches_commands_by_name_and_tip_follows(arm):
    arm.send([ELBOW, SHOULDER], [0.5, -0.3])  # not in the arm's order
    state = arm.wait_at((-0.3, 0.5))
    # tip_pose goes out with the same stamp as joint_states and is the tool frame of that state.
    tip = arm.tips.wait_for(lambda m: m.header.stamp == state.header.stamp)
    config = load_arm_config(DEFAULT_PARAMS)
    expected = from_plane(*forward(*state.position, *config.link_lengths), config.plane)
    p = tip.pose.position
    np.testing.assert_allclose((p.x, p.y, p.z), expected, atol=1e-9)
    q = tip.pose.orientation  # xy plane: a turn about +z by q1 + q2
    assert 2.0 * math.atan2(q.z, q.w) == pytest.approx(sum(state.position), abs=1e-6)


def test_unknown_names_nan_and_missing_joints_are_ignored(arm):
    arm.send([SHOULDER, ELBOW], [0.4, -0.6])
    arm.wait_at((0.4, -0.6))

    arm.send(['wrist_joint', SHOULDER, ELBOW], [1.0, math.nan, 0.2])  # elbow only
    arm.wait_at((0.4, 0.2))
    arm.send([ELBOW], [-0.1])  # shoulder missing: keeps its target
    arm.wait_at((0.4, -0.1))
    arm.send([SHOULDER, ELBOW], [0.7])  # fewer positions than names
    arm.wait_at((0.7, -0.1))
    arm.send([SHOULDER, ELBOW], [math.inf, -math.inf])
    arm.send([], [1.0, 1.0])  # no names at all
    arm.send(['gripper'], [])
    arm.send([], [])
    arm.alive()
    arm.send([SHOULDER], [0.0])  # still obeys afterwards, and the bad ones changed nothing
    arm.wait_at((0.0, -0.1))

    err = arm.node.stderr
    assert 'ignoring unknown joint(s) wrist_joint' in err
    assert 'ignoring NaN, infinite or missing position for shoulder_joint' in err
    assert 'without joint names' in err


def test_warnings_are_throttled(arm):
    before = arm.node.stderr.count('ignoring unknown joint(s)')
    for _ in range(20):
        arm.send(['nonexistent_joint'], [0.0])
    arm.alive()
    arm.send([SHOULDER], [0.25])
    arm.wait_at((0.25, -0.1))  # everything sent before has been handled
    assert arm.node.stderr.count('ignoring unknown joint(s)') - before < 20


def test_params_file_limits_and_override_then_clean_ctrl_c(tmp_path, own_domain):
    # The servo arm's file gives joint names and limits; an explicit parameter overrides it.
    # Its own domain: the module's default-arm sim is still running.
    domain = own_domain
    ros_args = ['-p', f'arm_params_file:={SERVO_PARAMS}', '-p', 'base_frame:=servo_base',
                '-p', 'real_time_factor:=2.0']
    with NodeProcess(MODULE, ros_args=ros_args, domain_id=domain, log_dir=tmp_path,
                     name='servo_sim') as node, RosProbe(domain, 'servo_probe') as probe:
        arm = Arm(node, probe)
        assert list(arm.states.last.name) == ['shoulder_servo', 'elbow_servo']
        assert arm.states.last.header.frame_id == 'servo_base'
        arm.send(['shoulder_servo', 'elbow_servo'], [2.5, -3.0])  # beyond +-pi/2
        state = arm.wait_at((math.pi / 2, -math.pi / 2))
        assert max(abs(v) for v in state.position) <= math.pi / 2 + 1e-3
        assert node.interrupt() == 0
    assert 'Traceback' not in node.stderr, node.output()


@pytest.mark.parametrize('ros_args, message', [
    (['-p', 'natural_frequency:=0.0'], 'natural_frequency: expected 0.1 to 50, got 0.0'),
    (['-p', 'publish_rate:=10'], 'publish_rate: expected a double'),
    (['-p', 'link_lengths:=[0.3, -0.1]'], 'link_lengths: expected 2 non-negative'),
    (['-p', 'arm_params_file:=/nonexistent.yaml'], 'arm_params_file: params file'),
])
def test_bad_parameter_exits_with_one_line(tmp_path, own_domain, ros_args, message):
    node = NodeProcess(MODULE, ros_args=ros_args, domain_id=own_domain, log_dir=tmp_path,
                       name='bad').start()
    assert node.wait() == 2, node.output()
    lines = node.stderr.strip().splitlines()
    assert lines == [f'two_bone_ik_sim: invalid parameter {lines[0].split(" parameter ")[1]}']
    assert message in lines[0]


def test_command_line_rcl_rejects_exits_2(tmp_path, own_domain):
    node = NodeProcess(MODULE, ros_args=['-p', 'natural_frequency:=[1.0,'],
                       domain_id=own_domain, log_dir=tmp_path, name='bad_args').start()
    assert node.wait() == 2, node.output()
    assert 'two_bone_ik_sim: cannot start: ' in node.stderr, node.output()
    assert 'Traceback' not in node.stderr + node.stdout, node.output()


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
def test_clean_exit_on_signal_while_busy(tmp_path, own_domain, signum):
    # Publishing at 1 kHz and following a stream of commands, the node is inside a callback
    # (often inside a publish) when the signal shuts its context down: still exit 0, quietly.
    ros_args = ['-p', 'publish_rate:=1000.0', '-p', 'real_time_factor:=2.0']
    with NodeProcess(MODULE, ros_args=ros_args, domain_id=own_domain, log_dir=tmp_path,
                     name='busy_sim') as node, RosProbe(own_domain, 'busy_probe') as probe:
        arm = Arm(node, probe)
        arm.states.wait_for_count(len(arm.states) + 50)
        for index in range(400):
            arm.send([SHOULDER, ELBOW], [0.001 * index, -0.001 * index])
            if index == 200:
                node.send_signal(signum)
        returncode = node.wait()
    assert returncode == 0, node.output()
    assert 'Traceback' not in node.stderr + node.stdout, node.output()
