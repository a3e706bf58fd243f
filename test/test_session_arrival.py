"""Tests of two_bone_ik.session.arrival: the motion_status rules, on a clock the test moves.

No ROS, no threads: readings, commands and checks are fed at chosen times, so each rule is
checked at its edge (a hair before it fires, and when it does).
"""

from array import array
import math

import pytest

from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.ik.status import MotionStatus
from two_bone_ik.session.arrival import arrival_settings, ArrivalMonitor, ArrivalSettings

NAMES = ('shoulder', 'elbow')
GOAL = (1.0, -0.5)
START = (0.0, 0.0)
SETTINGS = ArrivalSettings(goal_tolerance=(0.02, 0.03), path_tolerance=(0.5, 0.4),
                           goal_time=2.0, state_timeout=0.5)
EPS = 1e-6


class Clock:

    def __init__(self):
        self.now = 50.0

    def __call__(self):
        return self.now


def monitor(settings=SETTINGS, continuous=()):
    clock = Clock()
    return ArrivalMonitor(NAMES, settings, clock, continuous), clock


def read(mon, clock, positions, after=0.0):
    """Send readings (NAMES order; None: that joint not in the message) ``after`` s on."""
    clock.now += after
    mon.measured({n: p for n, p in zip(NAMES, positions) if p is not None})


def step(mon, clock, goal=GOAL, target_id='t1', planned=False, moving=False):
    """Command ``goal`` (from START); return its MOVING."""
    return mon.command(target_id, goal, START, planned, moving)


# -- the parameters -----------------------------------------------------------------------------

def test_defaults_fit_any_number_of_joints():
    assert arrival_settings({}, 5) == ArrivalSettings((0.02,) * 5, (0.5,) * 5, 2.0, 0.5)
    assert arrival_settings({'goal_tolerance': [0.02, 0.02], 'path_tolerance': [0.5, 0.5]},
                            3) == ArrivalSettings((0.02,) * 3, (0.5,) * 3, 2.0, 0.5)


def test_given_values_are_per_joint_and_path_tolerance_may_be_infinite():
    settings = arrival_settings({'goal_tolerance': array('d', [0.01, 0.05, 0.1]),
                                 'path_tolerance': [math.inf, 0.2, 1.0], 'goal_time': 0,
                                 'state_timeout': 60.0}, 3)
    assert settings == ArrivalSettings((0.01, 0.05, 0.1), (math.inf, 0.2, 1.0), 0.0, 60.0)


@pytest.mark.parametrize('values, message', [
    ({'goal_tolerance': [0.01, 0.02, 0.03]}, 'goal_tolerance: expected 2 positive values'),
    ({'goal_tolerance': [0.01, math.inf]}, 'goal_tolerance: expected 2 positive values'),
    ({'goal_tolerance': [0.01, math.nan]}, 'goal_tolerance: expected'),
    ({'goal_tolerance': [0.0, 0.1]}, 'goal_tolerance: expected'),
    ({'goal_tolerance': 0.02}, 'goal_tolerance: expected'),
    ({'goal_tolerance': 'x'}, 'goal_tolerance: expected'),
    ({'path_tolerance': [True, 0.5]}, 'path_tolerance: expected 2 positive values in rad '
                                      r'\(.inf: not checked\)'),
    ({'path_tolerance': [-0.5, 0.5]}, 'path_tolerance: expected'),
    ({'goal_time': -0.1}, r'goal_time: expected 0 to 3600 s, got -0.1'),
    ({'goal_time': math.nan}, 'goal_time: expected'),
    ({'goal_time': True}, 'goal_time: expected'),
    ({'state_timeout': 0.0}, r'state_timeout: expected 0.01 to 60 s, got 0.0'),
    ({'state_timeout': 61.0}, 'state_timeout: expected'),
])
def test_bad_values_are_refused_naming_the_parameter(values, message):
    with pytest.raises(ConfigError, match=message):
        arrival_settings(values, 2)


# -- MOVING, ARRIVED, GOAL_MISSED -----------------------------------------------------------------

def test_a_command_says_moving_once_then_arrived_on_readings_taken_since():
    mon, clock = monitor()
    read(mon, clock, START)
    moving = step(mon, clock)
    assert (moving.status, moving.target_id) == (MotionStatus.MOVING, 't1')
    assert moving.errors == pytest.approx((-1.0, 0.5))  # how far it has to go
    assert mon.active
    # The reading taken before the command does not count, even at the goal.
    read(mon, clock, GOAL, after=-0.001)
    clock.now += 0.001
    assert mon.check(GOAL, moving=False) is None
    read(mon, clock, (GOAL[0] + 0.02 - EPS, GOAL[1] - 0.03 + EPS), after=0.1)
    arrived = mon.check(GOAL, moving=False)
    assert arrived.status is MotionStatus.ARRIVED and arrived.target_id == 't1'
    assert arrived.commanded == GOAL
    assert not mon.active and mon.check(GOAL, moving=False) is None
    assert mon.last_status is MotionStatus.ARRIVED


def test_a_lagging_arm_is_never_arrived_and_misses_at_goal_time():
    mon, clock = monitor()
    read(mon, clock, START)
    step(mon, clock)
    start = clock.now
    short = (GOAL[0] - 0.31, GOAL[1])  # shoulder stopped 0.31 rad short of 1.0
    verdicts = []
    while clock.now + 0.02 < start + SETTINGS.goal_time - EPS:
        read(mon, clock, short, after=0.02)
        verdicts.append(mon.check(GOAL, moving=False))
    assert verdicts == [None] * len(verdicts)
    clock.now = start + SETTINGS.goal_time
    read(mon, clock, short)
    missed = mon.check(GOAL, moving=False)
    assert missed.status is MotionStatus.GOAL_MISSED
    assert missed.text.startswith('shoulder stopped 0.31 rad short: stalled or blocked?')
    assert missed.errors[0] == pytest.approx(-0.31)
    assert not mon.active


def test_a_goal_time_of_zero_waits_without_limit_as_a_trajectory_controller():
    mon, clock = monitor(SETTINGS._replace(goal_time=0.0))
    step(mon, clock)
    for _ in range(100):
        read(mon, clock, (0.0, 0.0), after=0.1)  # 10 s short of the goal
        assert mon.check(GOAL, moving=False) is None
    read(mon, clock, GOAL, after=0.1)
    assert mon.check(GOAL, moving=False).status is MotionStatus.ARRIVED


def test_a_joint_just_out_of_its_goal_tolerance_is_not_arrived():
    mon, clock = monitor()
    step(mon, clock)
    read(mon, clock, (GOAL[0], GOAL[1] + 0.03 + 1e-4), after=0.1)
    assert mon.check(GOAL, moving=False) is None


def test_overshoot_is_named_past_its_goal():
    mon, clock = monitor()
    step(mon, clock)
    read(mon, clock, (GOAL[0], GOAL[1] - 0.2), after=SETTINGS.goal_time)
    missed = mon.check(GOAL, moving=False)
    assert missed.text.startswith('elbow stopped 0.20 rad past its goal')


def test_the_goal_time_counts_from_the_end_of_the_streamed_motion():
    mon, clock = monitor()
    read(mon, clock, START)
    step(mon, clock, planned=True, moving=True)
    for _ in range(300):  # 3 s of streaming, readings following the command closely
        clock.now += 0.01
        read(mon, clock, START)
        assert mon.check(START, moving=True) is None
    end = clock.now
    assert mon.check(START, moving=False) is None  # ended now; the readings are short
    clock.now = end + SETTINGS.goal_time - EPS
    read(mon, clock, START)
    assert mon.check(START, moving=False) is None
    clock.now = end + SETTINGS.goal_time
    read(mon, clock, START)
    assert mon.check(START, moving=False).status is MotionStatus.GOAL_MISSED


def test_without_a_goal_the_final_command_is_what_is_commanded_at_the_end():
    mon, clock = monitor()
    mon.command('stop', None, (0.3, 0.3), planned=True, moving=True)
    read(mon, clock, (0.4, 0.3), after=0.05)
    assert mon.check((0.4, 0.3), moving=True) is None
    read(mon, clock, (0.4, 0.3), after=0.05)
    arrived = mon.check((0.4, 0.3), moving=False)
    assert arrived.status is MotionStatus.ARRIVED and arrived.commanded == (0.4, 0.3)


def test_a_continuous_joint_arrives_a_whole_turn_away():
    mon, clock = monitor(continuous=(True, False))
    step(mon, clock)
    read(mon, clock, (GOAL[0] + 2 * math.pi + 0.01, GOAL[1]), after=0.1)
    arrived = mon.check(GOAL, moving=False)
    assert arrived.status is MotionStatus.ARRIVED
    assert arrived.errors[0] == pytest.approx(0.01)


# -- NOT_FOLLOWING ------------------------------------------------------------------------------

def test_a_lag_beyond_path_tolerance_during_a_planned_motion_is_not_following():
    mon, clock = monitor()
    read(mon, clock, START)
    step(mon, clock, planned=True, moving=True)
    # The elbow follows; the shoulder stays at 0 while its command moves on.
    for commanded in (0.1, 0.3, 0.5):
        read(mon, clock, (0.0, 0.0), after=0.01)
        assert mon.check((commanded, 0.0), moving=True) is None
    read(mon, clock, (0.0, 0.0), after=0.01)
    verdict = mon.check((0.5 + 1e-3, 0.0), moving=True)
    assert verdict.status is MotionStatus.NOT_FOLLOWING
    assert verdict.text.startswith('shoulder lags its command by 0.50 rad (path_tolerance '
                                   '0.5 rad): stalled or blocked? Streaming stopped')
    assert verdict.commanded == (0.501, 0.0) and verdict.measured == (0.0, 0.0)
    assert not mon.active


def test_an_arm_ahead_of_the_stream_is_not_lagging_but_a_joint_pushed_aside_is():
    mon, clock = monitor()
    step(mon, clock, planned=True, moving=True)  # from START toward GOAL = (1.0, -0.5)
    # Both joints ahead of the command along their travel (a trajectory played sooner).
    read(mon, clock, (0.9, -0.45), after=0.01)
    assert mon.check((0.2, -0.02), moving=True) is None
    # The shoulder pushed back past where it started: behind, by 0.6.
    read(mon, clock, (-0.4, -0.1), after=0.01)
    verdict = mon.check((0.2, -0.1), moving=True)
    assert verdict.text.startswith('shoulder lags its command by 0.60 rad')
    # A joint that is not to move lags either way.
    mon.command('t2', (1.0, -0.5), (1.0, -0.1), planned=True, moving=True)
    read(mon, clock, (1.55, -0.1), after=0.01)
    assert mon.check((1.0, -0.1), moving=True).text.startswith('shoulder lags its command by '
                                                               '0.55 rad')


def test_the_joint_furthest_out_of_its_path_tolerance_is_named():
    mon, clock = monitor()
    step(mon, clock, planned=True, moving=True)
    read(mon, clock, (0.0, 0.0), after=0.01)
    verdict = mon.check((0.55, -0.45), moving=True)  # 1.1 and 1.125 times their tolerances
    assert verdict.text.startswith('elbow lags its command by 0.45 rad (path_tolerance 0.4')


def test_an_infinite_path_tolerance_never_checks_the_path():
    mon, clock = monitor(SETTINGS._replace(path_tolerance=(math.inf, math.inf)))
    step(mon, clock, planned=True, moving=True)
    read(mon, clock, (0.0, 0.0), after=0.01)
    assert mon.check((100.0, -100.0), moving=True) is None


def test_without_planning_there_is_no_path_to_lag():
    mon, clock = monitor()
    mon.command('twist', None, START, planned=False, moving=True)  # a jog stepped per period
    read(mon, clock, (0.0, 0.0), after=0.01)
    assert mon.check((2.0, 2.0), moving=True) is None


def test_a_joint_without_readings_for_state_timeout_is_not_following():
    mon, clock = monitor()
    read(mon, clock, (0.0, None))
    step(mon, clock, planned=True, moving=True)
    start = clock.now
    while clock.now < start + SETTINGS.state_timeout - 0.01 - EPS:
        read(mon, clock, (0.0, None), after=0.01)  # the elbow never comes
        assert mon.check(START, moving=True) is None
    read(mon, clock, (0.0, None), after=start + SETTINGS.state_timeout - clock.now)
    verdict = mon.check(START, moving=True)
    assert verdict.status is MotionStatus.NOT_FOLLOWING
    assert verdict.text.startswith('no joint_states for elbow for 0.50 s (state_timeout 0.5 s)')
    assert verdict.measured == (0.0, None)


def test_readings_that_stop_mid_motion_are_not_following_a_timeout_after_the_last():
    mon, clock = monitor()
    read(mon, clock, START)
    step(mon, clock, planned=True, moving=True)
    read(mon, clock, START, after=0.3)
    last = clock.now
    clock.now = last + SETTINGS.state_timeout - EPS
    assert mon.check(START, moving=True) is None
    clock.now = last + SETTINGS.state_timeout
    verdict = mon.check(START, moving=True)
    assert verdict.status is MotionStatus.NOT_FOLLOWING
    assert 'no joint_states for shoulder for 0.50 s, elbow for 0.50 s' in verdict.text
    assert verdict.measured == (None, None)


def test_the_timeout_also_holds_while_waiting_for_the_goal():
    mon, clock = monitor()
    read(mon, clock, START)
    step(mon, clock)  # a step: ended at once
    clock.now += SETTINGS.state_timeout
    assert mon.check(GOAL, moving=False).status is MotionStatus.NOT_FOLLOWING


# -- NOT_MONITORED ------------------------------------------------------------------------------

def test_nobody_publishing_is_not_monitored_once_per_command():
    mon, clock = monitor()
    for target_id in ('t1', 't2'):
        start = clock.now
        assert step(mon, clock, target_id=target_id).status is MotionStatus.MOVING
        clock.now = start + SETTINGS.state_timeout - EPS
        assert mon.check(GOAL, moving=False) is None
        clock.now = start + SETTINGS.state_timeout
        verdict = mon.check(GOAL, moving=False)
        assert (verdict.status, verdict.target_id) == (MotionStatus.NOT_MONITORED, target_id)
        assert verdict.text.startswith('no joint_states from anyone: is the driver or sim '
                                       'running?')
        for _ in range(10):
            clock.now += 1.0
            assert mon.check(GOAL, moving=False) is None
        assert not mon.active


def test_readings_of_other_joints_only_do_not_monitor_this_arm():
    mon, clock = monitor()
    mon.measured({'gripper': 0.1})
    step(mon, clock)
    clock.now += SETTINGS.state_timeout
    assert mon.check(GOAL, moving=False).status is MotionStatus.NOT_MONITORED


def test_readings_stale_when_the_command_comes_are_not_monitored():
    mon, clock = monitor()
    read(mon, clock, START)
    clock.now += SETTINGS.state_timeout  # the driver died a while ago
    step(mon, clock)
    clock.now += SETTINGS.state_timeout
    assert mon.check(GOAL, moving=False).status is MotionStatus.NOT_MONITORED


def test_readings_that_come_late_still_monitor_the_command():
    mon, clock = monitor()
    step(mon, clock)
    read(mon, clock, START, after=SETTINGS.state_timeout - 0.1)
    assert mon.check(GOAL, moving=False) is None
    read(mon, clock, GOAL, after=0.05)
    assert mon.check(GOAL, moving=False).status is MotionStatus.ARRIVED


def test_non_finite_readings_are_no_readings():
    mon, clock = monitor()
    step(mon, clock)
    read(mon, clock, (math.nan, math.inf), after=0.1)
    assert mon.readings() == (None, None)
    clock.now += SETTINGS.state_timeout
    assert mon.check(GOAL, moving=False).status is MotionStatus.NOT_MONITORED


# -- stop, new commands, new settings -------------------------------------------------------------

def test_end_stops_following_the_command():
    mon, clock = monitor()
    step(mon, clock)
    mon.end()
    assert not mon.active
    clock.now += 10.0
    assert mon.check(GOAL, moving=False) is None


def test_a_new_command_replaces_the_one_followed():
    mon, clock = monitor()
    read(mon, clock, START)
    step(mon, clock, target_id='first')
    read(mon, clock, START, after=0.1)
    step(mon, clock, goal=START, target_id='second')
    read(mon, clock, START, after=0.1)
    verdict = mon.check(START, moving=False)
    assert (verdict.status, verdict.target_id) == (MotionStatus.ARRIVED, 'second')


def test_new_settings_apply_to_the_command_in_flight():
    mon, clock = monitor()
    step(mon, clock)
    read(mon, clock, (GOAL[0] + 0.05, GOAL[1]), after=0.1)
    assert mon.check(GOAL, moving=False) is None
    mon.set_settings(SETTINGS._replace(goal_tolerance=(0.1, 0.1)))
    read(mon, clock, (GOAL[0] + 0.05, GOAL[1]), after=0.01)
    assert mon.check(GOAL, moving=False).status is MotionStatus.ARRIVED


def test_another_arm_ends_the_command_in_flight():
    mon, clock = monitor()
    step(mon, clock)
    mon.set_arm(('a', 'b', 'c'))
    assert not mon.active and mon.readings() == (None, None, None)
