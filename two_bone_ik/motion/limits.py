"""Motion limits of the arm's joints: velocity, acceleration and jerk, validated (no ROS)."""

import math
from typing import Any, NamedTuple, Sequence, Tuple

from two_bone_ik.common.config_error import ConfigError

_INF = math.inf


class MotionConfigError(ConfigError):
    """A motion setting is invalid; the message starts with the parameter name."""


def _per_joint(name: str, values: Any, unit: str, joints: int) -> Tuple[float, ...]:
    what = f'{joints} positive values in {unit} (.inf for unlimited)'
    if isinstance(values, (str, bytes)) or not hasattr(values, '__len__'):
        raise MotionConfigError(f'{name}: expected {what}, got {values!r}')
    items = list(values)
    if len(items) != joints or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                       for v in items):
        raise MotionConfigError(f'{name}: expected {what}, got {items!r}')
    limits = tuple(float(v) for v in items)
    if not all(v > 0.0 for v in limits):  # NaN fails too
        raise MotionConfigError(f'{name}: expected {what}, got {list(limits)!r}')
    return limits


class MotionLimits(NamedTuple):
    """Per-joint limits of the commanded motion, in the arm's joint readings.

    Attributes
    ----------
    velocity : tuple of float
        rad/s, one per joint; ``inf`` where unlimited.
    acceleration : tuple of float
        rad/s^2, one per joint; ``inf`` where unlimited.
    jerk : tuple of float
        rad/s^3, one per joint; ``inf`` where unlimited.

    The defaults are those of a two-joint arm without limits.
    """

    velocity: Tuple[float, ...] = (_INF, _INF)
    acceleration: Tuple[float, ...] = (_INF, _INF)
    jerk: Tuple[float, ...] = (_INF, _INF)

    @classmethod
    def checked(cls, velocity: Sequence[float], acceleration: Sequence[float],
                jerk: Sequence[float], joints: int = 2) -> 'MotionLimits':
        """Validate and build; ``joints`` values each, positive, ``inf`` for unlimited.

        Raises
        ------
        MotionConfigError
            Naming the parameter (``max_joint_velocity`` ...) and the values given.
        """
        return cls(_per_joint('max_joint_velocity', velocity, 'rad/s', joints),
                   _per_joint('max_joint_acceleration', acceleration, 'rad/s^2', joints),
                   _per_joint('max_joint_jerk', jerk, 'rad/s^3', joints))

    @classmethod
    def for_joints(cls, values, joints: int) -> 'MotionLimits':
        """Validate and build from ``(velocity, acceleration, jerk)`` parameter values.

        A value whose every element is ``inf`` (a default written for another number of joints)
        means unlimited for all ``joints``; any other must have one value per joint.

        Raises
        ------
        MotionConfigError
            Naming the parameter and the values given.
        """
        infinite = (_INF,) * joints
        return cls.checked(*(infinite if _all_infinite(value) else value for value in values),
                           joints=joints)

    @classmethod
    def unlimited(cls, joints: int) -> 'MotionLimits':
        """Return limits that plan nothing, for ``joints`` joints."""
        infinite = (_INF,) * joints
        return cls(infinite, infinite, infinite)

    @property
    def limited(self) -> bool:
        """Whether any limit is finite (then motion is planned and streamed)."""
        return any(math.isfinite(v) for v in self.velocity + self.acceleration + self.jerk)


def _all_infinite(value: Any) -> bool:
    return (hasattr(value, '__len__') and not isinstance(value, (str, bytes)) and len(value) > 0
            and all(isinstance(v, (int, float)) and v == _INF for v in value))


def initial_positions_for(value: Any, joints: int) -> Tuple[float, ...]:
    """Return ``initial_positions`` for ``joints`` joints (all zeros: zeros for any count).

    Raises
    ------
    MotionConfigError
        Unless it holds one finite angle per joint (or only zeros).
    """
    what = f'{joints} finite angles in radians'
    if isinstance(value, (str, bytes)) or not hasattr(value, '__len__'):
        raise MotionConfigError(f'initial_positions: expected {what}, got {value!r}')
    items = list(value)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
        raise MotionConfigError(f'initial_positions: expected {what}, got {items!r}')
    if items and all(v == 0.0 for v in items):
        return (0.0,) * joints
    if len(items) != joints or not all(math.isfinite(v) for v in items):
        raise MotionConfigError(f'initial_positions: expected {what}, got {items!r}')
    return tuple(float(v) for v in items)


def check_command_rate(rate: Any) -> float:
    """Return the command rate (Hz) or raise :class:`MotionConfigError` naming it."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not (
            1.0 <= float(rate) <= 1000.0):
        raise MotionConfigError(f'command_rate: expected 1 to 1000 Hz, got {rate!r}')
    return float(rate)


def check_planner_available(limits: MotionLimits, parameter: str = 'max_joint_velocity') -> None:
    """Raise :class:`MotionConfigError` if ``limits`` need planning and Ruckig is not installed.

    Motion planning is the only user of the ``ruckig`` package; an arm without motion limits
    runs without it.
    """
    if not limits.limited:
        return
    try:
        import ruckig  # noqa: F401
    except ImportError:
        raise MotionConfigError(
            f'{parameter}: finite motion limits need the Python package ruckig, which is not '
            'installed: pip install ruckig (or leave every motion limit at .inf)') from None
