"""Feetech serial bus servos: STS/SMS series (``feetech``) and SCS series (``feetech_scs``).

Our own protocol code on pyserial (packets in :mod:`~two_bone_ik.servo.feetech_packets`); why
not Feetech's Python SDKs is in ``docs/servo_protocols.md``. The memory table addresses used
(the same on both series; STS3215 figures):

- Operating Mode 33 (STS/SMS: must be 0, position servo mode), Torque Enable 40,
  Acceleration 41 (STS/SMS only; units of 100 steps/s^2, 0 for none), Goal Position 42,
  Goal Speed 46 (STS/SMS: steps/s; SCS: units of 0.059 rev/min; 0 for none), Present Position
  56;
- Present Load 60 (2 bytes, 0.1 % of the maximum torque, sign-magnitude: bit 10 the
  direction), Present Voltage 62 (1 byte, 0.1 V), Present Temperature 63 (1 byte, degrees C),
  on both series;
- STS/SMS: 4096 steps a turn, little-endian, position and speed sign-magnitude (bit 15),
  factory default 1 Mbps; SCS: 0-1023, big-endian, unsigned, factory default 1 Mbps.

At connect every configured ID is pinged; for the servos that answer, the mode is checked
(STS/SMS), Present Position read, Acceleration and Goal Speed written from the joint limits,
Goal Position set to Present Position in one SYNC_WRITE and only then Torque Enable set, so
torque comes on without a jump. Each command is one SYNC_WRITE of Goal Position holding every
servo it moves. Present Position comes from one SYNC_READ (STS/SMS) or a READ per servo (SCS,
which has no SYNC_READ); once a second (when the link asks for feedback) that read takes the
8 bytes from Present Position to Present Temperature instead of 2, so the feedback costs no
exchange of its own, and the status packets' error bytes go with it. A servo that does not
answer is left out and named (:class:`~two_bone_ik.servo.bus_roll.BusRoll`); status error
bits are device errors in :attr:`Reading.errors`, and so are stray bytes found waiting before
a request (discarded, the link kept); bytes after a reply make it garbled
(:meth:`PySerialController.exchange`).

LeRobot calibration files apply (``MODEL_RESOLUTION`` 4096 on STS/SMS, 1024 on SCS, as
LeRobot's tables have them; ``drive_mode`` 1 reversed by the driver, as LeRobot does for
Feetech motors).
"""

from typing import Dict, List, Optional, Sequence

from two_bone_ik.servo import feetech_packets as packets
from two_bone_ik.servo.bus_roll import BusRoll, BusServos
from two_bone_ik.servo.controller import DeviceRefused, limited_units, PySerialController
from two_bone_ik.servo.controller import reply_timeout, ReplyTimeout
from two_bone_ik.servo.feedback import feedback_of, ServoFeedback, sign_magnitude

OPERATING_MODE = 33
TORQUE_ENABLE = 40
ACCELERATION = 41
GOAL_POSITION = 42
GOAL_SPEED = 46
PRESENT_POSITION = 56
PRESENT_LOAD = 60
PRESENT_VOLTAGE = 62
PRESENT_TEMPERATURE = 63
#: Bytes from Present Position to Present Temperature: the read that brings the feedback.
FEEDBACK_LENGTH = PRESENT_TEMPERATURE + 1 - PRESENT_POSITION
#: Present Load's sign bit (its direction), and its unit in % of the maximum torque.
LOAD_SIGN_BIT = 10
LOAD_UNIT = 0.1
#: Status error bits that mean the servo is stalled or protecting itself from it.
STALL_BITS = (2, 3, 5)  # overheating, overcurrent, overload

#: Operating Mode values (STS/SMS), by number.
MODES = {0: 'position servo', 1: 'wheel (constant speed)', 2: 'PWM (open loop)', 3: 'step'}
#: Largest Acceleration (STS/SMS).
MAX_ACCELERATION = 254
#: Largest Goal Speed the driver writes.
MAX_SPEED = 0x7FFF


class FeetechController(BusServos, PySerialController):
    """Feetech STS/SMS servos (e.g. STS3215 of the SO-100/SO-101 arms) on one bus.

    Channels are servo IDs.
    """

    PROTOCOL = 'feetech'
    DEFAULT_BAUD_RATE = 1_000_000
    #: Baud rates of the memory table's Baud Rate codes 0-7. Feetech's SDK gives codes 5-7 as
    #: 76800, 57600, 38400, LeRobot's table as 57600, 38400, 19200: all are accepted.
    BAUD_RATES = (1_000_000, 500_000, 250_000, 128_000, 115_200, 76_800, 57_600, 38_400,
                  19_200)
    RESOLUTION = 1.0
    DEVICE_RANGE = (-32767.0, 32767.0)
    CHANNELS = (0, 253)
    UNITS = 'steps'
    CHANNEL_NAME = 'servo ID'
    DEVICE = 'the servo bus'
    FEEDBACK = 'present load, voltage, temperature and status error bits, once a second'
    #: LeRobot's ``MODEL_RESOLUTION`` of the STS/SMS series: a calibration file applies.
    MODEL_RESOLUTION = 4096
    #: LeRobot reverses a Feetech motor of ``drive_mode`` 1 in software: so does the driver.
    DRIVE_MODE_IN_SERVO = False

    #: Byte order of two-byte values, sign bit of positions (None: unsigned).
    BIG_ENDIAN = False
    SIGN_BIT: Optional[int] = 15
    #: Whether the series has SYNC_READ, an Acceleration register, an Operating Mode.
    HAS_SYNC_READ = True
    HAS_ACCELERATION = True
    HAS_MODE = True
    #: Servo steps per second of one unit of Goal Speed.
    SPEED_UNIT = 1.0
    #: Servo steps per second squared of one unit of Acceleration.
    ACCELERATION_UNIT = 100.0

    def __init__(self, port: str, baud_rate: int, servos: Sequence):
        super().__init__(port, baud_rate, servos)
        self.roll = BusRoll(self.servos)
        count = len(self.servos)
        # The longest exchange: a SYNC_READ of every position with its feedback (or a READ).
        self.reply_wait = reply_timeout((packets.STATUS_OVERHEAD + FEEDBACK_LENGTH) * count,
                                        8 + count, self.baud_rate)
        self._feedback: Dict[int, ServoFeedback] = {}

    # -- one exchange -------------------------------------------------------------------------

    def _word(self, value: int) -> bytes:
        return packets.encode_word(value, self.BIG_ENDIAN, self.SIGN_BIT)

    def _ask(self, servo_id: int, request: bytes, data_length: int) -> Optional[packets.Status]:
        """Send ``request`` to one servo; return its status packet, or None if it is silent."""
        reply = self.exchange(request, packets.STATUS_OVERHEAD + data_length, partial=True)
        statuses = packets.parse_statuses(reply, (servo_id,), data_length)
        return statuses[0] if statuses else None

    def _write_register(self, servo_id: int, address: int, data: bytes, what: str,
                        errors: List[str]) -> None:
        status = self._ask(servo_id, packets.write(servo_id, address, data), 0)
        if status is None:
            raise ReplyTimeout(f'{self.roll.name(servo_id)}: no status packet after writing '
                               f'{what}')
        errors += packets.status_errors([status], self.roll.joints)

    # -- positions ----------------------------------------------------------------------------

    def _positions(self, servo_ids: Sequence[int], errors: List[str],
                   feedback: bool = False) -> Dict[int, int]:
        """Present Position of each servo of ``servo_ids`` that answers.

        Stray bytes discarded before a request since the last read are reported in ``errors``.
        With ``feedback`` the same read runs on to Present Temperature (:meth:`_take_feedback`).
        """
        length = FEEDBACK_LENGTH if feedback else 2
        if self.HAS_SYNC_READ:
            reply = self.exchange(packets.sync_read(PRESENT_POSITION, length, servo_ids),
                                  (packets.STATUS_OVERHEAD + length) * len(servo_ids),
                                  partial=True)
            statuses = packets.parse_statuses(reply, servo_ids, length)
        else:
            statuses = [self._ask(i, packets.read(i, PRESENT_POSITION, length), length)
                        for i in servo_ids]
            statuses = [status for status in statuses if status is not None]
        errors += self.stray_byte_reports()
        errors += packets.status_errors(statuses, self.roll.joints)
        if feedback:
            self._feedback = {status.servo_id: self._feedback_of(status) for status in statuses}
        return {status.servo_id: packets.decode_word(status.data[:2], self.BIG_ENDIAN,
                                                     self.SIGN_BIT)
                for status in statuses}

    def _feedback_of(self, status: packets.Status) -> ServoFeedback:
        """Decode Present Load, Voltage and Temperature (the read from Present Position)."""
        data = status.data
        load = packets.decode_word(data[PRESENT_LOAD - PRESENT_POSITION:][:2], self.BIG_ENDIAN)
        return feedback_of(sign_magnitude(load, LOAD_SIGN_BIT) * LOAD_UNIT,
                           data[PRESENT_VOLTAGE - PRESENT_POSITION] / 10.0,
                           float(data[PRESENT_TEMPERATURE - PRESENT_POSITION]), status.error,
                           packets.STATUS_ERRORS, STALL_BITS)

    def _take_feedback(self) -> Dict[int, ServoFeedback]:
        """Return (and forget) the feedback of the last read that asked for it, by ID."""
        found, self._feedback = self._feedback, {}
        return found

    # -- preparing servos ---------------------------------------------------------------------

    def _check_mode(self, servo_id: int) -> None:
        status = self._ask(servo_id, packets.read(servo_id, OPERATING_MODE, 1), 1)
        if status is None:
            raise ReplyTimeout(f'{self.roll.name(servo_id)}: no reply to a read of Operating '
                               'Mode')
        mode = status.data[0]
        if mode != 0:
            raise DeviceRefused(
                f'{self.roll.name(servo_id)}: Operating Mode is {mode} '
                f"({MODES.get(mode, 'unknown')}), not 0 (position servo); set it with "
                "Feetech's FD software or LeRobot")

    def _prepare(self, positions: Dict[int, int], errors: List[str]) -> None:
        """Set limits, hold each servo where it is, then torque on."""
        for servo in self.servos:
            if servo.channel not in positions:
                continue
            if self.HAS_MODE:
                self._check_mode(servo.channel)
            scale = servo.calibration.units_per_radian
            if self.HAS_ACCELERATION:
                acceleration = limited_units(
                    servo.max_acceleration * scale / self.ACCELERATION_UNIT, MAX_ACCELERATION)
                self._write_register(servo.channel, ACCELERATION, bytes((acceleration,)),
                                     'Acceleration', errors)
            speed = limited_units(servo.max_velocity * scale / self.SPEED_UNIT, MAX_SPEED)
            self._write_register(servo.channel, GOAL_SPEED, self._word(speed), 'Goal Speed',
                                 errors)
        self._send_goals(positions)
        for servo_id in positions:
            self._write_register(servo_id, TORQUE_ENABLE, b'\x01', 'Torque Enable', errors)

    def _ping(self, servo_id: int) -> bool:
        return self._ask(servo_id, packets.ping(servo_id), 0) is not None

    def _send_goals(self, goals: Dict[int, int]) -> None:
        self.send(packets.sync_write(GOAL_POSITION, 2, {
            servo_id: self._word(value) for servo_id, value in goals.items()}))

    def release(self, torque_off: bool) -> None:
        """With ``torque_off``, clear Torque Enable of every servo in one SYNC_WRITE."""
        if torque_off:
            self.send(packets.sync_write(TORQUE_ENABLE, 1,
                                         dict.fromkeys(self.roll.ids, b'\x00')))


class FeetechScsController(FeetechController):
    """Feetech SCS servos (e.g. SCS0009, SCS15) on one bus; channels are servo IDs.

    Big-endian, unsigned 0-1023 positions, no SYNC_READ (a READ per servo), no Acceleration
    register and no Operating Mode (``max_acceleration`` is ignored).
    """

    PROTOCOL = 'feetech_scs'
    #: LeRobot's ``MODEL_RESOLUTION`` of the SCS series (its degrees mode divides by 1023).
    MODEL_RESOLUTION = 1024
    BAUD_RATES = (1_000_000, 500_000, 250_000, 128_000, 115_200, 76_800, 57_600, 38_400)
    DEVICE_RANGE = (0.0, 1023.0)
    BIG_ENDIAN = True
    SIGN_BIT = None
    HAS_SYNC_READ = False
    HAS_ACCELERATION = False
    HAS_MODE = False
    #: Goal Speed is in units of 0.059 rev/min. Steps a turn differ by model (SCS15: 0.19 deg
    #: a step, 1895 a turn; SCS0009: 300 deg over 1024 steps, 1229 a turn); taking the most
    #: steps a turn gives the slowest servo for a speed, so the limit is never exceeded.
    SPEED_UNIT = 0.059 / 60.0 * 360.0 / 0.19
