"""ROBOTIS Dynamixel X-series servos, Protocol 2.0, through ROBOTIS' dynamixel-sdk (ROS-free).

The only module that imports ``dynamixel_sdk``. From the ROBOTIS e-manual (Protocol 2.0 and
the X-series control table):

- goal positions go out in one Sync Write (0x83) of Goal Position (address 116, 4 bytes),
  present positions come back from one Sync Read (0x82) of Present Position (132, 4 bytes):
  one status packet per servo, whose error byte is checked;
- at connect, per servo: Operating Mode (11) must be a position mode (3 position, 4 extended
  position, 5 current-based position); in mode 3 the output limits must lie inside the servo's
  Min/Max Position Limit (52, 48); Profile Acceleration (108) and Profile Velocity (112) are
  written from the joint limits (velocity-based profile, the factory Drive Mode: units of
  214.577 rev/min^2 and 0.229 rev/min, 0 for none); Goal Position is set to Present Position
  and only then Torque Enable (64) is set, so torque comes on without a jump;
- a status packet with the alert bit (0x80) set means a hardware error: Hardware Error Status
  (70) is read and reported; the servo keeps answering;
- once a second (when the link asks for feedback) the Sync Read runs from Present Load /
  Present Current (126, 2 bytes, signed: 0.1 % of the maximum torque on the XL430, a current
  in the model's unit on the XM430: reported raw) through Present Position (132) to Present
  Input Voltage (144, 2 bytes, 0.1 V) and Present Temperature (146, 1 byte, degrees C): 21
  bytes a servo instead of 4, in the same exchange.

Byte stuffing: Protocol 2.0 requires ``FF FF FD`` inside a packet (instruction to last
parameter) to be sent as ``FF FF FD FD``, with the length and CRC over the stuffed packet.
dynamixel-sdk 4.1.0 computes the stuffed packet but sends the unstuffed one (``txPacket``
discards what ``addStuffing`` returns), so a goal position such as -131073 ticks (``FF FF FD
FF``) in extended position mode would go out broken. The driver therefore sends every packet
through :class:`StuffingPortHandler`, which stuffs it and recomputes length and CRC, unless
:func:`sdk_stuffs_packets` finds, by running the installed SDK's ``txPacket`` against a
capturing port, that the SDK already does. Status packets are unstuffed by the SDK itself.
"""

from typing import Dict, List, Sequence

import dynamixel_sdk as sdk

from two_bone_ik.servo.controller import Controller, DeviceRefused, GarbledReply
from two_bone_ik.servo.controller import limited_units, LinkError, Reading, ReplyTimeout
from two_bone_ik.servo.controller import serial_errors
from two_bone_ik.servo.feedback import feedback_of, ServoFeedback

# X-series control table (addresses, bytes).
OPERATING_MODE = 11
MAX_POSITION_LIMIT = 48
MIN_POSITION_LIMIT = 52
TORQUE_ENABLE = 64
HARDWARE_ERROR_STATUS = 70
PROFILE_ACCELERATION = 108
PROFILE_VELOCITY = 112
GOAL_POSITION = 116
PRESENT_LOAD = 126  # Present Current on XM/XH models
PRESENT_POSITION = 132
PRESENT_INPUT_VOLTAGE = 144
PRESENT_TEMPERATURE = 146
#: Bytes from Present Load to Present Temperature: the Sync Read that brings the feedback.
FEEDBACK_LENGTH = PRESENT_TEMPERATURE + 1 - PRESENT_LOAD
#: Hardware Error Status bits that mean the servo is stalled or protecting itself from it.
STALL_BITS = (2, 5)  # overheating, overload

#: Position modes of Operating Mode, by number.
POSITION_MODES = {3: 'position', 4: 'extended position', 5: 'current-based position'}
#: Goal Position range in extended position and current-based position modes.
EXTENDED_RANGE = (-1048575, 1048575)
#: Ticks per revolution (0.088 deg per tick).
TICKS_PER_REVOLUTION = 4096
#: Profile units: rev/min per unit of Profile Velocity, rev/min^2 per unit of acceleration.
VELOCITY_UNIT = 0.229
ACCELERATION_UNIT = 214.577
#: Largest profile value the velocity-based profile takes.
MAX_PROFILE = 32767

#: Error numbers of a status packet's error byte (bits 0-6), as the e-manual names them.
ERROR_NUMBERS = {
    1: 'result fail', 2: 'instruction error', 3: 'CRC error', 4: 'data range error',
    5: 'data length error', 6: 'data limit error', 7: 'access error',
}
ALERT = 0x80
#: Bits of Hardware Error Status.
HARDWARE_ERRORS = {
    0: 'input voltage error', 2: 'overheating error', 3: 'motor encoder error',
    4: 'electrical shock error', 5: 'overload error',
}

_HEADER = (0xFF, 0xFF, 0xFD)
_INSTRUCTION_INDEX = 7


def crc16(data) -> int:
    """CRC-16 of Protocol 2.0 (polynomial 0x8005, initial 0, most significant bit first)."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x8005) if crc & 0x8000 else crc << 1
        crc &= 0xFFFF
    return crc


def stuff_packet(packet) -> bytes:
    """Byte-stuff a complete, unstuffed Protocol 2.0 packet; return it with length and CRC redone.

    Every ``FF FF FD`` from the instruction to the last parameter gets an ``FD`` after it. A
    packet that needs none comes back unchanged.
    """
    packet = bytes(packet)
    body = packet[_INSTRUCTION_INDEX:-2]
    stuffed = bytearray()
    for byte in body:
        stuffed.append(byte)
        if len(stuffed) >= 3 and tuple(stuffed[-3:]) == _HEADER:
            stuffed.append(0xFD)
    if len(stuffed) == len(body):
        return packet
    length = len(stuffed) + 2
    out = bytearray(packet[:5]) + bytes((length & 0xFF, length >> 8)) + stuffed
    crc = crc16(out)
    return bytes(out + bytes((crc & 0xFF, crc >> 8)))


class _CapturingPort:
    """Just enough of a PortHandler for ``txPacket`` to write into."""

    def __init__(self):
        self.is_using = False
        self.written = b''

    def clearPort(self):  # noqa: N802 - the SDK's name
        pass

    def writePort(self, packet):  # noqa: N802 - the SDK's name
        self.written = bytes(packet)
        return len(packet)


def sdk_stuffs_packets() -> bool:
    """Whether the installed dynamixel-sdk byte-stuffs what it sends (4.1.0 does not)."""
    port = _CapturingPort()
    # Write FF FF FD 00 to address 116 of ID 1: the unstuffed packet has 16 bytes.
    packet = [0] * 16
    packet[4], packet[5], packet[6], packet[7] = 1, 9, 0, sdk.INST_WRITE
    packet[8:14] = [GOAL_POSITION, 0, 0xFF, 0xFF, 0xFD, 0x00]
    sdk.Protocol2PacketHandler().txPacket(port, packet)
    return len(port.written) == 17


class StuffingPortHandler(sdk.PortHandler):
    """dynamixel-sdk's PortHandler that byte-stuffs each packet it writes, if asked to.

    Reads wait up to :attr:`READ_SLICE` for bytes instead of spinning (the SDK opens the port
    with a zero timeout and polls until its own packet timeout, 34 ms and more).

    Parameters
    ----------
    port_name : str
    stuff : bool
        Stuff outgoing packets (when the SDK does not).
    """

    READ_SLICE = 0.002

    def __init__(self, port_name: str, stuff: bool):
        super().__init__(port_name)
        self.stuff = stuff

    def setupPort(self, cflag_baud):  # noqa: N802 - the SDK's name
        """Open the port as the SDK does, then let reads wait a little for bytes."""
        done = super().setupPort(cflag_baud)
        self.ser.timeout = self.READ_SLICE
        return done

    def writePort(self, packet):  # noqa: N802 - the SDK's name
        """Write ``packet`` stuffed; report the unstuffed length the SDK checks against."""
        data = stuff_packet(packet) if self.stuff else bytes(packet)
        written = self.ser.write(data)
        return len(packet) if written == len(data) else written


def describe_error(error: int) -> str:
    """Name the error number of a status packet's error byte (alert bit aside)."""
    number = error & ~ALERT
    return f'error {number} ({ERROR_NUMBERS.get(number, "unknown error")})'


def describe_hardware_error(status: int) -> str:
    """Name the bits set in Hardware Error Status."""
    names = [name for bit, name in HARDWARE_ERRORS.items() if status >> bit & 1]
    return ', '.join(names) or 'no bit set'


def to_signed32(value: int) -> int:
    """Interpret a 4-byte register value as a signed 32-bit integer."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def le32(value: int) -> List[int]:
    """Return a signed 32-bit value as 4 bytes, least significant first."""
    value &= 0xFFFFFFFF
    return [(value >> shift) & 0xFF for shift in (0, 8, 16, 24)]


def profile_velocity(max_velocity: float, ticks_per_radian: float) -> int:
    """Profile Velocity for a joint speed limit in rad/s (0: none)."""
    rev_per_min = max_velocity * ticks_per_radian * 60.0 / TICKS_PER_REVOLUTION
    return limited_units(rev_per_min / VELOCITY_UNIT, MAX_PROFILE)


def profile_acceleration(max_acceleration: float, ticks_per_radian: float) -> int:
    """Profile Acceleration for a joint acceleration limit in rad/s^2 (0: none)."""
    rev_per_min2 = max_acceleration * ticks_per_radian * 3600.0 / TICKS_PER_REVOLUTION
    return limited_units(rev_per_min2 / ACCELERATION_UNIT, MAX_PROFILE)


def feedback_of_x(data: bytes, hardware_error: int) -> ServoFeedback:
    """Decode an X-series servo's Sync Read from Present Load to Present Temperature."""
    load = int.from_bytes(data[:2], 'little', signed=True)
    at = PRESENT_INPUT_VOLTAGE - PRESENT_LOAD
    voltage = (data[at] | data[at + 1] << 8) / 10.0
    temperature = float(data[PRESENT_TEMPERATURE - PRESENT_LOAD])
    return feedback_of(None, voltage, temperature, hardware_error, HARDWARE_ERRORS, STALL_BITS,
                       (('load_or_current_raw', str(load)),))


class DynamixelController(Controller):
    """Dynamixel X-series servos (IDs = channels) on a U2D2 or similar, Protocol 2.0."""

    PROTOCOL = 'dynamixel'
    DEFAULT_BAUD_RATE = 57600
    RESOLUTION = 1.0
    DEVICE_RANGE = (float(EXTENDED_RANGE[0]), float(EXTENDED_RANGE[1]))
    CHANNELS = (0, 252)
    UNITS = 'ticks'
    CHANNEL_NAME = 'motor ID'
    MODEL_RESOLUTION = TICKS_PER_REVOLUTION
    DRIVE_MODE_IN_SERVO = True
    FEEDBACK = ('present load (or current, by model; raw), input voltage, temperature and '
                'Hardware Error Status, once a second')

    def __init__(self, port: str, baud_rate: int, servos: Sequence):
        super().__init__(port, baud_rate, servos)
        self._ids = [servo.channel for servo in self.servos]
        self._packets = sdk.Protocol2PacketHandler()
        self._stuff = not sdk_stuffs_packets()
        self._port = None
        self._goal = None

    # -- port ---------------------------------------------------------------------------------

    def _open(self) -> None:
        port = StuffingPortHandler(self.port, self._stuff)
        try:
            opened = port.setBaudRate(self.baud_rate)  # opens the port at that rate
        except serial_errors() as error:
            raise LinkError(f'cannot open {self.port}: {error}') from None
        if not opened:
            raise LinkError(f'{self.port}: dynamixel-sdk does not support {self.baud_rate} baud')
        self._port = port
        self._goal = sdk.GroupSyncWrite(port, self._packets, GOAL_POSITION, 4)

    def _close(self) -> None:
        self._port.closePort()

    # -- one transaction ----------------------------------------------------------------------

    def _call(self, what: str, function, *args):
        """Run one SDK transaction; LinkError for a port failure or a communication result."""
        try:
            answer = function(self._port, *args)
        except serial_errors() as error:
            raise LinkError(f'{self.port}: {error}') from None
        result = answer if isinstance(answer, int) else answer[1]
        if result == sdk.COMM_RX_TIMEOUT:
            raise ReplyTimeout(f'{what}: no status packet within the timeout')
        if result == sdk.COMM_RX_CORRUPT:
            raise GarbledReply(f'{what}: garbled or short status packet (bad CRC or header)')
        if result != sdk.COMM_SUCCESS:
            raise LinkError(f'{what}: {self._packets.getTxRxResult(result)}')
        return answer

    def _checked(self, dxl_id: int, what: str, error: int, alerts: List[str]) -> int:
        """Raise DeviceRefused for an error number; note a hardware alert in ``alerts``.

        Returns the Hardware Error Status read for an alert (0 without one).
        """
        if error & ~ALERT:
            raise DeviceRefused(f'ID {dxl_id}: {what}: the servo answered '
                                f'{describe_error(error)}')
        if not error & ALERT:
            return 0
        status, _, _ = self._call(f'ID {dxl_id}: read Hardware Error Status',
                                  self._packets.read1ByteTxRx, dxl_id, HARDWARE_ERROR_STATUS)
        alerts.append(f'ID {dxl_id}: hardware error status 0x{status:02x} '
                      f'({describe_hardware_error(status)}); reboot the servo to clear it')
        return status

    def _read_register(self, dxl_id: int, address: int, size: int, what: str,
                       alerts: List[str]) -> int:
        function = {1: self._packets.read1ByteTxRx, 4: self._packets.read4ByteTxRx}[size]
        value, _, error = self._call(f'ID {dxl_id}: read {what}', function, dxl_id, address)
        self._checked(dxl_id, f'read {what}', error, alerts)
        return value

    def _write_register(self, dxl_id: int, address: int, size: int, value: int, what: str,
                        alerts: List[str]) -> None:
        function = {1: self._packets.write1ByteTxRx, 4: self._packets.write4ByteTxRx}[size]
        _, error = self._call(f'ID {dxl_id}: write {what}', function, dxl_id, address, value)
        self._checked(dxl_id, f'write {what}', error, alerts)

    # -- the controller -----------------------------------------------------------------------

    def _check_mode(self, servo, alerts: List[str]) -> None:
        dxl_id = servo.channel
        mode = self._read_register(dxl_id, OPERATING_MODE, 1, 'Operating Mode', alerts)
        if mode not in POSITION_MODES:
            raise DeviceRefused(
                f'ID {dxl_id}: Operating Mode is {mode}, not a position mode; set 3 (position), '
                '4 (extended position) or 5 (current-based position), e.g. with DYNAMIXEL '
                'Wizard')
        low, high = servo.calibration.step_limits
        if mode == 3:
            device = (to_signed32(self._read_register(dxl_id, MIN_POSITION_LIMIT, 4,
                                                      'Min Position Limit', alerts)),
                      to_signed32(self._read_register(dxl_id, MAX_POSITION_LIMIT, 4,
                                                      'Max Position Limit', alerts)))
        else:
            device = EXTENDED_RANGE
        if low < device[0] or high > device[1]:
            raise DeviceRefused(
                f'ID {dxl_id}: servos.{servo.joint}.output_limits [{low}, {high}] reach beyond '
                f'what the servo takes in {POSITION_MODES[mode]} mode, [{device[0]}, '
                f'{device[1]}]')

    def setup(self) -> Reading:
        """Check each servo's mode and limits, set its profile, hold where it is, torque on."""
        alerts: List[str] = []
        for servo in self.servos:
            self._check_mode(servo, alerts)
        reading = self.read()
        for servo in self.servos:
            scale = servo.calibration.units_per_radian
            self._write_register(servo.channel, PROFILE_ACCELERATION, 4,
                                 profile_acceleration(servo.max_acceleration, scale),
                                 'Profile Acceleration', alerts)
            self._write_register(servo.channel, PROFILE_VELOCITY, 4,
                                 profile_velocity(servo.max_velocity, scale),
                                 'Profile Velocity', alerts)
        self.write(reading.steps)
        for servo in self.servos:
            self._write_register(servo.channel, TORQUE_ENABLE, 1, 1, 'Torque Enable', alerts)
        return Reading(reading.steps, reading.errors + tuple(alerts))

    def write(self, steps: Dict[int, int]) -> None:
        """Send all goal positions in one Sync Write."""
        goal = self._goal
        goal.clearParam()
        for dxl_id, value in steps.items():
            goal.addParam(dxl_id, le32(value))
        self._call('Sync Write of Goal Position', lambda port: goal.txPacket())

    def read(self, feedback: bool = False) -> Reading:
        """Read every Present Position in one Sync Read; check each status packet.

        With ``feedback`` the Sync Read runs from Present Load to Present Temperature.
        """
        alerts: List[str] = []
        packets = self._packets
        start, length = (PRESENT_LOAD, FEEDBACK_LENGTH) if feedback else (PRESENT_POSITION, 4)
        self._call('Sync Read of Present Position', packets.syncReadTx, start, length,
                   self._ids, len(self._ids), False)
        steps, found = {}, {}
        for dxl_id in self._ids:
            data, _, error = self._call(f'ID {dxl_id}: Sync Read of Present Position',
                                        packets.readRx, dxl_id, length)
            hardware = self._checked(dxl_id, 'Sync Read of Present Position', error, alerts)
            if len(data) != length:
                raise GarbledReply(f'ID {dxl_id}: {len(data)} bytes of the Sync Read, not '
                                   f'{length}')
            at = PRESENT_POSITION - start
            steps[dxl_id] = to_signed32(int.from_bytes(bytes(data[at:at + 4]), 'little'))
            if feedback:
                found[dxl_id] = feedback_of_x(bytes(data), hardware)
        return Reading(steps, tuple(alerts), found if feedback else None)

    def release(self, torque_off: bool) -> None:
        """With ``torque_off``, clear Torque Enable of every servo; else leave them holding."""
        if torque_off:
            for servo in self.servos:
                self._write_register(servo.channel, TORQUE_ENABLE, 1, 0, 'Torque Enable', [])
