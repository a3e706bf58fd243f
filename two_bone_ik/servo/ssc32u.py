"""Lynxmotion SSC-32U servo controller, ASCII serial protocol (ROS-free; pyserial).

From the SSC-32U user guide:

- a group move ``#<ch>P<pw>S<spd>#<ch>P<pw>S<spd>...T<time><cr>``: every servo of the line
  starts and ends its move together; ``<pw>`` the pulse width in µs (500 to 2500), ``S`` an
  optional speed limit per servo in µs/s, ``T`` the time of the whole move in ms (65535 at most);
  the move takes the longer of what ``T`` and the ``S`` limits ask for;
- Query Pulse Width ``QP<ch><cr>``: one binary byte, the pulse width the SSC-32U is putting out
  on the channel divided by 10 (its own ramped output, not a measurement of the servo; 0 while it
  sends no pulses);
- Query Movement Status ``Q<cr>``: ``.`` if the last move is complete, ``+`` while it runs;
- ``#<ch>L<cr>``: drive the output low, which stops the pulses (the servo goes limp).

The protocol has no error reports and no checksum. Device units are µs, one step 1 µs; what is
read back has a resolution of 10 µs.

A read is every ``QP`` and then one ``Q``, in one write: the ``Q`` answer ends the reply. A QP
byte is 0 or 50 to 250, never ``.`` (46) or ``+`` (43), so a byte lost or added anywhere in the
reply (line noise just before it shifts every value one byte late) leaves something else at the
end, and the reading is refused as garbled instead of being read as wrong pulse widths.
"""

from typing import Dict, Sequence

from two_bone_ik.servo.controller import GarbledReply, limited_units, PySerialController
from two_bone_ik.servo.controller import Reading, reply_timeout

#: Pulse widths the SSC-32U takes, µs.
PULSE_RANGE = (500, 2500)
#: Largest ``T`` (ms) and largest ``S`` (µs/s) the guide allows.
MAX_TIME_MS = 65535
MAX_SPEED = 65535
#: A QP reply of this many 10 µs is the resolution of the read-back.
QUERY_RESOLUTION = 10


def group_move(targets: Dict[int, int], time_ms: int, speeds: Dict[int, int] = None) -> bytes:
    """Encode a group move: ``targets`` ``{channel: µs}``, ``T`` of ``time_ms``, ``S`` per channel.

    A channel whose speed is 0 or absent gets no ``S``.
    """
    speeds = speeds or {}
    parts = []
    for channel, pulse in targets.items():
        if not PULSE_RANGE[0] <= pulse <= PULSE_RANGE[1]:
            raise ValueError(f'pulse width must be {PULSE_RANGE[0]} to {PULSE_RANGE[1]} µs, '
                             f'got {pulse}')
        speed = speeds.get(channel, 0)
        parts.append(f'#{channel}P{pulse}' + (f'S{speed}' if speed else ''))
    if not 0 <= time_ms <= MAX_TIME_MS:
        raise ValueError(f'time must be 0 to {MAX_TIME_MS} ms, got {time_ms}')
    return (''.join(parts) + f'T{time_ms}\r').encode('ascii')


def query_pulse_width(channel: int) -> bytes:
    """Encode ``QP<ch><cr>``; the reply is one byte, the pulse width / 10."""
    return f'QP{channel}\r'.encode('ascii')


def query_movement_status() -> bytes:
    """Encode ``Q<cr>``; the reply is one byte, ``.`` (move complete) or ``+`` (moving)."""
    return b'Q\r'


#: The answers of Query Movement Status.
MOVEMENT_STATUS = (b'.', b'+')


def outputs_low(channels: Sequence[int]) -> bytes:
    """Encode ``#<ch>L...<cr>``: stop the pulses of ``channels``."""
    return (''.join(f'#{channel}L' for channel in channels) + '\r').encode('ascii')


def speed_units(max_velocity: float, us_per_radian: float) -> int:
    """``S`` value (µs/s) for a joint speed limit in rad/s (0: none); at least 1 if limited."""
    return limited_units(max_velocity * us_per_radian, MAX_SPEED)


class Ssc32uController(PySerialController):
    """A Lynxmotion SSC-32U (or SSC-32) on a serial port.

    Parameters
    ----------
    port, baud_rate, servos
        See :class:`~two_bone_ik.servo.controller.Controller`.
    move_time : float
        ``T`` of each group move, seconds.
    """

    PROTOCOL = 'ssc32u'
    DEFAULT_BAUD_RATE = 9600
    RESOLUTION = 1.0
    DEVICE_RANGE = (float(PULSE_RANGE[0]), float(PULSE_RANGE[1]))
    CHANNELS = (0, 31)
    UNITS = 'µs'
    DEVICE = 'the SSC-32U'
    HAS_ACCELERATION = False

    def __init__(self, port: str, baud_rate: int, servos: Sequence, move_time: float = 0.02):
        super().__init__(port, baud_rate, servos)
        self._time_ms = int(round(move_time * 1000.0))
        self._speeds = {servo.channel: speed_units(servo.max_velocity,
                                                   servo.calibration.units_per_radian)
                        for servo in self.servos}
        self._query = (b''.join(query_pulse_width(servo.channel) for servo in self.servos)
                       + query_movement_status())
        self._reply_length = len(self.servos) + 1
        self.reply_wait = reply_timeout(self._reply_length, len(self._query), self.baud_rate)

    def setup(self) -> Reading:
        """Read the pulse widths; send nothing (the SSC-32U keeps what it puts out)."""
        return self.read()

    def write(self, steps: Dict[int, int]) -> None:
        """Send one group move holding every target."""
        self.send(group_move(steps, self._time_ms, self._speeds))

    def read(self) -> Reading:
        """Query the pulse width of every channel (one ``QP`` each, then ``Q``; one write)."""
        reply = self.exchange(self._query, self._reply_length)
        if reply[-1:] not in MOVEMENT_STATUS:
            raise GarbledReply(f'the reply does not end with the answer to Q (. or +) but '
                               f'{reply[-1]}: a byte lost or added (garbled reply)')
        steps = {}
        low, high = (p // QUERY_RESOLUTION for p in PULSE_RANGE)
        for servo, value in zip(self.servos, reply):
            if value == 0:
                continue  # no pulses on this channel: the servo's angle is unknown
            if not low <= value <= high:
                raise GarbledReply(f'channel {servo.channel}: QP answered {value}, not a pulse '
                                   f'width of {PULSE_RANGE[0]} to {PULSE_RANGE[1]} µs / 10 '
                                   '(garbled reply)')
            steps[servo.channel] = value * QUERY_RESOLUTION
        return Reading(steps, self.stray_byte_reports())

    def release(self, torque_off: bool) -> None:
        """With ``torque_off``, drive the outputs low so the servos go limp."""
        if torque_off:
            self.send(outputs_low([servo.channel for servo in self.servos]))
