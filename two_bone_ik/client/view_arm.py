"""What ``two_bone_ik_view`` decides: which arm, which joint messages it follows (ROS-free).

- The arm: from a URDF file (:func:`arm_from_urdf_file`), from the IK node's section of a
  params file (:func:`arm_from_params_file`), or from the running IK node's parameter values
  (:func:`given_by_node`, then :func:`two_bone_ik.sim.simulated_arm.arm_from_parameters`).
- The joints shown: :class:`FollowedJoints` keeps the model's ``qpos`` and applies the
  ``joint_states`` and ``joint_commands`` messages it follows, matched by joint name.

Angles are radians, times seconds.
"""

import math
from pathlib import Path
import time
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Set

import numpy as np

from two_bone_ik.arm.description_file import read_description_file
from two_bone_ik.arm.params_file import parameters_for_node
from two_bone_ik.arm.urdf_import import parse_urdf
from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.sim.simulated_arm import arm_from_parameters, SimulatedArm
from two_bone_ik.sim.simulated_arm import urdf_simulated_arm

#: Seconds without ``joint_states`` after which ``--follow auto`` shows ``joint_commands``.
STATES_STALE = 1.0

JOINT_STATES, JOINT_COMMANDS = 'joint_states', 'joint_commands'


def fully_qualified_node(namespace: str, node_name: str) -> str:
    """Return ``/<namespace>/<node_name>`` (a node name starting with ``/`` is kept)."""
    if node_name.startswith('/'):
        return node_name
    namespace = namespace.strip('/')
    return f'/{namespace}/{node_name}' if namespace else f'/{node_name}'


def arm_from_urdf_file(path: Path, base: Optional[str], tip: Optional[str]) -> SimulatedArm:
    """Return the arm of a URDF (or xacro) file, chain ``base`` (default: the root) to ``tip``.

    Raises
    ------
    ConfigError
        If the file cannot be read, or its chain cannot be simulated.
    """
    text = read_description_file(str(path))
    base = base or parse_urdf(text).get_root()
    return urdf_simulated_arm(text, base, tip or '')


def arm_from_params_file(path: Path, node: str, arm_names: Sequence[str]) -> SimulatedArm:
    """Return the arm that the section of node ``node`` (fully qualified) in a params file gives.

    Raises
    ------
    ConfigError
        If the file cannot be read, has no section for the node, or the arm is invalid.
    """
    try:
        found = parameters_for_node(str(path), node)
    except ValueError as error:
        raise ConfigError(f'{path}: {error}') from None
    if not found.matched_keys:
        raise ConfigError(found.describe_unmatched(node, [str(path)]))
    values = {name: value for name, value in found.values.items() if name in arm_names}
    return arm_from_parameters(values, set(values))


def given_by_node(values: Mapping[str, Any], defaults: Mapping[str, Any]) -> Set[str]:
    """Return the names among ``values`` whose value is not the declared default.

    A running node does not say which parameters were given; one whose value is its declared
    default reads as not given (the same arm, except for a desktop arm given ``plane: xy`` or
    the default ``tool_offset`` explicitly).
    """
    return {name for name, value in values.items() if defaults.get(name) != value}


class FollowedJoints:
    """The joint positions shown: the model's ``qpos``, updated from joint messages by name.

    Parameters
    ----------
    qpos : numpy.ndarray
        The model's initial ``qpos`` (copied).
    addresses : mapping of str to int
        ``qpos`` index of each joint that can be shown, by name.
    follow : str
        ``'joint_states'``, ``'joint_commands'`` or ``'auto'`` (``joint_states``, and
        ``joint_commands`` only while no ``joint_states`` came for :data:`STATES_STALE` s).
    clock : callable
        Returns the time, s (default ``time.monotonic``).
    """

    def __init__(self, qpos: np.ndarray, addresses: Mapping[str, int], follow: str = 'auto',
                 clock: Callable[[], float] = time.monotonic):
        self.qpos = np.array(qpos, dtype=float)
        self._addresses: Dict[str, int] = dict(addresses)
        self._follow = follow
        self._clock = clock
        self._last_states = -math.inf

    def applies(self, topic: str) -> bool:
        """Whether a message on ``topic`` is shown now."""
        if self._follow != 'auto':
            return topic == self._follow
        if topic == JOINT_STATES:
            return True
        return self._clock() - self._last_states > STATES_STALE

    def apply(self, topic: str, names: Sequence[str], positions: Sequence[float]) -> bool:
        """Apply a message's names and positions if it is followed; return whether it was.

        Unknown names and NaN or infinite positions are passed over.
        """
        if topic == JOINT_STATES:
            self._last_states = self._clock()
        if not self.applies(topic):
            return False
        for name, position in zip(names, positions):
            address = self._addresses.get(name)
            if address is not None and math.isfinite(position):
                self.qpos[address] = position
        return True
