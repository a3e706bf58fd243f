"""Tests for two_bone_ik.ik.target_solver (the node's per-target logic, without ROS)."""

import math

import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.arm.plane import from_plane
from two_bone_ik.ik.status import NodeStatus
from two_bone_ik.ik.target_solver import TargetSolver
from two_bone_ik.solver import forward, IkStatus

DEFAULT = TargetSolver(ArmConfig())


def tip(result, config=ArmConfig()):
    return forward(result.q1, result.q2, *config.link_lengths)


def test_reached():
    result = DEFAULT.solve('base_link', 0.3, 0.2, 0.0)
    assert (result.status, result.reachable, result.elbow) == (NodeStatus.REACHED, True, 'up')
    assert not result.rejected
    assert result.ik_status is IkStatus.REACHED
    np.testing.assert_allclose(tip(result), (0.3, 0.2), atol=1e-12)
    assert result.distance == pytest.approx(math.hypot(0.3, 0.2))
    assert result.error == pytest.approx(0.0, abs=1e-12)
    assert DEFAULT.describe(result).startswith('REACHED: tip on the target, 0.361 m')
    assert dict(DEFAULT.values(result)) == {
        'code': '0', 'status': 'REACHED', 'target_distance': '0.360555',
        'tip_error': '0.000000', 'elbow': 'up', 'off_plane': '0.000000',
        'solver_status': 'REACHED'}


def test_empty_frame_is_base_frame():
    assert DEFAULT.solve('', 0.3, 0.2, 0.0).status is NodeStatus.REACHED


def test_out_of_reach_and_inside_inner():
    out = DEFAULT.solve('', 0.0, 0.67, 0.0)
    assert (out.status, out.reachable) == (NodeStatus.OUT_OF_REACH, False)
    np.testing.assert_allclose(tip(out), (0.0, 0.55), atol=1e-12)
    assert DEFAULT.describe(out) == ('OUT_OF_REACH: target 0.120 m beyond reach (0.550 m), '
                                     'arm stretched toward it')
    inner = DEFAULT.solve('', 0.01, 0.0, 0.0)
    assert inner.status is NodeStatus.INSIDE_INNER
    assert DEFAULT.describe(inner).startswith('INSIDE_INNER: target 0.040 m inside')


@pytest.mark.parametrize('frame', ['world', '/base_link', 'base_link '])
def test_wrong_frame(frame):
    result = DEFAULT.solve(frame, 0.3, 0.2, 0.0)
    assert (result.status, result.reachable, result.rejected) == \
        (NodeStatus.WRONG_FRAME, False, True)
    assert math.isnan(result.q1) and math.isnan(result.q2)
    assert DEFAULT.describe(result).startswith(
        f"WRONG_FRAME: target frame '{frame}' is not base_frame 'base_link'")
    assert dict(DEFAULT.values(result))['solver_status'] == ''


@pytest.mark.parametrize('xyz', [(math.nan, 0, 0), (0, -math.inf, 0), (0, 0, math.inf),
                                 (1e308, 1e308, 0.0)])
def test_invalid_target(xyz):
    result = DEFAULT.solve('base_link', *xyz)
    assert (result.status, result.reachable, result.rejected) == \
        (NodeStatus.INVALID_TARGET, False, True)
    assert DEFAULT.describe(result).startswith('INVALID_TARGET: target position (')


def test_absurdly_far_is_beyond_1e100_m_from_the_origin_in_any_direction():
    # The rule the README and docs/node.md state, applied alike along the plane and off it.
    for xyz in ((1.01e100, 0.0, 0.0), (0.0, 0.0, -1.01e100), (0.8e100, 0.0, 0.8e100)):
        result = DEFAULT.solve('', *xyz)
        assert result.status is NodeStatus.INVALID_TARGET, xyz
    assert DEFAULT.describe(DEFAULT.solve('', 0.0, 0.0, 1.01e100)) == (
        'INVALID_TARGET: target position (0.000, 0.000, 1.01e+100) m is not finite, or more '
        "than 1e+100 m from the origin of 'base_link'")
    assert DEFAULT.solve('', 0.99e100, 0.0, 0.0).status is NodeStatus.OUT_OF_REACH
    assert DEFAULT.solve('', 0.0, 0.0, 0.99e100).status is NodeStatus.OFF_PLANE


def test_far_targets_say_how_far_in_numbers_people_read():
    far = DEFAULT.solve('', 1e20, 0.0, 0.0)
    assert DEFAULT.describe(far) == ('OUT_OF_REACH: target 1e+20 m beyond reach (0.550 m), '
                                     'arm stretched toward it')
    off = DEFAULT.solve('', 0.3, 0.2, 1e20)
    assert DEFAULT.describe(off).startswith('OFF_PLANE: target 1e+20 m off the xy plane')


def test_off_plane_solves_projection():
    result = DEFAULT.solve('', 0.3, 0.2, -0.003)
    assert (result.status, result.reachable) == (NodeStatus.OFF_PLANE, False)
    assert result.ik_status is IkStatus.REACHED
    assert result.off_plane == pytest.approx(-0.003)
    assert result.error == pytest.approx(0.003)
    np.testing.assert_allclose(tip(result), (0.3, 0.2), atol=1e-12)
    assert DEFAULT.describe(result) == (
        'OFF_PLANE: target 0.0030 m off the xy plane, beyond out_of_plane_tolerance (0.001 m); '
        'its projection commanded (REACHED)')
    # On the plane up to rounding (1e-9 of the reach): reached, nothing said of the plane.
    rounding = DEFAULT.solve('', 0.3, 0.2, 1e-10)
    assert (rounding.status, rounding.reachable) == (NodeStatus.REACHED, True)
    assert 'plane' not in DEFAULT.describe(rounding)


def test_within_out_of_plane_tolerance_a_reached_projection_is_projected_never_reachable():
    # 0.0004 m off the plane, inside the default 0.001 m: never OFF_PLANE (it used to say
    # "OFF_PLANE: target 0.0004 m off the xy plane (tolerance 0.001 m)"), and never reachable
    # either: the tip is on the projection, 0.0004 m from the target.
    within = DEFAULT.solve('', 0.3, 0.2, 0.0004)
    assert (within.status, within.reachable) == (NodeStatus.PROJECTED, False)
    assert within.ik_status is IkStatus.REACHED
    np.testing.assert_allclose(tip(within), (0.3, 0.2), atol=1e-12)
    assert within.error == pytest.approx(0.0004)
    assert dict(DEFAULT.values(within))['tip_error'] == '0.000400'
    assert DEFAULT.describe(within) == (
        'PROJECTED: target 0.0004 m off the xy plane, within out_of_plane_tolerance (0.001 m): '
        'its projection reached, elbow up; the tip is 0.0004 m from the target')
    edge = DEFAULT.solve('', 0.3, 0.2, -0.001)
    assert (edge.status, edge.reachable) == (NodeStatus.PROJECTED, False)
    beyond = DEFAULT.solve('', 0.3, 0.2, 0.0011)
    assert (beyond.status, beyond.reachable) == (NodeStatus.OFF_PLANE, False)
    # The other elbow's exact projection is PROJECTED too (the elbow in the text and values).
    limited = TargetSolver(ArmConfig(joint_lower_limits=(-math.inf, 0.0),
                                     joint_upper_limits=(math.inf, 3.0)))
    flipped = limited.solve('', 0.3, 0.2, 0.0004)
    assert (flipped.status, flipped.elbow, flipped.reachable) == (
        NodeStatus.PROJECTED, 'down', False)


def test_out_of_plane_tolerance_decides_between_off_plane_and_the_projections_status():
    # 0.002 m off the plane and 0.1 m beyond reach: within a 0.005 m tolerance the node says
    # why the in-plane part cannot be reached; with the default 0.001 m, OFF_PLANE.
    wide = TargetSolver(ArmConfig(out_of_plane_tolerance=0.005))
    for solver, expected in ((wide, NodeStatus.OUT_OF_REACH), (DEFAULT, NodeStatus.OFF_PLANE)):
        result = solver.solve('', 0.65, 0.0, 0.002)
        assert (result.status, result.reachable) == (expected, False)
        assert result.error == pytest.approx(math.hypot(0.1, 0.002))
    assert wide.solve('', 0.3, 0.2, 0.002).status is NodeStatus.PROJECTED
    assert wide.solve('', 0.3, 0.2, 0.006).status is NodeStatus.OFF_PLANE
    # A tolerance of 0: on the plane to rounding only (1e-9 of the reach).
    strict = TargetSolver(ArmConfig(out_of_plane_tolerance=0.0))
    assert strict.solve('', 0.3, 0.2, 1e-10).status is NodeStatus.REACHED
    assert strict.solve('', 0.3, 0.2, 1e-8).status is NodeStatus.OFF_PLANE
    # Whatever the tolerance, reachable only with the tip on the target (1e-9 of the reach).
    for solver in (wide, DEFAULT, strict):
        for off in (1e-10, 1e-8, 0.0004, 0.002, 0.006):
            result = solver.solve('', 0.3, 0.2, off)
            assert result.reachable == (result.error <= 1e-9 * 0.55), (off, result)


@pytest.mark.parametrize('plane', ['xy', 'xz', 'yz'])
def test_planes(plane):
    config = ArmConfig(plane=plane)
    solver = TargetSolver(config)
    xyz = np.array(from_plane(0.25, -0.3, plane)) + 0.0015 * np.array(
        ArmGeometry.from_config(ArmConfig(plane=plane)).normal)
    result = solver.solve('base_link', *xyz)
    assert (result.status, result.ik_status) == (NodeStatus.OFF_PLANE, IkStatus.REACHED)
    assert result.off_plane == pytest.approx(0.0015)
    np.testing.assert_allclose(tip(result, config), (0.25, -0.3), atol=1e-12)


def test_limits_flip_and_nearest():
    limited = TargetSolver(ArmConfig(joint_lower_limits=(-math.inf, 0.0),
                                     joint_upper_limits=(math.inf, 3.0)))
    flipped = limited.solve('', 0.3, 0.2, 0.0)
    assert (flipped.status, flipped.elbow, flipped.reachable) == \
        (NodeStatus.ELBOW_FLIPPED, 'down', True)
    assert limited.describe(flipped).startswith('ELBOW_FLIPPED: tip on the target with elbow '
                                                'down; elbow up would break')
    strict = TargetSolver(ArmConfig(joint_lower_limits=(-math.inf, 0.0),
                                    joint_upper_limits=(math.inf, 3.0), allow_elbow_flip=False))
    result = strict.solve('', 0.3, 0.2, 0.0)
    assert (result.status, result.reachable) == (NodeStatus.JOINT_LIMITED, False)
    assert strict.describe(result).startswith('JOINT_LIMITED: joint limits keep the tip')

    nearest = TargetSolver(ArmConfig(elbow='nearest'))
    down = nearest.solve('', 0.3, 0.2, 0.0, previous=(0.0, 1.0))
    up = nearest.solve('', 0.3, 0.2, 0.0, previous=(1.0, -1.0))
    assert (down.elbow, up.elbow) == ('down', 'up')


def test_accept_takes_the_other_elbow_when_it_refuses_the_configured_one():
    calls = []

    def accept(readings):
        calls.append(readings)
        return len(calls) > 1  # refuses the first candidate
    result = DEFAULT.solve('', 0.3, 0.2, 0.0, accept=accept)
    plain = DEFAULT.solve('', 0.3, 0.2, 0.0)
    assert calls[0] == plain.readings and len(calls) == 2
    assert result.status is NodeStatus.ELBOW_FLIPPED and result.elbow == 'down'
    assert result.accepted and result.reachable and result.readings == calls[1]
    np.testing.assert_allclose(tip(result), (0.3, 0.2), atol=1e-12)


def test_accept_refusing_everything_returns_the_preferred_pose_not_accepted():
    result = DEFAULT.solve('', 0.3, 0.2, 0.0, accept=lambda readings: False)
    plain = DEFAULT.solve('', 0.3, 0.2, 0.0)
    assert result == plain._replace(accepted=False)
    assert not result.accepted
    # A pose that is not exact is the one candidate.
    calls = []
    far = DEFAULT.solve('', 0.9, 0.0, 0.0, accept=lambda r: calls.append(r) or False)
    assert far.status is NodeStatus.OUT_OF_REACH and len(calls) == 1 and not far.accepted


def test_accept_without_flipping_tries_the_configured_elbow_alone():
    solver = TargetSolver(ArmConfig(allow_elbow_flip=False))
    calls = []
    result = solver.solve('', 0.3, 0.2, 0.0, accept=lambda r: calls.append(r) or False)
    assert len(calls) == 1 and not result.accepted and result.elbow == 'up'


def test_accept_never_offers_a_pose_past_a_limit():
    # Elbow down breaks its limit: only elbow up (the configured one) is a candidate.
    solver = TargetSolver(ArmConfig(joint_lower_limits=(-3.0, -3.0),
                                    joint_upper_limits=(3.0, 0.0)))
    calls = []
    result = solver.solve('', 0.3, 0.2, 0.0, accept=lambda r: calls.append(r) or False)
    assert len(calls) == 1 and calls[0][1] <= 0.0 and not result.accepted
