"""Tests of two_bone_ik.client.target_report: the printed answer and the path's table."""

import dataclasses

from two_bone_ik.client.ik_answer import answer_from_status, JointPositions
from two_bone_ik.client.target_path import PathTarget
from two_bone_ik.client.target_report import format_answer, orientation_note, summary_table


def answer(code, name, level, tip_error, message=None):
    return answer_from_status(level, message or f'{name}: text',
                              {'code': str(code), 'status': name, 'tip_error': tip_error})


def test_one_answer_with_its_joints():
    reached = dataclasses.replace(
        answer(0, 'REACHED', 0, '0.000000', 'REACHED: tip on the target'),
        joints=JointPositions(('shoulder_joint', 'elbow'), (1.0225414, -1.2485832)))
    assert format_answer(reached) == (
        'status:    0 REACHED (OK)\n'
        'message:   REACHED: tip on the target\n'
        'tip_error: 0.000000 m\n'
        'joints (rad):\n'
        '  shoulder_joint  +1.022541\n'
        '  elbow           -1.248583\n')


def test_one_answer_without_joints_says_why():
    rejected = answer(11, 'WRONG_FRAME', 2, 'nan')
    text = format_answer(rejected, 'none: the target was rejected')
    assert text.splitlines() == ['status:    11 WRONG_FRAME (ERROR)',
                                 'message:   WRONG_FRAME: text',
                                 'tip_error: unknown',
                                 'joints:    none: the target was rejected']
    assert format_answer(answer_from_status(1, 'odd', {})).splitlines()[0] == (
        'status:    ? odd (WARN)')


def test_summary_table_rows_counts_and_worst_error():
    targets = [PathTarget(0.0, 0.4, 0.2, 0.0), PathTarget(0.5, 0.9, 0.0, 0.0),
               PathTarget(1.0, 0.4, -0.2, 0.1, 0.2, 0.0), PathTarget(1.5, 0.0, 0.0, 0.0),
               PathTarget(2.0, 0.3, 0.3, 0.0)]
    answers = [answer(0, 'REACHED', 0, '0.000000'), answer(1, 'OUT_OF_REACH', 1, '0.350000'),
               answer(0, 'REACHED', 0, '0.000000'), None, answer(14, 'APPROACH_ADJUSTED', 1,
                                                                 '0.000001')]
    lines = summary_table(targets, answers).splitlines()
    assert lines[0].split() == ['t', '(s)', 'x', '(m)', 'y', '(m)', 'z', '(m)', 'status',
                                'tip_error', '(m)']
    assert [line.split() for line in lines[1:6]] == [
        ['0.000', '0.400', '0.200', '0.000', '0', 'REACHED', '0.000000'],
        ['0.500', '0.900', '0.000', '0.000', '1', 'OUT_OF_REACH', '0.350000'],
        ['1.000', '0.400', '-0.200', '0.100', '0', 'REACHED', '0.000000'],
        ['1.500', '0.000', '0.000', '0.000', 'no', 'answer'],
        ['2.000', '0.300', '0.300', '0.000', '14', 'APPROACH_ADJUSTED', '0.000001']]
    assert lines[6] == ('statuses: REACHED 2, OUT_OF_REACH 1, no answer 1, '
                        'APPROACH_ADJUSTED 1')
    assert lines[7] == 'worst tip error: 0.350000 m (the target at 0.500 s)'
    assert len(lines) == 8


def test_summary_without_any_tip_error():
    text = summary_table([PathTarget(0.0, 0.4, 0.2, 0.0)], [None])
    assert text.splitlines()[-2:] == ['statuses: no answer 1',
                                      'worst tip error: unknown (no answer gave one)']


def test_an_orientation_the_node_did_not_use_is_said_with_how_to_use_it():
    values = {'code': '0', 'status': 'REACHED', 'tip_error': '0.000000'}
    unused = answer_from_status(0, 'REACHED: ...', {**values, 'use_orientation': 'false'})
    assert unused.use_orientation is False
    assert orientation_note(unused, '/so101/two_bone_ik') == (
        "the orientation (--pitch/--roll) was not used: the node's use_orientation is false (it "
        'approaches at its approach_pitch); to use it: ros2 param set /so101/two_bone_ik '
        'use_orientation true, or use_orientation: true in its params file')
    used = answer_from_status(0, 'REACHED: ...', {**values, 'use_orientation': 'true'})
    assert used.use_orientation is True and orientation_note(used, '/two_bone_ik') == ''
    silent = answer_from_status(0, 'REACHED: ...', values)  # a planar arm does not say
    assert silent.use_orientation is None and orientation_note(silent, '/two_bone_ik') == ''
    assert orientation_note(None, '/two_bone_ik') == ''


def test_a_far_tip_error_is_printed_for_people():
    far = answer(1, 'OUT_OF_REACH', 1, '100000000000000000000.000000')
    assert 'tip_error: 1e+20 m\n' in format_answer(far)  # not twenty-one digits
