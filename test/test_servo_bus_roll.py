"""Tests of BusRoll: which servos of a bus answer, and the error naming the silent ones."""

import pytest

from two_bone_ik.servo.bus_roll import BusRoll
from two_bone_ik.servo.calibration import Calibration
from two_bone_ik.servo.controller import ReplyTimeout, ServoSettings


def roll():
    calibration = Calibration([0.0, 1.0], [0.0, 1000.0])
    return BusRoll([ServoSettings(joint, servo_id, calibration)
                    for joint, servo_id in (('shoulder', 1), ('elbow', 2), ('gripper', 7))])


def test_all_answer_first_time_all_return():
    bus = roll()
    returning, errors = bus.account({1: 10, 2: 20, 7: 70}, 'a read')
    assert returning == {1: 10, 2: 20, 7: 70} and errors == []
    bus.mark_ready(returning)
    assert bus.account({1: 11, 2: 21, 7: 71}, 'a read') == ({}, [])
    assert bus.movable({1: 5, 7: 6}) == {1: 5, 7: 6}


def test_a_silent_servo_is_named_not_movable_and_returns_when_it_answers():
    bus = roll()
    bus.mark_ready([1, 2, 7])
    returning, errors = bus.account({1: 10, 7: 70}, 'a read of Present Position')
    assert returning == {}
    assert errors == ['no reply from ID 2 (elbow) to a read of Present Position: left out of '
                      'joint_states and not commanded until it answers']
    assert bus.movable({1: 5, 2: 6}) == {1: 5}
    returning, errors = bus.account({1: 10, 2: 25, 7: 70}, 'a read')
    assert returning == {2: 25} and errors == []
    assert bus.movable({2: 6}) == {}   # until prepared again
    bus.mark_ready(returning)
    assert bus.movable({2: 6}) == {2: 6}


def test_several_silent_servos_in_one_line_and_none_answering_is_a_timeout():
    bus = roll()
    _, errors = bus.account({7: 1}, 'a read')
    assert errors == ['no reply from ID 1 (shoulder), ID 2 (elbow) to a read: left out of '
                      'joint_states and not commanded until it answers']
    with pytest.raises(ReplyTimeout, match=r'no servo answered a read \(IDs 1, 2, 7\)'):
        bus.account({}, 'a read')
