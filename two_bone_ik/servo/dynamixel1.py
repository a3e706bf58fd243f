"""ROBOTIS Dynamixel AX-series servos, Protocol 1.0, through dynamixel-sdk (ROS-free).

From the ROBOTIS e-manual (Protocol 1.0 and the AX-12A control table): packets are
``FF FF ID LEN INSTR PARAMS CHK`` with ``CHK = ~sum``; Protocol 1.0 has SYNC_WRITE (0x83) but
no SYNC_READ, so positions are read servo by servo. AX-12A: CW Angle Limit 6 and CCW Angle
Limit 8 (both 0: wheel mode), Torque Enable 24, Goal Position 30, Moving Speed 32 (about
0.111 rev/min a unit, 0 for no limit), Present Position 36, Present Load 40 (0-1023 about 0.1 %
of the maximum torque, bit 10 the direction), Present Voltage 42 (0.1 V), Present Temperature
43 (degrees C); positions 0-1023 over 300 degrees;
factory default 1 Mbps. The AX-12A has no acceleration register (``max_acceleration`` is
ignored).

At connect every configured ID is pinged; for the servos that answer, the angle limits are
checked (joint mode, and the output limits inside them), Moving Speed is written from the
joint speed limit, Goal Position set to Present Position in one Sync Write and only then Torque
Enable set. Each command is one Sync Write of Goal Position. Once a second (when the link asks
for feedback) each servo's read of Present Position takes the 8 bytes from Present Position to
Present Temperature instead of 2: no exchange of its own. A status packet's error byte:
input voltage, overheating and overload are device errors (:attr:`Reading.errors`, the link
stays up); angle limit, range, checksum and instruction errors mean the servo refused the
instruction (:class:`DeviceRefused`). The SDK's own reads would take a status packet one data
byte short with a valid checksum, its checksum byte as data; the driver checks each status
packet's length itself, and waits for a status packet 50 ms plus wire time (the SDK's own
wait is 34 ms). A servo that does not answer is left out and named
(:class:`~two_bone_ik.servo.bus_roll.BusRoll`).
"""

from typing import Dict, List, Optional, Sequence

import dynamixel_sdk as sdk

from two_bone_ik.servo.bus_roll import BusRoll, BusServos
from two_bone_ik.servo.controller import Controller, DeviceRefused, GarbledReply
from two_bone_ik.servo.controller import limited_units, ReplyTimeout
from two_bone_ik.servo.dynamixel import DynamixelController
from two_bone_ik.servo.feedback import feedback_of, ServoFeedback, sign_magnitude

# AX-12A control table (addresses; two-byte entries little-endian).
CW_ANGLE_LIMIT = 6
CCW_ANGLE_LIMIT = 8
TORQUE_ENABLE = 24
GOAL_POSITION = 30
MOVING_SPEED = 32
PRESENT_POSITION = 36
PRESENT_LOAD = 40
PRESENT_VOLTAGE = 42
PRESENT_TEMPERATURE = 43
#: Bytes from Present Position to Present Temperature: the read that brings the feedback.
FEEDBACK_LENGTH = PRESENT_TEMPERATURE + 1 - PRESENT_POSITION
#: Present Load's direction bit, and its unit (about 0.1 % of the maximum torque).
LOAD_SIGN_BIT = 10
LOAD_UNIT = 0.1
#: Status error bits that mean the servo is stalled or protecting itself from it.
STALL_BITS = (2, 5)  # overheating, overload

PING = 0x01
READ = 0x02
WRITE = 0x03

#: Milliseconds added to dynamixel-sdk's wait for a status packet (wire time + 34 ms).
EXTRA_WAIT_MS = 16.0
#: Steps a turn: 1024 over 300 degrees.
STEPS_PER_TURN = 1024 * 360 / 300
#: rev/min of one unit of Moving Speed, and its largest value.
SPEED_UNIT = 0.111
MAX_SPEED = 1023

#: Error bits of a status packet that report the servo's state (the instruction was done).
HARDWARE_ERRORS = {0: 'input voltage error', 2: 'overheating error', 5: 'overload error'}
#: Error bits that mean the instruction was refused.
REFUSALS = {1: 'angle limit error', 3: 'range error', 4: 'checksum error',
            6: 'instruction error'}


def describe_bits(error: int, names: Dict[int, str]) -> str:
    """Name the bits of ``error`` that ``names`` knows, e.g. ``'overload error (bit 5)'``."""
    return ', '.join(f'{name} (bit {bit})' for bit, name in names.items() if error >> bit & 1)


def moving_speed(max_velocity: float, steps_per_radian: float) -> int:
    """Return the Moving Speed for a joint speed limit in rad/s (0: none)."""
    rev_per_min = max_velocity * steps_per_radian * 60.0 / STEPS_PER_TURN
    return limited_units(rev_per_min / SPEED_UNIT, MAX_SPEED)


class Dynamixel1Controller(BusServos, DynamixelController):
    """Dynamixel AX-12A (and AX-18A) servos on a U2D2 or similar, Protocol 1.0; channels are IDs.

    Uses the Protocol 2.0 controller's port handling and SDK calls; the rest is Protocol 1.0.
    """

    PROTOCOL = 'dynamixel1'
    DEFAULT_BAUD_RATE = 1_000_000
    #: Baud Rate register values 1, 3, 4, 7, 9, 16, 34, 103, 207 (2 Mbps / (value + 1)).
    BAUD_RATES = (1_000_000, 500_000, 400_000, 250_000, 200_000, 115_200, 57_600, 19_200,
                  9_600)
    DEVICE_RANGE = (0.0, 1023.0)
    CHANNELS = (0, 253)
    HAS_ACCELERATION = False
    #: LeRobot's Dynamixel bus speaks Protocol 2.0 to X-series servos only: no calibration file
    #: of LeRobot's is for an AX-12A (whose 1024 steps span 300 degrees, not a turn).
    MODEL_RESOLUTION = 0
    DRIVE_MODE_IN_SERVO = False   # the AX-12A has no Drive Mode register
    NO_CALIBRATION_FILE = ('drives Dynamixel Protocol 1.0 servos (AX series), which LeRobot does '
                           'not support; calibrate each joint with servos.<joint>.angle_range '
                           'and output_range')
    FEEDBACK = 'present load, voltage, temperature and status error bits, once a second'

    def __init__(self, port: str, baud_rate: int, servos: Sequence):
        Controller.__init__(self, port, baud_rate, servos)  # not the 2.0 controller's set-up
        self.roll = BusRoll(self.servos)
        self._packets = sdk.PacketHandler(1.0)
        self._stuff = False  # no byte stuffing in Protocol 1.0
        self._port = None
        self._goal = None
        self._feedback: Dict[int, ServoFeedback] = {}
        self._status_error = 0  # the error byte of the last status packet

    def _open(self) -> None:
        super()._open()
        self._goal = sdk.GroupSyncWrite(self._port, self._packets, GOAL_POSITION, 2)
        port = self._port
        sdk_timeout = port.setPacketTimeout

        def packet_timeout(packet_length):
            # The SDK's wait (wire time + 34 ms), widened to the pyserial protocols' 50 ms.
            sdk_timeout(packet_length)
            port.packet_timeout += EXTRA_WAIT_MS

        port.setPacketTimeout = packet_timeout

    # -- one transaction ----------------------------------------------------------------------

    def _transact(self, dxl_id: int, instruction: int, parameters: bytes, data_length: int,
                  what: str) -> Optional[bytes]:
        """One instruction to one servo: its status packet's data, or None if it is silent.

        Raises
        ------
        GarbledReply
            For a bad checksum, a cut-off packet, or a length other than ``data_length + 2``.
        DeviceRefused
            For a refusal bit in the error byte.
        """
        name = self.roll.name(dxl_id)
        packet = [0, 0, dxl_id, len(parameters) + 2, instruction] + list(parameters) + [0]
        try:
            status, _, error = self._call(f'{name}: {what}', self._packets.txRxPacket, packet)
        except ReplyTimeout:
            return None
        if status[3] != data_length + 2:
            raise GarbledReply(f'{name}: {what}: status packet length {status[3]}, expected '
                               f'{data_length + 2} (a short or long reply)')
        if error & sum(1 << bit for bit in REFUSALS):
            raise DeviceRefused(f'{name}: {what}: the servo answered error 0x{error:02x} '
                                f'({describe_bits(error, REFUSALS)})')
        self._errors.extend(
            [f'{name}: status error 0x{error:02x}: {describe_bits(error, HARDWARE_ERRORS)}']
            if error else [])
        self._status_error = error
        return bytes(status[5:5 + data_length])

    def _required(self, dxl_id: int, instruction: int, parameters: bytes, data_length: int,
                  what: str) -> bytes:
        data = self._transact(dxl_id, instruction, parameters, data_length, what)
        if data is None:
            raise ReplyTimeout(f'{self.roll.name(dxl_id)}: {what}: no status packet within '
                               'the timeout')
        return data

    # -- the bus ------------------------------------------------------------------------------

    _errors: List[str] = []

    def _ping(self, servo_id: int) -> bool:
        self._errors = []
        return self._transact(servo_id, PING, b'', 0, 'ping') is not None

    def _positions(self, servo_ids: Sequence[int], errors: List[str],
                   feedback: bool = False) -> Dict[int, int]:
        self._errors = errors
        positions = {}
        length = FEEDBACK_LENGTH if feedback else 2
        for dxl_id in servo_ids:
            data = self._transact(dxl_id, READ, bytes((PRESENT_POSITION, length)), length,
                                  'read of Present Position')
            if data is not None:
                positions[dxl_id] = data[0] | data[1] << 8
                if feedback:
                    self._feedback[dxl_id] = self._feedback_of(data, self._status_error)
        return positions

    def _feedback_of(self, data: bytes, error: int) -> ServoFeedback:
        """Decode Present Load, Voltage and Temperature (the read from Present Position)."""
        at = PRESENT_LOAD - PRESENT_POSITION
        load = sign_magnitude(data[at] | data[at + 1] << 8, LOAD_SIGN_BIT) * LOAD_UNIT
        return feedback_of(load, data[PRESENT_VOLTAGE - PRESENT_POSITION] / 10.0,
                           float(data[PRESENT_TEMPERATURE - PRESENT_POSITION]), error,
                           HARDWARE_ERRORS, STALL_BITS)

    def _take_feedback(self) -> Dict[int, ServoFeedback]:
        found, self._feedback = self._feedback, {}
        return found

    def _check_limits(self, servo) -> None:
        data = self._required(servo.channel, READ, bytes((CW_ANGLE_LIMIT, 4)), 4,
                              'read of the angle limits')
        low, high = data[0] | data[1] << 8, data[2] | data[3] << 8
        name = self.roll.name(servo.channel)
        if low == high == 0:
            raise DeviceRefused(f'{name}: CW and CCW Angle Limit are 0 (wheel mode); set joint '
                                'mode limits, e.g. 0 and 1023, with DYNAMIXEL Wizard')
        lowest, highest = servo.calibration.step_limits
        if lowest < low or highest > high:
            raise DeviceRefused(
                f'{name}: servos.{servo.joint}.output_limits [{lowest}, {highest}] reach beyond '
                f"the servo's angle limits [{low}, {high}]")

    def _prepare(self, positions: Dict[int, int], errors: List[str]) -> None:
        self._errors = errors
        for servo in self.servos:
            if servo.channel in positions:
                self._check_limits(servo)
                speed = moving_speed(servo.max_velocity, servo.calibration.units_per_radian)
                self._required(servo.channel, WRITE,
                               bytes((MOVING_SPEED, speed & 0xFF, speed >> 8)), 0,
                               'write of Moving Speed')
        self._send_goals(positions)
        for dxl_id in positions:
            self._required(dxl_id, WRITE, bytes((TORQUE_ENABLE, 1)), 0,
                           'write of Torque Enable')

    def _send_goals(self, goals: Dict[int, int]) -> None:
        goal = self._goal
        goal.clearParam()
        for dxl_id, value in goals.items():
            goal.addParam(dxl_id, [value & 0xFF, value >> 8])
        self._call('Sync Write of Goal Position', lambda port: goal.txPacket())

    def release(self, torque_off: bool) -> None:
        """With ``torque_off``, clear Torque Enable of every servo in one Sync Write."""
        if torque_off:
            torque = sdk.GroupSyncWrite(self._port, self._packets, TORQUE_ENABLE, 1)
            for dxl_id in self.roll.ids:
                torque.addParam(dxl_id, [0])
            self._call('Sync Write of Torque Enable', lambda port: torque.txPacket())
