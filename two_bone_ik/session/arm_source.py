"""Where the arm comes from, and the solver built for it (no ROS).

An arm is described by the node's parameters, by a URDF in the ``robot_description`` parameter,
or by URDFs arriving on a topic (``robot_description_topic``, as robot_state_publisher publishes
it); it is a planar pair (two joints) or a desktop arm (a base yaw, the pair, a wrist pitch and
roll: 3 to 5 joints, see :mod:`two_bone_ik.arm.desktop_geometry`). :class:`ArmSource` holds that
description and the solver built from it — a
:class:`~two_bone_ik.ik.target_solver.TargetSolver` for a pair, a
:class:`~two_bone_ik.ik.desktop_target_solver.DesktopTargetSolver` otherwise — and decides what a
newly arrived description changes: nothing when it is the same text, a new arm when it differs
and can be used, and nothing but a recorded problem when it cannot (the previous arm stays).

The per-joint parameters (``joint_zero_angles``, ``joint_directions``, ``joint_lower_limits``,
``joint_upper_limits``) and the shape's (``plane``, ``arm_shape``, ``tool_offset``) are passed
on only when given: their declared defaults are a planar pair's, and an arm of N joints takes
N zeros, +1s and open sides instead. With a URDF, given joint limits narrow the URDF's (one
value per joint of its chain).
"""

from typing import Any, Callable, Collection, Mapping, Optional

from two_bone_ik.arm.desktop_config import arm_config_from_mapping, desktop_geometry
from two_bone_ik.arm.desktop_config import DESKTOP_PARAMETER_NAMES, DesktopConfig
from two_bone_ik.arm.desktop_config import given_arm_values, urdf_arm_options
from two_bone_ik.arm.desktop_geometry import arm_from_description
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.ik.desktop_target_solver import DesktopTargetSolver
from two_bone_ik.ik.target_solver import TargetSolver

#: The arm's parameters (the planar ones, then the desktop arm's).
ARM_PARAMETERS = DESKTOP_PARAMETER_NAMES

#: Parameters that steer the solver of any arm, and may change while it runs.
SOLVING_OPTIONS = ('elbow', 'allow_elbow_flip', 'use_orientation', 'approach_pitch',
                   'allow_reach_back')

_OPTION_DEFAULTS = {'use_orientation': False, 'approach_pitch': 0.0, 'allow_reach_back': True}


class ArmSource:
    """The arm's description and its solver.

    Parameters
    ----------
    values : mapping
        The arm's parameter values by name (others are ignored).
    given : collection of str
        The parameters given explicitly (see the module docstring).
    robot_description : str
        A URDF given as a parameter ('' for none).
    description_topic : str
        The topic URDFs come from when ``robot_description`` is empty ('' for none).
    tip_frame : str
        The URDF link whose origin is the tip ('' for the single end link).

    Raises
    ------
    ConfigError
        If the parameters or the URDF given as a parameter cannot describe an arm.
    """

    def __init__(self, values: Mapping[str, Any], given: Collection[str] = (),
                 robot_description: str = '', description_topic: str = '',
                 tip_frame: str = ''):
        self._values = given_arm_values(values, given)
        self.description = robot_description
        self.topic = description_topic
        self.tip_frame = tip_frame
        self._from_parameter = bool(robot_description)
        #: Why the last description from the topic was refused ('' when it was not).
        self.problem = ''
        self.config = self._config(self._values)
        self.solver = None
        if robot_description or not description_topic:
            self.solver = self._solver_for(self._values, robot_description)

    @property
    def from_urdf(self) -> bool:
        """Whether the arm comes (or will come) from a URDF."""
        return bool(self.description) or bool(self.topic)

    def describe_source(self) -> str:
        """Where the arm comes from, in words."""
        if self.topic and not self._from_parameter:
            return f'topic {self.topic}'
        return 'robot_description parameter' if self.description else 'parameters'

    def _config(self, values: Mapping[str, Any]):
        """Return the config of the arm's parameters; with a URDF, of its frame and options."""
        if self.from_urdf:
            return urdf_arm_options(values)
        return arm_config_from_mapping(values)

    def _solver_for(self, values: Mapping[str, Any], description: str):
        """Build the solver of the arm ``values`` and ``description`` describe.

        Raises
        ------
        ConfigError
            If they cannot describe an arm.
        """
        config = self._config(values)
        if description:
            geometry = arm_from_description(description, config.base_frame, self.tip_frame,
                                            values.get('joint_lower_limits', ()),
                                            values.get('joint_upper_limits', ()))
        elif isinstance(config, DesktopConfig):
            geometry = desktop_geometry(config)
        else:
            geometry = ArmGeometry.from_config(config)
        if isinstance(geometry, ArmGeometry):
            return TargetSolver(config, geometry)
        options = {name: values.get(name, _OPTION_DEFAULTS.get(name))
                   for name in SOLVING_OPTIONS}
        return DesktopTargetSolver(geometry, options['elbow'] or 'up',
                                   config.allow_elbow_flip, config.out_of_plane_tolerance,
                                   bool(options['use_orientation']),
                                   float(options['approach_pitch']),
                                   bool(options['allow_reach_back']))

    def checked(self, changes: Mapping[str, Any]) -> dict:
        """Return the arm's values with the changes, checked by building the arm again.

        Raises
        ------
        ConfigError
            If a value is invalid or the arm cannot be built with it.
        """
        values = {**self._values, **{name: value for name, value in changes.items()
                                     if name in ARM_PARAMETERS}}
        if self.description or not self.topic:
            self._solver_for(values, self.description)
        else:
            self._config(values)
        return values

    def use(self, values: Mapping[str, Any]):
        """Use checked values; return the new solver (None while no URDF has come)."""
        self._values = dict(values)
        self.config = self._config(self._values)
        if self.description or not self.topic:
            self.solver = self._solver_for(self._values, self.description)
        return self.solver

    def receive(self, text: str, accept: Optional[Callable[[object], None]] = None):
        """Take a description from the topic.

        ``accept``, when given, is called with the new solver before it is taken and may refuse
        it by raising :class:`ConfigError`.

        Returns
        -------
        TargetSolver, DesktopTargetSolver or None
            The new arm's solver; None when ``text`` is the description already in force (it
            changes nothing).

        Raises
        ------
        ConfigError
            If it cannot be used; the previous arm stays in force and :attr:`problem` says why.
        """
        if self.solver is not None and text == self.description:
            self.problem = ''
            return None
        try:
            solver = self._solver_for(self._values, text)
            if accept is not None:
                accept(solver)
        except ConfigError as error:
            self.problem = str(error)
            raise
        self.description = text
        self.problem = ''
        self.solver = solver
        return solver
