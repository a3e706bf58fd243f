"""Motion limits of the arm's joints: velocity, acceleration and jerk, validated (no ROS)."""

import math
from typing import Any, NamedTuple, Sequence, Tuple

from two_bone_ik.config_error import ConfigError

_INF = math.inf


class MotionConfigError(ConfigError):
    """A motion setting is invalid; the message starts with the parameter name."""


def _per_joint(name: str, values: Any, unit: str) -> Tuple[float, float]:
    what = f'2 positive values in {unit} (.inf for unlimited)'
    if isinstance(values, (str, bytes)) or not hasattr(values, '__len__'):
        raise MotionConfigError(f'{name}: expected {what}, got {values!r}')
    items = list(values)
    if len(items) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                  for v in items):
        raise MotionConfigError(f'{name}: expected {what}, got {items!r}')
    pair = (float(items[0]), float(items[1]))
    if not all(v > 0.0 for v in pair):  # NaN fails too
        raise MotionConfigError(f'{name}: expected {what}, got {list(pair)!r}')
    return pair


class MotionLimits(NamedTuple):
    """Per-joint limits of the commanded motion, in the arm's joint readings.

    Attributes
    ----------
    velocity : tuple of 2 float
        rad/s; ``inf`` where unlimited.
    acceleration : tuple of 2 float
        rad/s^2; ``inf`` where unlimited.
    jerk : tuple of 2 float
        rad/s^3; ``inf`` where unlimited.
    """

    velocity: Tuple[float, float] = (_INF, _INF)
    acceleration: Tuple[float, float] = (_INF, _INF)
    jerk: Tuple[float, float] = (_INF, _INF)

    @classmethod
    def checked(cls, velocity: Sequence[float], acceleration: Sequence[float],
                jerk: Sequence[float]) -> 'MotionLimits':
        """Validate and build; each value positive, ``inf`` for unlimited.

        Raises
        ------
        MotionConfigError
            Naming the parameter (``max_joint_velocity`` ...) and the values given.
        """
        return cls(_per_joint('max_joint_velocity', velocity, 'rad/s'),
                   _per_joint('max_joint_acceleration', acceleration, 'rad/s^2'),
                   _per_joint('max_joint_jerk', jerk, 'rad/s^3'))

    @property
    def limited(self) -> bool:
        """Whether any limit is finite (then motion is planned and streamed)."""
        return any(math.isfinite(v) for v in self.velocity + self.acceleration + self.jerk)


def check_command_rate(rate: Any) -> float:
    """Return the command rate (Hz) or raise :class:`MotionConfigError` naming it."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not (
            1.0 <= float(rate) <= 1000.0):
        raise MotionConfigError(f'command_rate: expected 1 to 1000 Hz, got {rate!r}')
    return float(rate)
