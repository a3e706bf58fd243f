"""A window on the simulated arm: MuJoCo's passive viewer, fed by a thread of its own (ROS-free).

:class:`ArmViewer` opens ``mujoco.viewer.launch_passive`` on a *copy* of the model and data (what
is done in the window, a setting changed in its panels or a body dragged, never reaches the
physics) and, about :data:`SYNC_RATE` times a second, copies the newest snapshot of a
:class:`~two_bone_ik.sim.render_feed.RenderFeed` into it, with the target marker. Everything
happens in daemon threads: opening the window (up to :data:`OPEN_TIMEOUT`) and feeding it never
block the caller, whose physics goes on at its own pace.

Where it cannot open, it says so in one line (through ``on_line``) and does nothing else:

- no display: neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` is set;
- GLFW cannot connect to the display, or cannot make an OpenGL window on it;
- the window did not come up within :data:`OPEN_TIMEOUT`.

Closing the window ends only the viewer (one line says so). :meth:`ArmViewer.close` closes it
from the program (a node's Ctrl-C). The window starts looking at the arm as the model's
``front_side`` camera does; the mouse turns it as in MuJoCo's ``simulate``; Tab and Shift-Tab
show MuJoCo's side panels.
"""

import copy
import math
import os
import threading
import time
from typing import Callable, Mapping, Optional

import mujoco
import numpy as np

from two_bone_ik.sim.render_feed import RenderFeed
from two_bone_ik.sim.scene_marks import mark_target, TARGET_RADIUS_SHARE
from two_bone_ik.sim.views import FRONT_SIDE

#: Times a second the window is given the newest state.
SYNC_RATE = 60.0
#: Seconds the window may take to open.
OPEN_TIMEOUT = 15.0
#: Seconds :meth:`ArmViewer.close` waits for the feeding thread.
CLOSE_TIMEOUT = 5.0


def display_problem(environ: Mapping[str, str] = os.environ) -> Optional[str]:
    """Return why no window can open (no display named), or None."""
    if not environ.get('DISPLAY') and not environ.get('WAYLAND_DISPLAY'):
        return 'no display (DISPLAY and WAYLAND_DISPLAY are not set)'
    return None


def window_problem() -> Optional[str]:
    """Return why GLFW cannot open an OpenGL window on the display, or None.

    Initialises GLFW and opens (then closes) a hidden 1x1 window; GLFW stays initialised for
    the viewer.
    """
    try:
        import glfw
        import mujoco.viewer  # noqa: F401 - hands GLFW's library to MuJoCo, as the viewer needs
    except (ImportError, RuntimeError) as error:
        return f'GLFW is not available: {error}'
    reporting = glfw.ERROR_REPORTING
    glfw.ERROR_REPORTING = 'exception'
    try:
        glfw.init()
        glfw.window_hint(glfw.VISIBLE, glfw.FALSE)
        window = glfw.create_window(1, 1, 'probe', None, None)
        glfw.destroy_window(window)
        glfw.default_window_hints()
    except glfw.GLFWError as error:
        display = os.environ.get('DISPLAY') or os.environ.get('WAYLAND_DISPLAY')
        return f'cannot open an OpenGL window on {display}: {" ".join(str(error).split())}'
    finally:
        glfw.ERROR_REPORTING = reporting
    return None


def free_camera_view(model, data, camera: str) -> dict:
    """Return the free camera (lookat, distance, azimuth, elevation) seeing what ``camera`` sees.

    It looks at the point of the camera's axis nearest the model's centre of view.
    """
    camera_id = model.camera(camera).id
    position = data.cam_xpos[camera_id].copy()
    forward = -data.cam_xmat[camera_id].reshape(3, 3)[:, 2]
    distance = max(float(np.dot(data.xpos[model.cam_bodyid[camera_id]] - position, forward)),
                   float(model.stat.extent))
    return {'lookat': position + distance * forward, 'distance': distance,
            'azimuth': math.degrees(math.atan2(forward[1], forward[0])),
            'elevation': math.degrees(math.asin(max(-1.0, min(1.0, forward[2]))))}


class ArmViewer:
    """MuJoCo's passive viewer on a model, fed from a :class:`RenderFeed` (see the module).

    Parameters
    ----------
    model : mujoco.MjModel
        The simulated arm's model (copied).
    base_frame : str
        The body targets are given in.
    feed : RenderFeed
        Where the states come from.
    on_line : callable
        Called with each line the viewer has to say (``viewer: ...``), from its threads.
    headless_note : str
        Ends the line that says why no window opened.
    on_problem : callable, optional
        Called with that line instead of ``on_line`` (e.g. a logger's warning).
    """

    def __init__(self, model, base_frame: str, feed: RenderFeed,
                 on_line: Callable[[str], None], headless_note: str = 'running without it',
                 on_problem: Optional[Callable[[str], None]] = None):
        self._model = copy.deepcopy(model)
        self._data = mujoco.MjData(self._model)
        self._base = self._model.body(base_frame).id
        self._feed = feed
        self._say = on_line
        self._note = headless_note
        self._problem = on_problem or on_line
        #: Whether the window opened (it may have been closed since).
        self.opened = False
        self._radius = TARGET_RADIUS_SHARE * float(self._model.stat.extent)
        self._stop = threading.Event()
        self._handle = None
        self._window_threads = []  # MuJoCo's own: the window's loop and its helper
        #: Set once the window is open; cleared when it closes.
        self.open = threading.Event()
        #: Set once the window is open or it is known that it will not be (opening holds
        #: Python's interpreter lock for moments: a caller whose timing matters waits for it).
        self.settled = threading.Event()
        self._thread = threading.Thread(target=self._run, name='sim viewer', daemon=True)
        self._thread.start()

    def _run(self) -> None:
        problem = display_problem() or window_problem()
        if problem is None and not self._stop.is_set():
            self._handle = self._launch()
            if self._handle is None:
                problem = f'the window did not open within {OPEN_TIMEOUT:g} s'
        if problem is not None:
            self._problem(f'viewer: {problem}; {self._note}')
            self.settled.set()
            return
        try:
            self._feed_window()
        finally:
            self.open.clear()
            self.settled.set()
            self._handle.close()
            self._join_window(CLOSE_TIMEOUT)

    def _join_window(self, timeout: float) -> None:
        """Wait for MuJoCo's window threads to end (the process must not exit under them)."""
        deadline = time.monotonic() + timeout
        for thread in self._window_threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _launch(self):
        """Open the window in a thread of its own; return its handle, or None on a timeout.

        A window that opens after the timeout is closed at once.
        """
        import mujoco.viewer
        mujoco.mj_forward(self._model, self._data)
        lock = threading.Lock()
        result = {}

        def open_window():
            before = set(threading.enumerate())
            handle = mujoco.viewer.launch_passive(self._model, self._data, show_left_ui=False,
                                                  show_right_ui=False)
            self._window_threads = [
                t for t in threading.enumerate() if t not in before
                and ('_launch_internal' in t.name or '_reload' in t.name)]
            with lock:
                result['handle'] = handle
                if result.get('abandoned'):
                    handle.close()
        opener = threading.Thread(target=open_window, name='sim viewer opening', daemon=True)
        opener.start()
        opener.join(OPEN_TIMEOUT)
        with lock:
            result['abandoned'] = 'handle' not in result
            return result.get('handle')

    def _feed_window(self) -> None:
        handle = self._handle
        with handle.lock():
            view = free_camera_view(self._model, self._data, FRONT_SIDE)
            handle.cam.lookat[:] = view['lookat']
            handle.cam.distance = view['distance']
            handle.cam.azimuth, handle.cam.elevation = view['azimuth'], view['elevation']
        handle.sync()
        self.opened = True
        self.open.set()
        self.settled.set()
        self._say('viewer: window open')
        shown = 0
        while not self._stop.wait(1.0 / SYNC_RATE):
            if not handle.is_running():
                self._say('viewer: window closed; the simulation goes on')
                return
            snapshot = self._feed.latest()
            if snapshot is None or snapshot.sequence == shown:
                continue
            shown = snapshot.sequence
            with handle.lock():
                self._data.qpos[:] = snapshot.qpos
                mujoco.mj_kinematics(self._model, self._data)
                scene = handle.user_scn
                scene.ngeom = 0
                mark_target(scene, self._data, self._base, snapshot.target, self._radius)
            handle.sync()

    @property
    def running(self) -> bool:
        """Whether the viewer's thread still runs (opening, or feeding an open window)."""
        return self._thread.is_alive()

    def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Close the window (if open) and wait at most ``timeout`` s for the thread."""
        self._stop.set()
        handle = self._handle
        if handle is not None:
            handle.close()
        self._thread.join(timeout)
        self._join_window(timeout)
