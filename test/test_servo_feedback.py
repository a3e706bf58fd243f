"""Tests of two_bone_ik.servo.feedback: what a bus servo reports, as its /diagnostics line.

The protocols' reads of it, byte for byte on the emulated buses, are in the protocol modules'
tests; here: the decoding helpers, the levels and words of a servo's line, and the link asking
for it at most once a FEEDBACK_PERIOD (an injected clock).
"""

from bus_servo_emulators import FeetechEmulator
import pytest
from servo_emulators import MaestroEmulator, open_link, TURN_SERVOS

from two_bone_ik.ik.status import ERROR, OK, WARN
from two_bone_ik.servo.coupling import Coupling
from two_bone_ik.servo.driver import ServoDriver
from two_bone_ik.servo.feedback import error_names, feedback_of, FEEDBACK_PERIOD, servo_report
from two_bone_ik.servo.feedback import ServoFeedback, sign_magnitude, STALE

NAMES = {0: 'voltage out of range', 2: 'overheating', 5: 'overload'}


def test_sign_magnitude_and_error_names():
    assert sign_magnitude(0x0400 | 123, 10) == -123
    assert sign_magnitude(123, 10) == 123
    assert sign_magnitude(0x8000 | 5, 15) == -5
    assert error_names(0x25, NAMES) == ('voltage out of range (bit 0)', 'overheating (bit 2)',
                                        'overload (bit 5)')
    assert error_names(0x40, NAMES) == ('undocumented error (bit 6)',)


def test_stalling_bits_are_the_overload_and_overheating_ones_given():
    feedback = feedback_of(95.0, 7.1, 61.0, 0x21, NAMES, (2, 5))
    assert feedback.errors == ('voltage out of range (bit 0)', 'overload (bit 5)')
    assert feedback.stalling == ('overload (bit 5)',)


def test_an_overload_is_an_error_line_naming_the_joint():
    level, message, values = servo_report(
        'shoulder_lift', 'servo ID 2', feedback_of(-98.5, 7.2, 45.0, 0x20, NAMES, (2, 5)), True)
    assert level == ERROR
    assert message == ('shoulder_lift: overload (bit 5): stalled or blocked, or overloaded; the '
                       'servo protects itself (load -98.5 %, 7.2 V, 45 °C)')
    assert dict(values) == {'servo': 'servo ID 2', 'load_percent': '-98.5', 'voltage': '7.2',
                            'temperature': '45', 'error_bits': 'overload (bit 5)'}


def test_other_bits_warn_and_none_is_ok():
    level, message, _ = servo_report('elbow', 'servo ID 3',
                                     feedback_of(5.0, 5.9, 30.0, 0x01, NAMES, (2, 5)), True)
    assert (level, message) == (WARN, 'elbow: voltage out of range (bit 0) (load +5.0 %, 5.9 V, '
                                      '30 °C)')
    assert servo_report('elbow', 'servo ID 3', ServoFeedback(5.0, 7.4, 30.0), True)[:2] == (
        OK, 'elbow: load +5.0 %, 7.4 V, 30 °C')
    # A model whose load comes raw (a Dynamixel X): shown as such.
    raw = ServoFeedback(None, 12.0, 40.0, extra=(('load_or_current_raw', '-37'),))
    level, message, values = servo_report('wrist', 'motor ID 4', raw, True)
    assert message == 'wrist: load_or_current_raw -37, 12.0 V, 40 °C'
    assert dict(values)['load_percent'] == '' and dict(values)['load_or_current_raw'] == '-37'


def test_no_report_is_stale_and_says_why():
    assert servo_report('elbow', 'servo ID 3', None, False)[:2] == (
        STALE, 'elbow: no feedback: the controller is disconnected')
    assert servo_report('elbow', 'servo ID 3', None, True)[1].startswith(
        'elbow: no feedback: not read yet, or the servo did not answer')


def test_the_link_reads_feedback_at_most_once_a_period_in_the_position_read(tmp_path):
    with FeetechEmulator(tmp_path / 'tty', {1: 2560, 2: 1536}) as device:
        link, clock = open_link('feetech', device.path, TURN_SERVOS)
        device.put_load(2, -987)
        device.put(2, 'voltage', 72)
        device.put(2, 'temperature', 48)
        device.error_bits[2] = FeetechEmulator.OVERLOAD
        driver = ServoDriver(link, Coupling(('shoulder', 'elbow'), {}))
        sizes = []
        for step in (0.0, 0.5, 0.49, 0.02, 0.5, 0.5):  # s since connecting, in steps
            clock.advance(step)
            link.poll()
            sizes.append(device.instructions(0x82)[-1][1][1])  # the SYNC_READ's length
        # Due a period after connecting, then a period after each: 8 bytes, else 2.
        assert sizes == [2, 2, 2, 8, 2, 8]
        assert FEEDBACK_PERIOD == 1.0
        (_, shoulder), (_, elbow) = driver.servo_reports()
        assert shoulder.level == OK and shoulder.message.startswith('shoulder: load +0.0 %')
        assert elbow.level == ERROR
        assert elbow.message.startswith('elbow: overload (bit 5): stalled or blocked')
        assert '(load -98.7 %, 7.2 V, 48 °C)' in elbow.message
        assert elbow.hardware_id == f'feetech {device.path} servo ID 2'
        # Unplugged: nothing stale is reported as current.
        device.unplug()
        clock.advance(1.0)
        link.poll()
        assert [report.level for _, report in driver.servo_reports()] == [STALE, STALE]
        link.close(torque_off=False)


def test_hobby_servo_controllers_offer_none_and_say_so(tmp_path):
    values = {'servos.shoulder.channel': 0, 'servos.shoulder.angle_range': [0.0, 1.0],
              'servos.shoulder.output_range': [1500.0, 2000.0],
              'servos.elbow.channel': 1, 'servos.elbow.angle_range': [0.0, 1.0],
              'servos.elbow.output_range': [1500.0, 2000.0]}
    with MaestroEmulator(tmp_path / 'ttyACM0') as device:
        link, clock = open_link('maestro', device.path, values)
        driver = ServoDriver(link, Coupling(('shoulder', 'elbow'), {}))
        clock.advance(5.0)
        link.poll()
        assert driver.servo_reports() == ()
        assert dict(driver.diagnostics().values)['servo_feedback'].startswith(
            'none: hobby servos report no load, voltage, temperature or error bits')
        link.close(torque_off=False)


@pytest.mark.parametrize('protocol', ['feetech', 'feetech_scs', 'dynamixel', 'dynamixel1'])
def test_bus_protocols_say_what_they_offer(protocol):
    from two_bone_ik.servo.servo_link import controller_class
    assert 'temperature' in controller_class(protocol).FEEDBACK
