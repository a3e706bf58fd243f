"""``two_bone_ik_teleop``'s keys: what each does, and the twist to send while one is held.

ROS-free; time is passed in (seconds on a monotonic clock), so the hold after a key and the
stop are checked deterministically. Keys are named as
:mod:`two_bone_ik.client.teleop_screen` reports them: ``'up'``, ``'down'``, ``'left'``,
``'right'``, ``'page_up'``, ``'page_down'``, ``'escape'``, or the character itself.

A terminal gives no key-up events, only a held key's repeats, after a delay (typically
0.25-0.6 s) and then at 25-40 Hz. So a motion key starts a twist that is held for
:data:`FIRST_HOLD` s (long enough to reach the first repeat), each repeat of the same key holds
it :data:`REPEAT_HOLD` s more, and when the hold runs out one zero twist is sent and then
nothing. Space stops at once; another motion key replaces the motion.
"""

from typing import NamedTuple, Optional, Tuple

#: Seconds a twist is held after a key that is not a repeat.
FIRST_HOLD = 0.6
#: Seconds a twist is held after a repeat of the key that started it.
REPEAT_HOLD = 0.15
#: The factor ``+`` and ``-`` change both speeds by.
SPEED_FACTOR = 1.5
#: Linear speed bounds, m/s (the angular speed keeps its ratio to the linear one).
MIN_SPEED = 0.001
MAX_SPEED = 1.0

#: Twist components, in ``geometry_msgs/Twist`` order.
AXES = ('linear.x', 'linear.y', 'linear.z', 'angular.x', 'angular.y', 'angular.z')
#: A twist: linear x, y, z (m/s), angular x, y, z (rad/s).
Twist = Tuple[float, float, float, float, float, float]
ZERO: Twist = (0.0,) * 6


class Binding(NamedTuple):
    """A motion key: the keys (as named above), how help shows them, the axis and sign."""

    keys: Tuple[str, ...]
    shown: str
    axis: int
    sign: int
    meaning: str


#: The motion keys. Linear axes are those of the frame the twist is sent in (the node's
#: base_frame by default); angular y turns the approach's pitch, angular x its roll.
BINDINGS = (
    Binding(('up',), 'Up', 0, 1, 'tool point +x'),
    Binding(('down',), 'Down', 0, -1, 'tool point -x'),
    Binding(('left',), 'Left', 1, 1, 'tool point +y'),
    Binding(('right',), 'Right', 1, -1, 'tool point -y'),
    Binding(('page_up', 'w'), 'PgUp, w', 2, 1, 'tool point +z'),
    Binding(('page_down', 's'), 'PgDn, s', 2, -1, 'tool point -z'),
    Binding(('i',), 'i', 4, 1, 'pitch: angular.y +'),
    Binding(('k',), 'k', 4, -1, 'pitch: angular.y -'),
    Binding(('j',), 'j', 3, 1, 'roll: angular.x +'),
    Binding(('l',), 'l', 3, -1, 'roll: angular.x -'),
)


class Command(NamedTuple):
    """Another key: the keys, how help shows them, the action, its meaning."""

    keys: Tuple[str, ...]
    shown: str
    action: str
    meaning: str


#: The other keys; actions ``'faster'``, ``'slower'``, ``'stop'``, ``'quit'``.
COMMANDS = (
    Command(('+', '='), '+', 'faster', f'faster (both speeds x {SPEED_FACTOR:g})'),
    Command(('-', '_'), '-', 'slower', f'slower (both speeds / {SPEED_FACTOR:g})'),
    Command((' ',), 'Space', 'stop', 'stop now (zero twist)'),
    Command(('q', 'Q', 'escape'), 'q, Esc', 'quit', 'quit (zero twist first); Ctrl-C too'),
)

_MOTION = {key: binding for binding in BINDINGS for key in binding.keys}
_ACTION = {key: command.action for command in COMMANDS for key in command.keys}


def key_help() -> str:
    """Return the key table (a line per key), as ``-h`` and the screen show it."""
    rows = [(item.shown, item.meaning) for item in BINDINGS + COMMANDS]
    width = max(len(shown) for shown, _ in rows)
    return ''.join(f'  {shown:<{width}}  {meaning}\n' for shown, meaning in rows)


class Jog:
    """The twist to send, from the keys pressed and the time.

    Parameters
    ----------
    speed : float
        Linear speed, m/s (clamped to [MIN_SPEED, MAX_SPEED]).
    angular_speed : float
        Angular speed, rad/s.
    """

    def __init__(self, speed: float, angular_speed: float):
        self.speed = min(max(speed, MIN_SPEED), MAX_SPEED)
        self.angular_speed = angular_speed * self.speed / speed
        self.quit = False
        self._binding: Optional[Binding] = None
        self._last_key: Optional[str] = None
        self._until = 0.0
        self._stop_due = False

    def key(self, name: str, now: float) -> None:
        """Handle a key press or repeat at ``now`` (s); ignore unknown keys."""
        binding = _MOTION.get(name)
        if binding is not None:
            repeat = binding is self._binding and name == self._last_key and now <= self._until
            self._binding, self._last_key = binding, name
            self._until = now + (REPEAT_HOLD if repeat else FIRST_HOLD)
            self._stop_due = False
            return
        action = _ACTION.get(name)
        if action == 'faster':
            self._scale(SPEED_FACTOR)
        elif action == 'slower':
            self._scale(1.0 / SPEED_FACTOR)
        elif action in ('stop', 'quit'):
            self.stop()
            self.quit = action == 'quit'

    def stop(self) -> None:
        """Stop now: the next :meth:`twist` is a zero twist (if something moved)."""
        if self._binding is not None:
            self._binding = None
            self._stop_due = True

    def twist(self, now: float) -> Optional[Twist]:
        """Return the twist to send at ``now`` (s), or None when nothing is to be sent.

        While a key is held: its twist at the current speed. When the hold has run out (or
        after :meth:`stop`): one zero twist, then None.
        """
        if self._binding is not None and now > self._until:
            self.stop()
        if self._binding is None:
            if self._stop_due:
                self._stop_due = False
                return ZERO
            return None
        twist = [0.0] * 6
        speed = self.speed if self._binding.axis < 3 else self.angular_speed
        twist[self._binding.axis] = self._binding.sign * speed
        return tuple(twist)

    @property
    def moving(self) -> Optional[str]:
        """What the held key does (its meaning), or None."""
        return None if self._binding is None else self._binding.meaning

    def _scale(self, factor: float) -> None:
        speed = min(max(self.speed * factor, MIN_SPEED), MAX_SPEED)
        self.angular_speed *= speed / self.speed
        self.speed = speed
