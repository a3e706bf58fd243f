"""Tests of LeRobot calibration files: reading them, and angles in LeRobot's degrees mode.

The oracle is LeRobot's degrees mode as its source has it (``MotorsBus._normalize``,
``src/lerobot/motors/motors_bus.py``, huggingface/lerobot 7427f318): degrees =
(raw - mid) * 360 / (model_resolution - 1), mid = (range_min + range_max) / 2. The files are
written here; none is LeRobot's.
"""

import json
import math

from bus_servo_emulators import FeetechEmulator
import numpy as np
import pytest
from servo_emulators import FakeClock

from two_bone_ik.servo.driver import build_driver, protocol_setup
from two_bone_ik.servo.lerobot_calibration import CalibrationFileError, degrees_mode_map
from two_bone_ik.servo.lerobot_calibration import MotorCalibration, read_calibration_file
from two_bone_ik.servo.servo_link import controller_class
from two_bone_ik.servo.servo_settings import calibration_file, servo_settings


#: Feetech STS/SMS (4096 positions a turn, drive_mode reversed by the driver) and SCS (1024).
FEETECH = controller_class('feetech')
SCS = controller_class('feetech_scs')


def lerobot_degrees(raw, range_min, range_max, model_resolution):
    """Return LeRobot's degrees mode, from its source (see the module docstring)."""
    mid = (range_min + range_max) / 2
    return (raw - mid) * 360 / (model_resolution - 1)


# An SO-101-like file: six motors, ranges as lerobot-calibrate records them (odd sums give a
# half-tick middle), one reversed motor.
SO101_LIKE = {
    'shoulder_pan': {'id': 1, 'drive_mode': 0, 'homing_offset': -1247, 'range_min': 750,
                     'range_max': 3280},
    'shoulder_lift': {'id': 2, 'drive_mode': 0, 'homing_offset': 893, 'range_min': 820,
                      'range_max': 3231},
    'elbow_flex': {'id': 3, 'drive_mode': 1, 'homing_offset': -30, 'range_min': 880,
                   'range_max': 3090},
    'wrist_flex': {'id': 4, 'drive_mode': 0, 'homing_offset': 12, 'range_min': 900,
                   'range_max': 3200},
    'wrist_roll': {'id': 5, 'drive_mode': 0, 'homing_offset': -2000, 'range_min': 0,
                   'range_max': 4095},
    'gripper': {'id': 6, 'drive_mode': 0, 'homing_offset': 1400, 'range_min': 2010,
                'range_max': 3480},
}


def write(tmp_path, content, name='so101.json'):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content, indent=4))
    return str(path)


@pytest.mark.parametrize('cls, reverses', [(FEETECH, True),
                                           (controller_class('dynamixel'), False)])
def test_every_raw_position_reads_as_lerobots_degrees_in_radians(tmp_path, cls, reverses):
    calibration = calibration_file(cls, write(tmp_path, SO101_LIKE))
    servos = servo_settings(cls, list(SO101_LIKE), {}, calibration)
    for servo in servos:
        entry = SO101_LIKE[servo.joint]
        assert servo.channel == entry['id']
        # Reversed (s = -1) only where LeRobot reverses in software, not where the servo does.
        sign = -1.0 if entry['drive_mode'] == 1 and reverses else 1.0
        c = servo.calibration
        assert c.step_limits == (entry['range_min'], entry['range_max'])
        for raw in range(entry['range_min'], entry['range_max'] + 1):
            expected = sign * math.radians(lerobot_degrees(raw, entry['range_min'],
                                                           entry['range_max'], 4096))
            assert c.to_angle(raw) == pytest.approx(expected, abs=1e-12)
            # Commanding the angle read gives the same tick back.
            assert c.to_steps(c.to_angle(raw)) == (raw, False)


def test_commands_round_to_the_nearest_tick_and_clamp_to_the_range(tmp_path):
    calibration = calibration_file(FEETECH, write(tmp_path, SO101_LIKE))
    pan, _, elbow = servo_settings(FEETECH, ['shoulder_pan', 'shoulder_lift', 'elbow_flex'],
                                   {}, calibration)[:3]
    tick = 2 * math.pi / 4095
    mid = (750 + 3280) / 2   # 2015
    assert pan.calibration.to_steps(0.0) == (2015, False)
    assert pan.calibration.to_steps(0.4 * tick) == (2015, False)
    assert pan.calibration.to_steps(0.6 * tick) == (2016, False)
    assert pan.calibration.to_steps(math.radians(90.0)) == (round(mid + 4095 / 4), False)
    assert pan.calibration.to_steps(math.pi) == (3280, True)    # beyond range_max: clamped
    assert pan.calibration.to_steps(-math.pi) == (750, True)
    # Reversed about the middle of the range (1985): a positive angle lowers the position.
    assert elbow.calibration.to_steps(10 * tick) == (1975, False)
    assert elbow.calibration.to_steps(math.pi) == (880, True)


def test_scs_servos_divide_by_1023_as_lerobot_does(tmp_path):
    path = write(tmp_path, {'gripper': {'id': 1, 'drive_mode': 0, 'homing_offset': 0,
                                        'range_min': 100, 'range_max': 900}})
    (servo,) = servo_settings(SCS, ['gripper'], {}, calibration_file(SCS, path))
    assert servo.calibration.to_angle(500) == 0.0
    assert servo.calibration.to_angle(900) == pytest.approx(math.radians(400 * 360 / 1023))


def test_homing_offset_is_not_added_again():
    # The servo's positions include it already: two entries differing only in it map alike.
    one = MotorCalibration(1, 0, -1500, 1000, 3000)
    two = one._replace(homing_offset=1500)
    assert degrees_mode_map(one, 4096, False) == degrees_mode_map(two, 4096, False)
    assert degrees_mode_map(one, 4096, False) == ((0.0, 2 * math.pi), (2000.0, 6095.0))
    assert degrees_mode_map(one._replace(drive_mode=1), 4096, False)[1] == (2000.0, -2095.0)
    assert degrees_mode_map(one._replace(drive_mode=1), 4096, True)[1] == (2000.0, 6095.0)


def test_reading_keeps_every_motor_and_ignores_extra_keys(tmp_path):
    content = dict(SO101_LIKE)
    content['gripper'] = dict(SO101_LIKE['gripper'], note='spare key')
    motors = read_calibration_file(write(tmp_path, content))
    assert list(motors) == list(SO101_LIKE)
    assert motors['elbow_flex'] == MotorCalibration(3, 1, -30, 880, 3090)


@pytest.mark.parametrize('content, message', [
    (None, r'calibration_file: \S+ does not exist'),
    (b'{"a": \xff}', r'calibration_file: \S+: not UTF-8 text \(byte 0xff at offset 6\)'),
    ('{"a": {"id": 1,}}', r'calibration_file: \S+: not JSON: Expecting property name enclosed '
                          r'in double quotes at line 1 column 16'),
    ('', r'not JSON: Expecting value at line 1 column 1'),
    ('[1, 2]', r'expected a JSON object of motor name -> calibration, got list \[1, 2\]'),
    ('{}', r'expected a JSON object of motor name -> calibration, got dict \{\}'),
    ('{"a": 3}', r"motor 'a': expected an object with id, drive_mode, homing_offset, "
                 r'range_min, range_max, got 3'),
    ('{"a": {"id": 1, "drive_mode": 0, "range_min": 1}}',
     r"motor 'a': no homing_offset, range_max \(a LeRobot calibration has id, drive_mode, "),
    ('{"a": {"id": 1.0, "drive_mode": 0, "homing_offset": 0, "range_min": 1, "range_max": 2}}',
     r"motor 'a': id: expected an integer, got 1.0"),
    ('{"a": {"id": 1, "drive_mode": true, "homing_offset": 0, "range_min": 1, "range_max": 2}}',
     r"motor 'a': drive_mode: expected an integer, got True"),
    ('{"a": {"id": 1, "drive_mode": 2, "homing_offset": 0, "range_min": 1, "range_max": 2}}',
     r"motor 'a': drive_mode: expected 0 or 1, got 2"),
    ('{"a": {"id": 1, "drive_mode": 0, "homing_offset": 0, "range_min": 2, "range_max": 2}}',
     r"motor 'a': expected range_min < range_max, got 2 and 2"),
    ('{"a": {"id": 1, "drive_mode": 0, "homing_offset": NaN, "range_min": 1, "range_max": 2}}',
     r"motor 'a': homing_offset: expected an integer, got nan"),
    ('[' * 100000 + ']' * 100000, r'not a LeRobot calibration \(nested too deeply\)'),
    (' ' * 1_000_001, 'larger than 1000000 bytes'),
])
def test_a_bad_file_is_one_line_naming_it(tmp_path, content, message):
    path = str(tmp_path / 'missing.json') if content is None else write(tmp_path, content)
    with pytest.raises(CalibrationFileError, match=message) as raised:
        read_calibration_file(path)
    assert '\n' not in str(raised.value) and path in str(raised.value)


def test_a_directory_is_not_a_file(tmp_path):
    with pytest.raises(CalibrationFileError, match='cannot read it: Is a directory'):
        read_calibration_file(str(tmp_path))


def test_round_trip_over_many_random_angles(tmp_path):
    calibration = calibration_file(FEETECH, write(tmp_path, SO101_LIKE))
    servos = servo_settings(FEETECH, list(SO101_LIKE), {}, calibration)
    rng = np.random.default_rng(0)
    for servo in servos:
        c = servo.calibration
        low, high = (c.to_angle(step) for step in c.step_limits)
        for angle in rng.uniform(min(low, high), max(low, high), 500):
            steps, clamped = c.to_steps(float(angle))
            assert not clamped
            assert abs(c.to_angle(steps) - angle) <= 0.5 * 2 * math.pi / 4095 + 1e-12


def test_a_calibrated_so101_on_emulated_sts3215s_end_to_end(tmp_path):
    # Five STS3215s (IDs 1-5) on the Feetech emulator, the driver built from parameters with
    # this file: read-back is LeRobot's degrees (elbow_flex, drive_mode 1, reversed), commands
    # go out as the raw goals of the formula, each message as one SYNC_WRITE of the servos it
    # moves, the gripper alone included.
    joints = ('shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'gripper')
    motors = {joint: dict(SO101_LIKE[joint], id=index + 1) for index, joint in enumerate(joints)}
    start = {1: 2315, 2: 1000, 3: 2500, 4: 2050, 5: 2100}
    config = {'protocol': 'feetech', 'baud_rate': 0, 'reconnect_period': 1.0,
              'joints': list(joints), 'move_time': 0.02,
              'calibration_file': write(tmp_path, motors)}

    def angle(joint, raw):
        entry = motors[joint]
        sign = -1.0 if entry['drive_mode'] == 1 else 1.0
        return sign * math.radians(lerobot_degrees(raw, entry['range_min'], entry['range_max'],
                                                   4096))

    def goal(joint, target):
        entry = motors[joint]
        mid = (entry['range_min'] + entry['range_max']) / 2
        sign = -1.0 if entry['drive_mode'] == 1 else 1.0
        raw = round(mid + sign * math.degrees(target) * 4095 / 360)
        return min(max(raw, entry['range_min']), entry['range_max'])

    with FeetechEmulator(tmp_path / 'ttyACM0', dict(start)) as device:
        config['port'] = str(device.path)
        cls, calibration = protocol_setup(config)
        driver = build_driver(cls, config, {}, calibration, FakeClock())
        assert driver.start()
        states = driver.poll()
        assert states.names == joints
        assert states.positions == pytest.approx(
            [angle(joint, start[i + 1]) for i, joint in enumerate(joints)], abs=1e-12)
        assert device.sync_writes(42) == [start]   # held where they were, then torque on
        writes = len(device.instructions(0x03))

        arm = [0.3, -0.2, 0.25, -0.4]
        assert driver.command(list(joints[:4]), arm).moved == joints[:4]
        assert driver.command(['gripper'], [0.6]).moved == ('gripper',)
        report = driver.command(['gripper'], [math.pi])   # beyond range_max: clamped
        assert report.warnings == (
            ('clamped', 'joint_commands: clamped to output_limits: gripper'),)
        states = driver.poll()   # a round trip: the SYNC_WRITEs before it have arrived
        expected = {i + 1: goal(joint, target) for i, (joint, target) in
                    enumerate(zip(joints, arm))}
        assert device.sync_writes(42)[1:] == [expected, {5: goal('gripper', 0.6)}, {5: 3480}]
        assert expected == {1: 2211, 2: 1895, 3: 1822, 4: 1789}
        assert len(device.instructions(0x03)) == writes   # no per-servo WRITE
        assert states.positions == pytest.approx(
            [angle(joint, expected[i + 1]) for i, joint in enumerate(joints[:4])]
            + [angle('gripper', 3480)], abs=1e-12)
        driver.close(torque_off=False)
