"""``two_bone_ik_teleop``'s terminal: the screen's text, and the curses terminal it runs in.

:func:`screen_lines` is plain text from plain values (tested without a terminal);
:class:`Terminal` reads keys and draws lines with curses, and restores the terminal however
the tool ends (``q``, Ctrl-C, an exception).
"""

import curses
import os
import textwrap
from typing import Iterable, List, NamedTuple, Optional

from two_bone_ik.client.ik_answer import IkAnswer
from two_bone_ik.client.motion_answer import Point
from two_bone_ik.client.teleop_keys import AXES, Jog, key_help, Twist, ZERO

#: Milliseconds curses waits after Esc for the rest of an escape sequence (its default, 1 s,
#: would make Esc slow to quit).
ESCAPE_DELAY_MS = 25

_KEY_NAMES = {curses.KEY_UP: 'up', curses.KEY_DOWN: 'down', curses.KEY_LEFT: 'left',
              curses.KEY_RIGHT: 'right', curses.KEY_PPAGE: 'page_up',
              curses.KEY_NPAGE: 'page_down', 27: 'escape'}


def key_name(code: int) -> Optional[str]:
    """Return the name of a curses key code (see :mod:`two_bone_ik.client.teleop_keys`)."""
    if code in _KEY_NAMES:
        return _KEY_NAMES[code]
    if 32 <= code < 127:
        return chr(code)
    return None


def _twist_text(twist) -> str:
    parts = [f'{axis} {value:+.3f}' for axis, value in zip(AXES, twist) if value]
    return ', '.join(parts) or 'zero'


class ToolPoints(NamedTuple):
    """The tool point as the node last said it: commanded and measured (m), and arrival."""

    commanded: Optional[Point] = None
    measured: Optional[Point] = None
    arrival: str = ''


def _point_text(point: Optional[Point]) -> str:
    return 'unknown' if point is None else '(' + ', '.join(f'{v:.3f}' for v in point) + ')'


def tool_point_line(points: ToolPoints) -> str:
    """``tool point (m): commanded (x, y, z), measured (x, y, z) [ARRIVED]``."""
    arrival = f' [{points.arrival}]' if points.arrival and points.arrival != 'none' else ''
    return (f'tool point (m): commanded {_point_text(points.commanded)}, measured '
            f'{_point_text(points.measured)}{arrival}')


def screen_lines(jog: Jog, twist_topic: str, status_topic: str, answer: Optional[IkAnswer],
                 reachable: Optional[bool], last_twist: Twist = ZERO,
                 width: int = 80, points: Optional[ToolPoints] = None) -> List[str]:
    """Return the screen's lines.

    Parameters
    ----------
    jog : Jog
        The speeds and the held key.
    twist_topic, status_topic : str
        The topics' full names, shown so that a wrong namespace is seen at once.
    answer : IkAnswer or None
        The node's latest status, None before the first.
    reachable : bool or None
        The node's latest ``reachable``, None before the first.
    last_twist : sequence of 6 float
        The twist sent last (linear m/s, angular rad/s); zero by default.
    width : int
        Columns: long status messages are wrapped to it.
    points : ToolPoints, optional
        The commanded and measured tool point (from ``ik_status`` or ``motion_status``,
        whichever came last); default: those of ``answer``.
    """
    moving = jog.moving
    lines = [f'two_bone_ik_teleop: twists on {twist_topic}',
             f'speed: {jog.speed:.3f} m/s, {jog.angular_speed:.3f} rad/s',
             f"sending: {moving + ' (' + _twist_text(last_twist) + ')' if moving else 'nothing'}"]
    if answer is None:
        lines.append(f'status: none yet on {status_topic}')
    else:
        code = '?' if answer.code is None else answer.code
        lines.extend(textwrap.wrap(f'status: {answer.message} [code {code}, '
                                   f'{answer.level_name}]', max(20, width - 1),
                                   subsequent_indent='  '))
    lines.append('reachable: ' + {None: 'unknown', True: 'yes', False: 'no'}[reachable])
    if points is None and answer is not None:
        points = ToolPoints(answer.tool_point, answer.measured_tool_point, answer.arrival)
    lines.append(tool_point_line(points or ToolPoints()))
    lines.append('')
    lines.append('keys:')
    lines.extend(key_help().rstrip('\n').split('\n'))
    return lines


class Terminal:
    """The curses screen: keys in, lines out; the terminal restored on leaving.

    Use as a context manager. ``__enter__`` raises ``curses.error`` when standard input or
    output is not a terminal curses can drive.
    """

    def __init__(self):
        self._screen = None

    def __enter__(self) -> 'Terminal':
        os.environ.setdefault('ESCDELAY', str(ESCAPE_DELAY_MS))
        self._screen = curses.initscr()
        try:
            curses.noecho()
            curses.cbreak()  # keys at once; Ctrl-C still interrupts
            self._screen.keypad(True)
            try:
                curses.curs_set(0)
            except curses.error:  # a terminal that cannot hide its cursor
                pass
        except BaseException:  # noqa: B902 - whatever stops the set-up, restore the terminal
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Restore the terminal (idempotent)."""
        if self._screen is not None:
            self._screen.keypad(False)
            curses.nocbreak()
            curses.echo()
            curses.endwin()
            self._screen = None

    @property
    def width(self) -> int:
        return self._screen.getmaxyx()[1]

    def keys(self, timeout: float) -> List[str]:
        """Return the keys typed: wait up to ``timeout`` s for one, then take all waiting."""
        names = []
        self._screen.timeout(max(0, int(timeout * 1000)))
        code = self._screen.getch()
        self._screen.timeout(0)
        while code != -1:
            name = key_name(code)
            if name is not None:
                names.append(name)
            code = self._screen.getch()
        return names

    def draw(self, lines: Iterable[str]) -> None:
        """Show ``lines`` from the top left, cut to the window."""
        screen = self._screen
        height, width = screen.getmaxyx()
        screen.erase()
        for row, line in enumerate(list(lines)[:height]):
            try:
                screen.addnstr(row, 0, line, max(0, width - 1))
            except curses.error:  # the bottom-right cell of a tiny window
                pass
        screen.refresh()
