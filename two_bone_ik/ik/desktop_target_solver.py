"""One target in, one outcome out, for a desktop arm: the IK node's per-message logic, no ROS.

The desktop twin of :class:`two_bone_ik.ik.target_solver.TargetSolver`, with the interface the
node uses for any arm: ``solver.geometry`` (joint names, frames, limits, ``describe()``),
``solver.solve(frame_id, x, y, z, previous, orientation=None)``, ``solver.describe(result)``
and ``solver.values(result)``. It checks the frame and the numbers, calls the closed-form
:class:`~two_bone_ik.solver.desktop.DesktopSolver` and turns its status into a
:class:`~two_bone_ik.ik.status.NodeStatus`. ``use_orientation`` and ``approach_pitch`` are plain
attributes the node may change at any time (they apply from the next target).
"""

import math
from typing import NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.arm.desktop_geometry import DesktopGeometry
from two_bone_ik.common.number_text import number_text
from two_bone_ik.ik.status import FROM_DESKTOP_STATUS, NodeStatus
from two_bone_ik.ik.target_checks import ArmTargetSolver, ON_TARGET_TOLERANCE
from two_bone_ik.ik.target_texts import describe_out_of_reach, describe_rejected
from two_bone_ik.solver import IkInputError
from two_bone_ik.solver.desktop import Accept, DesktopSolver
from two_bone_ik.solver.desktop_results import DesktopStatus

_NAN = math.nan


class DesktopTargetResult(NamedTuple):
    """Outcome of :meth:`DesktopTargetSolver.solve`.

    Attributes
    ----------
    status : NodeStatus
    readings : tuple of N float
        Joint readings to command, in chain order, rad; NaN when rejected.
    reachable : bool
        True when the commanded tool point is on the target (within 1e-9 x reach).
    distance : float
        Distance from the shoulder to the target in the arm's plane, m.
    error : float
        Distance from the commanded tool point to the target, m.
    off_plane : float
        Signed distance of the target from the commanded arm plane, m.
    elbow : str
        ``'up'`` or ``'down'``; ``''`` when rejected.
    approach_pitch : float
        Commanded approach pitch, rad (NaN for an arm without a pitch joint, or rejected).
    asked_pitch : float
        The approach pitch asked (``approach_pitch``, or the orientation's), rad.
    orientation_error : float
        Angle between the asked and the commanded orientation, rad; NaN without one.
    solver_status : DesktopStatus or None
        None when rejected.
    frame_id : str
    position : tuple of 3 float
        The target as received, m in ``frame_id``.
    frame_reason : str
        ``WRONG_FRAME``: why the target could not be transformed into ``base_frame``; ''
        otherwise.
    yaw_branch : str
        ``'facing'`` or ``'back'`` (reaching back over the yaw axis); ``''`` when rejected.
    roll_moved : bool
        Whether the roll left its held reading (position only).
    accepted : bool
        False when ``accept`` refused every exact pose (see :meth:`DesktopTargetSolver.solve`).
    """

    status: NodeStatus
    readings: Tuple[float, ...]
    reachable: bool
    distance: float
    error: float
    off_plane: float
    elbow: str
    approach_pitch: float
    asked_pitch: float
    orientation_error: float
    solver_status: Optional[DesktopStatus]
    frame_id: str
    position: Tuple[float, float, float]
    frame_reason: str = ''
    yaw_branch: str = ''
    roll_moved: bool = False
    accepted: bool = True

    @property
    def rejected(self) -> bool:
        """True when nothing is to be commanded for this target."""
        return self.solver_status is None


class DesktopTargetSolver(ArmTargetSolver):
    """Solves targets for one desktop arm.

    Parameters
    ----------
    geometry : DesktopGeometry
        The arm.
    elbow : {'up', 'down', 'nearest'}
        Preferred elbow branch (geometric in the arm's plane, +v up; ``'nearest'``: the side of
        the last command).
    allow_elbow_flip : bool
        Whether poses on the other branch count.
    out_of_plane_tolerance : float
        For an arm without a yaw, m (as for a planar arm).
    use_orientation : bool
        Command the pitch and roll of the target's orientation (attribute; settable).
    approach_pitch : float
        Preferred approach pitch without ``use_orientation``, rad (attribute; settable).
    allow_reach_back : bool
        Whether a position-only target may be reached with the arm reaching back over the yaw
        axis (see :class:`~two_bone_ik.solver.desktop.DesktopSolver`).

    Raises
    ------
    IkInputError
        If ``elbow`` or the tolerance is invalid.
    """

    _invalid_note = ', or its orientation is not a rotation'

    def __init__(self, geometry: DesktopGeometry, elbow: str = 'up',
                 allow_elbow_flip: bool = True, out_of_plane_tolerance: float = 0.001,
                 use_orientation: bool = False, approach_pitch: float = 0.0,
                 allow_reach_back: bool = True):
        self.geometry = geometry
        self.base_frame = geometry.base_frame
        self.elbow = elbow
        self.use_orientation = use_orientation
        self.approach_pitch = approach_pitch
        self._solver = DesktopSolver(geometry.model, elbow, allow_elbow_flip,
                                     out_of_plane_tolerance, allow_reach_back)
        self._tolerance = out_of_plane_tolerance
        self.inner_reach, self.outer_reach = geometry.reach
        self._plane = "arm's plane"
        # An arm with a yaw turns its plane onto the target; one without says how far off it.
        self._on_plane = (None if geometry.model.has_yaw
                          else ON_TARGET_TOLERANCE * self.outer_reach)

    @classmethod
    def from_config(cls, config, geometry: DesktopGeometry) -> 'DesktopTargetSolver':
        """Build it with the solving options of a ``DesktopConfig`` (or alike).

        ``config`` is a :class:`~two_bone_ik.arm.desktop_config.DesktopConfig` or any object
        with its ``elbow``, ``allow_elbow_flip``, ``out_of_plane_tolerance``,
        ``use_orientation``, ``approach_pitch`` and ``allow_reach_back``.
        """
        return cls(geometry, config.elbow, config.allow_elbow_flip,
                   config.out_of_plane_tolerance, config.use_orientation,
                   config.approach_pitch, config.allow_reach_back)

    def rejected(self, status: NodeStatus, frame_id: str, position,
                 frame_reason: str = '') -> DesktopTargetResult:
        """Return a rejected outcome (nothing to command; NaN readings) for this arm."""
        count = len(self.geometry.joint_names)
        return DesktopTargetResult(status, (_NAN,) * count, False, _NAN, _NAN, _NAN, '', _NAN,
                                   _NAN, _NAN, None, frame_id, tuple(position), frame_reason)

    def solve(self, frame_id: str, x: float, y: float, z: float,
              previous: Optional[Sequence[float]] = None,
              orientation: Optional[Sequence[float]] = None,
              approach_pitch: Optional[float] = None,
              accept: Optional[Accept] = None) -> DesktopTargetResult:
        """Solve one target.

        Parameters
        ----------
        frame_id : str
            Frame of the target; ``''`` means ``base_frame``.
        x, y, z : float
            Target tool point, m.
        previous : sequence of N float, optional
            The last commanded readings, rad (the roll held, the yaw kept on the yaw axis,
            whole turns, the ``'nearest'`` elbow, ties of pitch).
        orientation : sequence of 4 float, optional
            Quaternion (x, y, z, w) of the target's ``tip_frame`` orientation; used with
            ``use_orientation``.
        approach_pitch : float, optional
            The pitch to prefer for this target instead of :attr:`approach_pitch` (jogging
            turns it), rad.
        accept : callable, optional
            ``accept(readings) -> bool`` (a tuple of N floats, chain order, rad): as
            :meth:`DesktopSolver.solve <two_bone_ik.solver.desktop.DesktopSolver.solve>`.

        Returns
        -------
        DesktopTargetResult
            Rejected (``WRONG_FRAME``, ``INVALID_TARGET``: NaN readings) or solved.
        """
        position = (x, y, z)
        refused = self.checked(frame_id, x, y, z)
        if refused is not None:
            return refused
        if previous is not None and (len(previous) != len(self.geometry.joint_names)
                                     or not all(map(math.isfinite, previous))):
            previous = None
        try:
            sol = self._solver.solve(
                x, y, z, previous, self.approach_pitch if approach_pitch is None
                else approach_pitch, orientation if self.use_orientation else None, accept)
        except IkInputError:
            # An orientation that is no rotation (or beyond the solver's exact range, 1e100 m
            # from the shoulder: not reached from a valid position).
            return self.rejected(NodeStatus.INVALID_TARGET, frame_id, position)
        return _result(sol, frame_id, position)

    def solve_on_yaw_branch(self, x: float, y: float, z: float, yaw_branch: str,
                            previous: Sequence[float], approach_pitch: float
                            ) -> Optional[DesktopTargetResult]:
        """Return the best exact pose on one yaw branch, the roll held, or None.

        Position only, in ``base_frame``: :meth:`DesktopSolver.solve_on_yaw_branch
        <two_bone_ik.solver.desktop.DesktopSolver.solve_on_yaw_branch>` (``yaw_branch``
        ``'facing'`` or ``'back'``; the arm has a yaw). None too for a point or ``previous``
        the solver cannot use.
        """
        try:
            sol = self._solver.solve_on_yaw_branch(x, y, z, yaw_branch, previous, approach_pitch)
        except IkInputError:
            return None
        return None if sol is None else _result(sol, '', (x, y, z))

    def _describe_solved(self, result: DesktopTargetResult) -> str:
        """One line for a target solved or clamped (not rejected, ``OFF_PLANE``, ``PROJECTED``)."""
        status = result.status
        name = status.name
        pitch = ('' if math.isnan(result.approach_pitch)
                 else f", approach pitch {number_text(result.approach_pitch, 'rad')}")
        if status is NodeStatus.REACHED:
            return (f"{name}: tool point on the target, {number_text(result.distance, 'm')} "
                    f'from the shoulder, elbow {result.elbow}{pitch}'
                    f'{self._orientation_text(result)}')
        if status is NodeStatus.APPROACH_ADJUSTED:
            return (f'{name}: tool point on the target at approach pitch '
                    f"{number_text(result.approach_pitch, 'rad')}, the reachable one nearest "
                    f"the asked {number_text(result.asked_pitch, 'rad')}"
                    f'{self._orientation_text(result)}')
        if status is NodeStatus.ELBOW_FLIPPED:
            return (f'{name}: tool point on the target with elbow {result.elbow}{pitch}; elbow '
                    f'{self.elbow} cannot reach it within the limits')
        if status is NodeStatus.OUT_OF_REACH:
            return describe_out_of_reach(result, self.outer_reach)
        if status is NodeStatus.INSIDE_INNER:
            if result.off_plane:
                return (f"{name}: target {number_text(abs(result.off_plane), 'm')} closer to "
                        "the yaw axis than the arm's plane can come, plane turned nearest it")
            return (f"{name}: target inside the inner reach ({number_text(self.inner_reach, 'm')}"
                    ' from the shoulder), arm folded toward it')
        if status is NodeStatus.JOINT_LIMITED and result.reachable:
            return (f'{name}: tool point on the target, but the roll the orientation asks '
                    f'is past its limit; the roll stops on it{pitch}')
        if status is NodeStatus.JOINT_LIMITED:
            return (f"{name}: joint limits keep the tool point {number_text(result.error, 'm')} "
                    'from the target, closest pose in limits commanded')
        return describe_rejected(result, self.base_frame)

    def _orientation_text(self, result: DesktopTargetResult) -> str:
        if not self.use_orientation or math.isnan(result.orientation_error):
            return ''
        return (f", orientation {number_text(result.orientation_error, 'rad')} from the asked "
                'one (what the arm cannot turn is dropped)')

    def _more_values(self, result: DesktopTargetResult) -> Tuple[Tuple[str, str], ...]:
        """Return the key/value pairs after the planar arm's.

        The approach pitch (rad), ``use_orientation`` (``true`` /
        ``false``: whether the target's orientation was used), the yaw's branch (``facing``,
        ``back``; empty when rejected), whether the roll moved (``true``, ``false``) and, with
        ``use_orientation``, the orientation error (rad).
        """
        pairs = (
            ('approach_pitch', f'{result.approach_pitch:.6f}'),
            ('use_orientation', 'true' if self.use_orientation else 'false'),
            ('yaw_branch', result.yaw_branch),
            ('roll_moved', 'true' if result.roll_moved else 'false'))
        if self.use_orientation:
            pairs += (('orientation_error', f'{result.orientation_error:.6f}'),)
        return pairs


def _result(sol, frame_id: str, position) -> DesktopTargetResult:
    """Return the node-side outcome of a solver's solution."""
    return DesktopTargetResult(
        FROM_DESKTOP_STATUS[sol.status], sol.readings, sol.reachable, sol.distance,
        sol.error, sol.off_plane, sol.elbow, sol.approach_pitch, sol.asked_pitch,
        sol.orientation_error, sol.status, frame_id, tuple(position),
        yaw_branch=sol.yaw_branch, roll_moved=sol.roll_moved, accepted=sol.accepted)
