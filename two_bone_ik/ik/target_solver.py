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
from two_bone_ik.ik.target_checks import ArmTargetSolver, ON_TARGET_TOLERANCE
from two_bone_ik.ik.target_texts import describe_out_of_reach, describe_rejected
from two_bone_ik.solver import IkInputError, IkStatus, solve

_NAN = math.nan


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

    @property
    def solver_status(self) -> Optional[IkStatus]:
        """The solver's status (:attr:`ik_status`), as every arm's result names it."""
        return self.ik_status


def rejected_result(status: NodeStatus, frame_id: str, position,
                    frame_reason: str = '') -> TargetResult:
    """Return a rejected outcome (nothing to command) for a target in ``frame_id``."""
    return TargetResult(status, _NAN, _NAN, False, _NAN, _NAN, _NAN, '', None, frame_id,
                        tuple(position), frame_reason)


class TargetSolver(ArmTargetSolver):
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
        refused = self.checked(frame_id, x, y, z)
        if refused is not None:
            return refused
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

    def _describe_solved(self, result: TargetResult) -> str:
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
