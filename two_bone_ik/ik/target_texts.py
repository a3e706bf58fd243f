"""What every arm's ``ik_status`` says of a target (no ROS): the texts and the values.

The lines a planar arm (:mod:`two_bone_ik.ik.target_solver`) and a desktop arm
(:mod:`two_bone_ik.ik.desktop_target_solver`) say alike: a rejected target, one out of reach,
off the plane or projected onto it, and the key/value pairs every status carries. ``result`` is
either solver's result (``status``, ``frame_id``, ``position``, ``distance``, ``error``,
``off_plane``, ``elbow``, ``frame_reason``). Numbers are written for people
(:func:`two_bone_ik.common.number_text.number_text`).
"""

from typing import Tuple

from two_bone_ik.common.number_text import number_text
from two_bone_ik.ik.status import NodeStatus
from two_bone_ik.solver import MAX_MAGNITUDE

#: A target further than this from ``base_frame``'s origin is ``INVALID_TARGET``, m (the
#: solver's exact range: every arm answers such a target alike).
MAX_TARGET_DISTANCE = MAX_MAGNITUDE


def describe_without_arm(result) -> str:
    """One line for a target that came before any usable robot description."""
    return (f'{result.status.name}: no usable robot description yet (waiting on the '
            'robot_description topic); nothing commanded')


def describe_rejected(result, base_frame: str) -> str:
    """One line for a rejected target (``WRONG_FRAME``, ``NO_ARM_DESCRIPTION``, else invalid)."""
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

    ``solver_status`` is the result's solver status, or None when it was rejected.
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
