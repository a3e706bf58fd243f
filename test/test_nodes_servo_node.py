"""Tests of the two_bone_ik_servo node as a real process over DDS, driving emulated controllers.

The node opens the emulator's pseudo-terminal by path (as it would ``/dev/ttyACM0``), so what
is checked here are the bytes the controller would receive and what the node publishes.
"""

from contextlib import contextmanager
import json
import math

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
import pytest
from ros_harness import claim_domain_id, isolate_ros_domain, NodeProcess, RosProbe, write_params
from sensor_msgs.msg import JointState
import serial
from servo_emulators import DynamixelEmulator, MaestroEmulator

from two_bone_ik.nodes.node_runner import EXIT_BAD_CONFIG

MODULE = 'two_bone_ik.nodes.servo_node'
NODE = 'two_bone_ik_servo'
SHOULDER, ELBOW = 'shoulder_joint', 'elbow_joint'
HALF_PI = math.pi / 2

# Shoulder on channel 0: 0 rad at 1500 µs, pi/2 at 2400 µs, limited to 600..2400 µs.
# Elbow on channel 2, reversed: 0 rad at 1500 µs, pi/2 at 600 µs, limited to 1000..2000 µs.
SERVOS = {
    SHOULDER: {'channel': 0, 'angle_range': [0.0, HALF_PI], 'output_range': [1500.0, 2400.0],
               'output_limits': [600.0, 2400.0], 'max_velocity': 2.0},
    ELBOW: {'channel': 2, 'angle_range': [0.0, HALF_PI], 'output_range': [1500.0, 600.0],
            'output_limits': [1000.0, 2000.0]},
}


def quarter_us(angle, zero=1500.0, per_rad=900.0 / HALF_PI):
    """Return the Maestro target for ``angle`` on a servo with this calibration."""
    return math.floor((zero + angle * per_rad) * 4 + 0.5)


def command(names, positions):
    return JointState(name=list(names), position=[float(p) for p in positions])


def values(status):
    return {kv.key: kv.value for kv in status.values}


class Driver:
    """A running driver node, its emulated Maestro, and a probe on its topics."""

    def __init__(self, node, device, probe):
        self.node = node
        self.device = device
        self.probe = probe
        self.commands = probe.publisher(JointState, 'joint_commands')
        self.states = probe.collect(JointState, 'joint_states')
        self.diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
        probe.wait_for_subscribers(self.commands)
        probe.wait_for_publishers(self.states)
        self.states.wait_for_count(1)
        # What the Maestro had been sent once the node was up, before any test commanded it.
        self.commands_at_start = list(device.commands)

    def send(self, names, positions):
        self.commands.publish(command(names, positions))

    def wait_for_targets(self, expected):
        """Wait until the emulated Maestro holds ``{channel: quarter-µs}``."""
        self.device.wait_for(lambda: all(self.device.targets[c] == v
                                         for c, v in expected.items()),
                             what=f'targets {expected}')

    def wait_for_diagnostic(self, predicate):
        """Wait for a /diagnostics status of this node satisfying ``predicate``; return it."""
        def match(array):
            return any(NODE in s.name and predicate(s) for s in array.status)
        array = self.diagnostics.wait_for(match, start=len(self.diagnostics))
        return next(s for s in array.status if NODE in s.name)


@contextmanager
def running_driver(tmp, domain, probe_name='test_probe'):
    """Run a driver node on an emulated Maestro in ``tmp``; yield its :class:`Driver`."""
    # Channel 0 already at 1600 µs (the Maestro kept it from a previous run); channel 2 off.
    with MaestroEmulator(tmp / 'ttyACM0', targets={0: 6400}) as device:
        params = write_params(tmp / 'servo.yaml', {
            'protocol': 'maestro', 'port': str(device.path), 'joints': [SHOULDER, ELBOW],
            'state_rate': 50.0, 'reconnect_period': 0.2, 'servos': SERVOS}, NODE)
        with NodeProcess(MODULE, params_file=params, domain_id=domain, log_dir=tmp,
                         name='servo') as node, RosProbe(domain, probe_name) as probe:
            yield Driver(node, device, probe)


@pytest.fixture(scope='module')
def driver(tmp_path_factory):
    """Yield the module's driver node, shared by its tests (none of them stops it)."""
    with running_driver(tmp_path_factory.mktemp('servo_node'), isolate_ros_domain()) as driver:
        yield driver


def test_start_holds_and_publishes_what_the_maestro_reports(driver):
    state = driver.states.messages[0]
    # Only the shoulder: the elbow's channel sends no pulses, so its angle is unknown.
    assert list(state.name) == [SHOULDER]
    assert state.position[0] == pytest.approx(100.0 / (900.0 / HALF_PI))
    assert not [c for c in driver.commands_at_start if c[0] == 'target']
    # Speed limits from max_velocity: 2 rad/s * 572.96 µs/rad / 25 µs/s = 45.8 -> 46; the
    # elbow has the default 1 rad/s: 22.9 -> 23. No acceleration limit by default.
    speeds = {c[1]: c[2] for c in driver.commands_at_start if c[0] == 'speed'}
    accelerations = {c[1]: c[2] for c in driver.commands_at_start if c[0] == 'acceleration'}
    assert speeds == {0: 46, 2: 23}
    assert accelerations == {0: 0, 2: 0}


def test_commands_by_name_become_exact_set_target_bytes(driver):
    driver.device.take_received()
    driver.send([ELBOW, SHOULDER], [0.3, -0.2])
    expected = {0: quarter_us(-0.2), 2: quarter_us(-0.3)}
    driver.wait_for_targets(expected)
    received = driver.device.take_received()
    set_targets = bytes((0x84, 0, expected[0] & 0x7F, expected[0] >> 7,
                         0x84, 2, expected[2] & 0x7F, expected[2] >> 7))
    assert set_targets in received or set_targets[4:] + set_targets[:4] in received
    state = driver.states.wait_for(lambda m: len(m.name) == 2 and abs(m.position[1] - 0.3) < 1e-3,
                                   start=len(driver.states))
    assert list(state.name) == [SHOULDER, ELBOW]
    assert state.position[0] == pytest.approx(-0.2, abs=0.25 / (900.0 / HALF_PI))


def test_bad_entries_are_ignored_and_the_rest_applied(driver):
    driver.send([SHOULDER, 'wrist', ELBOW], [0.1, 1.0, math.nan])
    driver.wait_for_targets({0: quarter_us(0.1)})
    driver.send([ELBOW], [0.05])
    driver.wait_for_targets({0: quarter_us(0.1), 2: quarter_us(-0.05)})
    err = driver.node.stderr
    assert 'ignoring unknown joint(s) wrist' in err
    assert f'ignoring NaN, infinite or missing position for {ELBOW}' in err


def test_a_clamped_command_is_a_warning_in_diagnostics(driver):
    driver.send([ELBOW], [1.2])   # 812 µs, below the 1000 µs limit
    driver.wait_for_targets({2: 4000})
    status = driver.wait_for_diagnostic(lambda s: s.level == DiagnosticStatus.WARN)
    report = values(status)
    assert status.message.startswith('1 command(s) clamped; elbow_joint: 1.2000 rad')
    assert report['protocol'] == 'maestro' and report['connected'] == 'true'
    assert int(report['commands_clamped']) >= 1
    assert 'clamped to output_limits: elbow_joint' in driver.node.stderr


def test_a_huge_finite_command_is_clamped_and_the_node_lives_on(driver):
    # Defect 15.6: (1e+308, 0.0) ended the node with an OverflowError.
    driver.send([SHOULDER, ELBOW], [1e308, 0.0])
    driver.wait_for_targets({0: 2400 * 4, 2: quarter_us(0.0)})
    driver.send([SHOULDER, ELBOW], [-1e308, 0.1])
    driver.wait_for_targets({0: 600 * 4, 2: quarter_us(-0.1)})
    assert driver.node.returncode is None, driver.node.output()


def test_unplug_is_an_error_and_replug_reconnects_without_replaying(driver):
    device = driver.device
    driver.send([SHOULDER], [0.4])
    driver.wait_for_targets({0: quarter_us(0.4)})
    device.unplug()
    status = driver.wait_for_diagnostic(lambda s: s.level == DiagnosticStatus.ERROR)
    report = values(status)
    assert report['connected'] == 'false' and report['port'] == str(device.path)
    assert status.message.startswith('disconnected: ')
    # While disconnected: no joint_states (nothing stale), and commands are dropped.
    seen = len(driver.states)
    driver.send([SHOULDER], [-0.4])
    dropped = driver.wait_for_diagnostic(lambda s: int(values(s)['commands_dropped']) >= 1)
    assert values(dropped)['connected'] == 'false'
    assert len(driver.states) == seen
    device.replug()
    driver.wait_for_diagnostic(lambda s: values(s)['connected'] == 'true')
    state = driver.states.wait_for(lambda m: True, start=seen)
    # The dropped command was not replayed: the Maestro still holds 0.4 rad.
    assert state.position[0] == pytest.approx(0.4, abs=1e-3)
    assert device.targets[0] == quarter_us(0.4)
    assert 'dropped while the controller is disconnected' in driver.node.stderr


def test_diagnostics_report_the_device(driver):
    status = driver.wait_for_diagnostic(lambda s: True)
    assert status.hardware_id == f'maestro {driver.device.path}'
    assert set(values(status)) >= {
        'port', 'protocol', 'baud_rate', 'connected', 'last_error', 'commands_sent',
        'commands_dropped', 'commands_clamped', 'read_failures', 'device_errors', 'reconnects'}
    assert values(status)['baud_rate'] == '9600'


def test_ctrl_c_releases_the_port_and_leaves_quietly(tmp_path):
    # A node of its own (Ctrl-C ends it). While it runs it holds the port exclusively; after
    # Ctrl-C the port is free again.
    with running_driver(tmp_path, claim_domain_id(), 'ctrl_c_probe') as driver:
        with pytest.raises(serial.SerialException, match='Could not exclusively lock port'):
            serial.Serial(str(driver.device.path), exclusive=True)
        driver.node.assert_ctrl_c_exits_0()
        assert 'Traceback' not in driver.node.stderr, driver.node.output()
        serial.Serial(str(driver.device.path), exclusive=True).close()


@contextmanager
def dynamixel_driver(tmp, positions, parameters, name):
    """Run a driver node on emulated Dynamixels ``{ID: ticks}`` with ``parameters``.

    Yields the device, the node, the collected ``joint_states`` and a ``joint_commands``
    publisher, once the node has subscribed.
    """
    domain = claim_domain_id()
    with DynamixelEmulator(tmp / 'ttyUSB0', positions) as device:
        params = write_params(tmp / f'{name}.yaml', {
            'protocol': 'dynamixel', 'port': str(device.path), **parameters}, NODE)
        with NodeProcess(MODULE, params_file=params, domain_id=domain, log_dir=tmp,
                         name=name) as node, RosProbe(domain, f'{name}_probe') as probe:
            states = probe.collect(JointState, 'joint_states')
            pub = probe.publisher(JointState, 'joint_commands')
            probe.wait_for_subscribers(pub)
            yield device, node, states, pub


def test_dynamixel_torque_off_on_exit(tmp_path):
    joints = {'shoulder': {'channel': 1, 'angle_range': [0.0, 2 * math.pi],
                           'output_range': [2048.0, 6144.0], 'output_limits': [0.0, 4095.0]}}
    parameters = {'joints': ['shoulder'], 'torque_off_on_exit': True, 'servos': joints}
    with dynamixel_driver(tmp_path, {1: 2100}, parameters, 'dxl') as (device, node, states, pub):
        first = states.wait_for_count(1)[0]
        assert first.position[0] == pytest.approx(52 * 2 * math.pi / 4096)
        assert device.get(1, 'torque') == 1 and device.get(1, 'goal') == 2100
        pub.publish(command(['shoulder'], [0.5]))
        goal = 2048 + round(0.5 * 4096 / 2 / math.pi)
        device.wait_for(lambda: device.get(1, 'goal') == goal, what='the goal')
        node.assert_ctrl_c_exits_0()
        assert device.get(1, 'torque') == 0
        assert 'Traceback' not in node.stderr


ARM6 = ('shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll', 'gripper')


def test_a_lerobot_calibrated_arm_with_a_coupled_forearm(tmp_path):
    # Six Dynamixel X servos from a calibration file written here; the elbow servo sets
    # shoulder_lift + elbow_flex (a parallel linkage); the gripper is commanded alone, as
    # another node would, and only its servo moves.
    motors = {joint: {'id': i + 1, 'drive_mode': 0, 'homing_offset': 100 * i,
                      'range_min': 1000, 'range_max': 3000} for i, joint in enumerate(ARM6)}
    calibration = tmp_path / 'so101_like.json'
    calibration.write_text(json.dumps(motors))
    tick = 2 * math.pi / 4095
    parameters = {'joints': list(ARM6), 'calibration_file': str(calibration),
                  'servos': {'elbow_flex': {'plus_joint': 'shoulder_lift'},
                             'gripper': {'output_limits': [1500.0, 2500.0]}}}
    with dynamixel_driver(tmp_path, dict.fromkeys(range(1, 7), 2100), parameters,
                          'arm6') as (device, node, states, pub):
        first = states.wait_for_count(1)[0]
        # 2100 is 100 ticks above the middle (2000) for every servo; the elbow joint is
        # its servo's angle minus shoulder_lift's: 0.
        assert tuple(first.name) == ARM6
        expected = [100 * tick] * 6
        expected[2] = 0.0
        assert first.position == pytest.approx(expected, abs=1e-9)
        start = len(device.sync_writes())
        pub.publish(command(['gripper'], [math.pi]))     # beyond the limits: 2500
        device.wait_for(lambda: device.get(6, 'goal') == 2500, what='the gripper goal')
        pub.publish(command(['shoulder_lift'], [-200 * tick]))
        # The elbow servo follows (its joint keeps 0): both at 1800, in one Sync Write.
        device.wait_for(lambda: len(device.sync_writes()) == start + 2, what='2 writes')
        assert device.sync_writes()[start:] == [{6: 2500}, {2: 1800, 3: 1800}]
        state = states.wait_for(lambda m: abs(m.position[1] + 200 * tick) < 1e-9,
                                start=len(states))
        assert state.position[2] == pytest.approx(0.0, abs=1e-9)
        assert 'elbow_flex servo adds shoulder_lift' in node.stderr
        assert node.returncode is None


@pytest.mark.parametrize('content, message', [
    (None, 'calibration_file: {path} does not exist'),
    (b'{"shoulder_joint": \xfe}', 'calibration_file: {path}: not UTF-8 text (byte 0xfe'),
    ('{"shoulder_joint": ', 'calibration_file: {path}: not JSON: Expecting value at line 1'),
    ('{"shoulder_joint": {"id": 1}}', "motor 'shoulder_joint': no drive_mode, homing_offset"),
    ('{"wrist": {"id": 1, "drive_mode": 0, "homing_offset": 0, "range_min": 0, '
     '"range_max": 4095}}', "calibration_file: {path} has no motor 'shoulder_joint' (its "
                            'motors: wrist), and servos.shoulder_joint.channel: not set'),
])
def test_a_bad_calibration_file_exits_2_with_one_line(tmp_path, content, message):
    path = tmp_path / 'calibration.json'
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    assert_exits_2_with_one_line(tmp_path, {
        'protocol': 'dynamixel', 'port': '/dev/null', 'joints': [SHOULDER],
        'calibration_file': str(path)}, message.format(path=path))


@pytest.mark.parametrize('settings, message', [
    ({'port': '/dev/ttyNOPE0'}, 'two_bone_ik_servo: invalid parameter port: /dev/ttyNOPE0 does '
                                'not exist'),
    ({'protocol': 'pwm'}, 'protocol: expected one of maestro, ssc32u, dynamixel, dynamixel1, '
                          "feetech, feetech_scs, got 'pwm'"),
    ({'servos': {SHOULDER: {'channel': 0, 'angle_range': [0.0, 1.0]},
                 ELBOW: SERVOS[ELBOW]}}, 'servos.shoulder_joint.output_range: not set'),
    ({'servos': {SHOULDER: dict(SERVOS[SHOULDER], channel=30), ELBOW: SERVOS[ELBOW]}},
     'servos.shoulder_joint.channel: expected a channel from 0 to 23, got 30'),
])
def test_bad_configuration_exits_2_with_one_line(tmp_path, settings, message):
    assert_exits_2_with_one_line(tmp_path, {
        'protocol': 'maestro', 'port': '/dev/null', 'joints': [SHOULDER, ELBOW],
        'servos': SERVOS, **settings}, message)


def assert_exits_2_with_one_line(tmp, parameters, message):
    """Start the driver with ``parameters``: it must exit 2 with one line holding ``message``."""
    params = write_params(tmp / 'bad.yaml', parameters, NODE)
    node = NodeProcess(MODULE, params_file=params, domain_id=claim_domain_id(), log_dir=tmp,
                       name='bad').start()
    assert node.wait() == EXIT_BAD_CONFIG, node.output()
    lines = node.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], node.output()
