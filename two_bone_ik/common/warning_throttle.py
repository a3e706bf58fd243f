"""At most one warning per kind per period (rclpy throttles per call site; no ROS)."""

import time
from typing import Callable, Dict, Hashable


class WarningThrottle:
    """Decide which warnings to log: the first of each kind, then at most one per ``period``.

    Parameters
    ----------
    period : float
        Minimum seconds between two warnings of the same kind.
    clock : callable
        Returns the time in seconds (default ``time.monotonic``).
    """

    def __init__(self, period: float, clock: Callable[[], float] = time.monotonic):
        self._period = float(period)
        self._clock = clock
        self._last: Dict[Hashable, float] = {}

    def allow(self, kind: Hashable) -> bool:
        """Return whether a warning of ``kind`` may be logged now (and if so, note it)."""
        now = self._clock()
        last = self._last.get(kind)
        if last is not None and now - last < self._period:
            return False
        self._last[kind] = now
        return True
