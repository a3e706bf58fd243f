"""Tests of two_bone_ik.solver.desktop_plane: the pair and the pitch in a desktop arm's plane."""

import math

import numpy as np
import pytest

from two_bone_ik.arm.desktop_geometry import desktop_from_chain
from two_bone_ik.arm.urdf_import import chain_from_urdf
from two_bone_ik.solver import solve
from two_bone_ik.solver.desktop import DesktopSolver
from two_bone_ik.solver.desktop_poses import OTHER_ELBOW
from two_bone_ik.solver.reading_turns import fit_reading
from urdf_arms import random_desktop_arm, random_readings


def _solver(seed, shape='yaw + pair + pitch + roll'):
    """Return a random arm, every joint limited (random ranges, a few wider than a turn)."""
    rng = np.random.default_rng(seed)
    arm = random_desktop_arm(rng, shape)
    model = desktop_from_chain(chain_from_urdf(arm.urdf, arm.base, arm.tip)).model
    middle = rng.uniform(-2.0, 2.0, model.joint_count)
    half = rng.uniform(0.3, 3.6, model.joint_count)
    model = model._replace(lower_limits=tuple(middle - half), upper_limits=tuple(middle + half))
    return rng, model, DesktopSolver(model)


def _pair_and_pitch(model, readings):
    """Return the solver's (q1, q2) and the pitch reading of readings (chain order)."""
    (z1, z2), d = model.zero_angles, model.directions
    _, i1, i2, i3, _ = model.indices
    return (z1 + d[i1] * readings[i1], z2 + d[i2] * readings[i2]), readings[i3]


@pytest.mark.parametrize('seed', range(6))
def test_boundary_poses_fitted_inline_are_the_plain_ones_bit_for_bit(seed):
    # _boundary_pose with _anchored_fits (fit_within, the hot path) gives what it gives with
    # _fit_pair and fit_reading, for every root of many targets, with and without a last
    # command.
    rng, model, solver = _solver(300 + seed)
    assert solver._fits is not None
    compared = found = 0
    tool = solver._tool(0.0)
    for _ in range(150):
        du, dv = rng.uniform(-1.0, 1.0, 2) * model.reach
        previous = None if rng.integers(0, 2) else random_readings(
            rng, model.lower_limits, model.upper_limits)
        previous_q, previous_pitch = (None, None) if previous is None else _pair_and_pitch(
            model, previous)
        fits = solver._anchored_fits(previous_q, previous_pitch)
        wanted = float(rng.uniform(-math.pi, math.pi))
        for _, phi, held in solver._roots.sorted_roots(du, dv, tool.length, tool.beta, wanted):
            for preferred in ('up', 'down'):
                args = (du, dv, tool, phi, held, preferred, previous_q, previous_pitch)
                plain = solver._boundary_pose(*args)
                inline = solver._boundary_pose(*args, fits)
                assert repr(inline) == repr(plain)
                compared += 1
                found += plain[0] is not None
    assert compared > 400 and 0 < found < compared


def test_limit_fits_leave_an_unlimited_joint_to_the_plain_fits():
    rng, model, _ = _solver(301)
    lower, upper = list(model.lower_limits), list(model.upper_limits)
    i2 = model.indices[2]
    lower[i2], upper[i2] = -math.inf, math.inf
    solver = DesktopSolver(model._replace(lower_limits=tuple(lower), upper_limits=tuple(upper)))
    assert solver._fits is None
    assert solver._anchored_fits((0.1, 0.2), 0.3) is None


@pytest.mark.parametrize('seed', range(4))
def test_the_other_branch_at_the_wanted_pitch_has_the_elbow_negated(seed):
    # What the fast path skips on: the other branch's closed-form elbow angle is the preferred
    # one's negated, bit for bit, so when that does not fit the other branch has no pose at
    # the wanted pitch (_pose_at gives None).
    rng, model, solver = _solver(320 + seed)
    l1, l2 = model.link_lengths
    (_, (lo2, hi2)) = solver._pair_box
    tool = solver._tool(0.0)
    skipped = 0
    for _ in range(400):
        du, dv = rng.uniform(-1.0, 1.0, 2) * model.reach
        wanted = float(rng.uniform(-math.pi, math.pi))
        wu, wv = du - tool.length * math.cos(wanted), dv - tool.length * math.sin(wanted)
        for preferred in ('up', 'down'):
            mine = solve(wu, wv, l1, l2, preferred)
            theirs = solve(wu, wv, l1, l2, OTHER_ELBOW[preferred])
            assert theirs.q2.hex() == (-mine.q2 + 0.0).hex()
            if fit_reading(-mine.q2 + 0.0, lo2, hi2) is None:
                skipped += 1
                assert solver._pose_at(du, dv, tool, wanted, OTHER_ELBOW[preferred], None,
                                       None) is None
    assert skipped > 50
