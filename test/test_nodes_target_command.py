"""Tests of two_bone_ik.nodes.target_command: ``two_bone_ik_target`` against the real IK node.

The tool runs as a process (``python -m two_bone_ik.nodes.target_command``, and the console
script the virtualenv installs) in this module's ROS domain; the probe watches what the node
commands meanwhile, so the printed answer is checked against what the node really sent. A
fake IK node (the probe answering targets itself) covers what the real node cannot be made to
do: answer a status newer than it (14), publish no joint commands, never answer.
"""

import math
from pathlib import Path
import re
import signal
import sys
import time

from diagnostic_msgs.msg import DiagnosticStatus, KeyValue
from geometry_msgs.msg import PoseStamped
from ik_client import Arm
import pytest
from ros_harness import NodeProcess, REPO_ROOT, wait_until, write_params

from two_bone_ik.client.approach import approach_quaternion

CONFIG = REPO_ROOT / 'config' / 'two_bone_ik.yaml'
REACH = 0.55
MODULE = 'two_bone_ik.nodes.target_command'
#: The tool's --timeout for answers that come: generous (it returns as soon as they do).
PATIENT = '30'
#: The tool's --timeout where it must run out (long enough to discover a node that is there).
WAIT = '6'
#: Printed positions have 6 decimals.
PRINTED = 5e-7


def connected_arm(probe, domain, log_dir, params_file, ns=''):
    """Run an IK node from ``params_file`` in namespace ``ns``; yield its connected ``Arm``."""
    with NodeProcess('two_bone_ik', params_file=params_file,
                     ros_args=['-r', f'__ns:={ns}'] if ns else [], domain_id=domain,
                     log_dir=log_dir, name=ns.strip('/') or 'arm') as process:
        arm = Arm(probe, process, ns=ns)
        arm.connect()
        yield arm
        assert process.returncode is None, process.output()


@pytest.fixture(scope='module')
def arm(domain, probe, tmp_path_factory):
    """Run the default arm of config/two_bone_ik.yaml, root namespace: a command per target."""
    yield from connected_arm(probe, domain, tmp_path_factory.mktemp('target_arm'), CONFIG)


@pytest.fixture(scope='module')
def slow_arm(domain, probe, tmp_path_factory):
    """Run the default arm with motion limits in /slow: every target a streamed motion."""
    log_dir = tmp_path_factory.mktemp('target_slow_arm')
    params = write_params(log_dir / 'slow.yaml', {'max_joint_velocity': [2.0, 2.0],
                                                  'max_joint_acceleration': [8.0, 8.0]})
    yield from connected_arm(probe, domain, log_dir, params, ns='/slow')


class Run:
    """One finished run of the tool: exit code, output, how long it took (s)."""

    def __init__(self, code, stdout, stderr, seconds):
        self.code, self.stdout, self.stderr, self.seconds = code, stdout, stderr, seconds

    def __repr__(self):
        return f'exit {self.code}\n--- stdout\n{self.stdout}--- stderr\n{self.stderr}'

    def status(self):
        """Return (code, name) of the printed status line."""
        match = re.search(r'^status: +(\S+) (\S+) \(', self.stdout, re.M)
        assert match, self
        return int(match.group(1)), match.group(2)

    def joints(self):
        """Return {name: position} of the printed joints."""
        block = self.stdout.split('joints (rad):\n', 1)[1]
        return {name: float(value) for name, value in
                (line.split() for line in block.splitlines() if line.startswith('  '))}

    def tip_error(self):
        return float(re.search(r'^tip_error: (\S+) m$', self.stdout, re.M).group(1))


def run_tool(probe, domain, tmp_path, args, command=None, pythonpath=REPO_ROOT, name='tool'):
    """Run the tool to its end while the probe spins; return the :class:`Run`."""
    tool = NodeProcess(None if command else MODULE, args=args, command=command,
                       pythonpath=pythonpath, domain_id=domain, log_dir=tmp_path, name=name)
    start = time.monotonic()
    with tool:
        probe.spin_until(lambda: tool.poll() is not None, 90.0, f'{name} to exit')
    return Run(tool.returncode, tool.stdout, tool.stderr, time.monotonic() - start)


def test_a_reached_target_prints_the_nodes_command_and_that_nothing_measures_it(
        arm, probe, domain, tmp_path):
    # The node alone: nobody publishes joint_states, so the arm's arrival is unknown (exit 3).
    before = len(arm.joints)
    run = run_tool(probe, domain, tmp_path, ['0.4', '0.2', '0', '-t', PATIENT])
    assert run.code == 3, run
    assert run.status() == (0, 'REACHED')
    assert run.stdout.splitlines()[-1].startswith(
        'arrival unknown: no joint_states from anyone: is the driver or sim running?')
    assert 'message:   REACHED: ' in run.stdout and run.tip_error() == 0.0
    # Exactly one command came for it; the printed joints are it.
    probe.spin_until(lambda: len(arm.joints) > before, 10.0, 'the command on the probe')
    assert len(arm.joints) == before + 1
    command = arm.joints.messages[before]
    printed = run.joints()
    assert list(printed) == list(command.name) == ['shoulder_joint', 'elbow_joint']
    for name, position in zip(command.name, command.position):
        assert printed[name] == pytest.approx(position, abs=PRINTED)


def test_out_of_reach_and_wrong_frame_exit_1(arm, probe, domain, tmp_path):
    run = run_tool(probe, domain, tmp_path, ['0.9', '-0.3', '0', '-t', PATIENT])
    assert run.code == 1, run
    assert run.status() == (1, 'OUT_OF_REACH')
    assert run.tip_error() == pytest.approx(math.hypot(0.9, 0.3) - REACH, abs=1e-6)
    assert len(run.joints()) == 2
    run = run_tool(probe, domain, tmp_path, ['0.4', '0.2', '0', '--frame', 'world', '-t',
                                             PATIENT])
    assert run.code == 1, run
    assert run.status() == (11, 'WRONG_FRAME')
    assert "frame 'world'" in run.stdout
    assert 'joints:    none: the node commands nothing for a WRONG_FRAME target' in run.stdout


def test_a_streamed_motion_prints_its_last_command_at_rest(slow_arm, probe, domain, tmp_path):
    before = len(slow_arm.joints)
    run = run_tool(probe, domain, tmp_path, ['-0.3', '0.25', '0', '--namespace', 'slow', '-t',
                                             PATIENT, '--no-wait'])
    assert run.code == 0, run  # reached, arrival not waited for
    assert 'arriv' not in run.stdout
    assert run.status() == (0, 'REACHED')
    printed = run.joints()

    def at_rest_where_printed():
        # (The fixture's first motion may still have been streaming when this test began: its
        # own end at rest can come after ``before`` too, so the printed one is looked for.)
        return next((count for count, m in enumerate(slow_arm.joints.messages[before:], 1)
                     if not any(m.velocity) and list(m.position) == pytest.approx(
                         list(printed.values()), abs=PRINTED)), None)
    count = probe.spin_until(at_rest_where_printed, 10.0, 'the printed command at rest')
    stream = slow_arm.joints.messages[before:before + count]
    assert len(stream) > 2  # a motion, streamed
    last = stream[-1]
    assert list(last.velocity) == [0.0, 0.0]
    assert list(printed) == list(last.name)
    # Not the start of the motion.
    assert list(printed.values()) != pytest.approx(list(stream[0].position), abs=1e-3)


def test_a_path_streams_and_prints_its_table(arm, probe, domain, tmp_path):
    path = tmp_path / 'path.csv'
    path.write_text('t,x,y,z\n0,0.4,0.2,0\n0.3,0.3,0.3,0\n0.6,0.9,0,0\n0.9,0.01,0,0\n')
    statuses_before = len(arm.status)
    run = run_tool(probe, domain, tmp_path, ['--path', str(path), '-t', PATIENT])
    assert run.code == 1, run
    lines = run.stdout.splitlines()
    assert [line.split()[4:6] for line in lines[1:5]] == [
        ['0', 'REACHED'], ['0', 'REACHED'], ['1', 'OUT_OF_REACH'], ['3', 'JOINT_LIMITED']]
    assert [float(line.split()[0]) for line in lines[1:5]] == [0.0, 0.3, 0.6, 0.9]
    # (The shipped arm's elbow turns 2.8 rad at most: it cannot fold onto a point 1 cm away.)
    assert lines[5] == 'statuses: REACHED 2, OUT_OF_REACH 1, JOINT_LIMITED 1'
    assert lines[6] == 'worst tip error: 0.350000 m (the target at 0.600 s)'
    # The node answered exactly these four, in this order.
    probe.spin_until(lambda: len(arm.status) >= statuses_before + 4, 10.0, 'the statuses')
    names = [next(kv.value for kv in s.values if kv.key == 'status')
             for s in arm.status.messages[statuses_before:]]
    assert names == ['REACHED', 'REACHED', 'OUT_OF_REACH', 'JOINT_LIMITED']
    # A path every target of which is reached: exit 0; the orientation columns are accepted.
    path.write_text('0,0.4,0.2,0,0.1,0\n0.2,0.3,-0.3,0,0,0.5\n')
    run = run_tool(probe, domain, tmp_path, ['--path', str(path), '-t', PATIENT])
    assert run.code == 0, run
    assert 'statuses: REACHED 2' in run.stdout


def test_no_node_exits_2_soon_after_the_timeout(domain, probe, tmp_path):
    run = run_tool(probe, domain, tmp_path, ['0.4', '0.2', '0', '-n', 'nobody', '-t', '1'])
    assert run.code == 2, run
    assert run.stdout == ''
    assert run.stderr == ('two_bone_ik_target: no node subscribes to /nobody/target_pose '
                          '(waited 1 s): is the IK node running, in this namespace and '
                          'ROS_DOMAIN_ID?\n')
    # It waited the timeout, and then did not hang (the bound allows for a loaded machine).
    assert 1.0 <= run.seconds < 30.0


def _status(values):
    return DiagnosticStatus(level=DiagnosticStatus.WARN, name='fake', message=values['message'],
                            values=[KeyValue(key=k, value=v) for k, v in values.items()])


class FakeNode:
    """The probe as an IK node in namespace ``ns``: it answers each target with ``values``.

    With ``motion``, it also publishes ``motion_status``: for each target, the statuses
    ``motion(target_id)`` returns (value dicts with a ``message``), the target's stamp as its
    ``target_id`` (``sec.nanosec``, written here independently of the node's code).
    """

    def __init__(self, probe, ns, values=None, motion=None):
        self.probe = probe
        self.values = values
        self.motion = motion
        self.targets = []
        self.status = probe.publisher(DiagnosticStatus, f'{ns}/ik_status')
        self.motion_pub = probe.publisher(DiagnosticStatus, f'{ns}/motion_status')
        self.sub = probe.node.create_subscription(PoseStamped, f'{ns}/target_pose',
                                                  self._on_target, 10)

    def _on_target(self, msg):
        self.targets.append(msg)
        if self.values is not None:
            self.status.publish(_status(self.values))
        if self.motion is not None:
            stamp = msg.header.stamp
            for values in self.motion(f'{stamp.sec}.{stamp.nanosec:09d}'):
                self.motion_pub.publish(_status(values))

    def close(self):
        self.probe.node.destroy_subscription(self.sub)
        self.probe.node.destroy_publisher(self.status)
        self.probe.node.destroy_publisher(self.motion_pub)


def _arrived(target_id):
    # Another command's verdict first (an earlier target's): not about this one.
    return [{'code': '21', 'status': 'ARRIVED', 'target_id': '1.000000000', 'message': 'x',
             'target_error': '0.5'},
            {'code': '20', 'status': 'MOVING', 'target_id': target_id, 'message': 'MOVING: x'},
            {'code': '21', 'status': 'ARRIVED', 'target_id': target_id, 'target_error': '0.00042',
             'message': 'ARRIVED: every joint within goal_tolerance'}]


def test_fake_node_a_newer_reached_status_and_no_joint_commands(domain, probe, tmp_path):
    fake = FakeNode(probe, '/fake', {'code': '14', 'status': 'APPROACH_ADJUSTED',
                                     'message': 'APPROACH_ADJUSTED: pitch 0.100 rad',
                                     'tip_error': '0.000000'}, motion=_arrived)
    try:
        run = run_tool(probe, domain, tmp_path, ['0.2', '0.1', '0.15', '-n', '/fake', '--pitch',
                                                 '-0.3', '--roll', '0.2', '-t', '10'])
    finally:
        fake.close()
    assert run.code == 0, run
    assert run.status() == (14, 'APPROACH_ADJUSTED')
    assert 'joints:    not known: nothing publishes /fake/joint_commands' in run.stdout
    assert run.stdout.splitlines()[-1] == 'arrived: tool point 0.4 mm from the target (measured)'

    # What was sent: the position, the node's frame (empty), the approach orientation.
    sent, = fake.targets
    assert sent.header.frame_id == ''
    assert (sent.pose.position.x, sent.pose.position.y, sent.pose.position.z) == (0.2, 0.1, 0.15)
    o = sent.pose.orientation
    assert (o.x, o.y, o.z, o.w) == pytest.approx(approach_quaternion(0.2, 0.1, -0.3, 0.2))


def _missed(target_id):
    return [{'code': '20', 'status': 'MOVING', 'target_id': target_id, 'message': 'MOVING: x'},
            {'code': '23', 'status': 'GOAL_MISSED', 'target_id': target_id,
             'message': 'GOAL_MISSED: shoulder_lift stopped 0.31 rad short: stalled or blocked? '
                        "(2 s after the motion's end; goal_tolerance 0.02 rad)"}]


def _taken_over(target_id):
    return [{'code': '20', 'status': 'MOVING', 'target_id': target_id, 'message': 'MOVING: x'},
            {'code': '20', 'status': 'MOVING', 'target_id': 'stop', 'message': 'MOVING: y'}]


@pytest.mark.parametrize('motion, line', [
    (_missed, 'not arrived: GOAL_MISSED: shoulder_lift stopped 0.31 rad short: stalled or '
              "blocked? (2 s after the motion's end; goal_tolerance 0.02 rad)"),
    (_taken_over, 'not arrived: another command (stop) took over before the arm got there'),
])
def test_fake_node_reached_but_not_arrived_exits_3(motion, line, domain, probe, tmp_path):
    fake = FakeNode(probe, '/late', {'code': '0', 'status': 'REACHED', 'tip_error': '0.000000',
                                     'message': 'REACHED: tip on the target'}, motion=motion)
    try:
        run = run_tool(probe, domain, tmp_path, ['0.2', '0.1', '0', '-n', '/late', '-t', '10'])
    finally:
        fake.close()
    assert run.code == 3, run
    assert run.stdout.splitlines()[-1] == line


def test_fake_node_silent_or_without_ik_status_exits_2(domain, probe, tmp_path):
    silent = FakeNode(probe, '/silent')
    try:
        run = run_tool(probe, domain, tmp_path, ['0.2', '0', '0', '-n', 'silent', '-t', WAIT])
    finally:
        silent.close()
    assert run.code == 2, run
    assert run.stderr == f'two_bone_ik_target: no answer on /silent/ik_status within {WAIT} s\n'
    assert len(silent.targets) == 1
    deaf = probe.node.create_subscription(PoseStamped, '/mute/target_pose', lambda m: None, 10)
    try:
        run = run_tool(probe, domain, tmp_path, ['0.2', '0', '0', '-n', 'mute', '-t', WAIT])
    finally:
        probe.node.destroy_subscription(deaf)
    assert run.code == 2, run
    assert run.stderr == ('two_bone_ik_target: something subscribes to /mute/target_pose, but '
                          f'nothing publishes /mute/ik_status (waited {WAIT} s)\n')


def test_an_unused_orientation_is_said_with_how_to_use_it(domain, probe, tmp_path):
    # The SO-101's config: a desktop arm with use_orientation false (the gripper down at its
    # approach_pitch). --pitch 0 used to be answered REACHED, exit 0, the pitch silently unused.
    with NodeProcess('two_bone_ik', params_file=REPO_ROOT / 'config' / 'so101.yaml',
                     ros_args=['-r', '__ns:=/so101'], domain_id=domain, log_dir=tmp_path,
                     name='so101') as process:
        # (The node alone: nothing measures the arm, so no waiting for arrival.)
        # (8 cm up: from gripper-down to level at 2 cm the hand would sweep through the table
        # the config sets, MOTION_FAILED.)
        args = ['0.25', '0', '0.08', '-n', '/so101', '--pitch', '0', '-t', PATIENT, '--no-wait']
        run = run_tool(probe, domain, tmp_path, args, name='unused')
        assert run.code == 0 and run.status() == (0, 'REACHED'), run
        assert run.stderr == (
            "two_bone_ik_target: the orientation (--pitch/--roll) was not used: the node's "
            'use_orientation is false (it approaches at its approach_pitch); to use it: ros2 '
            'param set /so101/two_bone_ik use_orientation true, or use_orientation: true in its '
            'params file\n'), run
        # Done as it says: the pitch is used (level, or the reachable pitch nearest it), and
        # nothing more is said.
        (result,) = probe.set_parameters('/so101/two_bone_ik', {'use_orientation': True})
        assert result.successful, result.reason
        run = run_tool(probe, domain, tmp_path, args, name='used')
        assert run.status()[1] in ('REACHED', 'APPROACH_ADJUSTED') and run.stderr == '', run
        assert process.returncode is None, process.output()


def test_the_installed_console_script(arm, probe, domain, tmp_path):
    script = Path(sys.executable).parent / 'two_bone_ik_target'
    assert script.is_file(), f'{script} missing: run `make venv`'
    run = run_tool(probe, domain, tmp_path, ['0.35', '-0.25', '0', '-t', PATIENT, '--no-wait'],
                   command=[str(script)], pythonpath=None, name='script')
    assert run.code == 0, run
    assert run.status() == (0, 'REACHED')
    run = run_tool(probe, domain, tmp_path, ['-h'], command=[str(script)], pythonpath=None,
                   name='script_help')
    assert run.code == 0 and 'exit status:' in run.stdout, run


@pytest.mark.parametrize('args, error', [
    (['--path', 'MISSING'], 'two_bone_ik_target: MISSING: No such file or directory\n'),
    (['--path', 'BAD'], "two_bone_ik_target: BAD line 2: y 'abc' is not a number\n"),
    (['1', '2', '3', '-n', 'bad name'], "two_bone_ik_target: invalid namespace 'bad name': "
     "Invalid namespace: namespace must not contain characters other than alphanumerics, '_', "
     "or '/'\n"),
    (['1', '2', '3', '--ros-args', '-t', '1'], 'two_bone_ik_target: unknown ROS arguments '
     "['-t', '1'] (the tool's own options go before --ros-args)\n"),
])
def test_unusable_input_is_one_line_and_exit_2(args, error, domain, probe, tmp_path):
    bad = tmp_path / 'bad.csv'
    bad.write_text('0,0.4,0.2,0\n1,0.4,abc,0\n')
    args = [str(tmp_path / 'missing.csv') if a == 'MISSING' else str(bad) if a == 'BAD' else a
            for a in args]
    error = error.replace('MISSING', str(tmp_path / 'missing.csv')).replace('BAD', str(bad))
    run = run_tool(probe, domain, tmp_path, args)
    assert (run.code, run.stdout, run.stderr) == (2, '', error)


def test_ctrl_c_while_waiting_is_quiet(domain, probe, tmp_path):
    tool = NodeProcess(MODULE, args=['0.4', '0.2', '0', '-n', 'nobody', '-t', '60'],
                       domain_id=domain, log_dir=tmp_path, name='interrupted')
    with tool:
        probe.wait_for_node(f'/nobody/two_bone_ik_target_{tool.pid}', timeout=60.0)
        tool.send_signal(signal.SIGINT)
        code = tool.wait(30.0)
    assert code == 130, tool.output()
    assert tool.stderr == 'two_bone_ik_target: interrupted\n'


@pytest.mark.parametrize('library', ['diagnostic_msgs', 'librcl.so', 'sensor_msgs'])
@pytest.mark.parametrize('how', ['script', 'module'])
def test_ctrl_c_while_starting_is_quiet(how, library, domain, tmp_path):
    # SIGINT while the tool imports rclpy and the messages: no traceback, no output but the
    # tool's own line. The libraries mark stages of the imports. The console script exits 130;
    # under ``python -m`` the package's start-up guard (two_bone_ik.nodes) may end the process
    # first, as it ends the nodes', with 0.
    script = Path(sys.executable).parent / 'two_bone_ik_target'
    args = ['0.4', '0.2', '0', '-n', 'nobody', '-t', '60']
    tool = NodeProcess(None, args=args, command=[str(script)], pythonpath=None, domain_id=domain,
                       log_dir=tmp_path, name='early') if how == 'script' else NodeProcess(
        MODULE, args=args, domain_id=domain, log_dir=tmp_path, name='early')
    with tool:
        maps = Path(f'/proc/{tool.pid}/maps')
        wait_until(lambda: library in maps.read_text(), 60.0, what=f'{library} in the tool')
        tool.send_signal(signal.SIGINT)
        code = tool.wait(30.0)
    assert code in ((130,) if how == 'script' else (0, 130)), tool.output()
    assert tool.stdout == '' and tool.stderr in ('', 'two_bone_ik_target: interrupted\n'), (
        tool.output())
