"""A thread that calls a function once per period while there is something to do (no ROS).

The IK node streams its planned motion from a :class:`Pacer` rather than from an executor
timer: at 500 Hz the executor's per-wake-up work (building the wait set of every timer,
subscription, service and QoS event handler of the node) cost more than the command itself,
and late wake-ups skipped periods.

The rule it keeps: **consecutive calls are at least one period apart in wall-clock time.** The
k-th call of a burst is due one period after the call before it, and never made earlier; so a
streamed sample (plan time k periods) is never sent before k periods have passed, and the arm
is never asked to move faster than planned, even after a stall (a late call delays the ones
after it instead of being followed by a quick one). The cost is that wake-up lateness adds up
over a motion; the thread asks Linux for a timer slack of 1 us to keep that small.

The clock and the sleep are injected (:class:`Pacer` ``clock`` / ``sleep``), and
:meth:`Pacer.run_burst` runs one burst in the caller's thread, so tests check the timing with
a simulated clock. ``step`` is called from the pacer's thread: guard what it shares.
"""

import ctypes
import ctypes.util
import threading
import time
from typing import Callable

#: Linux prctl option that sets the calling thread's timer slack (ns).
_PR_SET_TIMERSLACK = 29


def _tighten_timer_slack() -> None:
    """Ask Linux to wake this thread within ~1 us of its sleep deadline (best effort)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6', use_errno=True)
        libc.prctl(_PR_SET_TIMERSLACK, 1000, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the default slack only makes motions a little slower


class Pacer:
    """Call ``step()`` at least ``period`` seconds apart while it returns True.

    Parameters
    ----------
    step : callable
        Called once per period; returns whether to go on (False: idle until :meth:`wake`).
    period : float
        Seconds between calls, at least.
    name : str
        Thread name.
    clock : callable, optional
        Monotonic clock, s (default :func:`time.monotonic`).
    sleep : callable, optional
        Sleeps the given seconds (default :func:`time.sleep`).
    thread : bool
        Start a thread that runs a burst each time it is woken (default). False: no thread;
        call :meth:`run_burst` yourself (tests).
    """

    def __init__(self, step: Callable[[], bool], period: float, name: str = 'pacer',
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, thread: bool = True):
        self._step = step
        self._period = float(period)
        self._clock = clock
        self._sleep = sleep
        self._wake = threading.Event()
        self._closed = False
        self._thread = None
        if thread:
            self._thread = threading.Thread(target=self._run, name=name, daemon=True)
            self._thread.start()

    @property
    def period(self) -> float:
        """Seconds between calls."""
        return self._period

    def set_period(self, period: float) -> None:
        """Use a new period from the next call on."""
        self._period = float(period)

    def wake(self) -> None:
        """Start calling ``step`` (one period from now) if idle."""
        self._wake.set()

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread and wait for it (at most ``timeout`` s)."""
        self._closed = True
        self._wake.set()
        if self._thread is not None and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def run_burst(self) -> int:
        """Call ``step`` every period until it returns False (or the pacer closes).

        Returns
        -------
        int
            How many times ``step`` was called.
        """
        calls = 0
        due = self._clock() + self._period
        while not self._closed:
            delay = due - self._clock()
            if delay > 0.0:
                self._sleep(delay)
                continue  # check again: a sleep may end early, never call before due
            calls += 1
            due = self._clock() + self._period
            if not self._step():
                break
        return calls

    def _run(self) -> None:
        _tighten_timer_slack()
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._closed:
                return
            self.run_burst()
