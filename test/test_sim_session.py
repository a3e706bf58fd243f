"""Tests of two_bone_ik.sim.session: the sim node's decisions, driven by an injected clock."""

import math

import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.ik.status import OK, WARN
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.session import MAX_LAG, SimSession
from two_bone_ik.sim.simulated_arm import simulated_arm
from two_bone_ik.sim.trajectory_follower import TrajectoryPoint as P
from urdf_arms import YAW_PAIR_PITCH_ROLL_GRIPPER

NAMES = ('shoulder_joint', 'elbow_joint')
COMMANDS, TRAJECTORY = '/arm_controller/commands', '/arm_controller/joint_trajectory'


class Clock:
    """A clock the test moves by hand, s."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _session(arm=None, rate=1.0, max_lag=10.0):
    """Return a session on a clock of its own; it keeps up with jumps up to ``max_lag`` s."""
    clock = Clock()
    sim = ArmSim(arm or ArmConfig(joint_lower_limits=(-2.0, -2.0),
                                  joint_upper_limits=(2.0, 2.0)))
    return SimSession(sim, rate, clock, max_lag=max_lag), clock


def _values(report):
    return dict(report.values)


# -- stepping -------------------------------------------------------------------------------

@pytest.mark.parametrize('rate', [0.5, 1.0, 3.0])
def test_the_physics_follows_the_clock_times_the_real_time_factor(rate):
    session, clock = _session(rate=rate)
    for _ in range(4):
        clock.now += 0.0375
        assert session.catch_up() == []
        assert session.sim.time == pytest.approx((clock.now - 100.0) * rate,
                                                 abs=session.sim.timestep)


def test_a_command_acts_from_the_moment_it_arrives():
    session, clock = _session()
    clock.now += 0.2
    session.joint_command(['elbow_joint'], [1.0])  # steps to now first, then sets the target
    assert session.sim.time == pytest.approx(0.2, abs=session.sim.timestep)
    np.testing.assert_allclose(session.sim.positions, (0.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(session.sim.targets, (0.0, 1.0))


def test_falling_behind_skips_ahead_with_one_warning_per_period():
    session, clock = _session(rate=2.0, max_lag=MAX_LAG)
    clock.now += 10.0
    warnings = session.catch_up()
    # At most max_lag (0.25 s) of the clock is simulated; the rest is skipped, and said.
    assert session.sim.time == pytest.approx(0.5, abs=0.003)
    assert len(warnings) == 1 and warnings[0].startswith('the simulation fell 19.49')
    assert 'skipping ahead (lower real_time_factor or raise timestep)' in warnings[0]
    report = session.diagnostics()
    assert report.level == WARN and 's of simulation skipped to keep up' in report.message
    clock.now += 2.0  # within the warning period: skipped again, not said again
    assert session.catch_up() == []
    assert session.diagnostics().level == WARN
    clock.now += 0.1  # caught up: the next report is OK again
    assert session.catch_up() == []
    assert session.diagnostics().level == OK
    clock.now += 10.0
    assert len(session.catch_up()) == 1  # a new period


# -- which command is in force ----------------------------------------------------------------

def test_the_latest_accepted_command_wins_and_ends_a_trajectory():
    session, clock = _session()
    assert session.diagnostics().message == 'holding the initial positions'
    session.trajectory(TRAJECTORY, NAMES, [P(2.0, (1.0, 1.0))], None)
    clock.now += 0.5
    session.catch_up()
    report = session.diagnostics()
    assert report.message == f'following {TRAJECTORY} (1.500 s to its last point)'
    assert _values(report)['following_trajectory'] == 'true'
    targets = session.sim.targets.copy()
    assert 0.1 < targets[0] < 0.9  # on its way
    session.position_command(COMMANDS, [-0.5, 0.5])
    np.testing.assert_allclose(session.sim.targets, (-0.5, 0.5))
    clock.now += 0.5
    session.catch_up()
    np.testing.assert_allclose(session.sim.targets, (-0.5, 0.5))  # the trajectory is over
    assert session.diagnostics().message == f'holding the last command from {COMMANDS}'
    session.joint_command(['shoulder_joint'], [0.3])
    np.testing.assert_allclose(session.sim.targets, (0.3, 0.5))  # the elbow keeps its target
    assert session.diagnostics().message == 'holding the last command from joint_commands'


def test_a_trajectory_ends_on_its_last_point_and_holds_it():
    session, clock = _session()
    session.trajectory(TRAJECTORY, ['elbow_joint', 'shoulder_joint'],
                       [P(1.0, (0.4, -0.2)), P(2.0, (0.6, 0.1))], None)
    clock.now += 3.0
    session.catch_up()
    np.testing.assert_allclose(session.sim.targets, (0.1, 0.6))
    assert not session.following
    assert session.diagnostics().message == f'holding the last command from {TRAJECTORY}'


def test_a_stamp_ahead_delays_the_trajectory_in_simulated_time():
    session, clock = _session(rate=2.0)
    # 0.5 s of the clock ahead = 1 s of simulated time: the point is due at 1 + 1 s.
    session.trajectory(TRAJECTORY, NAMES, [P(1.0, (1.0, 0.0))], 0.5)
    clock.now += 0.5  # 1 s simulated: halfway there (linear from reception)
    session.catch_up()
    assert session.sim.targets[0] == pytest.approx(0.5, abs=0.002)
    clock.now += 0.5  # 2 s simulated, within a step: there
    session.catch_up()
    assert session.sim.targets[0] == pytest.approx(1.0, abs=0.002)
    clock.now += 0.01
    session.catch_up()
    assert session.sim.targets[0] == 1.0  # and held


# -- refusals ---------------------------------------------------------------------------------

#: Finite messages whose splines overflow a double (issue 15, defect 7).
OVERFLOWING = {
    'positions +-1e308': ([P(1.0, (1e308, 0.0)), P(2.0, (-1e308, 0.0))],
                          'point 1: the spline to it overflows for shoulder_joint (from point '
                          '0)'),
    'velocity 1.7e308': ([P(1.0, (0.9, -0.2), (0.0, 1.7e308)), P(2.0, (1.0, 0.0), (0.0, 0.0))],
                         'point 0: the spline to it overflows for elbow_joint (from the state at '
                         'reception)'),
    'a nanosecond apart': ([P(1.0, (0.0, 0.0)), P(1.0 + 1e-9, (1e300, 0.0))],
                           'point 1: the spline to it overflows for shoulder_joint'),
    'acceleration': ([P(1.0, (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)),
                      P(2.0, (0.0, 0.0), (0.0, 0.0), (-1e308, 0.0))],
                     'point 1: the spline to it overflows for shoulder_joint (from point 0)'),
}


@pytest.mark.parametrize('points, text', OVERFLOWING.values(), ids=list(OVERFLOWING))
def test_an_overflowing_trajectory_is_refused_and_the_last_good_command_kept(points, text):
    session, clock = _session()
    session.trajectory(TRAJECTORY, NAMES, [P(2.0, (1.0, -1.0))], None)
    clock.now += 0.5
    session.catch_up()
    before = session.sim.targets.copy()
    with np.errstate(all='raise'):  # nor a numpy warning on the way
        warnings = session.trajectory(TRAJECTORY, NAMES, points, None)
    assert len(warnings) == 1 and warnings[0].startswith(f'{TRAJECTORY}: rejected: {text}')
    np.testing.assert_array_equal(session.sim.targets, before)
    clock.now += 2.0  # the good trajectory goes on to its end
    session.catch_up()
    np.testing.assert_allclose(session.sim.targets, (1.0, -1.0))
    report = session.diagnostics()
    assert report.level == WARN
    assert f'1 message(s) refused since the last report, the last: {TRAJECTORY}' in report.message
    assert _values(report)['messages_refused'] == '1'


def test_extreme_finite_trajectories_never_give_a_non_finite_target():
    # Random points of every magnitude up to the largest double, random spacing: each is either
    # refused or followed with finite targets throughout; nothing raises.
    rng = np.random.default_rng(0)
    session, clock = _session()

    def values(count):
        return tuple(rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(-3, 308.25, count))
    refused = 0
    for _ in range(200):
        times = np.cumsum(10.0 ** rng.uniform(-9, 1, rng.integers(1, 4)))
        points = [P(float(t), values(2), values(2) if rng.random() < 0.5 else (),
                    ()) for t in times]
        points[-1] = points[-1]._replace(velocities=(0.0, 0.0) if points[-1].velocities else ())
        refused += bool(session.trajectory(TRAJECTORY, NAMES, points, None))
        for _ in range(3):
            clock.now += float(rng.uniform(0.0, 0.01))
            session.catch_up()
            assert np.isfinite(session.sim.targets).all()
            assert np.isfinite(session.sim.positions).all()
    assert 0 < refused < 200


@pytest.mark.parametrize('data', [[1.0], [1.0, math.nan], []])
def test_a_refused_position_command_changes_nothing(data):
    session, _ = _session()
    session.position_command(COMMANDS, [0.5, 0.5])
    warnings = session.position_command(COMMANDS, data)
    assert len(warnings) == 1 and warnings[0].startswith(f'{COMMANDS}: rejected: ')
    np.testing.assert_allclose(session.sim.targets, (0.5, 0.5))
    assert _values(session.diagnostics())['commands_accepted'] == '1'


def test_finite_huge_commands_are_clamped_or_wrapped_never_refused():
    session, _ = _session(arm=ArmConfig(joint_lower_limits=(-2.0, -math.inf),
                                        joint_upper_limits=(2.0, math.inf)))
    assert session.position_command(COMMANDS, [1e308, -1.7e308]) == []
    assert session.sim.targets[0] == 2.0
    assert session.sim.targets[1] == pytest.approx(math.remainder(-1.7e308, math.tau))
    assert session.joint_command(list(NAMES), [-1.7e308, 1e308]) == []
    assert session.sim.targets[0] == -2.0 and np.isfinite(session.sim.targets).all()


def test_warnings_are_throttled_per_topic_and_rule_on_the_clock():
    session, clock = _session()
    lines = []
    for _ in range(3):
        lines += session.position_command(COMMANDS, [1.0])  # wrong length
        lines += session.position_command(COMMANDS, [math.nan, 0.0])  # non-finite
        lines += session.trajectory(TRAJECTORY, ['wrist'], [P(1.0, (0.0,))], None)
        lines += session.joint_command(['wrist'], [0.0])
        lines += session.joint_command(list(NAMES), [math.nan, math.inf])
    assert lines == [
        f'{COMMANDS}: rejected: expected 2 values (positions of shoulder_joint, elbow_joint, in '
        'that order), got 1',
        f'{COMMANDS}: rejected: data[0] (shoulder_joint) is nan; every value must be finite',
        f'{TRAJECTORY}: rejected: unknown joint(s) wrist (the controller has shoulder_joint, '
        'elbow_joint)',
        'joint_commands: ignoring unknown joint(s) wrist (this arm has shoulder_joint, '
        'elbow_joint)',
        'joint_commands: ignoring NaN, infinite or missing position for shoulder_joint, '
        'elbow_joint',
    ]
    clock.now += 4.9
    assert session.position_command(COMMANDS, [1.0]) == []
    clock.now += 0.2
    assert len(session.position_command(COMMANDS, [1.0])) == 1
    assert _values(session.diagnostics())['messages_refused'] == '11'


# -- desktop arms ---------------------------------------------------------------------------

FIVE = ('yaw', 'shoulder', 'elbow', 'wrist_pitch', 'wrist_roll')


def _desktop():
    arm = simulated_arm(ArmConfig(), YAW_PAIR_PITCH_ROLL_GRIPPER, 'tool')
    return _session(arm=arm)


def test_a_desktop_arm_takes_n_values_n_named_joints_and_its_gripper_by_name():
    session, clock = _desktop()
    assert session.position_command(COMMANDS, [0.1, 0.2, 0.3, 0.4, 0.5]) == []
    np.testing.assert_allclose(session.sim.targets, (0.1, 0.2, 0.3, 0.4, 0.5, 0.005))
    warnings = session.position_command(COMMANDS, [0.1, 0.2])
    assert warnings == [f'{COMMANDS}: rejected: expected 5 values (positions of yaw, shoulder, '
                        'elbow, wrist_pitch, wrist_roll, in that order), got 2']
    # Any order, by name; the gripper is not one of the trajectory's joints.
    order = [4, 2, 0, 3, 1]
    session.trajectory(TRAJECTORY, [FIVE[i] for i in order],
                       [P(1.0, tuple(-0.1 * (i + 1) for i in order))], None)
    assert session.following
    # A gripper command leaves the arm's trajectory running; an arm joint's ends it.
    assert session.joint_command(['gripper'], [0.02]) == []
    assert session.following and session.sim.targets[5] == 0.02
    assert session.trajectory(TRAJECTORY, list(FIVE) + ['gripper'],
                              [P(1.0, (0.0,) * 6)], None) == [
        f'{TRAJECTORY}: rejected: unknown joint(s) gripper (the controller has yaw, shoulder, '
        'elbow, wrist_pitch, wrist_roll)']
    clock.now += 2.0
    session.catch_up()
    np.testing.assert_allclose(session.sim.targets, (-0.1, -0.2, -0.3, -0.4, -0.5, 0.02))
    session.trajectory(TRAJECTORY, FIVE, [P(1.0, (0.0,) * 5)], None)
    session.joint_command(['wrist_roll'], [1.0])
    assert not session.following
