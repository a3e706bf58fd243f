"""The servo driver's decisions for one controller (ROS-free; a clock is passed in).

:class:`ServoDriver` is what ``two_bone_ik_servo`` decides, so a test can drive it without DDS
and without sleeping; the node converts messages and calls it from its callback and timers:

- :meth:`ServoDriver.command`: a ``joint_commands`` message's names and positions -> the servo
  targets sent. Only the named joints move, and the servos coupled to them
  (:mod:`~two_bone_ik.servo.coupling`), so that a coupled joint keeps its target; every servo
  target is clamped to its output limits (:class:`~two_bone_ik.servo.servo_link.ServoLink`);
  a command that arrives while the controller is unreachable is dropped, never replayed;
- :meth:`ServoDriver.poll` (at the state rate): the positions read back as joint angles, for
  ``joint_states``; reconnecting, on the link's schedule, while the controller is unreachable;
- :meth:`ServoDriver.diagnostics`: the level, message and values of the ``/diagnostics`` status.

:func:`protocol_setup` and :func:`build_driver` make one from the node's parameter values.
"""

import time
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.arm.joint_commands import CommandMatch, match_command
from two_bone_ik.servo.coupling import Coupling
from two_bone_ik.servo.feedback import servo_report
from two_bone_ik.servo.servo_link import assess, controller_class, LinkStatus, ServoLink
from two_bone_ik.servo.servo_settings import calibration_file, CalibrationFile
from two_bone_ik.servo.servo_settings import servo_settings, ServoConfigError


class JointStates(NamedTuple):
    """Joint positions read back, for ``joint_states`` (joints in the driver's order).

    Attributes
    ----------
    names : tuple of str
    positions : tuple of float
        rad.
    """

    names: Tuple[str, ...]
    positions: Tuple[float, ...]


class CommandReport(NamedTuple):
    """What became of one command (see :meth:`ServoDriver.command`).

    Attributes
    ----------
    match : CommandMatch
        The command matched to the joints (for the node's warnings about bad entries).
    sent : bool
        Whether servo targets went to the controller.
    moved : tuple of str
        Joints whose servo was sent a target (the named ones and the servos coupled to them).
    warnings : tuple of (str, str)
        ``(kind, line)`` pairs to log; the kind is for throttling.
    """

    match: CommandMatch
    sent: bool = False
    moved: Tuple[str, ...] = ()
    warnings: Tuple[Tuple[str, str], ...] = ()


class DiagnosticReport(NamedTuple):
    """One ``/diagnostics`` status of the driver.

    Attributes
    ----------
    level : int
        0 OK, 1 WARN, 2 ERROR (:mod:`two_bone_ik.ik.status`).
    message : str
    hardware_id : str
        ``'<protocol> <port>'``.
    values : tuple of (str, str)
        Key/value pairs.
    """

    level: int
    message: str
    hardware_id: str
    values: Tuple[Tuple[str, str], ...]


class ServoDriver:
    """Joint commands to one controller's servos and its readings back to joint angles.

    Parameters
    ----------
    link : ServoLink
        The link to the controller (not started yet); servo ``i`` drives joint ``i``.
    coupling : Coupling
        Which servo adds which joint's angle.
    notes : sequence of str
        Lines to log at start (settings the controller ignores).
    """

    def __init__(self, link: ServoLink, coupling: Coupling, notes: Sequence[str] = ()):
        self.link = link
        self.coupling = coupling
        self.joints = coupling.joints
        self.notes = tuple(notes)
        self._targets: Dict[int, float] = {}    # the last target sent, by joint
        self._measured: Dict[int, float] = {}   # the last angle read, by joint
        self._reported: Optional[LinkStatus] = None

    def start(self) -> bool:
        """Connect; return whether the controller answered (else :meth:`poll` retries).

        Raises
        ------
        PortMissingError
            If the port does not exist at all.
        """
        return self.link.start()

    def command(self, names: Sequence[str], positions: Sequence[float]) -> CommandReport:
        """Send the targets of a ``joint_commands`` message (``names`` and ``positions``, rad).

        Joints not named keep their target; a servo coupled to a named joint is sent its new
        sum with its own joint's target (or, never commanded, its angle last read). A servo
        whose sum has an unknown term is not moved (and said so).
        """
        match = match_command(names, positions, self.joints)
        if not match.targets:
            return CommandReport(match)
        known = {**self._measured, **self._targets, **match.targets}
        servos = self.coupling.servos_moved(set(match.targets))
        angles = self.coupling.servo_angles(known, servos)
        warnings = [self._unknown_term(servo) for servo in sorted(servos - set(angles))]
        if not angles:
            return CommandReport(match, warnings=tuple(warnings))
        outcome = self.link.command(angles)
        if outcome.clamped:
            warnings.append(('clamped', 'joint_commands: clamped to output_limits: '
                             + ', '.join(outcome.clamped)))
        if outcome.sent:
            used = set(angles) | ({self.coupling.plus[s] for s in angles} - {None})
            self._targets.update((joint, known[joint]) for joint in used)
        elif not self.link.connected:
            warnings.append(('dropped', 'joint_commands: dropped while the controller is '
                             f'disconnected ({self.link.status().last_error})'))
        moved = tuple(self.joints[s] for s in sorted(angles)) if outcome.sent else ()
        return CommandReport(match, outcome.sent, moved, tuple(warnings))

    def _unknown_term(self, servo: int) -> Tuple[str, str]:
        joint, other = self.joints[servo], self.joints[self.coupling.plus[servo]]
        return ('unknown', f'joint_commands: {joint} not moved: its servo sets {joint} + '
                f'{other}, and one of them has no target and no reading yet')

    def poll(self) -> Optional[JointStates]:
        """Read the servos (or reconnect, when due); return the joint states to publish.

        None while the controller is unreachable, after a failed read, or when no joint's
        position is known: nothing stale is ever returned.
        """
        servo_angles = self.link.poll()
        if not servo_angles:
            return None
        angles = self.coupling.joint_angles(servo_angles)
        self._measured.update(angles)
        if not angles:
            return None
        order = sorted(angles)
        return JointStates(tuple(self.joints[i] for i in order),
                           tuple(angles[i] for i in order))

    def diagnostics(self) -> DiagnosticReport:
        """Return the controller's status since the last report (see :func:`assess`)."""
        state = self.link.status()
        level, message = assess(self._reported, state)
        self._reported = state
        controller = self.link.controller
        values = {
            'port': controller.port, 'protocol': controller.PROTOCOL,
            'baud_rate': controller.baud_rate, 'connected': state.connected,
            'last_error': state.last_error, 'commands_sent': state.commands_sent,
            'commands_dropped': state.commands_dropped,
            'commands_clamped': state.commands_clamped, 'last_clamp': state.last_clamp,
            'read_failures': state.read_failures, 'link_failures': state.link_failures,
            'device_errors': state.device_errors, 'reconnects': state.reconnects,
            'servo_feedback': controller.FEEDBACK or controller.NO_FEEDBACK,
        }
        return DiagnosticReport(level, message, self.hardware_id, tuple(
            (key, str(value).lower() if isinstance(value, bool) else str(value))
            for key, value in values.items()))

    def servo_reports(self) -> Tuple[Tuple[str, DiagnosticReport], ...]:
        """Return ``(joint, report)`` per servo: what it last reported about itself.

        Empty for a controller whose servos report nothing (hobby servos). See
        :func:`~two_bone_ik.servo.feedback.servo_report` for the levels.
        """
        controller = self.link.controller
        if not controller.FEEDBACK:
            return ()
        feedback = self.link.feedback()
        reports = []
        for index, servo in enumerate(self.link.servos):
            channel = f'{controller.CHANNEL_NAME} {servo.channel}'
            level, message, values = servo_report(servo.joint, channel, feedback.get(index),
                                                  self.link.connected)
            reports.append((servo.joint, DiagnosticReport(
                level, message, f'{self.hardware_id} {channel}', values)))
        return tuple(reports)

    @property
    def hardware_id(self) -> str:
        """``'<protocol> <port>'``."""
        controller = self.link.controller
        return f'{controller.PROTOCOL} {controller.port}'

    def ready_text(self) -> str:
        """Return the start-up line: protocol, port, joints, couplings, connected or why not."""
        controller = self.link.controller
        state = self.link.status()
        couplings = [f'{self.joints[j]} servo adds {self.joints[other]}'
                     for j, other in enumerate(self.coupling.plus) if other is not None]
        return (f'ready: {controller.PROTOCOL} on {controller.port} at {controller.baud_rate} '
                f"baud, joints {', '.join(self.joints)}"
                + (f" ({'; '.join(couplings)})" if couplings else '') + '; '
                + ('connected' if state.connected
                   else f'not connected yet ({state.last_error})'))

    def close(self, torque_off: bool) -> None:
        """Release the servos (``torque_off``: stop driving them) and the port."""
        self.link.close(torque_off)


def protocol_setup(settings: Mapping[str, Any]) -> Tuple[type, Optional[CalibrationFile]]:
    """Return the protocol's controller class and the calibration file read, if any.

    ``settings`` holds the node's ``protocol``, ``port`` and ``calibration_file``.

    Raises
    ------
    ServoConfigError, CalibrationFileError
        For an unknown protocol, no port, or a bad calibration file (one line).
    """
    cls = controller_class(settings['protocol'])
    if not settings['port']:
        raise ServoConfigError('port: not set; give the serial device path, e.g. '
                               '-p port:=/dev/ttyACM0')
    return cls, calibration_file(cls, settings.get('calibration_file', ''))


def build_driver(cls: type, settings: Mapping[str, Any], joint_values: Mapping[str, Any],
                 calibration: Optional[CalibrationFile] = None,
                 clock: Callable[[], float] = time.monotonic) -> ServoDriver:
    """Return a driver (not started) from the node's parameter values.

    Parameters
    ----------
    cls : type
        The protocol's controller class (:func:`protocol_setup`).
    settings : mapping
        ``port``, ``baud_rate``, ``reconnect_period``, ``joints`` and, for ``ssc32u``,
        ``move_time``.
    joint_values : mapping
        The ``servos.<joint>.*`` values given (see
        :func:`~two_bone_ik.servo.servo_settings.servo_settings`), and ``plus_joint``.
    calibration : CalibrationFile, optional
    clock : callable
        Monotonic seconds, for the reconnect schedule.

    Raises
    ------
    ConfigError
        Naming the first bad parameter.
    """
    joints = tuple(settings['joints'])
    servos = servo_settings(cls, joints, joint_values, calibration)
    coupling = Coupling(joints, {joint: joint_values.get(f'servos.{joint}.plus_joint', '')
                                 for joint in joints})
    extra = {'move_time': settings['move_time']} if cls.PROTOCOL == 'ssc32u' else {}
    notes = [] if cls.HAS_ACCELERATION else [
        f'servos.{servo.joint}.max_acceleration: protocol {cls.PROTOCOL} has no acceleration '
        'limit; ignored' for servo in servos if servo.max_acceleration]
    controller = cls(settings['port'], settings['baud_rate'], servos, **extra)
    return ServoDriver(ServoLink(controller, settings['reconnect_period'], clock), coupling,
                       notes)
