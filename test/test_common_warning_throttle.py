"""Tests of two_bone_ik.common.warning_throttle: one warning per kind per period."""

from two_bone_ik.common.warning_throttle import WarningThrottle


def test_first_of_each_kind_then_one_per_period():
    now = [100.0]
    throttle = WarningThrottle(5.0, clock=lambda: now[0])
    assert throttle.allow('a')
    assert throttle.allow('b')  # another kind has its own window
    assert not throttle.allow('a')
    now[0] = 104.9
    assert not throttle.allow('a')
    now[0] = 105.0
    assert throttle.allow('a')
    assert not throttle.allow('a')
    assert throttle.allow('b')
