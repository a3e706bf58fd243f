"""Follow a joint trajectory the way ros2_controllers' joint_trajectory_controller does (ROS-free).

What the controller does (Jazzy, ``joint_trajectory_controller/src/trajectory.cpp``), and so
what :class:`TrajectoryFollower` does:

- The motion starts from the state at reception (measured positions and velocities; velocities
  and accelerations taken as zero where the first point has them and the state does not), and
  runs from there to the first point, which it reaches at ``start + time_from_start``.
- ``start`` is the trajectory's own start time when it has one (a nonzero ``header.stamp``),
  else the time of reception.
- Between two points (and from the state to the first point), a spline whose degree follows what
  both ends give: quintic with positions, velocities and accelerations, cubic with positions and
  velocities, linear with positions only. The controller computes nothing for a segment whose
  ends have accelerations but no velocities; this follower interpolates it linearly.
- After the last point, the last point is held (velocities and accelerations it lacks are zero).
- Continuous joints (``wraparound``): the start state is moved by whole turns to within half a
  turn of the first point, so the arm takes the short way there.
- A new trajectory replaces the old one from the moment it is started.

One thing the controller does not do: a trajectory whose splines overflow a double (finite
points such as +-1e308 rad one second apart, or a velocity of 1.7e308 rad/s) is refused with
:class:`TrajectoryOverflow` when it is started, before it replaces anything; so every sample of
a trajectory that was started is finite.

Times are seconds on one time axis chosen by the caller (the simulation's clock), positions rad,
velocities rad/s, accelerations rad/s^2.
"""

import bisect
import math
from typing import NamedTuple, Optional, Sequence, Tuple

import numpy as np


class TrajectoryPoint(NamedTuple):
    """One point of a joint trajectory, in the follower's joint order.

    Attributes
    ----------
    time_from_start : float
        When the point is to be reached, s after the trajectory's start.
    positions : tuple of float
        One angle per joint, rad.
    velocities : tuple of float
        One per joint, rad/s, or empty (not given).
    accelerations : tuple of float
        One per joint, rad/s^2, or empty (not given).
    effort : tuple of float
        One per joint, N m, or empty; not followed (a position-commanding controller refuses
        points that give it).
    """

    time_from_start: float
    positions: Tuple[float, ...]
    velocities: Tuple[float, ...] = ()
    accelerations: Tuple[float, ...] = ()
    effort: Tuple[float, ...] = ()


class JointSample(NamedTuple):
    """The trajectory at one instant: arrays of shape (joints,), rad, rad/s, rad/s^2."""

    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray


class TrajectoryOverflow(ValueError):
    """A trajectory whose spline into one point overflows a double (NaN or infinite samples).

    Attributes
    ----------
    point : int
        The point the spline leads to.
    joint : int
        The first joint whose spline overflows.
    from_state : bool
        Whether the spline starts at the state at reception (else at the point before).
    """

    def __init__(self, point: int, joint: int, from_state: bool):
        start = 'the state at reception' if from_state else f'point {point - 1}'
        super().__init__(f'the spline from {start} to point {point} overflows for joint {joint}')
        self.point = point
        self.joint = joint
        self.from_state = from_state


def segment_coefficients(duration: float, start: TrajectoryPoint,
                         end: TrajectoryPoint) -> np.ndarray:
    """Return the spline from ``start`` to ``end`` as polynomial coefficients per joint.

    Parameters
    ----------
    duration : float
        Time from ``start`` to ``end``, s (> 0).
    start, end : TrajectoryPoint
        The segment's ends (their ``time_from_start`` is not used). The degree is quintic when
        both have velocities and accelerations, cubic when both have velocities, else linear.

    Returns
    -------
    numpy.ndarray, shape (joints, 6)
        ``c[j, k]``: position of joint j at time t into the segment is ``sum_k c[j, k] t^k``;
        infinite or NaN where the arithmetic overflows (see :func:`overflowing_joints`).
    """
    with np.errstate(over='ignore', invalid='ignore'):
        return _coefficients(duration, start, end)


def _coefficients(duration: float, start: TrajectoryPoint, end: TrajectoryPoint) -> np.ndarray:
    p0 = np.asarray(start.positions, dtype=float)
    p1 = np.asarray(end.positions, dtype=float)
    coefficients = np.zeros((p0.size, 6))
    coefficients[:, 0] = p0
    has_velocity = len(start.velocities) > 0 and len(end.velocities) > 0
    has_acceleration = len(start.accelerations) > 0 and len(end.accelerations) > 0
    t1 = duration
    if not has_velocity:
        coefficients[:, 1] = (p1 - p0) / t1
        return coefficients
    v0 = np.asarray(start.velocities, dtype=float)
    v1 = np.asarray(end.velocities, dtype=float)
    coefficients[:, 1] = v0
    t2, t3 = t1 * t1, t1 * t1 * t1
    if not has_acceleration:
        coefficients[:, 2] = (3.0 * (p1 - p0) - (2.0 * v0 + v1) * t1) / t2
        coefficients[:, 3] = (2.0 * (p0 - p1) + (v0 + v1) * t1) / t3
        return coefficients
    a0 = np.asarray(start.accelerations, dtype=float)
    a1 = np.asarray(end.accelerations, dtype=float)
    t4, t5 = t2 * t2, t2 * t3
    coefficients[:, 2] = 0.5 * a0
    coefficients[:, 3] = (20.0 * (p1 - p0) - (8.0 * v1 + 12.0 * v0) * t1
                          - (3.0 * a0 - a1) * t2) / (2.0 * t3)
    coefficients[:, 4] = (30.0 * (p0 - p1) + (14.0 * v1 + 16.0 * v0) * t1
                          + (3.0 * a0 - 2.0 * a1) * t2) / (2.0 * t4)
    coefficients[:, 5] = (12.0 * (p1 - p0) - 6.0 * (v1 + v0) * t1
                          - (a0 - a1) * t2) / (2.0 * t5)
    return coefficients


#: Powers of t in a segment's polynomial.
_POWERS = np.arange(6)


def overflowing_joints(coefficients: np.ndarray, duration: float) -> np.ndarray:
    """Return the joints whose segment may overflow a double when sampled.

    With ``T`` the larger of ``duration`` and 1 s, a joint is safe when the sums bounding its
    position, velocity and acceleration terms over ``[0, duration]`` are finite:
    ``sum_k |c_k| T^k``, ``sum_k k |c_k| T^(k-1)`` and ``sum_k k (k-1) |c_k| T^(k-2)``.

    Parameters
    ----------
    coefficients : numpy.ndarray, shape (joints, 6)
        As :func:`segment_coefficients` returns them.
    duration : float
        Length of the segment, s.

    Returns
    -------
    numpy.ndarray of int
        Indices of the joints that are not safe, in order.
    """
    k = _POWERS
    span = max(float(duration), 1.0)
    factors = np.stack([span ** k,  # position terms |c_k| t^k
                        k * span ** np.maximum(k - 1, 0),  # velocity terms
                        k * (k - 1) * span ** np.maximum(k - 2, 0)])  # acceleration terms
    with np.errstate(over='ignore', invalid='ignore'):
        bounds = np.abs(coefficients) @ factors.T  # (joints, 3)
    return np.flatnonzero(~np.isfinite(bounds).all(axis=1))


def _evaluate(coefficients: np.ndarray, t: float) -> JointSample:
    powers = t ** np.arange(6)
    k = np.arange(6)
    velocity_powers = np.concatenate(([0.0], k[1:] * powers[:-1]))
    acceleration_powers = np.concatenate(([0.0, 0.0], k[2:] * (k[2:] - 1) * powers[:-2]))
    return JointSample(coefficients @ powers, coefficients @ velocity_powers,
                       coefficients @ acceleration_powers)


def _checked_segment(duration: float, start: TrajectoryPoint, end: TrajectoryPoint,
                     point: int, from_state: bool) -> np.ndarray:
    """Return the coefficients of the segment into ``point``, or raise TrajectoryOverflow."""
    coefficients = segment_coefficients(duration, start, end)
    bad = overflowing_joints(coefficients, duration)
    if bad.size:
        raise TrajectoryOverflow(point, int(bad[0]), from_state)
    return coefficients


def unwrapped_start(current: float, first: float) -> float:
    """Return ``current`` moved by whole turns to within half a turn of ``first``, rad.

    At exactly half a turn, the start goes to the side that makes the motion toward ``first``
    run in the direction of ``first - current`` (as the controller's ``wraparound_joint``).
    """
    distance = math.remainder(first - current, math.tau)
    if abs(abs(distance) - math.pi) < 1e-9:
        distance = abs(distance) if first > current else -abs(distance)
    return first - distance


class TrajectoryFollower:
    """The setpoints of a joint trajectory over time, as joint_trajectory_controller samples them.

    Parameters
    ----------
    wraparound : sequence of bool
        Per joint, whether it is continuous (its start is unwrapped toward the first point).
    """

    def __init__(self, wraparound: Sequence[bool]):
        self._wraparound = tuple(bool(w) for w in wraparound)
        self._times: list = []  # start time of each segment, s
        self._coefficients: Optional[np.ndarray] = None  # (segments, joints, 6)
        self._hold: Optional[JointSample] = None
        self._end_time = math.inf

    @property
    def active(self) -> bool:
        """Whether a trajectory is loaded (being followed or its last point held)."""
        return self._hold is not None

    @property
    def end_time(self) -> float:
        """When the last point is reached, s (``inf`` without a trajectory)."""
        return self._end_time

    def clear(self) -> None:
        """Drop the trajectory (another input takes over)."""
        self._times = []
        self._coefficients = None
        self._hold = None
        self._end_time = math.inf

    def start(self, points: Sequence[TrajectoryPoint], now: float, positions: Sequence[float],
              velocities: Sequence[float], start_time: Optional[float] = None) -> None:
        """Follow ``points`` from the state at ``now``, replacing any trajectory before.

        Parameters
        ----------
        points : sequence of TrajectoryPoint
            At least one; ``time_from_start`` strictly increasing; each point's fields as long as
            ``wraparound`` or (velocities, accelerations) empty. Validated beforehand (see
            :mod:`two_bone_ik.sim.controller_commands`).
        now : float
            Time of reception, s.
        positions, velocities : sequence of float
            The measured state at ``now``, rad and rad/s.
        start_time : float, optional
            When ``time_from_start`` counts from, s; default ``now`` (a zero ``header.stamp``).

        Raises
        ------
        TrajectoryOverflow
            If a spline overflows; the trajectory followed before (if any) stays.
        """
        points = list(points)
        if not points:
            raise ValueError('points: a trajectory needs at least one point')
        origin = float(now) if start_time is None else float(start_time)
        first = points[0]
        state_positions = tuple(
            unwrapped_start(float(p), float(f)) if wrap else float(p)
            for p, f, wrap in zip(positions, first.positions, self._wraparound))
        count = len(state_positions)
        state = TrajectoryPoint(
            0.0, state_positions,
            tuple(float(v) for v in velocities) if first.velocities else (),
            (0.0,) * count if first.accelerations else ())
        times = []
        segments = []
        first_time = origin + first.time_from_start
        if first_time > now:  # the segment from the state to the first point
            times.append(float(now))
            segments.append(_checked_segment(first_time - now, state, first, 0, True))
        for index, (a, b) in enumerate(zip(points, points[1:]), start=1):
            times.append(origin + a.time_from_start)
            segments.append(_checked_segment(b.time_from_start - a.time_from_start, a, b, index,
                                             False))
        last = points[-1]
        zeros = np.zeros(count)
        self._hold = JointSample(
            np.asarray(last.positions, dtype=float),
            np.asarray(last.velocities, dtype=float) if last.velocities else zeros,
            np.asarray(last.accelerations, dtype=float) if last.accelerations else zeros)
        self._times = times
        self._coefficients = np.array(segments) if segments else None
        self._end_time = origin + last.time_from_start

    def sample(self, time: float) -> JointSample:
        """Return positions, velocities and accelerations at ``time`` (s).

        Before the first segment (a time before the reception) the start of that segment; after
        the last point, the last point.

        Raises
        ------
        RuntimeError
            If no trajectory is loaded.
        """
        if self._hold is None:
            raise RuntimeError('no trajectory to sample')
        if time >= self._end_time or self._coefficients is None:
            return self._hold
        index = max(bisect.bisect_right(self._times, time) - 1, 0)
        return _evaluate(self._coefficients[index], max(time - self._times[index], 0.0))
