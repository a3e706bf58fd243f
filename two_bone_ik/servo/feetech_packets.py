"""Feetech serial bus servo packets, FT-SCS protocol: framing, values, status packets (ROS-free).

No I/O here: bytes in, bytes out. From Feetech's FT-SCS communication protocol manual and the
STS/SMS and SCS memory tables (see ``docs/servo_protocols.md`` for the sources):

- an instruction packet is ``FF FF ID LEN INSTR PARAM... CHK`` with ``LEN`` = number of
  parameters + 2 and ``CHK = ~(ID + LEN + INSTR + PARAM...) & 0xFF``; ID 0xFE is broadcast;
- instructions: PING 0x01, READ 0x02 (address, length), WRITE 0x03 (address, data...),
  SYNC_READ 0x82 (address, length, IDs...; STS/SMS only), SYNC_WRITE 0x83 (address, length,
  then ID and data for each servo; broadcast, no reply);
- a status packet is ``FF FF ID LEN ERR DATA... CHK``, ``LEN`` = data length + 2, the same
  checksum; ``ERR`` has a bit per fault (:data:`STATUS_ERRORS`);
- two-byte values are little-endian on STS/SMS servos and big-endian on SCS servos; on STS/SMS,
  position and speed are sign-magnitude: bit 15 is the sign, bits 0-14 the magnitude.
"""

from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence

from two_bone_ik.servo.controller import GarbledReply

HEADER = b'\xff\xff'
BROADCAST = 0xFE
PING = 0x01
READ = 0x02
WRITE = 0x03
SYNC_READ = 0x82
SYNC_WRITE = 0x83

#: Bytes of a status packet besides its data: header (2), ID, LEN, ERR, CHK.
STATUS_OVERHEAD = 6

#: Bits of a status packet's error byte, as Feetech's SDK and memory tables name them.
STATUS_ERRORS = {
    0: 'voltage out of range', 1: 'angle sensor error', 2: 'overheating',
    3: 'overcurrent', 5: 'overload',
}


class Status(NamedTuple):
    """One status packet.

    Attributes
    ----------
    servo_id : int
    error : int
        The error byte (0: no fault).
    data : bytes
        The data read (empty for a PING or WRITE reply).
    """

    servo_id: int
    error: int
    data: bytes


def checksum(body) -> int:
    """``~sum & 0xFF`` of the bytes from ID to the last parameter."""
    return ~sum(body) & 0xFF


def instruction_packet(servo_id: int, instruction: int, parameters=b'') -> bytes:
    """Frame an instruction: header, ID, length, instruction, parameters, checksum."""
    body = bytes((servo_id, len(parameters) + 2, instruction)) + bytes(parameters)
    if len(body) - 1 > 0xFF:
        raise ValueError(f'{len(parameters)} parameters do not fit in one packet')
    return HEADER + body + bytes((checksum(body),))


def encode_word(value: int, big_endian: bool, sign_bit: Optional[int] = None) -> bytes:
    """Two bytes of ``value``: sign-magnitude with ``sign_bit`` if given, else unsigned.

    Raises
    ------
    ValueError
        If ``value`` does not fit.
    """
    if sign_bit is not None:
        if abs(value) >= 1 << sign_bit:
            raise ValueError(f'{value} does not fit in {sign_bit} bits and a sign')
        word = -value | 1 << sign_bit if value < 0 else value
    else:
        if not 0 <= value <= 0xFFFF:
            raise ValueError(f'{value} is not an unsigned 16-bit value')
        word = value
    return word.to_bytes(2, 'big' if big_endian else 'little')


def decode_word(data: bytes, big_endian: bool, sign_bit: Optional[int] = None) -> int:
    """Inverse of :func:`encode_word` (bits above ``sign_bit`` are ignored)."""
    word = int.from_bytes(data[:2], 'big' if big_endian else 'little')
    if sign_bit is None:
        return word
    magnitude = word & (1 << sign_bit) - 1
    return -magnitude if word >> sign_bit & 1 else magnitude


def ping(servo_id: int) -> bytes:
    """PING one servo; it answers with a status packet without data."""
    return instruction_packet(servo_id, PING)


def read(servo_id: int, address: int, length: int) -> bytes:
    """READ ``length`` bytes from ``address``; the status packet holds them."""
    return instruction_packet(servo_id, READ, bytes((address, length)))


def write(servo_id: int, address: int, data: bytes) -> bytes:
    """WRITE ``data`` at ``address``; the servo answers with a status packet without data."""
    return instruction_packet(servo_id, WRITE, bytes((address,)) + bytes(data))


def sync_read(address: int, length: int, servo_ids: Sequence[int]) -> bytes:
    """SYNC_READ: each servo of ``servo_ids`` answers in turn with ``length`` bytes."""
    return instruction_packet(BROADCAST, SYNC_READ, bytes((address, length)) + bytes(servo_ids))


def sync_write(address: int, length: int, data: Mapping[int, bytes]) -> bytes:
    """SYNC_WRITE ``{servo ID: length bytes}`` at ``address``, broadcast: nobody answers."""
    parameters = bytearray((address, length))
    for servo_id, value in data.items():
        if len(value) != length:
            raise ValueError(f'ID {servo_id}: {len(value)} bytes of data, expected {length}')
        parameters += bytes((servo_id,)) + bytes(value)
    return instruction_packet(BROADCAST, SYNC_WRITE, parameters)


def parse_statuses(reply: bytes, servo_ids: Sequence[int], data_length: int) -> List[Status]:
    """Split ``reply`` into status packets of ``data_length`` bytes each, checked.

    The packets must come from ``servo_ids`` in that order; a servo that did not answer is
    simply absent. Anything else is garbled: a missing header, a length that is not
    ``data_length + 2`` (even with a valid checksum), a bad checksum, an unexpected ID or an
    incomplete packet at the end.

    Raises
    ------
    GarbledReply
        Naming what is wrong.
    """
    statuses = []
    expected = list(servo_ids)
    size = STATUS_OVERHEAD + data_length
    offset = 0
    while offset < len(reply):
        packet = reply[offset:offset + size]
        where = f'status packet {len(statuses) + 1}'
        if packet[:2] != HEADER:
            raise GarbledReply(f'{where}: no FF FF header ({packet[:2].hex(" ")})')
        if len(packet) < 4:
            raise GarbledReply(f'{where}: cut off after {len(packet)} bytes')
        servo_id, length = packet[2], packet[3]
        if length != data_length + 2:
            raise GarbledReply(f'ID {servo_id}: status packet length {length}, expected '
                               f'{data_length + 2} (a short or long reply)')
        if len(packet) < size:
            raise GarbledReply(f'ID {servo_id}: status packet cut off after {len(packet)} of '
                               f'{size} bytes')
        if checksum(packet[2:-1]) != packet[-1]:
            raise GarbledReply(f'ID {servo_id}: status packet checksum 0x{packet[-1]:02x}, '
                               f'expected 0x{checksum(packet[2:-1]):02x}')
        if servo_id not in expected:
            raise GarbledReply(f'status packet from ID {servo_id}, which was not asked (or '
                               'answered twice, or out of turn)')
        del expected[:expected.index(servo_id) + 1]
        statuses.append(Status(servo_id, packet[4], bytes(packet[5:-1])))
        offset += size
    return statuses


def describe_status_error(error: int) -> str:
    """Name the bits set in a status packet's error byte, e.g. ``'overload (bit 5)'``."""
    names = [f'{STATUS_ERRORS.get(bit, "undocumented error")} (bit {bit})'
             for bit in range(8) if error >> bit & 1]
    return ', '.join(names)


def status_errors(statuses: Sequence[Status], joints: Dict[int, str]) -> List[str]:
    """One line per status packet reporting a fault, naming the servo and its joint."""
    return [f'ID {status.servo_id} ({joints.get(status.servo_id, "?")}): status error '
            f'0x{status.error:02x}: {describe_status_error(status.error)}'
            for status in statuses if status.error]
