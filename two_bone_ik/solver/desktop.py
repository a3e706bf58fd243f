"""Closed-form inverse kinematics of a whole desktop arm: yaw, the two-bone pair, pitch, roll.

:class:`DesktopSolver` is built once per arm from its canonical parameters
(:class:`~two_bone_ik.solver.desktop_model.DesktopArm`) and solves one target with
:meth:`DesktopSolver.solve` or many with :meth:`DesktopSolver.solve_batch` (numpy, row ``i``
equal to ``solve`` on target ``i`` to rounding). The steps, each exact:

1. The roll: held at ``previous`` (position only: the last command, or where the arm is
   before one), or the roll of the target's orientation split about the arm's own axes
   (``orientation`` given).
2. The yaw faces the target: of the two yaws whose plane holds it, the one that puts it on the
   side of the yaw axis where the tool point is at zero readings; a target on the yaw axis keeps
   the held yaw. Closer to the axis than the arm's plane is to it: no yaw can face it
   (``INSIDE_INNER``). Position only, when no pose facing it reaches it with the roll held,
   the roll moves, then the yaw turns back (see the class docstring: the preference order).
3. In the plane, the approach pitch: ``approach_pitch`` (or the split's pitch) when a pose
   reaches the target with it within the limits; else the feasible pitch nearest it, found
   among the exact boundaries of the feasible set (:mod:`~two_bone_ik.solver.desktop_pitch`),
   ties going to the pitch nearest the last command; both elbow branches count when
   ``allow_elbow_flip`` is true (the configured one first at equal pitch).
4. The pair by the planar closed form to the wrist point (on a boundary of the feasible
   pitches, from the joint the boundary holds); the pitch joint takes the rest of the angle.
5. When the arm's real axes are off the ideal ones by more than moves the tool point 1e-9 x
   reach, at most two Newton steps on the real chain's tool point
   (:class:`~two_bone_ik.solver.desktop_correction.QuickCorrection`) put it on the target
   (else the general correction's steps); the roll stays.

Statuses (:class:`DesktopStatus`): ``REACHED`` (tool point within 1e-9 x reach of the target,
across the plane of an arm without a yaw within ``out_of_plane_tolerance``, and, with an
orientation, the split's pitch and roll commanded), ``ELBOW_FLIPPED`` (reached on
the other branch), ``APPROACH_ADJUSTED`` (reached, but with an orientation the pitch had to
change; it takes precedence over ``ELBOW_FLIPPED``), ``OUT_OF_REACH``, ``INSIDE_INNER``,
``JOINT_LIMITED`` (also when the split's roll is past a limit though the tool point is on the
target) and, for an arm without a yaw, ``OFF_PLANE``. The closest poses when the target cannot
be reached are defined in :meth:`DesktopSolver.solve`.

Imports only math, numpy and the two-bone solver's public API.
"""

import math
from typing import Callable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from two_bone_ik.solver import (
    IkInputError, IkStatus, JointLimits, MAX_MAGNITUDE, solve, wrap_angle as _wrap)
from two_bone_ik.solver.chain_kinematics import (
    chain_pose, jacobian_columns, multiply, rotation_angle, transpose)
from two_bone_ik.solver.desktop_batch import solve_batch as _solve_batch
from two_bone_ik.solver.desktop_correction import QuickCorrection
from two_bone_ik.solver.desktop_model import (
    DesktopArm, quaternion_rotation, split_orientation, ToolAtRoll)
from two_bone_ik.solver.desktop_pitch import (
    BoundaryRoots, ELBOW, limit_circle_joints, limit_circles)
from two_bone_ik.solver.desktop_pitch import pitch_boundaries, pitch_limit_angles, SHOULDER
from two_bone_ik.solver.desktop_results import (
    DesktopSolution, DesktopStatus, MAX_CORRECTION, NEWTON_STEPS, NEWTON_STEPS_NEAR_SINGULAR,
    ON_TARGET, ON_TARGET_TOLERANCE, PITCH_STEP, PITCH_TOLERANCE,
    SIDE_TOLERANCE, TIE_TOLERANCE)
from two_bone_ik.solver.desktop_roll import roll_ends, RollGeometry, RollTarget, stretch_trials
from two_bone_ik.solver.reading_turns import fit_or_clamp, fit_reading

_TAU = 2.0 * math.pi
_NAN = math.nan
_REACHED = IkStatus.REACHED
# The fast path looks these up as module globals rather than as attributes of math.
_atan2, _cos, _sin, _sqrt = math.atan2, math.cos, math.sin, math.sqrt
_hypot, _remainder = math.hypot, math.remainder
_tuple_new = tuple.__new__


class _Plane(NamedTuple):
    """The in-plane part of a solution: pair angles, pitch reading, outcome."""

    q1: float
    q2: float
    pitch: Optional[float]
    status: DesktopStatus
    elbow: str
    phi: float
    tool_u: float  # commanded tool point from the shoulder, m
    tool_v: float
    fixed: Optional[int] = None  # the joint the pitch's boundary holds; None: the wanted pitch


#: ``accept(readings) -> bool``: see :meth:`DesktopSolver.solve`.
Accept = Callable[[Tuple[float, ...]], bool]


class _Facing(NamedTuple):
    """The yaw and the target in the arm's plane."""

    reading: Optional[float]
    yaw: float
    u: float  # target from O along the turned forward axis, m
    v: float  # target from O along up, m
    off: float  # target's offset from the arm's plane, m
    status: Optional[DesktopStatus]


class _Attempt(NamedTuple):
    """One class's pose: the yaw, the plane, the roll and its tool; back; roll moved."""

    facing: _Facing
    plane: _Plane
    roll: float
    tool: ToolAtRoll
    back: bool
    moved: bool
    corrected: Optional[tuple] = None  # the quick correction's result, when already run


def _canonical_limits(zero: float, direction: int, lower: float, upper: float):
    """Solver-angle limits ``zero + direction * reading`` of reading limits, rad."""
    if direction > 0:
        return (zero + lower, zero + upper)
    return (zero - upper, zero - lower)


class DesktopSolver:
    """Solves targets for one desktop arm.

    Parameters
    ----------
    arm : DesktopArm
        The arm's canonical parameters.
    elbow : {'up', 'down', 'nearest'}
        Preferred elbow branch, geometric in the arm's plane (+v up); ``'nearest'``: the branch
        nearer the last command.
    allow_elbow_flip : bool
        Whether poses on the other branch count.
    out_of_plane_tolerance : float
        For an arm without a yaw: off-plane distance (m) up to which a target counts as in the
        plane (as the planar node does): its status and ``reachable`` are its projection's,
        ``error`` the whole distance; beyond it ``OFF_PLANE``.
    allow_reach_back : bool
        Whether a position-only target may be reached with the arm reaching back over the yaw
        axis (classes (c) and (d) of the preference order); an attribute, settable.

    Notes
    -----
    **The preference order** (position only, an arm with a yaw): the first class with an exact
    pose within the limits decides: (a) the yaw facing the target, the roll held; (b) facing,
    the roll moved (to the first of a few rolls the geometry names, nearest the held one first;
    see :meth:`_moved_roll`); (c) reaching back over the yaw axis (the yaw about half a turn
    from facing), the roll held; (d) back, the roll moved. Within a class: the pitch nearest
    ``approach_pitch`` (ties: nearest the last command's, else above), then the configured
    elbow. The solution says which in ``yaw_branch`` and ``roll_moved``.

    **The seam for a collision check** (``accept`` of :meth:`solve`): ``accept(readings) ->
    bool``, ``readings`` a tuple of N floats in chain order (rad). The exact poses are offered
    in the preference order and the first it accepts is returned. Within a class, per elbow
    (the class's best pose's first, the other when ``allow_elbow_flip``), after the pitch
    nearest the wanted one the pitches go on through that elbow's feasible set moving away from
    the wanted pitch, nearest first, both ways, in steps of at most 2 degrees, each interval
    ending at its ends (a moved roll stays at the roll its class chose). It is called only
    while it refuses: a target whose first pose it accepts costs one call. When exact poses
    exist and it accepts none, the most preferred is returned with ``accepted`` False. On an
    arm whose axes are off, the readings offered are the ideal arm's (the commanded ones differ
    by the exactness correction, about the axis error). Without ``accept`` nothing changes.

    Raises
    ------
    IkInputError
        If ``elbow`` or the tolerance is invalid.
    """

    def __init__(self, arm: DesktopArm, elbow: str = 'up', allow_elbow_flip: bool = True,
                 out_of_plane_tolerance: float = 0.001, allow_reach_back: bool = True):
        if elbow not in ('up', 'down', 'nearest'):
            raise IkInputError(f"elbow must be 'up', 'down' or 'nearest', got {elbow!r}")
        if not (math.isfinite(out_of_plane_tolerance) and out_of_plane_tolerance >= 0.0):
            raise IkInputError('out_of_plane_tolerance must be a non-negative distance, got '
                               f'{out_of_plane_tolerance!r}')
        self.arm = arm
        self.elbow = elbow
        self.allow_elbow_flip = bool(allow_elbow_flip)
        self.out_of_plane_tolerance = float(out_of_plane_tolerance)
        self.allow_reach_back = bool(allow_reach_back)
        self._indices = arm.indices
        _, i1, i2, i3, _ = self._indices
        lower, upper = arm.lower_limits, arm.upper_limits
        (z1, z2), d = arm.zero_angles, arm.directions
        shoulder = _canonical_limits(z1, d[i1], lower[i1], upper[i1])
        elbow_limits = _canonical_limits(z2, d[i2], lower[i2], upper[i2])
        limited = any(math.isfinite(v) for v in shoulder + elbow_limits)
        self._pair_limits = JointLimits((shoulder, elbow_limits)) if limited else None
        self._pair_box = (shoulder, elbow_limits) if limited else None
        self._continuous = tuple(lo == -math.inf and hi == math.inf
                                 for lo, hi in zip(lower, upper))
        self._circles = limit_circles(*arm.link_lengths, shoulder, elbow_limits)
        self._circle_joints = limit_circle_joints(shoulder, elbow_limits)
        self._pitch_angles = () if i3 is None else pitch_limit_angles(
            _canonical_limits(0.0, d[i3], lower[i3], upper[i3]))
        self._roots = BoundaryRoots(*arm.link_lengths, self._circles, self._circle_joints,
                                    self._pitch_angles)
        self.reach = arm.reach
        self._on_target = ON_TARGET_TOLERANCE * self.reach
        #: The ideal arm is the real one within the on-target tolerance: no correction.
        self._ideal = arm.exact or arm.model_error < self._on_target
        self._quick = (QuickCorrection(arm, self._on_target)
                       if not self._ideal and arm.has_yaw and arm.has_pitch else None)
        #: How far inside its limits (rad) a moved roll puts the yaw: room for the correction.
        self._yaw_margin = max(1e-9, 100.0 * arm.model_error / self.reach)
        #: How far inside a stretch of reaching rolls a moved roll goes first (rad): room for
        #: the correction, and a pose not pinched between two boundaries.
        self._roll_margin = max(1e-6, 100.0 * arm.model_error / self.reach)
        i4 = self._indices[4]
        #: Whether a position-only target may move the roll (it has room to move).
        self._roll_free = i4 is not None and lower[i4] < upper[i4]
        self._roll_geometry = RollGeometry(
            arm, self._circles, self._pitch_angles, self._yaw_limits_inside()
            ) if self._roll_free else None
        # What the Newton correction moves (see _unknowns).
        self._newton_joints = tuple(i for i in self._indices[:4] if i is not None)
        self._free_moves = tuple((i, ((i, 1.0),)) for i in self._newton_joints)
        self._held_moves = self._free_moves
        if arm.has_yaw and i3 is not None:
            d = arm.directions
            self._held_moves = ((0, ((0, 1.0),)), (i1, ((i1, 1.0), (i3, -d[i1] / d[i3]))),
                                (i2, ((i2, 1.0), (i3, -d[i2] / d[i3]))))
        self._tool_cache: Tuple[Optional[float], Optional[ToolAtRoll]] = (None, None)
        #: Most a correction may move a joint (and a Newton step: a trust region), rad.
        self._step_bound = MAX_CORRECTION * math.sqrt(arm.model_error / self.reach)
        self._fast = self._fast_constants()
        #: What _fast_plane reads.
        self._fast_tail = None if self._fast is None else (
            self._fast[16:24] + self._continuous[1:4] + (arm.joint_count, self.elbow)
            + arm.link_lengths)
        self._wanted = (math.nan, math.nan, math.nan)  # the last wanted pitch, its cos and sin

    def _fast_constants(self):
        """Return what :meth:`_solve_fast` reads, as one flat tuple, or None.

        Only an arm with a yaw and a pitch qualifies (the rest takes the general path).
        """
        arm = self.arm
        if not (arm.has_yaw and arm.has_pitch):
            return None
        tool = None if arm.has_roll else arm.tool_at(0.0)
        (ox, oy, oz), (fx, fy, fz), (wx, wy, wz), (nx, ny, nz) = (
            arm.origin, arm.forward, arm.up, arm.normal)
        return (ox, oy, oz, fx, fy, fz, wx, wy, wz, nx, ny, nz, *arm.shoulder, *arm.link_lengths,
                *arm.zero_angles, *arm.directions[:4], arm.lower_limits, arm.upper_limits,
                self._continuous[:4], 1e-3 * self._on_target, arm.joint_count, tool,
                self.elbow, self._pair_limits)

    def _solve_fast(self, x, y, z, previous, wanted):
        """:meth:`solve` for a target the arm faces and reaches with the roll held, in limits.

        The common case, straight through: position only, an arm with a yaw and a pitch, the
        roll held within its limits; axes a little off corrected by :class:`QuickCorrection`.
        Returns None for anything else (the general path then decides), so its results are the
        general path's (the tests compare the two).
        """
        (ox, oy, oz, fx, fy, fz, wx, wy, wz, nx, ny, nz, su, sv, l1, l2, z1, z2, d0, d1, d2, d3,
         lower, upper, (c0, c1, c2, c3), near, count, tool, elbow, pair_limits) = self._fast
        if not (-1e100 <= x <= 1e100 and -1e100 <= y <= 1e100 and -1e100 <= z <= 1e100
                and -1e100 <= wanted <= 1e100):
            return None
        roll = 0.0
        if previous is not None:
            if len(previous) != count:
                return None
            try:  # finite numbers: x - x is 0 for them only (NaN and inf give NaN)
                if count == 4:
                    p0, p1, p2, p3 = previous
                    finite = p0 - p0 == p1 - p1 == p2 - p2 == p3 - p3 == 0.0
                else:
                    p0, p1, p2, p3, roll = previous
                    finite = p0 - p0 == p1 - p1 == p2 - p2 == p3 - p3 == roll - roll == 0.0
            except TypeError:
                finite = False
            if not finite:
                return None
        if tool is None:
            if not lower[4] <= roll <= upper[4]:
                return None
            tool = self._tool(roll)
        l3, beta, lateral = tool
        dx, dy, dz = x - ox, y - oy, z - oz
        hu = dx * fx + dy * fy + dz * fz
        hn = dx * nx + dy * ny + dz * nz
        rho = _hypot(hu, hn)
        if rho <= near or rho < abs(lateral) - near:
            return None
        u = (rho - lateral) * (rho + lateral)
        u = _sqrt(u) if u > 0.0 else 0.0
        yaw = d0 * _atan2(lateral * hu - u * hn, u * hu + lateral * hn)
        branch = 'facing'
        if not c0:
            fitted = fit_reading(yaw, lower[0], upper[0], None if previous is None else p0)
            if fitted is None:  # class (c) when (a) and (b) are surely empty
                back = self._fast_back(x, y, z, lateral, previous, roll)
                if back is None:
                    return None
                fitted, u, branch = back.reading, back.u, 'back'
            yaw = fitted
        elif previous is not None:
            yaw = p0 + _remainder(yaw - p0, _TAU)
        return self._fast_plane(x, y, z, previous, wanted, yaw, u - su,
                                dx * wx + dy * wy + dz * wz - sv, tool, roll, branch)

    def _fast_back(self, x, y, z, lateral, previous, roll) -> Optional[_Facing]:
        """Return the yaw reaching back when the yaw cannot face the target at any roll."""
        if not self.allow_reach_back or self._roll_free and self._yaw_crossings(
                x, y, z, False):
            return None
        return self._back(x, y, z, lateral, previous)

    def _fast_plane(self, x, y, z, previous, wanted, yaw, du, dv, tool, roll, branch):
        """Finish :meth:`_solve_fast`: the plane, the readings, the correction."""
        z1, z2, d0, d1, d2, d3, lower, upper, c1, c2, c3, count, elbow, l1, l2 = self._fast_tail
        if previous is None:
            previous_q = p3 = None
        else:
            p1, p2, p3 = previous[1], previous[2], previous[3]
            previous_q = (z1 + d1 * p1, z2 + d2 * p2)
        if elbow == 'nearest':
            elbow = _branch_of(previous_q)
        if wanted != self._wanted[0]:
            self._wanted = (wanted, _cos(wanted), _sin(wanted))
        _, cos_wanted, sin_wanted = self._wanted
        l3, beta, _ = tool
        wu, wv = du - l3 * cos_wanted, dv - l3 * sin_wanted
        sol = solve(wu, wv, l1, l2, elbow, None, False, previous_q if wu == wv == 0.0 else None)
        q1, q2, pitch = sol[0], sol[1], None
        if sol[2] is _REACHED and self._pair_box is not None:  # (as _pair_on)
            (lo1, hi1), (lo2, hi2) = self._pair_box
            q1 = fit_reading(q1, lo1, hi1, None if previous_q is None else previous_q[0])
            q2 = fit_reading(q2, lo2, hi2, None if previous_q is None else previous_q[1])
        if sol[2] is _REACHED and q1 is not None and q2 is not None:
            pitch = d3 * (wanted - beta - q1 - q2)
            if not c3:
                pitch = fit_reading(pitch, lower[3], upper[3], p3)
            elif p3 is not None:
                pitch = p3 + _remainder(pitch - p3, _TAU)
            elif not -math.pi <= pitch <= math.pi:
                pitch = _wrap(pitch)
        status, phi, fixed = _STATUS_REACHED, wanted, None
        if pitch is None:  # the feasible pitch nearest the wanted one (see _search)
            found = self._search(du, dv, tool, wanted, elbow, previous, previous_q)
            if found is None:
                return None
            phi, side, (q1, q2, pitch), kind = found
            status = _STATUS_REACHED if side == elbow else _STATUS_FLIPPED
            elbow, fixed = side, None if _remainder(phi - wanted, _TAU) == 0.0 else kind
        r1, r2 = d1 * (q1 - z1), d2 * (q2 - z2)
        if previous is not None:
            if c1:
                r1 = p1 + _remainder(r1 - p1, _TAU)
            if c2:
                r2 = p2 + _remainder(r2 - p2, _TAU)
        readings = (yaw, r1, r2, pitch) if count == 4 else (yaw, r1, r2, pitch, roll)
        point, error = (x, y, z), 0.0
        if self._quick is not None:
            corrected = self._quick.correct(readings, point, d0 * yaw, q1, q2, phi, tool, fixed)
            if corrected is None:
                return None
            readings, point, error = corrected
        asked = _remainder(wanted, _TAU)
        asked = asked if asked != -math.pi else math.pi
        return _tuple_new(DesktopSolution, (
            readings, status, True, point, error, elbow, asked if phi is wanted else
            _pitch_angle(phi), asked, 0.0, _hypot(du, dv), _NAN, branch, False, True))

    # -- one target ------------------------------------------------------------------------

    def solve(self, x: float, y: float, z: float, previous: Optional[Sequence[float]] = None,
              approach_pitch: float = 0.0, orientation: Optional[Sequence[float]] = None,
              accept: Optional[Accept] = None) -> DesktopSolution:
        """Solve one target.

        Parameters
        ----------
        x, y, z : float
            Target tool point in the arm's base frame, m.
        previous : sequence of N float, optional
            The last commanded readings, rad: the roll held, the yaw kept for a target on the
            yaw axis, ties of pitch, the ``'nearest'`` elbow, whole turns (nearest them).
        approach_pitch : float
            Preferred approach pitch, rad (position only).
        orientation : sequence of 4 float, optional
            The target's orientation of the tip frame, a quaternion (x, y, z, w): its pitch and
            roll about the arm's own axes are commanded (for an arm with a pitch joint), its
            extra yaw (and, without a roll joint, its roll) dropped and measured in
            ``orientation_error``.
        accept : callable, optional
            ``accept(readings) -> bool``, ``readings`` a tuple of N floats (chain order, rad):
            position only, the exact poses are offered in the preference order (see the class
            docstring) and the first accepted is returned; when none is, the most preferred
            with ``accepted`` False.

        Returns
        -------
        DesktopSolution
            When the target cannot be reached, the closest pose defined as follows (in the ideal
            arm): beyond reach, the arm stretched toward the target in its plane (tool point on
            the line from the shoulder); inside the inner hole, folded toward it (or, for a tool
            longer than the pair, the wrist stretched away with the tool pointing at it); past
            a limit, the pose at the wanted pitch whose wrist point is the two-bone solver's
            closest in limits, the pitch joint on its nearer limit if needed; a yaw past its
            limit stops on the nearer one, the target projected onto that plane; a target
            nearer the yaw axis than the arm's plane turns the plane to pass nearest it.

        Raises
        ------
        IkInputError
            If a coordinate is NaN, infinite or beyond 1e100 m, ``previous`` is not N finite
            readings, or ``orientation`` is not a rotation quaternion.
        """
        if orientation is None and self._fast is not None:
            solution = self._solve_fast(x, y, z, previous, approach_pitch)
            if solution is not None:
                if accept is None or accept(solution.readings):
                    return solution
                accept = _after_first(accept)  # the general path offers this pose first too
        return self.solve_general(x, y, z, previous, approach_pitch, orientation, accept)

    def solve_general(self, x: float, y: float, z: float,
                      previous: Optional[Sequence[float]] = None, approach_pitch: float = 0.0,
                      orientation: Optional[Sequence[float]] = None,
                      accept: Optional[Accept] = None) -> DesktopSolution:
        """:meth:`solve` without its fast path (the same result; for tests)."""
        for name, value in (('x', x), ('y', y), ('z', z), ('approach_pitch', approach_pitch)):
            if not -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:
                raise IkInputError(f'{name} must be finite and within 1e100, got {value!r}')
        if previous is not None:
            previous = self._checked_previous(previous)
        rotation = None if orientation is None else quaternion_rotation(orientation)
        roll, roll_clamped, wanted, tool = self._wrist(x, y, z, previous, approach_pitch,
                                                       rotation)
        facing = self._face(x, y, z, tool.lateral, previous)
        su, sv = self.arm.shoulder
        du, dv = facing.u - su, facing.v - sv
        if rotation is None and self.arm.has_yaw:  # the preference order's exact poses
            plane = None if facing.status is not None else self._plane(
                du, dv, tool, wanted, previous, False, closest=False)
            solution = self._exact_solution(x, y, z, previous, wanted,
                                            _Attempt(facing, plane, roll, tool, False, False),
                                            accept)
            if solution is not None:
                return solution
        plane = self._plane(du, dv, tool, wanted, previous, rotation is not None)
        # (Position only with reach-back allowed, the back classes were tried above.)
        if plane.status in _BEYOND and facing.status is None and (
                rotation is not None or not self.allow_reach_back) and self._reaches_back(
                facing, tool, wanted, previous, rotation is not None):
            plane = plane._replace(status=DesktopStatus.JOINT_LIMITED)
        return self._finish(x, y, z, previous, facing, plane, roll, tool, du, dv, rotation,
                            roll_clamped, wanted)

    def _reaches_back(self, facing, tool, wanted, previous, oriented) -> bool:
        """Whether the other yaw, reaching back over the yaw axis, would reach the target.

        Its plane holds the target at -u; the yaw must fit its limits.
        """
        arm = self.arm
        if not arm.has_yaw:
            return False
        # The faced yaw turned so the target goes from +u to -u at the same offset.
        lateral = tool.lateral
        back = facing.yaw + math.pi - 2.0 * math.atan2(lateral, facing.u)
        if fit_reading(arm.directions[0] * back, arm.lower_limits[0], arm.upper_limits[0],
                       None) is None:
            return False
        su, sv = arm.shoulder
        plane = self._plane(-facing.u - su, facing.v - sv, tool, wanted, previous, oriented)
        return plane.status in ON_TARGET

    # -- the preference order (position only) -----------------------------------------------

    def _exact_solution(self, x, y, z, previous, wanted, first, accept):
        """Return the solution of the first exact pose in the preference order, or None."""
        found = self._first_exact(x, y, z, previous, wanted, first, accept)
        if found is None:
            return None
        attempt, accepted = found
        su, sv = self.arm.shoulder
        facing, plane = attempt.facing, attempt.plane
        readings = self._readings(facing, plane, attempt.roll, previous)
        point, error = (x, y, z), 0.0
        if not self._ideal:
            corrected = attempt.corrected or self._quick_correction(
                x, y, z, readings, facing, plane, attempt.tool, None, 0.0)
            if corrected is None:  # the general correction decides (rare)
                solution = self._finish(x, y, z, previous, facing, plane, attempt.roll,
                                        attempt.tool, facing.u - su, facing.v - sv, None,
                                        False, wanted)
                return solution._replace(yaw_branch='back' if attempt.back else 'facing',
                                         roll_moved=attempt.moved, accepted=accepted)
            readings, point, error = corrected
        return _tuple_new(DesktopSolution, (
            tuple(readings), plane.status, True, point, error, plane.elbow, plane.phi,
            _pitch_angle(wanted) if self.arm.has_pitch else _NAN, 0.0,
            math.hypot(facing.u - su, facing.v - sv), _NAN,
            'back' if attempt.back else 'facing', attempt.moved, accepted))

    def _first_exact(self, x, y, z, previous, wanted, first, accept):
        """Return (the first exact pose ``accept`` takes, True), else (the first, False).

        None when no class has an exact pose. Without ``accept``, the first class's best.
        """
        classes = self._classes(x, y, z, previous, wanted, first)
        if accept is None:
            found = next(classes, None)
            return None if found is None else (found, True)
        preferred = None
        for attempt in classes:
            for candidate in self._offered(attempt, previous, wanted):
                readings = self._readings(candidate.facing, candidate.plane, candidate.roll,
                                          previous)
                if accept(tuple(readings)):
                    return candidate, True
                if preferred is None:
                    preferred = candidate
        return None if preferred is None else (preferred, False)

    def _exact(self, attempt) -> bool:
        return (attempt is not None and attempt.facing.status is None
                and attempt.plane is not None and attempt.plane.status in ON_TARGET)

    def _classes(self, x, y, z, previous, wanted, first) -> Iterator['_Attempt']:
        """Yield the best exact pose of each class that has one: (a), (b), (c), (d).

        (a) facing the target, the roll held; (b) facing, the roll moved; (c) reaching back
        over the yaw axis, the roll held; (d) back, the roll moved. Lazily: a class is solved
        only when the ones before it are empty (or refused by ``accept``).
        """
        if self._exact(first):
            yield first
        held = first.roll
        if self._roll_free:
            yaw_fits = first.facing.status is not DesktopStatus.JOINT_LIMITED
            moved = self._moved_roll(x, y, z, previous, wanted, held, False, yaw_fits)
            if moved is not None:
                yield moved
        if not self.allow_reach_back:
            return
        back = self._attempt(x, y, z, previous, wanted, held, first.tool, True)
        if self._exact(back):
            yield back
        if self._roll_free:
            moved = self._moved_roll(x, y, z, previous, wanted, held, True, back is not None)
            if moved is not None:
                yield moved

    def _attempt(self, x, y, z, previous, wanted, roll, tool, back) -> Optional['_Attempt']:
        """Return the plane's best pose with the yaw facing (or turned back), at roll ``roll``."""
        if back:
            facing = self._back(x, y, z, tool.lateral, previous)
            if facing is None:
                return None
        else:
            facing = self._face(x, y, z, tool.lateral, previous)
        su, sv = self.arm.shoulder
        plane = self._plane(facing.u - su, facing.v - sv, tool, wanted, previous, False,
                            closest=False)
        return _Attempt(facing, plane, roll, tool, back, False)

    def _back(self, x, y, z, lateral, previous) -> Optional[_Facing]:
        """Return the yaw half a turn from facing (the target at -u) in its limits, or None."""
        arm = self.arm
        o, f, w, n = arm.origin, arm.forward, arm.up, arm.normal
        dx, dy, dz = x - o[0], y - o[1], z - o[2]
        hu = dx * f[0] + dy * f[1] + dz * f[2]
        hn = dx * n[0] + dy * n[1] + dz * n[2]
        rho = math.hypot(hu, hn)
        near = 1e-3 * self._on_target
        if rho <= near or rho < abs(lateral) - near:
            return None  # on the yaw axis (both yaws alike), or no yaw faces it
        u = math.sqrt(max(0.0, (rho - lateral) * (rho + lateral)))
        yaw = math.atan2(lateral * hu + u * hn, lateral * hn - u * hu)
        reading = fit_reading(arm.directions[0] * yaw, arm.lower_limits[0],
                              arm.upper_limits[0], None if previous is None else previous[0])
        if reading is None:
            return None
        return _Facing(reading, yaw, -u, dx * w[0] + dy * w[1] + dz * w[2], 0.0, None)

    def _moved_roll(self, x, y, z, previous, wanted, held, back, yaw_fits
                    ) -> Optional['_Attempt']:
        """Return an exact pose with the roll moved (class (b) or (d)), or None.

        The roll nearest the held one at which a pose reaches the target: the roll's range
        (within half a turn of ``held``) cut where reachability may change
        (:func:`~two_bone_ik.solver.desktop_roll.roll_ends`), each stretch tried from its end
        nearest ``held``, nearest stretches first. ``yaw_fits``: whether the yaw fits its
        limits at the held roll (if not and no roll brings it to a limit, none can help).
        """
        if not self._roll_may_reach(x, y, z, back):
            return None
        if not yaw_fits and not self._yaw_crossings(x, y, z, back):
            return None  # the yaw fits at no roll: the sideways swing never brings it in
        index = self._indices[4]
        low = max(self.arm.lower_limits[index], held - math.pi)
        high = min(self.arm.upper_limits[index], held + math.pi)
        hu, hn = self._horizontal(x, y, z)
        o, w = self.arm.origin, self.arm.up
        dv = (x - o[0]) * w[0] + (y - o[1]) * w[1] + (z - o[2]) * w[2] - self.arm.shoulder[1]
        ends = roll_ends(self._roll_geometry, RollTarget(float(hu), float(hn), float(dv), back),
                         low, high)
        fallback = None  # the first exact pose the quick correction gave up on
        for trials in stretch_trials(ends, held, self._roll_margin):
            for roll in trials:
                attempt = self._attempt(x, y, z, previous, wanted, roll, self._tool(roll),
                                        back)
                if not self._exact(attempt):
                    continue
                attempt = attempt._replace(moved=True)
                if self._ideal or self._quick is None:
                    return attempt
                readings = self._readings(attempt.facing, attempt.plane, roll, previous)
                corrected = self._quick_correction(x, y, z, readings, attempt.facing,
                                                   attempt.plane, attempt.tool, None, 0.0)
                if corrected is not None:
                    return attempt._replace(corrected=corrected)
                fallback = fallback or attempt
        return fallback

    def _yaw_crossings(self, x, y, z, back) -> bool:
        """Whether some roll puts the yaw facing the target (or back) on one of its limits."""
        geometry = self._roll_geometry
        target = RollTarget(*self._horizontal(x, y, z), 0.0, back)
        hu, hn = target.hu, target.hn
        for yaw in geometry.yaw_angles:
            ahead = hu * math.cos(yaw) - hn * math.sin(yaw) > 0.0
            needed = hu * math.sin(yaw) + hn * math.cos(yaw)
            if geometry.swing > 0.0 and ahead != back and \
                    abs(needed - geometry.lateral) <= geometry.swing:
                return True
        return False

    def _yaw_limits_inside(self) -> Tuple[float, ...]:
        """Return the yaw's finite limits moved inside by the margin a correction needs, rad."""
        arm = self.arm
        lower, upper = arm.lower_limits[0], arm.upper_limits[0]
        if upper - lower >= _TAU:
            return ()
        margin = self._yaw_margin
        return tuple(v for v in (lower + margin, upper - margin) if math.isfinite(v))

    def _horizontal(self, x, y, z) -> Tuple[float, float]:
        """Return the target from the yaw axis along forward and normal (yaw 0), m."""
        arm = self.arm
        o, f, n = arm.origin, arm.forward, arm.normal
        dx, dy, dz = x - o[0], y - o[1], z - o[2]
        return dx * f[0] + dy * f[1] + dz * f[2], dx * n[0] + dy * n[1] + dz * n[2]

    def _roll_may_reach(self, x, y, z, back) -> bool:
        """Whether some roll might bring the target within the pair's annulus (a quick bound)."""
        arm = self.arm
        (a, b, c), (su, sv) = arm.tool, arm.shoulder
        swing = math.hypot(b[2], c[2])
        lat_low, lat_high = arm.wrist_lateral + a[2] - swing, arm.wrist_lateral + a[2] + swing
        lat2_high = max(lat_low * lat_low, lat_high * lat_high)
        lat2_low = 0.0 if lat_low <= 0.0 <= lat_high else min(lat_low ** 2, lat_high ** 2)
        o, f, w, n = arm.origin, arm.forward, arm.up, arm.normal
        dx, dy, dz = x - o[0], y - o[1], z - o[2]
        rho2 = (dx * f[0] + dy * f[1] + dz * f[2]) ** 2 + (dx * n[0] + dy * n[1] + dz * n[2]) ** 2
        if rho2 < lat2_low:
            return False
        u_low, u_high = math.sqrt(max(0.0, rho2 - lat2_high)), math.sqrt(rho2 - lat2_low)
        ends = (-u_high - su, -u_low - su) if back else (u_low - su, u_high - su)
        dv = dx * w[0] + dy * w[1] + dz * w[2] - sv
        nearest = 0.0 if ends[0] <= 0.0 <= ends[1] else min(abs(ends[0]), abs(ends[1]))
        farthest = max(abs(ends[0]), abs(ends[1]))
        l1, l2 = arm.link_lengths
        l3, slack = arm.max_tool_length(), self._on_target
        return (math.hypot(nearest, dv) <= l1 + l2 + l3 + slack
                and math.hypot(farthest, dv) >= abs(l1 - l2) - l3 - slack)

    def _offered(self, attempt, previous, wanted) -> Iterator['_Attempt']:
        """Yield one class's exact poses in the order ``accept`` is asked (see the class).

        The class's best first; then, per elbow (the best's first, the other when
        ``allow_elbow_flip``), the pitches of its feasible set from the nearest the wanted one
        outward, both ways, in steps of at most :data:`PITCH_STEP`, ending at each interval's
        ends.
        """
        yield attempt
        plane, facing = attempt.plane, attempt.facing
        su, sv = self.arm.shoulder
        du, dv = facing.u - su, facing.v - sv
        previous_q = self._previous_pair(previous)
        preferred = self._preferred(previous_q)
        branches = (plane.elbow, _OTHER[plane.elbow]) if self.allow_elbow_flip else (
            plane.elbow,)
        if not self.arm.has_pitch:
            for branch in branches[1:]:
                sol = solve(du, dv, *self.arm.link_lengths, branch, self._pair_limits, False,
                            previous_q)
                if sol.status is _REACHED and _on_side(sol.q2, branch):
                    yield attempt._replace(corrected=None, plane=_Plane(
                        sol.q1, sol.q2, None, _branch_status(branch, preferred), branch, _NAN,
                        du, dv))
            return
        previous_pitch = None if previous is None else previous[self._indices[3]]
        reference = None if previous is None else self._commanded_pitch(previous, attempt.tool)
        for branch in branches:
            for phi in self._pitch_walk(du, dv, attempt.tool, wanted, branch, previous_q,
                                        previous_pitch, reference):
                if branch == plane.elbow and abs(math.remainder(phi - plane.phi, _TAU)) <= \
                        TIE_TOLERANCE:
                    continue  # the best, offered first
                pose = self._pose_at(du, dv, attempt.tool, phi, branch, previous_q,
                                     previous_pitch)
                if pose is not None:
                    yield attempt._replace(corrected=None, plane=_Plane(
                        *pose, _branch_status(branch, preferred), branch, _pitch_angle(phi),
                        du, dv))

    def _pitch_walk(self, du, dv, tool, wanted, branch, previous_q, previous_pitch,
                    reference) -> List[float]:
        """Return one branch's feasible pitches (rad) to offer, nearest ``wanted`` first.

        The set's intervals come from the boundary roots: between two neighbouring roots
        feasibility does not change, so one pose at the middle decides each gap.
        """
        arm = self.arm
        roots = pitch_boundaries(du, dv, tool.length, tool.beta, *arm.link_lengths,
                                 self._circles, self._pitch_angles)
        cuts = sorted({-math.pi, math.pi, *(math.remainder(r - wanted, _TAU) for r in roots)})
        offsets = []
        for start, end in zip(cuts, cuts[1:]):
            if end - start <= TIE_TOLERANCE or self._pose_at(
                    du, dv, tool, wanted + 0.5 * (start + end), branch, previous_q,
                    previous_pitch) is None:
                continue
            first = min(max(0.0, start), end)  # the gap's point nearest the wanted pitch
            for side_end in (start, end):
                count = math.ceil(abs(side_end - first) / PITCH_STEP)
                offsets.extend(first + (side_end - first) * k / count
                               for k in range(1, count + 1))
            offsets.append(first)

        def key(offset):
            phi = wanted + offset
            tie = (abs(math.remainder(phi - reference, _TAU)) if reference is not None
                   else -offset)
            return (abs(offset), tie)
        return [wanted + offset for offset in sorted(set(offsets), key=key)]

    def solve_batch(self, targets, previous=None, approach_pitch=0.0, orientations=None):
        """Solve many targets at once; see :func:`two_bone_ik.solver.desktop_batch.solve_batch`."""
        return _solve_batch(self, targets, previous, approach_pitch, orientations)

    def _checked_previous(self, previous) -> Tuple[float, ...]:
        try:
            values = tuple(float(v) for v in previous)
        except (TypeError, ValueError):
            raise IkInputError(f'previous must be {self.arm.joint_count} readings, got '
                               f'{previous!r}') from None
        if len(values) != self.arm.joint_count or not all(map(math.isfinite, values)):
            raise IkInputError(f'previous must be {self.arm.joint_count} finite readings, got '
                               f'{list(values)!r}')
        return values

    def _tool(self, roll: float) -> ToolAtRoll:
        cached_roll, tool = self._tool_cache
        if cached_roll != roll:
            tool = self.arm.tool_at(roll)
            self._tool_cache = (roll, tool)
        return tool

    def _wrist(self, x, y, z, previous, approach_pitch, rotation):
        """Return the roll reading (and whether a limit stopped it), the wanted pitch, the tool."""
        arm = self.arm
        index = self._indices[4]
        roll, clamped = 0.0, False
        if index is not None:
            held = 0.0 if previous is None else previous[index]
            roll, _ = fit_or_clamp(held, arm.lower_limits[index], arm.upper_limits[index], held)
        tool = self._tool(roll)
        if rotation is None or not arm.has_pitch:
            return roll, False, approach_pitch, tool
        hint = self._face(x, y, z, tool.lateral, previous).yaw
        split = split_orientation(arm, rotation, hint)
        if index is not None:
            reference = None if previous is None else previous[index]
            roll, clamped = fit_or_clamp(split.roll, arm.lower_limits[index],
                                         arm.upper_limits[index], reference)
            tool = self._tool(roll)
        wanted = math.remainder(split.pitch_sum + sum(arm.zero_angles) + tool.beta, _TAU)
        return roll, clamped, wanted, tool

    # -- the yaw ---------------------------------------------------------------------------

    def _face(self, x, y, z, lateral, previous) -> _Facing:
        """Turn the arm's plane onto the target (see the class docstring)."""
        arm = self.arm
        o, f, w, n = arm.origin, arm.forward, arm.up, arm.normal
        dx, dy, dz = x - o[0], y - o[1], z - o[2]
        hu = dx * f[0] + dy * f[1] + dz * f[2]
        h = dx * w[0] + dy * w[1] + dz * w[2]
        hn = dx * n[0] + dy * n[1] + dz * n[2]
        if not arm.has_yaw:
            return _Facing(None, 0.0, hu, h, hn - lateral, None)
        direction = arm.directions[0]
        lower, upper = arm.lower_limits[0], arm.upper_limits[0]
        near = 1e-3 * self._on_target
        rho = math.hypot(hu, hn)
        if rho <= near:
            yaw = 0.0 if previous is None else direction * previous[0]
            c, s = math.cos(yaw), math.sin(yaw)
            u, off = hu * c - hn * s, hu * s + hn * c - lateral
        elif rho >= abs(lateral) - near:
            # The yaw turning (hu, hn) onto (u, lateral): one rotation, one atan2.
            u, off = math.sqrt(max(0.0, (rho - lateral) * (rho + lateral))), 0.0
            yaw = math.atan2(lateral * hu - u * hn, u * hu + lateral * hn)
        else:
            yaw = math.copysign(0.5 * math.pi, lateral) - math.atan2(hn, hu)
            u, off = 0.0, math.copysign(rho, lateral) - lateral
        status = DesktopStatus.INSIDE_INNER if abs(off) > self._on_target else None
        reading, clamped = fit_or_clamp(direction * yaw, lower, upper,
                                        None if previous is None else previous[0])
        if clamped:
            yaw = direction * reading
            c, s = math.cos(yaw), math.sin(yaw)
            u, off = hu * c - hn * s, hu * s + hn * c - lateral
            status = DesktopStatus.JOINT_LIMITED
        return _Facing(reading, yaw, u, h, off, status)

    # -- the plane -------------------------------------------------------------------------

    def _previous_pair(self, previous):
        if previous is None:
            return None
        _, i1, i2, _, _ = self._indices
        (z1, z2), d = self.arm.zero_angles, self.arm.directions
        return (z1 + d[i1] * previous[i1], z2 + d[i2] * previous[i2])

    def _plane(self, du, dv, tool, wanted, previous, oriented, closest=True
               ) -> Optional[_Plane]:
        """Return the pair and the pitch for a target at (du, dv) from the shoulder (m).

        When no pose reaches it: the closest pose, or None without ``closest``.
        """
        arm = self.arm
        l1, l2 = arm.link_lengths
        previous_q = self._previous_pair(previous)
        if not arm.has_pitch:
            sol = solve(du, dv, l1, l2, self.elbow, self._pair_limits, self.allow_elbow_flip,
                        previous_q)
            if not closest and sol.status is not _REACHED and sol.status is not \
                    IkStatus.ELBOW_FLIPPED:
                return None
            return _Plane(sol.q1, sol.q2, None, DesktopStatus(sol.status), sol.elbow, _NAN,
                          sol.tip[0], sol.tip[1])
        i3 = self._indices[3]
        previous_pitch = None if previous is None else previous[i3]
        preferred = self._preferred(previous_q)
        pose = self._pose_at(du, dv, tool, wanted, preferred, previous_q, previous_pitch)
        if pose is not None:
            return _Plane(*pose, DesktopStatus.REACHED, preferred, _pitch_angle(wanted), du, dv)
        found = self._search(du, dv, tool, wanted, preferred, previous, previous_q)
        if found is None:
            return None if not closest else self._closest(du, dv, tool, wanted, preferred,
                                                          previous_q, previous_pitch)
        phi, branch, (q1, q2, pitch), kind = found
        status = DesktopStatus.REACHED if branch == preferred else DesktopStatus.ELBOW_FLIPPED
        if oriented and abs(math.remainder(phi - wanted, _TAU)) > PITCH_TOLERANCE:
            status = DesktopStatus.APPROACH_ADJUSTED
        return _Plane(q1, q2, pitch, status, branch, phi, du, dv,
                      None if abs(math.remainder(phi - wanted, _TAU)) == 0.0 else kind)

    def _preferred(self, previous_q) -> str:
        """Return the preferred elbow branch: the configured one; 'nearest': the last command's."""
        if self.elbow != 'nearest':
            return self.elbow
        return _branch_of(previous_q)

    def _pose_at(self, du, dv, tool, phi, branch, previous_q, previous_pitch):
        """(q1, q2, pitch reading) reaching the target at pitch ``phi`` on a branch, or None."""
        arm = self.arm
        l1, l2 = arm.link_lengths
        l3 = tool.length
        wu, wv = du - l3 * math.cos(phi), dv - l3 * math.sin(phi)
        pair = self._pair_on(wu, wv, branch, previous_q)
        if pair is None:
            return None
        q1, q2 = pair
        i3 = self._indices[3]
        pitch = fit_reading(arm.directions[i3] * (phi - tool.beta - q1 - q2),
                            arm.lower_limits[i3], arm.upper_limits[i3], previous_pitch)
        return None if pitch is None else (q1, q2, pitch)

    def _boundary_pose(self, du, dv, tool, phi, held, preferred, previous_q, previous_pitch):
        """Return the pose on a boundary of the feasible pitches, and its branch.

        At a root of a boundary equation (:mod:`~two_bone_ik.solver.desktop_pitch`) the joint
        it holds is at its angle exactly (the elbow straight, folded or on a limit, the
        shoulder or the pitch on a limit) and the rest follows; (None, '') when a limit does
        not fit. A straight or folded elbow is on both branches: ``preferred``.
        """
        joint, angle = held
        l1, l2 = self.arm.link_lengths
        wu, wv = du - tool.length * math.cos(phi), dv - tool.length * math.sin(phi)
        if joint == ELBOW:
            q2 = angle
            q1 = math.atan2(wv, wu) - math.atan2(l2 * math.sin(q2), l1 + l2 * math.cos(q2))
        elif joint == SHOULDER:
            q1 = angle
            q2 = math.atan2(wv - l1 * math.sin(q1), wu - l1 * math.cos(q1)) - q1
        else:
            link2 = phi - tool.beta - angle
            q1 = math.atan2(wv - l2 * math.sin(link2), wu - l2 * math.cos(link2))
            q2 = link2 - q1
        q2 = math.remainder(q2, _TAU)
        bent = SIDE_TOLERANCE < abs(q2) < math.pi - SIDE_TOLERANCE
        branch = ('up' if q2 < 0.0 else 'down') if bent else preferred
        pair = self._fit_pair(q1, q2, previous_q)
        if pair is None:
            return None, ''
        q1, q2 = pair
        i3 = self._indices[3]
        pitch = fit_reading(self.arm.directions[i3] * (phi - tool.beta - q1 - q2),
                            self.arm.lower_limits[i3], self.arm.upper_limits[i3],
                            previous_pitch)
        return (None, '') if pitch is None else ((q1, q2, pitch), branch)

    def _fit_pair(self, q1, q2, previous_q):
        """(q1, q2) brought into the pair's limits by whole turns (nearest the last command)."""
        if self._pair_box is None:
            return _wrap(q1), q2
        (lo1, hi1), (lo2, hi2) = self._pair_box
        if previous_q is None:
            q1, q2 = fit_reading(q1, lo1, hi1), fit_reading(q2, lo2, hi2)
        else:
            q1, q2 = fit_reading(q1, lo1, hi1, previous_q[0]), fit_reading(q2, lo2, hi2,
                                                                           previous_q[1])
        return None if q1 is None or q2 is None else (q1, q2)

    def _pair_on(self, wu, wv, branch, previous_q):
        """(q1, q2) reaching the wrist point (wu, wv) on a branch within the limits, or None.

        The planar closed form on the branch, each angle then brought into its limits by whole
        turns (nearest the last command): what the planar solver does with limits when the
        branch fits, without its closest pose when it does not.
        """
        l1, l2 = self.arm.link_lengths
        sol = solve(wu, wv, l1, l2, branch, None, False,
                    previous_q if wu == wv == 0.0 else None)
        if sol.status is not _REACHED:
            return None
        if self._pair_box is None:
            return sol.q1, sol.q2
        (lo1, hi1), (lo2, hi2) = self._pair_box
        if previous_q is None:
            q1, q2 = fit_reading(sol.q1, lo1, hi1), fit_reading(sol.q2, lo2, hi2)
        else:
            q1 = fit_reading(sol.q1, lo1, hi1, previous_q[0])
            q2 = fit_reading(sol.q2, lo2, hi2, previous_q[1])
        return None if q1 is None or q2 is None else (q1, q2)

    def _search(self, du, dv, tool, wanted, preferred, previous, previous_q):
        """Return the feasible (phi, branch, pose) nearest ``wanted``, or None (see the module)."""
        previous_pitch = None if previous is None else previous[self._indices[3]]
        branches = (preferred, _OTHER[preferred]) if self.allow_elbow_flip else (preferred,)
        found: List[tuple] = []
        for branch in branches[1:]:  # the wanted pitch (the preferred branch failed at it)
            pose = self._pose_at(du, dv, tool, wanted, branch, previous_q, previous_pitch)
            if pose is not None:
                found.append((0.0, wanted, branch, pose, None))
        for distance, phi, held in self._roots.sorted_roots(du, dv, tool.length, tool.beta,
                                                            wanted):
            if found and distance > found[0][0] + TIE_TOLERANCE:
                break
            pose, branch = self._boundary_pose(du, dv, tool, phi, held, preferred,
                                               previous_q, previous_pitch)
            if pose is not None and branch in branches:
                found.append((distance, phi, branch, pose, held[0]))
        if not found:
            return None
        if len(found) > 1:
            reference = self._commanded_pitch(previous, tool) if previous is not None else None
            found.sort(key=lambda item: _tie_key(item, wanted, reference, branches))
        _, phi, branch, pose, kind = found[0]
        return _pitch_angle(phi), branch, pose, kind

    def _commanded_pitch(self, previous, tool) -> float:
        """Return the approach pitch of the previous readings, rad."""
        q1, q2 = self._previous_pair(previous)
        i3 = self._indices[3]
        return q1 + q2 + self.arm.directions[i3] * previous[i3] + tool.beta

    def _closest(self, du, dv, tool, wanted, preferred, previous_q, previous_pitch) -> _Plane:
        """Return the closest pose for a target no feasible pitch reaches (see :meth:`solve`)."""
        arm = self.arm
        l1, l2 = arm.link_lengths
        l3 = tool.length
        distance = math.hypot(du, dv)
        toward = math.atan2(dv, du)
        if distance > l1 + l2 + l3:
            status, phi = DesktopStatus.OUT_OF_REACH, toward
        elif distance < abs(l1 - l2) - l3:
            status, phi = DesktopStatus.INSIDE_INNER, toward + math.pi
        elif distance < l3 - l1 - l2:
            status, phi = DesktopStatus.INSIDE_INNER, toward
        else:
            status, phi = DesktopStatus.JOINT_LIMITED, wanted
        sol = solve(du - l3 * math.cos(phi), dv - l3 * math.sin(phi), l1, l2, preferred,
                    self._pair_limits, self.allow_elbow_flip, previous_q)
        i3 = self._indices[3]
        pitch, clamped = fit_or_clamp(arm.directions[i3] * (phi - tool.beta - sol.q1 - sol.q2),
                                      arm.lower_limits[i3], arm.upper_limits[i3], previous_pitch)
        if clamped or sol.status is IkStatus.JOINT_LIMITED:
            status = DesktopStatus.JOINT_LIMITED
        phi = sol.q1 + sol.q2 + arm.directions[i3] * pitch + tool.beta
        tool_u = l1 * math.cos(sol.q1) + l2 * math.cos(sol.q1 + sol.q2) + l3 * math.cos(phi)
        tool_v = l1 * math.sin(sol.q1) + l2 * math.sin(sol.q1 + sol.q2) + l3 * math.sin(phi)
        return _Plane(sol.q1, sol.q2, pitch, status, sol.elbow, _pitch_angle(phi),
                      tool_u, tool_v)

    # -- the result ------------------------------------------------------------------------

    def _readings(self, facing, plane, roll, previous) -> List[float]:
        arm = self.arm
        yaw_index, i1, i2, i3, i4 = self._indices
        (z1, z2), d = arm.zero_angles, arm.directions
        readings = [0.0] * arm.joint_count
        if yaw_index is not None:
            readings[yaw_index] = facing.reading
        for index, zero, q in ((i1, z1, plane.q1), (i2, z2, plane.q2)):
            reading = d[index] * (q - zero)
            if previous is not None and self._continuous[index]:
                # A continuous joint goes the short way from its last command, never unwinding.
                reading = previous[index] + math.remainder(reading - previous[index], _TAU)
            readings[index] = reading
        if i3 is not None:
            readings[i3] = plane.pitch
        if i4 is not None:
            readings[i4] = roll
        return readings

    def _finish(self, x, y, z, previous, facing, plane, roll, tool, du, dv, rotation,
                roll_clamped, wanted) -> DesktopSolution:
        arm = self.arm
        readings = self._readings(facing, plane, roll, previous)
        off = facing.off
        in_plane = math.hypot(plane.tool_u - du, plane.tool_v - dv)
        error = in_plane if off == 0.0 else math.hypot(in_plane, off)
        # Without a yaw, a target within out_of_plane_tolerance of the plane counts as in it.
        miss = in_plane if self._within_tolerance(facing) else error
        reachable = plane.status in ON_TARGET and miss <= self._on_target
        status = self._status(plane.status, facing, roll_clamped)
        su, sv = arm.shoulder
        tool_point = (x, y, z) if error == 0.0 else arm.to_world(
            facing.yaw, plane.tool_u + su, plane.tool_v + sv, tool.lateral)
        pose = None
        quick = self._quick_correction(x, y, z, readings, facing, plane, tool, rotation, error)
        if quick is not None:
            readings, tool_point, error = quick
            reachable = True
            status = self._status(plane.status, facing._replace(off=0.0, status=None),
                                  roll_clamped)
        elif not self._ideal and error <= 4.0 * arm.model_error + self._on_target and \
                facing.status is not DesktopStatus.JOINT_LIMITED:
            # The ideal arm misses the real one by up to its model error: Newton steps on the
            # real chain put the tool point on the target, or leave the ideal pose.
            solved = plane.status in ON_TARGET
            if solved or (status in _CLOSEST and not roll_clamped):
                corrected = self._correct(readings, (x, y, z), NEWTON_STEPS if solved
                                          else NEWTON_STEPS_NEAR_SINGULAR,
                                          self._unknowns(rotation is not None))
                if corrected[2] <= self._on_target and self._small(readings, corrected[0]):
                    readings, tool_point, error, pose, _ = corrected
                    reachable = True
                    status = (self._status(plane.status, facing._replace(off=0.0, status=None),
                                           roll_clamped) if solved else
                              self._reached_status(plane, previous, wanted, rotation is not None))
                elif solved:
                    # The ideal pose stands, its miss measured on the real chain.
                    pose = chain_pose(arm.segments, arm.tail, readings)
                    tool_point, error = pose.position, math.dist(pose.position, (x, y, z))
                    reachable = False
                    status = (DesktopStatus.JOINT_LIMITED if self._on_a_limit(readings)
                              else _missed(arm, status))
        orientation_error = _NAN
        if rotation is not None:
            if self._quick is not None and reachable and status in _EXACT_ORIENTATION:
                refined = self._orient(readings, (x, y, z), rotation)
                if refined is not None:
                    readings, pose = refined
                    tool_point, error = pose.position, math.dist(pose.position, (x, y, z))
            if pose is None:
                pose = chain_pose(arm.segments, arm.tail, readings)
            orientation_error = rotation_angle(multiply(transpose(rotation), pose.rotation))
        return DesktopSolution(tuple(readings), status, reachable, tool_point, error,
                               plane.elbow, plane.phi,
                               _pitch_angle(wanted) if arm.has_pitch else _NAN, off,
                               math.hypot(du, dv), orientation_error)

    def _orient(self, readings, target, rotation):
        """Return (readings, pose) with the real chain's pitch and roll turned as asked, or None.

        The ideal arm's split is off the real one's by the URDF's axis error; Newton steps on
        the real chain move every joint so that the tool point stays on the target and the
        rotation left between the asked and the commanded orientation has no part about the
        real pitch axis (and roll axis): for an orientation the arm can take, none at all.
        None when the steps do not get there within the limits.
        """
        arm = self.arm
        joints = [i for i in self._indices if i is not None]
        about = [i for i in self._indices[3:] if i is not None]  # pitch (and roll) axes
        values = list(readings)
        for _ in range(4):
            pose = chain_pose(arm.segments, arm.tail, values)
            miss = [target[k] - pose.position[k] for k in range(3)]
            rest = multiply(rotation, transpose(pose.rotation))  # what is left, world frame
            turn = (0.5 * (rest[7] - rest[5]), 0.5 * (rest[2] - rest[6]),
                    0.5 * (rest[3] - rest[1]))
            rows = [list(c) for c in zip(*jacobian_columns(pose, joints))]
            rows += [[sum(pose.axes[a][k] * pose.axes[j][k] for k in range(3)) for j in joints]
                     for a in about]
            goal = miss + [sum(pose.axes[a][k] * turn[k] for k in range(3)) for a in about]
            if max(abs(v) for v in goal) <= 1e-4 * self._on_target:
                break
            try:
                step = np.linalg.solve(np.array(rows), np.array(goal))
            except np.linalg.LinAlgError:
                return None
            for joint, delta in zip(joints, step):
                values[joint] += float(delta)
        lower, upper = arm.lower_limits, arm.upper_limits
        if math.dist(pose.position, target) > self._on_target or not all(
                lo <= v <= hi for v, lo, hi in zip(values, lower, upper)):
            return None
        return values, pose

    def _quick_correction(self, x, y, z, readings, facing, plane, tool, rotation, error):
        """:class:`QuickCorrection` of an exact ideal pose (position only), or None."""
        if self._quick is None or rotation is not None or error != 0.0 or \
                facing.status is not None or plane.status not in ON_TARGET:
            return None
        return self._quick.correct(readings, (x, y, z), facing.yaw, plane.q1, plane.q2,
                                   plane.phi, tool, plane.fixed)

    def _on_a_limit(self, readings) -> bool:
        """Whether a joint the correction moves is on one of its limits."""
        lower, upper = self.arm.lower_limits, self.arm.upper_limits
        return any(abs(readings[i] - lower[i]) <= 1e-9 or abs(readings[i] - upper[i]) <= 1e-9
                   for i in self._newton_joints)

    def _small(self, readings, corrected) -> bool:
        """Return whether a correction moved each joint no more than the model error explains."""
        return all(abs(a - b) <= self._step_bound for a, b in zip(readings, corrected))

    def _status(self, status, facing, roll_clamped) -> DesktopStatus:
        """Return the plane's status, overridden by the yaw's, the plane's offset and the roll."""
        if facing.status is not None:
            if status in ON_TARGET or facing.status is DesktopStatus.JOINT_LIMITED:
                status = facing.status
        elif not self.arm.has_yaw and not self._within_tolerance(facing):
            status = DesktopStatus.OFF_PLANE
        if roll_clamped and status in ON_TARGET:
            status = DesktopStatus.JOINT_LIMITED
        return status

    def _within_tolerance(self, facing) -> bool:
        """Whether an arm without a yaw counts the target as in its plane."""
        off, tolerance = facing.off, max(self.out_of_plane_tolerance, self._on_target)
        return not self.arm.has_yaw and -tolerance <= off <= tolerance

    def _reached_status(self, plane, previous, wanted, oriented) -> DesktopStatus:
        """Return the status of a closest pose the correction put on the target."""
        if oriented and abs(math.remainder(plane.phi - wanted, _TAU)) > PITCH_TOLERANCE:
            return DesktopStatus.APPROACH_ADJUSTED
        if self.arm.has_pitch and plane.elbow != self._preferred(self._previous_pair(previous)):
            return DesktopStatus.ELBOW_FLIPPED
        return DesktopStatus.REACHED

    def _unknowns(self, oriented: bool):
        """Return what the correction moves: per unknown, its joint and the readings it turns.

        Position only: the yaw, the pair and the pitch, each alone. With an orientation (and a
        yaw): the yaw and the pair, the pitch joint turning back what the pair turns so that
        the split's pitch ``d1 r1 + d2 r2 + d3 r3`` stays as asked.
        """
        return self._held_moves if oriented else self._free_moves

    def _correct(self, readings, target, steps, moves):
        """Newton steps on the real chain until the tool point is on the target.

        A joint that a step takes past its limit stays on the limit and, while four unknowns
        move, leaves them: on such a boundary the exact pitch is a hair off the ideal one.
        """
        arm = self.arm
        readings = list(readings)
        moves = list(moves)
        limited = False
        best = None
        for _ in range(steps):
            pose = chain_pose(arm.segments, arm.tail, readings)
            error = (target[0] - pose.position[0], target[1] - pose.position[1],
                     target[2] - pose.position[2])
            size = math.sqrt(error[0] ** 2 + error[1] ** 2 + error[2] ** 2)
            if best is None or size < best[0]:
                best = (size, tuple(readings), pose)
            if size <= 1e-4 * self._on_target:
                break
            step = _newton_step(_move_columns(pose, moves), error)
            if step is None:
                break
            largest = max(abs(delta) for delta in step)
            if largest > self._step_bound:  # a trust region: near a fold Newton wanders
                step = tuple(delta * (self._step_bound / largest) for delta in step)
            turned = {}
            for (_, turns), delta in zip(moves, step):
                for index, factor in turns:
                    turned[index] = turned.get(index, 0.0) + factor * delta
            for index in sorted(turned):
                moved = readings[index] + turned[index]
                readings[index], clamped = fit_or_clamp(moved, arm.lower_limits[index],
                                                        arm.upper_limits[index], moved)
                limited = limited or clamped
                if clamped and len(moves) > 3:
                    # The least-norm step needs three unknowns; this one stays on its limit.
                    moves = [m for m in moves if m[0] != index]
        size, readings, pose = best
        return readings, pose.position, size, pose, limited


def _move_columns(pose, moves):
    """d(tool)/d(unknown) for unknowns that turn several joints, m/rad."""
    joints = sorted({index for _, turns in moves for index, _ in turns})
    column = dict(zip(joints, jacobian_columns(pose, joints)))
    return tuple(tuple(sum(factor * column[index][k] for index, factor in turns)
                       for k in range(3)) for _, turns in moves)


_OTHER = {'up': 'down', 'down': 'up'}
#: Statuses of a target beyond the facing plane's reach (the other yaw may reach it).
_BEYOND = frozenset({DesktopStatus.OUT_OF_REACH, DesktopStatus.INSIDE_INNER})
#: Statuses of a closest pose (whose target the correction may still reach).
_CLOSEST = frozenset({DesktopStatus.OUT_OF_REACH, DesktopStatus.INSIDE_INNER,
                      DesktopStatus.JOINT_LIMITED})
_STATUS_REACHED = DesktopStatus.REACHED
_STATUS_FLIPPED = DesktopStatus.ELBOW_FLIPPED
#: Statuses whose orientation is the asked one's pitch and roll (an exact pose).
_EXACT_ORIENTATION = frozenset({DesktopStatus.REACHED, DesktopStatus.ELBOW_FLIPPED})


def _pitch_angle(phi: float) -> float:
    """``phi`` by whole turns into (-pi, pi], rad."""
    wrapped = math.remainder(phi, _TAU)
    return math.pi if wrapped == -math.pi else wrapped


def _branch_of(previous_q) -> str:
    """Return the last command's elbow side (solver angles): down when q2 wraps into (0, pi)."""
    if previous_q is not None and 0.0 < math.remainder(previous_q[1], _TAU) < math.pi:
        return 'down'
    return 'up'


def _on_side(q2: float, branch: str) -> bool:
    """Return whether a pose with elbow angle q2 (rad) is on the branch.

    A straight or folded one (to 1e-6 rad: its sign is rounding) is on both.
    """
    wrapped = math.remainder(q2, _TAU)
    if abs(wrapped) <= SIDE_TOLERANCE or math.pi - abs(wrapped) <= SIDE_TOLERANCE:
        return True
    return (wrapped < 0.0) == (branch == 'up')


def _tie_key(item, wanted, reference, branches):
    """Sort key among equally near feasible pitches: nearest the last command, else above."""
    _, phi, branch, _, _ = item
    if reference is not None:
        return (abs(math.remainder(phi - reference, _TAU)), branches.index(branch))
    return (-math.remainder(phi - wanted, _TAU), branches.index(branch))


def _after_first(accept: Accept) -> Accept:
    """Return ``accept`` that refuses its first pose unasked (it refused it already)."""
    asked = []

    def rest(readings):
        if not asked:
            asked.append(readings)
            return False
        return accept(readings)
    return rest


def _branch_status(branch: str, preferred: str) -> DesktopStatus:
    return DesktopStatus.REACHED if branch == preferred else DesktopStatus.ELBOW_FLIPPED


def _missed(arm: DesktopArm, status: DesktopStatus) -> DesktopStatus:
    """Return the status of a target the ideal arm reaches and the real one (axes off) misses."""
    if not arm.has_yaw:
        return DesktopStatus.OFF_PLANE
    return DesktopStatus.OUT_OF_REACH


def _newton_step(columns, error):
    """Return the least-norm Newton step ``J^T (J J^T)^-1 e`` (rad), or None if singular.

    ``columns`` are d(tool)/d(reading) of three or four unknowns (m/rad), ``error`` the tool's
    error ``e`` (m).
    """
    a = [[sum(c[i] * c[j] for c in columns) for j in range(3)] for i in range(3)]
    det = (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
           - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
           + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    scale = (a[0][0] + a[1][1] + a[2][2]) / 3.0
    if not det > 1e-24 * scale ** 3:
        return None
    e0, e1, e2 = error
    y = ((e0 * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (e1 * a[2][2] - a[1][2] * e2)
          + a[0][2] * (e1 * a[2][1] - a[1][1] * e2)) / det,
         (a[0][0] * (e1 * a[2][2] - a[1][2] * e2) - e0 * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
          + a[0][2] * (a[1][0] * e2 - e1 * a[2][0])) / det,
         (a[0][0] * (a[1][1] * e2 - e1 * a[2][1]) - a[0][1] * (a[1][0] * e2 - e1 * a[2][0])
          + e0 * (a[1][0] * a[2][1] - a[1][1] * a[2][0])) / det)
    return tuple(c[0] * y[0] + c[1] * y[1] + c[2] * y[2] for c in columns)
