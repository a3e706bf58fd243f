"""Which servos of a shared bus answer, and the error naming those that do not (ROS-free).

On a serial bus (Feetech, Dynamixel Protocol 1.0) each servo answers for itself: one may be
unpowered or unplugged while the others work. :class:`BusRoll` keeps the bus up in that case:
a servo that does not answer is reported by an error naming it and left out of the reading (so
its joint is not published, never with an old value), and it gets no goal until it answers
again; then the protocol prepares it anew (goal = where it is, then torque on) before it is
moved, so no command sent while it was away is ever replayed. Only when no servo answers at all
is the link itself down.
"""

from typing import Any, Dict, List, Sequence, Tuple

from two_bone_ik.servo.controller import Reading, ReplyTimeout, ServoSettings


class BusRoll:
    """The servos configured on one bus and which of them are ready (prepared, answering).

    Parameters
    ----------
    servos : sequence of ServoSettings
        Their channels are the servo IDs.
    """

    def __init__(self, servos: Sequence[ServoSettings]):
        self.joints = {servo.channel: servo.joint for servo in servos}
        self.ids = tuple(self.joints)
        self.ready = set()

    def name(self, servo_id: int) -> str:
        """``'ID 2 (elbow)'``."""
        return f'ID {servo_id} ({self.joints.get(servo_id, "?")})'

    def account(self, steps: Dict[int, int], what: str) -> Tuple[Dict[int, int], List[str]]:
        """Take the positions ``{ID: steps}`` one read of every configured servo gave.

        Returns
        -------
        returning : dict
            ``{ID: steps}`` of the servos that answered but are not ready (back after being
            silent, or never prepared): prepare them, then :meth:`mark_ready`.
        errors : list of str
            One line naming the servos that did not answer (empty if all did); they are no
            longer ready.

        Raises
        ------
        ReplyTimeout
            If no servo answered at all.
        """
        if not steps:
            raise ReplyTimeout(f'no servo answered {what} (IDs '
                               f"{', '.join(str(i) for i in self.ids)})")
        silent = [servo_id for servo_id in self.ids if servo_id not in steps]
        self.ready.difference_update(silent)
        returning = {servo_id: value for servo_id, value in steps.items()
                     if servo_id not in self.ready}
        if not silent:
            return returning, []
        names = ', '.join(self.name(servo_id) for servo_id in silent)
        return returning, [f'no reply from {names} to {what}: left out of joint_states and not '
                           'commanded until it answers']

    def mark_ready(self, servo_ids) -> None:
        """Note servos as prepared: they take goals from now on."""
        self.ready.update(servo_ids)

    def movable(self, steps: Dict[int, int]) -> Dict[int, int]:
        """Return the part of ``steps`` for ready servos (a silent servo gets no goal)."""
        return {servo_id: value for servo_id, value in steps.items() if servo_id in self.ready}


class BusServos:
    """Mixin of a bus protocol's controller: start-up, reads and goals over a :class:`BusRoll`.

    The class it is mixed into (before a :class:`~two_bone_ik.servo.controller.Controller`)
    sets ``self.roll`` and implements :meth:`_ping`, :meth:`_positions`, :meth:`_prepare` and
    :meth:`_send_goals`.
    """

    roll: BusRoll

    def _ping(self, servo_id: int) -> bool:
        """Whether the servo answers a ping."""
        raise NotImplementedError

    def _positions(self, servo_ids: Sequence[int], errors: List[str],
                   feedback: bool = False) -> Dict[int, int]:
        """``{ID: Present Position}`` of the servos that answer; fault reports into ``errors``.

        With ``feedback``, the servos' reports on themselves too (:meth:`_take_feedback`).
        """
        raise NotImplementedError

    def _take_feedback(self) -> Dict[int, Any]:
        """Return (and forget) ``{ID: ServoFeedback}`` of the last read with feedback."""
        raise NotImplementedError

    def _prepare(self, positions: Dict[int, int], errors: List[str]) -> None:
        """Set the limits of these servos, goal = ``positions``, then torque on."""
        raise NotImplementedError

    def _send_goals(self, goals: Dict[int, int]) -> None:
        """Send ``{ID: goal}`` in one sync write."""
        raise NotImplementedError

    def setup(self):
        """Ping every configured servo, then read them all and prepare those that answer."""
        self.roll.ready.clear()
        answers = [self._ping(servo_id) for servo_id in self.roll.ids]  # ping every one
        if not any(answers):
            raise ReplyTimeout(f'no servo answered a ping at {self.baud_rate} baud (IDs '
                               f"{', '.join(str(i) for i in self.roll.ids)}); is the bus "
                               'powered, and are these its IDs and baud rate?')
        return self.read()

    def read(self, feedback: bool = False):
        """Read every servo's position; prepare the ones that answer again; name the silent.

        With ``feedback``, :attr:`Reading.feedback` holds what the servos report on themselves.
        """
        errors: List[str] = []
        steps = self._positions(self.roll.ids, errors, feedback)
        found = self._take_feedback() if feedback else None
        returning, silent = self.roll.account(steps, 'a read of Present Position')
        if returning:
            self._prepare(returning, errors)
            self.roll.mark_ready(returning)
        return Reading(steps, tuple(errors + silent), found)

    def write(self, steps: Dict[int, int]) -> None:
        """Send the goals of the ready servos in one sync write; none if no servo is ready."""
        goals = self.roll.movable(steps)
        if goals:
            self._send_goals(goals)
