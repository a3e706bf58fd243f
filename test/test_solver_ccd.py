"""Tests of cyclic coordinate descent: two_bone_ik.solver.solve_ccd."""

import math

from fk_oracle import arm_tip, chain_end
import numpy as np
import pytest

from two_bone_ik.solver import IkInputError, JointLimits, solve, solve_ccd


def test_two_links_reach_the_same_tip_as_the_closed_form():
    rng = np.random.default_rng(7)
    for _ in range(300):
        l1, l2 = rng.uniform(0.1, 1.0, size=2)
        s, d = l1 + l2, abs(l1 - l2)
        r = rng.uniform(d + 0.05 * (s - d), s - 0.05 * (s - d))
        angle = rng.uniform(-math.pi, math.pi)
        target = (r * math.cos(angle), r * math.sin(angle))
        ccd = solve_ccd(target, (l1, l2), rng.uniform(-math.pi, math.pi, size=2),
                        tolerance=1e-9, max_iterations=5000)
        closed = solve(*target, l1, l2)
        assert ccd.converged, (l1, l2, target, ccd)
        assert ccd.error <= 1e-9
        assert np.hypot(*(ccd.tip - np.array(closed.tip))) <= 1e-9
        assert chain_end(ccd.angles, np.array((l1, l2))) == pytest.approx(ccd.tip, abs=1e-12)
        # It is one of the two closed-form branches.
        branch = solve(*target, l1, l2, elbow='up' if ccd.angles[1] < 0 else 'down')
        assert arm_tip(branch.q1, branch.q2, l1, l2) == pytest.approx(target, abs=1e-9)


def test_long_chain_reaches_a_reachable_target():
    lengths = np.full(6, 0.1)
    result = solve_ccd((0.25, 0.3), lengths, np.full(6, 0.2), tolerance=1e-8)
    assert result.converged
    assert result.iterations >= 1
    assert chain_end(result.angles, lengths) == pytest.approx((0.25, 0.3), abs=1e-8)


def test_out_of_reach_chain_stretches_toward_the_target():
    lengths = np.array((0.3, 0.2, 0.1))
    result = solve_ccd((0.0, 2.0), lengths, (0.3, -0.4, 0.5), max_iterations=2000)
    assert not result.converged
    assert result.error == pytest.approx(2.0 - 0.6, abs=1e-6)
    assert result.tip == pytest.approx((0.0, 0.6), abs=1e-5)


def test_joint_limits_are_respected():
    lengths = np.array((0.3, 0.25, 0.2))
    limits = ((-0.5, 0.5), (-0.5, 0.5), (-0.5, 0.5))
    result = solve_ccd((-0.2, 0.4), lengths, (0.0, 0.0, 0.0), limits=limits)
    assert np.all(result.angles >= -0.5) and np.all(result.angles <= 0.5)
    assert chain_end(result.angles, lengths) == pytest.approx(result.tip, abs=1e-12)
    unlimited = solve_ccd((-0.2, 0.4), lengths, (0.0, 0.0, 0.0))
    assert unlimited.converged and not result.converged
    assert result.error > 0.05


def test_already_at_target_takes_no_sweep():
    lengths = (0.3, 0.25)
    target = arm_tip(0.4, -0.7, *lengths)
    result = solve_ccd(target, lengths, (0.4, -0.7))
    assert result.iterations == 0
    assert result.converged


@pytest.mark.parametrize('kwargs, message', [
    ({'target': (math.nan, 0.0)}, 'target must be 2 finite coordinates'),
    ({'lengths': (0.3, -0.1)}, 'lengths must be non-negative finite values'),
    ({'initial': (0.0,)}, 'initial must be 2 finite angles'),
    ({'limits': ((0.0, 1.0),)}, 'limits must have 2'),
    ({'limits': ((0.0, 1.0), (2.0, 1.0))}, 'joint 2 lower limit 2.0 rad is above'),
    ({'tolerance': 0.0}, 'tolerance must be positive'),
])
def test_invalid_input_raises(kwargs, message):
    arguments = {'target': (0.3, 0.2), 'lengths': (0.3, 0.25), 'initial': (0.0, 0.0)}
    arguments.update(kwargs)
    with pytest.raises(IkInputError, match=message):
        solve_ccd(**arguments)


def test_joint_limits_object_is_accepted_for_two_links():
    plain = ((-0.5, 0.5), (-0.5, 0.5))
    expected = solve_ccd((-0.2, 0.4), (0.3, 0.25), (0.0, 0.0), limits=plain)
    result = solve_ccd((-0.2, 0.4), (0.3, 0.25), (0.0, 0.0), limits=JointLimits(plain))
    assert np.array_equal(result.angles, expected.angles) and result.error == expected.error
    with pytest.raises(IkInputError, match='limits must have 3'):
        solve_ccd((0.1, 0.1), (0.1, 0.1, 0.1), (0.0, 0.0, 0.0), limits=JointLimits(plain))
