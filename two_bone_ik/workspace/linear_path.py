"""The straight line to a target: every pose along it an exact closed-form solve (no ROS).

``motion_path: linear`` moves the tool point on the straight line from where it is to the
target, and, on an arm with a wrist pitch, turns the approach pitch linearly from the start's to
the target's (the roll reading too, with a roll joint). :class:`LinePath` is that path as
readings of a parameter ``s`` from 0 (the start) to 1 (the target), each pose solved in closed
form by the arm's own solver on the target's elbow (the start's, when the target is stretched
or folded: on both), without flipping, from the pose before, so the tool point is on the line
to the solver's accuracy (1e-9 of the reach). A start stretched or folded is on both elbows;
one on the other elbow has no straight line to the target. A desktop arm's line stays on the yaw
branch it starts on (facing the target, or reaching back over the yaw axis) with the roll as
the line turns it: each pose is that class's (``solve_on_yaw_branch``), not the preference
order's, whose first class can change along the line. A line from one branch to the other
(over the yaw axis, the yaw kept) takes, pose by pose, the branch whose yaw is nearer the pose
before's; where that still swings the yaw, the rate check below refuses it.

Built, it has solved the line densely (every :data:`SAMPLE_SPACING` of the tool point's travel
and :data:`PITCH_SPACING` of the pitch) and refused it, with :class:`LineError` naming where,
when a pose along it

- is not exact: it leaves the workspace (``OUT_OF_REACH``, ``INSIDE_INNER``), crosses a joint
  limit (``JOINT_LIMITED``), or cannot keep the pitch;
- changes the elbow, or a joint turns faster than :data:`SINGULAR_RATE` rad per metre of the
  tool point's travel (a singularity: the pair stretched or folded, the wrist over the yaw
  axis);
- does not start at the arm's pose or end at the target's.

The dense samples give the bounds on the path's derivatives that
:func:`two_bone_ik.motion.path_timing.time_path` times it within (finite differences, times
:data:`BOUND_MARGIN`), and its velocities (interpolated); the poses themselves are always
solved exactly.
"""

import dataclasses
import math
from typing import Optional, Sequence

import numpy as np

from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.ik.desktop_target_solver import DesktopTargetSolver
from two_bone_ik.ik.target_solver import TargetSolver
from two_bone_ik.motion.path_timing import PathBounds
from two_bone_ik.motion.trajectory import MotionError

#: Most metres of the tool point's travel between two dense samples ...
SAMPLE_SPACING = 1e-3
#: ... and most radians of approach pitch.
PITCH_SPACING = 5e-3
#: Fewest and most dense samples of one line.
FEWEST_SAMPLES = 16
MOST_SAMPLES = 5000
#: A joint turning faster than this (rad per metre of the tool point's travel) is singular.
SINGULAR_RATE = 50.0
#: The derivative bounds are the dense samples' finite differences times this.
BOUND_MARGIN = 1.2
#: How near (rad) the line's first and last poses must be to the start's and the target's.
POSE_TOLERANCE = 1e-6
#: Pitch difference (rad) within which the asked pitch counts as kept.
PITCH_TOLERANCE = 1e-7
#: An elbow within this (rad) of stretched or folded is on both elbows.
EDGE_TOLERANCE = 1e-9


#: How a message names each yaw branch and elbow.
_BRANCH_TEXT = {'facing': 'facing the target', 'back': 'reaching back over the yaw axis'}
_OTHER_BRANCH = {'facing': 'back', 'back': 'facing'}
_ELBOW_TEXT = {'up': 'elbow up', 'down': 'elbow down'}


class LineError(MotionError):
    """The straight line cannot be followed; the message says where."""


def elbow_of(geometry, readings: Sequence[float]) -> str:
    """Return a pose's elbow, ``'up'`` or ``'down'``, or ``''`` when stretched or folded."""
    if isinstance(geometry, ArmGeometry):
        q2 = geometry.solver_angles(readings)[1]
    else:
        model = geometry.model
        _, _, i2, _, _ = model.indices
        q2 = model.zero_angles[1] + model.directions[i2] * readings[i2]
    q2 = math.remainder(q2, math.tau)
    if abs(math.sin(q2)) <= EDGE_TOLERANCE and abs(q2) < 1.0 or abs(
            abs(q2) - math.pi) <= EDGE_TOLERANCE:
        return ''
    return 'up' if q2 < 0.0 else 'down'


def yaw_branch_of(geometry, readings: Sequence[float]) -> str:
    """Return a desktop pose's yaw branch, ``'facing'`` or ``'back'``.

    ``'back'`` when the tool point is behind the yaw axis in the arm's plane (the yaw half a
    turn from facing it, the pair bent back); ``''`` for an arm without a yaw (or a planar
    arm) and a tool point within :data:`EDGE_TOLERANCE` x the reach of the yaw axis.
    """
    model = getattr(geometry, 'model', None)
    if model is None or not model.has_yaw:
        return ''
    _, (_, _, _, (tool_u, _)), _ = model.plane_points(readings)
    if abs(tool_u) <= EDGE_TOLERANCE * geometry.reach[1]:
        return ''
    return 'back' if tool_u < 0.0 else 'facing'


def approach_pitch(geometry, readings: Sequence[float]) -> float:
    """Return the approach pitch of a desktop arm's pose, rad (NaN without a pitch joint)."""
    model = getattr(geometry, 'model', None)
    if model is None or not model.has_pitch:
        return math.nan
    _, (_, _, wrist, tool), _ = model.plane_points(readings)
    return math.atan2(tool[1] - wrist[1], tool[0] - wrist[0])


class LinePlanner:
    """Makes straight lines for one arm (its solver, built once per arm).

    Parameters
    ----------
    solver : TargetSolver or DesktopTargetSolver
        The arm's solver (its geometry and tolerance are used; the line solves on the elbow
        it starts on, without flipping).
    """

    def __init__(self, solver):
        self.geometry = solver.geometry
        if isinstance(self.geometry, ArmGeometry):
            self._solvers = {elbow: TargetSolver(dataclasses.replace(
                solver.config, elbow=elbow, allow_elbow_flip=False), self.geometry)
                for elbow in ('up', 'down')}
        else:
            self._solvers = {elbow: DesktopTargetSolver(self.geometry, elbow, False)
                             for elbow in ('up', 'down')}
        self._roll = None
        model = getattr(self.geometry, 'model', None)
        if model is not None and model.has_roll:
            self._roll = model.indices[4]
        self.pitched = model is not None and model.has_pitch
        #: Whether the arm has yaw branches (a desktop arm with a yaw): a line keeps its own.
        self.branched = model is not None and model.has_yaw
        self.reach = self.geometry.reach[1]

    def line(self, start: Sequence[float], goal: Sequence[float]) -> 'LinePath':
        """Return the line from the pose ``start`` to the pose ``goal`` (readings, rad).

        Raises
        ------
        LineError
            Naming where the line cannot be followed.
        """
        return LinePath(self, tuple(float(v) for v in start), tuple(float(v) for v in goal))

    def solve_on_branch(self, point, pitch: float, roll: Optional[float], previous, elbow: str,
                        yaw_branch: str):
        """Return one yaw branch's pose (the roll held) of a line's point, or None."""
        if roll is not None:
            previous = list(previous)
            previous[self._roll] = roll
        return self._solvers[elbow].solve_on_yaw_branch(
            *(float(c) for c in point), yaw_branch, previous, pitch if self.pitched else 0.0)

    def solve(self, point, pitch: float, roll: Optional[float], previous, elbow: str,
              yaw_branch: str = ''):
        """Solve one pose of a line: the tool point, the pitch, the roll reading, the elbow.

        With ``yaw_branch`` (a desktop arm with a yaw): that branch's pose with the roll held;
        when it has none, the solver's answer (whose status or branch says why).
        """
        if roll is not None:
            previous = list(previous)
            previous[self._roll] = roll
        solver = self._solvers[elbow]
        if yaw_branch:
            on_branch = self.solve_on_branch(point, pitch, None, previous, elbow, yaw_branch)
            if on_branch is not None:
                return on_branch
        if self.pitched:
            return solver.solve('', *point, previous, None, approach_pitch=pitch)
        return solver.solve('', *point, previous)


def _where(point) -> str:
    return '(' + ', '.join(f'{c:.3f}' for c in point) + ') m'


class LinePath:
    """The straight line between two poses (see the module docstring).

    Build it with :meth:`LinePlanner.line`.
    """

    def __init__(self, planner: LinePlanner, start, goal):
        geometry = planner.geometry
        self._planner = planner
        self.start, self.goal = start, goal
        self.start_point = np.array(geometry.tip_position(start))
        self.goal_point = np.array(geometry.tip_position(goal))
        self._pitch0 = approach_pitch(geometry, start)
        self._turn = (math.remainder(approach_pitch(geometry, goal) - self._pitch0, math.tau)
                      if planner.pitched else 0.0)
        index = planner._roll
        self._roll = None if index is None else (start[index], goal[index] - start[index])
        self.length = float(np.linalg.norm(self.goal_point - self.start_point))
        tool = geometry.model.max_tool_length() if planner.pitched else 0.0
        count = max(FEWEST_SAMPLES, math.ceil(self.length / SAMPLE_SPACING),
                    math.ceil(abs(self._turn) / PITCH_SPACING))
        if count > MOST_SAMPLES:
            raise LineError(f'the straight line is too long to sample ({self.length:.3f} m)')
        self.s = np.linspace(0.0, 1.0, count + 1)
        self.dense = self._solve_dense()
        self._measure = (np.linalg.norm(np.diff(self._points(self.s), axis=0), axis=1)
                         + tool * abs(self._turn) / count)
        self._check_rates()
        self._check_ends()
        self._slopes, self.bounds = self._derivatives()

    # -- poses ----------------------------------------------------------------------------------

    def point_at(self, s: float) -> np.ndarray:
        """Return the tool point at ``s``, m."""
        return self.start_point + s * (self.goal_point - self.start_point)

    def _points(self, s) -> np.ndarray:
        return self.start_point + np.asarray(s)[:, None] * (self.goal_point - self.start_point)

    def _solve(self, s: float, previous, branch: str, checked: bool = True):
        roll = None if self._roll is None else self._roll[0] + s * self._roll[1]
        pitch = self._pitch0 + s * self._turn
        result = self._planner.solve(self.point_at(s), pitch, roll, previous, self._elbow,
                                     branch)
        if checked:
            self._check_pose(result, s, pitch, branch)
        return tuple(float(v) for v in result.readings)

    def _nearer_branch(self, s: float, previous, branch: str) -> str:
        """Return the branch whose pose at ``s`` turns the yaw least from ``previous``.

        ``branch`` (the pose before's) unless the other's pose is strictly nearer.
        """
        roll = None if self._roll is None else self._roll[0] + s * self._roll[1]
        pitch = self._pitch0 + s * self._turn
        turns = {}
        for side in (branch, _OTHER_BRANCH[branch]):
            result = self._planner.solve_on_branch(self.point_at(s), pitch, roll, previous,
                                                   self._elbow, side)
            if result is not None:
                turns[side] = abs(math.remainder(result.readings[0] - previous[0], math.tau))
        if _OTHER_BRANCH[branch] in turns and (branch not in turns or turns[
                _OTHER_BRANCH[branch]] < turns[branch]):
            return _OTHER_BRANCH[branch]
        return branch

    def _check_pose(self, result, s: float, pitch: float, branch: str) -> None:
        where = f'at {_where(self.point_at(s))}, {100.0 * s:.0f} % along it'
        status = result.status.name
        if result.rejected or not result.reachable:
            what = ('crosses a joint limit' if status == 'JOINT_LIMITED'
                    else 'leaves the workspace')
            raise LineError(f'the straight line {what} {where} ({status})')
        if self._planner.pitched and abs(math.remainder(result.approach_pitch - pitch,
                                                        math.tau)) > PITCH_TOLERANCE:
            raise LineError(f'the straight line cannot keep the approach pitch {pitch:.3f} '
                            f'rad {where} (a joint limit)')
        if result.elbow != self._elbow:
            raise LineError(f'the straight line would change the elbow from {self._elbow} to '
                            f'{result.elbow} {where} (the arm stretched or folded there)')
        # A tool point on the yaw axis is on both branches (the yaw kept; either label).
        if branch and (result.roll_moved or result.yaw_branch != branch and
                       yaw_branch_of(self._planner.geometry, result.readings)):
            raise LineError(f'the straight line has no pose {_BRANCH_TEXT[branch]} '
                            f'with the roll as the line turns it {where}: the point there is '
                            'reached ' + ('with the roll moved' if result.roll_moved else
                                          _BRANCH_TEXT[result.yaw_branch]))

    def _solve_dense(self) -> np.ndarray:
        geometry = self._planner.geometry
        self._elbow = self._shared(elbow_of, 'the elbow', _ELBOW_TEXT) or 'up'
        start, goal = yaw_branch_of(geometry, self.start), yaw_branch_of(geometry, self.goal)
        branch = start or goal or ('facing' if self._planner.branched else '')
        switching = bool(start and goal and start != goal)  # over the yaw axis
        rows, self._branches = [], []
        previous = self.start
        for s in self.s:
            if switching:
                branch = self._nearer_branch(float(s), previous, branch)
            previous = self._solve(float(s), previous, branch)
            rows.append(previous)
            self._branches.append(branch)
        return np.array(rows)

    def _shared(self, side_of, what: str, texts) -> str:
        """Return the side (the elbow) the start and the goal share, else raise.

        A pose exactly between (stretched or folded) is on both: the other's.
        """
        geometry = self._planner.geometry
        start, goal = side_of(geometry, self.start), side_of(geometry, self.goal)
        if start and goal and start != goal:
            raise LineError(f"the straight line cannot change {what}: the arm's pose is "
                            f"{texts[start]}, the target's {texts[goal]}")
        return goal or start

    def _check_ends(self) -> None:
        for readings, pose, what in ((self.dense[0], self.start, "start at the arm's pose"),
                                     (self.dense[-1], self.goal, "end at the target's pose")):
            if np.abs(np.asarray(readings) - pose).max() > POSE_TOLERANCE:
                shown = ', '.join(f'{v:.6f}' for v in readings)
                raise LineError(f'the straight line cannot {what}: its closed form there, on '
                                f'the elbow it starts on, is [{shown}] rad (the pose is on '
                                'the other elbow, or reaches another way)')

    def _check_rates(self) -> None:
        steps = np.abs(np.diff(self.dense, axis=0))
        if self._roll is not None:
            steps[:, self._planner._roll] = 0.0  # turned linearly, never singular
        moving = self._measure > 0.0
        rates = np.zeros_like(steps)
        rates[moving] = steps[moving] / self._measure[moving, None]
        worst = np.unravel_index(np.argmax(rates), rates.shape)
        if rates[worst] > SINGULAR_RATE:
            s = float(self.s[worst[0]])
            name = self._planner.geometry.joint_names[worst[1]]
            raise LineError(f'the straight line passes a singularity at '
                            f'{_where(self.point_at(s))}, {100.0 * s:.0f} % along it: '
                            f"'{name}' would turn {rates[worst]:.0f} rad per metre of the tool "
                            'point (the arm stretched or folded, or the wrist over the yaw '
                            'axis)')

    # -- derivatives ----------------------------------------------------------------------------

    def _derivatives(self):
        h = float(self.s[1] - self.s[0])
        first = np.gradient(self.dense, h, axis=0)
        second = np.gradient(first, h, axis=0)
        third = np.gradient(second, h, axis=0)
        bounds = PathBounds(*(tuple(float(v) * BOUND_MARGIN for v in np.abs(d).max(axis=0))
                              for d in (first, second, third)))
        return (first, second, third), bounds

    def readings(self, s) -> np.ndarray:
        """Exact readings at each ``s`` (n,): (n, N) rad, solved from the nearest dense pose."""
        s = np.asarray(s, dtype=float)
        count = len(self.s) - 1
        out = np.empty((len(s), self.dense.shape[1]))
        for row, value in enumerate(s):
            value = min(max(float(value), 0.0), 1.0)
            index = int(round(value * count))
            out[row] = self._solve(value, self.dense[index], self._branches[index],
                                   checked=False)
        return out

    def interpolated(self, s) -> np.ndarray:
        """Return readings at each ``s`` (n,), interpolated between the dense poses, rad."""
        s = np.clip(np.asarray(s, dtype=float), 0.0, 1.0)
        return np.stack([np.interp(s, self.s, self.dense[:, j])
                         for j in range(self.dense.shape[1])], axis=1)

    def derivatives(self, s, third: bool = False):
        """Return dq/ds and d2q/ds2 (and d3q/ds3) at each ``s`` (n,), interpolated: (n, N)."""
        s = np.clip(np.asarray(s, dtype=float), 0.0, 1.0)
        columns = range(self.dense.shape[1])
        return tuple(np.stack([np.interp(s, self.s, d[:, j]) for j in columns], axis=1)
                     for d in self._slopes[:3 if third else 2])
