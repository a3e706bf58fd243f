"""Where the arm comes from, and the solver built for it (no ROS).

An arm is described by the node's parameters, by a URDF in the ``robot_description`` parameter,
or by URDFs arriving on a topic (``robot_description_topic``, as robot_state_publisher publishes
it). :class:`ArmSource` holds that description and the :class:`~two_bone_ik.target_solver.
TargetSolver` built from it, and decides what a newly arrived description changes: nothing when
it is the same text, a new arm when it differs and can be used, and nothing but a recorded
problem when it cannot (the previous arm stays in force).
"""

import dataclasses
from typing import Callable, Optional

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.urdf_import import arm_geometry
from two_bone_ik.config_error import ConfigError
from two_bone_ik.target_solver import TargetSolver


class ArmSource:
    """The arm's description and its solver.

    Parameters
    ----------
    config : ArmConfig
        The solving options and, without a URDF, the arm.
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

    def __init__(self, config: ArmConfig, robot_description: str = '',
                 description_topic: str = '', tip_frame: str = ''):
        self.config = config
        self.description = robot_description
        self.topic = description_topic
        self.tip_frame = tip_frame
        self._from_parameter = bool(robot_description)
        #: Why the last description from the topic was refused ('' when it was not).
        self.problem = ''
        self.solver: Optional[TargetSolver] = None
        if robot_description or not description_topic:
            self.solver = self._solver_for(config)

    @property
    def from_urdf(self) -> bool:
        """Whether the arm comes (or will come) from a URDF."""
        return bool(self.description) or bool(self.topic)

    def describe_source(self) -> str:
        """Where the arm comes from, in words."""
        if self.topic and not self._from_parameter:
            return f'topic {self.topic}'
        return 'robot_description parameter' if self.description else 'parameters'

    def _solver_for(self, config: ArmConfig, description: Optional[str] = None) -> TargetSolver:
        description = self.description if description is None else description
        return TargetSolver(config, arm_geometry(config, description, self.tip_frame))

    def changed_config(self, changes: dict) -> ArmConfig:
        """Return the config with ``changes``, checked against the arm's description.

        Raises
        ------
        ConfigError
            If a value is invalid or the URDF cannot be used with it.
        """
        config = dataclasses.replace(self.config, **changes)
        if self.description:
            arm_geometry(config, self.description, self.tip_frame)
        return config

    def use_config(self, config: ArmConfig) -> Optional[TargetSolver]:
        """Use a checked config; return the new solver (None while no URDF has come)."""
        self.config = config
        if self.description or not self.topic:
            self.solver = self._solver_for(config)
        return self.solver

    def receive(self, text: str,
                accept: Optional[Callable[[TargetSolver], None]] = None) -> Optional[TargetSolver]:
        """Take a description from the topic.

        ``accept``, when given, is called with the new solver before it is taken and may refuse
        it by raising :class:`ConfigError`.

        Returns
        -------
        TargetSolver or None
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
            solver = self._solver_for(self.config, text)
            if accept is not None:
                accept(solver)
        except ConfigError as error:
            self.problem = str(error)
            raise
        self.description = text
        self.problem = ''
        self.solver = solver
        return solver
