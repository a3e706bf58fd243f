"""Tests of two_bone_ik.solver.desktop: whole desktop arms in closed form.

Oracles independent of the package: MuJoCo's URDF loader for the forward kinematics
(:class:`fk_oracle.MujocoChain`), :func:`urdf_arms.reaches_forward` for which side of the yaw
axis a pose reaches, and a dense search over the approach pitch written here with its own
two-link inverse kinematics (law of cosines) for the pitch policy.
"""

import math

from fk_oracle import MujocoChain
import numpy as np
import pytest

from two_bone_ik.arm.desktop_config import desktop_geometry, DesktopConfig
from two_bone_ik.arm.desktop_geometry import arm_from_description, desktop_from_chain
from two_bone_ik.arm.urdf_export import desktop_urdf
from two_bone_ik.arm.urdf_import import chain_from_urdf
from two_bone_ik.solver import IkInputError
from two_bone_ik.solver.chain_kinematics import rotation_about
from two_bone_ik.solver.desktop import DesktopSolver, DesktopStatus, ON_TARGET
from two_bone_ik.solver.desktop_pitch import BoundaryRoots
from urdf_arms import (
    DESKTOP_JOINTS, FIXED_DESKTOP_ARMS, random_desktop_arm, random_readings, reaches_forward)

#: The tool point within this of the target, relative to the reach, when reached.
EXACT = 1e-9

SHAPES = tuple(DESKTOP_JOINTS)


def _geometry(arm):
    return desktop_from_chain(chain_from_urdf(arm.urdf, arm.base, arm.tip))


def _readings(rng, limits):
    return [float(rng.uniform(max(lo, -3.0), min(hi, 3.0))) for lo, hi in limits]


def _within_limits(readings, lower, upper):
    return all(lo - 1e-9 <= r <= hi + 1e-9 for r, lo, hi in zip(readings, lower, upper))


def _check_reaching(arm, geometry, solver, rng, count, axis_error=0.0):
    """Solve targets of random poses; return (forward ones reached, forward ones)."""
    oracle = MujocoChain(arm.urdf, arm.base, arm.tip, arm.joints)
    reached = forward = 0
    roll = arm.shape.endswith('roll')
    for _ in range(count):
        readings = _readings(rng, arm.limits)
        previous = _readings(rng, arm.limits) if rng.integers(0, 2) else None
        if roll:  # position only, the roll holds its last command (0 without one)
            lower, upper = arm.limits[4]
            readings[4] = previous[4] if previous else min(max(0.0, lower), upper)
        target = oracle.tool(readings)
        wanted = float(rng.uniform(-math.pi, math.pi))
        if not geometry.model.has_yaw and axis_error:
            # Without a yaw the tool leaves the ideal plane as the tilted pair and pitch turn:
            # the target lies on the real arm's surface only near its own pose (its pitch, its
            # elbow branch, which 'nearest' takes from the previous command).
            _, points, _ = geometry.model.plane_points(readings)
            wanted = math.atan2(points[3][1] - points[2][1], points[3][0] - points[2][0])
            previous = readings
        sol = solver.solve(*target, previous=previous, approach_pitch=wanted)
        if sol.reachable:
            assert sol.status in ON_TARGET
            assert _within_limits(sol.readings, geometry.lower_limits, geometry.upper_limits)
            miss = np.linalg.norm(oracle.tool(sol.readings) - target)
            assert miss <= EXACT * solver.reach, (sol, miss)
        else:
            assert sol.status not in ON_TARGET
            assert sol.error > EXACT * solver.reach
        if reaches_forward(arm, readings):
            forward += 1
            reached += sol.reachable
    return reached, forward


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('seed', range(12))
def test_every_target_in_reach_is_reached_exactly(shape, seed):
    # Random arms of every shape (random fixed rotations, offsets, kinks, axis signs, limits):
    # the tool point of any pose that reaches forward is reached, exactly in MuJoCo's
    # kinematics, within the limits; an unreached one is never called reached.
    rng = np.random.default_rng(100 * seed + SHAPES.index(shape))
    arm = random_desktop_arm(rng, shape, roll_at_tip=bool(seed % 3 == 0))
    geometry = _geometry(arm)
    assert geometry.model.exact
    solver = DesktopSolver(geometry.model, elbow=('up', 'down', 'nearest')[seed % 3])
    reached, forward = _check_reaching(arm, geometry, solver, rng, 25)
    assert reached == forward


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('axis_error', [4e-6, 1e-4, 9e-4])
def test_axes_off_within_the_tolerance_still_reach_exactly(shape, axis_error):
    # Joint axes tilted by up to the axis error each (relations off by up to twice that,
    # within the 2e-3 rad tolerance): reached targets are exact in the URDF's own kinematics;
    # only targets within the ideal arm's error of the workspace's boundary may be missed.
    reached = forward = 0
    for seed in range(6):
        rng = np.random.default_rng(7 * seed + int(axis_error * 1e6))
        arm = random_desktop_arm(rng, shape, axis_error=axis_error)
        geometry = _geometry(arm)
        assert not geometry.model.exact
        elbow = ('up', 'down', 'nearest')[seed % 3] if geometry.model.has_yaw else 'nearest'
        solver = DesktopSolver(geometry.model, elbow=elbow)
        counts = _check_reaching(arm, geometry, solver, rng, 20, axis_error)
        reached, forward = reached + counts[0], forward + counts[1]
    # Misses are targets within the model error (~ the axis error x the reach) of the
    # workspace's boundary, where the arm is stretched or folded: more as the error grows.
    assert reached >= (0.97 if axis_error <= 1e-4 else 0.93) * forward


@pytest.mark.parametrize('name', sorted(FIXED_DESKTOP_ARMS))
def test_fixed_arms_reach_exactly(name):
    urdf, base, tip, joints, shape = FIXED_DESKTOP_ARMS[name]
    geometry = arm_from_description(urdf, base, tip)
    solver = DesktopSolver(geometry.model)
    oracle = MujocoChain(urdf, base, tip, joints)
    rng = np.random.default_rng(1)
    reached = 0
    for _ in range(60):
        readings = random_readings(rng, geometry.lower_limits, geometry.upper_limits)
        target = oracle.tool(readings)
        sol = solver.solve(*target, previous=readings, approach_pitch=-1.0)
        if sol.reachable:
            reached += 1
            assert np.linalg.norm(oracle.tool(sol.readings) - target) <= EXACT * solver.reach
    assert reached >= 40


def test_fast_path_equals_the_general_one():
    for seed, shape in enumerate(('yaw + pair + pitch', 'yaw + pair + pitch + roll') * 6):
        rng = np.random.default_rng(seed)
        arm = random_desktop_arm(rng, shape)
        geometry = _geometry(arm)
        for elbow in ('up', 'down', 'nearest'):
            solver = DesktopSolver(geometry.model, elbow=elbow)
            assert solver._fast is not None
            for _ in range(15):
                readings = _readings(rng, arm.limits)
                target = geometry.tool_position(readings)
                previous = None if rng.integers(0, 3) == 0 else _readings(rng, arm.limits)
                wanted = float(rng.uniform(-4.0, 4.0))
                fast = solver.solve(*target, previous=previous, approach_pitch=wanted)
                general = solver.solve_general(*target, previous=previous,
                                               approach_pitch=wanted)
                assert fast.status == general.status
                assert fast.elbow == general.elbow
                assert (fast.yaw_branch, fast.roll_moved) == (general.yaw_branch,
                                                              general.roll_moved)
                np.testing.assert_allclose(fast.readings, general.readings, rtol=0, atol=1e-12)
                np.testing.assert_allclose(
                    (fast.approach_pitch, fast.asked_pitch, fast.distance, fast.error),
                    (general.approach_pitch, general.asked_pitch, general.distance,
                     general.error), rtol=0, atol=1e-12)


@pytest.mark.parametrize('unlimited', ['shoulder', 'elbow'])
def test_fast_path_equals_the_general_one_with_a_joint_unlimited(unlimited):
    # The fast path's plain fits (a pair joint with no limit on either side: no limit_fit)
    # with a pitch joint whose limits span more than a turn (the last command picks the turn).
    for seed in range(4):
        rng = np.random.default_rng(800 + seed)
        geometry = _geometry(random_desktop_arm(rng, 'yaw + pair + pitch + roll'))
        model = geometry.model
        lower, upper = list(model.lower_limits), list(model.upper_limits)
        index = model.indices[1 if unlimited == 'shoulder' else 2]
        lower[index], upper[index] = -math.inf, math.inf
        lower[3], upper[3] = -5.0, 5.0
        model = model._replace(lower_limits=tuple(lower), upper_limits=tuple(upper))
        solver = DesktopSolver(model)
        assert solver._fits is None and solver._fast is not None
        limits = list(zip(lower, upper))
        turned = 0
        for _ in range(40):
            target = geometry.tool_position(_readings(rng, limits))  # (limits: no FK change)
            previous = _readings(rng, limits)
            wanted = float(rng.uniform(-4.0, 4.0))
            fast = solver.solve(*target, previous, wanted)
            general = solver.solve_general(*target, previous, wanted)
            assert repr(fast) == repr(general)
            turned += abs(fast.readings[3]) > math.pi
        assert turned > 0


def _counting(solver, name):
    """Wrap the solver's method ``name`` to count its answers (not None); return the counts."""
    method, counts = getattr(solver, name), [0]

    def counted(*args):
        answer = method(*args)
        counts[0] += answer is not None
        return answer
    setattr(solver, name, counted)
    return counts


def _assert_fast_is_general(solver, target, previous, wanted):
    fast = solver._solve_fast(*target, previous, wanted)
    if fast is not None:
        assert repr(fast) == repr(solver.solve_general(*target, previous, wanted))


def test_fast_path_moves_the_roll_as_the_general_path():
    # The fast path's own route into class (b): the shortcut past the yaw's entry into its
    # limits (the general path's _past_yaw_entry), its plane solved as the fast path's: the
    # general path's answers to the bit, on the SO-101-like arm and random ones.
    urdf, base, tip, _, _ = FIXED_DESKTOP_ARMS['so101_like']
    geometries = [arm_from_description(urdf, base, tip)]
    rng = np.random.default_rng(0)
    geometries += [_geometry(random_desktop_arm(rng, 'yaw + pair + pitch + roll'))
                   for _ in range(6)]
    answered = 0
    for geometry in geometries:
        lower, upper = geometry.lower_limits, geometry.upper_limits
        for elbow in ('up', 'nearest'):
            solver = DesktopSolver(geometry.model, elbow=elbow)
            counts = _counting(solver, '_fast_moved')
            for _ in range(150):
                target = geometry.tool_position(random_readings(rng, lower, upper))
                previous = random_readings(rng, lower, upper) if rng.integers(0, 2) else None
                _assert_fast_is_general(solver, target, previous, float(rng.uniform(-4, 4)))
            answered += counts[0]
    assert answered >= 50


def test_fast_path_reaches_back_from_the_hole_round_the_shoulder_as_the_general_path():
    # A target nearer the shoulder than any tool point comes (RollGeometry.hole): classes
    # (a) and (b) are empty, the fast path goes to class (c) without their searches.
    answered = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        geometry = _geometry(random_desktop_arm(rng, 'yaw + pair + pitch + roll'))
        model = geometry.model
        solver = DesktopSolver(model)
        if solver._hole2 <= 0.0:
            continue
        counts = _counting(solver, '_fast_hole')
        (su, sv), hole = model.shoulder, solver._roll_geometry.hole
        for _ in range(400):
            previous = random_readings(rng, geometry.lower_limits, geometry.upper_limits) \
                if rng.integers(0, 2) else None
            distance, angle = hole * math.sqrt(rng.uniform()), rng.uniform(-math.pi, math.pi)
            target = model.to_world(
                rng.uniform(-math.pi, math.pi), su + distance * math.cos(angle),
                sv + distance * math.sin(angle),
                model.tool_at(0.0 if previous is None else previous[4]).lateral)
            _assert_fast_is_general(solver, target, previous, float(rng.uniform(-4, 4)))
        answered += counts[0]
    assert answered >= 5


# -- the pitch policy against a dense search -----------------------------------------------


def _pair_poses(wu, wv, l1, l2):
    """Both elbow branches' (q1, q2) reaching wrist points (arrays), NaN where none does."""
    r2 = wu * wu + wv * wv
    cosine = (r2 - l1 * l1 - l2 * l2) / (2.0 * l1 * l2)
    ok = np.abs(cosine) <= 1.0
    q2 = np.arccos(np.clip(cosine, -1.0, 1.0))
    poses = []
    for sign in (-1.0, 1.0):  # elbow up, down
        q2s = sign * q2
        q1 = np.arctan2(wv, wu) - np.arctan2(l2 * np.sin(q2s), l1 + l2 * np.cos(q2s))
        poses.append((np.where(ok, q1, np.nan), np.where(ok, q2s, np.nan)))
    return poses


def _fits(angle, lower, upper):
    """Whether some whole turn of each angle (array) lies within [lower, upper]."""
    if upper - lower >= 2.0 * math.pi:
        return np.isfinite(angle)
    shifted = lower + np.mod(angle - lower, 2.0 * math.pi)
    return shifted <= upper + 1e-12


def _feasible_pitches(model, target_plane, tool, phi):
    """Per pitch sample: whether some pose at that approach pitch reaches the target."""
    du, dv = target_plane
    l1, l2 = model.link_lengths
    (z1, z2), d = model.zero_angles, model.directions
    _, i1, i2, i3, _ = model.indices
    wu, wv = du - tool.length * np.cos(phi), dv - tool.length * np.sin(phi)
    feasible = np.zeros(phi.shape, dtype=bool)
    lower, upper = model.lower_limits, model.upper_limits
    for q1, q2 in _pair_poses(wu, wv, l1, l2):
        readings = [d[i1] * (q1 - z1), d[i2] * (q2 - z2), d[i3] * (phi - tool.beta - q1 - q2)]
        ok = np.ones(phi.shape, dtype=bool)
        for index, value in zip((i1, i2, i3), readings):
            ok &= _fits(value, lower[index], upper[index])
        feasible |= ok
    return feasible


@pytest.mark.parametrize('shape', ['pair + pitch', 'yaw + pair + pitch',
                                   'yaw + pair + pitch + roll'])
@pytest.mark.parametrize('seed', range(6))
def test_pitch_is_the_feasible_one_nearest_the_wanted(shape, seed):
    rng = np.random.default_rng(300 + seed)
    arm = random_desktop_arm(rng, shape)
    geometry = _geometry(arm)
    model = geometry.model
    solver = DesktopSolver(geometry.model)
    phi = np.linspace(-math.pi, math.pi, 200001)
    step = phi[1] - phi[0]
    for _ in range(15):
        readings = _readings(rng, arm.limits)
        target = np.array(geometry.tool_position(readings))
        if rng.integers(0, 2):
            target = target + rng.normal(size=3) * 0.03  # often not reachable
        previous = _readings(rng, arm.limits)
        wanted = float(rng.uniform(-math.pi, math.pi))
        sol = solver.solve(*target, previous=previous, approach_pitch=wanted)
        if sol.off_plane or not sol.reachable and sol.status is DesktopStatus.OFF_PLANE:
            continue
        # At the roll commanded: the held one, or the one a moved roll (class (b), (d)) took.
        tool = model.tool_at(sol.readings[4] if model.has_roll else 0.0)
        # The target in the commanded plane, from the shoulder.
        yaw, points, _ = model.plane_points(sol.readings)
        offset = np.array(target) - np.array(model.to_world(yaw, 0.0, 0.0, 0.0))
        c, s = math.cos(yaw), math.sin(yaw)
        forward = c * np.array(model.forward) - s * np.array(model.normal)
        plane = (float(offset @ forward) - model.shoulder[0],
                 float(offset @ np.array(model.up)) - model.shoulder[1])
        samples = phi
        if sol.roll_moved:
            # A moved roll is a micro-radian inside the end of its stretch of rolls, where the
            # feasible pitches may be a sliver finer than the grid: sampled finely there too.
            samples = np.concatenate((phi, sol.approach_pitch + np.linspace(-1e-4, 1e-4, 20001)))
        feasible = _feasible_pitches(model, plane, tool, samples)
        distance = np.abs(np.remainder(samples - wanted + math.pi, 2.0 * math.pi) - math.pi)
        if sol.reachable:
            chosen = abs(math.remainder(sol.approach_pitch - wanted, math.tau))
            assert feasible.any()
            assert chosen <= distance[feasible].min() + 1e-9, (sol, distance[feasible].min())
        else:
            # Nothing reaches it: no sample does (a feasible sliver narrower than the grid
            # would show up as a sample next to the boundary, which the solver would find).
            assert not feasible.any(), (sol, phi[feasible][:3])
        assert step < 1e-4


def test_dropping_the_circles_the_elbow_cannot_hold_changes_no_answer():
    # The solver leaves out the reach circles whose elbow angle (straight, folded) is outside
    # the elbow's limits: the answers are those with every circle, bit for bit.
    dropped = 0
    for seed, shape in enumerate(('yaw + pair + pitch', 'yaw + pair + pitch + roll') * 3):
        rng = np.random.default_rng(700 + seed)
        arm = random_desktop_arm(rng, shape)
        geometry = _geometry(arm)
        solver, every = DesktopSolver(geometry.model), DesktopSolver(geometry.model)
        every._roots = BoundaryRoots(*geometry.model.link_lengths, every._circles,
                                     every._circle_joints, every._pitch_angles)
        every._roots.tag(every._boundary_terms())
        dropped += len(every._roots.held()) - len(solver._roots.held())
        for _ in range(40):
            target = np.array(geometry.tool_position(_readings(rng, arm.limits)))
            if rng.integers(0, 2):
                target = target + rng.normal(size=3) * 0.03
            previous = None if rng.integers(0, 2) else _readings(rng, arm.limits)
            wanted = float(rng.uniform(-math.pi, math.pi))
            assert repr(solver.solve(*target, previous, wanted)) == repr(
                every.solve(*target, previous, wanted))
    assert dropped > 0


# -- named cases on an arm with round numbers ----------------------------------------------

#: A yaw + pair + pitch + roll arm in the xz plane: shoulder 3 cm out, 5 cm up, links 0.12 +
#: 0.10 m, the tool 0.05 m along the approach and 5 mm off the roll axis; limits on every joint.
ROUND = DesktopConfig(
    joint_names=('yaw', 'shoulder', 'elbow', 'pitch', 'roll'), link_lengths=(0.12, 0.10),
    plane='xz', shoulder_position=(0.03, 0.0, 0.05), joint_zero_angles=(0.0, 0.5, -0.5, 0.0, 0.0),
    joint_directions=(1, -1, -1, -1, 1), tool_offset=(0.05, 0.005, 0.0),
    joint_lower_limits=(-2.0, -1.5, -2.5, -1.8, -2.5),
    joint_upper_limits=(2.0, 1.5, 2.5, 1.8, 2.5))


def _round(**changes):
    config = DesktopConfig(**{**ROUND.__dict__, **changes})
    return desktop_geometry(config), MujocoChain(desktop_urdf(config), config.base_frame, 'tool',
                                                 config.joint_names)


def test_out_of_reach_stretches_toward_the_target():
    geometry, oracle = _round(joint_lower_limits=None, joint_upper_limits=None)
    solver = DesktopSolver(geometry.model)
    target = np.array([0.6, 0.2, 0.3])
    sol = solver.solve(*target)
    assert sol.status is DesktopStatus.OUT_OF_REACH and not sol.reachable
    tool = oracle.tool(sol.readings)
    # The shoulder turned to face the target; the tool on the line to it, at full reach.
    shoulder = np.array(geometry.arm_points(sol.readings)[1])
    toward = (target - shoulder) / np.linalg.norm(target - shoulder)
    reach = 0.12 + 0.10 + math.hypot(0.05, 0.005)
    np.testing.assert_allclose(tool, shoulder + reach * toward, atol=1e-12)
    assert sol.error == pytest.approx(np.linalg.norm(target - tool), abs=1e-12)


def test_inside_the_hole_folds_toward_the_target():
    geometry, oracle = _round(link_lengths=(0.30, 0.10), tool_offset=(0.05, 0.0, 0.0),
                              joint_lower_limits=None, joint_upper_limits=None)
    solver = DesktopSolver(geometry.model)
    shoulder = np.array(geometry.arm_points([0.0] * 5)[1])
    target = shoulder + np.array([0.04, 0.0, 0.02])
    sol = solver.solve(*target)
    assert sol.status is DesktopStatus.INSIDE_INNER
    tool = oracle.tool(sol.readings)
    # The tool point 0.30 - 0.10 - 0.05 m from the shoulder, toward the target.
    toward = (target - shoulder) / np.linalg.norm(target - shoulder)
    np.testing.assert_allclose(tool, shoulder + 0.15 * toward, atol=1e-12)


def test_plane_offset_from_the_yaw_axis():
    # The arm's plane 4 cm aside: a target 3 cm from the yaw axis cannot be faced.
    geometry, oracle = _round(shoulder_position=(0.03, 0.04, 0.05), joint_lower_limits=None,
                              joint_upper_limits=None)
    solver = DesktopSolver(geometry.model)
    sol = solver.solve(0.03, 0.0, 0.1)
    assert sol.status is DesktopStatus.INSIDE_INNER and not sol.reachable
    assert abs(sol.off_plane) == pytest.approx(0.01, abs=1e-12)
    # Further out, the yaw turns the offset plane through the target: reached exactly.
    target = np.array([0.05, 0.12, 0.1])
    sol = solver.solve(*target)
    assert sol.status is DesktopStatus.REACHED
    np.testing.assert_allclose(oracle.tool(sol.readings), target, atol=1e-12)


def test_a_target_on_the_yaw_axis_keeps_the_last_yaw():
    geometry, oracle = _round()
    solver = DesktopSolver(geometry.model)
    previous = (0.7, 0.2, -0.3, 0.1, 0.0)  # roll 0: the tool point in the yaw axis' plane
    target = np.array([0.0, 0.0, 0.25])
    sol = solver.solve(*target, previous=previous, approach_pitch=math.pi / 2)
    assert sol.reachable
    assert sol.readings[0] == previous[0]
    np.testing.assert_allclose(oracle.tool(sol.readings), target, atol=1e-12)


def test_the_yaw_faces_the_target_and_stops_on_its_limit():
    geometry, _ = _round()
    solver = DesktopSolver(geometry.model)
    for azimuth in (-1.9, -0.5, 0.0, 1.2, 1.99):
        target = (0.15 * math.cos(azimuth), 0.15 * math.sin(azimuth), 0.1)
        sol = solver.solve(*target)
        assert sol.readings[0] == pytest.approx(azimuth, abs=1e-12)
    facing_only = DesktopSolver(geometry.model, allow_reach_back=False)
    sol = facing_only.solve(-0.15, 0.01, 0.1)  # behind: the yaw would need 3.07 rad
    assert sol.status is DesktopStatus.JOINT_LIMITED and not sol.reachable
    assert sol.readings[0] == 2.0
    back = solver.solve(-0.15, 0.01, 0.1)  # reaching back over the yaw axis instead
    assert back.reachable and back.yaw_branch == 'back'
    assert -2.0 <= back.readings[0] <= 2.0


def test_a_target_only_reaching_back_reaches_is_joint_limited():
    # The shoulder 8 cm out, a long upper arm: facing it, a target just in front of the yaw
    # axis is in the inner hole; reaching back over the axis would reach it.
    geometry, _ = _round(joint_lower_limits=None, joint_upper_limits=None,
                         shoulder_position=(0.08, 0.0, 0.05), link_lengths=(0.3, 0.1),
                         tool_offset=(0.05, 0.0, 0.0))
    solver = DesktopSolver(geometry.model, allow_reach_back=False)
    sol = solver.solve(0.09, 0.0, 0.06)
    assert sol.status is DesktopStatus.JOINT_LIMITED and not sol.reachable
    assert solver.solve(0.02, 0.0, 0.05).status is DesktopStatus.INSIDE_INNER  # both ways
    batch = solver.solve_batch([[0.09, 0.0, 0.06], [0.02, 0.0, 0.05]])
    assert list(batch.status) == [DesktopStatus.JOINT_LIMITED, DesktopStatus.INSIDE_INNER]
    solver.allow_reach_back = True  # (an attribute: the node sets it at runtime)
    back = solver.solve(0.09, 0.0, 0.06)
    assert back.reachable and back.yaw_branch == 'back'
    batch = solver.solve_batch([[0.09, 0.0, 0.06]])
    assert bool(batch.back[0]) and bool(batch.reachable[0])


def test_roll_holds_its_last_command():
    geometry, oracle = _round()
    solver = DesktopSolver(geometry.model)
    target = np.array([0.18, 0.05, 0.08])
    for roll in (-1.0, 0.0, 0.8):
        sol = solver.solve(*target, previous=(0.0, 0.0, 0.0, 0.0, roll))
        assert sol.status is DesktopStatus.REACHED
        assert sol.readings[4] == roll
        np.testing.assert_allclose(oracle.tool(sol.readings), target, atol=1e-12)
    sol = solver.solve(*target, previous=(0.0, 0.0, 0.0, 0.0, 3.0))  # past its limit
    assert sol.readings[4] == 2.5


def test_elbow_flips_only_when_allowed():
    # The elbow's solver angle is -0.5 - reading: readings in [-2.5, -0.6] keep it in
    # [0.1, 2.0], bent to the 'down' side only.
    geometry, oracle = _round(joint_lower_limits=(-2.0, -1.5, -2.5, -1.8, -2.5),
                              joint_upper_limits=(2.0, 1.5, -0.6, 1.8, 2.5))
    target = np.array([0.2, 0.0, 0.1])
    down = DesktopSolver(geometry.model, elbow='down').solve(*target)
    assert (down.status, down.elbow) == (DesktopStatus.REACHED, 'down')
    flipped = DesktopSolver(geometry.model, elbow='up').solve(*target)
    assert (flipped.status, flipped.elbow) == (DesktopStatus.ELBOW_FLIPPED, 'down')
    np.testing.assert_allclose(oracle.tool(flipped.readings), target, atol=1e-12)
    refused = DesktopSolver(geometry.model, elbow='up', allow_elbow_flip=False).solve(*target)
    assert refused.status is DesktopStatus.JOINT_LIMITED and not refused.reachable
    assert _within_limits(refused.readings, geometry.lower_limits, geometry.upper_limits)


def test_approach_pitch_is_kept_when_it_reaches():
    geometry, oracle = _round()
    solver = DesktopSolver(geometry.model)
    target = np.array([0.2, 0.02, 0.05])
    for wanted in (-1.2, -0.6, 0.0, 0.4):
        sol = solver.solve(*target, approach_pitch=wanted)
        assert sol.status is DesktopStatus.REACHED
        assert sol.approach_pitch == pytest.approx(wanted, abs=1e-12)
        np.testing.assert_allclose(oracle.tool(sol.readings), target, atol=1e-12)


def _orientation(rotation):
    """Quaternion (x, y, z, w) of a 3 x 3 rotation (from its largest component, stable)."""
    r = np.asarray(rotation)
    trace = np.trace(r)
    k = int(np.argmax([r[0, 0], r[1, 1], r[2, 2], trace]))
    if k == 3:
        w = math.sqrt(1.0 + trace) / 2.0
        q = ((r[2, 1] - r[1, 2]) / (4 * w), (r[0, 2] - r[2, 0]) / (4 * w),
             (r[1, 0] - r[0, 1]) / (4 * w), w)
    else:
        i, j, m = k, (k + 1) % 3, (k + 2) % 3
        big = math.sqrt(1.0 + r[i, i] - r[j, j] - r[m, m]) / 2.0
        q = [0.0, 0.0, 0.0, (r[m, j] - r[j, m]) / (4 * big)]
        q[i], q[j], q[m] = big, (r[j, i] + r[i, j]) / (4 * big), (r[m, i] + r[i, m]) / (4 * big)
    return tuple(q)


def _angle_between(a, b):
    """Angle (rad) of the rotation between two orientations, from its sine and cosine."""
    relative = np.asarray(a).T @ np.asarray(b)
    sine = 0.5 * math.sqrt((relative[2, 1] - relative[1, 2]) ** 2
                           + (relative[0, 2] - relative[2, 0]) ** 2
                           + (relative[1, 0] - relative[0, 1]) ** 2)
    return math.atan2(sine, 0.5 * (np.trace(relative) - 1.0))


@pytest.mark.parametrize('name', ['desktop_4', 'desktop_5', 'so101_like'])
def test_orientations_of_reachable_poses_are_met(name):
    # Poses of the arm itself, position and orientation asked: the tool point exact, the
    # split's pitch and roll commanded (within the URDF's own error: each joint's tilted axis
    # turns the tool by at most twice its tilt); whatever yaw the facing drops is measured.
    urdf, base, tip, joints, _ = FIXED_DESKTOP_ARMS[name]
    geometry = arm_from_description(urdf, base, tip)
    model = geometry.model
    solver = DesktopSolver(model)
    oracle = MujocoChain(urdf, base, tip, joints)
    slack = 1e-9 + 4 * geometry.axis_error  # the URDF's own error (its axes' defect)
    rng = np.random.default_rng(4)
    met = 0
    for _ in range(80):
        readings = random_readings(rng, geometry.lower_limits, geometry.upper_limits)
        position, rotation = oracle.pose(readings)
        sol = solver.solve(*position, previous=readings, orientation=_orientation(rotation))
        if sol.status is not DesktopStatus.REACHED:
            continue
        tool, commanded = oracle.pose(sol.readings)
        assert np.linalg.norm(tool - position) <= EXACT * solver.reach
        assert sol.orientation_error == pytest.approx(_angle_between(rotation, commanded),
                                                      abs=1e-9)
        turned = abs(math.remainder(sol.readings[0] - readings[0], math.tau))
        if turned > 1e-3:
            continue  # the pose reached back over the yaw axis: faced, the yaw is dropped
        # Faced as the pose was (the yaw moved only by the correction): the split's pitch and
        # roll as asked, i.e. the commanded orientation is the asked one turned about the yaw
        # axis only (compared whole: near the roll axis pointing up, yaw and roll trade off);
        # the yaw the facing kept is the pose's own: the orientation itself is met.
        met += 1
        assert sol.orientation_error <= slack
        relative = commanded @ rotation.T
        axis = np.array([relative[2, 1] - relative[1, 2], relative[0, 2] - relative[2, 0],
                         relative[1, 0] - relative[0, 1]]) / 2.0  # sin(angle) x axis
        assert np.linalg.norm(axis - np.dot(axis, model.up) * np.array(model.up)) <= slack
    assert met >= 10


def test_orientation_beyond_the_arm_is_dropped_and_measured():
    geometry, oracle = _round(joint_lower_limits=None, joint_upper_limits=None)
    solver = DesktopSolver(geometry.model)
    readings = (0.3, 0.2, -0.4, 0.5, 0.6)
    position, rotation = oracle.pose(readings)
    # A yaw of the tool about the vertical beyond what the position needs: dropped.
    turned = np.reshape(rotation_about((0.0, 0.0, 1.0), 0.25), (3, 3)) @ rotation
    sol = solver.solve(*position, orientation=_orientation(turned))
    assert sol.status is DesktopStatus.REACHED
    np.testing.assert_allclose(oracle.tool(sol.readings), position, atol=1e-12)
    assert sol.orientation_error == pytest.approx(0.25, abs=1e-9)
    assert _angle_between(oracle.pose(sol.readings)[1], rotation) == pytest.approx(0.0,
                                                                                   abs=1e-9)


def test_without_a_roll_joint_the_roll_is_dropped():
    geometry, oracle = _round(joint_names=('yaw', 'shoulder', 'elbow', 'pitch'), arm_shape='',
                              joint_zero_angles=(0.0, 0.5, -0.5, 0.0),
                              joint_directions=(1, -1, -1, -1), tool_offset=(0.05, 0.0, 0.0),
                              joint_lower_limits=None, joint_upper_limits=None)
    solver = DesktopSolver(geometry.model)
    position, rotation = oracle.pose((0.3, 0.2, -0.4, 0.5))
    approach = rotation[:, 0]  # the tool frame's x is the approach
    rolled = np.reshape(rotation_about(approach, 0.4), (3, 3)) @ rotation
    sol = solver.solve(*position, orientation=_orientation(rolled))
    assert sol.status is DesktopStatus.REACHED
    assert sol.orientation_error == pytest.approx(0.4, abs=1e-9)
    np.testing.assert_allclose(sol.readings, (0.3, 0.2, -0.4, 0.5), atol=1e-9)


def test_an_unreachable_pitch_is_adjusted_only_for_an_orientation():
    geometry, oracle = _round()
    solver = DesktopSolver(geometry.model)
    target = np.array([0.25, 0.0, 0.05])  # near full reach: only a level approach reaches
    pointing_down = _orientation(np.reshape(rotation_about((0.0, 1.0, 0.0), math.pi / 2),
                                            (3, 3)))
    oriented = solver.solve(*target, orientation=pointing_down)
    assert oriented.status is DesktopStatus.APPROACH_ADJUSTED and oriented.reachable
    # The hand points down, turned so its 5 mm offset lies across the plane (roll a quarter
    # turn): the approach is straight down.
    assert oriented.asked_pitch == pytest.approx(-math.pi / 2, abs=1e-12)
    assert abs(oriented.readings[4]) == pytest.approx(math.pi / 2, abs=1e-12)
    assert abs(oriented.approach_pitch - oriented.asked_pitch) > 0.05
    np.testing.assert_allclose(oracle.tool(oriented.readings), target, atol=1e-12)
    preferred = solver.solve(*target, previous=(0.0, 0.0, 0.0, 0.0, oriented.readings[4]),
                             approach_pitch=oriented.asked_pitch)
    assert preferred.status is DesktopStatus.REACHED
    assert preferred.approach_pitch == pytest.approx(oriented.approach_pitch, abs=1e-12)


def test_a_roll_past_its_limit_is_joint_limited_with_the_tool_on_target():
    geometry, oracle = _round(joint_lower_limits=(-2.0, -1.5, -2.5, -1.8, -0.2),
                              joint_upper_limits=(2.0, 1.5, 2.5, 1.8, 0.2))
    unlimited, _ = _round(joint_lower_limits=None, joint_upper_limits=None)
    readings = (0.3, 0.2, -0.4, 0.5, 1.0)
    position, rotation = MujocoChain(desktop_urdf(DesktopConfig(**{
        **ROUND.__dict__, 'joint_lower_limits': None, 'joint_upper_limits': None})),
        'base_link', 'tool', ROUND.joint_names).pose(readings)
    sol = DesktopSolver(geometry.model).solve(*position, orientation=_orientation(rotation))
    assert sol.status is DesktopStatus.JOINT_LIMITED and sol.reachable
    assert sol.readings[4] == 0.2
    np.testing.assert_allclose(oracle.tool(sol.readings), position, atol=1e-12)


def test_ties_go_to_the_pitch_nearest_the_last_command():
    # No limits: at a target well inside the reach, pitches symmetric about the wanted one
    # are equally near when the wanted one is infeasible; the last command decides.
    geometry, oracle = _round(joint_lower_limits=None, joint_upper_limits=None,
                              shoulder_position=(0.0, 0.0, 0.0), link_lengths=(0.10, 0.10),
                              tool_offset=(0.15, 0.0, 0.0))
    solver = DesktopSolver(geometry.model)
    target = (0.33, 0.0, 0.0)  # beyond l1 + l2 unless the tool points roughly at it
    wanted = math.pi  # straight back: infeasible, the feasible arc is around 0
    low = solver.solve(*target, previous=(0.0, 0.0, 0.0, 0.0, 0.0), approach_pitch=wanted)
    assert low.reachable
    lower = low.approach_pitch
    mirror = (0.0, 0.0, 0.0, -0.0, 0.0)
    for previous_pitch in (abs(lower), -abs(lower)):
        previous = solver.solve(0.3, 0.0, 0.0, approach_pitch=previous_pitch).readings
        sol = solver.solve(*target, previous=previous, approach_pitch=wanted)
        assert math.copysign(1.0, sol.approach_pitch) == math.copysign(1.0, previous_pitch)
    assert mirror


@pytest.mark.parametrize('bad, match', [
    ({'x': math.nan}, 'x must be finite'),
    ({'z': math.inf}, 'z must be finite'),
    ({'previous': (0.0, 0.0)}, 'previous must be 5 finite readings'),
    ({'previous': (0.0, 0.0, math.nan, 0.0, 0.0)}, 'previous must be 5 finite readings'),
    ({'orientation': (0.0, 0.0, 0.0, 0.0)}, 'is not a rotation'),
    ({'approach_pitch': math.nan}, 'approach_pitch must be finite'),
])
def test_invalid_input_is_refused_naming_it(bad, match):
    geometry, _ = _round()
    arguments = {'x': 0.1, 'y': 0.0, 'z': 0.1, **bad}
    with pytest.raises(IkInputError, match=match):
        DesktopSolver(geometry.model).solve(**arguments)


def test_invalid_options_are_refused():
    geometry, _ = _round()
    with pytest.raises(IkInputError, match="elbow must be 'up', 'down' or 'nearest'"):
        DesktopSolver(geometry.model, elbow='left')


# -- the whole solution set: every pose's tool point, the preference order, accept ---------


def _fk_sampled(rng, geometry, count):
    """Tool points of ``count`` poses drawn uniformly within the limits (the roll too)."""
    readings = [random_readings(rng, geometry.lower_limits, geometry.upper_limits)
                for _ in range(count)]
    return readings, [np.array(geometry.tool_position(r)) for r in readings]


def _assert_exact(oracle, solver, geometry, sol, target):
    assert sol.reachable and sol.status in ON_TARGET, sol
    assert _within_limits(sol.readings, geometry.lower_limits, geometry.upper_limits)
    assert np.linalg.norm(oracle.tool(sol.readings) - target) <= EXACT * solver.reach


@pytest.mark.parametrize('shape', ['yaw + pair', 'yaw + pair + pitch',
                                   'yaw + pair + pitch + roll'])
@pytest.mark.parametrize('seed', range(8))
def test_every_fk_sampled_target_is_reached_exactly(shape, seed):
    # Any pose within the limits (the roll anywhere, whichever side of the yaw axis it
    # reaches): its tool point is reached exactly, the last command given or not.
    rng = np.random.default_rng(900 + 10 * seed + SHAPES.index(shape))
    arm = random_desktop_arm(rng, shape, roll_at_tip=bool(seed % 4 == 0))
    geometry = _geometry(arm)
    solver = DesktopSolver(geometry.model, elbow=('up', 'down', 'nearest')[seed % 3])
    oracle = MujocoChain(arm.urdf, arm.base, arm.tip, arm.joints)
    _, targets = _fk_sampled(rng, geometry, 25)
    for target in targets:
        previous = _readings(rng, arm.limits) if rng.integers(0, 2) else None
        wanted = float(rng.uniform(-math.pi, math.pi))
        _assert_exact(oracle, solver, geometry, solver.solve(*target, previous, wanted),
                      target)


@pytest.mark.parametrize('name', sorted(FIXED_DESKTOP_ARMS))
@pytest.mark.parametrize('wanted', [0.0, -math.pi / 2])
def test_every_fk_sampled_target_of_the_fixed_arms_is_reached(name, wanted):
    # The SO-101-like URDF writes pi as 3.14159 and pi/2 as 1.5708: exact in its own
    # kinematics all the same (the quick correction); the roll held at 0 before a command.
    urdf, base, tip, joints, _ = FIXED_DESKTOP_ARMS[name]
    geometry = arm_from_description(urdf, base, tip)
    solver = DesktopSolver(geometry.model)
    oracle = MujocoChain(urdf, base, tip, joints)
    rng = np.random.default_rng(5)
    _, targets = _fk_sampled(rng, geometry, 120)
    for target in targets:
        _assert_exact(oracle, solver, geometry, solver.solve(*target, approach_pitch=wanted),
                      target)


def _feasible_anywhere(model, target, roll, back, lower_yaw, upper_yaw):
    """Return whether any pitch reaches the target at ``roll``, the yaw facing (or back).

    A dense search of the approach pitch with the test's own two-link solver.
    """
    tool = model.tool_at(roll)
    o, f, w, n = (np.array(v) for v in (model.origin, model.forward, model.up, model.normal))
    d = np.asarray(target) - o
    hu, hv, hn = d @ f, d @ w, d @ n
    rho2 = hu * hu + hn * hn
    if rho2 < tool.lateral ** 2:
        return False
    u = math.sqrt(rho2 - tool.lateral ** 2) * (-1.0 if back else 1.0)
    yaw = math.atan2(tool.lateral * hu - u * hn, u * hu + tool.lateral * hn)
    reading = model.directions[0] * yaw
    if upper_yaw - lower_yaw < 2 * math.pi and not any(
            lower_yaw - 1e-9 <= reading + k * 2 * math.pi <= upper_yaw + 1e-9
            for k in range(-3, 4)):
        return False
    plane = (u - model.shoulder[0], hv - model.shoulder[1])
    phi = np.linspace(-math.pi, math.pi, 20001)
    return bool(_feasible_pitches(model, plane, tool, phi).any())


@pytest.mark.parametrize('seed', range(4))
def test_a_class_is_used_only_when_the_ones_before_it_are_empty(seed):
    # Reaching back only when no roll faces it; the roll moved only when the held one cannot
    # face it; allow_reach_back false leaves those JOINT_LIMITED.
    rng = np.random.default_rng(40 + seed)
    arm = random_desktop_arm(rng, 'yaw + pair + pitch + roll')
    geometry = _geometry(arm)
    model = geometry.model
    solver = DesktopSolver(model)
    facing_only = DesktopSolver(model, allow_reach_back=False)
    lower, upper = model.lower_limits, model.upper_limits
    rolls = np.linspace(max(lower[4], -math.pi), min(upper[4], math.pi), 37)
    seen = set()
    _, targets = _fk_sampled(rng, geometry, 40)
    for target in targets:
        sol = solver.solve(*target)
        held = min(max(0.0, lower[4]), upper[4])
        seen.add((sol.yaw_branch, sol.roll_moved))
        if sol.roll_moved or sol.yaw_branch == 'back':
            assert not _feasible_anywhere(model, target, held, False, lower[0], upper[0])
        else:
            assert sol.readings[4] == held
        if sol.yaw_branch == 'back':
            assert not any(_feasible_anywhere(model, target, r, False, lower[0], upper[0])
                           for r in rolls)
            refused = facing_only.solve(*target)
            assert refused.status is DesktopStatus.JOINT_LIMITED and not refused.reachable
        else:
            assert facing_only.solve(*target).readings == sol.readings
    assert ('facing', False) in seen


def test_the_roll_moves_only_when_the_held_one_cannot_reach():
    geometry, oracle = _round()
    solver = DesktopSolver(geometry.model)
    # A pose with the roll at 1.2: its tool point 5 mm off the roll axis, at full stretch.
    readings = (0.4, 0.5, -0.5, 0.0, 1.2)
    target = oracle.tool(readings)
    held = solver.solve(*target, previous=(0.0, 0.0, 0.0, 0.0, 1.2))
    assert held.reachable and not held.roll_moved and held.readings[4] == 1.2
    for start in (0.0, -2.0):
        sol = solver.solve(*target, previous=(0.0, 0.0, 0.0, 0.0, start))
        assert sol.reachable
        if sol.roll_moved:
            assert sol.readings[4] != start
        np.testing.assert_allclose(oracle.tool(sol.readings), target, atol=1e-12)


def _offered(solver, target, previous=None, wanted=0.0):
    """Every exact pose ``accept`` is offered, in order, and the answer when none is taken."""
    seen = []

    def refuse(readings):
        seen.append(readings)
        return False
    sol = solver.solve(*target, previous, wanted, accept=refuse)
    return seen, sol


@pytest.mark.parametrize('seed', range(4))
def test_accept_is_offered_the_exact_poses_in_the_preference_order(seed):
    rng = np.random.default_rng(70 + seed)
    arm = random_desktop_arm(rng, 'yaw + pair + pitch + roll')
    geometry = _geometry(arm)
    solver = DesktopSolver(geometry.model)
    oracle = MujocoChain(arm.urdf, arm.base, arm.tip, arm.joints)
    _, targets = _fk_sampled(rng, geometry, 6)
    for target in targets:
        plain = solver.solve(*target, approach_pitch=0.3)
        offered, refused = _offered(solver, target, wanted=0.3)
        assert offered and offered[0] == plain.readings  # the first is the plain answer
        assert offered[1:2] != offered[:1]  # offered once
        assert not refused.accepted and refused.readings == plain.readings
        for readings in offered:  # every one exact and within the limits
            assert np.linalg.norm(oracle.tool(readings) - target) <= EXACT * solver.reach
            assert _within_limits(readings, geometry.lower_limits, geometry.upper_limits)
        # Within a class (the yaw's side, the roll) the pitch moves away from the wanted one,
        # elbow by elbow: its distance falls back at most once (to the other elbow's walk).
        model = geometry.model
        keys = [(_side(model, r, target), r[4]) for r in offered]
        drops = {}
        for k in range(2, len(offered)):
            if keys[k] == keys[k - 1]:
                before, now = (abs(math.remainder(_pitch_of(model, offered[j]) - 0.3, math.tau))
                               for j in (k - 1, k))
                drops[keys[k]] = drops.get(keys[k], 0) + (now < before - 1e-9)
        assert all(count <= 1 for count in drops.values()), drops
        sides = [key[0] for key in keys]
        assert sides == sorted(sides)  # facing (0) before back (1)
        for k in (1, 2, len(offered) - 1):
            if k >= len(offered):
                continue
            calls = []

            def after_k(readings, k=k):
                calls.append(readings)
                return len(calls) > k
            taken = solver.solve(*target, None, 0.3, accept=after_k)
            assert taken.accepted and taken.readings == offered[k] and len(calls) == k + 1
        calls = []
        first = solver.solve(*target, None, 0.3, accept=lambda r: calls.append(r) or True)
        assert first.readings == plain.readings and len(calls) == 1 and first.accepted


def _pitch_of(model, readings):
    _, points, _ = model.plane_points(readings)
    return math.atan2(points[3][1] - points[2][1], points[3][0] - points[2][0])


def _elbow_of(model, readings):
    _, i1, i2, _, _ = model.indices
    q2 = math.remainder(model.zero_angles[1] + model.directions[i2] * readings[i2], math.tau)
    if abs(math.sin(q2)) < 1e-6:
        return None
    return 'up' if q2 < 0.0 else 'down'


def _side(model, readings, target):
    """Return 0 when the pose faces the target, 1 when it reaches back over the yaw axis.

    Facing: the target ahead of the yaw axis along the arm's turned forward axis.
    """
    yaw = model.directions[0] * readings[0]
    forward = math.cos(yaw) * np.array(model.forward) - math.sin(yaw) * np.array(model.normal)
    return int(float((np.asarray(target) - np.array(model.origin)) @ forward) < 0.0)


def test_accept_reaches_back_only_after_every_facing_pose():
    geometry, oracle = _round()
    solver = DesktopSolver(geometry.model)
    target = (-0.15, 0.01, 0.1)  # behind: only the arm reaching back reaches it
    offered, refused = _offered(solver, target)
    assert offered and not refused.accepted and refused.yaw_branch == 'back'
    unlimited, _ = _round(joint_lower_limits=None, joint_upper_limits=None)
    facing = DesktopSolver(unlimited.model)
    in_front = (0.15, 0.01, 0.1)
    seen, _ = _offered(facing, in_front)
    yaws = [r[0] for r in seen]
    # In front: the facing poses first, then the back ones (the yaw half a turn away).
    switch = next(i for i, y in enumerate(yaws) if abs(math.remainder(y - yaws[0], math.tau))
                  > 1.0)
    assert all(abs(math.remainder(y - yaws[0], math.tau)) <= 1.0 for y in yaws[:switch])
    assert all(abs(math.remainder(y - yaws[0], math.tau)) > 1.0 for y in yaws[switch:])


@pytest.mark.parametrize('shape', ['yaw + pair', 'yaw + pair + pitch',
                                   'yaw + pair + pitch + roll'])
@pytest.mark.parametrize('seed', range(4))
def test_solve_on_yaw_branch_reaches_every_pose_on_its_own_branch(shape, seed):
    # A pose within the limits is an exact pose of its own branch's class at its own pitch
    # and roll: the branch's best is at that pitch and reaches it, even where the preference
    # order's first class is the other branch (a straight line from the pose keeps it).
    rng = np.random.default_rng(1700 + 10 * seed + SHAPES.index(shape))
    arm = random_desktop_arm(rng, shape, roll_at_tip=bool(seed % 2))
    geometry = _geometry(arm)
    model = geometry.model
    oracle = MujocoChain(arm.urdf, arm.base, arm.tip, arm.joints)
    readings, targets = _fk_sampled(rng, geometry, 30)
    other_class = 0
    for pose, target in zip(readings, targets):
        elbow = _elbow_of(model, pose)
        if elbow is None:
            continue
        side = _side(model, pose, target)
        solver = DesktopSolver(model, elbow=elbow, allow_elbow_flip=False)
        wanted = _pitch_of(model, pose) if model.has_pitch else 0.0
        sol = solver.solve_on_yaw_branch(*target, ('facing', 'back')[side], pose, wanted)
        _assert_exact(oracle, solver, geometry, sol, target)
        assert sol.yaw_branch == ('facing', 'back')[side] and not sol.roll_moved
        assert sol.elbow == elbow
        if model.has_pitch:
            assert abs(math.remainder(sol.approach_pitch - wanted, math.tau)) <= 1e-9
        if model.has_roll:
            assert sol.readings[model.indices[4]] == pose[model.indices[4]]
        other_class += solver.solve(*target, pose, wanted).yaw_branch != sol.yaw_branch
    if model.has_pitch:  # (these arms without a pitch happen to have no such pose)
        assert other_class  # some pose the preference order solves on the other branch


def test_solve_on_yaw_branch_says_none_for_an_empty_class_and_checks_its_input():
    geometry, _ = _round()
    solver = DesktopSolver(geometry.model)
    behind = (-0.15, 0.01, 0.1)  # only the arm reaching back reaches it
    assert solver.solve_on_yaw_branch(*behind, 'facing') is None
    assert solver.solve_on_yaw_branch(*behind, 'back').yaw_branch == 'back'
    assert solver.solve_on_yaw_branch(5.0, 0.0, 0.0, 'back') is None  # beyond reach
    with pytest.raises(IkInputError, match="yaw_branch must be 'facing' or 'back'"):
        solver.solve_on_yaw_branch(*behind, 'sideways')
    with pytest.raises(IkInputError, match='x must be finite'):
        solver.solve_on_yaw_branch(math.nan, 0.0, 0.0, 'back')
    arm = random_desktop_arm(np.random.default_rng(3), 'pair + pitch')
    with pytest.raises(IkInputError, match='on an arm with a yaw'):
        DesktopSolver(_geometry(arm).model).solve_on_yaw_branch(0.1, 0.0, 0.1, 'facing')
