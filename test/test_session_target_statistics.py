"""Tests for two_bone_ik.diagnostics.TargetStatistics."""

import pytest

from two_bone_ik.ik.status import ERROR, NodeStatus, OK, WARN
from two_bone_ik.session.target_statistics import TargetStatistics


def test_empty_report():
    stats = TargetStatistics(10.0)
    level, message, values = stats.report(11.0)
    values = dict(values)
    assert level == OK
    assert message == '0 targets in the last 1.0 s (0.0 Hz); last NONE'
    assert (values['targets'], values['last_status'], values['last_status_code']) == \
        ('0', 'NONE', '')
    assert values['input_rate_hz'] == '0.000'
    assert {k for k in values if k.startswith('count_')} == \
        {f'count_{s.name}' for s in NodeStatus}


def test_counts_rate_and_window_level():
    stats = TargetStatistics(0.0)
    for status in [NodeStatus.REACHED] * 3 + [NodeStatus.OUT_OF_REACH, NodeStatus.WRONG_FRAME,
                                              NodeStatus.OFF_PLANE, NodeStatus.ELBOW_FLIPPED]:
        stats.record(status)
    level, message, values = stats.report(2.0)
    values = dict(values)
    assert level == ERROR
    assert (values['targets'], values['solved'], values['clamped'], values['rejected']) == \
        ('7', '4', '2', '1')
    assert (values['last_status'], values['last_status_code']) == ('ELBOW_FLIPPED', '4')
    assert float(values['input_rate_hz']) == pytest.approx(3.5)
    assert message.startswith('7 targets in the last 2.0 s (3.5 Hz)')
    assert values['count_REACHED'] == '3'

    # Next window: only a clamped target; totals keep counting from start.
    stats.record(NodeStatus.INSIDE_INNER)
    level, _, values = stats.report(2.5)
    values = dict(values)
    assert level == WARN
    assert values['targets'] == '8'
    assert float(values['input_rate_hz']) == pytest.approx(2.0)
    assert stats.total == 8
    assert stats.report(3.5)[0] == OK
