"""The IK node's outputs and planned motion over DDS: controllers' topics, streaming, ~/stop.

Checks what a ros2_control controller would get: Float64MultiArray commands (never NaN, the
right length, inside the limits) and JointTrajectory messages valid by every rule of
joint_trajectory_controller (start now, every joint named, strictly increasing times, lengths,
zero final velocities), and that the stream is the plan sampled at the command rate in plan
time: the same values the trajectory carries.
"""

import math
import time

from braking import check_brakes_forward
from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped, Twist, TwistStamped
from ik_client import Arm, LATCHED, pose, values
import numpy as np
import pytest
from rclpy.qos import qos_profile_sensor_data
from ros_harness import NodeProcess, wait_until, without_modules, write_params
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, Float64MultiArray
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory

from two_bone_ik.motion.planner import MAX_TRAJECTORY_POINTS
from two_bone_ik.solver import forward

NAMES = ['shoulder_joint', 'elbow_joint']
LINKS = (0.30, 0.25)
LOWER, UPPER = [-2.5, -2.8], [2.5, 2.8]
VELOCITY, ACCELERATION, JERK = [1.5, 2.0], [6.0, 8.0], [60.0, 80.0]
RATE = 100.0
#: Seconds to wait for a streamed motion to end.
STREAM_TIMEOUT = 120.0


def seconds(duration):
    return duration.sec + duration.nanosec * 1e-9


def check_trajectory(msg, rate=RATE):
    """Check one JointTrajectory by joint_trajectory_controller's rules (Jazzy)."""
    assert msg.header.stamp == Time()  # zero: start now
    assert list(msg.joint_names) == NAMES
    times = [seconds(p.time_from_start) for p in msg.points]
    assert times[0] >= 1.0 / rate - 1e-9
    assert all(b > a for a, b in zip(times, times[1:]))
    for point in msg.points:
        for field in (point.positions, point.velocities, point.accelerations):
            assert len(field) == 2 and all(math.isfinite(v) for v in field)
        assert all(lo <= q <= hi for q, lo, hi in zip(point.positions, LOWER, UPPER))
        assert all(abs(v) <= limit * (1 + 1e-6) for v, limit in zip(point.velocities, VELOCITY))
    assert list(msg.points[-1].velocities) == [0.0, 0.0]
    return times


class Motion:
    """Probe-side endpoints of a node whose outputs are a position and a trajectory controller."""

    def __init__(self, probe, process, ns):
        self.probe, self.process, self.ns = probe, process, ns
        self.target = probe.publisher(PoseStamped, f'{ns}/target_pose')
        self.commands = probe.collect(Float64MultiArray, f'{ns}/fpc/commands')
        self.trajectories = probe.collect(JointTrajectory, f'{ns}/jtc/joint_trajectory')
        self.statuses = probe.collect(DiagnosticStatus, f'{ns}/ik_status')
        self.reachable = probe.collect(Bool, f'{ns}/reachable', LATCHED)
        self.joint_commands = probe.collect(JointState, f'{ns}/joint_commands')
        self.states = probe.publisher(JointState, f'{ns}/joint_states', qos_profile_sensor_data)
        probe.wait_for_subscribers(self.target)
        for collector in (self.commands, self.trajectories, self.statuses):
            probe.wait_for_publishers(collector)

    def send(self, x, y):
        """Send a target; return (its status values, its trajectory, the commands streamed)."""
        starts = len(self.statuses), len(self.trajectories), len(self.commands)
        self.target.publish(pose(x, y))
        status = self.statuses.wait_for(lambda s: True, start=starts[0])
        trajectory = self.trajectories.wait_for(lambda t: True, start=starts[1])
        expected = len(trajectory.points)
        # Generous: on a loaded machine the stream takes longer than planned (never shorter).
        self.commands.wait_for_count(starts[2] + expected, timeout=STREAM_TIMEOUT)
        return values(status), trajectory, self.commands.messages[starts[2]:]

    def settle(self):
        """Wait until the stream has ended (the last command is the last trajectory point)."""
        last = self.trajectories.last.points[-1].positions
        self.commands.wait_for(lambda m: list(m.data) == list(last), timeout=STREAM_TIMEOUT)


def motion_params(**extra):
    return {'joint_lower_limits': LOWER, 'joint_upper_limits': UPPER,
            'publish_joint_commands': False, 'position_controller': 'fpc',
            'trajectory_controller': 'jtc', 'max_joint_velocity': VELOCITY,
            'max_joint_acceleration': ACCELERATION, 'max_joint_jerk': JERK,
            'command_rate': RATE, **extra}


@pytest.fixture(scope='module')
def motion(domain, probe, tmp_path_factory):
    log_dir = tmp_path_factory.mktemp('motion')
    params = write_params(log_dir / 'motion.yaml', motion_params(
        initial_positions=[0.2, -0.4]))
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/motion'],
                     domain_id=domain, log_dir=log_dir, name='motion') as process:
        motion = Motion(probe, process, '/motion')
        # The first exchange is retried until every output has matched us.
        start = len(motion.trajectories)
        probe.publish_until(motion.target, pose(0.3, 0.3),
                            lambda: len(motion.trajectories) > start, what='a first answer')
        motion.settle()
        yield motion
        assert process.returncode is None, process.output()


def test_stream_is_the_plan_sampled_at_the_command_rate(motion):
    status, trajectory, commands = motion.send(-0.1, 0.45)
    assert status['status'] == 'REACHED' and status['moving'] == 'true'
    duration = float(status['motion_remaining'])
    times = check_trajectory(trajectory)
    # One command per period of plan time, and they are the trajectory's points: the same
    # samples of the same plan.
    assert len(commands) == len(trajectory.points) == math.ceil(duration * RATE - 1e-9)
    assert times[-1] == pytest.approx(duration, abs=1e-6)  # the status rounds to 1 us
    for command, point in zip(commands, trajectory.points):
        assert len(command.data) == 2
        np.testing.assert_allclose(command.data, point.positions, rtol=0, atol=1e-12)
    # At rest on the solution: its tip on the target.
    np.testing.assert_allclose(forward(*commands[-1].data, *LINKS), (-0.1, 0.45), atol=1e-9)
    # Steps bounded by the velocity limit, which the time-optimal motion reaches on one joint.
    data = np.array([c.data for c in commands])
    used = np.abs(np.diff(data, axis=0)).max(axis=0) / (np.array(VELOCITY) / RATE)
    assert used.max() <= 1 + 1e-6 and used.max() > 0.95
    # joint_commands are turned off.
    assert len(motion.joint_commands) == 0


def test_a_motion_onto_a_joint_limit_never_passes_it(motion):
    # The closest pose to (-0.5, 0.02) has the shoulder on its upper limit. Ruckig's end state
    # of the motion there from rest at (0.3, 0.3)'s solution is 1.3e-15 rad beyond it: the
    # stream and the trajectory end exactly on the limit, and never pass it.
    motion.send(0.3, 0.3)
    motion.settle()
    start = len(motion.commands)
    status, trajectory, _ = motion.send(-0.5, 0.02)
    assert status['status'] == 'JOINT_LIMITED'
    check_trajectory(trajectory)
    motion.settle()
    data = np.array([c.data for c in motion.commands.messages[start:]])
    assert (data >= LOWER).all() and (data <= UPPER).all()
    assert data[-1][0] == UPPER[0]


def test_replanning_mid_motion_is_continuous(motion):
    start = len(motion.commands)
    motion.target.publish(pose(0.5, -0.1))
    motion.commands.wait_for_count(start + 15)  # mid-way
    status, trajectory, _ = motion.send(-0.2, -0.4)
    check_trajectory(trajectory)
    motion.settle()
    data = np.array([c.data for c in motion.commands.messages[start:]])
    steps = np.abs(np.diff(data, axis=0))
    assert (steps <= np.array(VELOCITY) / RATE * (1 + 1e-6)).all()
    np.testing.assert_allclose(forward(*data[-1], *LINKS), (-0.2, -0.4), atol=1e-9)


def test_stop_brakes_within_the_limits_and_holds(motion):
    start, planned_at = len(motion.commands), len(motion.trajectories)
    motion.target.publish(pose(-0.3, -0.35))
    planned = motion.trajectories.wait_for(lambda t: True, start=planned_at)
    motion.commands.wait_for_count(start + 20)
    reply = motion.probe.call(Trigger, '/motion/two_bone_ik/stop', Trigger.Request())
    assert reply.success
    assert reply.message.startswith('stopping: at rest at [')
    where = [float(v) for v in reply.message.split('[')[1].split(']')[0].split(',')]
    braking = motion.trajectories.wait_for(
        lambda t: np.allclose(t.points[-1].positions, where, atol=1e-6),
        start=len(motion.trajectories) - 1)
    check_trajectory(braking)
    motion.settle()  # the braking stream has ended
    # It holds there: the stream has ended on that pose; a second stop says so.
    again = motion.probe.call(Trigger, '/motion/two_bone_ik/stop', Trigger.Request())
    assert again.success and again.message.startswith('at rest at [')
    data = np.array([c.data for c in motion.commands.messages[start:]])
    np.testing.assert_allclose(data[-1], where, atol=1e-6)
    assert not np.allclose(forward(*data[-1], *LINKS), (-0.3, -0.35), atol=1e-3)
    # Where the stop came: the last command of the motion before the braking's first point,
    # a point of the motion's trajectory (its velocity and acceleration there).
    first = next(i for i, row in enumerate(data)
                 if np.allclose(row, braking.points[0].positions, atol=1e-9))
    points = np.array([p.positions for p in planned.points])
    k = int(np.argmin(np.abs(points - data[first - 1]).max(axis=1)))
    np.testing.assert_allclose(points[k], data[first - 1], atol=1e-9)
    # Each joint rests beyond it, in its direction of travel, within its braking distance (a
    # stop planned as a move elsewhere, e.g. back to (0, 0), fails here).
    check_brakes_forward(points[k], planned.points[k].velocities,
                         planned.points[k].accelerations, where,
                         [p.velocities for p in braking.points], ACCELERATION, JERK, slack=1e-6)


def test_diagnostics_show_the_motion(motion):
    diagnostics = motion.probe.collect(DiagnosticArray, '/diagnostics')
    start = len(motion.commands)
    motion.target.publish(pose(-0.45, 0.1))
    motion.commands.wait_for_count(start + 5)

    def moving_report(array):
        return [s for s in array.status if s.name == '/motion/two_bone_ik: motion'
                and values(s)['moving'] == 'true']
    (report,) = moving_report(diagnostics.wait_for(moving_report))
    assert report.message.startswith('moving, ') and report.message.endswith(' s left')
    assert values(report)['max_joint_velocity'] == '[1.500000, 2.000000]'
    assert values(report)['command_rate_hz'] == '100'
    motion.settle()
    motion.probe.node.destroy_subscription(diagnostics.subscription)


def test_runtime_limits_and_rate_changes(motion):
    slow = motion.probe.set_parameters('/motion/two_bone_ik', {
        'max_joint_velocity': [0.5, 0.5], 'command_rate': 50.0})
    assert all(r.successful for r in slow), [r.reason for r in slow]
    try:
        status, trajectory, commands = motion.send(0.4, 0.2)
        times = check_trajectory(trajectory, rate=50.0)
        assert times[0] == pytest.approx(0.02)
        data = np.array([c.data for c in commands])
        assert np.abs(np.diff(data, axis=0)).max() <= 0.5 / 50.0 * (1 + 1e-6)
        motion.settle()
    finally:
        back = motion.probe.set_parameters('/motion/two_bone_ik', {
            'max_joint_velocity': VELOCITY, 'command_rate': RATE})
        assert all(r.successful for r in back)


@pytest.mark.parametrize('params, reason', [
    ({'max_joint_velocity': [0.0, 1.0]},
     'max_joint_velocity: expected 2 positive values in rad/s (.inf for unlimited), got '
     '[0.0, 1.0]'),
    ({'max_joint_jerk': [-1.0, 1.0]}, 'max_joint_jerk: expected 2 positive values'),
    ({'max_joint_acceleration': [1.0]}, 'max_joint_acceleration: expected an array of 2 to 5 '
                                        'doubles (write 1.0, not 1), got 1 value(s) [1.0]'),
    ({'command_rate': 5000.0}, 'command_rate: expected 1 to 1000, got 5000.0'),
    ({'command_rate': 100}, 'command_rate: expected a double (write 1.0, not 1), got integer '
                            '100'),
    ({'position_controller': 'other'}, 'position_controller: read-only'),
])
def test_bad_motion_values_refused_in_words(motion, params, reason):
    (result,) = motion.probe.set_parameters('/motion/two_bone_ik', params)
    assert not result.successful
    assert result.reason.startswith(reason), result.reason


def test_first_motion_starts_from_the_published_joint_states(domain, probe, tmp_path):
    params = write_params(tmp_path / 'measured.yaml', motion_params(
        initial_positions=[1.0, 1.0]))
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/measured'],
                     domain_id=domain, log_dir=tmp_path, name='measured') as process:
        motion = Motion(probe, process, '/measured')
        probe.wait_for_subscribers(motion.states)
        measured = JointState(name=list(reversed(NAMES)), position=[-0.6, 0.4])
        diagnostics = probe.collect(DiagnosticArray, '/diagnostics')

        def node_has_it(array):
            return any(s.name == '/measured/two_bone_ik: motion'
                       and values(s)['measured_position'] == '[0.400000, -0.600000]'
                       for s in array.status)
        # Best effort: repeat until the node says (in /diagnostics) it has the measurement.
        probe.publish_until(motion.states, measured, lambda: any(
            node_has_it(a) for a in diagnostics.messages), 30.0, 'the measurement to arrive')
        start = len(motion.trajectories)
        probe.publish_until(motion.target, pose(0.35, 0.2),
                            lambda: len(motion.trajectories) > start, what='an answer')
        first = motion.trajectories.messages[start].points[0].positions
        # One period from (0.4, -0.6), not from initial_positions (1, 1).
        assert first == pytest.approx([0.4, -0.6], abs=max(VELOCITY) / RATE)
        motion.commands.wait_for_count(1)


def test_without_limits_one_command_per_target_on_every_output(domain, probe, tmp_path):
    params = write_params(tmp_path / 'steps.yaml', {
        'position_controller': 'fpc', 'trajectory_controller': 'jtc'})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/steps'],
                     domain_id=domain, log_dir=tmp_path, name='steps') as process:
        motion = Motion(probe, process, '/steps')
        probe.wait_for_publishers(motion.joint_commands)
        start = len(motion.trajectories)
        probe.publish_until(motion.target, pose(0.3, 0.3),
                            lambda: len(motion.trajectories) > start, what='an answer')
        status, trajectory, commands = motion.send(0.2, -0.35)
        assert status['moving'] == 'false' and float(status['motion_remaining']) == 0.0
        (point,) = trajectory.points
        assert seconds(point.time_from_start) == pytest.approx(1.0 / 100.0)
        assert list(point.velocities) == [0.0, 0.0]
        (command,) = commands
        np.testing.assert_allclose(forward(*command.data, *LINKS), (0.2, -0.35), atol=1e-9)
        joints = motion.joint_commands.wait_for(
            lambda m: list(m.position) == list(command.data))
        assert list(joints.name) == NAMES
        # ~/stop has nothing to brake without planned motion.
        reply = probe.call(Trigger, '/steps/two_bone_ik/stop', Trigger.Request())
        assert reply.success and 'no motion planned' in reply.message
        assert process.returncode is None


def test_diagnostics_warn_while_nothing_subscribes_to_the_commands(domain, probe, tmp_path):
    # A controller that is not running (or a namespace typo) leaves the commands going nowhere:
    # the motion status says so (WARN, naming the topics) until something subscribes.
    params = write_params(tmp_path / 'alone.yaml', {
        'publish_joint_commands': False, 'position_controller': 'fpc',
        'trajectory_controller': 'jtc'})
    diagnostics = probe.collect(DiagnosticArray, '/diagnostics')

    def motion_report(predicate):
        def check(array):
            return next((s for s in array.status if s.name == '/alone/two_bone_ik: motion'
                         and predicate(s)), None)
        return check(diagnostics.wait_for(check, timeout=15.0))

    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/alone'],
                     domain_id=domain, log_dir=tmp_path, name='alone') as process:
        alone = motion_report(lambda s: True)
        assert alone.level == DiagnosticStatus.WARN
        assert alone.message.endswith(
            '; nothing subscribes to /alone/fpc/commands or /alone/jtc/joint_trajectory')
        assert values(alone)['subscribers'] == ('/alone/fpc/commands: 0, '
                                                '/alone/jtc/joint_trajectory: 0')
        commands = probe.collect(Float64MultiArray, '/alone/fpc/commands')
        listened = motion_report(lambda s: s.level == DiagnosticStatus.OK)
        assert listened.message == 'no motion planning (every motion limit infinite): one ' \
                                   'command per target'
        assert values(listened)['subscribers'] == ('/alone/fpc/commands: 1, '
                                                   '/alone/jtc/joint_trajectory: 0')
        probe.node.destroy_subscription(commands.subscription)
        assert process.returncode is None
    probe.node.destroy_subscription(diagnostics.subscription)


def test_stops_cleanly_after_planned_motion(domain, probe, tmp_path):
    # Ctrl-C after a planned motion: exit 0 and nothing at exit, in particular no nanobind
    # report of Ruckig objects "leaked" (start-up objects were frozen out of the collector).
    params = write_params(tmp_path / 'clean.yaml', motion_params())
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/clean'],
                     domain_id=domain, log_dir=tmp_path, name='clean') as process:
        motion = Motion(probe, process, '/clean')
        start = len(motion.trajectories)
        probe.publish_until(motion.target, pose(0.3, 0.3),
                            lambda: len(motion.trajectories) > start, what='an answer')
        motion.settle()
        returncode = process.interrupt()
    assert returncode == 0, process.output()
    lines = [line for line in (process.stdout + process.stderr).splitlines()
             if line.strip() and '[INFO]' not in line]
    assert lines == [], process.output()


def test_joint_states_read_from_when_motion_is_planned_at_runtime(domain, probe, tmp_path):
    # Without motion limits the node subscribes to joint_states all the same (a desktop arm
    # holds its roll where the arm is); a finite limit set at runtime uses the measurement.
    params = write_params(tmp_path / 'later.yaml', {'position_controller': 'fpc'})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/later'],
                     domain_id=domain, log_dir=tmp_path, name='later') as process:
        target = probe.publisher(PoseStamped, '/later/target_pose')
        probe.wait_for_subscribers(target)
        # Its target_pose subscription is known, so its endpoints are: one on joint_states.
        assert probe.node.count_subscribers('/later/joint_states') == 1
        results = probe.set_parameters('/later/two_bone_ik', {'max_joint_velocity': [1.0, 1.0]})
        assert all(r.successful for r in results), [r.reason for r in results]
        states = probe.publisher(JointState, '/later/joint_states', qos_profile_sensor_data)
        probe.wait_for_subscribers(states)
        diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
        measured = JointState(name=list(NAMES), position=[0.3, -0.7])
        probe.publish_until(states, measured, lambda: any(
            s.name == '/later/two_bone_ik: motion'
            and values(s)['measured_position'] == '[0.300000, -0.700000]'
            for a in diagnostics.messages for s in a.status), 30.0, 'the measurement to arrive')
        probe.node.destroy_subscription(diagnostics.subscription)
        assert process.returncode is None


def motion_report(diagnostics, ns, predicate):
    """Wait for a ``<ns>/two_bone_ik: motion`` status matching ``predicate``; return it."""
    def check(array):
        return next((s for s in array.status if s.name == f'{ns}/two_bone_ik: motion'
                     and predicate(s)), None)
    return check(diagnostics.wait_for(check, timeout=20.0))


def test_streamed_joint_commands_are_stamped_a_period_apart(domain, probe, tmp_path):
    # The pacer sends a sample no earlier than one period after the one before: a pacer at
    # twice the rate (real-time velocity twice the limit) passed every per-message check.
    params = write_params(tmp_path / 'stamps.yaml', motion_params(publish_joint_commands=True))
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/stamps'],
                     domain_id=domain, log_dir=tmp_path, name='stamps') as process:
        motion = Motion(probe, process, '/stamps')
        probe.wait_for_publishers(motion.joint_commands)
        start = len(motion.trajectories)
        probe.publish_until(motion.target, pose(0.3, 0.3),
                            lambda: len(motion.trajectories) > start, what='an answer')
        motion.settle()
        last = list(motion.trajectories.last.points[-1].positions)
        motion.joint_commands.wait_for(lambda m: list(m.position) == last)  # it ended here too
        first = len(motion.joint_commands)
        status, trajectory, _ = motion.send(-0.35, -0.2)
        # A loaded machine wakes the pacer late, and a late command delays the next: the
        # stream then takes longer than planned (never shorter).
        motion.joint_commands.wait_for_count(first + len(trajectory.points),
                                             timeout=STREAM_TIMEOUT)
        streamed = motion.joint_commands.messages[first:]
        assert len(streamed) == len(trajectory.points) > 50
        stamps = np.array([m.header.stamp.sec + m.header.stamp.nanosec * 1e-9
                           for m in streamed])
        gaps = np.diff(stamps)
        # Stamps are taken as each command is published, a little after its period began: on a
        # loaded machine single gaps wander by that delay, the run of them cannot.
        assert np.median(gaps) >= 0.98 / RATE, np.median(gaps)
        assert stamps[-1] - stamps[0] >= (len(stamps) - 1) / RATE * 0.99
        assert np.mean(gaps < 0.8 / RATE) <= 0.1, np.sort(gaps)[:10]
        # So the real-time velocity stays within the limit over the motion.
        positions = np.array([m.position for m in streamed])
        travel = np.abs(positions[-1] - positions[0])
        assert np.all(travel <= np.array(VELOCITY) * (stamps[-1] - stamps[0]) * (1 + 1e-6))
        assert process.returncode is None


def test_a_motion_the_planner_cannot_plan_is_answered_and_the_node_lives(domain, probe,
                                                                         tmp_path):
    # At 1e-4 rad/s a 1 rad move lasts longer than Ruckig can plan (result -101): the node
    # died with "ValueError: -101 is not a valid Result". A joint_states message far outside
    # the limits is refused as a starting point (it made the first plan fail the same way).
    params = write_params(tmp_path / 'slow.yaml', motion_params(
        max_joint_velocity=[1e-4, 1e-4], publish_joint_commands=True))
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/slow'],
                     domain_id=domain, log_dir=tmp_path, name='slow') as process:
        motion = Motion(probe, process, '/slow')
        probe.wait_for_subscribers(motion.states)
        diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
        far = JointState(name=list(NAMES), position=[1e6, 0.0])
        probe.publish_until(motion.states, far, lambda: any(
            s.name == '/slow/two_bone_ik: motion' and 'joint_states refused' in s.message
            for a in diagnostics.messages for s in a.status), 30.0, 'the measurement refused')
        report = motion_report(diagnostics, '/slow', lambda s: 'refused' in s.message)
        assert report.level == DiagnosticStatus.WARN
        assert 'more than 0.1 rad outside its limits' in report.message
        assert values(report)['measured_position'] == 'none'
        start, answered = len(motion.statuses), len(motion.reachable)
        probe.publish_until(motion.target, pose(-0.2, 0.4), lambda: len(motion.statuses) > start,
                            what='an answer')
        failed = motion.statuses.messages[start]
        assert (values(failed)['status'], values(failed)['code']) == ('MOTION_FAILED', '15')
        assert failed.level == DiagnosticStatus.ERROR
        assert motion.reachable.wait_for(lambda m: True, start=answered).data is False
        # The node logs after it has answered: the line may land a moment after the status.
        wait_until(lambda: 'longer than the about 7600 s Ruckig can plan' in process.stderr,
                   what="the planner's reason in the log", processes={'node': process})
        # Still alive and answering: a short move from the start (0, 0) is planned (500 s, its
        # trajectory thinned to at most MAX_TRAJECTORY_POINTS points).
        start, sent = len(motion.statuses), len(motion.trajectories)
        motion.target.publish(pose(*forward(0.05, -0.05, *LINKS)))
        status = values(motion.statuses.wait_for(lambda s: True, start=start))
        assert status['status'] == 'REACHED' and status['moving'] == 'true'
        assert float(status['motion_remaining']) > 400.0
        trajectory = motion.trajectories.wait_for(lambda t: True, start=sent)
        assert len(trajectory.points) <= MAX_TRAJECTORY_POINTS
        assert process.returncode is None, process.output()


def test_joint_states_the_node_cannot_use_change_nothing(domain, probe, tmp_path):
    # Measured at (0.4, -0.6), then NaN, inf, wrong names, wrong lengths, an unstamped message
    # at (0, 0) after stamped ones, one stamped 2^31 s: the first motion used to start from
    # (0, 0), its first command jumping 0.4 and 0.6 rad.
    params = write_params(tmp_path / 'garbage.yaml', motion_params(
        initial_positions=[0.0, 0.0], publish_joint_commands=True))
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/garbage'],
                     domain_id=domain, log_dir=tmp_path, name='garbage') as process:
        motion = Motion(probe, process, '/garbage')
        probe.wait_for_subscribers(motion.states)
        diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
        good = JointState(name=list(NAMES), position=[0.4, -0.6])
        good.header.stamp = probe.node.get_clock().now().to_msg()
        probe.publish_until(motion.states, good, lambda: any(
            s.name == '/garbage/two_bone_ik: motion'
            and values(s)['measured_position'] == '[0.400000, -0.600000]'
            for a in diagnostics.messages for s in a.status), 30.0, 'the measurement to arrive')
        now = probe.node.get_clock().now().to_msg()
        garbage = [JointState(name=list(NAMES), position=[math.nan, 0.0]),
                   JointState(name=list(NAMES), position=[0.0, math.inf]),
                   JointState(name=['other', NAMES[1]], position=[0.0, 0.0]),
                   JointState(name=list(NAMES), position=[0.0]),
                   JointState(name=list(NAMES), position=[0.0, 0.0]),  # unstamped
                   JointState(name=list(NAMES), position=[0.0, 0.0])]
        for message in garbage[:3]:
            message.header.stamp = now
        garbage[-1].header.stamp.sec = 2 ** 31 - 1
        for message in garbage:
            motion.states.publish(message)
        report = motion_report(diagnostics, '/garbage',
                               lambda s: 'joint_states refused' in s.message)
        assert values(report)['measured_position'] == '[0.400000, -0.600000]'
        start = len(motion.joint_commands)
        motion.target.publish(pose(0.35, 0.2))
        first = motion.joint_commands.wait_for(lambda m: True, start=start)
        assert np.abs(np.array(first.position) - (0.4, -0.6)).max() <= max(VELOCITY) / RATE
        assert process.returncode is None, process.output()


def test_motion_limits_without_ruckig_are_refused_in_one_line(domain, probe, tmp_path):
    # Ruckig is imported only to plan: an arm without motion limits runs without it, and
    # limits then say what to install.
    params = write_params(tmp_path / 'bare.yaml', {
        'position_controller': 'fpc', 'trajectory_controller': 'jtc'})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/bare'],
                     domain_id=domain, log_dir=tmp_path, name='bare',
                     env_extra=without_modules('ruckig')) as process:
        motion = Motion(probe, process, '/bare')
        start = len(motion.commands)
        probe.publish_until(motion.target, pose(0.3, 0.3),
                            lambda: len(motion.commands) > start, what='a command')
        (result,) = probe.set_parameters('/bare/two_bone_ik', {'max_joint_velocity': [1.0, 1.0]})
        assert not result.successful
        assert result.reason == ('max_joint_velocity: finite motion limits need the Python '
                                 'package ruckig, which is not installed: pip install ruckig '
                                 '(or leave every motion limit at .inf)')
        assert process.returncode is None, process.output()
    limited = NodeProcess('two_bone_ik', params_file=write_params(
        tmp_path / 'limited.yaml', {'max_joint_velocity': [1.0, 1.0]}), domain_id=domain,
        log_dir=tmp_path, name='limited', env_extra=without_modules('ruckig')).start()
    assert limited.wait() == 2, limited.output()
    assert limited.stderr.strip() == (
        'two_bone_ik: invalid parameter max_joint_velocity: finite motion limits need the '
        'Python package ruckig, which is not installed: pip install ruckig (or leave every '
        'motion limit at .inf)')


#: Seconds a jog-timeout test waits after the timeout for the last command to arrive, then
#: how long it watches that no other comes: fixed bounds (70 and 50 command periods), so a jog
#: that never times out fails the test instead of hanging it.
AFTER_TIMEOUT, QUIET = 0.7, 0.5


def jog_report(array):
    """Return the ``jog`` value of a /diagnostics array's motion status (None if absent)."""
    for status in array.status:
        if status.name.endswith('two_bone_ik: motion'):
            return values(status).get('jog')
    return None


@pytest.mark.parametrize('stamped', [True, False])
def test_twists_jog_the_tip_and_stop_when_they_stop(domain, probe, tmp_path, stamped):
    ns = f'/jog_{int(stamped)}'
    timeout = 0.3
    params = write_params(tmp_path / 'jog.yaml', {'twist_stamped': stamped,
                                                  'twist_timeout': timeout})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', f'__ns:={ns}'],
                     domain_id=domain, log_dir=tmp_path, name='jog') as process:
        arm = Arm(probe, process, ns=ns)
        arm.connect()
        start = forward(*arm.send(pose(0.3, 0.1)).q, *LINKS)
        twists = probe.publisher(TwistStamped if stamped else Twist, f'{ns}/target_twist')
        diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
        probe.wait_for_subscribers(twists)
        twist = TwistStamped() if stamped else Twist()
        linear = twist.twist.linear if stamped else twist.linear
        linear.x, linear.y = 0.1, 0.05
        first, answers = len(arm.joints), len(arm.reachable)
        for _ in range(5):  # 0.5 s of twists, 10 a second
            twists.publish(twist)
            last_twist = time.monotonic()
            probe.spin_for(0.1)
        status = arm.status.wait_for(lambda s: values(s).get('jog') == 'following')
        assert values(status)['status'] == 'REACHED'
        # reachable answers the twists too (the jog point): the tip is on it.
        arm.reachable.wait_for(lambda m: True, start=answers)
        assert arm.reachable.last.data is True
        # Then silence: within a fixed bound the commands stop, and stay stopped.
        probe.spin_for(last_twist + timeout + AFTER_TIMEOUT - time.monotonic())
        count = len(arm.joints)
        probe.spin_for(QUIET)
        assert len(arm.joints) == count, (
            f'{len(arm.joints) - count} commands more than {timeout + AFTER_TIMEOUT:g} s after '
            'the last twist')
        # ... and the node reports the jog stopped (/diagnostics, once a second).
        diagnostics.wait_for(lambda a: jog_report(a) == 'stopped', timeout=3.0)
        assert count - first >= 20, count - first
        tips = np.array([forward(*m.position, *LINKS) for m in arm.joints.messages[first:count]])
        steps = np.diff(tips, axis=0)
        # Every step along the twist's direction, one period's worth of it.
        np.testing.assert_allclose(steps, np.tile((0.1 / 100.0, 0.05 / 100.0), (len(steps), 1)),
                                   atol=1e-9)
        assert np.linalg.norm(tips[-1] - np.array(start)) > 0.03
        assert process.returncode is None, process.output()
