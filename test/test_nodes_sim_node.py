"""Tests of the two_bone_ik_sim node as a real process over DDS: commands, state, robustness."""

import contextlib
import math
import re
import signal

from builtin_interfaces.msg import Duration
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped
import numpy as np
import pytest
from rclpy.time import Time
from ros_harness import claim_domain_id
from ros_harness import isolate_ros_domain
from ros_harness import NodeProcess
from ros_harness import REPO_ROOT
from ros_harness import RosProbe
from ros_harness import signal_inside_publish
from ros_harness import signal_while_stopping
from ros_harness import wait_until
from ros_harness import write_params
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from two_bone_ik.arm.desktop_config import desktop_geometry, DesktopConfig
from two_bone_ik.arm.params_file import load_arm_config
from two_bone_ik.arm.plane import from_plane
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.solver import forward
from urdf_arms import chain_tip, DESKTOP_PARAMETERS, HANGING_LEG, YAW_PAIR_PITCH
from urdf_arms import YAW_PAIR_PITCH_ROLL_GRIPPER

MODULE = 'two_bone_ik.nodes.sim_node'
DEFAULT_PARAMS = REPO_ROOT / 'config' / 'two_bone_ik.yaml'
SERVO_PARAMS = REPO_ROOT / 'config' / 'servo_arm.yaml'
SHOULDER, ELBOW = 'shoulder_joint', 'elbow_joint'

#: Joint angle error (rad) within which the arm counts as at its target.
ANGLE_TOLERANCE = 1e-3

#: The controller names the module's sim stands in for, and their topics.
POSITION_CONTROLLER = 'forward_position_controller'
TRAJECTORY_CONTROLLER = 'joint_trajectory_controller'
COMMANDS_TOPIC = f'/{POSITION_CONTROLLER}/commands'
TRAJECTORY_TOPIC = f'/{TRAJECTORY_CONTROLLER}/joint_trajectory'


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

    def publisher(self, msg_type, topic):
        """Return a publisher on ``topic`` matched with the sim's subscription."""
        publisher = self.probe.publisher(msg_type, topic)
        self.probe.wait_for_subscribers(publisher)
        return publisher

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
    ros_args = ['-p', f'arm_params_file:={DEFAULT_PARAMS}', '-p', 'real_time_factor:=2.0',
                '-p', f'position_controller:={POSITION_CONTROLLER}',
                '-p', f'trajectory_controller:={TRAJECTORY_CONTROLLER}']
    with NodeProcess(MODULE, ros_args=ros_args, domain_id=domain, log_dir=log_dir,
                     name='sim') as node, RosProbe(domain) as probe:
        yield Arm(node, probe)


@pytest.fixture(scope='module')
def controller_inputs(arm):
    """Return publishers on the module sim's controller topics, ``(commands, trajectory)``."""
    return (arm.publisher(Float64MultiArray, COMMANDS_TOPIC),
            arm.publisher(JointTrajectory, TRAJECTORY_TOPIC))


def test_publishes_state_and_tip_of_the_configured_arm(arm):
    # Before any command: at rest at the initial angles (0, 0), the default 0.30 + 0.25 m arm
    # stretched along +x of base_link, the tool frame unrotated. The first messages of the
    # module's sim, whichever test runs first.
    msg = arm.states.messages[0]
    assert list(msg.name) == [SHOULDER, ELBOW]
    assert msg.header.frame_id == 'base_link'
    np.testing.assert_allclose(msg.position, (0.0, 0.0), atol=1e-9)
    np.testing.assert_allclose(msg.velocity, (0.0, 0.0), atol=1e-9)
    np.testing.assert_allclose(msg.effort, (0.0, 0.0), atol=1e-9)
    tip = arm.tips.wait_for_count(1)[0]
    assert tip.header.frame_id == 'base_link'
    p, q = tip.pose.position, tip.pose.orientation
    np.testing.assert_allclose((p.x, p.y, p.z), (0.55, 0.0, 0.0), atol=1e-9)
    np.testing.assert_allclose((q.w, q.x, q.y, q.z), (1.0, 0.0, 0.0, 0.0), atol=1e-9)


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


START = (0.4, -0.6)

#: (bad command names, positions, follow-up good command or None, pose at rest afterwards).
#: A bad entry must leave its joint's target where it was, so the arm comes to rest with that
#: joint still at START while the good entry (in the same command, or in the follow-up for a
#: command with none) moves the other joint: both the handling and the ignoring show.
BAD_COMMANDS = {
    'unknown_name': (['wrist_joint', ELBOW], [1.0, 0.2], None, (0.4, 0.2)),
    'nan': ([SHOULDER, ELBOW], [math.nan, 0.2], None, (0.4, 0.2)),
    'missing_position': ([SHOULDER, ELBOW], [0.7], None, (0.7, -0.6)),
    'plus_inf': ([SHOULDER, ELBOW], [math.inf, 0.2], None, (0.4, 0.2)),
    'minus_inf': ([ELBOW, SHOULDER], [-math.inf, 0.7], None, (0.7, -0.6)),
    'joint_not_named': ([ELBOW], [0.2], None, (0.4, 0.2)),
    'all_infinite': ([SHOULDER, ELBOW], [math.inf, -math.inf], ([ELBOW], [0.2]), (0.4, 0.2)),
    'positions_without_names': ([], [1.0, 1.0], ([ELBOW], [0.2]), (0.4, 0.2)),
    'unknown_name_without_position': (['gripper'], [], ([SHOULDER], [0.7]), (0.7, -0.6)),
    'empty': ([], [], ([SHOULDER], [0.7]), (0.7, -0.6)),
}


@pytest.mark.parametrize('case', BAD_COMMANDS.values(), ids=list(BAD_COMMANDS))
def test_bad_command_entries_leave_their_targets_unchanged(arm, case):
    names, positions, follow_up, expected = case
    arm.send([SHOULDER, ELBOW], START)
    arm.wait_at(START)
    arm.send(names, positions)
    if follow_up is not None:
        arm.send(*follow_up)
    arm.wait_at(expected)
    assert arm.node.returncode is None, arm.node.output()


def test_warnings_name_the_problem_and_are_throttled_per_kind(tmp_path, own_domain):
    # A fresh sim, so no earlier warning has started a throttle window: the first of each burst
    # is logged, the rest of the burst within the 5 s throttle is not. Each kind has its own
    # window: a burst of one does not silence another.
    with NodeProcess(MODULE, ros_args=['-p', 'real_time_factor:=2.0'], domain_id=own_domain,
                     log_dir=tmp_path, name='throttle_sim') as node, \
            RosProbe(own_domain, 'throttle_probe') as probe:
        arm = Arm(node, probe)
        for _ in range(20):
            arm.send(['nonexistent_joint'], [0.0])
            arm.send([SHOULDER, ELBOW], [math.nan, math.inf])
            arm.send([], [0.3, 0.3])
        arm.send([SHOULDER], [0.25])
        arm.wait_at((0.25, 0.0))  # everything sent before has been handled
        err = node.stderr
    warnings = {
        'unknown': 'joint_commands: ignoring unknown joint(s) nonexistent_joint (this arm has '
                   'shoulder_joint, elbow_joint)',
        'invalid': 'joint_commands: ignoring NaN, infinite or missing position for '
                   'shoulder_joint, elbow_joint',
        'no names': 'joint_commands: ignoring a command without joint names',
    }
    for kind, text in warnings.items():
        # 20 of each sent within a fraction of a second: one line; a second one only if
        # handling the burst took longer than a throttle period on a loaded machine.
        assert 1 <= err.count(text) <= 2, f'{kind}:\n{err}'


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
        # The file's xz plane reaches the sim too: the tool frame of that state lies in x-z.
        tip = arm.tips.wait_for(lambda m: m.header.stamp == state.header.stamp)
        config = load_arm_config(SERVO_PARAMS)
        assert config.plane == 'xz'
        expected = from_plane(*forward(*state.position, *config.link_lengths), 'xz')
        p = tip.pose.position
        np.testing.assert_allclose((p.x, p.y, p.z), expected, atol=1e-9)
        assert tip.header.frame_id == 'servo_base'
        node.assert_ctrl_c_exits_0()
    assert 'Traceback' not in node.stderr, node.output()


@pytest.mark.parametrize('ros_args, message', [
    (['-p', 'natural_frequency:=0.0'], 'natural_frequency: expected 0.1 to 50, got 0.0'),
    (['-p', 'publish_rate:=10'], 'publish_rate: expected a double'),
    (['-p', 'link_lengths:=[0.3, -0.1]'], 'link_lengths: expected 2 non-negative'),
    (['-p', 'arm_params_file:=/nonexistent.yaml'], 'arm_params_file: params file'),
    (['-p', 'link_radius:=[0.02, 0.02]'], 'link_radius: expected one radius in metres'),
    (['-p', 'keep_out_boxes:=[0.0, 0.0, 0.0, 1.0, 1.0]'], 'keep_out_boxes: expected 6 values'),
])
def test_bad_parameter_exits_with_one_line(tmp_path, own_domain, ros_args, message):
    node = NodeProcess(MODULE, ros_args=ros_args, domain_id=own_domain, log_dir=tmp_path,
                       name='bad').start()
    assert node.wait() == 2, node.output()
    lines = node.stderr.strip().splitlines()
    # One line, naming the parameter first (each message starts with its name).
    assert len(lines) == 1, node.output()
    assert lines[0].startswith(f'two_bone_ik_sim: invalid parameter {message}'), node.output()
    assert 'Traceback' not in node.stderr + node.stdout, node.output()


def test_command_line_rcl_rejects_exits_2(tmp_path, own_domain):
    node = NodeProcess(MODULE, ros_args=['-p', 'natural_frequency:=[1.0,'],
                       domain_id=own_domain, log_dir=tmp_path, name='bad_args').start()
    assert node.wait() == 2, node.output()
    assert 'two_bone_ik_sim: cannot start: ' in node.stderr, node.output()
    assert 'Traceback' not in node.stderr + node.stdout, node.output()


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
def test_clean_exit_on_signal_inside_a_publish(tmp_path, own_domain, signum):
    # The signal lands inside the timer's publish of the 20th joint_states, which goes on once
    # rclpy has shut the context down (test/process_hooks): still exit 0, quietly.
    env = signal_inside_publish('/joint_states', 20, signum)
    node = NodeProcess(MODULE, ros_args=['-p', 'publish_rate:=200.0'], domain_id=own_domain,
                       log_dir=tmp_path, name='busy_sim', env_extra=env).start()
    try:
        returncode = node.wait(timeout=30)
    finally:
        node.stop()
    assert returncode == 0, node.output()
    assert 'Traceback' not in node.stderr + node.stdout, node.output()
    assert 'ready:' in node.stderr, node.output()  # it got to publishing


def test_a_second_ctrl_c_while_exiting_is_ignored(tmp_path, own_domain):
    # ros2 launch forwards the terminal's Ctrl-C, so the sim gets two; the second, landing
    # after Python stopped handling signals, used to kill it by the signal (exit -2).
    env = signal_while_stopping('exit')
    with NodeProcess(MODULE, domain_id=own_domain, log_dir=tmp_path, name='twice_sim',
                     env_extra=env) as node:
        wait_until(lambda: 'ready: ' in node.stderr, what='the ready line')
        returncode = node.interrupt()
    assert returncode == 0, node.output()
    assert 'Traceback' not in node.stderr + node.stdout, node.output()


READY = re.compile(r'kp \[([^\]]*)\] N m/rad, kv \[([^\]]*)\] N m s/rad, gravity (\w+)')


@pytest.mark.parametrize('frequency, damping, gravity', [(5.0, 0.5, False), (1.5, 2.0, True)])
def test_gain_and_gravity_parameters_reach_the_simulation(
        tmp_path, own_domain, frequency, damping, gravity):
    # The gains the node reports are those of ArmSim built with these settings (and differ
    # from the defaults'), so the parameters reached the physics.
    ros_args = ['-p', f'arm_params_file:={SERVO_PARAMS}', '-p', f'natural_frequency:={frequency}',
                '-p', f'damping_ratio:={damping}', '-p',
                f"gravity_compensation:={'true' if gravity else 'false'}"]
    with NodeProcess(MODULE, ros_args=ros_args, domain_id=own_domain, log_dir=tmp_path,
                     name='gains_sim') as node, RosProbe(own_domain, 'gains_probe') as probe:
        match = wait_until(lambda: READY.search(node.stderr), what='the ready line')
        config = load_arm_config(SERVO_PARAMS)
        expected = ArmSim(config, natural_frequency=frequency, damping_ratio=damping)
        default = ArmSim(config)
        kp = [float(v) for v in match.group(1).split(',')]
        kv = [float(v) for v in match.group(2).split(',')]
        np.testing.assert_allclose(kp, expected.kp, rtol=1e-5)
        np.testing.assert_allclose(kv, expected.kv, rtol=1e-5)
        assert not np.allclose(kp, default.kp, rtol=1e-3)
        assert match.group(3) == ('compensated' if gravity else 'acting')
        # The servo arm moves in the vertical xz plane: held out horizontally, it sags under
        # gravity by torque / kp unless gravity is compensated.
        arm = Arm(node, probe)
        names = list(config.joint_names)
        arm.send(names, [0.0, 0.0])
        if gravity:
            arm.wait_at((0.0, 0.0))
        else:
            def sagging_at_rest(msg):
                return (np.abs(np.asarray(msg.velocity)).max() < 1e-3
                        and min(msg.position) < -0.01)
            state = arm.states.wait_for(sagging_at_rest, start=len(arm.states))
            assert max(state.position) < 0.0  # both joints pulled down (toward -z)


def test_two_arm_file_gives_each_namespaced_sim_its_section(tmp_path, own_domain):
    # One file, two arms: each sim reads the IK node's section for its own namespace.
    params = tmp_path / 'two_arms.yaml'
    params.write_text(
        '/left_arm/two_bone_ik:\n  ros__parameters:\n    link_lengths: [0.30, 0.25]\n'
        '    joint_names: [left_shoulder, left_elbow]\n'
        '/right_arm/two_bone_ik:\n  ros__parameters:\n    link_lengths: [0.20, 0.10]\n'
        '    joint_names: [right_shoulder, right_elbow]\n    plane: xz\n')
    processes = [NodeProcess(MODULE, ros_args=['-r', f'__ns:=/{side}', '-p',
                                               f'arm_params_file:={params}'],
                             domain_id=own_domain, log_dir=tmp_path, name=side).start()
                 for side in ('left_arm', 'right_arm')]
    try:
        with RosProbe(own_domain, 'two_arm_probe') as probe:
            tips = {side: probe.collect(PoseStamped, f'/{side}/tip_pose')
                    for side in ('left_arm', 'right_arm')}
            states = {side: probe.collect(JointState, f'/{side}/joint_states')
                      for side in ('left_arm', 'right_arm')}
            probe.spin_for_messages(list(tips.values()) + list(states.values()), [1] * 4, 30.0)
            left, right = tips['left_arm'].last.pose.position, tips['right_arm'].last.pose.position
            np.testing.assert_allclose((left.x, left.y, left.z), (0.55, 0.0, 0.0), atol=1e-9)
            np.testing.assert_allclose((right.x, right.y, right.z), (0.30, 0.0, 0.0), atol=1e-9)
            assert list(states['left_arm'].last.name) == ['left_shoulder', 'left_elbow']
            assert list(states['right_arm'].last.name) == ['right_shoulder', 'right_elbow']
    finally:
        for process in processes:
            assert process.stop() == 0, process.output()


@contextlib.contextmanager
def _sim_of(tmp_path, domain, name, **parameters):
    """Run a sim at 2x real time with ``parameters`` in a params file; yield (node, probe)."""
    params = write_params(tmp_path / f'{name}.yaml', {'real_time_factor': 2.0, **parameters},
                          node_name='two_bone_ik_sim')
    with NodeProcess(MODULE, params_file=params, domain_id=domain, log_dir=tmp_path,
                     name=name) as node, RosProbe(domain, f'{name}_probe') as probe:
        yield node, probe


def test_simulates_the_users_own_urdf(tmp_path, own_domain):
    # The leg stand: a rail joint above the base (held where it is), the hip and knee driven,
    # the foot 0.045 m off the hip's plane. tip_pose is the foot in base_link.
    with _sim_of(tmp_path, own_domain, 'leg_sim', robot_description=HANGING_LEG,
                 base_frame='base_link', tip_frame='foot') as (node, probe):
        arm = Arm(node, probe)
        assert list(arm.states.last.name) == ['hip', 'knee']
        assert 'arm from its URDF' in node.stderr
        arm.send(['knee', 'hip'], [-0.9, 0.4])
        state = arm.wait_at((0.4, -0.9))
        tip = arm.tips.wait_for(lambda m: m.header.stamp == state.header.stamp)
        p = tip.pose.position
        expected = chain_tip(HANGING_LEG, 'base_link', 'foot',
                             dict(zip(state.name, state.position)))
        np.testing.assert_allclose((p.x, p.y, p.z), expected, atol=1e-9)
        arm.send(['rail'], [0.3])  # not an arm joint: refused, and the rail stays put
        arm.alive()
        assert 'ignoring unknown joint(s) rail (this arm has hip, knee)' in node.stderr


# -- the controllers' topics ------------------------------------------------------------------


def _duration(seconds):
    nanoseconds = int(round(seconds * 1e9))
    return Duration(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def _trajectory(names, points, stamp=None):
    """Return a JointTrajectory; ``points`` as ``(time_from_start, positions[, velocities])``."""
    msg = JointTrajectory(joint_names=list(names))
    if stamp is not None:
        msg.header.stamp = stamp
    for point in points:
        time_from_start, positions = point[:2]
        msg.points.append(JointTrajectoryPoint(
            positions=[float(v) for v in positions],
            velocities=[float(v) for v in point[2]] if len(point) > 2 else [],
            time_from_start=_duration(time_from_start)))
    return msg


def _moved_from(arm, start, pose, distance=0.01):
    """Return a predicate: a joint_states message from index ``start`` on left ``pose``."""
    def moved():
        return any(np.abs(np.asarray(msg.position) - pose).max() > distance
                   for msg in arm.states.messages[start:])
    return moved


def test_follows_position_controller_commands(arm, controller_inputs):
    commands, _ = controller_inputs
    arm.send([SHOULDER, ELBOW], START)
    arm.wait_at(START)
    # Sent again until the arm moves: the first sample on a new publisher may miss the sim.
    msg = Float64MultiArray(data=[-0.6, 0.9])  # in joint_names order: shoulder, elbow
    arm.probe.publish_until(commands, msg, _moved_from(arm, len(arm.states), START))
    arm.wait_at((-0.6, 0.9))
    # A joint_commands message takes over again.
    arm.send([ELBOW], [0.1])
    arm.wait_at((-0.6, 0.1))


def test_follows_a_joint_trajectory_through_its_points(arm, controller_inputs):
    _, trajectory = controller_inputs
    arm.send([SHOULDER, ELBOW], (0.0, 0.0))
    arm.wait_at((0.0, 0.0))
    first = len(arm.states)
    # Elbow named first. From (0, 0) out to (0.9, -0.5) in 1 s, held there for 1 s, then to
    # (0.2, 0.3): the shoulder passes beyond both ends of the motion and the elbow below both,
    # so only a visit to the middle point explains the extremes. Times are simulated seconds
    # (2x real time).
    msg = _trajectory([ELBOW, SHOULDER], [
        (1.0, (-0.5, 0.9), (0.0, 0.0)),
        (2.0, (-0.5, 0.9), (0.0, 0.0)),
        (3.0, (0.3, 0.2), (0.0, 0.0)),
    ])
    arm.probe.publish_until(trajectory, msg, _moved_from(arm, first, (0.0, 0.0)))
    arm.wait_at((0.2, 0.3))
    positions = np.array([msg.position for msg in arm.states.messages[first:]])
    assert positions[:, 0].max() == pytest.approx(0.9, abs=0.01)
    assert positions[:, 1].min() == pytest.approx(-0.5, abs=0.01)


def test_trajectory_with_a_stamp_in_the_future(arm, controller_inputs):
    _, trajectory = controller_inputs
    arm.send([SHOULDER, ELBOW], START)
    arm.wait_at(START)
    first = len(arm.states)
    stamp = arm.probe.node.get_clock().now().nanoseconds + 500_000_000  # in 0.5 s
    msg = _trajectory([SHOULDER, ELBOW], [(0.5, (-0.2, 0.7))],
                      stamp=Duration(sec=stamp // 1_000_000_000, nanosec=stamp % 1_000_000_000))
    arm.probe.publish_until(trajectory, msg, _moved_from(arm, first, START))
    arm.wait_at((-0.2, 0.7))
    # As joint_trajectory_controller, the sim moves from the moment it receives the message
    # toward the first point, due at stamp + time_from_start (0.5 s of sim time: 0.25 s of the
    # wall clock at 2x real time). The arm cannot be there before its reference is (it got
    # there 0.38 s after the stamp here; 0.06 s before it when the stamp was ignored). The sim
    # stamps its states with the wall clock, as the probe's.
    due = stamp + 250_000_000
    there = next(m for m in arm.states.messages[first:]
                 if np.abs(np.asarray(m.position) - (-0.2, 0.7)).max() < 0.01)
    assert Time.from_msg(there.header.stamp).nanoseconds >= due - 50_000_000


#: A trajectory to a pose other than START, and ways to spoil it (each a rule of the trajectory
#: controller): {case: (message, text of the warning)}.
_GOOD_POINTS = [(1.0, (0.9, -0.2)), (2.0, (1.0, 0.0))]
BAD_TRAJECTORIES = {
    'unknown_joint': (_trajectory([SHOULDER, ELBOW, 'wrist'], [(1.0, (1.0, 0.0, 0.5))]),
                      'rejected: unknown joint(s) wrist (the controller has shoulder_joint, '
                      'elbow_joint)'),
    'missing_joint': (_trajectory([ELBOW], [(1.0, (1.0,))]),
                      'rejected: joint(s) shoulder_joint missing: every joint of the '
                      'controller must be named (no partial goals)'),
    'nan': (_trajectory([SHOULDER, ELBOW], [(1.0, (1.0, math.nan))]),
            'rejected: point 0: positions of elbow_joint is nan'),
    'time_not_increasing': (_trajectory([SHOULDER, ELBOW], [(1.0, (0.9, -0.2)),
                                                            (1.0, (1.0, 0.0))]),
                            'rejected: time_from_start of points 0 and 1 is 1 s and 1 s'),
    'velocities_wrong_length': (_trajectory([SHOULDER, ELBOW], [(1.0, (1.0, 0.0), (0.0,))]),
                                'rejected: point 0: 1 velocities for 2 joint_names'),
    'last_velocity_nonzero': (_trajectory([SHOULDER, ELBOW], [(1.0, (1.0, 0.0), (0.0, 0.5))]),
                              "rejected: the last point's velocities must be zero, got "
                              'elbow_joint 0.5 rad/s'),
    'ends_in_the_past': (_trajectory([SHOULDER, ELBOW], _GOOD_POINTS, stamp=_duration(1.0)),
                         'rejected: the trajectory ended (header.stamp plus the last '
                         'time_from_start)'),
    # Finite values whose splines overflow a double (issue 15, defect 7: they killed the sim).
    'overflowing_positions': (_trajectory([SHOULDER, ELBOW], [(1.0, (1e308, 0.0)),
                                                              (2.0, (-1e308, 0.0))]),
                              'rejected: point 1: the spline to it overflows for '
                              'shoulder_joint'),
    'overflowing_velocity': (_trajectory([SHOULDER, ELBOW], [(1.0, (0.9, -0.2), (1.7e308, 0.0)),
                                                             (2.0, (1.0, 0.0), (0.0, 0.0))]),
                             'rejected: point 0: the spline to it overflows for shoulder_joint'),
}
BAD_COMMANDS_MULTIARRAY = {
    'wrong_length': (Float64MultiArray(data=[1.0]),
                     'rejected: expected 2 values (positions of shoulder_joint, elbow_joint, in '
                     'that order), got 1'),
    'nan': (Float64MultiArray(data=[1.0, math.nan]),
            'rejected: data[1] (elbow_joint) is nan; every value must be finite'),
}
BAD_CONTROLLER_MESSAGES = (
    [pytest.param(1, msg, text, id=f'trajectory-{case}')
     for case, (msg, text) in BAD_TRAJECTORIES.items()]
    + [pytest.param(0, msg, text, id=f'commands-{case}')
       for case, (msg, text) in BAD_COMMANDS_MULTIARRAY.items()])


@pytest.mark.parametrize('which, msg, text', BAD_CONTROLLER_MESSAGES)
def test_bad_controller_message_is_rejected_with_a_warning_and_no_motion(
        arm, controller_inputs, which, msg, text):
    publisher = controller_inputs[which]
    topic = (COMMANDS_TOPIC, TRAJECTORY_TOPIC)[which]
    arm.send([SHOULDER, ELBOW], START)
    arm.wait_at(START)
    # Sent until its warning shows (each kind of fault is sent by one test only, so the line is
    # this message's); then the arm stays where it was (had the message been taken, it would
    # have left by far more than the tolerance within the 10 states checked).
    warning = f'{topic}: {text}'
    arm.probe.publish_until(publisher, msg, lambda: warning in arm.node.stderr,
                            what=f'the warning {warning!r}')
    first = len(arm.states)
    arm.states.wait_for_count(first + 10)
    for state in arm.states.messages[first:]:
        np.testing.assert_allclose(state.position, START, atol=ANGLE_TOLERANCE)
        np.testing.assert_allclose(state.velocity, (0.0, 0.0), atol=1e-2)
    assert arm.node.returncode is None, arm.node.output()


def test_bad_controller_name_exits_with_one_line(tmp_path, own_domain):
    node = NodeProcess(MODULE, ros_args=['-p', 'trajectory_controller:=bad name'],
                       domain_id=own_domain, log_dir=tmp_path, name='bad_controller').start()
    assert node.wait() == 2, node.output()
    lines = node.stderr.strip().splitlines()
    assert lines == ["two_bone_ik_sim: invalid parameter trajectory_controller: 'bad name' "
                     'cannot name a controller: Invalid topic name: topic name must not '
                     "contain characters other than alphanumerics, '_', '~', '{', or '}':"], \
        node.output()


# -- desktop arms of 4 and 5 joints -----------------------------------------------------------

FIVE = ('yaw', 'shoulder', 'elbow', 'wrist_pitch', 'wrist_roll')


def _tip_of(arm, state, urdf, base):
    """Return the tip_pose of ``state`` and the URDF's own tip for its positions."""
    tip = arm.tips.wait_for(lambda m: m.header.stamp == state.header.stamp)
    p = tip.pose.position
    expected = chain_tip(urdf, base, 'tool', dict(zip(state.name, state.position)))
    return (p.x, p.y, p.z), expected


def test_a_five_joint_arm_and_its_gripper_through_every_input(tmp_path, own_domain):
    with _sim_of(tmp_path, own_domain, 'five_sim', robot_description=YAW_PAIR_PITCH_ROLL_GRIPPER,
                 tip_frame='tool', initial_positions=[0.1, 0.2, 0.3, 0.4, 0.5],
                 position_controller='arm_position',
                 trajectory_controller='arm_trajectory') as (node, probe):
        arm = Arm(node, probe)
        first = arm.states.messages[0]
        # The chain's joints in chain order, then the gripper (its mimic twin is fixed).
        assert list(first.name) == [*FIVE, 'gripper']
        np.testing.assert_allclose(first.position, (0.1, 0.2, 0.3, 0.4, 0.5, 0.005), atol=1e-9)
        assert 'arm from its URDF: 5 joints from' in node.stderr
        assert '(and off the chain: gripper)' in node.stderr
        # commands: 5 values in chain order.
        commands = arm.publisher(Float64MultiArray, '/arm_position/commands')
        target = (0.5, -0.4, 0.9, -1.0, 2.0)
        start = len(arm.states)
        arm.probe.publish_until(commands, Float64MultiArray(data=list(target)),
                                _moved_from(arm, start, first.position))
        state = arm.wait_at((*target, 0.005))
        tip, expected = _tip_of(arm, state, YAW_PAIR_PITCH_ROLL_GRIPPER, 'base_link')
        np.testing.assert_allclose(tip, expected, atol=1e-9)
        # joint_commands by name: the gripper alone, in metres.
        arm.send(['gripper'], [0.02])
        arm.wait_at((*target, 0.02))
        # joint_trajectory: the arm's 5 joints in any order; the gripper keeps its target.
        trajectory = arm.publisher(JointTrajectory, '/arm_trajectory/joint_trajectory')
        goal = dict(zip(FIVE, (-0.3, 0.1, -0.5, 0.6, -1.0)))
        order = ['wrist_roll', 'elbow', 'yaw', 'wrist_pitch', 'shoulder']
        start = len(arm.states)
        arm.probe.publish_until(
            trajectory, _trajectory(order, [(1.0, [goal[name] for name in order])]),
            _moved_from(arm, start, (*target, 0.02)))
        arm.wait_at((*goal.values(), 0.02))
        # A commands message of the planar arm's length is refused, naming all 5 joints.
        warning = ('/arm_position/commands: rejected: expected 5 values (positions of yaw, '
                   'shoulder, elbow, wrist_pitch, wrist_roll, in that order), got 2')
        arm.probe.publish_until(commands, Float64MultiArray(data=[0.0, 0.0]),
                                lambda: warning in node.stderr, what=warning)
        arm.alive()
        node.assert_ctrl_c_exits_0()
    assert 'Traceback' not in node.stderr, node.output()


def test_a_four_joint_arm_starts_at_zero_and_reports_on_diagnostics(tmp_path, own_domain):
    # A lower limit for each joint of the URDF's chain narrows the URDF's (the yaw's).
    with _sim_of(tmp_path, own_domain, 'four_sim', robot_description=YAW_PAIR_PITCH,
                 base_frame='table', tip_frame='tool',
                 joint_lower_limits=[-0.4, -math.inf, -math.inf, -math.inf]) as (node, probe):
        diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
        arm = Arm(node, probe)
        state = arm.states.messages[0]
        assert list(state.name) == ['base_yaw', 'shoulder', 'elbow', 'wrist_pitch']
        np.testing.assert_allclose(state.position, (0.0,) * 4, atol=1e-9)
        assert state.header.frame_id == 'table'
        tip, expected = _tip_of(arm, state, YAW_PAIR_PITCH, 'table')
        np.testing.assert_allclose(tip, expected, atol=1e-9)
        arm.send(['wrist_pitch', 'base_yaw'], [1.0, -0.5])
        state = arm.wait_at((-0.4, 0.0, 0.0, 1.0))
        tip, expected = _tip_of(arm, state, YAW_PAIR_PITCH, 'table')
        np.testing.assert_allclose(tip, expected, atol=1e-9)

        def reported(msg):
            status = msg.status[0]
            return (status.name == '/two_bone_ik_sim: simulation'
                    and status.message == 'holding the last command from joint_commands')
        status = diagnostics.wait_for(reported).status[0]
        assert status.hardware_id == 'mujoco' and status.level == DiagnosticStatus.OK
        values = {kv.key: kv.value for kv in status.values}
        assert values['joints'] == 'base_yaw, shoulder, elbow, wrist_pitch'
        assert values['commands_accepted'] == '1' and values['messages_refused'] == '0'


def test_a_desktop_arm_from_the_ik_nodes_parameters(tmp_path, own_domain):
    # The IK node's params file describes a desktop arm by parameters (5 joint names, shape,
    # tool offset; no plane and no URDF): the sim writes its URDF and simulates it, and the
    # tool point is the parameters' own arm at the measured readings.
    params = write_params(tmp_path / 'desktop.yaml', DESKTOP_PARAMETERS)
    ros_args = ['-p', f'arm_params_file:={params}', '-p', 'real_time_factor:=2.0',
                '-p', 'position_controller:=arm_position', '-p', 'joint_damping:=0.0',
                '-p', 'initial_positions:=[0.3, 0.2, 0.4, -0.5, 0.6]']
    geometry = desktop_geometry(DesktopConfig.from_mapping(DESKTOP_PARAMETERS))
    with NodeProcess(MODULE, ros_args=ros_args, domain_id=own_domain, log_dir=tmp_path,
                     name='desktop_sim') as node, RosProbe(own_domain, 'desktop_probe') as probe:
        arm = Arm(node, probe)
        state = arm.states.messages[0]
        assert list(state.name) == DESKTOP_PARAMETERS['joint_names']
        assert state.header.frame_id == 'desk'
        assert "arm from its parameters: yaw + pair + pitch + roll arm in 'desk'" in node.stderr
        commands = arm.publisher(Float64MultiArray, '/arm_position/commands')
        target = (-1.0, 0.5, 1.2, -1.0, 2.0)
        start = len(arm.states)
        arm.probe.publish_until(commands, Float64MultiArray(data=list(target)),
                                _moved_from(arm, start, state.position))
        state = arm.wait_at(target)
        tip = arm.tips.wait_for(lambda m: m.header.stamp == state.header.stamp)
        p = tip.pose.position
        np.testing.assert_allclose((p.x, p.y, p.z), geometry.tool_position(state.position),
                                   atol=1e-9)
        assert tip.header.frame_id == 'desk'
        # The parameters' limits hold: beyond them, the arm stops on them.
        arm.send(['turn', 'twist'], [3.5, -3.5])
        arm.wait_at((2.8, 0.5, 1.2, -1.0, -2.9))
        node.assert_ctrl_c_exits_0()
    assert 'Traceback' not in node.stderr, node.output()


def test_initial_positions_of_another_length_exit_with_one_line(tmp_path, own_domain):
    params = write_params(tmp_path / 'four.yaml', {
        'robot_description': YAW_PAIR_PITCH, 'base_frame': 'table', 'tip_frame': 'tool',
        'initial_positions': [0.0, 0.0]}, node_name='two_bone_ik_sim')
    node = NodeProcess(MODULE, params_file=params, domain_id=own_domain, log_dir=tmp_path,
                       name='bad_initial').start()
    assert node.wait() == 2, node.output()
    assert node.stderr.strip().splitlines() == [
        'two_bone_ik_sim: invalid parameter initial_positions: expected 4 finite angles (one '
        'per joint: base_yaw, shoulder, elbow, wrist_pitch), got [0.0, 0.0]'], node.output()
