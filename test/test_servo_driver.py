"""Tests of the servo driver's decisions (ROS-free, an injected clock, no DDS, no sleeping).

A scripted controller stands in for the device where a test needs a fault exactly when wanted;
the emulated devices (on ptys, byte for byte) show what reaches the wire.
"""

import json
import math
import sys

from bus_servo_emulators import FeetechEmulator
import pytest
from servo_emulators import DynamixelEmulator, FakeClock, ScriptedController, Ssc32uEmulator

from two_bone_ik.ik.status import ERROR, OK, WARN
from two_bone_ik.servo.calibration import Calibration
from two_bone_ik.servo.controller import PortMissingError, ServoSettings
from two_bone_ik.servo.coupling import Coupling
from two_bone_ik.servo.driver import build_driver, protocol_setup, ServoDriver
from two_bone_ik.servo.servo_link import ServoLink
from two_bone_ik.servo.servo_settings import ServoConfigError

ARM6 = ('shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll', 'gripper')
# 1000 µs per rad about 1500 µs, limited to 1000..2000 µs (±0.5 rad).
CALIBRATION = Calibration((0.0, 1.0), (1500.0, 2500.0), output_limits=(1000.0, 2000.0))


def make_driver(joints, plus=None, steps=None, calibrations=None, period=1.0):
    """Return a started driver over a scripted controller (channel = 10 + joint index)."""
    servos = [ServoSettings(joint, 10 + i, (calibrations or {}).get(joint, CALIBRATION))
              for i, joint in enumerate(joints)]
    controller = ScriptedController(servos, steps)
    clock = FakeClock()
    driver = ServoDriver(ServoLink(controller, period, clock), Coupling(joints, plus or {}))
    driver.start()
    return driver, controller, clock


def kinds(report):
    return [kind for kind, _ in report.warnings]


@pytest.mark.parametrize('angle, steps', [(1e308, 2000), (-1e308, 1000),
                                          (sys.float_info.max, 2000), (0.7, 2000), (-3.0, 1000)])
def test_a_finite_command_is_clamped_never_a_crash(angle, steps):
    # Defect 15.6 through the driver: (1e+308, 0.0) is clamped to output_limits and sent.
    driver, controller, _ = make_driver(('shoulder', 'elbow'))
    report = driver.command(['shoulder', 'elbow'], [angle, 0.0])
    assert report.sent and report.moved == ('shoulder', 'elbow')
    assert controller.written == [{10: steps, 11: 1500}]
    assert kinds(report) == ['clamped']
    assert report.warnings[0][1] == 'joint_commands: clamped to output_limits: shoulder'
    assert driver.poll().positions == pytest.approx(((steps - 1500) / 1000.0, 0.0))


@pytest.mark.parametrize('value', [math.nan, math.inf, -math.inf])
def test_a_non_finite_command_is_refused_and_sends_nothing(value):
    driver, controller, _ = make_driver(('shoulder', 'elbow'))
    report = driver.command(['shoulder'], [value])
    assert not report.sent and report.match.invalid == ('shoulder',)
    assert controller.written == []


@pytest.mark.parametrize('count', [1, 2, 3, 4, 5, 6])
def test_arms_of_any_number_of_joints(count):
    joints = ARM6[:count]
    driver, controller, _ = make_driver(joints)
    targets = [0.1 * (i + 1) - 0.3 for i in range(count)]
    report = driver.command(list(reversed(joints)), list(reversed(targets)))
    assert report.moved == joints
    assert controller.written == [{10 + i: round(1500 + 1000 * t) for i, t in
                                   enumerate(targets)}]
    states = driver.poll()
    assert states.names == joints and states.positions == pytest.approx(targets)


def test_a_command_naming_some_joints_moves_only_those():
    # Issue 18.5: the gripper, commanded by another node, alone; then the arm without it.
    driver, controller, _ = make_driver(ARM6)
    assert driver.command(['gripper'], [0.3]).moved == ('gripper',)
    assert controller.written == [{15: 1800}]
    driver.command(list(ARM6[:5]), [0.1] * 5)
    assert controller.written[-1] == {10: 1600, 11: 1600, 12: 1600, 13: 1600, 14: 1600}
    assert driver.poll().positions == pytest.approx([0.1] * 5 + [0.3])


MEARM = ('base', 'shoulder', 'elbow', 'gripper')


def test_a_coupled_servo_is_commanded_and_read_as_a_sum():
    # Issue 18.4: the elbow servo sets shoulder + elbow. All servos at 1500 µs (0 rad) at start.
    driver, controller, _ = make_driver(MEARM, {'elbow': 'shoulder'})
    assert driver.poll().positions == pytest.approx((0.0, 0.0, 0.0, 0.0))
    driver.command(['shoulder', 'elbow'], [0.3, -0.1])
    assert controller.written[-1] == {11: 1800, 12: 1700}   # elbow servo: 0.3 - 0.1
    states = driver.poll()
    assert states.positions == pytest.approx((0.0, 0.3, -0.1, 0.0))


def test_moving_only_the_other_joint_keeps_the_coupled_joint_on_its_target():
    driver, controller, _ = make_driver(MEARM, {'elbow': 'shoulder'})
    driver.poll()
    driver.command(['elbow'], [-0.2])          # the shoulder's term: its reading, 0
    assert controller.written[-1] == {12: 1300}
    report = driver.command(['shoulder'], [0.25])
    assert report.moved == ('shoulder', 'elbow')
    assert controller.written[-1] == {11: 1750, 12: 1550}   # the elbow servo follows: 0.05
    assert driver.poll().positions == pytest.approx((0.0, 0.25, -0.2, 0.0))
    driver.command(['base', 'gripper'], [0.1, 0.2])        # neither is coupled to anything
    assert controller.written[-1] == {10: 1600, 13: 1700}


def test_a_joint_never_commanded_keeps_the_angle_it_was_read_at():
    # The elbow servo starts at 1600 µs with the shoulder at 1500: the elbow joint reads 0.1
    # and keeps it when the shoulder moves.
    steps = {10: 1500, 11: 1500, 12: 1600, 13: 1500}
    driver, controller, _ = make_driver(MEARM, {'elbow': 'shoulder'}, steps)
    assert driver.poll().positions == pytest.approx((0.0, 0.0, 0.1, 0.0))
    driver.command(['shoulder'], [-0.3])
    assert controller.written[-1] == {11: 1200, 12: 1300}
    assert driver.poll().positions == pytest.approx((0.0, -0.3, 0.1, 0.0))


def test_limits_apply_to_the_coupled_servos_own_range():
    # Elbow servo limited to 1400..1900 µs (servo angles -0.1..0.4): 0.35 + 0.3 = 0.65 is
    # clamped to 0.4, so the elbow reads 0.4 - 0.35 = 0.05.
    narrow = Calibration((0.0, 1.0), (1500.0, 2500.0), output_limits=(1400.0, 1900.0))
    driver, controller, _ = make_driver(MEARM, {'elbow': 'shoulder'},
                                        calibrations={'elbow': narrow})
    driver.poll()
    report = driver.command(['shoulder', 'elbow'], [0.35, 0.3])
    assert controller.written[-1] == {11: 1850, 12: 1900}
    assert report.warnings == (('clamped', 'joint_commands: clamped to output_limits: elbow'),)
    assert driver.poll().positions == pytest.approx((0.0, 0.35, 0.05, 0.0))


def test_a_sum_with_an_unknown_term_is_not_sent():
    # The shoulder servo has sent no pulses (its position is unknown): the elbow's servo
    # cannot be set, and the elbow joint is not published.
    steps = {10: 1500, 12: 1600, 13: 1500}
    driver, controller, _ = make_driver(MEARM, {'elbow': 'shoulder'}, steps)
    assert driver.poll().names == ('base', 'gripper')
    report = driver.command(['elbow'], [0.1])
    assert not report.sent and controller.written == []
    assert kinds(report) == ['unknown']
    assert 'elbow not moved: its servo sets elbow + shoulder' in report.warnings[0][1]
    # Named together, both are known: the elbow servo gets 0.2 + 0.1.
    driver.command(['shoulder', 'elbow'], [0.2, 0.1])
    assert controller.written == [{11: 1700, 12: 1800}]


def test_a_command_while_disconnected_is_dropped_and_not_replayed():
    driver, controller, clock = make_driver(MEARM, {'elbow': 'shoulder'})
    driver.poll()
    driver.command(['elbow'], [0.1])
    controller.answering = False
    assert driver.poll() is None
    report = driver.command(['elbow'], [0.4])
    assert not report.sent and kinds(report) == ['dropped']
    assert report.warnings[0][1] == ('joint_commands: dropped while the controller is '
                                     'disconnected (no reply)')
    controller.answering = True
    clock.advance(0.5)
    assert driver.poll() is None                      # not yet time to reconnect
    clock.advance(0.5)
    assert driver.poll() is not None                  # reconnected
    assert controller.written == [{12: 1600}]         # nothing replayed
    # The elbow's target is the one sent (0.1), not the dropped one.
    driver.command(['shoulder'], [0.2])
    assert controller.written[-1] == {11: 1700, 12: 1800}


def test_no_joint_states_while_disconnected():
    driver, controller, clock = make_driver(('shoulder', 'elbow'))
    assert driver.poll() is not None
    controller.answering = False
    results = []
    for _ in range(4):
        results.append(driver.poll())
        clock.advance(1.0)
    assert results == [None] * 4


def test_diagnostics_say_what_happened_since_the_last_report():
    driver, controller, _ = make_driver(('shoulder', 'elbow'))
    report = driver.diagnostics()
    assert (report.level, report.message) == (OK, 'connected')
    assert report.hardware_id == 'scripted /dev/scripted'
    values = dict(report.values)
    assert values['connected'] == 'true' and values['protocol'] == 'scripted'
    assert values['baud_rate'] == '9600' and values['commands_sent'] == '0'
    driver.command(['elbow'], [5.0])
    report = driver.diagnostics()
    assert report.level == WARN
    assert report.message == ('1 command(s) clamped; elbow: 5.0000 rad is 6500.00 µs, '
                              'clamped to 2000')
    assert driver.diagnostics().level == OK
    controller.errors = ('overheating',)
    driver.poll()
    assert driver.diagnostics()[:2] == (ERROR, 'error: overheating')
    controller.answering = False
    driver.poll()
    report = driver.diagnostics()
    assert (report.level, report.message) == (ERROR, 'disconnected: no reply')
    assert dict(report.values)['connected'] == 'false'


def test_the_start_up_line():
    driver, controller, _ = make_driver(MEARM, {'elbow': 'shoulder'})
    assert driver.ready_text() == ('ready: scripted on /dev/scripted at 9600 baud, joints '
                                   'base, shoulder, elbow, gripper (elbow servo adds '
                                   'shoulder); connected')
    servos = [ServoSettings('a', 0, CALIBRATION)]
    silent = ScriptedController(servos)
    silent.answering = False
    driver = ServoDriver(ServoLink(silent, 1.0, FakeClock()), Coupling(('a',), {}))
    assert not driver.start()
    assert driver.ready_text().endswith('joints a; not connected yet (no reply)')


def test_close_releases_the_servos():
    driver, controller, _ = make_driver(('a',))
    driver.close(torque_off=True)
    assert controller.released == [True] and not driver.link.connected


# -- built from parameters, on emulated devices ---------------------------------------------

def settings(device, joints, **changes):
    return {'protocol': 'dynamixel', 'port': str(device), 'baud_rate': 0,
            'reconnect_period': 1.0, 'joints': list(joints), 'move_time': 0.02,
            'calibration_file': '', **changes}


@pytest.mark.parametrize('changes, message', [
    ({'protocol': 'pwm'}, 'protocol: expected one of maestro, ssc32u, dynamixel, dynamixel1, '
                          "feetech, feetech_scs, got 'pwm'"),
    ({'port': ''}, 'port: not set; give the serial device path'),
    ({'protocol': 'ssc32u', 'calibration_file': 'x.json'},
     'calibration_file: protocol ssc32u drives hobby servos'),
    ({'protocol': 'dynamixel1', 'calibration_file': 'x.json'},
     'calibration_file: protocol dynamixel1 drives Dynamixel Protocol 1.0 servos .AX series., '
     'which LeRobot does not support'),
])
def test_protocol_setup_refuses_bad_settings(changes, message):
    with pytest.raises(ServoConfigError, match=message):
        protocol_setup(settings('/dev/ttyUSB0', ['a'], **changes))


def test_a_missing_port_at_start_is_a_config_error(tmp_path):
    values = {'servos.a.channel': 0, 'servos.a.angle_range': [0.0, 1.0],
              'servos.a.output_range': [1500.0, 2000.0]}
    config = settings(tmp_path / 'none', ['a'], protocol='ssc32u')
    driver = build_driver(protocol_setup(config)[0], config, values)
    with pytest.raises(PortMissingError, match='none does not exist'):
        driver.start()


@pytest.mark.parametrize('protocol, notes', [
    ('ssc32u', 1), ('dynamixel1', 1), ('feetech_scs', 1), ('maestro', 0), ('dynamixel', 0),
    ('feetech', 0)])
def test_protocols_without_acceleration_limits_say_they_ignore_them(protocol, notes):
    # Before: only the SSC-32U said so; dynamixel1 and feetech_scs dropped the limit silently.
    values = {'servos.a.channel': 1, 'servos.a.angle_range': [0.0, 1.0],
              'servos.a.output_range': [500.0, 700.0], 'servos.a.max_acceleration': 3.0}
    config = settings('/dev/x', ['a'], protocol=protocol)
    driver = build_driver(protocol_setup(config)[0], config, values)
    assert driver.notes == (f'servos.a.max_acceleration: protocol {protocol} has no '
                            'acceleration limit; ignored',) * notes


def test_a_lerobot_arm_on_a_dynamixel_bus_moves_only_what_is_named(tmp_path):
    # Six X-series servos (IDs 1-6) from a calibration file; the gripper alone goes out as a
    # Sync Write holding ID 6 only, the arm's five joints as one holding IDs 1-5.
    motors = {joint: {'id': i + 1, 'drive_mode': 0, 'homing_offset': 0,
                      'range_min': 1024, 'range_max': 3072} for i, joint in enumerate(ARM6)}
    path = tmp_path / 'arm.json'
    path.write_text(json.dumps(motors))
    tick = 2 * math.pi / 4095
    with DynamixelEmulator(tmp_path / 'ttyUSB0', {i: 2048 + 10 * i for i in range(1, 7)}) as dev:
        config = settings(dev.path, ARM6, calibration_file=str(path))
        cls, calibration = protocol_setup(config)
        driver = build_driver(cls, config, {}, calibration, FakeClock())
        assert driver.start()
        states = driver.poll()
        assert states.names == ARM6
        assert states.positions == pytest.approx([10 * i * tick for i in range(1, 7)])
        start_writes = len(dev.sync_writes())
        assert driver.command(['gripper'], [100 * tick]).moved == ('gripper',)
        driver.command(list(ARM6[:5]), [-50 * tick] * 5)
        dev.wait_for(lambda: len(dev.sync_writes()) == start_writes + 2, what='2 Sync Writes')
        assert dev.sync_writes()[start_writes:] == [{6: 2148}, dict.fromkeys(range(1, 6), 1998)]
        assert driver.command(['gripper'], [math.pi]).warnings == (
            ('clamped', 'joint_commands: clamped to output_limits: gripper'),)
        dev.wait_for(lambda: dev.get(6, 'goal') == 3072, what='the gripper at range_max')
        driver.close(torque_off=False)


def test_a_coupled_forearm_on_an_ssc32u_goes_out_in_one_group_move(tmp_path):
    values = {}
    for i, joint in enumerate(MEARM):
        values.update({f'servos.{joint}.channel': i, f'servos.{joint}.angle_range': [0.0, 1.0],
                       f'servos.{joint}.output_range': [1500.0, 2100.0]})
    values['servos.elbow.plus_joint'] = 'shoulder'
    pulses = {0: 1500, 1: 1500, 2: 1560, 3: 1500}
    with Ssc32uEmulator(tmp_path / 'ttyUSB0', pulses=pulses) as dev:
        config = settings(dev.path, MEARM, protocol='ssc32u')
        driver = build_driver(protocol_setup(config)[0], config, values, None, FakeClock())
        driver.start()
        assert driver.poll().positions == pytest.approx((0.0, 0.0, 0.1, 0.0))
        driver.command(['shoulder'], [0.5])
        driver.poll()   # a round trip: the emulator has seen the move
        # Shoulder 0.5 rad -> 1800 µs; the elbow servo keeps the elbow at 0.1: 0.6 -> 1860 µs.
        assert dev.moves[-1] == ({1: (1800, None), 2: (1860, None)}, 20)
        assert driver.poll().positions == pytest.approx((0.0, 0.5, 0.1, 0.0))
        driver.close(torque_off=False)


def test_a_coupled_forearm_on_feetech_servos_goes_out_in_one_sync_write(tmp_path):
    # A MeArm-like arm on STS servos (IDs 1-4, 0 rad at 2048, 1000 steps a rad), the elbow
    # servo setting shoulder + elbow: a command naming the shoulder moves both servos in one
    # SYNC_WRITE; the gripper alone moves only its servo; read-back converts back.
    values = {}
    for i, joint in enumerate(MEARM):
        values.update({f'servos.{joint}.channel': i + 1,
                       f'servos.{joint}.angle_range': [0.0, 1.0],
                       f'servos.{joint}.output_range': [2048.0, 3048.0],
                       f'servos.{joint}.output_limits': [1048.0, 3048.0]})
    values['servos.elbow.plus_joint'] = 'shoulder'
    with FeetechEmulator(tmp_path / 'ttyUSB0', {1: 2048, 2: 2048, 3: 2148, 4: 2048}) as dev:
        config = settings(dev.path, MEARM, protocol='feetech')
        driver = build_driver(protocol_setup(config)[0], config, values, None, FakeClock())
        assert driver.start()
        assert driver.poll().positions == pytest.approx((0.0, 0.0, 0.1, 0.0))
        assert driver.command(['shoulder'], [0.5]).moved == ('shoulder', 'elbow')
        assert driver.command(['gripper'], [-0.25]).moved == ('gripper',)
        states = driver.poll()   # a round trip: the SYNC_WRITEs before it have arrived
        # Shoulder 0.5 rad -> 2548; the elbow servo keeps the elbow at 0.1: 0.6 -> 2648.
        assert dev.sync_writes(42)[1:] == [{2: 2548, 3: 2648}, {4: 1798}]
        assert states.positions == pytest.approx((0.0, 0.5, 0.1, -0.25))
        driver.close(torque_off=False)
