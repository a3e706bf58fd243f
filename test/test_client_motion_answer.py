"""Tests of two_bone_ik.client.motion_answer: a motion_status read, and the arrival line."""

import math

from two_bone_ik.client.motion_answer import arrival_line, motion_answer_from_status
from two_bone_ik.ik.status import MotionStatus


def status(name, message, **values):
    code = str(int(MotionStatus[name]))
    return motion_answer_from_status(f'{name}: {message}',
                                     {'code': code, 'status': name, **values})


def test_read_from_the_values():
    answer = status('ARRIVED', 'every joint within goal_tolerance', target_id='12.000000005',
                    target_error='0.000412', tool_point='[0.400000, 0.200000, 0.000000]',
                    measured_tool_point='[0.400300, 0.199700, 0.000000]')
    assert (answer.code, answer.name, answer.target_id) == (21, 'ARRIVED', '12.000000005')
    assert answer.arrived and answer.final
    assert answer.target_error == 0.000412
    assert answer.tool_point == (0.4, 0.2, 0.0)
    assert answer.measured_tool_point == (0.4003, 0.1997, 0.0)
    assert not status('MOVING', 'toward [0, 0] rad').final


def test_malformed_or_missing_values_are_unknown():
    answer = motion_answer_from_status('ARRIVED: x', {'code': 'x', 'target_error': 'far',
                                                      'measured_tool_point': 'unknown',
                                                      'tool_point': '[1, 2]'})
    assert answer.code is None and answer.name == 'ARRIVED' and answer.target_id == ''
    assert math.isnan(answer.target_error)
    assert answer.tool_point is None and answer.measured_tool_point is None


def test_the_arrival_lines():
    arrived = status('ARRIVED', 'every joint within goal_tolerance', target_error='0.00041')
    assert arrival_line(arrived, 5.0) == 'arrived: tool point 0.4 mm from the target (measured)'
    nobody = status('NOT_MONITORED', 'no joint_states from anyone: is the driver or sim '
                                     'running? (none for a, b within ...)')
    assert arrival_line(nobody, 5.0) == ('arrival unknown: no joint_states from anyone: is the '
                                         'driver or sim running? (none for a, b within ...)')
    missed = status('GOAL_MISSED', 'shoulder_lift stopped 0.31 rad short: stalled or blocked? '
                                   '(2 s after ...)')
    assert arrival_line(missed, 5.0) == ('not arrived: GOAL_MISSED: shoulder_lift stopped 0.31 '
                                         'rad short: stalled or blocked? (2 s after ...)')
    assert arrival_line(None, 5.5) == ('arrival unknown: no motion_status about this target '
                                       'within 5.5 s')
    assert arrival_line(None, 5.0, other='stop') == (
        'not arrived: another command (stop) took over before the arm got there')
    assert arrival_line(None, 5.0, unpublished='/arm/motion_status') == (
        'arrival unknown: nothing publishes /arm/motion_status')
