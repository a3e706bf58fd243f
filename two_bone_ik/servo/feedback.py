"""What a bus servo reports about itself: load, voltage, temperature, error bits (ROS-free).

Feetech (STS/SMS, SCS) and Dynamixel (2.0, 1.0) servos report their present load, input
voltage and temperature and set error bits when they protect themselves; hobby-servo
controllers (Maestro, SSC-32U) report none of it. The protocol modules read it once every
:data:`FEEDBACK_PERIOD` s, in the same exchange as that poll's positions where the control
table allows (see ``docs/servo_protocols.md``), and hand back a :class:`ServoFeedback` per
servo; :func:`servo_report` turns one into the servo's ``/diagnostics`` line: ERROR naming the
joint when an overload, overcurrent or overheating bit is set (a stalled or blocked joint),
WARN for another error bit, OK otherwise.
"""

from typing import Dict, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.ik.status import ERROR, OK, WARN

#: Seconds between two reads of the servos' feedback (at most one per poll).
FEEDBACK_PERIOD = 1.0

#: diagnostic_msgs/DiagnosticStatus STALE: no report from the servo.
STALE = 3


class ServoFeedback(NamedTuple):
    """One servo's report on itself.

    Attributes
    ----------
    load : float or None
        Present load, % of the servo's maximum torque, signed by direction (the sign bit set:
        negative); None where the protocol gives no load in % (see ``extra``).
    voltage : float or None
        Input voltage, V.
    temperature : float or None
        Internal temperature, degrees Celsius.
    errors : tuple of str
        The error bits set, named (e.g. ``'overload (bit 5)'``).
    stalling : tuple of str
        Of ``errors``, those that mean the servo is stalled, blocked or protecting itself from
        it (overload, overcurrent, overheating).
    extra : tuple of (str, str)
        Other values, by key (e.g. a Dynamixel X's raw Present Load / Current).
    """

    load: Optional[float]
    voltage: Optional[float]
    temperature: Optional[float]
    errors: Tuple[str, ...] = ()
    stalling: Tuple[str, ...] = ()
    extra: Tuple[Tuple[str, str], ...] = ()


def sign_magnitude(value: int, sign_bit: int) -> int:
    """Return the signed value of a sign-magnitude field (``sign_bit`` set: negative)."""
    magnitude = value & ((1 << sign_bit) - 1)
    return -magnitude if value >> sign_bit & 1 else magnitude


def error_names(bits: int, names: Dict[int, str]) -> Tuple[str, ...]:
    """Name each bit set in ``bits`` (one not in ``names``: ``'undocumented error (bit n)'``)."""
    return tuple(f"{names.get(bit, 'undocumented error')} (bit {bit})"
                 for bit in range(8) if bits >> bit & 1)


def feedback_of(load: Optional[float], voltage: Optional[float],
                temperature: Optional[float], bits: int, names: Dict[int, str],
                stall_bits: Sequence[int], extra=()) -> ServoFeedback:
    """Build a :class:`ServoFeedback` from decoded values and a protocol's error bits."""
    return ServoFeedback(load, voltage, temperature, error_names(bits, names),
                         error_names(sum(bits & 1 << bit for bit in stall_bits), names),
                         tuple(extra))


def _summary(feedback: ServoFeedback) -> str:
    parts = []
    if feedback.load is not None:
        parts.append(f'load {feedback.load:+.1f} %')
    parts += [f'{key} {value}' for key, value in feedback.extra]
    if feedback.voltage is not None:
        parts.append(f'{feedback.voltage:.1f} V')
    if feedback.temperature is not None:
        parts.append(f'{feedback.temperature:.0f} °C')
    return ', '.join(parts)


def _values(feedback: ServoFeedback, channel: str) -> Tuple[Tuple[str, str], ...]:
    def shown(value, digits):
        return '' if value is None else f'{value:.{digits}f}'

    return ((('servo', channel), ('load_percent', shown(feedback.load, 1)))
            + feedback.extra
            + (('voltage', shown(feedback.voltage, 1)),
               ('temperature', shown(feedback.temperature, 0)),
               ('error_bits', ', '.join(feedback.errors))))


def servo_report(joint: str, channel: str, feedback: Optional[ServoFeedback],
                 connected: bool) -> Tuple[int, str, Tuple[Tuple[str, str], ...]]:
    """Return one servo's ``/diagnostics`` line: level, message, values.

    ``channel`` names the servo on its bus (e.g. ``'servo ID 3'``). Without a report (not read
    yet, silent at the last read, or the link down) the level is STALE.
    """
    if feedback is None:
        why = ('the controller is disconnected' if not connected
               else 'not read yet, or the servo did not answer the last feedback read')
        return STALE, f'{joint}: no feedback: {why}', (('servo', channel),)
    values = _values(feedback, channel)
    summary = _summary(feedback)
    if feedback.stalling:
        return ERROR, (f"{joint}: {', '.join(feedback.stalling)}: stalled or blocked, or "
                       f'overloaded; the servo protects itself ({summary})'), values
    if feedback.errors:
        return WARN, f"{joint}: {', '.join(feedback.errors)} ({summary})", values
    return OK, f'{joint}: {summary}', values
