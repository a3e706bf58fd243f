"""The servos of a driver from its ``servos.<joint>.*`` values and a calibration file (ROS-free).

Each joint's servo gets a channel, a calibration and limits:

- from its parameters: ``channel``, ``angle_range`` + ``output_range`` (two calibration points),
  ``output_limits`` (default: the ends of ``output_range``);
- or, with a LeRobot calibration file (:mod:`~two_bone_ik.servo.lerobot_calibration`), from
  the file's motor of the joint's name: ``id`` as the channel, LeRobot's degrees mode as the
  mapping, ``[range_min, range_max]`` as the output limits. A parameter given for the joint
  replaces the file's value: ``channel`` the id, ``output_limits`` the range,
  ``angle_range`` + ``output_range`` (both) the mapping.
"""

import math
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.servo.calibration import Calibration
from two_bone_ik.servo.controller import check_channels, ServoSettings
from two_bone_ik.servo.lerobot_calibration import degrees_mode_map, MotorCalibration
from two_bone_ik.servo.lerobot_calibration import read_calibration_file

#: What the per-joint parameters that have no default are, for "not set" messages.
_REQUIRED = {
    'channel': 'the servo channel, or motor ID, of the joint',
    'angle_range': 'two joint angles of the calibration, rad',
    'output_range': 'the device outputs at those two angles',
}


class ServoConfigError(ConfigError):
    """A servo driver setting is invalid; the message starts with the parameter name."""


class CalibrationFile(NamedTuple):
    """A LeRobot calibration file as read (see :func:`calibration_file`).

    Attributes
    ----------
    path : str
    motors : dict
        ``{motor name: MotorCalibration}``.
    """

    path: str
    motors: Dict[str, MotorCalibration]


def calibration_file(cls: type, path: str) -> Optional[CalibrationFile]:
    """Read the LeRobot calibration file at ``path`` for protocol class ``cls``; None if no path.

    Raises
    ------
    CalibrationFileError
        For a file that is missing or malformed.
    ServoConfigError
        If the protocol's servos do not report positions (hobby servos).
    """
    if not path:
        return None
    if not cls.MODEL_RESOLUTION:
        raise ServoConfigError(f'calibration_file: protocol {cls.PROTOCOL} '
                               f'{cls.NO_CALIBRATION_FILE}')
    return CalibrationFile(path, read_calibration_file(path))


def default_output_limits(joint: str, output_range: Optional[Sequence[float]],
                          calibration: Optional[CalibrationFile]) -> List[float]:
    """Return the output limits of ``joint`` when ``servos.<joint>.output_limits`` is not given.

    The file's ``[range_min, range_max]`` for a joint in the calibration file, else the ends
    of ``output_range`` (``[0, 0]`` if that is not given either: the joint is not configured).
    """
    motor = calibration.motors.get(joint) if calibration is not None else None
    if motor is not None:
        return [float(motor.range_min), float(motor.range_max)]
    if output_range is not None and len(output_range) == 2:
        return sorted(float(value) for value in output_range)
    return [0.0, 0.0]


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value < 0.0:
        raise ServoConfigError(f'{name}: expected a finite value >= 0, got {value!r}')
    return float(value)


def _not_set(prefix: str, key: str, calibration: Optional[CalibrationFile]) -> ConfigError:
    text = f'{prefix}.{key}: not set ({_REQUIRED[key]})'
    if calibration is not None:
        joint = prefix.split('.', 1)[1]
        text = (f'calibration_file: {calibration.path} has no motor {joint!r} (its motors: '
                f"{', '.join(calibration.motors)}), and {text}")
    return ServoConfigError(text)


def _mapping(cls: type, prefix: str, values: Mapping[str, Any],
             motor: Optional[MotorCalibration],
             calibration: Optional[CalibrationFile]) -> Tuple[Any, Any]:
    """Return the joint's two calibration points, from its parameters or its file's motor."""
    angles = values.get(f'{prefix}.angle_range')
    outputs = values.get(f'{prefix}.output_range')
    if motor is not None and angles is None and outputs is None:
        return degrees_mode_map(motor, cls.MODEL_RESOLUTION, cls.DRIVE_MODE_IN_SERVO)
    for key, value in (('angle_range', angles), ('output_range', outputs)):
        if value is None and motor is not None:
            raise ServoConfigError(f'{prefix}.{key}: not set; angle_range and output_range '
                                   "replace the calibration file's mapping together")
        if value is None:
            raise _not_set(prefix, key, calibration)
    return angles, outputs


def _servo(cls: type, joint: str, values: Mapping[str, Any],
           calibration: Optional[CalibrationFile]) -> ServoSettings:
    prefix = f'servos.{joint}'
    motor = calibration.motors.get(joint) if calibration is not None else None
    channel = values.get(f'{prefix}.channel', motor.id if motor is not None else None)
    if channel is None:
        raise _not_set(prefix, 'channel', calibration)
    angles, outputs = _mapping(cls, prefix, values, motor, calibration)
    limits = values.get(f'{prefix}.output_limits')
    if limits is None and motor is not None:
        limits = (motor.range_min, motor.range_max)
    return ServoSettings(
        joint, int(channel),
        Calibration(angles, outputs, list(limits) if limits is not None else None,
                    resolution=cls.RESOLUTION, device_range=cls.DEVICE_RANGE, name=prefix),
        _number(f'{prefix}.max_velocity', values.get(f'{prefix}.max_velocity', 0.0)),
        _number(f'{prefix}.max_acceleration', values.get(f'{prefix}.max_acceleration', 0.0)))


def servo_settings(cls: type, joints: Sequence[str], values: Mapping[str, Any],
                   calibration: Optional[CalibrationFile] = None) -> List[ServoSettings]:
    """Build and validate the servos of ``joints`` from ``servos.<joint>.*`` values.

    Parameters
    ----------
    cls : type
        The protocol's controller class (its resolution, device range and channels apply).
    joints : sequence of str
        Joint names, in order.
    values : mapping
        The values given (a key absent: not given): ``{'servos.<joint>.channel': int,
        '...angle_range': [a0, a1], '...output_range': [o0, o1], '...output_limits': [lo, hi],
        '...max_velocity': rad/s (default 0), '...max_acceleration': rad/s^2 (default 0)}``.
    calibration : CalibrationFile, optional
        A LeRobot calibration file; a joint takes the motor of its name.

    Raises
    ------
    ServoConfigError, CalibrationError
        Naming the first bad or missing parameter (or the calibration file, for a joint it
        does not have and the parameters do not configure).
    """
    if not joints:
        raise ServoConfigError('joints: expected at least one joint name')
    if len(set(joints)) != len(joints) or not all(joints):
        raise ServoConfigError(f'joints: expected distinct non-empty names, got {list(joints)!r}')
    servos = [_servo(cls, joint, values, calibration) for joint in joints]
    problems = check_channels(servos, *cls.CHANNELS, what=cls.CHANNEL_NAME)
    if problems:
        raise ServoConfigError(problems[0])
    return servos
