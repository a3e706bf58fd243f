"""Serial bus servos emulated byte for byte on pseudo-terminals: Feetech and Dynamixel 1.0.

Written from the vendors' published protocols, not from the driver (sources in
``docs/servo_protocols.md``), on :class:`servo_emulators.PtyDevice`:

- :class:`FeetechEmulator`: Feetech's FT-SCS protocol (``FF FF ID LEN INSTR PARAMS CHK``,
  ``CHK = ~sum``) with PING, READ, WRITE, SYNC_READ (STS/SMS only) and SYNC_WRITE, the memory
  table entries the driver uses (Operating Mode 33, Torque Enable 40, Acceleration 41, Goal
  Position 42, Goal Speed 46, Present Position 56, Present Load 60, Present Voltage 62,
  Present Temperature 63), STS/SMS little-endian sign-magnitude values or SCS big-endian
  unsigned ones (Present Load sign-magnitude at bit 10 on both); a READ or SYNC_READ of any
  address and length answers those table bytes; a packet with a bad checksum is ignored;
- :class:`Dynamixel1Emulator`: ROBOTIS Protocol 1.0 (the same framing; no SYNC_READ) with the
  AX-12A control table (CW/CCW Angle Limit 6/8, Torque Enable 24, Goal Position 30, Moving
  Speed 32, Present Position 36, Present Load 40, Present Voltage 42, Present Temperature 43)
  and the status error bits (a bad checksum is answered with
  the checksum error bit, a goal beyond the angle limits with the angle limit error bit).

Both serve several servos on one bus (control tables as
:class:`servo_emulators.ServoTables` keeps them); test hooks: :attr:`BusEmulator.silent` (IDs
that never answer), :attr:`BusEmulator.error_bits` (``{ID: bits}`` set in every status packet
of that servo, e.g. overload), plus those of :class:`~servo_emulators.PtyDevice`
(``answering``, ``garble_next``, ``send_noise``, ``unplug``/``replug``). :func:`short_reply`
turns a reply into one whose first status packet lacks its last data byte but has a valid
checksum.
"""

from typing import Dict, List, Optional, Set, Tuple

from servo_emulators import ServoTables

BROADCAST = 0xFE


def checksum(body) -> int:
    """``~(ID + LEN + INSTR/ERR + PARAMS) & 0xFF``."""
    return ~sum(body) & 0xFF


def packet(servo_id: int, code: int, parameters: bytes = b'') -> bytes:
    """Frame an instruction (``code`` = instruction) or a reply (``code`` = error byte)."""
    body = bytes((servo_id, len(parameters) + 2, code)) + bytes(parameters)
    return b'\xff\xff' + body + bytes((checksum(body),))


def short_reply(reply: bytes) -> bytes:
    """Return the first status packet of ``reply`` one data byte short, checksum valid."""
    length = reply[3]
    body = bytes((reply[2], length - 1)) + reply[4:4 + length - 2]
    return b'\xff\xff' + body + bytes((checksum(body),))


class BusEmulator(ServoTables):
    """Servos sharing one bus with ``FF FF ID LEN ...`` framing and a one-byte checksum.

    Subclasses set :attr:`ENTRIES`, :attr:`BIG_ENDIAN`, :attr:`SIGN_BIT`,
    :attr:`HAS_SYNC_READ` and :attr:`ANSWER_BAD_CHECKSUM`, and may override :meth:`_write`.
    Parameters as :class:`~servo_emulators.ServoTables` (each servo starts torque off).

    Attributes
    ----------
    packets : list of tuple
        ``(ID, instruction, parameters)`` of every instruction packet with a valid checksum.
    dropped : int
        Packets with a bad checksum.
    silent : set of int
        IDs that never answer (as if unpowered): they also ignore writes.
    error_bits : dict
        ``{ID: bits}`` set in the error byte of that servo's status packets.
    """

    BIG_ENDIAN = False
    SIGN_BIT: Optional[int] = None
    HAS_SYNC_READ = False
    ANSWER_BAD_CHECKSUM = False
    CHECKSUM_ERROR = 0x10
    TABLE_SIZE = 90

    def __init__(self, path, positions: Dict[int, int]):
        self.silent: Set[int] = set()
        self.error_bits: Dict[int, int] = {}
        super().__init__(path, positions)

    # -- the table: one-byte entries, and two-byte ones in the series' order and sign ---------

    def _encode(self, value: int, size: int) -> bytes:
        if size == 1:
            return bytes((value & 0xFF,))
        if self.SIGN_BIT is not None and value < 0:
            value = -value | 1 << self.SIGN_BIT
        return (value & 0xFFFF).to_bytes(2, 'big' if self.BIG_ENDIAN else 'little')

    def _decode(self, data: bytes) -> int:
        if len(data) == 1:
            return data[0]
        value = int.from_bytes(data, 'big' if self.BIG_ENDIAN else 'little')
        if self.SIGN_BIT is not None and value >> self.SIGN_BIT & 1:
            return -(value & (1 << self.SIGN_BIT) - 1)
        return value

    # -- packets ------------------------------------------------------------------------------

    def _next_frame(self) -> Optional[bytes]:
        return self._cut_frame(b'\xff\xff', 4, lambda head: head[3] + 4)

    def _status(self, servo_id: int, error: int = 0, data: bytes = b'') -> bytes:
        if servo_id in self.silent:
            return b''
        return packet(servo_id, error | self.error_bits.get(servo_id, 0), data)

    def _handle(self, frame: bytes) -> bytes:
        servo_id, instruction, parameters = frame[2], frame[4], frame[5:-1]
        if checksum(frame[2:-1]) != frame[-1]:
            self.dropped += 1
            if self.ANSWER_BAD_CHECKSUM and servo_id in self.tables:
                return self._status(servo_id, self.CHECKSUM_ERROR)
            return b''
        self.packets.append((servo_id, instruction, parameters))
        if servo_id == BROADCAST:
            if instruction == 0x83:
                self._sync_write(parameters)
            elif instruction == 0x82 and self.HAS_SYNC_READ:
                return self._sync_read(parameters)
            return b''
        if servo_id not in self.tables or servo_id in self.silent:
            return b''
        if instruction == 0x01 and not parameters:
            return self._status(servo_id)
        if instruction == 0x02 and len(parameters) == 2:
            return self._status(servo_id, 0, self.table_bytes(servo_id, *parameters))
        if instruction == 0x03 and len(parameters) >= 2:
            return self._status(servo_id, self._write(servo_id, parameters[0], parameters[1:]))
        return self._status(servo_id, self.INSTRUCTION_ERROR)

    INSTRUCTION_ERROR = 0x40

    def _write(self, servo_id: int, address: int, data: bytes) -> int:
        """Write ``data`` at ``address``; return the error bits to answer with."""
        if servo_id in self.silent:
            return 0   # unpowered: nobody hears it, nobody answers
        self.tables[servo_id][address:address + len(data)] = data
        goal_address = self.ENTRIES['goal'][0]
        if address <= goal_address < address + len(data) and self.get(servo_id, 'torque'):
            self._set(servo_id, 'present', self.get(servo_id, 'goal'))  # an ideal servo
        return 0

    def _sync_write(self, parameters: bytes) -> None:
        self._sync_write_entries(parameters[0], parameters[1], parameters[2:])

    def _sync_read(self, parameters: bytes) -> bytes:
        return self._sync_read_reply(parameters[0], parameters[1], parameters[2:])

    def sync_writes(self, address: int) -> List[Dict[int, int]]:
        """Return the values of each SYNC_WRITE to ``address``, as ``{ID: value}``."""
        return [{servo_id: self._decode(value)
                 for servo_id, value in self.sync_entries(parameters[2:], parameters[1])}
                for _, parameters in self.instructions(0x83) if parameters[0] == address]

    def writes(self, address: int) -> List[Tuple[int, bytes]]:
        """``(ID, data)`` of each single-servo WRITE to ``address``."""
        return [(i, p[1:]) for i, p in self.instructions(0x03) if p[0] == address]


class FeetechEmulator(BusEmulator):
    """Feetech STS/SMS (``series='sts'``, e.g. STS3215) or SCS servos on one bus."""

    ENTRIES = {'mode': (33, 1), 'torque': (40, 1), 'acceleration': (41, 1), 'goal': (42, 2),
               'speed': (46, 2), 'present': (56, 2), 'load': (60, 2), 'voltage': (62, 1),
               'temperature': (63, 1)}
    OVERLOAD = 0x20
    OVERHEATING = 0x04
    #: Present Load's direction bit (both series).
    LOAD_SIGN_BIT = 10

    def put_load(self, servo_id: int, tenths_of_percent: int) -> None:
        """Set Present Load, 0.1 % units, negative: the direction bit (10) set."""
        raw = abs(tenths_of_percent) | (1 << self.LOAD_SIGN_BIT if tenths_of_percent < 0 else 0)
        address = self.ENTRIES['load'][0]
        self.tables[servo_id][address:address + 2] = raw.to_bytes(
            2, 'big' if self.BIG_ENDIAN else 'little')

    def __init__(self, path, positions: Dict[int, int], series: str = 'sts'):
        scs = series == 'scs'
        self.BIG_ENDIAN = scs
        self.SIGN_BIT = None if scs else 15
        self.HAS_SYNC_READ = not scs
        super().__init__(path, positions)


class Dynamixel1Emulator(BusEmulator):
    """ROBOTIS AX-12A servos on one Protocol 1.0 bus (0-1023 over 300 degrees)."""

    ENTRIES = {'model': (0, 2), 'cw_limit': (6, 2), 'ccw_limit': (8, 2), 'torque': (24, 1),
               'goal': (30, 2), 'speed': (32, 2), 'present': (36, 2), 'load': (40, 2),
               'voltage': (42, 1), 'temperature': (43, 1)}
    ANSWER_BAD_CHECKSUM = True
    TABLE_SIZE = 50
    MODEL_NUMBER = 12
    ANGLE_LIMIT_ERROR = 0x02
    OVERLOAD = 0x20
    OVERHEATING = 0x04

    def _initialise(self) -> None:
        for servo_id in self.tables:
            self._set(servo_id, 'model', self.MODEL_NUMBER)
            self._set(servo_id, 'cw_limit', 0)
            self._set(servo_id, 'ccw_limit', 1023)

    def _write(self, servo_id: int, address: int, data: bytes) -> int:
        goal_address = self.ENTRIES['goal'][0]
        if address == goal_address and len(data) >= 2:
            goal = self._decode(data[:2])
            if not self.get(servo_id, 'cw_limit') <= goal <= self.get(servo_id, 'ccw_limit'):
                return self.ANGLE_LIMIT_ERROR  # not taken
        return super()._write(servo_id, address, data)


def replug_after_a_dropped_command(device, link) -> None:
    """Unplug ``device``, check ``link`` goes down and drops a command, replug, reconnect.

    The link must have been opened by :func:`servo_emulators.open_link` (its clock is moved).
    """
    device.unplug()
    assert link.poll() is None and not link.connected
    assert link.command({0: 0.3}) == (False, ())
    device.replug()
    link._clock.advance(link.reconnect_period)
    assert link.poll() is not None
    assert link.status().reconnects == 1
