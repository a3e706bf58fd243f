"""Tests of the servos' settings from parameters and a calibration file (ROS-free)."""

import json
import math

import pytest

from two_bone_ik.servo.calibration import CalibrationError
from two_bone_ik.servo.lerobot_calibration import CalibrationFileError
from two_bone_ik.servo.servo_link import controller_class
from two_bone_ik.servo.servo_settings import calibration_file, default_output_limits
from two_bone_ik.servo.servo_settings import servo_settings, ServoConfigError


def _values(**changes):
    values = {
        'servos.a.channel': 0, 'servos.a.angle_range': [-1.0, 1.0],
        'servos.a.output_range': [1000.0, 2000.0],
        'servos.b.channel': 1, 'servos.b.angle_range': [-1.0, 1.0],
        'servos.b.output_range': [2000.0, 1000.0], 'servos.b.max_velocity': 2.0,
    }
    values.update({key.replace('__', '.'): value for key, value in changes.items()})
    return {key: value for key, value in values.items() if value is not None}


def test_servo_settings_from_parameters():
    servos = servo_settings(controller_class('maestro'), ['a', 'b'], _values())
    assert [(s.joint, s.channel, s.max_velocity) for s in servos] == [('a', 0, 0.0),
                                                                      ('b', 1, 2.0)]
    assert servos[1].calibration.resolution == 0.25
    assert servos[1].calibration.output_limits == (1000.0, 2000.0)


@pytest.mark.parametrize('protocol, joints, changes, error, message', [
    ('maestro', ['a', 'b'], {'servos__a__channel': 24}, ServoConfigError,
     'servos.a.channel: expected a channel from 0 to 23, got 24'),
    ('ssc32u', ['a', 'b'], {'servos__b__channel': 0}, ServoConfigError,
     'servos.b.channel: 0 is also the channel of a'),
    ('dynamixel', ['a', 'b'], {'servos__a__channel': 253}, ServoConfigError,
     'servos.a.channel: expected a motor ID from 0 to 252, got 253'),
    ('ssc32u', ['a', 'b'], {'servos__a__output_range': [400.0, 2000.0]}, CalibrationError,
     r'servos.a.output_limits: \[400.0, 2000.0\] is outside what the controller takes, 500'),
    ('maestro', ['a', 'b'], {'servos__b__max_velocity': -1.0}, ServoConfigError,
     'servos.b.max_velocity: expected a finite value >= 0, got -1.0'),
    ('maestro', ['a', 'b'], {'servos__a__max_acceleration': math.inf}, ServoConfigError,
     'servos.a.max_acceleration: expected a finite value >= 0'),
    ('maestro', [], {}, ServoConfigError, 'joints: expected at least one joint name'),
    ('maestro', ['a', 'a'], {}, ServoConfigError, 'joints: expected distinct non-empty names'),
    ('maestro', ['a', 'b'], {'servos__b__channel': None}, ServoConfigError,
     r'servos.b.channel: not set \(the servo channel'),
    ('maestro', ['a', 'b'], {'servos__a__angle_range': None}, ServoConfigError,
     r'servos.a.angle_range: not set \(two joint angles'),
    ('maestro', ['a', 'b'], {'servos__a__output_range': None}, ServoConfigError,
     r'servos.a.output_range: not set \(the device outputs'),
])
def test_bad_servo_settings_name_the_parameter(protocol, joints, changes, error, message):
    with pytest.raises(error, match=message):
        servo_settings(controller_class(protocol), joints, _values(**changes))


# -- with a calibration file ----------------------------------------------------------------

MOTORS = {
    'a': {'id': 3, 'drive_mode': 0, 'homing_offset': -120, 'range_min': 1000, 'range_max': 3001},
    'b': {'id': 4, 'drive_mode': 0, 'homing_offset': 7, 'range_min': 500, 'range_max': 3500},
}


@pytest.fixture
def calibration(tmp_path):
    path = tmp_path / 'arm.json'
    path.write_text(json.dumps(MOTORS))
    return calibration_file(controller_class('dynamixel'), str(path))


def test_a_joint_takes_its_motor_from_the_file(calibration):
    a, b = servo_settings(controller_class('dynamixel'), ['a', 'b'], {}, calibration)
    assert (a.channel, b.channel) == (3, 4)
    assert a.calibration.output_limits == (1000.0, 3001.0)
    assert a.calibration.to_angle(2000.5) == 0.0   # the middle of the range, as LeRobot's
    assert b.calibration.to_angle(2000) == 0.0
    assert default_output_limits('a', None, calibration) == [1000.0, 3001.0]


def test_parameters_given_replace_the_files_values(calibration):
    values = {'servos.a.channel': 9, 'servos.b.output_limits': [1000.0, 3000.0],
              'servos.b.angle_range': [0.0, 1.0], 'servos.b.output_range': [2048.0, 2700.0]}
    a, b = servo_settings(controller_class('dynamixel'), ['a', 'b'], values, calibration)
    assert a.channel == 9 and a.calibration.output_limits == (1000.0, 3001.0)
    assert b.channel == 4
    assert b.calibration.output_limits == (1000.0, 3000.0)
    assert b.calibration.to_steps(1.0) == (2700, False)
    # The file's range stays the default limits when only the mapping is replaced.
    assert default_output_limits('b', [2048.0, 2700.0], calibration) == [500.0, 3500.0]
    assert default_output_limits('c', [2700.0, 2048.0], None) == [2048.0, 2700.0]


@pytest.mark.parametrize('values, message', [
    ({'servos.a.angle_range': [0.0, 1.0]},
     'servos.a.output_range: not set; angle_range and output_range replace the calibration '
     "file's mapping together"),
    ({'servos.a.output_range': [0.0, 1.0]}, 'servos.a.angle_range: not set; angle_range and'),
])
def test_half_a_mapping_is_refused(calibration, values, message):
    with pytest.raises(ServoConfigError, match=message):
        servo_settings(controller_class('dynamixel'), ['a', 'b'], values, calibration)


def test_a_joint_not_in_the_file_needs_its_parameters(calibration):
    with pytest.raises(ServoConfigError, match=r'calibration_file: .*arm.json has no motor '
                       r"'gripper' \(its motors: a, b\), and servos.gripper.channel: not set"):
        servo_settings(controller_class('dynamixel'), ['a', 'gripper'], {}, calibration)
    values = {'servos.gripper.channel': 7, 'servos.gripper.angle_range': [0.0, 1.0],
              'servos.gripper.output_range': [2048.0, 2400.0]}
    _, gripper = servo_settings(controller_class('dynamixel'), ['a', 'gripper'], values,
                                calibration)
    assert gripper.channel == 7 and gripper.calibration.output_limits == (2048.0, 2400.0)


def test_the_files_range_must_fit_the_controller(tmp_path):
    path = tmp_path / 'wide.json'
    path.write_text(json.dumps({'a': dict(MOTORS['a'], range_max=2_000_000)}))
    with pytest.raises(CalibrationError, match=r'servos.a.output_limits: \[1000.0, 2000000.0\] '
                       'is outside what the controller takes'):
        servo_settings(controller_class('dynamixel'), ['a'], {},
                       calibration_file(controller_class('dynamixel'), str(path)))


def test_hobby_servo_protocols_refuse_a_calibration_file(tmp_path):
    for protocol in ('maestro', 'ssc32u'):
        with pytest.raises(ServoConfigError, match=f'calibration_file: protocol {protocol} '
                           'drives hobby servos by pulse width'):
            calibration_file(controller_class(protocol), str(tmp_path / 'any.json'))
    assert calibration_file(controller_class('maestro'), '') is None
    with pytest.raises(CalibrationFileError, match='does not exist'):
        calibration_file(controller_class('dynamixel'), str(tmp_path / 'none.json'))
