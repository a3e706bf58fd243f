"""Pololu Maestro servo controllers, compact serial protocol (ROS-free; pyserial).

From the Maestro user's guide, "Serial Servo Commands" (compact protocol, CRC disabled, the
factory setting):

- Set Target ``0x84, channel, target & 0x7F, (target >> 7) & 0x7F``: the pulse width in
  quarter-µs (0 stops the pulses);
- Set Speed ``0x87, channel, low 7 bits, high 7 bits``: in (0.25 µs)/(10 ms), 0 for no limit;
- Set Acceleration ``0x89, channel, low 7 bits, high 7 bits``: in (0.25 µs)/(10 ms)/(80 ms),
  0 to 255, 0 for no limit;
- Get Position ``0x90, channel``: two bytes, low then high, the pulse width the Maestro is
  transmitting in quarter-µs (its own output after the speed and acceleration ramps, not a
  measurement of the servo);
- Get Errors ``0xA1``: two bytes, low then high, the error bits (reading clears them).

A group of targets goes out as consecutive Set Target commands in one write. Device units are
µs, one step a quarter-µs.
"""

from typing import Dict, List, Sequence

from two_bone_ik.servo.controller import GarbledReply, limited_units, PySerialController
from two_bone_ik.servo.controller import Reading, reply_timeout

SET_TARGET = 0x84
SET_SPEED = 0x87
SET_ACCELERATION = 0x89
GET_POSITION = 0x90
GET_ERRORS = 0xA1

#: Largest 14-bit value of a two-data-byte command.
MAX_VALUE = 0x3FFF
#: Largest acceleration setting.
MAX_ACCELERATION = 255

#: Error bits of Get Errors, as the user's guide names them.
ERROR_BITS = (
    'serial signal error', 'serial overrun error', 'serial buffer full',
    'serial CRC error', 'serial protocol error', 'serial timeout error',
    'script stack error', 'script call stack error', 'script program counter error',
)


def _two_data_bytes(command: int, channel: int, value: int) -> bytes:
    if not 0 <= value <= MAX_VALUE:
        raise ValueError(f'value must be 0 to {MAX_VALUE}, got {value}')
    if not 0 <= channel <= 0x7F:
        raise ValueError(f'channel must be 0 to 127, got {channel}')
    return bytes((command, channel, value & 0x7F, (value >> 7) & 0x7F))


def set_target(channel: int, quarter_us: int) -> bytes:
    """Set Target: ``channel``'s pulse width in quarter-µs (0: stop the pulses)."""
    return _two_data_bytes(SET_TARGET, channel, quarter_us)


def set_speed(channel: int, speed: int) -> bytes:
    """Set Speed: limit in (0.25 µs)/(10 ms), 0 for none."""
    return _two_data_bytes(SET_SPEED, channel, speed)


def set_acceleration(channel: int, acceleration: int) -> bytes:
    """Set Acceleration: limit in (0.25 µs)/(10 ms)/(80 ms), 0 to 255, 0 for none."""
    if acceleration > MAX_ACCELERATION:
        raise ValueError(f'acceleration must be 0 to {MAX_ACCELERATION}, got {acceleration}')
    return _two_data_bytes(SET_ACCELERATION, channel, acceleration)


def get_position(channel: int) -> bytes:
    """Get Position request; the reply is two bytes (:func:`decode_word`)."""
    return bytes((GET_POSITION, channel))


def get_errors() -> bytes:
    """Get Errors request; the reply is two bytes (:func:`decode_word`)."""
    return bytes((GET_ERRORS,))


def decode_word(reply: bytes) -> int:
    """Decode a two-byte reply, low byte first."""
    return reply[0] | (reply[1] << 8)


def describe_errors(bits: int) -> str:
    """Name the error bits set in a Get Errors reply, e.g. ``'serial overrun error (bit 1)'``."""
    names = [f'{name} (bit {bit})' for bit, name in enumerate(ERROR_BITS) if bits >> bit & 1]
    return ', '.join(names)


def speed_units(max_velocity: float, us_per_radian: float) -> int:
    """Set Speed value for a joint speed limit in rad/s (0: none); at least 1 if limited."""
    # (0.25 µs)/(10 ms) = 25 µs/s.
    return limited_units(max_velocity * us_per_radian / 25.0, MAX_VALUE)


def acceleration_units(max_acceleration: float, us_per_radian: float) -> int:
    """Set Acceleration value for a joint acceleration limit in rad/s^2 (0: none)."""
    # (0.25 µs)/(10 ms)/(80 ms) = 312.5 µs/s^2.
    return limited_units(max_acceleration * us_per_radian / 312.5, MAX_ACCELERATION)


class MaestroController(PySerialController):
    """A Pololu Maestro (Micro 6, Mini 12/18/24) on its command port, compact protocol."""

    PROTOCOL = 'maestro'
    DEFAULT_BAUD_RATE = 9600
    RESOLUTION = 0.25
    DEVICE_RANGE = (0.25, MAX_VALUE * 0.25)
    CHANNELS = (0, 23)
    UNITS = 'µs'
    DEVICE = 'the Maestro'

    def __init__(self, port: str, baud_rate: int, servos: Sequence):
        super().__init__(port, baud_rate, servos)
        channels = [servo.channel for servo in self.servos]
        self._read_request = b''.join(get_position(c) for c in channels) + get_errors()
        self._reply_length = 2 * len(channels) + 2
        self.reply_wait = reply_timeout(self._reply_length, len(self._read_request),
                                        self.baud_rate)

    def _reading(self, reply: bytes) -> Reading:
        steps = {}
        for index, servo in enumerate(self.servos):
            position = decode_word(reply[2 * index:2 * index + 2])
            if position > MAX_VALUE:
                raise GarbledReply(f'channel {servo.channel}: position {position} is not a '
                                   'Maestro pulse width (garbled reply)')
            if position:  # 0: the channel sends no pulses, so the servo's angle is unknown
                steps[servo.channel] = position
        bits = decode_word(reply[-2:])
        if bits >> len(ERROR_BITS):
            raise GarbledReply(f'error bits 0x{bits:04x} include undefined bits (garbled reply)')
        errors = (f'Maestro error 0x{bits:04x}: {describe_errors(bits)}',) if bits else ()
        return Reading(steps, self.stray_byte_reports() + errors)

    def setup(self) -> Reading:
        """Read positions and errors, then send each channel's speed and acceleration limit."""
        reading = self.read()
        commands: List[bytes] = []
        for servo in self.servos:
            scale = servo.calibration.units_per_radian
            commands.append(set_speed(servo.channel, speed_units(servo.max_velocity, scale)))
            commands.append(set_acceleration(
                servo.channel, acceleration_units(servo.max_acceleration, scale)))
        self.send(b''.join(commands))
        return reading

    def write(self, steps: Dict[int, int]) -> None:
        """Send one Set Target per channel, all in one write."""
        self.send(b''.join(set_target(channel, value) for channel, value in steps.items()))

    def read(self) -> Reading:
        """Get Position of every channel and Get Errors, in one exchange."""
        return self._reading(self.exchange(self._read_request, self._reply_length))

    def release(self, torque_off: bool) -> None:
        """With ``torque_off``, stop the pulses (target 0) so the servos go limp."""
        if torque_off:
            self.send(b''.join(set_target(servo.channel, 0) for servo in self.servos))
