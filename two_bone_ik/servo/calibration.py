"""The linear map between a joint angle and a servo's device units, with output limits (ROS-free).

A servo is calibrated by two points: two joint angles (``angle_range``, rad) and the device
outputs that put the joint there (``output_range``: µs of pulse width for hobby servos, position
ticks for Dynamixel). Offset, direction and scale are all in those two points: a reversed servo
simply has a decreasing ``output_range``. ``output_limits`` bound what is ever sent; a command
beyond them is clamped, and the clamp is reported.

Device units are quantised to the controller's step (``resolution``: 0.25 µs on the Maestro,
1 µs on the SSC-32U, 1 tick on a Dynamixel), so a target is exact to one step: the step
nearest to the calibrated value, and an angle read back is the angle of exactly that step.
"""

from dataclasses import dataclass
import math
from typing import NamedTuple, Tuple

from two_bone_ik.common.config_error import ConfigError


class CalibrationError(ConfigError):
    """A calibration value is invalid; the message starts with the parameter name."""


class Output(NamedTuple):
    """A joint angle converted to device steps (see :meth:`Calibration.to_steps`).

    Attributes
    ----------
    steps : int
        Device steps to send (units of ``resolution``), within the output limits.
    clamped : bool
        Whether the angle mapped beyond ``output_limits`` and was clamped to the nearer limit.
    """

    steps: int
    clamped: bool


def _pair(name: str, value, what: str) -> Tuple[float, float]:
    if isinstance(value, (str, bytes)) or not hasattr(value, '__len__') or len(value) != 2:
        raise CalibrationError(f'{name}: expected {what}, got {value!r}')
    try:
        low, high = (float(item) for item in value)
    except (TypeError, ValueError):
        raise CalibrationError(f'{name}: expected {what}, got {value!r}') from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise CalibrationError(f'{name}: expected {what}, got {[low, high]!r}')
    return low, high


@dataclass(frozen=True)
class Calibration:
    """Calibration of one servo: two points of a linear angle <-> device-unit map, and limits.

    Parameters
    ----------
    angle_range : sequence of 2 float, rad
        Two joint angles, different from each other.
    output_range : sequence of 2 float, device units
        The device outputs at those angles, different from each other; decreasing for a
        reversed servo.
    output_limits : sequence of 2 float, device units, optional
        Lowest and highest output ever sent (lower <= upper, in either order of the range);
        default the ends of ``output_range``.
    resolution : float
        Size of one device step in device units (0.25 for quarter-µs).
    device_range : sequence of 2 float, device units
        What the controller can take at all; the output limits must lie inside it.
    name : str
        Prefix of error messages, e.g. ``'servos.shoulder'``.

    Raises
    ------
    CalibrationError
        For a non-finite value, equal calibration points, limits in the wrong order, limits
        outside ``device_range`` or limits that hold no device step.
    """

    angle_range: Tuple[float, float]
    output_range: Tuple[float, float]
    output_limits: Tuple[float, float] = None
    resolution: float = 1.0
    device_range: Tuple[float, float] = (-math.inf, math.inf)
    name: str = 'servo'

    def __post_init__(self):
        set_ = object.__setattr__
        name = self.name
        angles = _pair(f'{name}.angle_range', self.angle_range, '2 finite angles in radians')
        outputs = _pair(f'{name}.output_range', self.output_range, '2 finite device outputs')
        if angles[0] == angles[1]:
            raise CalibrationError(
                f'{name}.angle_range: the two calibration angles must differ, got '
                f'{list(angles)!r}')
        if outputs[0] == outputs[1]:
            raise CalibrationError(
                f'{name}.output_range: the two calibration outputs must differ, got '
                f'{list(outputs)!r}')
        limits = outputs if self.output_limits is None else self.output_limits
        limits = _pair(f'{name}.output_limits', limits, '2 finite device outputs')
        if self.output_limits is None:
            limits = (min(limits), max(limits))
        if limits[0] > limits[1]:
            raise CalibrationError(
                f'{name}.output_limits: expected lower <= upper, got {list(limits)!r}')
        low, high = self.device_range
        if limits[0] < low or limits[1] > high:
            raise CalibrationError(
                f'{name}.output_limits: {list(limits)!r} is outside what the controller takes, '
                f'{low:g} to {high:g}')
        if not (self.resolution > 0.0 and math.isfinite(self.resolution)):
            raise CalibrationError(f'{name}: resolution must be > 0, got {self.resolution!r}')
        lowest = math.ceil(limits[0] / self.resolution - 1e-9)
        highest = math.floor(limits[1] / self.resolution + 1e-9)
        if lowest > highest:
            raise CalibrationError(
                f'{name}.output_limits: {list(limits)!r} holds no device step of '
                f'{self.resolution:g}')
        set_(self, 'angle_range', angles)
        set_(self, 'output_range', outputs)
        set_(self, 'output_limits', limits)
        set_(self, '_step_limits', (lowest, highest))
        set_(self, '_slope', (outputs[1] - outputs[0]) / (angles[1] - angles[0]))

    @property
    def step_limits(self) -> Tuple[int, int]:
        """Lowest and highest device step ever sent (the output limits, rounded inwards)."""
        return self._step_limits

    @property
    def units_per_radian(self) -> float:
        """Device units per radian of joint motion, positive whatever the direction."""
        return abs(self._slope)

    def to_output(self, angle: float) -> float:
        """Return the device output (device units, unquantised, unclamped) for ``angle`` rad."""
        a0 = self.angle_range[0]
        return self.output_range[0] + (angle - a0) * self._slope

    def to_steps(self, angle: float) -> Output:
        """Return the device step nearest to ``angle`` (rad), clamped to the output limits.

        Any finite angle gives a step within the limits, even one whose output overflows to
        infinity (1e308 rad).

        Raises
        ------
        ValueError
            If ``angle`` is NaN or infinite.
        """
        if not math.isfinite(angle):
            raise ValueError(f'angle must be finite, got {angle!r}')
        # The nearest step is floor(scaled) (halves round up); it is clamped when beyond the
        # limits. Compared before flooring: a finite angle far enough out maps to an infinite
        # output, which has no step.
        scaled = self.to_output(angle) / self.resolution + 0.5
        lowest, highest = self._step_limits
        if scaled < lowest:
            return Output(lowest, True)
        if scaled >= highest + 1:
            return Output(highest, True)
        return Output(math.floor(scaled), False)

    def to_angle(self, steps: float) -> float:
        """Return the joint angle (rad) at ``steps`` device steps (the inverse map, exact)."""
        output = steps * self.resolution
        return self.angle_range[0] + (output - self.output_range[0]) / self._slope
