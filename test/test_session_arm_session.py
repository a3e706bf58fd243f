"""Tests of two_bone_ik.session.arm_session: the IK node's logic, driven without ROS or DDS.

Time is simulated: the session's clock and the pacer's clock and sleep are one
:class:`SimClock`, and the pacer runs its bursts in the test's thread (``thread=False``), as
the node wires it (period from the session, then from each tick). So stop, replan, pacing and
limit behaviour are checked deterministically, sample by sample.
"""

import math
import re
import threading

from braking import check_brakes_forward
import numpy as np
import pytest

from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.ik.status import LEVELS, NodeStatus
from two_bone_ik.ik.target_frame import FrameTransform, multiply, rotate
from two_bone_ik.motion.pacer import Pacer
from two_bone_ik.session import ArmSession
from urdf_arms import chain_tip, SCARA

RATE = 100.0
PERIOD = 1.0 / RATE
VELOCITY = (1.0, 1.5)
ACCELERATION = (4.0, 5.0)
JERK = (40.0, 50.0)
LOWER = (-2.5, -2.6)
UPPER = (2.5, 2.6)
#: Relative slack on every limit check.
RELATIVE = 1e-6
#: Height of the SCARA's tool plane (its flange is turned by rpy 3.14, not pi).
SCARA_Z = 0.44 + 0.11 * math.cos(3.14)

ARM = {
    'link_lengths': [0.30, 0.25], 'joint_lower_limits': list(LOWER),
    'joint_upper_limits': list(UPPER), 'max_joint_velocity': list(VELOCITY),
    'max_joint_acceleration': list(ACCELERATION), 'max_joint_jerk': list(JERK),
    'command_rate': RATE,
}


class SimClock:
    """A monotonic clock that only moves when something sleeps (or a test says so)."""

    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)


class Sent:
    """A command as it went out: when (simulated wall clock), its plan time, what."""

    def __init__(self, at, tick):
        self.at = at
        self.time = tick.time
        self.position = np.array(tick.command.position)
        self.velocity = np.array(tick.command.velocity)


#: Most periods a test lets the pacer run (a bug that streams for ever fails, never hangs).
MAX_TICKS = 100_000


def stream(session, clock, stall=lambda count: 0.0, until=None):
    """Run the pacer as the node wires it until the motion ends (or ``until(sent)``).

    ``stall(count)`` is extra simulated time a publish takes (a stalled machine).
    """
    sent = []
    ticks = []

    def step():
        ticks.append(1)
        assert len(ticks) <= MAX_TICKS, 'the pacer never rests'
        tick = session.tick()
        if tick.command is not None:
            sent.append(Sent(clock(), tick))
        pacer.set_period(tick.period)
        clock.now += stall(len(sent))
        return tick.more and not (until is not None and until(sent))

    pacer = Pacer(step, session.period, clock=clock, sleep=clock.sleep, thread=False)
    pacer.run_burst()
    return sent


def new_session(clock=None, **values):
    clock = SimClock() if clock is None else clock
    return ArmSession({**ARM, **values}, given=set(values) | set(ARM), clock=clock), clock


def tip_target(q1, q2, l1=0.30, l2=0.25):
    return (l1 * math.cos(q1) + l2 * math.cos(q1 + q2),
            l1 * math.sin(q1) + l2 * math.sin(q1 + q2), 0.0)


def check_real_time_velocity(sent, velocity=VELOCITY):
    """No two consecutive commands ask for more than the velocity limit in wall-clock time."""
    for before, after in zip(sent, sent[1:]):
        elapsed = after.at - before.at
        assert elapsed > 0.0
        speed = np.abs(after.position - before.position) / elapsed
        assert np.all(speed <= np.array(velocity) * (1 + RELATIVE)), (before.time, speed)


def check_motion_limits(sent, acceleration=ACCELERATION, jerk=JERK):
    """Plan-time differences of the streamed velocities stay within acceleration and jerk."""
    velocities = np.array([s.velocity for s in sent])
    dv = np.diff(velocities, axis=0)
    assert np.all(np.abs(dv) <= np.array(acceleration) * PERIOD * (1 + RELATIVE) + 1e-12)
    assert np.all(np.abs(np.diff(dv, axis=0))
                  <= np.array(jerk) * PERIOD ** 2 * (1 + RELATIVE) + 1e-12)


# -- pacing ---------------------------------------------------------------------------------


@pytest.mark.parametrize('stalls', ['none', 'late publishes'])
def test_samples_are_due_at_whole_periods_and_never_sent_early(stalls):
    # Catches a pacer that sends samples faster than the command rate: each sample k of a
    # motion has plan time k / command_rate and goes out no earlier than that in wall-clock
    # time after the motion started, and no command asks for more than the velocity limit in
    # real time, even after a stall (a late sample is not followed by a quick one).
    rng = np.random.default_rng(3)
    late = (lambda count: 0.0) if stalls == 'none' else \
        (lambda count: float(rng.choice([0.0, 0.3, 1.7, 5.0])) * PERIOD)
    session, clock = new_session()
    started = clock()
    answer = session.target('', *tip_target(2.0, -1.5))
    assert answer.wake and answer.command is None and answer.remaining > 0.5
    sent = stream(session, clock, late)
    times = np.array([s.time for s in sent])
    assert np.all(np.abs(np.diff(times) - PERIOD) < 1e-12)  # consecutive whole periods
    first = times[0] - PERIOD  # the plan time the motion started at
    for s in sent:
        assert s.at >= started + (s.time - first) - 1e-9
    check_real_time_velocity(sent)
    assert times[-1] - first == pytest.approx(answer.remaining, abs=PERIOD)
    assert sent[-1].position == pytest.approx(
        session.solver.solve('', *tip_target(2.0, -1.5)).readings, abs=1e-12)


def test_a_rate_change_takes_effect_at_rest_and_the_stream_follows_it():
    session, clock = new_session()
    session.target('', *tip_target(1.0, 1.0))
    sent = stream(session, clock, until=lambda sent: len(sent) == 5)
    session.apply({'command_rate': 50.0})
    sent += stream(session, clock)
    assert np.diff([s.at for s in sent]) == pytest.approx(PERIOD)  # rest of the motion: 100 Hz
    session.target('', *tip_target(0.2, 0.5))
    slower = stream(session, clock)
    assert np.diff([s.at for s in slower]) == pytest.approx(1.0 / 50.0)
    check_real_time_velocity(slower)


# -- stop -----------------------------------------------------------------------------------


@pytest.mark.parametrize('after', [5, 25, 60])
def test_stop_brakes_forward_within_the_braking_distance(after):
    # Catches a stop planned as a move somewhere else (e.g. back to 0): every joint comes to
    # rest beyond where it was when stop was called, in the direction it was moving, within
    # its braking distance, and its velocity never changes sign while braking.
    session, clock = new_session()
    session.target('', *tip_target(2.2, -2.0))
    moving = stream(session, clock, until=lambda sent: len(sent) == after)
    last = moving[-1]
    state = session._motion.stream.state  # the plan at the last sample (acceleration too)
    answer = session.stop()
    assert answer.message.startswith('stopping: at rest at ') and answer.wake
    braking = stream(session, clock)
    assert braking, 'stop streamed no braking motion'
    rest = braking[-1].position
    check_brakes_forward(last.position, last.velocity, state.acceleration, rest,
                         [s.velocity for s in braking], ACCELERATION, JERK, slack=1e-12)
    assert braking[-1].velocity == pytest.approx((0.0, 0.0), abs=1e-12)
    check_motion_limits(moving + braking)
    check_real_time_velocity(moving + braking)
    assert f'[{rest[0]:.6f}, {rest[1]:.6f}]' in answer.message
    # Held there until the next target.
    assert session.tick().command is None and not session.moving


def test_stop_without_a_motion_and_without_limits():
    session, clock = new_session()
    assert session.stop().message == 'nothing commanded yet: nothing to stop'
    reading = session.target('', *tip_target(0.4, 0.3)).result.readings  # the elbow-up pose
    shown = f'[{reading[0]:.6f}, {reading[1]:.6f}]'
    stream(session, clock)
    assert session.stop().message == f'at rest at {shown} rad, held until the next target'

    unlimited, _ = new_session(max_joint_velocity=[math.inf] * 2,
                               max_joint_acceleration=[math.inf] * 2,
                               max_joint_jerk=[math.inf] * 2)
    unlimited.target('', *tip_target(0.4, 0.3))
    assert f'the last command {shown} rad stands' in unlimited.stop().message


def test_stop_after_the_acceleration_limit_was_lowered_never_passes_a_joint_limit():
    # Lowered mid-motion toward a goal next to a joint limit, the new limit could not stop the
    # arm before it (it was driven into the limit, its velocity jumping); the stop brakes with
    # the limits the motion was planned with and says so.
    session, clock = new_session(joint_lower_limits=[-2.5, -2.6], joint_upper_limits=[2.5, 2.6],
                                 max_joint_velocity=[2.0, 2.0],
                                 max_joint_acceleration=[6.0, 6.0], max_joint_jerk=[200.0, 200.0])
    goal = (2.49, 0.3)
    session.target('', *tip_target(*goal))
    moving = stream(session, clock, until=lambda sent: sent[-1].position[0] > 1.9)
    assert moving[-1].velocity[0] > 1.0
    session.apply({'max_joint_acceleration': [0.5, 0.5]})
    answer = session.stop()
    assert 'limits the motion was planned with' in answer.message, answer.message
    braking = stream(session, clock)
    positions = np.array([s.position for s in moving + braking])
    assert positions[:, 0].max() <= 2.5
    check_motion_limits(moving + braking, acceleration=(6.0, 6.0), jerk=(200.0, 200.0))
    assert braking[-1].velocity == pytest.approx((0.0, 0.0), abs=1e-12)
    assert braking[-1].position[0] <= goal[0]


# -- replanning and limits ------------------------------------------------------------------


def test_a_target_mid_motion_is_planned_at_the_next_period_without_a_jump():
    session, clock = new_session()
    session.target('', *tip_target(1.5, 1.0))
    first = stream(session, clock, until=lambda sent: len(sent) == 30)
    answer = session.target('', *tip_target(-1.0, -0.5))
    assert answer.wake and answer.moving and answer.command is None
    assert answer.remaining > 0.0
    rest = stream(session, clock)
    check_motion_limits(first + rest)
    check_real_time_velocity(first + rest)
    assert rest[-1].position == pytest.approx(
        session.solver.solve('', *tip_target(-1.0, -0.5)).readings, abs=1e-12)


def test_only_the_newest_waiting_target_is_planned():
    session, clock = new_session()
    session.target('', *tip_target(1.5, 1.0))
    stream(session, clock, until=lambda sent: len(sent) == 10)
    plans = session._motion.stream._planner.plans
    for k in range(200):
        session.target('', *tip_target(-1.0 + k * 1e-3, -0.5))
    tick = session.tick()
    assert session._motion.stream._planner.plans == plans + 1
    assert tick.command is not None
    rest = stream(session, clock)
    assert rest[-1].position == pytest.approx(
        session.solver.solve('', *tip_target(-1.0 + 199e-3, -0.5)).readings, abs=1e-12)


def test_targets_never_wait_for_the_pacer():
    # The pacer holds the motion's lock for its whole period; a target flood used to queue
    # behind it (and the pacer behind the flood: gaps of 37-119 ms). While the pacer is held
    # inside its period here, targets are still answered.
    session, clock = new_session()
    session.target('', *tip_target(1.5, 1.0))
    stream(session, clock, until=lambda sent: len(sent) == 3)
    stream_tick = session._motion.stream.tick
    inside, release = threading.Event(), threading.Event()

    def held_tick():
        inside.set()
        release.wait(30.0)
        return stream_tick()

    session._motion.stream.tick = held_tick
    pacer = threading.Thread(target=session.tick)
    pacer.start()
    assert inside.wait(30.0)
    answers = []
    flood = threading.Thread(target=lambda: answers.extend(
        session.target('', *tip_target(-1.0, k * 1e-3)) for k in range(50)))
    flood.start()
    flood.join(30.0)
    answered_while_held = not flood.is_alive() and pacer.is_alive()
    release.set()
    pacer.join(30.0)
    flood.join(30.0)
    assert answered_while_held
    assert len(answers) == 50 and all(a.result.status is NodeStatus.REACHED for a in answers)


def test_random_targets_and_stops_never_pass_a_limit():
    rng = np.random.default_rng(11)
    session, clock = new_session(joint_lower_limits=[-1.0, -0.5], joint_upper_limits=[1.2, 2.0])
    sent = []
    for _ in range(40):
        q = (rng.uniform(-1.0, 1.2), rng.uniform(-0.5, 2.0))
        session.target('', *tip_target(*q))
        sent += stream(session, clock, until=lambda s, n=int(rng.integers(1, 60)): len(s) >= n)
        if rng.random() < 0.3:
            session.stop()
    sent += stream(session, clock)
    positions = np.array([s.position for s in sent])
    assert positions[:, 0].min() >= -1.0 and positions[:, 0].max() <= 1.2
    assert positions[:, 1].min() >= -0.5 and positions[:, 1].max() <= 2.0
    check_motion_limits(sent)
    check_real_time_velocity(sent)


# -- motions that cannot be planned, measurements that cannot be used ------------------------


def test_a_motion_ruckig_cannot_plan_is_an_answer_not_a_crash():
    # Result -101 (longer than Ruckig can plan) used to end the node: "ValueError: -101 is not
    # a valid Result".
    session, clock = new_session(max_joint_velocity=[1e-4, 1e-4])
    answer = session.target('', *tip_target(1.0, 0.5))
    assert answer.result.status is NodeStatus.MOTION_FAILED and not answer.result.reachable
    assert answer.command is None and answer.trajectory is None and not answer.wake
    assert [line.severity for line in answer.logs] == ['error']
    assert 'longer than the about 7600 s Ruckig can plan' in answer.logs[0].text
    level, text, values = session.status(answer)
    assert level == 2 and text.startswith('MOTION_FAILED: ')
    assert dict(values)['code'] == '15'
    # A short move still goes.
    near = session.target('', *tip_target(1e-4, 1e-4))
    assert near.result.status is NodeStatus.REACHED and near.wake
    assert dict(session.reports({'joint_commands': 1})[0].values)['count_MOTION_FAILED'] == '1'


def test_measurements_the_session_cannot_use_change_nothing():
    # The arm measured at (0.4, -0.6), then garbage: the first motion starts from (0.4, -0.6)
    # (it used to start from (0, 0), jumping 0.4 and 0.6 rad in one period).
    session, clock = new_session()
    names = ['shoulder_joint', 'elbow_joint']
    now = 1.7e9
    assert session.measured(names, [0.4, -0.6], now - 0.01, now) == ()
    garbage = [
        (names, [math.nan, 0.0], now),
        (names, [0.0, math.inf], now),
        (['other', 'elbow_joint'], [0.0, 0.0], now),
        (names, [0.0], now),
        (['shoulder_joint'], [0.0], now),
        (names, [1e6, 0.0], now),  # far outside the +-2.5 rad limits
        (names, [0.0, 0.0], 0.0),  # unstamped, after a stamped one
        (names, [0.0, 0.0], now - 5.0),  # older than the last one taken
        (names, [0.0, 0.0], 2.0 ** 31),  # decades ahead of the node's clock
        (names, [0.0, 0.0], math.nan),
    ]
    logged = []
    for names_, positions, stamp in garbage:
        logged += session.measured(names_, positions, stamp, now)
    assert len(logged) == 1 and 'ignoring a measurement' in logged[0].text  # throttled
    motion = session.reports({'joint_commands': 1})[2]
    assert motion.level == 1 and 'joint_states refused' in motion.message
    assert dict(motion.values)['measured_position'] == '[0.400000, -0.600000]'
    session.target('', *tip_target(0.5, -0.5))
    sent = stream(session, clock)
    assert np.abs(sent[0].position - (0.4, -0.6)).max() <= max(VELOCITY) * PERIOD


def test_unstamped_measurements_are_taken_in_turn():
    session, _ = new_session()
    names = ['shoulder_joint', 'elbow_joint']
    assert session.measured(names, [0.1, 0.2]) == ()
    assert session.measured(names, [0.3, 0.4]) == ()
    assert dict(session.reports({})[2].values)['measured_position'] == '[0.300000, 0.400000]'


def test_a_measurement_a_little_outside_the_limits_starts_the_motion_without_a_jump():
    session, clock = new_session()
    session.measured(['shoulder_joint', 'elbow_joint'], [2.55, 0.0])  # 0.05 rad past
    session.target('', *tip_target(2.0, 0.0))
    sent = stream(session, clock)
    assert np.abs(sent[0].position - (2.55, 0.0)).max() <= max(VELOCITY) * PERIOD
    assert max(s.position[0] for s in sent) <= 2.55
    check_real_time_velocity(sent)


# -- the arm's description ------------------------------------------------------------------


def urdf_session(**values):
    return new_session(robot_description_topic='robot_description', **values)


def test_a_republished_identical_description_changes_nothing():
    # robot_state_publisher restarting republishes the same URDF: the motion in flight went
    # on to nowhere (dropped without braking) and the next one started from a lagging
    # measurement.
    session, clock = urdf_session()
    assert session.receive_description(SCARA).logs
    session.target('', 0.5, 0.3, SCARA_Z)
    before = stream(session, clock, until=lambda sent: len(sent) == 20)
    change = session.receive_description(SCARA)
    assert change == ((), None, False)
    after = stream(session, clock)
    check_motion_limits(before + after, acceleration=ACCELERATION, jerk=JERK)
    assert after[-1].position == pytest.approx(
        session.solver.solve('', 0.5, 0.3, SCARA_Z).readings, abs=1e-12)


def test_a_different_description_brakes_then_goes_on_from_the_commanded_state():
    session, clock = urdf_session()
    session.receive_description(SCARA)
    session.measured(['joint1', 'joint2'], [0.0, 0.0])
    session.target('', 0.2, 0.6, SCARA_Z)
    before = stream(session, clock, until=lambda sent: len(sent) == 30)
    session.measured(['joint1', 'joint2'], [0.0, 0.0])  # a measurement that lags
    narrower = SCARA.replace('lower="-2.5" upper="2.5"', 'lower="-2.4" upper="2.4"')
    change = session.receive_description(narrower)
    assert change.wake and [line.severity for line in change.logs] == ['info']
    braking = stream(session, clock)
    last = before[-1]
    for joint in range(2):
        direction = math.copysign(1.0, last.velocity[joint])
        assert all(s.velocity[joint] * direction >= -1e-12 for s in braking)
    session.target('', 0.6, 0.2, SCARA_Z)
    after = stream(session, clock)
    check_motion_limits(before + braking + after)
    check_real_time_velocity(before + braking + after, velocity=(3.0, 3.0))
    assert np.abs(after[0].position - braking[-1].position).max() <= 3.0 * PERIOD


def test_a_refused_description_keeps_the_arm_and_says_why():
    session, clock = urdf_session()
    session.receive_description(SCARA)
    change = session.receive_description('<robot name="x"><link name="a"/></robot>')
    assert change.logs[0].severity == 'error'
    assert 'the previous arm stays in force' in change.logs[0].text
    arm = session.reports({})[1]
    assert arm.level == 2 and 'the previous arm stays in force' in arm.message
    assert session.target('', 0.5, 0.3, SCARA_Z).result.status is NodeStatus.REACHED


def test_without_an_arm_targets_are_answered_no_arm_description():
    session, _ = urdf_session()
    answer = session.target('', 0.5, 0.3, SCARA_Z)
    assert answer.result.status is NodeStatus.NO_ARM_DESCRIPTION and answer.command is None
    assert answer.logs[0].text.startswith('NO_ARM_DESCRIPTION: ')
    _, text, values = session.status(answer)  # its ik_status, with no solver to ask
    assert text.startswith('NO_ARM_DESCRIPTION: no usable robot description yet')
    assert dict(values)['status'] == 'NO_ARM_DESCRIPTION' and dict(values)['solver_status'] == ''


# -- jogging --------------------------------------------------------------------------------

UNLIMITED_MOTION = {'max_joint_velocity': [math.inf] * 2,
                    'max_joint_acceleration': [math.inf] * 2, 'max_joint_jerk': [math.inf] * 2}


def jog(session, clock, linear, periods, refresh=0.1):
    """Send ``linear`` every ``refresh`` s and run the pacer for ``periods``; return the tips."""
    tips = []
    next_twist = [clock()]

    def step():
        if clock() >= next_twist[0]:
            session.twist('', linear, (0.0, 0.0, 0.0))
            next_twist[0] += refresh
        tick = session.tick()
        if tick.command is not None:
            tips.append(np.array(session.solver.geometry.tip_position(tick.command.position)))
        pacer.set_period(tick.period)
        return len(tips) < periods and tick.more

    pacer = Pacer(step, session.period, clock=clock, sleep=clock.sleep, thread=False)
    pacer.run_burst()
    return tips


def test_a_twist_moves_the_tip_at_its_velocity_in_base_frame():
    session, clock = new_session(**UNLIMITED_MOTION)
    session.target('', 0.3, 0.1, 0.0)
    answer = session.twist('', (0.05, -0.02, 0.0), (0.0, 0.0, 0.0))
    assert answer.wake and answer.result.status is NodeStatus.REACHED
    tips = jog(session, clock, (0.05, -0.02, 0.0), 50)
    expected = np.array([0.3, 0.1, 0.0]) + np.outer(np.arange(1, 51) * PERIOD, (0.05, -0.02, 0))
    np.testing.assert_allclose(tips, expected, atol=1e-9)
    assert dict(session.status(answer)[2])['jog'] == 'following'


#: Periods a jog-timeout test runs, whatever the session does: three timeouts of 0.2 s.
TIMEOUT_PERIODS = 60


def test_the_jog_ends_when_twists_stop_for_the_timeout():
    # Bounded: a fixed number of periods (a jog that never times out fails here, never hangs),
    # then no command after the timeout and the jog reported stopped.
    session, clock = new_session(**UNLIMITED_MOTION, twist_timeout=0.2)
    session.target('', 0.3, 0.1, 0.0)
    last_twist = clock()
    session.twist('', (0.05, 0.0, 0.0), (0.0, 0.0, 0.0))
    sent, calls = [], []

    def step():
        calls.append(clock())
        tick = session.tick()
        if tick.command is not None:
            sent.append((clock(), session.solver.geometry.tip_position(tick.command.position)))
        return len(calls) < TIMEOUT_PERIODS

    Pacer(step, session.period, clock=clock, sleep=clock.sleep, thread=False).run_burst()
    assert len(calls) == TIMEOUT_PERIODS and calls[-1] - last_twist >= 3 * 0.2
    times = [at for at, _ in sent]
    assert times and max(times) <= last_twist + 0.2 + 1e-9, 'commands after twist_timeout'
    assert abs(len(sent) * PERIOD - 0.2) <= PERIOD + 1e-9  # moved for 0.2 s, within a period
    assert sent[-1][1] == pytest.approx((0.3 + 0.05 * len(sent) * PERIOD, 0.1, 0.0), abs=1e-9)
    assert dict(session.jog_values())['jog'] == 'stopped'
    assert ('jog', 'stopped') in session.reports({'joint_commands': 1})[2].values
    assert not session.moving


def test_a_jog_past_the_reach_slides_along_the_boundary():
    session, clock = new_session(**UNLIMITED_MOTION)
    session.target('', 0.5, 0.0, 0.0)
    # Outward and up: it reaches the circle of radius 0.55, then slides up along it.
    tips = jog(session, clock, (0.2, 0.2, 0.0), 150)
    radii = np.hypot(np.array(tips)[:, 0], np.array(tips)[:, 1])
    assert radii.max() <= 0.55 + 1e-9
    assert np.abs(radii[-40:] - 0.55).max() <= 1e-9  # on the boundary
    angles = np.arctan2(np.array(tips)[-40:, 1], np.array(tips)[-40:, 0])
    assert np.all(np.diff(angles) > 0.0)  # still moving: sliding, not stopped dead
    answer = session.twist('', (0.2, 0.2, 0.0), (0.0, 0.0, 0.0))
    check_held_on_the_boundary(session, answer)


def check_held_on_the_boundary(session, answer):
    """Check that a sliding jog is answered with its point as held: on the boundary, tip on it.

    Not the status of the point beyond the boundary the step asked (it used to answer
    ``OUT_OF_REACH: target 0.000 m beyond reach ...; jogging: sliding`` beside a ``reachable``
    that the teleop showed as yes): a status the tip is on, level OK, ``reachable`` true.
    """
    level, text, values = session.status(answer)
    values = dict(values)
    assert values['jog'] == 'sliding', text
    assert answer.result.status in (NodeStatus.REACHED, NodeStatus.ELBOW_FLIPPED), text
    assert answer.result.reachable and float(values['tip_error']) <= 1e-9, text
    assert level == LEVELS[answer.result.status], text  # OK, or WARN on the other elbow
    assert re.match(answer.result.status.name + ': (tip|tool point) on the target', text), text
    assert text.endswith('; jogging: sliding along the boundary, the jog point held on it')
    held = session.solver.geometry.tip_position(session._previous)
    np.testing.assert_allclose(session._jog.point, held, atol=1e-12)


def test_a_jog_into_a_joint_limit_slides_along_it_and_never_passes_it():
    session, clock = new_session(**UNLIMITED_MOTION, joint_lower_limits=[-0.5, -2.0],
                                 joint_upper_limits=[0.5, 2.0])
    session.target('', 0.4, 0.1, 0.0)
    tips = jog(session, clock, (0.0, 0.3, 0.0), 200)
    readings = [session.solver.solve('', *tip).readings for tip in tips]
    assert max(r[0] for r in readings) <= 0.5 + 1e-9
    assert np.linalg.norm(tips[-1] - tips[-10]) > 1e-3  # it slides
    check_held_on_the_boundary(session, session.twist('', (0.0, 0.3, 0.0), (0.0, 0.0, 0.0)))


def test_a_jog_into_the_inner_hole_is_held_on_its_edge():
    session, clock = new_session(**UNLIMITED_MOTION)
    session.target('', 0.1, 0.0, 0.0)
    tips = jog(session, clock, (-0.2, 0.01, 0.0), 80)  # toward the shoulder: inner reach 0.05
    assert min(np.hypot(t[0], t[1]) for t in tips) >= 0.05 - 1e-9
    check_held_on_the_boundary(session, session.twist('', (-0.2, 0.01, 0.0), (0.0, 0.0, 0.0)))


def test_a_desktop_arms_jog_past_its_reach_is_held_on_the_boundary():
    values = {'joint_names': ['pan', 'lift', 'elbow', 'flex', 'roll'],
              'link_lengths': [0.12, 0.14], 'shoulder_position': [0.03, 0.0, 0.05],
              'tool_offset': [0.1, 0.0, 0.0], **UNLIMITED_MOTION}
    clock = SimClock()
    session = ArmSession(values, given=set(values), clock=clock)
    session.target('', 0.3, 0.0, 0.1)
    jog(session, clock, (0.3, 0.0, 0.0), 100)
    check_held_on_the_boundary(session, session.twist('', (0.3, 0.0, 0.0), (0.0, 0.0, 0.0)))


def test_jogging_with_motion_limits_stays_within_them():
    session, clock = new_session()
    session.target('', 0.3, 0.1, 0.0)
    stream(session, clock)
    sent = []

    def step():
        if len(sent) % 10 == 0:
            session.twist('', (0.0, 0.1, 0.0), (0.0, 0.0, 0.0))
        tick = session.tick()
        if tick.command is not None:
            sent.append(Sent(clock(), tick))
        pacer.set_period(tick.period)
        return tick.more and len(sent) < 150

    pacer = Pacer(step, session.period, clock=clock, sleep=clock.sleep, thread=False)
    pacer.run_burst()
    sent += stream(session, clock)  # twists stopped: it comes to rest
    check_motion_limits(sent)
    check_real_time_velocity(sent)
    assert sent[-1].velocity == pytest.approx((0.0, 0.0), abs=1e-12)


@pytest.mark.parametrize('frame, linear, status', [
    ('world', (0.1, 0.0, 0.0), NodeStatus.WRONG_FRAME),
    ('', (math.nan, 0.0, 0.0), NodeStatus.INVALID_TARGET),
    ('', (1e300, 0.0, 0.0), NodeStatus.INVALID_TARGET),
])
def test_twists_the_session_cannot_use_move_nothing(frame, linear, status):
    session, clock = new_session(**UNLIMITED_MOTION)
    session.target('', 0.3, 0.1, 0.0)
    answer = session.twist(frame, linear, (0.0, 0.0, 0.0))
    assert answer.result.status is status and not answer.wake
    assert answer.logs and answer.logs[0].text.startswith('target_twist refused: ')
    assert session.tick().command is None


def test_a_target_or_stop_ends_the_jog():
    session, clock = new_session(**UNLIMITED_MOTION)
    session.target('', 0.3, 0.1, 0.0)
    session.twist('', (0.05, 0.0, 0.0), (0.0, 0.0, 0.0))
    assert session.tick().more
    session.target('', 0.2, 0.2, 0.0)
    assert session.tick().command is None and dict(session.jog_values())['jog'] == 'stopped'
    session.twist('', (0.05, 0.0, 0.0), (0.0, 0.0, 0.0))
    session.stop()
    assert session.tick().command is None and dict(session.jog_values())['jog'] == 'stopped'
    # The pacer rests once arrival is decided (nobody publishes joint_states here).
    clock.now += 0.5
    assert not session.tick().more


def test_checking_parameters_that_are_not_the_arms_reads_no_urdf(monkeypatch):
    # Every QoS-override parameter rclpy declares at start went through the check, which
    # parsed the whole robot description again (7 times at start-up, 0.85 s for 20 MB).
    session, _ = new_session(robot_description=SCARA, base_frame='base_link')
    import two_bone_ik.session.arm_source as arm_source
    reads = []
    original = arm_source.arm_from_description
    monkeypatch.setattr(arm_source, 'arm_from_description',
                        lambda *args: reads.append(args) or original(*args))
    assert session.check({'qos_overrides./target_pose.subscription.depth': 10}) is None
    assert session.check({'command_rate': 50.0, 'twist_timeout': 0.5}) is None
    assert reads == []
    assert session.check({'elbow': 'down'}) is None
    assert len(reads) == 1


@pytest.mark.parametrize('arm', ['planar', 'desktop'])
def test_a_session_reads_its_robot_description_once(monkeypatch, arm):
    # Parsed into its chain once, and that chain alone gives the arm (a planar arm's text was
    # parsed a second time to build its geometry).
    from urdf_arms import DESKTOP_5
    import two_bone_ik.arm.urdf_import as urdf_import
    parses = []
    parse = urdf_import.parse_urdf
    monkeypatch.setattr(urdf_import, 'parse_urdf', lambda text: parses.append(text) or parse(text))
    values = ({'robot_description': SCARA, 'base_frame': 'base_link'} if arm == 'planar' else
              {'robot_description': DESKTOP_5, 'base_frame': 'base_link', 'tip_frame': 'tool'})
    session = ArmSession(values, given=set(values), clock=SimClock())
    assert session.solver is not None
    assert parses == [values['robot_description']]


def test_a_desktop_arms_approach_turns_with_the_twists_angular_velocity():
    # The tool point held (no linear velocity); the angular velocity about the arm's sideways
    # axis turns the approach pitch at that rate (down here: the pitch nearest the default 0
    # that reaches this point is the highest it can take).
    from urdf_arms import DESKTOP_5
    clock = SimClock()
    values = {'robot_description': DESKTOP_5, 'base_frame': 'base_link', 'tip_frame': 'tool',
              'max_joint_velocity': [math.inf] * 5}
    session = ArmSession(values, given=set(values), clock=clock)
    joints = ('yaw_joint', 'shoulder_joint', 'elbow_joint', 'pitch_joint', 'roll_joint')
    readings = (1.8, 0.6, 0.4, 0.2, 0.7)
    start = chain_tip(DESKTOP_5, 'base_link', 'tool', dict(zip(joints, readings)))
    first = session.target('', *start).result
    assert first.status is NodeStatus.REACHED
    geometry = session.solver.geometry
    sideways = np.array(geometry.pair_plane(first.readings).normal)
    results = []
    for _ in range(20):
        answer = session.twist('', (0.0, 0.0, 0.0), tuple(-0.5 * sideways))
        session.tick()
        clock.sleep(PERIOD)
        results.append(session._jog_result)
    pitches = [r.approach_pitch for r in results]
    np.testing.assert_allclose(np.diff(pitches), -0.5 * PERIOD, atol=1e-9)
    for result in results:  # the tool point stays on the target
        assert result.status is NodeStatus.REACHED
        np.testing.assert_allclose(geometry.tool_position(result.readings), start, atol=1e-9)
    assert answer.result.status is NodeStatus.REACHED
    # Along the approach: the roll turns at that rate, the tool point still held.
    pitch = results[-1].approach_pitch
    plane = geometry.pair_plane(results[-1].readings)
    approach = np.cos(pitch) * np.array(plane.u_axis) + np.sin(pitch) * np.array(plane.v_axis)
    rolls = []
    for _ in range(10):
        session.twist('', (0.0, 0.0, 0.0), tuple(0.3 * approach))
        session.tick()
        clock.sleep(PERIOD)
        rolls.append(session._jog_result.readings[4])
        np.testing.assert_allclose(geometry.tool_position(session._jog_result.readings), start,
                                   atol=1e-9)
    np.testing.assert_allclose(np.abs(np.diff(rolls)), 0.3 * PERIOD, atol=1e-9)


def test_a_desktop_arm_from_parameters_alone():
    # No URDF: joint_names of a yaw, the pair, a pitch and a roll, the shape from their count.
    values = {'joint_names': ['pan', 'lift', 'elbow', 'flex', 'roll'],
              'link_lengths': [0.12, 0.14], 'shoulder_position': [0.03, 0.05, 0.0],
              'tool_offset': [0.1, 0.0, 0.008], 'joint_lower_limits': [-2.0] * 5,
              'joint_upper_limits': [2.0] * 5}
    session = ArmSession(values, given=set(values), clock=SimClock())
    geometry = session.solver.geometry
    assert geometry.shape == 'yaw + pair + pitch + roll'
    assert session.joint_names == ('pan', 'lift', 'elbow', 'flex', 'roll')
    goal = geometry.tool_position((0.5, 0.4, 0.9, -0.3, 0.2))
    answer = session.target('', *goal)
    assert answer.result.status is NodeStatus.REACHED
    assert answer.command.names == ('pan', 'lift', 'elbow', 'flex', 'roll')
    np.testing.assert_allclose(geometry.tool_position(answer.command.position), goal,
                               atol=1e-9)
    # Limits that do not hold a value per joint are refused, naming the parameter.
    assert session.check({'joint_lower_limits': [-1.0, -1.0]}).startswith('joint_lower_limits')


# -- arrival: motion_status, driven by the pacer -------------------------------------------------

class FollowingArm:
    """A simulated arm that reports ``joint_states`` once per period to the session.

    Each joint goes straight to its last command (``blocked`` joints stay where they started,
    ``silent`` joints are left out of the messages from then on).
    """

    def __init__(self, session, clock, blocked=(), position=(0.0, 0.0)):
        self.session, self.clock = session, clock
        self.names = session.joint_names
        self.position = list(position)
        self.blocked = set(blocked)
        self.silent = set()

    def command(self, position):
        for index, name in enumerate(self.names):
            if name not in self.blocked:
                self.position[index] = position[index]

    def report(self):
        names = [n for n in self.names if n not in self.silent]
        values = [p for n, p in zip(self.names, self.position) if n not in self.silent]
        logs = self.session.measured(names, values, 0.0, self.clock())
        assert self.silent or logs == ()


def drive(session, clock, arm=None, answer=None, on_tick=None):
    """Run the pacer as the node wires it, the arm (if any) reporting before each period.

    Returns ``(sent, statuses)``: the commands streamed (:class:`Sent`) and every
    ``motion_status`` as ``(name, values)`` (the answer's first, if given).
    """
    sent, statuses, ticks = [], [], []
    if answer is not None:
        statuses += [(text.split(':')[0], dict(values, message=text))
                     for _, text, values in map(session.motion_status, answer.motion)]
        if arm is not None and answer.command is not None:
            arm.command(answer.command.position)

    def step():
        ticks.append(1)
        assert len(ticks) <= MAX_TICKS, 'the pacer never rests'
        if arm is not None:
            arm.report()
        tick = session.tick()
        statuses.extend((text.split(':')[0], dict(values, message=text))
                        for _, text, values in map(session.motion_status, tick.motion))
        if tick.command is not None:
            if tick.command.velocity is not None:
                sent.append(Sent(clock(), tick))
            if arm is not None:
                arm.command(tick.command.position)
        if on_tick is not None:
            on_tick(len(ticks))
        pacer.set_period(tick.period)
        return tick.more

    pacer = Pacer(step, session.period, clock=clock, sleep=clock.sleep, thread=False)
    pacer.run_burst()
    return sent, statuses


def test_an_arm_that_follows_is_moving_once_then_arrived():
    session, clock = new_session()
    arm = FollowingArm(session, clock)
    arm.report()
    goal = tip_target(1.2, -0.8)
    answer = session.target('', *goal, stamp=1_700_000_000_250_000_000)
    assert answer.wake and dict(session.status(answer)[2])['arrival'] == 'MOVING'
    sent, statuses = drive(session, clock, arm, answer)
    assert [name for name, _ in statuses] == ['MOVING', 'ARRIVED']
    moving, arrived = (values for _, values in statuses)
    assert moving['code'] == '20' and arrived['code'] == '21'
    assert moving['target_id'] == arrived['target_id'] == '1700000000.250000000'
    assert float(arrived['tool_error']) < 1e-9 and float(arrived['target_error']) < 1e-9
    assert arrived['joint_errors'] == 'shoulder_joint: +0.000000, elbow_joint: +0.000000'
    assert arrived['measured_tool_point'] == arrived['tool_point'] == (
        '[' + ', '.join(f'{v:.6f}' for v in goal) + ']')
    assert len(sent) > 10  # a streamed motion, and the pacer rested after ARRIVED
    assert dict(session.arrival_values())['arrival'] == 'ARRIVED'


def test_a_blocked_joint_is_not_following_and_the_stream_stops_where_the_arm_is():
    session, clock = new_session()
    arm = FollowingArm(session, clock, blocked={'elbow_joint'})
    arm.report()
    goal_readings = (1.2, -1.6)
    answer = session.target('', *tip_target(*goal_readings))
    sent, statuses = drive(session, clock, arm, answer)
    assert [name for name, _ in statuses] == ['MOVING', 'NOT_FOLLOWING']
    values = statuses[1][1]
    assert values['code'] == '22'
    # The elbow lagged by just over path_tolerance (0.5 rad) when the verdict came...
    lag = float(values['joint_errors'].split('elbow_joint: ')[1])
    assert 0.5 < abs(lag) < 0.5 + VELOCITY[1] * PERIOD * 2
    # ...and the stream then stopped going to the goal: it came back, within the limits, to
    # where the arm is, and rests there.
    last = sent[-1]
    assert list(last.velocity) == [0.0, 0.0]
    assert last.position == pytest.approx(arm.position, abs=1e-9)
    assert abs(last.position[1] - goal_readings[1]) > 1.0
    check_real_time_velocity(sent)
    check_motion_limits(sent)
    assert not session.moving


def test_a_joint_that_stops_reporting_is_not_following_and_holds_its_command():
    session, clock = new_session()
    arm = FollowingArm(session, clock)
    arm.report()
    answer = session.target('', *tip_target(1.2, -0.8))

    def go_quiet(ticks):
        if ticks == 20:
            arm.silent.add('elbow_joint')
    sent, statuses = drive(session, clock, arm, answer, on_tick=go_quiet)
    assert [name for name, _ in statuses] == ['MOVING', 'NOT_FOLLOWING']
    values = statuses[1][1]
    assert values['message'].startswith('NOT_FOLLOWING: no joint_states for elbow_joint for 0.5')
    assert values['joint_errors'].endswith('elbow_joint: unknown')
    # Within state_timeout (+ a period) of the elbow's last report, then the stream holds: the
    # shoulder where it was measured, the elbow at its command when the verdict came.
    verdict_tick = 20 + round(0.5 / PERIOD)
    assert len(sent) < verdict_tick + 200
    assert sent[-1].position[0] == pytest.approx(arm.position[0], abs=1e-9)
    check_motion_limits(sent)


def test_nobody_on_joint_states_commands_as_before_and_says_not_monitored_once():
    session, clock = new_session(**UNLIMITED_MOTION)
    goal = tip_target(0.4, 0.3)
    answer = session.target('', *goal, stamp=12_000_000_007)
    # The command goes out with the answer, as without arrival.
    assert answer.command.position == pytest.approx(
        session.solver.solve('', *goal).readings, abs=1e-12)
    assert answer.command.velocity is None and not answer.moving
    start = clock()
    sent, statuses = drive(session, clock, answer=answer)
    assert sent == []  # nothing more commanded
    assert [(name, values['target_id']) for name, values in statuses] == [
        ('MOVING', '12.000000007'), ('NOT_MONITORED', '12.000000007')]
    assert statuses[1][1]['measured_tool_point'] == 'unknown'
    assert statuses[1][1]['tool_error'] == 'unknown'
    assert 0.5 <= clock() - start <= 0.5 + 2 * PERIOD  # state_timeout, then the pacer rests


def test_without_motion_limits_a_step_arrives_and_a_silent_arm_is_held_where_measured():
    session, clock = new_session(**UNLIMITED_MOTION)
    arm = FollowingArm(session, clock)
    arm.report()
    answer = session.target('', *tip_target(0.4, 0.3))
    _, statuses = drive(session, clock, arm, answer)
    assert [name for name, _ in statuses] == ['MOVING', 'ARRIVED']
    # The elbow's readings stop: NOT_FOLLOWING, and the shoulder is commanded where measured.
    arm.silent.add('elbow_joint')
    arm.blocked.add('shoulder_joint')
    answer = session.target('', *tip_target(0.9, 0.1))
    commanded = answer.command.position
    held = []

    def on_tick(_):
        tick_command = session._motion.stream.last_command
        held.append(tick_command)
    _, statuses = drive(session, clock, arm, answer, on_tick=on_tick)
    assert [name for name, _ in statuses] == ['MOVING', 'NOT_FOLLOWING']
    assert held[-1] == pytest.approx((arm.position[0], commanded[1]), abs=1e-12)


def test_stop_ends_the_targets_monitoring_and_follows_the_braking_end():
    session, clock = new_session()
    arm = FollowingArm(session, clock)
    arm.report()
    answer = session.target('', *tip_target(2.0, -1.5), stamp=5)
    stopped = []

    def stop_midway(ticks):
        if ticks == 30:
            stopped.append(session.stop())
    sent, statuses = drive(session, clock, arm, answer, on_tick=stop_midway)
    stop, = stopped
    # Nothing more about the target: the braking end is the command followed now.
    assert [(n, v['target_id']) for n, v in statuses] == [('MOVING', '0.000000005'),
                                                          ('ARRIVED', 'stop')]
    assert stop.wake and [(verdict.status.name, verdict.target_id)
                          for verdict in stop.motion] == [('MOVING', 'stop')]
    assert statuses[1][1]['tool_point'] != statuses[0][1]['tool_point']
    assert len(sent) > 30 and list(sent[-1].velocity) == [0.0, 0.0]


def test_a_jog_is_one_command():
    session, clock = new_session()
    arm = FollowingArm(session, clock)
    arm.report()
    first = session.twist('', (0.02, 0.0, 0.0), (0.0, 0.0, 0.0))
    again = session.twist('', (0.02, 0.0, 0.0), (0.0, 0.0, 0.0))
    assert [verdict.status.name for verdict in first.motion] == ['MOVING']
    assert again.motion == ()
    _, statuses = drive(session, clock, arm, first)
    assert [(n, v['target_id']) for n, v in statuses] == [('MOVING', 'twist'),
                                                          ('ARRIVED', 'twist')]


def test_arrival_parameters_are_checked_and_applied_at_runtime():
    session, clock = new_session()
    assert session.check({'goal_tolerance': [0.1]}).startswith(
        'goal_tolerance: expected 2 positive values in rad')
    assert session.check({'state_timeout': 0.0}).startswith('state_timeout: expected')
    assert session.check({'path_tolerance': [math.inf, 0.1], 'goal_time': 0.5}) is None
    change = session.apply({'path_tolerance': [math.inf, 0.1], 'goal_time': 0.5})
    assert change.logs[0].text == 'arrival: path_tolerance=(inf, 0.1), goal_time=0.5'
    # The elbow may now lag 0.1 rad only.
    arm = FollowingArm(session, clock, blocked={'elbow_joint'})
    arm.report()
    _, statuses = drive(session, clock, arm, session.target('', *tip_target(1.2, -1.6)))
    lag = float(statuses[1][1]['joint_errors'].split('elbow_joint: ')[1])
    assert statuses[1][0] == 'NOT_FOLLOWING' and 0.1 < abs(lag) < 0.2
    with pytest.raises(ConfigError, match='goal_tolerance: expected 2'):
        new_session(goal_tolerance=[0.1, 0.1, 0.1])


def test_not_monitored_is_logged_once_not_per_command():
    # A node with nobody on joint_states commands as before: one line says so, at info.
    session, clock = new_session(**UNLIMITED_MOTION)
    logs = []
    for target in range(3):
        session.target('', *tip_target(0.4, 0.3 + 0.1 * target))
        for _ in range(60):
            clock.sleep(PERIOD)
            logs += session.tick().logs
    assert [(line.severity, line.text.split(':')[0]) for line in logs] == [
        ('info', 'motion_status NOT_MONITORED')]


#: A desktop arm from parameters: the tool point 8 mm off the roll axis, so the roll moves it.
DESKTOP_VALUES = {'joint_names': ['pan', 'lift', 'elbow', 'flex', 'roll'],
                  'link_lengths': [0.12, 0.14], 'shoulder_position': [0.03, 0.05, 0.0],
                  'tool_offset': [0.1, 0.0, 0.008], 'joint_lower_limits': [-2.0] * 5,
                  'joint_upper_limits': [2.0] * 5}
HELD = (0.5, 0.4, 0.9, -0.3, 1.3)


@pytest.mark.parametrize('source', ['joint_states', 'initial_positions', 'outside'])
def test_before_a_command_a_desktop_arm_holds_its_roll_where_the_arm_is(source):
    # No motion limits (nothing planned): the measurement still counts, and so does
    # initial_positions without one; a held roll past its limit is held on the limit.
    values = dict(DESKTOP_VALUES)
    held = HELD if source != 'outside' else HELD[:4] + (2.6,)
    if source != 'joint_states':
        values['initial_positions'] = list(held)
    session = ArmSession(values, given=set(values), clock=SimClock())
    assert not session.planned
    if source == 'joint_states':
        assert session.measured(DESKTOP_VALUES['joint_names'], list(held)) == ()
    geometry = session.solver.geometry
    kept = min(held[4], 2.0)
    goal = geometry.tool_position((-0.2, 0.1, 0.7, 0.2, kept))
    answer = session.target('', *goal)
    assert answer.result.status is NodeStatus.REACHED
    assert answer.command.position[4] == kept
    np.testing.assert_allclose(geometry.tool_position(answer.command.position), goal, atol=1e-9)


def test_after_a_command_the_roll_holds_the_command_not_the_measurement():
    session = ArmSession(DESKTOP_VALUES, given=set(DESKTOP_VALUES), clock=SimClock())
    names = DESKTOP_VALUES['joint_names']
    geometry = session.solver.geometry
    session.measured(names, list(HELD))
    first = session.target('', *geometry.tool_position(HELD)).result
    assert first.readings[4] == HELD[4]
    session.measured(names, list(HELD[:4]) + [-0.4])  # the roll seen elsewhere: ignored now
    goal = geometry.tool_position((0.3, 0.2, 0.6, 0.1, HELD[4]))
    answer = session.target('', *goal)
    assert answer.result.status is NodeStatus.REACHED and answer.command.position[4] == HELD[4]


def test_a_refused_measurement_is_not_where_the_roll_is_held():
    session = ArmSession(DESKTOP_VALUES, given=set(DESKTOP_VALUES), clock=SimClock())
    names = DESKTOP_VALUES['joint_names']
    assert session.measured(names, [0.0, 0.0, 0.0, 0.0, 9.0])  # far past the roll's limit
    geometry = session.solver.geometry
    goal = geometry.tool_position((0.2, 0.3, 0.5, 0.0, 0.0))
    assert session.target('', *goal).command.position[4] == 0.0


# -- targets from other frames (a transform lookup passed in) ---------------------------------

#: camera_link in base_link: turned a quarter about z, its origin at (0.1, -0.2, 0).
CAMERA = FrameTransform((0.1, -0.2, 0.0), (0.0, 0.0, math.sin(math.pi / 4),
                                           math.cos(math.pi / 4)))


def in_camera(point):
    """Coordinates in camera_link of a point given in base_link."""
    x, y, z = point[0] - 0.1, point[1] + 0.2, point[2]
    return (y, -x, z)  # the inverse quarter turn


class Frames:
    """A transform lookup that knows ``known`` frames; records its calls."""

    def __init__(self, **known):
        self.known = known
        self.calls = []

    def __call__(self, frame, stamp, timeout):
        self.calls.append((frame, stamp, timeout))
        return self.known.get(frame, f'LookupException: "{frame}" passed to lookupTransform '
                                     'argument source_frame does not exist. ')


def framed_session(lookup, **values):
    clock = SimClock()
    values = {**ARM, **UNLIMITED_MOTION, **values}
    return ArmSession(values, given=set(values), clock=clock, transform_lookup=lookup), clock


def test_a_target_from_another_frame_is_commanded_where_the_same_point_in_base_frame_is():
    lookup = Frames(camera_link=CAMERA)
    session, _ = framed_session(lookup)
    goal = tip_target(0.4, -0.9)
    answer = session.target('camera_link', *in_camera(goal), stamp=123)
    assert answer.result.status is NodeStatus.REACHED and answer.result.reachable
    np.testing.assert_allclose(answer.command.position, (0.4, -0.9), atol=1e-9)
    assert answer.result.frame_id == 'base_link'
    np.testing.assert_allclose(answer.result.position, goal, atol=1e-12)
    assert lookup.calls == [('camera_link', 123, 0.0)]  # at its stamp, never waiting
    assert not session.frames_pending


def test_a_target_whose_transform_never_comes_is_wrong_frame_with_tf2s_reason():
    session, clock = framed_session(Frames(), transform_timeout=0.1)
    assert session.target('camera_link', 0.3, 0.1, 0.0) is None  # held, nothing commanded
    assert session.frames_pending and session.frame_answers() == ()
    clock.now += 0.1
    (answer,) = session.frame_answers()
    assert answer.result.status is NodeStatus.WRONG_FRAME and answer.command is None
    assert not answer.result.reachable and not session.frames_pending
    text = session.status(answer)[1]
    assert text.startswith("WRONG_FRAME: no transform from target frame 'camera_link' into "
                           "base_frame 'base_link': LookupException: \"camera_link\" passed to")
    assert 'waited 0.1 s: transform_timeout' in text
    assert answer.logs and answer.logs[0].text == text  # the (throttled) warning


def test_a_held_target_is_commanded_when_its_transform_comes():
    lookup = Frames()
    session, clock = framed_session(lookup)
    goal = tip_target(0.2, -0.7)
    assert session.target('camera_link', *in_camera(goal), stamp=3_000_000_042) is None
    clock.now += 0.05
    assert session.frame_answers() == ()
    lookup.known['camera_link'] = CAMERA
    (answer,) = session.frame_answers()
    assert answer.result.status is NodeStatus.REACHED
    np.testing.assert_allclose(answer.command.position, (0.2, -0.7), atol=1e-9)
    # motion_status follows it under its own stamp, the goal in base_frame.
    (moving,) = map(session.motion_status, answer.motion)
    values = dict(moving[2])
    assert (values['status'], values['target_id']) == ('MOVING', '3.000000042')
    assert values['tool_point'] == '[' + ', '.join(f'{v:.6f}' for v in goal) + ']'


@pytest.mark.parametrize('newer', ['target', 'twist', 'stop'])
def test_the_newest_wins_a_held_target_is_superseded_never_commanded_late(newer):
    lookup = Frames()
    session, clock = framed_session(lookup)
    assert session.target('camera_link', 0.3, 0.1, 0.0) is None
    if newer == 'target':
        answer = session.target('', *tip_target(0.1, -0.2))
        np.testing.assert_allclose(answer.command.position, (0.1, -0.2), atol=1e-9)
    elif newer == 'twist':
        session.twist('', (0.01, 0.0, 0.0), (0.0, 0.0, 0.0))
    else:
        session.stop()
    lookup.known['camera_link'] = CAMERA  # too late: it was superseded
    (superseded,) = session.frame_answers()
    assert superseded.result.status is NodeStatus.WRONG_FRAME and superseded.command is None
    by = {'target': 'a newer target', 'twist': 'a twist', 'stop': '~/stop'}[newer]
    assert f'superseded by {by} before its transform came' in session.status(superseded)[1]
    assert session.frame_answers() == () and not session.frames_pending


def test_without_a_lookup_other_frames_are_refused_at_once_saying_tf2_is_missing():
    session, _ = new_session()
    answer = session.target('camera_link', 0.3, 0.1, 0.0)
    assert answer.result.status is NodeStatus.WRONG_FRAME and answer.command is None
    assert 'tf2_ros is not installed' in session.status(answer)[1]
    assert session.target('base_link', *tip_target(0.1, 0.2)).result.status is \
        NodeStatus.REACHED


def test_transform_timeout_zero_refuses_a_missing_transform_at_once():
    session, _ = framed_session(Frames(), transform_timeout=0.0)
    answer = session.target('camera_link', 0.3, 0.1, 0.0)
    assert answer.result.status is NodeStatus.WRONG_FRAME and not session.frames_pending
    assert session.check({'transform_timeout': -1.0}).startswith('transform_timeout')
    assert session.check({'transform_timeout': 0.5}) is None
    session.apply({'transform_timeout': 0.5})
    assert session.target('camera_link', 0.3, 0.1, 0.0) is None  # now it waits


def test_a_twist_in_another_frame_is_turned_into_base_frame():
    lookup = Frames(camera_link=CAMERA)
    session, clock = framed_session(lookup)
    start = tip_target(0.5, -1.0)
    session.target('', *start)
    # +x in camera_link is +y in base_link.
    session.twist('camera_link', (0.1, 0.0, 0.0), (0.0, 0.0, 0.0))
    for _ in range(10):
        session.tick()
        clock.sleep(PERIOD)
    tip = session.solver.geometry.tip_position(session._jog_result.readings)
    np.testing.assert_allclose(tip, (start[0], start[1] + 0.1 * 10 * PERIOD, 0.0), atol=1e-9)
    assert lookup.calls[-1] == ('camera_link', 0, 0.0)  # a twist takes the latest transform


def test_a_twist_from_an_unknown_frame_moves_nothing_and_says_why():
    session, _ = framed_session(Frames())
    session.target('', 0.3, 0.1, 0.0)
    answer = session.twist('nowhere', (0.1, 0.0, 0.0), (0.0, 0.0, 0.0))
    assert answer.result.status is NodeStatus.WRONG_FRAME and not answer.wake
    assert "no transform from twist frame 'nowhere'" in answer.logs[0].text
    assert '"nowhere" passed to lookupTransform' in session.status(answer)[1]
    assert session.tick().command is None


def desktop_session(lookup=None, **values):
    values = {'joint_names': ['pan', 'lift', 'elbow', 'flex', 'roll'],
              'link_lengths': [0.12, 0.14], 'tool_offset': [0.1, 0.0, 0.0],
              'joint_lower_limits': [-2.0] * 5, 'joint_upper_limits': [2.0] * 5,
              'plane': 'xz', **values}
    return ArmSession(values, given=set(values), clock=SimClock(), transform_lookup=lookup)


@pytest.mark.parametrize('frame, linear', [('world', (0.1, 0.0, 0.0)),
                                           ('', (math.nan, 0.0, 0.0))])
def test_a_desktop_arms_refused_twist_has_a_status(frame, linear):
    # Its rejected result is the desktop solver's kind: the status values read it (this used to
    # raise AttributeError, which ends the node inside its callback).
    session = desktop_session()
    answer = session.twist(frame, linear, (0.0, 0.0, 0.0))
    level, text, values = session.status(answer)
    assert dict(values)['approach_pitch'] == 'nan' and level == 2


def test_a_desktop_arms_orientation_is_turned_into_base_frame_too():
    # The same pose asked in base_link and in a tilted frame gives the same command.
    geometry = desktop_session().solver.geometry
    goal = geometry.tool_position((0.3, 0.5, 0.6, -0.4, 0.2))
    tilt = (0.0, math.sin(-0.35), 0.0, math.cos(-0.35))  # some orientation in base_link
    expected = desktop_session(use_orientation=True).target('', *goal, tilt)
    assert expected.result.status is NodeStatus.REACHED
    # tilted: turned 0.8 rad about base_link's x, its origin at (0.05, 0.1, -0.2).
    half = 0.4
    tilted = FrameTransform((0.05, 0.1, -0.2), (math.sin(half), 0.0, 0.0, math.cos(half)))
    inverse = (-math.sin(half), 0.0, 0.0, math.cos(half))
    seen = rotate(inverse, np.subtract(goal, tilted.translation))  # the goal in tilted
    answer = desktop_session(Frames(tilted=tilted), use_orientation=True).target(
        'tilted', *seen, multiply(inverse, tilt))
    assert answer.result.status is NodeStatus.REACHED
    np.testing.assert_allclose(answer.command.position, expected.command.position, atol=1e-9)
    # The orientation matters: left in the tilted frame's axes it asks another pose.
    wrong = desktop_session(Frames(tilted=tilted), use_orientation=True).target(
        'tilted', *seen, tilt)
    assert not np.allclose(wrong.command.position, expected.command.position, atol=1e-3)
