"""A motion along a given path of joint readings, timed within the motion limits (no ROS).

A path is the arm's readings as a function of a parameter ``s`` from 0 to 1 (the straight line
of :mod:`two_bone_ik.workspace.linear_path` is one), with bounds on its derivatives along the
way. :func:`time_path` times it with Ruckig (the planner's library; PyPI ``ruckig``) on ``s``:
a one-dimensional, jerk-limited, time-optimal profile from rest at 0 to rest at 1 within
limits on ``ds/dt``, ``d2s/dt2`` and ``d3s/dt3`` chosen so that every joint keeps its own::

    dq/dt     = q' s.                            |q'| s.max              <= V
    d2q/dt2   = q'' s.^2 + q' s..                |q''| s.max^2 + |q'| s..max  <= A
    d3q/dt3   = q''' s.^3 + 3 q'' s. s.. + q' s...

with ``|q'|``, ``|q''|``, ``|q'''|`` the path's bounds (each joint's largest over the whole path:
the whole path is timed with the tightest limits along it, simple and provably inside, not
time-optimal where the path is easy). Half of each joint's acceleration (and a third of its
jerk) goes to the path's curvature, the rest to speeding up along it. A limit left infinite
constrains nothing.

:class:`PathMotion` has what :class:`~two_bone_ik.motion.planner.MotionPlanner` reads of a
Ruckig trajectory (``duration``, ``at_time``, ``position_extrema``) and :meth:`PathMotion.brake`,
which brakes along the same path within the same limits (``~/stop`` on a straight line stays on
it). Toppra (PyPI ``toppra``) would time the path optimally, but only within velocity and
acceleration limits; the jerk limits need this.
"""

import math
from typing import NamedTuple, Sequence, Tuple

import numpy as np

from two_bone_ik.motion.limits import MotionLimits
from two_bone_ik.motion.trajectory import MotionError


#: Seconds between the evaluations of a timed motion's joint velocities, accelerations, jerks.
CHECK_STEP = 2.5e-3

#: The joint nearest its limit is brought this near it (a margin for what the evaluation
#: every :data:`CHECK_STEP` may miss).
SPEED_UP_MARGIN = 0.95


class PathBounds(NamedTuple):
    """Per joint, the largest ``|dq/ds|``, ``|d2q/ds2|`` and ``|d3q/ds3|`` along a path."""

    first: Tuple[float, ...]
    second: Tuple[float, ...]
    third: Tuple[float, ...]


class PathLimits(NamedTuple):
    """Limits on the path parameter: ``ds/dt`` (1/s), ``d2s/dt2`` (1/s^2), ``d3s/dt3`` (1/s^3)."""

    velocity: float
    acceleration: float
    jerk: float


class _Extrema(NamedTuple):
    min: float  # noqa: A003 - the names Ruckig gives a joint's position extrema
    max: float  # noqa: A003


def _velocity_limit(bounds: PathBounds, limits: MotionLimits) -> float:
    v = math.inf
    for d1, d2, d3, vmax, amax, jmax in zip(*bounds, *limits):
        if d1 > 0.0 and math.isfinite(vmax):
            v = min(v, vmax / d1)
        if d2 > 0.0 and math.isfinite(amax):
            v = min(v, math.sqrt(amax / (2.0 * d2)))
        if d3 > 0.0 and math.isfinite(jmax):
            v = min(v, (jmax / (3.0 * d3)) ** (1.0 / 3.0))
        if d2 > 0.0 and math.isfinite(jmax) and math.isinf(v):
            v = (jmax / (9.0 * d2)) ** (1.0 / 3.0)  # keeps the cross term below finite
    return v


def path_limits(bounds: PathBounds, limits: MotionLimits) -> PathLimits:
    """Return the limits on ``s`` that keep every joint within ``limits`` (module docstring).

    Raises
    ------
    MotionError
        If no finite limit bounds a joint that the path moves.
    """
    v = _velocity_limit(bounds, limits)
    a = jerk = math.inf
    for d1, d2, _, _, amax, jmax in zip(*bounds, *limits):
        if d1 > 0.0 and math.isfinite(amax):
            a = min(a, (amax - d2 * v * v) / d1)
        if d2 > 0.0 and math.isfinite(jmax):
            a = min(a, jmax / (9.0 * d2 * v))
    for d1, d2, d3, _, _, jmax in zip(*bounds, *limits):
        if d1 > 0.0 and math.isfinite(jmax):
            jerk = min(jerk, (jmax - d3 * v ** 3 - 3.0 * d2 * v * a) / d1)
    result = PathLimits(v, a, jerk)
    if not all(value > 0.0 for value in result) or all(map(math.isinf, result)):
        raise MotionError('no motion limit bounds the joints this path moves '
                          f'(path limits {tuple(result)!r})')
    return result


def _ruckig():
    import ruckig  # only where motions are planned
    return ruckig


def _profile(inp):
    ruckig = _ruckig()
    trajectory = ruckig.Trajectory(1)
    try:
        code = int(ruckig.Ruckig(1).calculate(inp, trajectory))
    except (ruckig.RuckigError, ValueError) as error:
        raise MotionError(f'Ruckig could not time the path: {error}') from None
    if code not in (0, 1):
        raise MotionError(f'Ruckig could not time the path (result {code})')
    return trajectory


def _input(state, limits: PathLimits):
    ruckig = _ruckig()
    inp = ruckig.InputParameter(1)
    inp.current_position, inp.current_velocity, inp.current_acceleration = (
        [state[0]], [state[1]], [state[2]])
    inp.max_velocity = [limits.velocity]
    inp.max_acceleration = [limits.acceleration]
    inp.max_jerk = [limits.jerk]
    return inp


class PathMotion:
    """A timed motion along a path (see the module docstring); times from its start, s.

    Parameters
    ----------
    path : object
        ``readings(s)`` (n,) -> (n, N) rad, exact; ``interpolated(s)`` the same, interpolated
        (cheaper, for poses between the streamed ones); ``derivatives(s, third=False)`` (n,)
        -> the first and second derivatives (and the third), each (n, N).
    profile : ruckig.Trajectory
        ``s`` over time (one degree of freedom).
    limits : PathLimits
        The limits it was timed with (braking keeps them).
    """

    def __init__(self, path, profile, limits: PathLimits):
        self.path = path
        self.limits = limits
        self._profile = profile
        self.duration = float(profile.duration)
        self._cache = {}
        self._extrema = None

    def states(self, times: Sequence[float]) -> np.ndarray:
        """Return ``(s, ds/dt, d2s/dt2)`` at each time: shape (n, 3)."""
        out = np.empty((len(times), 3))
        for row, t in enumerate(times):
            position, velocity, acceleration = self._profile.at_time(float(t))
            out[row] = (position[0], velocity[0], acceleration[0])
        out[:, 0] = np.clip(out[:, 0], 0.0, 1.0)
        return out

    def samples(self, times: Sequence[float]):
        """Return readings, velocities and accelerations at ``times``: three (n, N) arrays.

        The readings are the path's own (exact); the velocities and accelerations follow from
        its derivatives and the profile. Remembered, so that asking again at these times (the
        streamed ones: :meth:`at_time`) costs nothing more.
        """
        keys = [round(float(t) * 1e9) for t in times]
        missing = [t for t, key in zip(times, keys) if key not in self._cache]
        if missing:
            states = self.states(missing)
            s, sd, sdd = states[:, 0], states[:, 1:2], states[:, 2:3]
            readings = np.asarray(self.path.readings(s), dtype=float)
            first, second = self.path.derivatives(s)
            velocity = first * sd
            acceleration = second * sd * sd + first * sdd
            for t, q, v, a in zip(missing, readings, velocity, acceleration):
                self._cache[round(float(t) * 1e9)] = (tuple(q), tuple(v), tuple(a))
        rows = [self._cache[key] for key in keys]
        return tuple(np.array([row[k] for row in rows]).reshape(len(rows), -1)
                     for k in range(3))

    def between(self, times: Sequence[float]) -> np.ndarray:
        """Return readings at ``times`` interpolated from the path's own (``interpolated``)."""
        return np.asarray(self.path.interpolated(self.states(times)[:, 0]))

    def at_time(self, t: float):
        """Return (readings, velocities, accelerations) at time ``t`` (s from the start)."""
        cached = self._cache.get(round(float(t) * 1e9))
        if cached is None:
            self.samples([t])
            cached = self._cache[round(float(t) * 1e9)]
        return cached

    @property
    def position_extrema(self):
        """Per joint, the least and largest reading along the motion (at 1 ms steps)."""
        if self._extrema is None:
            times = np.linspace(0.0, self.duration, max(2, int(self.duration * 1000) + 1))
            states = self.states(times)
            readings = np.asarray(self.path.readings(states[:, 0]))
            self._extrema = [_Extrema(float(lo), float(hi))
                             for lo, hi in zip(readings.min(axis=0), readings.max(axis=0))]
        return self._extrema

    def brake(self, t: float) -> 'PathMotion':
        """Return the motion braking along the path from time ``t`` of this one to rest."""
        ruckig = _ruckig()
        inp = _input(self.states([t])[0], self.limits)
        inp.control_interface = ruckig.ControlInterface.Velocity
        inp.target_velocity, inp.target_acceleration = [0.0], [0.0]
        return PathMotion(self.path, _profile(inp), self.limits)


def _rest_to_rest(path, timing: PathLimits) -> PathMotion:
    inp = _input((0.0, 0.0, 0.0), timing)
    inp.target_position, inp.target_velocity, inp.target_acceleration = [1.0], [0.0], [0.0]
    return PathMotion(path, _profile(inp), timing)


def limit_ratios(motion: PathMotion, limits: MotionLimits, step: float = CHECK_STEP):
    """Return the largest ratio of the joints' velocity, acceleration and jerk to their limits.

    Evaluated every ``step`` seconds along the motion, from the path's derivatives (its third
    included) and the profile of ``s``, whose jerk (Ruckig's, piecewise constant) is taken at
    its largest everywhere.
    """
    times = np.linspace(0.0, motion.duration, max(3, int(motion.duration / step) + 2))
    states = motion.states(times)
    s, sd, sdd = states[:, 0], states[:, 1:2], states[:, 2:3]
    first, second, third = motion.path.derivatives(s, third=True)
    jerk_s = motion.limits.jerk if math.isfinite(motion.limits.jerk) else 0.0
    velocity = np.abs(first * sd)
    acceleration = np.abs(second * sd * sd + first * sdd)
    jerk = np.abs(third * sd ** 3 + 3.0 * second * sd * sdd) + np.abs(first) * jerk_s
    ratios = []
    for values, bound in ((velocity, limits.velocity), (acceleration, limits.acceleration),
                          (jerk, limits.jerk)):
        bound = np.asarray(bound)
        finite = np.isfinite(bound)
        ratios.append(float((values[:, finite] / bound[finite]).max(initial=0.0)))
    return tuple(ratios)


def time_path(path, bounds: PathBounds, limits: MotionLimits) -> PathMotion:
    """Time ``path`` from rest at ``s = 0`` to rest at ``s = 1`` within ``limits``.

    First with the limits of :func:`path_limits` (inside by construction); then, the joints'
    own velocity, acceleration and jerk evaluated along that motion (:func:`limit_ratios`),
    faster by the time scale that brings the nearest of them to :data:`SPEED_UP_MARGIN` of its
    limit (a time-scaled profile: velocities scale with it, accelerations with its square,
    jerks with its cube), when that is checked to stay inside.

    Raises
    ------
    MotionError
        If the limits cannot bound it, or Ruckig cannot time it.
    """
    timing = path_limits(bounds, limits)
    motion = _rest_to_rest(path, timing)
    velocity, acceleration, jerk = limit_ratios(motion, limits)
    scale = SPEED_UP_MARGIN * min(1.0 / velocity if velocity else math.inf,
                                  (1.0 / acceleration) ** 0.5 if acceleration else math.inf,
                                  (1.0 / jerk) ** (1.0 / 3.0) if jerk else math.inf)
    if not 1.0 < scale < math.inf:
        return motion
    faster = _rest_to_rest(path, PathLimits(timing.velocity * scale,
                                            timing.acceleration * scale ** 2,
                                            timing.jerk * scale ** 3))
    if max(limit_ratios(faster, limits)) <= 1.0:  # (it is, to the evaluation's sampling)
        return faster
    return motion
