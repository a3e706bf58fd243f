"""One target in, one outcome out: the IK node's per-message logic, without ROS.

:class:`TargetSolver` is built once per arm (everything that depends only on it is
precomputed) and then turns a target position in ``base_frame`` into the arm's joint readings
and a :class:`~two_bone_ik.ik.status.NodeStatus`: frame check, finiteness check, the target in the
arm's plane (from its real shoulder, along its real axes), closed-form solve, solver angles to
the arm's own joint readings (zero angles, directions), and continuous joints kept near the
last command.
"""

import math
from typing import Callable, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.common.number_text import number_text
from two_bone_ik.ik.status import FROM_IK_STATUS, NodeStatus
from two_bone_ik.solver import IkInputError, IkStatus, MAX_MAGNITUDE, solve

_NAN = math.nan

#: Tip-to-target distance, relative to the reach l1 + l2, within which a target counts as
#: reached; the solver's exact solutions are within it, so only the off-plane part can break it.
ON_TARGET_TOLERANCE = 1e-9

#: A target further than this from ``base_frame``'s origin is ``INVALID_TARGET``, m (the
#: solver's exact range: every arm answers such a target alike).
MAX_TARGET_DISTANCE = MAX_MAGNITUDE


def valid_position(x: float, y: float, z: float) -> bool:
    """Whether a target can be solved: finite and within :data:`MAX_TARGET_DISTANCE`."""
    return math.hypot(x, y, z) <= MAX_TARGET_DISTANCE  # False for NaN and infinities too


class TargetResult(NamedTuple):
    """Outcome of :meth:`TargetSolver.solve`.

    Attributes
    ----------
    status : NodeStatus
        What happened.
    q1, q2 : float
        Joint readings to command (the arm's own convention), radians; NaN when rejected.
    reachable : bool
        True when the commanded pose puts the tip on the target (within 1e-9 of the reach).
    distance : float
        Distance from the shoulder to the target's projection onto the arm plane, metres.
    error : float
        Distance from the commanded tip to the target itself (off-plane part included), metres.
    off_plane : float
        Signed distance of the target from the arm plane along the joint axis, metres.
    elbow : str
        Elbow branch of the commanded pose, ``'up'`` or ``'down'`` (geometric: the side of the
        shoulder-to-target line the elbow is on, in (u, v)); ``''`` when rejected.
    ik_status : IkStatus or None
        The solver's status for the (projected) target; None when rejected.
    frame_id : str
        The target's ``header.frame_id``.
    position : tuple of 3 float
        The target as received, metres in ``frame_id``.
    frame_reason : str
        ``WRONG_FRAME``: why the target could not be transformed into ``base_frame`` (tf2's
        reason); '' otherwise.
    accepted : bool
        False when ``solve`` was given ``accept`` and refused every candidate pose: this is
        then the most preferred one (True otherwise).
    """

    status: NodeStatus
    q1: float
    q2: float
    reachable: bool
    distance: float
    error: float
    off_plane: float
    elbow: str
    ik_status: Optional[IkStatus]
    frame_id: str
    position: Tuple[float, float, float]
    frame_reason: str = ''
    accepted: bool = True

    @property
    def rejected(self) -> bool:
        """True when nothing is to be commanded for this target."""
        return self.ik_status is None

    @property
    def readings(self) -> Tuple[float, float]:
        """The joint readings to command, rad, in the arm's joint order (NaN when rejected)."""
        return (self.q1, self.q2)


def rejected_result(status: NodeStatus, frame_id: str, position,
                    frame_reason: str = '') -> TargetResult:
    """Return a rejected outcome (nothing to command) for a target in ``frame_id``."""
    return TargetResult(status, _NAN, _NAN, False, _NAN, _NAN, _NAN, '', None, frame_id,
                        tuple(position), frame_reason)


def describe_without_arm(result: TargetResult) -> str:
    """One line for a target that came before any usable robot description."""
    return (f'{result.status.name}: no usable robot description yet (waiting on the '
            'robot_description topic); nothing commanded')


def describe_rejected(result, base_frame: str) -> str:
    """One line for a rejected target (``WRONG_FRAME``, ``NO_ARM_DESCRIPTION``, else invalid).

    ``result`` is any target solver's result (``status``, ``frame_id``, ``position``).
    """
    name = result.status.name
    if result.status is NodeStatus.WRONG_FRAME:
        if result.frame_reason:
            return (f"{name}: no transform from target frame '{result.frame_id}' into "
                    f"base_frame '{base_frame}': {result.frame_reason}; nothing commanded")
        return (f"{name}: target frame '{result.frame_id}' is not base_frame "
                f"'{base_frame}'; transform targets into '{base_frame}' upstream")
    if result.status is NodeStatus.NO_ARM_DESCRIPTION:
        return describe_without_arm(result)
    x, y, z = (number_text(c) for c in result.position)
    return (f'{name}: target position ({x}, {y}, {z}) m is not finite, or more than '
            f"{number_text(MAX_TARGET_DISTANCE, 'm')} from the origin of '{base_frame}'")


def describe_out_of_reach(result, outer_reach: float) -> str:
    """One line for ``OUT_OF_REACH``: how far beyond ``outer_reach`` (m) the target is."""
    return (f"{result.status.name}: target {number_text(result.distance - outer_reach, 'm')} "
            f"beyond reach ({number_text(outer_reach, 'm')}), arm stretched toward it")


def describe_off_plane(result, plane: str, tolerance: float, solver_status) -> str:
    """One line for ``OFF_PLANE``: how far off ``plane`` (its name) the target is.

    ``solver_status`` is the solver's status of the projection (named unless it is
    ``OFF_PLANE`` itself, as a desktop solver says).
    """
    why = '' if solver_status.name == 'OFF_PLANE' else f' ({solver_status.name})'
    return (f"{result.status.name}: target {number_text(abs(result.off_plane), 'm', 4)} off "
            f"the {plane}, beyond out_of_plane_tolerance ({number_text(tolerance, 'm')}); its "
            f'projection commanded{why}')


def describe_projected(result, plane: str, tolerance: float) -> str:
    """One line for ``PROJECTED``: how far off ``plane`` (its name) the reached projection is."""
    off = number_text(abs(result.off_plane), 'm', 4)
    return (f'{result.status.name}: target {off} off the {plane}, within '
            f"out_of_plane_tolerance ({number_text(tolerance, 'm')}): its projection reached, "
            f'elbow {result.elbow}; the tip is {off} from the target')


def within_tolerance_note(result, plane: str, on_plane: float) -> str:
    """Return what a status text adds for a target off ``plane`` within the tolerance.

    ``''`` for a target on the plane to rounding (``on_plane``, m).
    """
    if abs(result.off_plane) <= on_plane:
        return ''
    return (f" (the target {number_text(abs(result.off_plane), 'm', 4)} off the {plane}, "
            'within out_of_plane_tolerance)')


def status_values(result, solver_status) -> Tuple[Tuple[str, str], ...]:
    """Return the status message's key/value pairs every arm has (distances in metres).

    ``result`` is any target solver's result; ``solver_status`` its solver's status or None.
    """
    return (
        ('code', str(int(result.status))),
        ('status', result.status.name),
        ('target_distance', f'{result.distance:.6f}'),
        ('tip_error', f'{result.error:.6f}'),
        ('elbow', result.elbow),
        ('off_plane', f'{result.off_plane:.6f}'),
        ('solver_status', solver_status.name if solver_status is not None else ''),
    )


class TargetSolver:
    """Solves targets for one arm.

    Parameters
    ----------
    config : ArmConfig
        The solving options (``elbow``, ``allow_elbow_flip``, ``out_of_plane_tolerance``) and,
        without ``geometry``, the arm itself.
    geometry : ArmGeometry, optional
        The arm (e.g. from its URDF); default ``ArmGeometry.from_config(config)``. Build a new
        ``TargetSolver`` when either changes.
    """

    def __init__(self, config: ArmConfig, geometry: Optional[ArmGeometry] = None):
        if geometry is None:
            geometry = ArmGeometry.from_config(config)
        self.config = config
        self.geometry = geometry
        self.base_frame = geometry.base_frame
        self._origin = geometry.shoulder_position
        self._u = geometry.u_axis
        self._v = geometry.v_axis
        self._n = geometry.normal
        self._zero = geometry.zero_angles
        self._direction = geometry.directions
        self._continuous = geometry.continuous
        self._l1, self._l2 = geometry.link_lengths
        self._elbow = config.elbow
        self._limits = geometry.solver_limits() if geometry.limited else None
        self._flip = config.allow_elbow_flip
        self.inner_reach, self.outer_reach = geometry.reach
        #: Off-plane distance of a target on the plane to rounding, m.
        self._on_plane = ON_TARGET_TOLERANCE * self.outer_reach
        #: Off-plane distance within which a target counts as in the plane, m.
        self._tolerance = max(config.out_of_plane_tolerance, self._on_plane)
        self._plane = f'{geometry.plane_name} plane'

    def solve(self, frame_id: str, x: float, y: float, z: float,
              previous: Optional[Sequence[float]] = None, orientation=None,
              accept: Optional[Callable[[Tuple[float, ...]], bool]] = None) -> TargetResult:
        """Solve one target.

        Parameters
        ----------
        frame_id : str
            Frame of the target; ``''`` means ``base_frame``.
        x, y, z : float
            Target position, metres.
        previous : sequence of 2 float, optional
            Last commanded joint readings, radians: picks the branch for ``elbow='nearest'``,
            the shoulder angle for a target on the shoulder axis, the whole turn of a multi-turn
            limited joint, and keeps continuous joints within half a turn of it.
        orientation : optional
            Ignored: a planar arm cannot choose its tip's orientation (the desktop solver's
            signature, so the node calls both alike).
        accept : callable, optional
            ``accept(readings)`` -> whether a candidate pose may be commanded (e.g. it clears
            the floor and the keep-out boxes). The candidates, in preference order: the pose
            solved as without it, then, when that is exact on the configured elbow and
            ``allow_elbow_flip``, the other elbow's exact pose within the limits
            (``ELBOW_FLIPPED``). The first accepted is returned; none accepted, the first with
            ``accepted`` False.

        Returns
        -------
        TargetResult
            Rejected (``WRONG_FRAME``, ``INVALID_TARGET``; NaN angles) or solved: the exact
            solution, or the closest pose when the target cannot be reached exactly.
        """
        position = (x, y, z)
        if frame_id and frame_id != self.base_frame:
            return rejected_result(NodeStatus.WRONG_FRAME, frame_id, position)
        if not valid_position(x, y, z):
            return rejected_result(NodeStatus.INVALID_TARGET, frame_id, position)
        o, a, b, n = self._origin, self._u, self._v, self._n
        dx, dy, dz = x - o[0], y - o[1], z - o[2]
        u = dx * a[0] + dy * a[1] + dz * a[2]
        v = dx * b[0] + dy * b[1] + dz * b[2]
        off = dx * n[0] + dy * n[1] + dz * n[2]
        (z1, z2), (d1, d2) = self._zero, self._direction
        previous_q = None
        if previous is not None:
            previous_q = (z1 + d1 * previous[0], z2 + d2 * previous[1])
        try:
            sol = solve(u, v, self._l1, self._l2, self._elbow, self._limits, self._flip,
                        previous_q)
        except IkInputError:
            # Beyond the solver's exact range (1e100 m from the shoulder): not reached from a
            # valid position, but every way to INVALID_TARGET stays one.
            return rejected_result(NodeStatus.INVALID_TARGET, frame_id, position)
        result = self._result(sol, u, v, off, previous, frame_id, position)
        if accept is None or accept(result.readings):
            return result
        if sol.status is IkStatus.REACHED and self._flip:
            other = 'down' if sol.elbow == 'up' else 'up'
            flipped = solve(u, v, self._l1, self._l2, other, self._limits, False, previous_q)
            if flipped.status is IkStatus.REACHED and flipped.elbow == other:
                alternative = self._result(flipped, u, v, off, previous, frame_id, position)
                if alternative.status is NodeStatus.REACHED:
                    alternative = alternative._replace(status=NodeStatus.ELBOW_FLIPPED)
                if accept(alternative.readings):
                    return alternative
        return result._replace(accepted=False)

    def _result(self, sol, u, v, off, previous, frame_id, position) -> TargetResult:
        """Return the outcome of a solver solution: readings, status, reach (:meth:`solve`)."""
        (z1, z2), (d1, d2) = self._zero, self._direction
        reading1 = d1 * (sol.q1 - z1)
        reading2 = d2 * (sol.q2 - z2)
        if previous is not None:
            # A continuous joint goes the short way from its last command, never unwinding.
            if self._continuous[0]:
                reading1 = previous[0] + math.remainder(reading1 - previous[0], math.tau)
            if self._continuous[1]:
                reading2 = previous[1] + math.remainder(reading2 - previous[1], math.tau)
        error = sol.error if off == 0.0 else math.hypot(sol.error, off)
        status = FROM_IK_STATUS[sol.status]
        reachable = sol.reachable
        if not -self._on_plane <= off <= self._on_plane:
            # Off the plane the tip cannot be on the target: within the tolerance a reached
            # projection is PROJECTED (a clamped one keeps the in-plane reason), beyond it
            # OFF_PLANE; tip_error is the whole distance.
            reachable = False
            if not -self._tolerance <= off <= self._tolerance:
                status = NodeStatus.OFF_PLANE
            elif sol.reachable:
                status = NodeStatus.PROJECTED
        return TargetResult(status, reading1, reading2, reachable, math.hypot(u, v), error, off,
                            sol.elbow, sol.status, frame_id, position)

    @staticmethod
    def rejected(status: NodeStatus, frame_id: str, position,
                 frame_reason: str = '') -> TargetResult:
        """Return a rejected outcome of this solver's kind (see :func:`rejected_result`)."""
        return rejected_result(status, frame_id, position, frame_reason)

    def describe(self, result: TargetResult) -> str:
        """One line for a human, starting with the status name.

        Examples: ``'OUT_OF_REACH: target 0.120 m beyond reach (0.550 m), arm stretched
        toward it'``, ``"WRONG_FRAME: target frame 'world' is not base_frame 'base_link'; ..."``.
        """
        status = result.status
        if result.rejected:
            return describe_rejected(result, self.base_frame)
        if status is NodeStatus.OFF_PLANE:
            return describe_off_plane(result, self._plane, self._tolerance, result.ik_status)
        if status is NodeStatus.PROJECTED:
            return describe_projected(result, self._plane, self._tolerance)
        return self._describe_in_plane(result) + within_tolerance_note(result, self._plane,
                                                                       self._on_plane)

    def _describe_in_plane(self, result: TargetResult) -> str:
        """One line for a target in the plane (or within the tolerance of it)."""
        status = result.status
        name = status.name
        if status is NodeStatus.REACHED:
            return (f"{name}: tip on the target, {number_text(result.distance, 'm')} from the "
                    f'shoulder, elbow {result.elbow}')
        if status is NodeStatus.OUT_OF_REACH:
            return describe_out_of_reach(result, self.outer_reach)
        if status is NodeStatus.INSIDE_INNER:
            inside = number_text(self.inner_reach - result.distance, 'm')
            return (f'{name}: target {inside} inside the inner reach limit '
                    f"({number_text(self.inner_reach, 'm')}), arm folded toward it")
        if status is NodeStatus.JOINT_LIMITED:
            return (f"{name}: joint limits keep the tip {number_text(result.error, 'm')} from "
                    'the target, closest pose in limits commanded')
        if status is NodeStatus.ELBOW_FLIPPED:
            return (f'{name}: tip on the target with elbow {result.elbow}; elbow '
                    f'{self._elbow} would break a joint limit')
        return describe_rejected(result, self.base_frame)

    @staticmethod
    def values(result: TargetResult) -> Tuple[Tuple[str, str], ...]:
        """Key/value pairs for the status message (distances in metres)."""
        return status_values(result, result.ik_status)
