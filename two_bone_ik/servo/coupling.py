"""Coupled joints: a servo that sets the sum of two joint angles (ROS-free).

On a MeArm or a uArm the elbow servo moves the forearm through a parallel linkage: it sets the
forearm's angle from the horizontal, ``q_shoulder + q_elbow``, not the elbow angle.
``servos.elbow.plus_joint: shoulder`` says so. Then, with ``p(j)`` the joint named by joint
``j``'s ``plus_joint``:

- the servo of ``j`` is commanded ``q_j + q_p(j)`` (its calibration and output limits apply to
  that servo angle: the limits are the servo's own range);
- read back, ``q_j = servo angle - q_p(j)``, with ``q_p(j)`` from the same reading (unknown if
  that joint's position is unknown);
- a command that moves ``p(j)`` but not ``j`` moves ``j``'s servo too, so that ``j`` keeps its
  target.

A chain (``a`` plus ``b``, ``b`` plus ``c``) works; a cycle, a joint coupled to itself or to a
joint the driver does not drive is refused.
"""

from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

from two_bone_ik.common.config_error import ConfigError


class CouplingError(ConfigError):
    """A ``plus_joint`` setting is invalid; the message names the parameter."""


def _order(joints: Sequence[str], plus: Sequence[Optional[int]]) -> Tuple[int, ...]:
    """Joint indices such that each coupled joint comes after the joint it adds."""
    order: List[int] = []
    state: Dict[int, str] = {}
    for start in range(len(joints)):
        path = []
        index: Optional[int] = start
        while index is not None and index not in state:
            state[index] = 'visiting'
            path.append(index)
            index = plus[index]
        if index is not None and state[index] == 'visiting':
            cycle = path[path.index(index):] + [index]
            raise CouplingError(
                f'servos.{joints[path[-1]]}.plus_joint: the joints are coupled in a circle '
                f"({' -> '.join(joints[i] for i in cycle)}), so no angle can be read back")
        for visited in reversed(path):
            state[visited] = 'done'
            order.append(visited)
    return tuple(order)


class Coupling:
    """Which servo adds which joint's angle, and the conversions both ways.

    Parameters
    ----------
    joints : sequence of str
        The driver's joints; servo ``i`` belongs to joint ``i``.
    plus_joints : mapping
        ``{joint: other joint}`` for the coupled servos (an empty string: not coupled).

    Raises
    ------
    CouplingError
        For an unknown joint, a joint coupled to itself, or a cycle.
    """

    def __init__(self, joints: Sequence[str], plus_joints: Mapping[str, str]):
        self.joints = tuple(joints)
        index = {name: i for i, name in enumerate(self.joints)}
        plus: List[Optional[int]] = [None] * len(self.joints)
        for joint, other in plus_joints.items():
            if not other:
                continue
            name = f'servos.{joint}.plus_joint'
            if other == joint:
                raise CouplingError(f'{name}: a joint cannot be coupled to itself')
            if other not in index:
                raise CouplingError(f'{name}: {other!r} is not one of joints '
                                    f"({', '.join(self.joints)})")
            plus[index[joint]] = index[other]
        self.plus = tuple(plus)
        self._order = _order(self.joints, self.plus)

    @property
    def coupled(self) -> bool:
        """Whether any servo is coupled."""
        return any(other is not None for other in self.plus)

    def servos_moved(self, joints: Set[int]) -> Set[int]:
        """Return the servos a command naming ``joints`` moves: theirs and those coupled."""
        return set(joints) | {i for i, other in enumerate(self.plus) if other in joints}

    def servo_angles(self, targets: Mapping[int, float], servos: Set[int]) -> Dict[int, float]:
        """Return servo angles (rad) of ``servos`` for joint ``targets`` (rad, by joint index).

        A servo whose joint angles are not all in ``targets`` is left out.
        """
        angles = {}
        for servo in servos:
            other = self.plus[servo]
            if servo not in targets or (other is not None and other not in targets):
                continue
            angles[servo] = targets[servo] + (targets[other] if other is not None else 0.0)
        return angles

    def joint_angles(self, servo_angles: Mapping[int, float]) -> Dict[int, float]:
        """Return joint angles (rad, by index) from servo angles read back (rad, by index).

        A joint whose angle is unknown (its servo's, or for a coupled servo the other
        joint's) is left out.
        """
        angles: Dict[int, float] = {}
        for joint in self._order:
            other = self.plus[joint]
            if joint not in servo_angles or (other is not None and other not in angles):
                continue
            angles[joint] = servo_angles[joint] - (angles[other] if other is not None else 0.0)
        return angles
