"""Tests of the two_bone_ik_servo node as a real process over DDS, driving emulated controllers.

The node opens the emulator's pseudo-terminal by path (as it would ``/dev/ttyACM0``), so what
is checked here are the bytes the controller would receive and what the node publishes.
"""

from contextlib import contextmanager
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
        assert driver.node.interrupt() == 0
        assert 'Traceback' not in driver.node.stderr, driver.node.output()
        serial.Serial(str(driver.device.path), exclusive=True).close()


def test_dynamixel_torque_off_on_exit(tmp_path):
    domain = claim_domain_id()
    joints = {'shoulder': {'channel': 1, 'angle_range': [0.0, 2 * math.pi],
                           'output_range': [2048.0, 6144.0], 'output_limits': [0.0, 4095.0]}}
    with DynamixelEmulator(tmp_path / 'ttyUSB0', {1: 2100}) as device:
        params = write_params(tmp_path / 'dxl.yaml', {
            'protocol': 'dynamixel', 'port': str(device.path), 'joints': ['shoulder'],
            'torque_off_on_exit': True, 'servos': joints}, NODE)
        with NodeProcess(MODULE, params_file=params, domain_id=domain, log_dir=tmp_path,
                         name='dxl') as node, RosProbe(domain, 'dxl_probe') as probe:
            states = probe.collect(JointState, 'joint_states')
            pub = probe.publisher(JointState, 'joint_commands')
            probe.wait_for_subscribers(pub)
            first = states.wait_for_count(1)[0]
            assert first.position[0] == pytest.approx(52 * 2 * math.pi / 4096)
            assert device.get(1, 'torque') == 1 and device.get(1, 'goal') == 2100
            pub.publish(command(['shoulder'], [0.5]))
            goal = 2048 + round(0.5 * 4096 / 2 / math.pi)
            device.wait_for(lambda: device.get(1, 'goal') == goal, what='the goal')
            assert node.interrupt() == 0
        assert device.get(1, 'torque') == 0
        assert 'Traceback' not in node.stderr


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
    domain = claim_domain_id()
    params = write_params(tmp_path / 'bad.yaml', {
        'protocol': 'maestro', 'port': '/dev/null', 'joints': [SHOULDER, ELBOW],
        'servos': SERVOS, **settings}, NODE)
    node = NodeProcess(MODULE, params_file=params, domain_id=domain, log_dir=tmp_path,
                       name='bad').start()
    assert node.wait() == EXIT_BAD_CONFIG, node.output()
    lines = node.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], node.output()
