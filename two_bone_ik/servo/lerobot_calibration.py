"""LeRobot calibration files, read as joint calibrations in LeRobot's degrees mode (ROS-free).

``lerobot-calibrate`` writes one JSON object per arm (by default under
``~/.cache/huggingface/lerobot/calibration/robots/<robot>/<id>.json``): motor name -> ``id``,
``drive_mode``, ``homing_offset``, ``range_min``, ``range_max``, all integers, positions in the
servo's raw ticks. It also writes ``homing_offset`` into the servo (Feetech STS register 31,
Dynamixel Homing Offset), so the positions the servo reports already include it: nothing here
adds it again.

LeRobot's degrees mode (``MotorNormMode.DEGREES`` in ``MotorsBus._normalize`` /
``_unnormalize``, ``src/lerobot/motors/motors_bus.py`` of huggingface/lerobot at commit
7427f31801f944f5ec9ce53cda02862ce7d1638b) reads a raw position as
``(raw - mid) * 360 / (model_resolution - 1)`` degrees, ``mid = (range_min + range_max) / 2``,
``model_resolution`` the positions per turn of the servo model (4096 for the STS3215 and the
Dynamixel X series, 1024 for the Feetech SCS series). The joint angle here is that, in radians,
with a sign ``s``::

    angle = s * (raw - mid) * 2 pi / (model_resolution - 1)

``s = -1`` for ``drive_mode`` 1 where LeRobot reverses a motor in software (Feetech buses,
``apply_drive_mode = True``; its range modes negate about the middle of the range, its degrees
branch applies no drive mode at all), ``+1`` where the servo does it itself (Dynamixel: the
file's ``drive_mode`` is the servo's Drive Mode register, which already reverses the positions
it reports; LeRobot's Dynamixel bus has ``apply_drive_mode = False``), and ``+1`` for
``drive_mode`` 0 (every SO-100 / SO-101 file). Commands map back the same way, rounded to the
nearest tick and clamped to ``[range_min, range_max]``.
"""

import json
import math
import os
from typing import Any, Dict, NamedTuple, Tuple

from two_bone_ik.common.config_error import ConfigError

#: The keys of one motor's entry, as LeRobot's ``MotorCalibration`` has them.
KEYS = ('id', 'drive_mode', 'homing_offset', 'range_min', 'range_max')

#: A calibration file is a few hundred bytes; anything above this is not one.
MAX_FILE_BYTES = 1_000_000


class CalibrationFileError(ConfigError):
    """A calibration file is missing or malformed; the message starts with ``calibration_file``."""


class MotorCalibration(NamedTuple):
    """One motor's entry of a LeRobot calibration file (raw ticks).

    Attributes
    ----------
    id : int
        The servo's ID on the bus.
    drive_mode : int
        0 normal, 1 reversed.
    homing_offset : int
        Written into the servo by ``lerobot-calibrate``; its positions already include it.
    range_min, range_max : int
        The travel recorded at calibration, range_min < range_max.
    """

    id: int  # noqa: A003 - LeRobot's name for it
    drive_mode: int
    homing_offset: int
    range_min: int
    range_max: int


def _text(path: str) -> str:
    """Return the file's text; CalibrationFileError (one line) if it cannot be had."""
    where = f'calibration_file: {path}'
    try:
        with open(path, 'rb') as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise CalibrationFileError(f'{where} does not exist') from None
    except OSError as error:
        raise CalibrationFileError(f'{where}: cannot read it: {error.strerror}') from None
    if len(data) > MAX_FILE_BYTES:
        raise CalibrationFileError(f'{where}: larger than {MAX_FILE_BYTES} bytes; a LeRobot '
                                   'calibration file has a few hundred')
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError as error:
        raise CalibrationFileError(
            f'{where}: not UTF-8 text (byte 0x{data[error.start]:02x} at offset '
            f'{error.start})') from None


def _integer(where: str, key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CalibrationFileError(f'{where}: {key}: expected an integer, got {value!r}')
    return value


def _motor(where: str, entry: Any) -> MotorCalibration:
    if not isinstance(entry, dict):
        raise CalibrationFileError(f"{where}: expected an object with {', '.join(KEYS)}, got "
                                   f'{entry!r}')
    missing = [key for key in KEYS if key not in entry]
    if missing:
        raise CalibrationFileError(f"{where}: no {', '.join(missing)} (a LeRobot calibration "
                                   f"has {', '.join(KEYS)})")
    motor = MotorCalibration(*(_integer(where, key, entry[key]) for key in KEYS))
    if motor.drive_mode not in (0, 1):
        raise CalibrationFileError(f'{where}: drive_mode: expected 0 or 1, got '
                                   f'{motor.drive_mode}')
    if motor.range_min >= motor.range_max:
        raise CalibrationFileError(f'{where}: expected range_min < range_max, got '
                                   f'{motor.range_min} and {motor.range_max}')
    return motor


def read_calibration_file(path: str) -> Dict[str, MotorCalibration]:
    """Read a LeRobot calibration file: ``{motor name: MotorCalibration}``.

    Keys other than :data:`KEYS` in a motor's entry are ignored.

    Raises
    ------
    CalibrationFileError
        One line naming the file and what is wrong: missing, unreadable, not UTF-8, not JSON,
        not an object of motor objects, a key missing or not an integer, ``drive_mode`` not 0
        or 1, ``range_min`` not below ``range_max``.
    """
    path = os.fspath(path)
    text = _text(path)
    try:
        content = json.loads(text)
    except json.JSONDecodeError as error:
        raise CalibrationFileError(f'calibration_file: {path}: not JSON: {error.msg} at line '
                                   f'{error.lineno} column {error.colno}') from None
    except RecursionError:
        raise CalibrationFileError(f'calibration_file: {path}: not a LeRobot calibration '
                                   '(nested too deeply)') from None
    if not isinstance(content, dict) or not content:
        raise CalibrationFileError(f'calibration_file: {path}: expected a JSON object of motor '
                                   f'name -> calibration, got {type(content).__name__} '
                                   f'{_short(content)}')
    return {name: _motor(f'calibration_file: {path}: motor {name!r}', entry)
            for name, entry in content.items()}


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + '...'


def degrees_mode_map(motor: MotorCalibration, model_resolution: int,
                     drive_mode_in_servo: bool) -> Tuple[Tuple[float, float],
                                                         Tuple[float, float]]:
    """Return two calibration points ``(angle_range, output_range)`` of LeRobot's degrees mode.

    Parameters
    ----------
    motor : MotorCalibration
    model_resolution : int
        Positions per turn of the servo model (4096 for the STS3215 and Dynamixel X).
    drive_mode_in_servo : bool
        Whether the servo itself carries out ``drive_mode`` (Dynamixel), so ``s`` stays +1.

    Returns
    -------
    tuple
        ``((0, 2 pi), (mid, mid + s * (model_resolution - 1)))``: angles in rad and the raw
        positions at them, for :class:`~two_bone_ik.servo.calibration.Calibration`.
    """
    mid = (motor.range_min + motor.range_max) / 2.0
    sign = -1.0 if motor.drive_mode == 1 and not drive_mode_in_servo else 1.0
    return (0.0, 2.0 * math.pi), (mid, mid + sign * (model_resolution - 1))
