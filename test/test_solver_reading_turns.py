"""Tests of two_bone_ik.solver.reading_turns: readings into their limits by whole turns."""

import math

import numpy as np
import pytest

from two_bone_ik.solver import LIMIT_TOLERANCE
from two_bone_ik.solver.reading_turns import (
    fit_or_clamp, fit_reading, fit_readings, fit_within, limit_fit)

TAU = 2.0 * math.pi


@pytest.mark.parametrize('value, lower, upper, reference, expected', [
    (0.5, -1.0, 1.0, None, 0.5),
    (0.5 + TAU, -1.0, 1.0, None, 0.5),  # a whole turn off
    (2.0, -1.0, 1.0, None, None),  # no turn of it fits
    (1.0 + 5e-11, -1.0, 1.0, None, 1.0),  # within the tolerance: onto the limit
    (0.5, -10.0, 10.0, None, 0.5),  # several turns fit: nearest 0
    (0.5, -10.0, 10.0, 6.0, 0.5 + TAU),  # ... or nearest the reference
    (0.5, -10.0, 10.0, 100.0, 0.5 + TAU),  # a reference past the limits: its nearest point
    (0.5, 3.0, math.inf, None, 0.5 + TAU),  # half open
    (3.5, -math.inf, math.inf, None, 3.5 - TAU),  # unlimited: into [-pi, pi] ...
    (3.5, -math.inf, math.inf, 10.0, 3.5 + TAU),  # ... or the short way from the reference
])
def test_fit_reading(value, lower, upper, reference, expected):
    got = fit_reading(value, lower, upper, reference)
    if expected is None:
        assert got is None
    else:
        assert got == pytest.approx(expected, abs=1e-12)


def test_clamping_stops_on_the_nearer_limit_modulo_turns():
    assert fit_or_clamp(1.5, -1.0, 1.0) == (1.0, True)
    assert fit_or_clamp(-1.5, -1.0, 1.0) == (-1.0, True)
    # 3.0 is 2.0 from 1.0 but 2.28 from -1.0 + 2 pi: the upper limit.
    assert fit_or_clamp(3.0, -1.0, 1.0) == (1.0, True)
    assert fit_or_clamp(4.0, -1.0, 1.0) == (-1.0, True)  # 1.28 from -1.0 + 2 pi
    assert fit_or_clamp(0.2, -1.0, 1.0) == (0.2, False)


def test_batch_twin_equals_the_scalar():
    rng = np.random.default_rng(0)
    for lower, upper in ((-1.0, 1.0), (-10.0, 10.0), (0.5, 2.0), (-math.inf, math.inf),
                         (-2.0, math.inf), (-math.inf, 0.3)):
        values = rng.uniform(-20.0, 20.0, 200)
        for reference in (None, rng.uniform(-20.0, 20.0, 200)):
            fitted, clamped = fit_readings(values, lower, upper, reference)
            for i, value in enumerate(values):
                expected = fit_or_clamp(value, lower, upper,
                                        None if reference is None else reference[i])
                assert clamped[i] == expected[1]
                assert fitted[i] == pytest.approx(expected[0], abs=1e-12)


def test_limit_fit_and_fit_within_are_fit_reading_bit_for_bit():
    # The hot path's fit (its terms once per joint, then the same arithmetic per value) gives
    # fit_reading's result exactly: None where it does, the same float elsewhere.
    rng = np.random.default_rng(11)
    compared = fitted = 0
    for _ in range(4000):
        lower, upper = sorted(rng.uniform(-8.0, 8.0, 2))
        if rng.integers(0, 5) == 0:
            lower, upper = (-math.inf, upper) if rng.integers(0, 2) else (lower, math.inf)
        reference = None if rng.integers(0, 2) else float(rng.uniform(-12.0, 12.0))
        fit = limit_fit(lower, upper, reference)
        for value in (float(rng.uniform(-20.0, 20.0)), lower - 5e-11, upper + 5e-11,
                      lower - 2e-10, upper + 2e-10, lower + TAU, upper - TAU):
            if not math.isfinite(value):
                continue
            expected = fit_reading(value, lower, upper, reference)
            got = fit_within(value, fit)
            assert (got is None) == (expected is None)
            assert got is None or got.hex() == expected.hex()
            compared += 1
            fitted += got is not None
    assert compared > 20000 and 0 < fitted < compared


def test_limit_fit_leaves_an_unlimited_joint_to_fit_reading():
    assert limit_fit(-math.inf, math.inf) is None
    assert limit_fit(-1.0, 1.0) == (-1.0, 1.0, -1.0 - LIMIT_TOLERANCE, 1.0 + LIMIT_TOLERANCE,
                                    0.0)
    assert limit_fit(0.5, 1.0)[4] == 0.5  # the anchor: 0 brought into the limits
    assert limit_fit(-1.0, 1.0, 3.0)[4] == 1.0  # the reference brought into them
