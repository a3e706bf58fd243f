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

Statuses (:class:`DesktopStatus`): ``REACHED`` (tool point within 1e-9 x reach of the target
and, with an orientation, the split's pitch and roll commanded), ``ELBOW_FLIPPED`` (reached on
the other branch), ``APPROACH_ADJUSTED`` (reached, but with an orientation the pitch had to
change; it takes precedence over ``ELBOW_FLIPPED``), ``OUT_OF_REACH``, ``INSIDE_INNER``,
``JOINT_LIMITED`` (also when the split's roll is past a limit though the tool point is on the
target) and, for an arm without a yaw, ``PROJECTED`` (the target's projection onto the plane
reached, the target off it within ``out_of_plane_tolerance``) and ``OFF_PLANE`` (beyond it).
The closest poses when the target cannot
be reached are defined in :meth:`DesktopSolver.solve`.

The class is put together from one module per concern, each a mixin:
:mod:`~two_bone_ik.solver.desktop_fast_path` (the common target straight through),
:mod:`~two_bone_ik.solver.desktop_preference` (the classes (a)-(d), ``accept``),
:mod:`~two_bone_ik.solver.desktop_moved_roll` (the roll nearest the held one that reaches,
from :mod:`~two_bone_ik.solver.desktop_roll`), :mod:`~two_bone_ik.solver.desktop_plane` (the
pair and the pitch in the plane) and :mod:`~two_bone_ik.solver.desktop_newton` (the general
exactness correction); this module keeps the yaw, the result and the API. Math only, and the
two-bone solver's public API.
"""

import math
from typing import Callable, List, Optional, Sequence, Tuple

from two_bone_ik.solver import IkInputError, IkStatus, JointLimits, MAX_MAGNITUDE
from two_bone_ik.solver.chain_kinematics import chain_pose, multiply, rotation_angle, transpose
from two_bone_ik.solver.desktop_batch import solve_batch as _solve_batch
from two_bone_ik.solver.desktop_correction import QuickCorrection
from two_bone_ik.solver.desktop_fast_path import FastPath
from two_bone_ik.solver.desktop_model import (
    DesktopArm, quaternion_rotation, split_orientation, ToolAtRoll)
from two_bone_ik.solver.desktop_moved_roll import MovedRoll
from two_bone_ik.solver.desktop_newton import NewtonCorrection
from two_bone_ik.solver.desktop_pitch import (
    BoundaryRoots, limit_circle_joints, limit_circles, pitch_limit_angles)
from two_bone_ik.solver.desktop_plane import PlaneSolving
from two_bone_ik.solver.desktop_poses import Attempt, Facing, pitch_angle
from two_bone_ik.solver.desktop_preference import PreferenceOrder
from two_bone_ik.solver.desktop_results import (  # noqa: F401 (the solver's public names)
    DesktopSolution, DesktopStatus, MAX_CORRECTION, NEWTON_STEPS, NEWTON_STEPS_NEAR_SINGULAR,
    ON_TARGET, ON_TARGET_TOLERANCE, PITCH_TOLERANCE)
from two_bone_ik.solver.desktop_roll import RollGeometry
from two_bone_ik.solver.reading_turns import fit_or_clamp

_TAU = 2.0 * math.pi
_NAN = math.nan
_REACHED = IkStatus.REACHED
#: ``accept(readings) -> bool``: see :meth:`DesktopSolver.solve`.
Accept = Callable[[Tuple[float, ...]], bool]


def _canonical_limits(zero: float, direction: int, lower: float, upper: float):
    """Solver-angle limits ``zero + direction * reading`` of reading limits, rad."""
    if direction > 0:
        return (zero + lower, zero + upper)
    return (zero - upper, zero - lower)


class DesktopSolver(FastPath, PreferenceOrder, MovedRoll, PlaneSolving, NewtonCorrection):
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
        For an arm without a yaw: off-plane distance (m) up to which a target whose projection
        is reached is ``PROJECTED`` (as the planar node says; never ``reachable``: ``error`` is
        the whole distance) and an unreached one keeps its in-plane reason; beyond it
        ``OFF_PLANE``.
    allow_reach_back : bool
        Whether a position-only target may be reached with the arm reaching back over the yaw
        axis (classes (c) and (d) of the preference order); an attribute, settable.

    Notes
    -----
    **The preference order** (position only, an arm with a yaw): the first class with an exact
    pose within the limits decides: (a) the yaw facing the target, the roll held; (b) facing,
    the roll moved (to the roll nearest the held one at which a pose reaches the target, a
    micro-radian or so inside the end of its stretch of such rolls; see :meth:`_moved_roll`);
    (c) reaching back over the yaw axis (the yaw about half a turn from facing), the roll held;
    (d) back, the roll moved. Within a class: that roll, then the pitch nearest
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
                                    self._pitch_angles, elbow_limits if limited else None)
        self._roots.tag(self._boundary_terms())  # (its roots carry them to _boundary_pose)
        self._l2 = arm.link_lengths[1]
        #: The pitch joint's direction and reading limits (NaN without one).
        self._pitch_joint = (math.nan,) * 3 if i3 is None else (
            d[i3], lower[i3], upper[i3])
        self._fits = self._limit_fits()
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
        #: The hole round the shoulder less the on-target tolerance, squared (m^2; -1 without
        #: a free roll): no exact pose at any roll is nearer (see _fast_hole).
        hole = self._roll_geometry.hole - self._on_target if self._roll_free else 0.0
        self._reach_bounds = self._roll_reach_bounds() if self._roll_free else None
        self._hole2 = hole * hole if hole > 0.0 else -1.0
        #: What _fast_plane reads.
        self._fast_tail = None if self._fast is None else (
            self._fast[16:24] + self._continuous[1:4] + (arm.joint_count, self.elbow)
            + arm.link_lengths)
        self._wanted = (math.nan, math.nan, math.nan)  # the last wanted pitch, its cos and sin

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
        previous = self._checked_inputs(x, y, z, approach_pitch, previous)
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
                                            Attempt(facing, plane, roll, tool, False, False),
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

    def solve_on_yaw_branch(self, x: float, y: float, z: float, yaw_branch: str,
                            previous: Optional[Sequence[float]] = None,
                            approach_pitch: float = 0.0) -> Optional[DesktopSolution]:
        """Return the best exact pose on one yaw branch, the roll held, or None (position only).

        ``yaw_branch`` ``'facing'`` is class (a) of the preference order, ``'back'`` class (c)
        (whether or not ``allow_reach_back``): the pose :meth:`solve` would give were the
        classes before it empty; None when that class has no exact pose. For a path that must
        stay on the branch the arm is on (a straight line: the yaw would otherwise turn half a
        turn where the preferred class changes).

        Raises
        ------
        IkInputError
            As :meth:`solve`, if ``yaw_branch`` is not ``'facing'`` or ``'back'``, or if the arm
            has no yaw (its one plane has no branches).
        """
        if not self.arm.has_yaw or yaw_branch not in ('facing', 'back'):
            raise IkInputError(f"yaw_branch must be 'facing' or 'back' on an arm with a yaw, got "
                               f'{yaw_branch!r}')
        previous = self._checked_inputs(x, y, z, approach_pitch, previous)
        roll, _, wanted, tool = self._wrist(x, y, z, previous, approach_pitch, None)
        attempt = self._attempt(x, y, z, previous, wanted, roll, tool, yaw_branch == 'back')
        if not self._exact(attempt):
            return None
        return self._exact_solution(x, y, z, previous, wanted, attempt, None)

    def _checked_inputs(self, x, y, z, approach_pitch, previous) -> Optional[Tuple[float, ...]]:
        """Raise :class:`IkInputError` for a bad input; return ``previous`` as floats."""
        for name, value in (('x', x), ('y', y), ('z', z), ('approach_pitch', approach_pitch)):
            if not -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:
                raise IkInputError(f'{name} must be finite and within 1e100, got {value!r}')
        return None if previous is None else self._checked_previous(previous)

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

    def _face(self, x, y, z, lateral, previous) -> Facing:
        """Turn the arm's plane onto the target (see the class docstring)."""
        arm = self.arm
        o, f, w, n = arm.origin, arm.forward, arm.up, arm.normal
        dx, dy, dz = x - o[0], y - o[1], z - o[2]
        hu = dx * f[0] + dy * f[1] + dz * f[2]
        h = dx * w[0] + dy * w[1] + dz * w[2]
        hn = dx * n[0] + dy * n[1] + dz * n[2]
        if not arm.has_yaw:
            return Facing(None, 0.0, hu, h, hn - lateral, None)
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
        return Facing(reading, yaw, u, h, off, status)

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
        reachable = plane.status in ON_TARGET and error <= self._on_target
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
                               pitch_angle(wanted) if arm.has_pitch else _NAN, off,
                               math.hypot(du, dv), orientation_error)

    def _status(self, status, facing, roll_clamped) -> DesktopStatus:
        """Return the plane's status, overridden by the yaw's, the plane's offset and the roll."""
        if facing.status is not None:
            if status in ON_TARGET or facing.status is DesktopStatus.JOINT_LIMITED:
                status = facing.status
        elif not self.arm.has_yaw and not -self._on_target <= facing.off <= self._on_target:
            # Off the plane: a reached projection within the tolerance is PROJECTED (a clamped
            # one keeps its reason), anything beyond it OFF_PLANE.
            if not self._within_tolerance(facing):
                status = DesktopStatus.OFF_PLANE
            elif status in ON_TARGET:
                status = DesktopStatus.PROJECTED
        if roll_clamped and status in ON_TARGET:
            status = DesktopStatus.JOINT_LIMITED
        return status

    def _within_tolerance(self, facing) -> bool:
        """Whether the target is within ``out_of_plane_tolerance`` of an arm without a yaw."""
        off, tolerance = facing.off, max(self.out_of_plane_tolerance, self._on_target)
        return not self.arm.has_yaw and -tolerance <= off <= tolerance

    def _reached_status(self, plane, previous, wanted, oriented) -> DesktopStatus:
        """Return the status of a closest pose the correction put on the target."""
        if oriented and abs(math.remainder(plane.phi - wanted, _TAU)) > PITCH_TOLERANCE:
            return DesktopStatus.APPROACH_ADJUSTED
        if self.arm.has_pitch and plane.elbow != self._preferred(self._previous_pair(previous)):
            return DesktopStatus.ELBOW_FLIPPED
        return DesktopStatus.REACHED


#: Statuses of a target beyond the facing plane's reach (the other yaw may reach it).
_BEYOND = frozenset({DesktopStatus.OUT_OF_REACH, DesktopStatus.INSIDE_INNER})
#: Statuses of a closest pose (whose target the correction may still reach).
_CLOSEST = frozenset({DesktopStatus.OUT_OF_REACH, DesktopStatus.INSIDE_INNER,
                      DesktopStatus.JOINT_LIMITED})
#: Statuses whose orientation is the asked one's pitch and roll (an exact pose).
_EXACT_ORIENTATION = frozenset({DesktopStatus.REACHED, DesktopStatus.ELBOW_FLIPPED})


def _after_first(accept: Accept) -> Accept:
    """Return ``accept`` that refuses its first pose unasked (it refused it already)."""
    asked = []

    def rest(readings):
        if not asked:
            asked.append(readings)
            return False
        return accept(readings)
    return rest


def _missed(arm: DesktopArm, status: DesktopStatus) -> DesktopStatus:
    """Return the status of a target the ideal arm reaches and the real one (axes off) misses."""
    if not arm.has_yaw:
        return DesktopStatus.OFF_PLANE
    return DesktopStatus.OUT_OF_REACH
