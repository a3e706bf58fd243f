"""Whether a planned motion stays clear of the floor and the boxes, between samples too (no ROS).

A motion is checked at its streamed samples and, where consecutive samples are farther apart,
at extra poses between them: **samples fine enough** (this package's choice over sweeping a
capsule between samples). Between two consecutive checked poses no point of any link moves
more than :attr:`MotionCheck.step` (half the thinnest link's radius, links of no radius aside,
and at most :data:`LARGEST_STEP`), bounded by the joints' steps times their levers
(:attr:`~two_bone_ik.workspace.links.ArmLinks.levers`). So nothing thinner than a link's radius
can pass between two checked poses unseen, and a link can graze a box's edge between them by at
most 1 - sqrt(15) / 4, about 3 % of its radius (a circle's sagitta over half its radius). The
bound takes each joint's path between two checked poses as straight, which it is to second
order at that spacing. A path (a straight line) is checked at its streamed poses, solved
exactly, and between them at poses interpolated from its densely solved ones.

A motion that starts touching (the workspace changed under a resting arm, or the arm was
moved there by hand) may leave: it is checked from its first clear pose on.
"""

import math
from typing import Callable, NamedTuple, Optional, Sequence

import numpy as np

from two_bone_ik.workspace.clearance import Contact, first_contact, touching
from two_bone_ik.workspace.obstacles import Obstacles

#: Most a link point may move between two checked poses, m (with thick links).
LARGEST_STEP = 0.01

#: Least step (m), for links of (almost) no radius.
SMALLEST_STEP = 5e-4

#: Most poses one motion is checked at (a longer one is refused: sample it coarser).
MOST_POSES = 200_000


class PathContact(NamedTuple):
    """Where a motion would touch.

    Attributes
    ----------
    time : float
        Seconds from the motion's start (or the path parameter, for a path).
    readings : tuple of float
        The pose there, rad.
    contact : Contact
        Which link touches what.
    """

    time: float
    readings: tuple
    contact: Contact

    def describe(self, unit: str = 's') -> str:
        """``'0.420 s into it: link 2 (...) would touch the floor ...'``."""
        return f'{self.time:.3f} {unit} into it: {self.contact.describe()}'


class MotionCheck:
    """Checks motions of one arm against one workspace (see the module docstring).

    Parameters
    ----------
    links : ArmLinks
    obstacles : Obstacles
        Active (a floor or a box).
    """

    def __init__(self, links, obstacles: Obstacles):
        self.links = links
        self.obstacles = obstacles
        thinnest = min((r for r in links.radii if r > 0.0), default=0.0)
        #: Most a link point moves between two checked poses, m.
        self.step = min(LARGEST_STEP, max(SMALLEST_STEP, 0.5 * thinnest))
        self._levers = np.asarray(links.levers)

    def _between(self, readings: np.ndarray) -> np.ndarray:
        """Per interval of consecutive poses (n - 1): the extra poses needed between them."""
        moved = np.abs(np.diff(readings, axis=0)) @ self._levers
        return np.maximum(np.ceil(moved / self.step) - 1.0, 0.0).astype(int)

    def times(self, readings: np.ndarray, times: np.ndarray) -> np.ndarray:
        """Return the times of the extra poses between consecutive ``times`` (sorted)."""
        extra = self._between(readings)
        if int(extra.sum()) + len(times) > MOST_POSES:
            raise ValueError(f'more than {MOST_POSES} poses to check')
        chunks = [t0 + (t1 - t0) * np.arange(1, k + 1) / (k + 1)
                  for t0, t1, k in zip(times[:-1], times[1:], extra) if k]
        return np.concatenate(chunks) if chunks else np.empty(0)

    def first_contact(self, readings_at: Callable[[np.ndarray], np.ndarray],
                      times: Sequence[float],
                      between: Optional[Callable] = None) -> Optional[PathContact]:
        """Return where a motion first touches (from its first clear pose on), or None.

        Parameters
        ----------
        readings_at : callable
            Times (n,) -> the motion's readings there, (n, N) rad.
        times : sequence of float
            Its sample times, increasing, the start and the end among them.
        between : callable, optional
            As ``readings_at``, for the poses between the samples (default ``readings_at``).
        """
        times = np.asarray(times, dtype=float)
        readings = np.asarray(readings_at(times), dtype=float)
        extra = self.times(readings, times)
        if len(extra):
            order = np.argsort(np.concatenate((times, extra)), kind='stable')
            times = np.concatenate((times, extra))[order]
            more = np.asarray((between or readings_at)(extra), dtype=float)
            readings = np.concatenate((readings, more))[order]
        points = self.links.points_batch(readings)
        hits = touching(self.links, points, self.obstacles)
        if hits[0]:
            clear = np.flatnonzero(~hits)
            if len(clear):  # leaving a touch: checked from the first clear pose on
                hits[:clear[0]] = False
        for index in np.flatnonzero(hits):
            pose = tuple(tuple(float(c) for c in point) for point in points[index])
            contact = first_contact(self.links, pose, self.obstacles)
            if contact is not None:
                return PathContact(float(times[index]),
                                   tuple(float(v) for v in readings[index]), contact)
        return None

    def trajectory_problem(self, trajectory, period: float) -> str:
        """Why a planned motion cannot start ('' when it is clear).

        ``trajectory`` is anything with ``duration`` and ``at_time(t)`` -> (position, ...), as
        :class:`ruckig.Trajectory`; it is checked at every multiple of ``period`` (the
        streamed samples), at its end, and between them.
        """
        duration = float(trajectory.duration)
        count = max(1, math.ceil(duration / period - 1e-9))
        times = np.minimum(np.arange(count + 1) * period, duration)

        def readings_at(ts):
            if hasattr(trajectory, 'samples'):  # a path: its own batch (remembered)
                return trajectory.samples(ts)[0]
            return np.array([trajectory.at_time(float(t))[0] for t in ts]).reshape(
                len(ts), self.links.count)
        # Between the samples, a path's poses are interpolated from its own.
        between = getattr(trajectory, 'between', None)
        try:
            found = self.first_contact(readings_at, times, between)
        except ValueError as error:
            return f'the motion is too long to check: {error}'
        if found is None:
            return ''
        return 'it would touch, ' + found.describe()
