"""Tests of two_bone_ik.client.ik_answer: an ik_status read as an answer; the exit codes."""

import math

from two_bone_ik.client.ik_answer import answer_from_status, EXIT_NO_ANSWER, EXIT_NOT_ARRIVED
from two_bone_ik.client.ik_answer import EXIT_NOT_REACHED
from two_bone_ik.client.ik_answer import EXIT_REACHED, path_exit_code, REACHED_CODES
from two_bone_ik.client.ik_answer import target_exit_code
from two_bone_ik.ik.status import LEVELS, NodeStatus, REJECTED, SOLVED


def status_values(code, name, **more):
    values = {'code': str(code), 'status': name, 'target_distance': '0.447214',
              'tip_error': '0.000000', 'elbow': 'up', 'off_plane': '0.000000'}
    values.update(more)
    return values


def test_read_from_the_status_values():
    answer = answer_from_status(1, 'OUT_OF_REACH: target 0.157 m beyond reach', status_values(
        1, 'OUT_OF_REACH', tip_error='0.157000', moving='true', motion_remaining='1.250000'))
    assert (answer.code, answer.name, answer.level, answer.level_name) == (
        1, 'OUT_OF_REACH', 1, 'WARN')
    assert answer.message == 'OUT_OF_REACH: target 0.157 m beyond reach'
    assert answer.tip_error == 0.157
    assert answer.moving and answer.motion_remaining == 1.25
    assert not answer.reached and answer.commands and answer.joints is None


def test_missing_or_malformed_values_are_unknown_not_errors():
    answer = answer_from_status(2, 'WRONG_FRAME: frame x', {'code': 'eleven', 'tip_error': 'nan',
                                                            'motion_remaining': 'inf'})
    assert answer.code is None and answer.name == 'WRONG_FRAME'
    assert math.isnan(answer.tip_error)
    assert not answer.moving and answer.motion_remaining == 0.0
    assert not answer.reached and not answer.commands
    bare = answer_from_status(3, '', {})
    assert (bare.code, bare.name, bare.level_name) == (None, 'UNKNOWN', 'STALE')
    assert answer_from_status(7, 'X: y', {'code': '-3'}).code == -3


def test_reached_codes_by_number_including_ones_newer_than_this_node():
    for code in (0, 4, 14):
        assert answer_from_status(0, 'S: x', {'code': str(code)}).reached
    for code in (1, 2, 3, 10, 11, 12, 13, 15):
        assert not answer_from_status(1, 'S: x', {'code': str(code)}).reached
    # Every status the node counts as solved is a reached code.
    assert {int(status) for status in SOLVED} <= REACHED_CODES
    # Read from the level alone: the node's rejected statuses command nothing, the others do.
    for status in NodeStatus:
        answer = answer_from_status(LEVELS[status], f'{status.name}: x',
                                    {'code': str(int(status))})
        assert answer.commands == (status not in REJECTED), status


def test_exit_codes():
    reached = answer_from_status(0, 'REACHED: x', {'code': '0'})
    flipped = answer_from_status(1, 'ELBOW_FLIPPED: x', {'code': '4'})
    clamped = answer_from_status(1, 'OUT_OF_REACH: x', {'code': '1'})
    assert target_exit_code(reached) == target_exit_code(flipped) == EXIT_REACHED == 0
    assert target_exit_code(clamped) == EXIT_NOT_REACHED == 1
    assert target_exit_code(None) == EXIT_NO_ANSWER == 2
    # Waited for arrival: 0 only when reached and arrived; reached but not arrived 3; not
    # reached stays 1 whatever the arm did.
    assert target_exit_code(reached, arrived=True) == 0
    assert target_exit_code(reached, arrived=False) == EXIT_NOT_ARRIVED == 3
    assert target_exit_code(clamped, arrived=True) == target_exit_code(clamped, False) == 1
    assert path_exit_code([reached, flipped]) == 0
    assert path_exit_code([reached, clamped]) == 1
    assert path_exit_code([reached, None]) == 1
    assert path_exit_code([None, None]) == 2
