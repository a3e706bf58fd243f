"""Tests of two_bone_ik.client.teleop_keys: keys to twists, held and stopped, with a clock."""

import pytest

from two_bone_ik.client.teleop_keys import BINDINGS, COMMANDS, FIRST_HOLD, Jog, key_help
from two_bone_ik.client.teleop_keys import MAX_SPEED, MIN_SPEED, REPEAT_HOLD, SPEED_FACTOR, ZERO


def ticks(jog, start, stop, period=0.05):
    """Return the twists asked at ``start``, ``start + period``, ... before ``stop`` (s)."""
    out = []
    index = 0
    while start + index * period < stop - 1e-9:
        out.append(jog.twist(start + index * period))
        index += 1
    return out


def test_each_motion_key_moves_one_axis_at_its_speed():
    expected = {'up': (0, 1), 'down': (0, -1), 'left': (1, 1), 'right': (1, -1),
                'page_up': (2, 1), 'w': (2, 1), 'page_down': (2, -1), 's': (2, -1),
                'i': (4, 1), 'k': (4, -1), 'j': (3, 1), 'l': (3, -1)}
    for key, (axis, sign) in expected.items():
        jog = Jog(0.02, 0.2)
        jog.key(key, 10.0)
        twist = jog.twist(10.0)
        speed = 0.02 if axis < 3 else 0.2
        assert twist == tuple(sign * speed if i == axis else 0.0 for i in range(6)), key


def test_a_single_press_is_held_then_one_zero_then_nothing():
    jog = Jog(0.02, 0.2)
    assert jog.twist(0.0) is None  # idle: nothing to send
    jog.key('up', 1.0)
    held = ticks(jog, 1.0, 1.0 + FIRST_HOLD)
    assert held and all(t == (0.02, 0, 0, 0, 0, 0) for t in held)
    assert jog.twist(1.0 + FIRST_HOLD + 0.01) == ZERO
    assert jog.twist(1.0 + FIRST_HOLD + 0.06) is None
    assert jog.moving is None


def test_repeats_keep_it_moving_and_it_stops_soon_after_the_last():
    jog = Jog(0.02, 0.2)
    jog.key('left', 0.0)
    # The terminal's first repeat after 0.5 s, then every 0.04 s until 2.0 s.
    repeats = [0.5 + 0.04 * i for i in range(38)]
    for when in repeats:
        assert jog.twist(when) == (0, 0.02, 0, 0, 0, 0)
        jog.key('left', when)
    last = repeats[-1]
    assert jog.twist(last + REPEAT_HOLD) == (0, 0.02, 0, 0, 0, 0)
    assert jog.twist(last + REPEAT_HOLD + 0.001) == ZERO
    assert jog.twist(last + 0.5) is None


def test_a_key_after_the_hold_ran_out_is_a_new_press():
    jog = Jog(0.02, 0.2)
    jog.key('up', 0.0)
    assert jog.twist(FIRST_HOLD + 0.1) == ZERO
    jog.key('up', FIRST_HOLD + 0.2)
    assert jog.twist(FIRST_HOLD + 0.2 + REPEAT_HOLD + 0.1) == (0.02, 0, 0, 0, 0, 0)


def test_another_key_replaces_the_motion():
    jog = Jog(0.02, 0.2)
    jog.key('up', 0.0)
    jog.key('w', 0.1)
    assert jog.twist(0.1) == (0, 0, 0.02, 0, 0, 0)
    # 'w' and 'page_up' are the same motion, yet a switch of key is a new press.
    jog.key('page_up', 0.2)
    assert jog.twist(0.2 + FIRST_HOLD - 0.01) == (0, 0, 0.02, 0, 0, 0)


def test_space_stops_at_once_and_only_a_motion_needs_a_zero():
    jog = Jog(0.02, 0.2)
    jog.key(' ', 0.0)
    assert jog.twist(0.0) is None
    jog.key('down', 1.0)
    assert jog.twist(1.0) == (-0.02, 0, 0, 0, 0, 0)
    jog.key(' ', 1.1)
    assert jog.twist(1.1) == ZERO
    assert jog.twist(1.15) is None
    assert not jog.quit


@pytest.mark.parametrize('key', ['q', 'Q', 'escape'])
def test_quit_stops_first(key):
    jog = Jog(0.02, 0.2)
    jog.key('i', 0.0)
    jog.key(key, 0.1)
    assert jog.quit
    assert jog.twist(0.1) == ZERO


def test_speed_steps_scale_both_speeds_within_bounds():
    jog = Jog(0.02, 0.2)
    jog.key('up', 0.0)
    jog.key('+', 0.1)
    assert jog.speed == pytest.approx(0.02 * SPEED_FACTOR)
    assert jog.angular_speed == pytest.approx(0.2 * SPEED_FACTOR)
    assert jog.twist(0.1) == pytest.approx((0.02 * SPEED_FACTOR, 0, 0, 0, 0, 0))
    jog.key('-', 0.2)
    jog.key('_', 0.3)
    assert jog.speed == pytest.approx(0.02 / SPEED_FACTOR)
    for _ in range(50):
        jog.key('=', 0.4)
    assert jog.speed == MAX_SPEED
    assert jog.angular_speed == pytest.approx(0.2 * MAX_SPEED / 0.02)
    for _ in range(100):
        jog.key('-', 0.5)
    assert jog.speed == MIN_SPEED
    assert Jog(5.0, 1.0).speed == MAX_SPEED and Jog(5.0, 1.0).angular_speed == pytest.approx(
        0.2)


def test_unknown_keys_change_nothing():
    jog = Jog(0.02, 0.2)
    jog.key('up', 0.0)
    for key in ('x', 'page_down_typo', '\t', '1'):
        jog.key(key, 0.1)
    assert jog.twist(0.2) == (0.02, 0, 0, 0, 0, 0)
    assert jog.speed == 0.02 and not jog.quit


def test_help_lists_every_key_once():
    lines = key_help().splitlines()
    assert len(lines) == len(BINDINGS) + len(COMMANDS)
    for line, item in zip(lines, BINDINGS + COMMANDS):
        assert line.strip().startswith(item.shown)
        assert line.endswith(item.meaning)
    keys = [key for item in BINDINGS + COMMANDS for key in item.keys]
    assert len(keys) == len(set(keys))
