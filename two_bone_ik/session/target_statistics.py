"""Target statistics for the IK node's periodic ``/diagnostics`` report, without ROS.

Recording a target is one dict increment; everything else happens once per report.
"""

from typing import Optional, Tuple

from two_bone_ik.ik.status import category, LEVELS, NodeStatus, OK


class TargetStatistics:
    """Counts of targets by status since start, and the input rate between reports.

    Parameters
    ----------
    now : float
        Current time in seconds of a monotonic clock (start of the first rate window).
    """

    def __init__(self, now: float):
        self.counts = dict.fromkeys(NodeStatus, 0)
        self.last_status: Optional[NodeStatus] = None
        self._window_start = now
        self._window_total = 0
        self._window_snapshot = dict(self.counts)

    def record(self, status: NodeStatus) -> None:
        """Count one target with outcome ``status``."""
        self.counts[status] += 1
        self.last_status = status

    @property
    def total(self) -> int:
        """Number of targets recorded since start."""
        return sum(self.counts.values())

    def totals(self) -> dict:
        """Return ``{'solved': n, 'clamped': n, 'rejected': n}`` since start."""
        totals = {'solved': 0, 'clamped': 0, 'rejected': 0}
        for status, count in self.counts.items():
            totals[category(status)] += count
        return totals

    def report(self, now: float) -> Tuple[int, str, Tuple[Tuple[str, str], ...]]:
        """Summarise and start a new rate window.

        Parameters
        ----------
        now : float
            Current time in seconds of the clock given to the constructor.

        Returns
        -------
        level : int
            Worst level (0 OK, 1 WARN, 2 ERROR) among the targets of this window; OK if none.
        message : str
            One line, e.g. ``'3 targets in the last 1.0 s (3.0 Hz); last REACHED'``.
        values : tuple of (str, str)
            ``targets``, ``solved``, ``clamped``, ``rejected`` (since start), ``last_status``,
            ``last_status_code``, ``input_rate_hz`` (this window) and ``count_<STATUS>`` for
            every status.
        """
        total = self.total
        in_window = total - self._window_total
        elapsed = now - self._window_start
        rate = in_window / elapsed if elapsed > 0.0 else 0.0
        level = OK
        if in_window:
            level = max(LEVELS[status] for status, count in self._window_counts().items()
                        if count)
        self._window_start = now
        self._window_total = total
        self._window_snapshot = dict(self.counts)
        last = self.last_status
        last_name = last.name if last is not None else 'NONE'
        message = (f'{in_window} targets in the last {elapsed:.1f} s ({rate:.1f} Hz); '
                   f'last {last_name}')
        totals = self.totals()
        values = [
            ('targets', str(total)),
            ('solved', str(totals['solved'])),
            ('clamped', str(totals['clamped'])),
            ('rejected', str(totals['rejected'])),
            ('last_status', last_name),
            ('last_status_code', str(int(last)) if last is not None else ''),
            ('input_rate_hz', f'{rate:.3f}'),
        ]
        values.extend((f'count_{status.name}', str(count))
                      for status, count in self.counts.items())
        return level, message, tuple(values)

    def _window_counts(self) -> dict:
        return {status: count - self._window_snapshot[status]
                for status, count in self.counts.items()}
