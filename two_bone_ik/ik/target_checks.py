"""What every arm's target solver does alike, without ROS: the checks and the status it says.

:class:`ArmTargetSolver` is the base of the planar pair's
:class:`~two_bone_ik.ik.target_solver.TargetSolver` and the desktop arm's
:class:`~two_bone_ik.ik.desktop_target_solver.DesktopTargetSolver`. Before either solves, a
target in another frame is ``WRONG_FRAME`` and one that is not finite or too far
(:func:`valid_position`) is ``INVALID_TARGET`` (:meth:`ArmTargetSolver.checked`); after, the
status text starts alike (rejected, ``OFF_PLANE``, ``PROJECTED``: the lines of
:mod:`two_bone_ik.ik.target_texts`) and carries the same values; only what a solved target's
text says is each arm's own.
"""

import math
from typing import Tuple

from two_bone_ik.ik.status import NodeStatus
from two_bone_ik.ik.target_texts import describe_off_plane, describe_projected
from two_bone_ik.ik.target_texts import describe_rejected, MAX_TARGET_DISTANCE, status_values
from two_bone_ik.ik.target_texts import within_tolerance_note

#: Tip-to-target distance, relative to the reach, within which a target counts as reached; the
#: solvers' exact solutions are within it, so only the off-plane part can break it.
ON_TARGET_TOLERANCE = 1e-9


def valid_position(x: float, y: float, z: float) -> bool:
    """Whether a target can be solved: finite and within :data:`MAX_TARGET_DISTANCE`."""
    return math.hypot(x, y, z) <= MAX_TARGET_DISTANCE  # False for NaN and infinities too


class ArmTargetSolver:
    """The part of a target solver every arm shares.

    A subclass sets ``base_frame``, ``inner_reach``, ``outer_reach`` (m), ``_plane`` (the
    plane's name in texts), ``_tolerance`` (the ``out_of_plane_tolerance`` texts give, m) and
    ``_on_plane`` (m: off the plane by more, a solved target's text says so; None: never), and
    gives :meth:`rejected`, :meth:`_describe_solved` and, for more values, :meth:`_more_values`.
    Its results have ``status``, ``rejected``, ``solver_status`` and the fields
    :func:`~two_bone_ik.ik.target_texts.status_values` reads.
    """

    #: Added to the text of an ``INVALID_TARGET``.
    _invalid_note = ''

    def rejected(self, status: NodeStatus, frame_id: str, position, frame_reason: str = ''):
        """Return a rejected outcome (nothing to command; NaN readings) of this arm's kind."""
        raise NotImplementedError

    def checked(self, frame_id: str, x: float, y: float, z: float):
        """Return the rejected outcome of a target no arm can take, or None to solve it.

        ``WRONG_FRAME`` for a ``frame_id`` other than ``''`` or ``base_frame``;
        ``INVALID_TARGET`` for a position that is not finite or too far
        (:func:`valid_position`).
        """
        if frame_id and frame_id != self.base_frame:
            return self.rejected(NodeStatus.WRONG_FRAME, frame_id, (x, y, z))
        if not valid_position(x, y, z):
            return self.rejected(NodeStatus.INVALID_TARGET, frame_id, (x, y, z))
        return None

    def describe(self, result) -> str:
        """One line for a human, starting with the status name.

        Examples: ``'OUT_OF_REACH: target 0.12 m beyond reach (0.55 m), arm stretched
        toward it'``, ``"WRONG_FRAME: target frame 'world' is not base_frame 'base_link'; ..."``.
        """
        status = result.status
        if result.rejected:
            line = describe_rejected(result, self.base_frame)
            return line + self._invalid_note if status is NodeStatus.INVALID_TARGET else line
        if status is NodeStatus.OFF_PLANE:
            return describe_off_plane(result, self._plane, self._tolerance,
                                      result.solver_status)
        if status is NodeStatus.PROJECTED:
            return describe_projected(result, self._plane, self._tolerance)
        line = self._describe_solved(result)
        if self._on_plane is None:
            return line
        return line + within_tolerance_note(result, self._plane, self._on_plane)

    def _describe_solved(self, result) -> str:
        """One line for a target solved or clamped (not rejected, ``OFF_PLANE``, ``PROJECTED``)."""
        raise NotImplementedError

    def values(self, result) -> Tuple[Tuple[str, str], ...]:
        """Key/value pairs for the status message (distances in metres)."""
        return status_values(result, result.solver_status) + self._more_values(result)

    def _more_values(self, result) -> Tuple[Tuple[str, str], ...]:
        """Return the arm's own key/value pairs, after those every arm has."""
        return ()
