"""A thread that calls a function once per period while there is something to do (no ROS).

The IK node streams its planned motion from a :class:`Pacer` rather than from an executor
timer: at 500 Hz the executor's per-wake-up work (building the wait set of every timer,
subscription, service and QoS event handler of the node) cost more than the command itself,
and late wake-ups skipped periods. The pacer sleeps until each due time on a monotonic clock
(due times are multiples of the period from the start, so lateness does not accumulate), calls
the function, and goes idle when the function says the motion is over; :meth:`wake` starts it
again. The function is called from the pacer's thread: guard what it shares.
"""

import threading
import time
from typing import Callable


class Pacer:
    """Call ``step()`` every ``period`` seconds from a thread of its own while it returns True.

    Parameters
    ----------
    step : callable
        Called once per period; returns whether to go on (False: idle until :meth:`wake`).
    period : float
        Seconds between calls.
    name : str
        Thread name.
    """

    def __init__(self, step: Callable[[], bool], period: float, name: str = 'pacer'):
        self._step = step
        self._period = float(period)
        self._wake = threading.Event()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def period(self) -> float:
        """Seconds between calls."""
        return self._period

    def set_period(self, period: float) -> None:
        """Use a new period from the next wake-up on."""
        self._period = float(period)

    def wake(self) -> None:
        """Start calling ``step`` (one period from now) if idle."""
        self._wake.set()

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread and wait for it (at most ``timeout`` s)."""
        self._closed = True
        self._wake.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._closed:
                return
            period = self._period
            start = time.monotonic()
            ticks = 0
            while not self._closed:
                ticks += 1
                delay = start + ticks * period - time.monotonic()
                if delay > 0.0:
                    time.sleep(delay)
                elif delay < -period:
                    # Fell more than a period behind (a stalled machine): resynchronise rather
                    # than fire a burst.
                    start, ticks = time.monotonic(), 0
                if self._closed or not self._step():
                    break
