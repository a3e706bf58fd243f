"""The workspace in the IK node's decisions: which pose, which motion, which line (no ROS).

:class:`WorkspaceGuard` holds the workspace parameters in force (``floor_height``,
``keep_out_boxes``, ``link_radius``, ``motion_path``) and, for the arm in force, its link
capsules, and answers for the session:

- a target (:meth:`WorkspaceGuard.solve`): below the floor or inside a box is ``COLLISION``;
  otherwise the solver is asked with an ``accept`` that takes only poses whose capsules are
  clear, so of the exact poses its preference order allows the first clear one is commanded,
  and when none is, ``COLLISION`` names the link and what it would hit (nothing is
  commanded. Planar and desktop solvers alike offer their exact poses to ``accept`` in their
  preference order (elbow, pitch, yaw branch, roll);
- a planned motion (:attr:`WorkspaceGuard.check`): checked at its samples and between them
  before it starts (:mod:`two_bone_ik.workspace.path_check`);
- ``motion_path: linear`` (:meth:`WorkspaceGuard.line_motion`): the straight line, timed and
  checked.

With no floor and no box nothing is checked at all: the node behaves as without a workspace.
"""

import math
from typing import Any, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from two_bone_ik.ik.status import NodeStatus
from two_bone_ik.motion.limits import MotionLimits
from two_bone_ik.motion.path_timing import PathMotion, time_path
from two_bone_ik.motion.trajectory import MotionError
from two_bone_ik.workspace.clearance import Clearance, Contact
from two_bone_ik.workspace.linear_path import LinePlanner
from two_bone_ik.workspace.links import ArmLinks
from two_bone_ik.workspace.obstacles import (
    check_floor_height, check_keep_out_boxes, check_link_radius, check_motion_path,
    DEFAULT_FLOOR_HEIGHT, DEFAULT_LINK_RADIUS, DEFAULT_MOTION_PATH, Obstacles,
    WORKSPACE_PARAMETERS, WorkspaceError)
from two_bone_ik.workspace.path_check import MotionCheck

#: The workspace parameters' defaults (the node's).
WORKSPACE_DEFAULTS = {'floor_height': DEFAULT_FLOOR_HEIGHT, 'keep_out_boxes': (),
                      'link_radius': DEFAULT_LINK_RADIUS, 'motion_path': DEFAULT_MOTION_PATH}


class Guarded(NamedTuple):
    """What the workspace made of a target's solution.

    Attributes
    ----------
    result : TargetResult or DesktopTargetResult
        The solution; ``COLLISION`` (``reachable`` false) when no clear pose was found.
    detail : str
        Why ``COLLISION``, or which preferred pose was passed over ('' when none).
    contact : Contact or None
        What the most preferred pose (or the target itself) would touch.
    """

    result: Any
    detail: str = ''
    contact: Optional[Contact] = None


def _checked(values: Mapping[str, Any]):
    obstacles = Obstacles(check_floor_height(values['floor_height']),
                          check_keep_out_boxes(values['keep_out_boxes']))
    return obstacles, check_link_radius(values['link_radius']), check_motion_path(
        values['motion_path'])


class WorkspaceGuard:
    """The workspace of one arm (see the module docstring).

    Parameters
    ----------
    values : mapping
        The workspace parameters by name (those left out take their defaults).

    Raises
    ------
    WorkspaceError
        If a value is invalid; the message starts with its name.
    """

    def __init__(self, values: Mapping[str, Any]):
        self._values = {name: values.get(name, WORKSPACE_DEFAULTS[name])
                        for name in WORKSPACE_PARAMETERS}
        self.obstacles, self._radii, self.motion_path = _checked(self._values)
        self.links: Optional[ArmLinks] = None
        self._clearance = self._motion_check = self._lines = None

    # -- parameters and the arm ---------------------------------------------------------------

    def checked(self, changes: Mapping[str, Any], solver=None) -> dict:
        """Return the workspace values with ``changes``, each checked, for ``solver``'s arm.

        Raises
        ------
        WorkspaceError
            Naming the parameter at fault.
        """
        values = {**self._values, **{name: value for name, value in changes.items()
                                     if name in WORKSPACE_PARAMETERS}}
        _checked(values)
        if solver is not None:
            self._links_for(solver, values)
        return values

    def apply(self, values: Mapping[str, Any], solver=None) -> None:
        """Use values :meth:`checked` returned, for ``solver``'s arm (None: no arm yet)."""
        self._values = dict(values)
        self.obstacles, self._radii, self.motion_path = _checked(self._values)
        self.use_arm(solver)

    def _links_for(self, solver, values) -> ArmLinks:
        joints = len(solver.geometry.joint_names)
        links = ArmLinks(solver.geometry, check_link_radius(values['link_radius'], joints))
        obstacles = _checked(values)[0]
        first = links.points((0.0,) * joints)[0]  # the first joint's origin never moves
        if first[2] - obstacles.floor_height < links.radii[0]:
            raise _first_joint_error(links, first, obstacles.floor_height)
        return links

    def use_arm(self, solver) -> None:
        """Build the capsules of ``solver``'s arm (None: no arm yet).

        Raises
        ------
        WorkspaceError
            If ``link_radius`` does not fit the arm, or its first link lies on the floor.
        """
        self.links = None if solver is None else self._links_for(solver, self._values)
        self._clearance = self._motion_check = self._lines = None
        if solver is None:
            return
        self._clearance = Clearance(self.links, self.obstacles)
        self._motion_check = MotionCheck(self.links, self.obstacles)
        self._lines = LinePlanner(solver)

    @property
    def active(self) -> bool:
        """Whether there is a floor or a box (and an arm) to keep clear of."""
        return self.links is not None and self.obstacles.active

    @property
    def check(self):
        """What planned motions are checked with before they start (None: nothing)."""
        return self._motion_check.trajectory_problem if self.active else None

    # -- targets --------------------------------------------------------------------------------

    def contact(self, readings: Sequence[float]) -> Optional[Contact]:
        """Return what a pose touches (the first link from the base), or None."""
        return self._clearance.contact(self.links.points(readings))

    def solve(self, solver, frame_id: str, position, previous, orientation=None,
              **options) -> Guarded:
        """Solve a target with the workspace (see the module docstring)."""
        refused, clear = [], []

        def accept(readings) -> bool:
            contact = self.contact(readings)
            if contact is not None:
                refused.append(contact)
            else:
                clear.append(tuple(readings))
            return contact is None
        result = solver.solve(frame_id, *position, previous, orientation, accept=accept,
                              **options)
        accepted = result.rejected or result.accepted
        if result.rejected:
            return Guarded(result)
        # A clear pose with the tool point on the target: the target is clear too.
        touched = None if accepted and result.reachable else self._clearance.point_contact(
            position)
        if touched is not None:
            where = ('below the floor' if touched.normal == (0.0, 0.0, 1.0) and
                     touched.distance < 0.0 else 'inside a keep-out box')
            return Guarded(_collision(result), f'the target is {where}: {touched.describe()}',
                           touched)
        if not accepted:
            return Guarded(_collision(result), 'every pose the solver may command would '
                           f'touch: {refused[0].describe()}', refused[0])
        # The pose commanded, checked itself: a closest pose (no exact one) is never offered
        # to accept by the desktop solver, and a corrected pose differs from the one offered.
        commanded = None if clear and clear[-1] == tuple(result.readings) else self.contact(
            result.readings)
        if commanded is not None:
            return Guarded(_collision(result), 'the pose the solver commands would touch: '
                           + commanded.describe(), commanded)
        if refused:
            return Guarded(result, 'the preferred pose would touch: ' + refused[0].describe(),
                           refused[0])
        return Guarded(result)

    # -- straight lines -------------------------------------------------------------------------

    def line_motion(self, start: Sequence[float], goal: Sequence[float], limits: MotionLimits,
                    period: float) -> PathMotion:
        """Return the straight line from the pose ``start`` to ``goal``, timed and checked.

        Raises
        ------
        MotionError
            Naming where it cannot be followed (the line, the limits, the floor or a box).
        """
        line = self._lines.line(start, goal)
        motion = time_path(line, line.bounds, limits)
        times = np.minimum(np.arange(max(1, math.ceil(motion.duration / period)) + 1) * period,
                           motion.duration)
        motion.samples(times)  # the streamed samples, solved once
        check = self.check
        if check is not None:
            problem = check(motion, period)
            if problem:
                raise MotionError('the straight line ' + problem.replace('it would', 'would'))
            motion.checked_with = check
        return motion


def _collision(result):
    return result._replace(status=NodeStatus.COLLISION, reachable=False)


def _first_joint_error(links: ArmLinks, first: Tuple[float, ...], floor: float):
    return WorkspaceError(
        f"link_radius: {links.names[0]} starts at the first joint's origin, "
        f'{first[2] - floor:.4g} m above the floor (floor_height {floor:g} m), and never '
        f'moves from there: with radius {links.radii[0]:g} m every pose would touch the floor; '
        'give that link a smaller radius (link_radius lists the base first) or lower '
        'floor_height')
