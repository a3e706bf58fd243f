"""What every serial servo protocol module provides, and the errors its link can raise (ROS-free).

A protocol module (:mod:`~two_bone_ik.servo.maestro`, :mod:`~two_bone_ik.servo.ssc32u`,
:mod:`~two_bone_ik.servo.dynamixel`, :mod:`~two_bone_ik.servo.dynamixel1`,
:mod:`~two_bone_ik.servo.feetech`) subclasses :class:`Controller`: it opens the port, reads
where the servos are, sends targets in device steps and reads them back, and releases the port.
:class:`~two_bone_ik.servo.servo_link.ServoLink` drives it: calibration, reconnecting, counting.

Errors:

- :class:`PortMissingError` (a :class:`ConfigError`): the device path does not exist when the
  node starts; the node exits with code 2 naming the port.
- :class:`LinkError` and its subclasses: the link failed (the port vanished, no reply within
  the timeout, a garbled or short reply, a reply reporting a failed command); the link is closed
  and reopened later.
- A device's own error report that leaves the link usable (Maestro error bits, a Dynamixel
  hardware alert, a bus servo's status error bits or silence, stray bytes discarded before a
  request) comes back in :attr:`Reading.errors` instead.
"""

import os
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.servo.calibration import Calibration


class PortMissingError(ConfigError):
    """The serial device path does not exist; the message names it."""


class LinkError(Exception):
    """The serial link failed; the message says how (it goes to diagnostics)."""


class ReplyTimeout(LinkError):
    """The device did not answer in full within the read timeout."""


class GarbledReply(LinkError):
    """The device answered with bytes that cannot be its reply (checksum, length, range)."""


class DeviceRefused(LinkError):
    """The device answered that it could not carry out a command."""


class ServoSettings(NamedTuple):
    """One servo as a controller sees it.

    Attributes
    ----------
    joint : str
        Joint name (for messages).
    channel : int
        Servo channel; the motor ID for Dynamixel.
    calibration : Calibration
        Angle <-> device-step map and output limits.
    max_velocity : float
        Joint speed limit the controller enforces, rad/s; 0 for none.
    max_acceleration : float
        Joint acceleration limit the controller enforces, rad/s^2; 0 for none.
    """

    joint: str
    channel: int
    calibration: Calibration
    max_velocity: float = 0.0
    max_acceleration: float = 0.0


class Reading(NamedTuple):
    """What one read of the device gave.

    Attributes
    ----------
    steps : dict
        ``{channel: device steps}`` of the servos whose position is known; a servo the
        controller sends no pulse to (or cannot report) is absent.
    errors : tuple of str
        Error reports of the device that leave the link usable (each one line).
    feedback : dict or None
        ``{channel: ServoFeedback}`` (:mod:`~two_bone_ik.servo.feedback`) of the servos that
        answered, when the read was asked for feedback; None otherwise.
    """

    steps: Dict[int, int]
    errors: Tuple[str, ...] = ()
    feedback: Optional[Dict[int, Any]] = None


class Controller:
    """Base of the protocol modules: one serial servo controller on one port.

    Subclasses set the class attributes and implement :meth:`_open`, :meth:`setup`,
    :meth:`write`, :meth:`read`, :meth:`release` and :meth:`_close`.

    Parameters
    ----------
    port : str
        Device path, e.g. ``/dev/ttyACM0``.
    baud_rate : int
        Baud rate; 0 for the controller's factory default (:attr:`DEFAULT_BAUD_RATE`).
    servos : sequence of ServoSettings

    Raises
    ------
    ConfigError
        If the device cannot be set to ``baud_rate`` (see :attr:`BAUD_RATES`).
    """

    #: Name of the protocol (the ``protocol`` parameter).
    PROTOCOL = ''
    #: The controller's factory-default baud rate.
    DEFAULT_BAUD_RATE = 9600
    #: One device step in device units (µs or ticks).
    RESOLUTION = 1.0
    #: Device outputs the controller takes (device units).
    DEVICE_RANGE = (0.0, 0.0)
    #: Channels (or IDs) the controller has.
    CHANNELS = (0, 0)
    #: What the device units are, for messages.
    UNITS = 'µs'
    #: What a channel is called in messages ('motor ID', 'servo ID' on a servo bus).
    CHANNEL_NAME = 'channel'
    #: Positions per turn of the servo model, as LeRobot's ``MODEL_RESOLUTION`` tables give it
    #: (4096: Feetech STS/SMS, Dynamixel X; 1024: Feetech SCS): its degrees mode maps one less
    #: than this to 360 degrees. 0: the servos report no positions (hobby servos), so a
    #: LeRobot calibration file does not apply.
    MODEL_RESOLUTION = 0
    #: Whether a LeRobot calibration's ``drive_mode`` is carried out by the servo itself
    #: (Dynamixel's Drive Mode register reverses the positions it reports); False where LeRobot
    #: reverses in software (Feetech), so the driver does.
    DRIVE_MODE_IN_SERVO = False
    #: Why a LeRobot calibration file does not apply, where :attr:`MODEL_RESOLUTION` is 0 (the
    #: message refusing ``calibration_file`` says it after the protocol's name).
    NO_CALIBRATION_FILE = ('drives hobby servos by pulse width; a LeRobot calibration file holds '
                           'positions of servos that report them (feetech, feetech_scs, '
                           'dynamixel)')
    #: Whether the device enforces an acceleration limit; where it does not, a
    #: ``max_acceleration`` given is ignored, with a note at start.
    HAS_ACCELERATION = True
    #: Baud rates the device can be set to; empty: any (not checked).
    BAUD_RATES: Tuple[int, ...] = ()
    #: What the servos report about themselves (``read(feedback=True)`` reads it); empty:
    #: nothing, and :attr:`NO_FEEDBACK` says so.
    FEEDBACK = ''
    #: Why there is no feedback, where :attr:`FEEDBACK` is empty.
    NO_FEEDBACK = ('none: hobby servos report no load, voltage, temperature or error bits '
                   '(the controller drives them by pulse width)')

    def __init__(self, port: str, baud_rate: int, servos: Sequence[ServoSettings]):
        self.port = port
        self.baud_rate = int(baud_rate) or self.DEFAULT_BAUD_RATE
        if self.BAUD_RATES and self.baud_rate not in self.BAUD_RATES:
            raise ConfigError(
                f'baud_rate: {self.PROTOCOL} devices take one of '
                f"{', '.join(str(rate) for rate in self.BAUD_RATES)} (0 for the factory default "
                f'{self.DEFAULT_BAUD_RATE}), got {self.baud_rate}')
        self.servos = tuple(servos)
        self.is_open = False

    # -- lifetime -----------------------------------------------------------------------------

    def open_port(self) -> None:
        """Open the port.

        Raises
        ------
        PortMissingError
            If the device path does not exist.
        LinkError
            If it exists but cannot be opened.
        """
        if not os.path.exists(self.port):
            raise PortMissingError(f'port: {self.port} does not exist (is the controller '
                                   'plugged in, and is this its device path?)')
        self._open()
        self.is_open = True

    def close_port(self) -> None:
        """Close the port (never raises)."""
        if self.is_open:
            self.is_open = False
            try:
                self._close()
            except Exception:  # noqa: B902 - closing a vanished port may fail any way
                pass

    # -- what a protocol implements -----------------------------------------------------------

    def _open(self) -> None:
        raise NotImplementedError

    def _close(self) -> None:
        raise NotImplementedError

    def setup(self) -> Reading:
        """Prepare the servos after opening and return where they are; move none of them."""
        raise NotImplementedError

    def write(self, steps: Dict[int, int]) -> None:
        """Send targets ``{channel: device steps}`` so that they start together."""
        raise NotImplementedError

    def read(self) -> Reading:
        """Read the servos' positions (and the device's error reports)."""
        raise NotImplementedError

    def release(self, torque_off: bool) -> None:
        """Before closing on exit: stop driving the servos if ``torque_off``, else leave them."""
        raise NotImplementedError


def reply_timeout(reply_bytes: int, sent_bytes: int, baud_rate: int) -> float:
    """Seconds to wait for a reply: wire time of both ways (10 bits a byte) plus 50 ms.

    The margin covers USB-serial latency timers (16 ms on FTDI chips) and the device's own
    response delay (up to 5 ms on the SSC-32U).
    """
    return 0.05 + 10.0 * (reply_bytes + sent_bytes) / baud_rate


def check_channels(servos: Sequence[ServoSettings], low: int, high: int,
                   what: str = 'channel') -> List[str]:
    """Return a problem per servo whose channel is outside ``low``..``high`` or repeated."""
    problems = []
    seen = {}
    for servo in servos:
        if not low <= servo.channel <= high:
            problems.append(f'servos.{servo.joint}.channel: expected a {what} from {low} to '
                            f'{high}, got {servo.channel}')
        elif servo.channel in seen:
            problems.append(f'servos.{servo.joint}.channel: {servo.channel} is also the '
                            f'{what} of {seen[servo.channel]}')
        seen.setdefault(servo.channel, servo.joint)
    return problems


def limited_units(value: float, largest: int) -> int:
    """Round a positive limit to device units: 0 stays 0 (no limit); else 1 to ``largest``."""
    if value <= 0.0:
        return 0
    return int(min(max(round(value), 1), largest))


def serial_errors() -> Tuple[type, ...]:
    """Exception types that mean the serial port failed (pyserial's, the OS's, termios')."""
    import termios

    import serial
    return (serial.SerialException, OSError, termios.error)


def open_serial(port: str, baud_rate: int, timeout: Optional[float]):
    """Open ``port`` with pyserial: 8N1, no flow control, ``timeout`` s per read.

    Raises
    ------
    LinkError
        If pyserial cannot open it.
    """
    import serial
    try:
        return serial.Serial(port=port, baudrate=baud_rate, timeout=timeout,
                             write_timeout=1.0, exclusive=True)
    except serial_errors() as error:
        raise LinkError(f'cannot open {port}: {error}') from None


class PySerialController(Controller):
    """A controller spoken to through a pyserial port: request, then a reply of known length.

    Subclasses set ``self.reply_wait`` (seconds a read may wait) before the port is opened and
    :attr:`DEVICE` (the device's name in messages).
    """

    #: The device's name in messages.
    DEVICE = 'the controller'

    def __init__(self, port: str, baud_rate: int, servos: Sequence[ServoSettings]):
        super().__init__(port, baud_rate, servos)
        self.reply_wait = 0.05
        self._serial = None
        self._stray_bytes = 0

    def _open(self) -> None:
        self._serial = open_serial(self.port, self.baud_rate, self.reply_wait)

    def _close(self) -> None:
        self._serial.close()

    def send(self, data: bytes) -> None:
        """Write ``data`` (LinkError if the port fails)."""
        try:
            self._serial.write(data)
        except serial_errors() as error:
            raise LinkError(f'{self.port}: {error}') from None

    def exchange(self, request: bytes, reply_length: int, partial: bool = False) -> bytes:
        """Send ``request`` and return the ``reply_length`` bytes of the reply.

        Bytes waiting before the request belong to no reply of it (line noise, or an earlier
        reply that came late): they are discarded, so they cannot shift this reply, and
        counted for :meth:`stray_byte_reports`. A byte more than ``reply_length`` right after
        the reply means a byte was lost or added in it (a stray byte before the reply pushes
        every value one byte late): the whole reply is garbled. With ``partial``, a reply
        shorter than ``reply_length`` (none at all included) is returned as it came instead
        of raising :class:`ReplyTimeout` (for a bus whose devices may each answer or not);
        bytes after it are garbled all the same.

        Raises
        ------
        GarbledReply
            If bytes came after the reply (more than ``reply_length``, or after a short
            ``partial`` one).
        ReplyTimeout
            If fewer than ``reply_length`` bytes came within :attr:`reply_wait` (and not
            ``partial``).
        LinkError
            If the port fails.
        """
        port = self._serial
        try:
            stray = port.in_waiting
            if stray:
                port.reset_input_buffer()
                self._stray_bytes += stray
            port.write(request)
            reply = port.read(reply_length)
            extra = port.in_waiting
        except serial_errors() as error:
            raise LinkError(f'{self.port}: {error}') from None
        if len(reply) < reply_length and not partial:
            raise ReplyTimeout(f'{self.DEVICE} sent {len(reply)} of {reply_length} reply bytes '
                               f'within {self.reply_wait * 1000:.0f} ms')
        if extra:
            raise GarbledReply(f'{self.DEVICE} sent {extra} byte(s) more than the '
                               f'{len(reply)} of its reply (garbled reply; reading dropped)')
        return reply

    def stray_byte_reports(self) -> Tuple[str, ...]:
        """Report the bytes :meth:`exchange` discarded since the last call (one line, or none)."""
        stray, self._stray_bytes = self._stray_bytes, 0
        if not stray:
            return ()
        return (f'{stray} stray byte(s) from {self.DEVICE} discarded before a query (line '
                'noise, or a reply that came late)',)
