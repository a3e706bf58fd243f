"""The camera's own thread: render the newest state at a rate, hand each picture on (ROS-free).

:class:`CameraLoop` makes the :class:`~two_bone_ik.sim.camera.OffscreenCamera` inside its
thread (an OpenGL context is current in one thread), then, every ``1 / rate`` s, renders the
newest :class:`~two_bone_ik.sim.render_feed.ArmSnapshot` not yet rendered and calls
``on_frame(image, snapshot, camera)``. A frame that takes longer than a period delays the next
(no backlog is caught up). When the camera cannot be made, ``on_failure(reason)`` is called
once and the thread ends; the physics and everything else go on. Making the camera and its
first picture hold Python's interpreter lock for a moment (about 0.1 s here): a caller whose
timing matters waits for :attr:`CameraLoop.ready` before it starts.
"""

import threading
import time
from typing import Callable, Optional

from two_bone_ik.sim.gl_backend import RenderUnavailable
from two_bone_ik.sim.render_feed import RenderFeed

#: Seconds :meth:`CameraLoop.stop` waits for the thread.
STOP_TIMEOUT = 5.0


class CameraLoop:
    """Renders at ``rate`` Hz in a daemon thread (see the module docstring).

    Parameters
    ----------
    make_camera : callable
        Returns the camera (an ``OffscreenCamera``: ``warm_up()``, ``render(qpos, target)``,
        ``close()``); called in the loop's thread. May raise ``RenderUnavailable`` or
        ``ValueError``.
    feed : RenderFeed
        Where the snapshots come from.
    rate : float
        Pictures per second (> 0).
    on_frame : callable
        ``on_frame(image, snapshot, camera)``, in the loop's thread; an exception from it ends
        the loop (through ``on_failure``).
    on_failure : callable
        ``on_failure(reason)``: the camera could not be made, or a frame failed.
    """

    def __init__(self, make_camera: Callable[[], object], feed: RenderFeed, rate: float,
                 on_frame: Callable, on_failure: Callable[[str], None]):
        self._make_camera = make_camera
        self._feed = feed
        self._period = 1.0 / float(rate)
        self._on_frame = on_frame
        self._on_failure = on_failure
        self._stop = threading.Event()
        #: Set once the camera is made and has rendered once (its start-up cost paid), or has
        #: failed: a caller may wait for it before its own timing matters.
        self.ready = threading.Event()
        #: Pictures rendered so far.
        self.frames = 0
        self._thread = threading.Thread(target=self._run, name='sim camera', daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            camera = self._make_camera()
        except (RenderUnavailable, ValueError) as error:
            self._on_failure(str(error))
            self.ready.set()
            return
        try:
            camera.warm_up()
            self.ready.set()
            self._loop(camera)
        except Exception as error:  # noqa: B902 - whatever breaks a frame ends only the camera
            if not self._stop.is_set():
                self._on_failure(f'{type(error).__name__}: {error}')
        finally:
            self.ready.set()
            camera.close()

    def _loop(self, camera) -> None:
        rendered = 0
        due = time.monotonic()
        while not self._stop.wait(max(0.0, due - time.monotonic())):
            due = max(due + self._period, time.monotonic())
            snapshot = self._feed.latest()
            if snapshot is None or snapshot.sequence == rendered:
                continue
            rendered = snapshot.sequence
            image = camera.render(snapshot.qpos, snapshot.target)
            self.frames += 1
            self._on_frame(image, snapshot, camera)

    @property
    def running(self) -> bool:
        """Whether the thread still runs."""
        return self._thread.is_alive()

    def stop(self, timeout: Optional[float] = STOP_TIMEOUT) -> None:
        """Stop the loop and wait (at most ``timeout`` s) for its thread to end."""
        self._stop.set()
        self._thread.join(timeout)
