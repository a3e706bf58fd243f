"""Tests of two_bone_ik.motion.command_stream: steps without limits, planned streams with them."""

import math

import pytest

from two_bone_ik.motion.command_stream import CommandStream
from two_bone_ik.motion.limits import MotionLimits

INF = math.inf
FREE = ((-INF, INF), (-INF, INF))
LIMITS = MotionLimits((1.0, 1.0), (5.0, 5.0), (50.0, 50.0))


def drain(stream):
    samples = []
    while True:
        sample, _ = stream.tick()
        if sample is None:
            return samples
        samples.append(sample)


def test_without_limits_every_goal_is_one_command():
    stream = CommandStream(MotionLimits(), FREE, 100.0, (0.0, 0.0))
    assert not stream.planned
    step = stream.goal((1.0, -1.0))
    assert step.command == (1.0, -1.0) and step.duration == 0.0
    assert stream.tick() == (None, False) and not stream.moving
    # stop: nothing to brake; the last command stands.
    assert stream.stop() == ((1.0, -1.0), 0.0, False, '')


def test_first_motion_starts_from_the_measurement_else_initial_positions():
    measured = CommandStream(LIMITS, FREE, 100.0, (0.5, 0.5))
    measured.measured((-0.2, 0.3))
    measured.goal((0.0, 0.0))
    first, _ = measured.tick()
    assert first.position == pytest.approx((-0.2, 0.3), abs=0.01)
    unmeasured = CommandStream(LIMITS, FREE, 100.0, (0.5, 0.5))
    unmeasured.goal((0.0, 0.0))
    first, _ = unmeasured.tick()
    assert first.position == pytest.approx((0.5, 0.5), abs=0.01)
    # Later motions go on from the plan, not from a lagging measurement.
    drain(unmeasured)
    unmeasured.measured((0.3, 0.3))
    unmeasured.goal((0.1, 0.1))
    following, _ = unmeasured.tick()
    assert following.position == pytest.approx((0.0, 0.0), abs=0.01)


def test_a_planned_goal_streams_to_the_goal_and_stops_streaming():
    stream = CommandStream(LIMITS, FREE, 100.0, (0.0, 0.0))
    step = stream.goal((0.3, -0.2))
    assert step.command is None and step.new_trajectory and step.duration > 0.0
    samples = drain(stream)
    assert len(samples) == math.ceil(step.duration * 100.0 - 1e-9)
    assert samples[-1].position == pytest.approx((0.3, -0.2), abs=1e-12)
    assert not stream.moving
    # Already there: one command, nothing streamed.
    again = stream.goal((0.3, -0.2))
    assert again.command == pytest.approx((0.3, -0.2)) and again.duration == 0.0
    assert stream.tick() == (None, False)


def test_rate_change_waits_for_rest():
    stream = CommandStream(LIMITS, FREE, 100.0, (0.0, 0.0))
    stream.goal((0.5, 0.0))
    stream.tick()
    stream.set_rate(500.0)
    assert stream.rate == 100.0  # mid-motion: later
    samples = drain(stream)
    assert stream.rate == 500.0
    times = [s.time for s in samples]
    assert all(b - a == pytest.approx(0.01) for a, b in zip(times, times[1:]))
    step = stream.goal((0.0, 0.0))
    samples = drain(stream)
    assert len(samples) == math.ceil(step.duration * 500.0 - 1e-9)


def test_stop_reports_where_it_comes_to_rest():
    stream = CommandStream(LIMITS, FREE, 100.0, (0.0, 0.0))
    assert stream.stop() == (None, 0.0, False, '')  # nothing commanded yet
    stream.goal((2.0, 2.0))
    for _ in range(50):
        stream.tick()
    position, duration, new, note = stream.stop()
    assert note == ''
    assert new and duration > 0.0
    samples = drain(stream)
    assert samples[-1].position == pytest.approx(position, abs=1e-12)
    assert position[0] < 2.0


def test_new_joint_limits_keep_the_commanded_state():
    # A new description of the same joints: the next motion goes on from the last command,
    # never from a measurement that lags it (a republished robot_description used to reset
    # the stream, and the next command jumped back to the measured position).
    stream = CommandStream(LIMITS, FREE, 100.0, (0.0, 0.0))
    stream.measured((0.0, 0.0))
    stream.goal((0.2, 0.1))
    drain(stream)
    stream.set_position_limits(((-1.0, 1.0), (-1.0, 1.0)))
    stream.goal((0.5, 0.5))
    first, _ = stream.tick()
    assert first.position == pytest.approx((0.2, 0.1), abs=1e-4)


@pytest.mark.parametrize('change', ['rate at rest', 'rate mid-motion', 'new arm'])
def test_the_first_motion_after_a_new_planner_is_sent_as_a_trajectory(change):
    # A new planner counts its plans from 0 again: the first motion after a rate change or a
    # new arm used to be compared with the old planner's count and never sent to the
    # trajectory controller when the counts matched.
    stream = CommandStream(LIMITS, FREE, 100.0, (0.0, 0.0))
    assert stream.goal((0.2, 0.1)).new_trajectory
    if change == 'rate mid-motion':
        stream.set_rate(50.0)
    drain(stream)
    if change == 'rate at rest':
        stream.set_rate(50.0)
    elif change == 'new arm':
        stream.set_position_limits(((-1.0, 1.0), (-1.0, 1.0)))
    step = stream.goal((0.5, 0.5))
    assert step.command is None and step.new_trajectory


def test_hold_without_limits_is_one_command_inside_the_joint_limits():
    stream = CommandStream(MotionLimits(), ((-1.0, 1.0), (-INF, INF)), 100.0, (0.0, 0.0))
    stream.goal((0.5, 3.0))
    assert stream.hold((1.2, 2.0)) == ((1.0, 2.0), 0.0, True, '')
    assert stream.last_command == (1.0, 2.0) and stream.tick() == (None, False)


def test_hold_with_limits_streams_to_the_measured_position():
    stream = CommandStream(LIMITS, FREE, 100.0, (0.0, 0.0))
    stream.goal((2.0, 2.0))
    for _ in range(50):
        stream.tick()
    position, duration, new, note = stream.hold((0.1, 0.2))
    assert (position, new, note) == ((0.1, 0.2), True, '') and duration > 0.0
    assert drain(stream)[-1].position == pytest.approx((0.1, 0.2), abs=1e-12)
