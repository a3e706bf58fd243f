"""Serial servo controllers emulated byte for byte on pseudo-terminals, for the driver's tests.

Each emulator serves one pseudo-terminal (``os.openpty``, slave in raw mode) through a stable
symlink, the way udev's ``/dev/serial/by-id`` links name a USB adapter, so the driver opens a
real device path with pyserial (and dynamixel-sdk) and talks to it as to the hardware. Written
from the vendors' published documentation, not from the driver:

- :class:`MaestroEmulator`: Pololu Maestro user's guide, "Serial Servo Commands", compact
  protocol (Set Target, Set Speed, Set Acceleration, Get Position, Get Errors), with its
  serial protocol error bit for a malformed command;
- :class:`Ssc32uEmulator`: Lynxmotion SSC-32U user guide (group moves ``#<ch>P<pw>S<spd>...
  T<time><cr>``, ``#<ch>L``, ``QP<ch><cr>`` answered with one byte, the pulse width / 10,
  ``Q<cr>`` answered ``.``: the move is complete);
- :class:`DynamixelEmulator`: ROBOTIS e-manual, Protocol 2.0 (header, CRC-16, byte stuffing
  both ways, status packets and their error byte) and the X-series control table (Operating
  Mode, position limits, Torque Enable, Hardware Error Status, profiles, goal and present
  position) for Ping, Read, Write, Sync Read and Sync Write.

What an emulator cannot show: timing on a real wire (a pty moves bytes at once, whatever the
baud rate), a servo's motion, electrical faults. Test hooks: :attr:`PtyDevice.answering`
(False: read everything, answer nothing), :meth:`PtyDevice.garble_next` (replace the next
reply), :meth:`PtyDevice.send_noise` (bytes out of turn, as line noise), :meth:`PtyDevice.unplug`
/ :meth:`PtyDevice.replug` (close the pty / serve a new one under the same path).
"""

import fcntl
import math
import os
from pathlib import Path
import queue
import re
import select
import struct
import termios
import threading
import time
import tty
from typing import Callable, Dict, List, Optional, Tuple

from two_bone_ik.servo.controller import Controller, LinkError, PortMissingError, Reading
from two_bone_ik.servo.controller import ReplyTimeout


#: Seconds a driver waits for an emulator's reply (see :func:`open_link`).
EMULATOR_REPLY_WAIT = 0.5


class PtyDevice:
    """A device on a pseudo-terminal reached through ``path`` (a symlink to the slave).

    Subclasses implement :meth:`feed`: bytes in, reply bytes out. Use as a context manager.
    """

    def __init__(self, path):
        self.path = Path(path)
        self.received = bytearray()  # every byte the driver sent, in order
        self.answering = True
        self._garble: List[Callable[[bytes], bytes]] = []
        self._lock = threading.RLock()
        self._tasks: 'queue.Queue' = queue.Queue()
        self._stop = threading.Event()
        self._master = self._slave = None
        self.chunk_time = 0.0
        self._serve()
        self._thread = threading.Thread(target=self._run, name=type(self).__name__, daemon=True)
        self._thread.start()

    # -- the pty ------------------------------------------------------------------------------

    def _serve(self) -> None:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no line discipline: bytes pass as they are
        if self.path.is_symlink() or self.path.exists():
            self.path.unlink()
        self.path.symlink_to(os.ttyname(self._slave))

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        if self.path.is_symlink():
            self.path.unlink()

    def _in_thread(self, task: Callable[[], None]) -> None:
        """Run ``task`` in the device's thread (which owns the fds) and wait for it."""
        done = threading.Event()
        self._tasks.put((task, done))
        if not done.wait(10.0):
            raise AssertionError(f'{type(self).__name__}: its thread did not run a task')

    def unplug(self) -> None:
        """Close the pty (the driver's reads and writes now fail) and remove the path."""
        self._in_thread(self._close_pty)

    def replug(self) -> None:
        """Serve a new pty under the same path, the device state kept (as after a USB replug)."""
        self._in_thread(self._serve)

    def _run(self) -> None:
        while not self._stop.is_set():
            while not self._tasks.empty():
                task, done = self._tasks.get()
                task()
                done.set()
            master = self._master
            if master is None:
                time.sleep(0.005)
                continue
            ready, _, _ = select.select([master], [], [], 0.005)
            if not ready:
                continue
            try:
                data = os.read(master, 4096)
            except OSError:
                continue
            self.chunk_time = time.monotonic()  # when the bytes being fed arrived
            with self._lock:
                self.received += data
                reply = self.feed(data)
                if reply and self.answering and self._garble:
                    reply = self._garble.pop(0)(reply)
            if reply and self.answering:
                os.write(master, reply)

    def close(self) -> None:
        """Stop the thread and close the pty."""
        self._stop.set()
        self._thread.join(5.0)
        self._close_pty()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- for tests ----------------------------------------------------------------------------

    def garble_next(self, change: Callable[[bytes], bytes]) -> None:
        """Send ``change(reply)`` instead of the next reply."""
        with self._lock:
            self._garble.append(change)

    def send_noise(self, data: bytes) -> None:
        """Send ``data`` to the driver, answering nothing (line noise between replies).

        Returns once the bytes wait in the driver's input queue (a pty delivers them
        asynchronously), so its next read finds them there.
        """
        self._in_thread(lambda: os.write(self._master, data))
        deadline = time.monotonic() + 10.0
        while self.pending_input() < len(data):
            if time.monotonic() > deadline:
                raise AssertionError(f'{type(self).__name__}: the noise did not arrive')
            time.sleep(0.001)

    def pending_input(self) -> int:
        """Bytes waiting to be read on the driver's side of the pty."""
        return struct.unpack('i', fcntl.ioctl(self._slave, termios.FIONREAD, b'\0' * 4))[0]

    def take_received(self) -> bytes:
        """Return the bytes received so far and forget them."""
        with self._lock:
            data = bytes(self.received)
            self.received.clear()
            return data

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0,
                 what: str = 'condition'):
        """Poll ``predicate`` (under the device lock) until it holds; AssertionError if not."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f'{type(self).__name__}: timed out waiting for {what}')
            time.sleep(0.005)

    def feed(self, data: bytes) -> bytes:
        raise NotImplementedError


class ServoTables(PtyDevice):
    """Servos sharing one bus, each with its control table: what the bus emulators share.

    Subclasses set :attr:`ENTRIES` and :attr:`TABLE_SIZE`, implement ``_next_frame()`` (cut
    the next instruction packet from the input, see :meth:`_cut_frame`), ``_handle(packet)``
    (the reply to it), ``_status(ID, error, data)`` (a status packet of their protocol) and
    ``_write(ID, address, data)`` (returning the error to answer with), and encode values as
    their protocol does (:meth:`_encode`, :meth:`_decode`; by default little-endian, 4-byte
    entries signed).

    Parameters
    ----------
    path
        Where the pty is served.
    positions : dict
        ``{ID: Present Position}``; each ID is one servo on the bus, its goal there too.

    Attributes
    ----------
    tables : dict
        ``{ID: bytearray}``, the control tables.
    packets : list of tuple
        ``(ID, instruction, parameters)`` of every instruction packet accepted.
    dropped : int
        Packets dropped (bad checksum, broken framing).
    """

    #: name -> (address, size) of the table entries kept.
    ENTRIES: Dict[str, Tuple[int, int]] = {}
    TABLE_SIZE = 0

    def __init__(self, path, positions: Dict[int, int]):
        self.tables = {servo_id: bytearray(self.TABLE_SIZE) for servo_id in positions}
        self._initialise()
        for servo_id, position in positions.items():
            self._set(servo_id, 'present', position)
            self._set(servo_id, 'goal', position)
        self.packets: List[Tuple[int, int, bytes]] = []
        self.dropped = 0
        self._buffer = bytearray()
        super().__init__(path)

    def _initialise(self) -> None:
        """Set a subclass's table defaults (the tables exist, the positions come after)."""

    # -- the tables ---------------------------------------------------------------------------

    def _encode(self, value: int, size: int) -> bytes:
        return (value & (1 << 8 * size) - 1).to_bytes(size, 'little')

    def _decode(self, data: bytes) -> int:
        return int.from_bytes(data, 'little', signed=len(data) == 4)

    def _set(self, servo_id: int, entry: str, value: int) -> None:
        address, size = self.ENTRIES[entry]
        self.tables[servo_id][address:address + size] = self._encode(value, size)

    def get(self, servo_id: int, entry: str) -> int:
        """Return a table entry of one servo, decoded as the protocol does."""
        address, size = self.ENTRIES[entry]
        return self._decode(bytes(self.tables[servo_id][address:address + size]))

    def put(self, servo_id: int, entry: str, value: int) -> None:
        """Set a table entry (test hook: a moved servo, another mode, a hardware error...)."""
        with self._lock:
            self._set(servo_id, entry, value)

    def table_bytes(self, servo_id: int, address: int, size: int) -> bytes:
        """``size`` bytes of one servo's table from ``address`` (what a read answers)."""
        return bytes(self.tables[servo_id][address:address + size])

    # -- packets ------------------------------------------------------------------------------

    def feed(self, data: bytes) -> bytes:
        self._buffer += data
        reply = bytearray()
        while True:
            packet = self._next_frame()
            if packet is None:
                return bytes(reply)
            reply += self._handle(packet)

    def _cut_frame(self, header: bytes, head_size: int,
                   frame_size: Callable[[bytearray], int]) -> Optional[bytes]:
        """Cut the next frame from the input; None until it is complete.

        Bytes before ``header`` are dropped; once ``head_size`` bytes are there,
        ``frame_size(input)`` bytes are the frame.
        """
        start = self._buffer.find(header)
        if start < 0:
            del self._buffer[:max(0, len(self._buffer) - len(header) + 1)]
            return None
        del self._buffer[:start]
        if len(self._buffer) < head_size:
            return None
        size = frame_size(self._buffer)
        if len(self._buffer) < size:
            return None
        frame = bytes(self._buffer[:size])
        del self._buffer[:size]
        return frame

    def _next_frame(self) -> Optional[bytes]:
        raise NotImplementedError

    def _handle(self, packet: bytes) -> bytes:
        raise NotImplementedError

    # -- sync instructions --------------------------------------------------------------------

    @staticmethod
    def sync_entries(data: bytes, size: int) -> List[Tuple[int, bytes]]:
        """Split a sync write's data into ``(ID, value bytes)``, ``size`` bytes each."""
        return [(data[offset], bytes(data[offset + 1:offset + 1 + size]))
                for offset in range(0, len(data) - size, size + 1)]

    def _sync_write_entries(self, address: int, size: int, data: bytes) -> None:
        """Carry out a sync write: each servo on the bus writes its part at ``address``."""
        for servo_id, value in self.sync_entries(data, size):
            if servo_id in self.tables:
                self._write(servo_id, address, value)

    def _sync_read_reply(self, address: int, size: int, servo_ids) -> bytes:
        """Answer a sync read: the status packet of each servo on the bus in turn."""
        return b''.join(self._status(servo_id, 0, self.table_bytes(servo_id, address, size))
                        for servo_id in servo_ids if servo_id in self.tables)

    def instructions(self, instruction: int) -> List[Tuple[int, bytes]]:
        """``(ID, parameters)`` of every packet received with ``instruction``."""
        with self._lock:
            return [(i, p) for i, ins, p in self.packets if ins == instruction]

    def _status(self, servo_id: int, error: int = 0, data: bytes = b'') -> bytes:
        raise NotImplementedError

    def _write(self, servo_id: int, address: int, data: bytes) -> int:
        raise NotImplementedError


class MaestroEmulator(PtyDevice):
    """A Pololu Maestro on its command port, compact protocol (CRC disabled).

    Attributes
    ----------
    targets : dict
        ``{channel: target in quarter-µs}``; 0 (no pulses) for channels never set.
    speeds, accelerations : dict
        The Set Speed / Set Acceleration values received.
    commands : list of tuple
        Every command decoded, e.g. ``('target', 0, 6000)``, ``('position', 0)``, ``('errors',)``.
    error_bits : int
        Pending error bits; Get Errors returns and clears them.
    """

    #: Command byte -> (name, data bytes that follow).
    COMMANDS = {0x84: ('target', 3), 0x87: ('speed', 3), 0x89: ('acceleration', 3),
                0x90: ('position', 1), 0xA1: ('errors', 0)}
    PROTOCOL_ERROR = 1 << 4

    def __init__(self, path, channels: int = 6, targets: Optional[Dict[int, int]] = None):
        self.channels = channels
        self.targets = dict.fromkeys(range(channels), 0)
        self.targets.update(targets or {})
        self.speeds: Dict[int, int] = {}
        self.accelerations: Dict[int, int] = {}
        self.commands: List[tuple] = []
        self.error_bits = 0
        self._pending = bytearray()
        super().__init__(path)

    def feed(self, data: bytes) -> bytes:
        reply = bytearray()
        for byte in data:
            if byte & 0x80:
                if self._pending:  # a command byte before the last command had all its data
                    self.error_bits |= self.PROTOCOL_ERROR
                self._pending = bytearray((byte,))
                if byte not in self.COMMANDS:
                    self.error_bits |= self.PROTOCOL_ERROR
                    self._pending.clear()
                    continue
            elif not self._pending:
                self.error_bits |= self.PROTOCOL_ERROR  # a data byte without a command
                continue
            else:
                self._pending.append(byte)
            name, count = self.COMMANDS[self._pending[0]]
            if len(self._pending) == count + 1:
                reply += self._execute(name, bytes(self._pending[1:]))
                self._pending.clear()
        return bytes(reply)

    def _execute(self, name: str, data: bytes) -> bytes:
        if name == 'errors':
            self.commands.append(('errors',))
            bits, self.error_bits = self.error_bits, 0
            return bytes((bits & 0xFF, bits >> 8))
        channel = data[0]
        if channel >= self.channels:
            self.error_bits |= self.PROTOCOL_ERROR
            return b''
        if name == 'position':
            self.commands.append(('position', channel))
            value = self.targets[channel]
            return bytes((value & 0xFF, value >> 8))
        value = data[1] | (data[2] << 7)
        self.commands.append((name, channel, value))
        if name == 'target':
            self.targets[channel] = value
        elif name == 'speed':
            self.speeds[channel] = value
        else:
            self.accelerations[channel] = value
        return b''


class Ssc32uEmulator(PtyDevice):
    """A Lynxmotion SSC-32U: ASCII commands ending in a carriage return.

    Attributes
    ----------
    pulses : dict
        ``{channel: pulse width in µs}`` the board puts out; 0 (none) until a channel is moved.
    lines : list of str
        Every command line received (without the carriage return).
    moves : list of tuple
        Each group move decoded: ``({channel: (pw, speed or None)}, time in ms or None)``.
    """

    _MOVE = re.compile(r'#(\d+)P(\d+)(?:S(\d+))?')

    def __init__(self, path, pulses: Optional[Dict[int, int]] = None):
        self.pulses = dict.fromkeys(range(32), 0)
        self.pulses.update(pulses or {})
        self.lines: List[str] = []
        self.moves: List[tuple] = []
        self._line = bytearray()
        super().__init__(path)

    def feed(self, data: bytes) -> bytes:
        reply = bytearray()
        for byte in data:
            if byte != 0x0D:
                self._line.append(byte)
                continue
            # Spaces, tabs and line feeds are ignored; commands are not case sensitive.
            line = re.sub(r'[ \t\n]', '', self._line.decode('ascii', 'replace')).upper()
            self._line.clear()
            self.lines.append(line)
            reply += self._execute(line)
        return bytes(reply)

    def _execute(self, line: str) -> bytes:
        if line == 'Q':
            return b'.'   # every move here is complete at once
        if line.startswith('QP'):
            channels = [int(c) for c in re.findall(r'QP(\d+)', line)]
            return bytes(self.pulses.get(c, 0) // 10 for c in channels)
        if re.fullmatch(r'(#\d+[LH])+', line):
            for channel in re.findall(r'#(\d+)L', line):
                self.pulses[int(channel)] = 0
            return b''
        time_match = re.search(r'T(\d+)$', line)
        body = line[:time_match.start()] if time_match else line
        servos = {}
        position = 0
        for match in self._MOVE.finditer(body):
            if match.start() != position:
                return b''  # not a well-formed group move: ignored
            position = match.end()
            speed = int(match.group(3)) if match.group(3) else None
            servos[int(match.group(1))] = (int(match.group(2)), speed)
        if position != len(body) or not servos:
            return b''
        self.moves.append((servos, int(time_match.group(1)) if time_match else None))
        for channel, (pulse, _) in servos.items():
            self.pulses[channel] = pulse
        return b''


def _crc16_table() -> List[int]:
    # CRC-16 as the Protocol 2.0 page gives it: polynomial x^16 + x^15 + x^2 + 1 (0x8005),
    # initial value 0, no reflection; table-driven here.
    table = []
    for index in range(256):
        value = index << 8
        for _ in range(8):
            value = (value << 1) ^ (0x8005 if value & 0x8000 else 0)
        table.append(value & 0xFFFF)
    return table


_CRC_TABLE = _crc16_table()


def dynamixel_crc(data) -> int:
    """CRC-16 of Protocol 2.0 over ``data``."""
    crc = 0
    for byte in data:
        crc = ((crc << 8) ^ _CRC_TABLE[((crc >> 8) ^ byte) & 0xFF]) & 0xFFFF
    return crc


HEADER = b'\xff\xff\xfd'


def add_stuffing(body: bytes) -> bytes:
    """Stuff an instruction-to-parameters field: ``FF FF FD`` -> ``FF FF FD FD``."""
    out = bytearray()
    for byte in body:
        out.append(byte)
        if out.endswith(HEADER):
            out.append(0xFD)
    return bytes(out)


def remove_stuffing(body: bytes) -> bytes:
    """Undo :func:`add_stuffing`."""
    return body.replace(HEADER + b'\xfd', HEADER)


def dynamixel_packet(dxl_id: int, instruction: int, parameters: bytes = b'') -> bytes:
    """Build a Protocol 2.0 packet: header, ID, length, stuffed body, CRC over all of it."""
    body = add_stuffing(bytes((instruction,)) + bytes(parameters))
    length = len(body) + 2
    packet = HEADER + bytes((0x00, dxl_id, length & 0xFF, length >> 8)) + body
    crc = dynamixel_crc(packet)
    return packet + bytes((crc & 0xFF, crc >> 8))


class DynamixelEmulator(ServoTables):
    """X-series Dynamixels (e.g. XL430-W250) sharing one Protocol 2.0 bus.

    Parameters
    ----------
    path
        Where the pty is served.
    positions : dict
        ``{ID: Present Position in ticks}``; each ID is one servo on the bus.
    mode : int
        Operating Mode of every servo (3 position, 4 extended position, 1 velocity...).

    Attributes
    ----------
    packets : list of tuple
        ``(ID, instruction, unstuffed parameters)`` of every instruction packet accepted.
    dropped : int
        Packets dropped: bad CRC, or a header inside a packet (an unstuffed ``FF FF FD``).
    next_error : int
        Test hook: an error number for the next status packet.
    """

    MODEL_NUMBER = 1060  # XL430-W250
    BROADCAST = 0xFE
    STATUS = 0x55
    # (address, size) of the control table entries the emulator keeps.
    ENTRIES = {'model': (0, 2), 'mode': (11, 1), 'max_limit': (48, 4), 'min_limit': (52, 4),
               'torque': (64, 1), 'hardware_error': (70, 1), 'profile_acceleration': (108, 4),
               'profile_velocity': (112, 4), 'goal': (116, 4), 'load': (126, 2),
               'present': (132, 4), 'input_voltage': (144, 2), 'temperature': (146, 1)}
    TABLE_SIZE = 148
    RESULT_FAIL, INSTRUCTION_ERROR, CRC_ERROR = 1, 2, 3
    DATA_LIMIT_ERROR, ACCESS_ERROR = 6, 7
    ALERT = 0x80

    def __init__(self, path, positions: Dict[int, int], mode: int = 3):
        self._mode = mode
        self.next_error = 0
        super().__init__(path, positions)

    def _initialise(self) -> None:
        for dxl_id in self.tables:
            self._set(dxl_id, 'model', self.MODEL_NUMBER)
            self._set(dxl_id, 'mode', self._mode)
            self._set(dxl_id, 'max_limit', 4095)
            self._set(dxl_id, 'min_limit', 0)

    # -- packets ------------------------------------------------------------------------------

    def _next_frame(self) -> Optional[bytes]:
        while True:
            packet = self._cut_frame(HEADER + b'\x00', 7,
                                     lambda head: 7 + (head[5] | head[6] << 8))
            if packet is None or len(packet) < 10:   # LEN < 3: no body to look into
                return packet
            inner = re.search(b'\xff\xff\xfd[^\xfd]', packet[7:-2])
            if inner is None:
                return packet
            # The header pattern unstuffed inside a packet: a new packet starts there.
            self.dropped += 1
            self._buffer[0:0] = packet[7 + inner.start():]

    def _status(self, dxl_id: int, error: int = 0, parameters: bytes = b'') -> bytes:
        error, self.next_error = error or self.next_error, 0
        if self.get(dxl_id, 'hardware_error'):
            error |= self.ALERT
        return dynamixel_packet(dxl_id, self.STATUS, bytes((error,)) + parameters)

    def _handle(self, packet: bytes) -> bytes:
        dxl_id = packet[4]
        if dynamixel_crc(packet[:-2]) != (packet[-2] | packet[-1] << 8):
            self.dropped += 1
            # A servo addressed directly says so; a broadcast gets no answer.
            return self._status(dxl_id, self.CRC_ERROR) if dxl_id in self.tables else b''
        body = remove_stuffing(packet[7:-2])
        instruction, parameters = body[0], body[1:]
        self.packets.append((dxl_id, instruction, parameters))
        if instruction == 0x82:
            return self._sync_read(parameters)
        if instruction == 0x83:
            self._sync_write(parameters)
            return b''
        if dxl_id not in self.tables:
            return b''
        if instruction == 0x01:
            return self._status(dxl_id, 0, bytes((self.MODEL_NUMBER & 0xFF,
                                                  self.MODEL_NUMBER >> 8, 46)))
        if instruction == 0x02 and len(parameters) == 4:
            address = parameters[0] | parameters[1] << 8
            size = parameters[2] | parameters[3] << 8
            return self._status(dxl_id, 0, self.table_bytes(dxl_id, address, size))
        if instruction == 0x03 and len(parameters) >= 3:
            address = parameters[0] | parameters[1] << 8
            return self._status(dxl_id, self._write(dxl_id, address, parameters[2:]))
        return self._status(dxl_id, self.INSTRUCTION_ERROR)

    def _write(self, dxl_id: int, address: int, data: bytes) -> int:
        """Write ``data`` at ``address``; return the error number (0 if written)."""
        torque = self.get(dxl_id, 'torque')
        if torque and address < self.ENTRIES['torque'][0]:
            return self.ACCESS_ERROR  # EEPROM is locked while torque is on
        if address == self.ENTRIES['goal'][0] and len(data) == 4:
            goal = int.from_bytes(data, 'little', signed=True)
            if self.get(dxl_id, 'mode') == 3:
                low, high = self.get(dxl_id, 'min_limit'), self.get(dxl_id, 'max_limit')
            else:
                low, high = -1048575, 1048575
            if not low <= goal <= high:
                return self.DATA_LIMIT_ERROR
            self.tables[dxl_id][address:address + 4] = data
            if torque:
                self._set(dxl_id, 'present', goal)  # an ideal servo: there at once
            return 0
        self.tables[dxl_id][address:address + len(data)] = data
        return 0

    def _sync_read(self, parameters: bytes) -> bytes:
        return self._sync_read_reply(parameters[0] | parameters[1] << 8,
                                     parameters[2] | parameters[3] << 8, parameters[4:])

    def _sync_write(self, parameters: bytes) -> None:
        self._sync_write_entries(parameters[0] | parameters[1] << 8,
                                 parameters[2] | parameters[3] << 8, parameters[4:])

    def sync_writes(self) -> List[Dict[int, int]]:
        """``{ID: value}`` of every Sync Write received (each of Goal Position, 4 bytes)."""
        found = []
        for _, parameters in self.instructions(0x83):
            assert parameters[:4] == bytes((116, 0, 4, 0)), 'a Sync Write not of Goal Position'
            found.append({dxl_id: self._decode(value)
                          for dxl_id, value in self.sync_entries(parameters[4:], 4)})
        return found


class ScriptedController(Controller):
    """A controller whose port and device do what the test says (no serial port at all).

    Attributes
    ----------
    port_present, answering : bool
        Whether the port exists / the device answers (else reads and writes fail).
    steps : dict
        ``{channel: device steps}`` the device reports; a write updates it (an ideal servo);
        a channel left out is one whose position is unknown.
    errors : tuple of str
        Error reports of the next reading.
    written : list of dict
        Every write, in order.
    """

    PROTOCOL = 'scripted'
    UNITS = 'µs'

    def __init__(self, servos, steps: Optional[Dict[int, int]] = None):
        super().__init__('/dev/scripted', 9600, servos)
        self.port_present = True
        self.answering = True
        self.steps = {servo.channel: 1500 for servo in servos} if steps is None else dict(steps)
        self.errors = ()
        self.written = []
        self.opened = 0
        self.released = []

    def open_port(self):
        if not self.port_present:
            raise PortMissingError(f'port: {self.port} does not exist')
        self.opened += 1
        self.is_open = True

    def _close(self):
        pass

    def _answer(self):
        if not self.answering:
            raise ReplyTimeout('no reply')
        reading = Reading(dict(self.steps), self.errors)
        self.errors = ()
        return reading

    def setup(self):
        return self._answer()

    def read(self):
        return self._answer()

    def write(self, steps):
        if not self.answering:
            raise LinkError('write failed')
        self.written.append(dict(steps))
        self.steps.update(steps)

    def release(self, torque_off):
        self.released.append(torque_off)


def check_noise_is_discarded(device: PtyDevice, link, noise: bytes, name: str) -> None:
    """Check that ``noise`` sent between two reads is discarded and reported once, link up.

    The read after it gives what the one before gave, and diagnostics hear of it once:
    ``'<N> stray byte(s) from <name> discarded before a query ...'``.
    """
    before = link.poll()
    device.send_noise(noise)
    assert link.poll() == before
    status = link.status()
    assert status.connected and status.device_errors == 1
    assert status.last_error == (f'{len(noise)} stray byte(s) from {name} discarded before a '
                                 'query (line noise, or a reply that came late)')
    assert link.poll() == before and link.status().device_errors == 1


#: ``servos.*`` values of two servos of 4096 steps a turn (Dynamixel X, Feetech STS): shoulder
#: ID 1, 0 rad at 2048 steps, direct drive, 1 rad/s, 2 rad/s^2; elbow ID 2 reversed, limited to
#: 1024..3072 steps.
TURN_SERVOS = {
    'servos.shoulder.channel': 1, 'servos.shoulder.angle_range': [0.0, 2 * math.pi],
    'servos.shoulder.output_range': [2048.0, 6144.0],
    'servos.shoulder.output_limits': [0.0, 4095.0],
    'servos.shoulder.max_velocity': 1.0, 'servos.shoulder.max_acceleration': 2.0,
    'servos.elbow.channel': 2, 'servos.elbow.angle_range': [0.0, 2 * math.pi],
    'servos.elbow.output_range': [2048.0, -2048.0], 'servos.elbow.output_limits': [1024.0, 3072.0],
}


class FakeClock:
    """A monotonic clock the test moves by hand (for the link's reconnect schedule)."""

    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def open_link(protocol: str, path, values: Dict[str, object], joints=('shoulder', 'elbow'),
              reconnect_period: float = 1.0, clock: Optional[FakeClock] = None, **extra):
    """Return a started :class:`ServoLink` for ``protocol`` on ``path``, and its clock.

    ``values`` holds the servo parameters, keyed ``servos.<joint>.*``.
    """
    from two_bone_ik.servo.servo_link import controller_class, servo_settings, ServoLink
    cls = controller_class(protocol)
    servos = servo_settings(cls, list(joints), values)
    clock = clock or FakeClock()
    controller = cls(str(path), 0, servos, **extra)
    if hasattr(controller, 'reply_wait'):  # (the pyserial controllers; not dynamixel-sdk's)
        # An emulator is a Python thread, not a real-time device: a loaded machine can hold it
        # past the driver's reply margin (50 ms), so its replies get more time (these tests
        # prove the bytes, not the timing).
        controller.reply_wait = max(controller.reply_wait, EMULATOR_REPLY_WAIT)
    link = ServoLink(controller, reconnect_period, clock)
    link.start()
    return link, clock


def link_fixture(protocol: str, device: PtyDevice, values: Dict[str, object], **options):
    """Be the body of a ``link`` fixture (``yield from``): a link on ``device``, then closed.

    ``options`` go to :func:`open_link`; the servos keep their torque at the close.
    """
    link, _ = open_link(protocol, device.path, values, **options)
    yield link
    link.close(torque_off=False)
