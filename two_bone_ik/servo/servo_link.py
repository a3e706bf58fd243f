"""The serial link to one servo controller: calibration, reconnecting, counting (ROS-free).

:class:`ServoLink` sits between the driver node and a protocol's
:class:`~two_bone_ik.servo.controller.Controller`:

- servo angles in (servo ``i`` is joint ``i``'s; the driver turns coupled joints' targets into
  servo angles), calibrated and clamped device steps out (:meth:`ServoLink.command`); a command
  that arrives while the link is down is dropped and counted, never kept for later;
- :meth:`ServoLink.poll` (at the state rate) reads the positions back as angles, or, while the
  link is down, tries to reconnect once every ``reconnect_period`` seconds;
- any failure (port gone, no reply within the timeout, garbled reply, refused command) closes
  the port and marks the link down: no position is reported until it is back, so nothing stale
  is ever published;
- :meth:`ServoLink.status` and :func:`assess` give what diagnostics report.

The protocol table (:data:`PROTOCOLS`, :func:`controller_class`) is here too; the servos' settings
from parameters are in :mod:`~two_bone_ik.servo.servo_settings` (:func:`servo_settings` is
re-exported here for code that imports it from this module).
"""

import importlib
import time
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional, Tuple

from two_bone_ik.ik.status import ERROR, OK, WARN
from two_bone_ik.servo.controller import Controller, LinkError, PortMissingError
from two_bone_ik.servo.feedback import FEEDBACK_PERIOD
from two_bone_ik.servo.servo_settings import servo_settings, ServoConfigError  # noqa: F401

#: Protocol name -> (module, controller class). Imported on demand: each pulls in pyserial,
#: and ``dynamixel``/``dynamixel1`` dynamixel-sdk.
PROTOCOLS = {
    'maestro': ('two_bone_ik.servo.maestro', 'MaestroController'),
    'ssc32u': ('two_bone_ik.servo.ssc32u', 'Ssc32uController'),
    'dynamixel': ('two_bone_ik.servo.dynamixel', 'DynamixelController'),
    'dynamixel1': ('two_bone_ik.servo.dynamixel1', 'Dynamixel1Controller'),
    'feetech': ('two_bone_ik.servo.feetech', 'FeetechController'),
    'feetech_scs': ('two_bone_ik.servo.feetech', 'FeetechScsController'),
}


def controller_class(protocol: str) -> type:
    """Return the controller class of ``protocol`` (importing its module).

    Raises
    ------
    ServoConfigError
        For an unknown protocol, or one whose serial library is not installed.
    """
    if protocol not in PROTOCOLS:
        raise ServoConfigError(f"protocol: expected one of {', '.join(PROTOCOLS)}, got "
                               f'{protocol!r}')
    module_name, class_name = PROTOCOLS[protocol]
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ServoConfigError(f'protocol: {protocol} needs the Python package {error.name!r} '
                               "(pip install 'two_bone_ik[servo]')") from None
    return getattr(module, class_name)


class CommandOutcome(NamedTuple):
    """What became of one command (see :meth:`ServoLink.command`).

    Attributes
    ----------
    sent : bool
        Whether it went to the device (False while the link is down, or if sending failed).
    clamped : tuple of str
        Joints whose target was beyond ``output_limits`` and was clamped.
    """

    sent: bool
    clamped: Tuple[str, ...] = ()


class LinkStatus(NamedTuple):
    """A snapshot of the link for diagnostics; the counts run from the start."""

    connected: bool
    last_error: str
    commands_sent: int
    commands_dropped: int
    commands_clamped: int
    read_failures: int
    link_failures: int
    device_errors: int
    reconnects: int
    last_clamp: str


class ServoLink:
    """One controller, kept connected, fed calibrated targets and read back as angles.

    Parameters
    ----------
    controller : Controller
        Not yet opened.
    reconnect_period : float
        Seconds between reconnect attempts while the link is down.
    clock : callable
        Monotonic time in seconds (``time.monotonic``; tests may pass their own).
    """

    def __init__(self, controller: Controller, reconnect_period: float,
                 clock: Callable[[], float] = time.monotonic):
        self.controller = controller
        self.servos = controller.servos
        self.reconnect_period = float(reconnect_period)
        self._clock = clock
        self._connected = False
        self._next_attempt = 0.0
        self._fresh: Optional[Dict[int, float]] = None
        self._last_error = ''
        self._last_clamp = ''
        self._counts = {'sent': 0, 'dropped': 0, 'clamped': 0, 'read_failures': 0,
                        'link_failures': 0, 'device_errors': 0, 'reconnects': 0}
        self._index = {servo.channel: index for index, servo in enumerate(self.servos)}
        self._feedback: Dict[int, Any] = {}  # the last feedback read, by servo index
        self._feedback_due = 0.0

    @property
    def connected(self) -> bool:
        """Whether the link is up."""
        return self._connected

    # -- connecting ---------------------------------------------------------------------------

    def start(self) -> bool:
        """Connect for the first time; return whether the link is up.

        A device that does not answer (or a port that cannot be opened) leaves the link down,
        to be retried by :meth:`poll`.

        Raises
        ------
        PortMissingError
            If the port does not exist at all.
        """
        return self._connect(first=True)

    def _connect(self, first: bool = False) -> bool:
        controller = self.controller
        try:
            controller.open_port()
            reading = controller.setup()
        except PortMissingError as error:
            if first:
                raise
            self._fail(LinkError(str(error).replace('port: ', '', 1)), count=False)
            return False
        except LinkError as error:
            self._fail(error)
            return False
        self._connected = True
        self._feedback_due = self._clock() + FEEDBACK_PERIOD  # the first a period after
        if not first:
            self._counts['reconnects'] += 1
        self._take(reading)
        return True

    def _fail(self, error: LinkError, count: bool = True) -> None:
        """Record ``error``, close the port and schedule the next attempt."""
        self.controller.close_port()
        self._connected = False
        self._fresh = None
        self._feedback = {}
        self._last_error = str(error)
        if count:
            self._counts['link_failures'] += 1
        self._next_attempt = self._clock() + self.reconnect_period

    def _take(self, reading) -> None:
        """Keep a reading's positions as angles and count its error reports."""
        self._fresh = {self._index[channel]: self.servos[self._index[channel]]
                       .calibration.to_angle(steps)
                       for channel, steps in reading.steps.items() if channel in self._index}
        if reading.errors:
            self._counts['device_errors'] += len(reading.errors)
            self._last_error = reading.errors[-1]

    # -- commands and state -------------------------------------------------------------------

    def command(self, targets: Mapping[int, float]) -> CommandOutcome:
        """Send servo targets ``{servo index: angle in rad}`` (finite) as one group.

        While the link is down the command is dropped (counted), not kept for later.
        """
        if not self._connected:
            self._counts['dropped'] += 1
            return CommandOutcome(False)
        steps = {}
        clamped = []
        for index, angle in targets.items():
            servo = self.servos[index]
            output = servo.calibration.to_steps(angle)
            steps[servo.channel] = output.steps
            if output.clamped:
                clamped.append(servo.joint)
                unit = servo.calibration.resolution
                self._last_clamp = (f'{servo.joint}: {angle:.4f} rad is '
                                    f'{servo.calibration.to_output(angle):.2f} '
                                    f'{self.controller.UNITS}, clamped to '
                                    f'{output.steps * unit:g}')
        if clamped:
            self._counts['clamped'] += 1
        if not steps:
            return CommandOutcome(False, tuple(clamped))
        try:
            self.controller.write(steps)
        except LinkError as error:
            self._fail(error)
            self._counts['dropped'] += 1
            return CommandOutcome(False, tuple(clamped))
        self._counts['sent'] += 1
        return CommandOutcome(True, tuple(clamped))

    def poll(self) -> Optional[Dict[int, float]]:
        """Read the positions back; reconnect instead while the link is down and it is time.

        Returns
        -------
        dict or None
            ``{servo index: angle in rad}`` of the servos whose position the device reports,
            read just now; None while the link is down or if the read failed.
        """
        if not self._connected:
            if self._clock() < self._next_attempt or not self._connect():
                return None
        else:
            try:
                self._take(self._read())
            except LinkError as error:
                self._counts['read_failures'] += 1
                self._fail(error)
                return None
        fresh, self._fresh = self._fresh, None
        return fresh

    def _read(self):
        """Read the positions; with them the servos' feedback, once a FEEDBACK_PERIOD."""
        if not self.controller.FEEDBACK or self._clock() < self._feedback_due:
            return self.controller.read()
        reading = self.controller.read(feedback=True)
        self._feedback_due = self._clock() + FEEDBACK_PERIOD
        self._feedback = {self._index[channel]: feedback
                          for channel, feedback in (reading.feedback or {}).items()
                          if channel in self._index}
        return reading

    def feedback(self) -> Dict[int, Any]:
        """Return the last feedback read, ``{servo index: ServoFeedback}`` ({} while down)."""
        return dict(self._feedback)

    def status(self) -> LinkStatus:
        """Return the link's state and counts."""
        c = self._counts
        return LinkStatus(self._connected, self._last_error, c['sent'], c['dropped'],
                          c['clamped'], c['read_failures'], c['link_failures'],
                          c['device_errors'], c['reconnects'], self._last_clamp)

    def close(self, torque_off: bool) -> None:
        """Release the servos as ``torque_off`` says (if connected) and close the port."""
        if self._connected:
            try:
                self.controller.release(torque_off)
            except LinkError as error:
                self._last_error = str(error)
        self.controller.close_port()
        self._connected = False


def assess(previous: Optional[LinkStatus], current: LinkStatus) -> Tuple[int, str]:
    """Return the diagnostic level and message for ``current`` (``previous``: last report).

    ERROR while the link is down or when the device reported an error or a read failed since
    the last report; WARN when a command was clamped since then; OK otherwise.
    """
    def since(field: str) -> int:
        before = getattr(previous, field) if previous is not None else 0
        return getattr(current, field) - before

    if not current.connected:
        return ERROR, f'disconnected: {current.last_error or "not connected yet"}'
    if since('device_errors') or since('read_failures') or since('link_failures'):
        return ERROR, f'error: {current.last_error}'
    if since('commands_clamped'):
        return WARN, f'{since("commands_clamped")} command(s) clamped; {current.last_clamp}'
    return OK, 'connected'
