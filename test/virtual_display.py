"""A virtual X display for the tests that open a window: Xvfb, screenshots, closing a window.

:class:`VirtualDisplay` starts Debian's ``Xvfb`` on a free display number (black root window)
and talks to it with python-xlib: :meth:`~VirtualDisplay.window` finds a top-level window by
its title, :meth:`~VirtualDisplay.screenshot` reads the screen's pixels, and
:meth:`~VirtualDisplay.close_window` asks a window to close the way a window manager's close
button does (``WM_DELETE_WINDOW``). Without ``Xvfb`` installed the test FAILS with a message
saying how to install it (``.ci/run`` does): a skipped window test would hide a missing viewer.
"""

from pathlib import Path
import shutil
import subprocess

import numpy as np
import pytest
from ros_harness import wait_until

#: The screen's size, pixels.
SCREEN = (1024, 768)


def _free_display() -> int:
    for number in range(90, 190):
        if not Path(f'/tmp/.X{number}-lock').exists() and \
                not Path(f'/tmp/.X11-unix/X{number}').exists():
            return number
    raise AssertionError('no free X display number in 90..189')


class VirtualDisplay:
    """An ``Xvfb`` server of its own, for one test module (use as a context manager)."""

    def __init__(self, log_dir):
        xvfb = shutil.which('Xvfb')
        if xvfb is None:
            pytest.fail('Xvfb is not installed: the viewer is tested in a virtual display '
                        '(apt-get install -y xvfb; .ci/run installs it)')
        from Xlib import display as xdisplay
        self.number = _free_display()
        self.name = f':{self.number}'
        self._log = open(Path(log_dir) / f'xvfb{self.number}.log', 'wb')
        self.process = subprocess.Popen(
            [xvfb, self.name, '-screen', '0', f'{SCREEN[0]}x{SCREEN[1]}x24', '-br',
             '-nolisten', 'tcp'], stdout=self._log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL)
        socket = Path(f'/tmp/.X11-unix/X{self.number}')
        wait_until(lambda: socket.exists() or self.process.poll() is not None, 15.0,
                   what=f'Xvfb on {self.name}')
        assert self.process.poll() is None, f'Xvfb {self.name} exited'
        self.x = xdisplay.Display(self.name)
        self.root = self.x.screen().root

    def environment(self) -> dict:
        """Return the variables a process needs to open its windows here (and no Wayland)."""
        return {'DISPLAY': self.name, 'WAYLAND_DISPLAY': ''}

    def window(self, title_part: str):
        """Return the mapped top-level window whose title contains ``title_part``, or None."""
        from Xlib import X
        from Xlib.error import BadDrawable, BadWindow
        for child in self.root.query_tree().children:
            try:
                name = child.get_wm_name()
                if name and title_part in name and \
                        child.get_attributes().map_state == X.IsViewable:
                    return child
            except (BadWindow, BadDrawable):  # destroyed since the tree was read
                continue
        return None

    def screenshot(self, window=None) -> np.ndarray:
        """Return the screen (or a window's area of it) as RGB, shape (height, width, 3)."""
        from Xlib import X
        target = window or self.root
        geometry = target.get_geometry()
        image = target.get_image(0, 0, geometry.width, geometry.height, X.ZPixmap, 0xffffffff)
        pixels = np.frombuffer(image.data, np.uint8).reshape(geometry.height, geometry.width, 4)
        return pixels[:, :, [2, 1, 0]].copy()

    def close_window(self, window) -> None:
        """Ask ``window`` to close (``WM_DELETE_WINDOW``, as a window manager's close button)."""
        from Xlib import X
        from Xlib.protocol import event
        protocols = self.x.intern_atom('WM_PROTOCOLS')
        delete = self.x.intern_atom('WM_DELETE_WINDOW')
        message = event.ClientMessage(window=window, client_type=protocols,
                                      data=(32, [delete, X.CurrentTime, 0, 0, 0]))
        window.send_event(message, event_mask=X.NoEventMask)
        self.x.flush()

    def wait_for_window(self, title_part: str, timeout: float = 30.0, processes=None):
        """Wait for a window titled so, and for it to show something; return it."""
        window = wait_until(lambda: self.window(title_part), timeout,
                            what=f'a window titled {title_part!r} on {self.name}',
                            processes=processes)
        wait_until(lambda: self.screenshot(window).max() > 0, timeout,
                   what=f'the window {title_part!r} to show something', processes=processes)
        return window

    def close(self) -> None:
        try:
            self.x.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self._log.close()

    def __enter__(self) -> 'VirtualDisplay':
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def changed_pixels(before: np.ndarray, after: np.ndarray, threshold: int = 40) -> int:
    """Return how many pixels differ by more than ``threshold`` (sum over R, G, B)."""
    return int((np.abs(before.astype(int) - after.astype(int)).sum(axis=2) > threshold).sum())


def arm_pixels(image: np.ndarray) -> int:
    """Return how many pixels have the arm's link colour (a strong blue; the sky is pale)."""
    return int((image[:, :, 2].astype(int) - image[:, :, 0] > 100).sum())


def without_display() -> dict:
    """Return environment changes that leave a process without any display."""
    return {'DISPLAY': '', 'WAYLAND_DISPLAY': ''}
