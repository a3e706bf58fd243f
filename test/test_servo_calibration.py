"""Tests of the angle <-> device-unit calibration (ROS-free): map, quantisation, clamping."""

import math
import sys

import numpy as np
import pytest

from two_bone_ik.servo.calibration import Calibration, CalibrationError

QUARTER = 0.25


def test_the_two_calibration_points_map_exactly_both_ways():
    c = Calibration((-0.5, 1.0), (1100.0, 1850.0), resolution=QUARTER)
    assert c.to_output(-0.5) == 1100.0
    assert c.to_output(1.0) == 1850.0
    assert c.to_steps(-0.5) == (4400, False)
    assert c.to_steps(1.0) == (7400, False)
    assert c.to_angle(4400) == -0.5
    assert c.to_angle(7400) == pytest.approx(1.0, abs=1e-15)
    assert c.units_per_radian == 500.0


def test_a_reversed_servo_has_a_decreasing_output_range():
    c = Calibration((0.0, math.pi / 2), (1500.0, 600.0), resolution=1.0)
    assert c.to_steps(0.0).steps == 1500
    assert c.to_steps(math.pi / 4).steps == 1050
    assert c.to_steps(math.pi / 2).steps == 600
    assert c.to_angle(1050) == pytest.approx(math.pi / 4, abs=1e-15)
    # Default limits: the range's ends, in increasing order.
    assert c.output_limits == (600.0, 1500.0)
    assert c.step_limits == (600, 1500)
    assert c.units_per_radian == pytest.approx(900.0 / (math.pi / 2))


@pytest.mark.parametrize('resolution', [QUARTER, 1.0])
def test_targets_and_read_back_are_exact_to_one_device_step(resolution):
    c = Calibration((-1.2, 1.3), (2350.0, 640.0), output_limits=(500.0, 2500.0),
                    resolution=resolution)
    rng = np.random.default_rng(0)
    step_angle = resolution / c.units_per_radian
    for angle in rng.uniform(-1.4, 1.4, 2000):
        steps, clamped = c.to_steps(float(angle))
        assert not clamped
        # The nearest step: within half a step of the calibrated output...
        assert abs(c.to_output(angle) / resolution - steps) <= 0.5 + 1e-9
        # ...and the angle read back for it is that step's angle, within half a step of the
        # command.
        assert abs(c.to_angle(steps) - angle) <= 0.5 * step_angle + 1e-12
        # Reading back a step and commanding its angle gives the same step.
        assert c.to_steps(c.to_angle(steps)).steps == steps


def test_commands_beyond_the_output_limits_are_clamped_and_reported():
    c = Calibration((-1.0, 1.0), (1000.0, 2000.0), output_limits=(1200.0, 1900.0),
                    resolution=QUARTER)
    assert c.to_steps(-1.0) == (4800, True)    # 1000 µs -> the 1200 µs limit
    assert c.to_steps(1.0) == (7600, True)     # 2000 µs -> the 1900 µs limit
    assert c.to_steps(-0.6) == (4800, False)   # exactly at the limit: not a clamp
    assert c.to_steps(0.8) == (7600, False)
    assert c.to_steps(-1e300) == (4800, True)
    assert c.to_steps(1e300) == (7600, True)
    # Rounding that stays on the limit's step is not a clamp either.
    assert c.to_steps(0.8 + 0.1 / 500.0) == (7600, False)


@pytest.mark.parametrize('angle', [1e308, -1e308, sys.float_info.max, -sys.float_info.max,
                                   1.7e308, 5e-324])
def test_any_finite_angle_maps_to_a_step_within_the_limits(angle):
    # Defect 15.6: 1e308 rad is 1e308 * 500 = inf µs, and floor(inf) raised OverflowError.
    c = Calibration((-1.0, 1.0), (1000.0, 2000.0), output_limits=(1200.0, 1900.0),
                    resolution=QUARTER)
    reversed_ = Calibration((-1.0, 1.0), (2000.0, 1000.0), resolution=QUARTER)
    for calibration in (c, reversed_):
        steps, clamped = calibration.to_steps(angle)
        low, high = calibration.step_limits
        assert low <= steps <= high
        output = calibration.to_output(angle)
        expected = low if output < low * QUARTER else high if output > high * QUARTER else None
        if expected is not None:
            assert (steps, clamped) == (expected, True)


def test_output_limits_are_rounded_inwards_to_whole_steps():
    c = Calibration((0.0, 1.0), (500.0, 2500.0), output_limits=(500.1, 2499.9), resolution=1.0)
    assert c.step_limits == (501, 2499)
    assert c.to_steps(0.0) == (501, True)
    assert c.to_steps(1.0) == (2499, True)


def test_the_worked_calibration_of_the_readme():
    # Two measurements of a shoulder servo: horn level (0 rad) at 1480 µs, pointing up
    # (+90 deg) at 2410 µs; the servo's travel ends at 560 and 2440 µs.
    c = Calibration((0.0, math.pi / 2), (1480.0, 2410.0), output_limits=(560.0, 2440.0),
                    resolution=QUARTER)
    assert c.to_steps(-math.pi / 4).steps * QUARTER == 1015.0
    assert c.to_steps(math.pi / 3).steps * QUARTER == 2100.0
    assert c.to_steps(math.pi) == (2440 * 4, True)


@pytest.mark.parametrize('kwargs, message', [
    ({'angle_range': (0.3, 0.3)}, r'servo\.angle_range: the two calibration angles must differ'),
    ({'output_range': (1500.0, 1500.0)}, r'servo\.output_range: the two calibration outputs'),
    ({'angle_range': (0.0, math.nan)}, r'servo\.angle_range: expected 2 finite angles'),
    ({'angle_range': (0.0,)}, r'servo\.angle_range: expected 2 finite angles'),
    ({'output_range': (1000.0, math.inf)}, r'servo\.output_range: expected 2 finite'),
    ({'output_limits': (2000.0, 1000.0)}, r'servo\.output_limits: expected lower <= upper'),
    ({'output_limits': (400.0, 2000.0)}, r'servo\.output_limits: \[400\.0, 2000\.0\] is '
                                         r'outside what the controller takes, 500 to 2500'),
    ({'output_limits': (1000.2, 1000.8)}, r'servo\.output_limits: .* holds no device step'),
])
def test_invalid_calibrations_name_the_parameter(kwargs, message):
    arguments = {'angle_range': (-1.0, 1.0), 'output_range': (1000.0, 2000.0),
                 'resolution': 1.0, 'device_range': (500.0, 2500.0), **kwargs}
    with pytest.raises(CalibrationError, match=message):
        Calibration(**arguments)


def test_a_non_finite_angle_is_refused():
    c = Calibration((-1.0, 1.0), (1000.0, 2000.0))
    with pytest.raises(ValueError, match='angle must be finite'):
        c.to_steps(math.nan)
