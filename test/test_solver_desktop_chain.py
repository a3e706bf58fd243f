"""Tests of two_bone_ik.solver.desktop_chain: the folded chain's tool point."""

import numpy as np
import pytest

from two_bone_ik.arm.urdf_import import chain_from_urdf
from two_bone_ik.solver.chain_kinematics import chain_pose
from two_bone_ik.solver.desktop_chain import FoldedChain
from urdf_arms import DESKTOP_JOINTS, FIXED_DESKTOP_ARMS, random_desktop_arm


def _segments(urdf, base, tip):
    return chain_from_urdf(urdf, base, tip).segments()


@pytest.mark.parametrize('seed', range(6))
def test_the_tool_point_is_the_chains(seed):
    # Random arms with axes off (any direction, any length: the axis is normalised) and the
    # fixed arms: the folded chain gives chain_pose's tool point to rounding, also when the
    # last joints are carried first (the roll held) and for many poses at once.
    rng = np.random.default_rng(seed)
    shape = tuple(DESKTOP_JOINTS)[seed % len(DESKTOP_JOINTS)]
    arms = [random_desktop_arm(rng, shape, axis_error=1e-3)]
    for urdf, base, tip, joints, _ in FIXED_DESKTOP_ARMS.values():
        segments, tail = _segments(urdf, base, tip)
        chain = FoldedChain(segments, tail)
        readings = rng.uniform(-3.0, 3.0, (20, len(segments)))
        expected = np.array([chain_pose(segments, tail, r).position for r in readings])
        np.testing.assert_allclose([chain.point(r) for r in readings], expected, atol=1e-15)
        if len(segments) >= 4:  # the unrolled first four (the rest carried first)
            for r in readings:
                last = chain.carried(r[4:], 4) if len(r) > 4 else None
                assert chain.point4(*r[:4], last) == chain.point(r[:4], last)
        np.testing.assert_allclose(chain.points(readings), expected, atol=1e-15)
        last = chain.carried(readings[0][2:], 2)
        np.testing.assert_allclose(chain.point(readings[0][:2], last), expected[0], atol=1e-15)
        rows = chain.points(readings[:, 2:], start=2)
        np.testing.assert_allclose(chain.points(readings[:, :2], rows), expected, atol=1e-15)
    for arm in arms:
        segments, tail = _segments(arm.urdf, arm.base, arm.tip)
        chain = FoldedChain(segments, tail)
        for r in rng.uniform(-3.0, 3.0, (20, len(segments))):
            np.testing.assert_allclose(chain.point(r), chain_pose(segments, tail, r).position,
                                       atol=1e-15)
