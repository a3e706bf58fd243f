"""Tests for two_bone_ik.node_status: stable numbers, levels, categories."""

from two_bone_ik.node_status import (
    category, CLAMPED, ERROR, FROM_IK_STATUS, LEVELS, NodeStatus, OK, REJECTED, SOLVED, WARN)
from two_bone_ik.solver import IkStatus


def test_numbers_are_stable():
    assert {s.name: int(s) for s in NodeStatus} == {
        'REACHED': 0, 'OUT_OF_REACH': 1, 'INSIDE_INNER': 2, 'JOINT_LIMITED': 3,
        'ELBOW_FLIPPED': 4, 'OFF_PLANE': 10, 'WRONG_FRAME': 11, 'INVALID_TARGET': 12}


def test_solver_statuses_keep_name_and_number():
    for status in IkStatus:
        assert NodeStatus[status.name] == status
        assert FROM_IK_STATUS[status] is NodeStatus[status.name]


def test_levels_match_diagnostic_msgs():
    assert (OK, WARN, ERROR) == (0, 1, 2)
    assert set(LEVELS) == set(NodeStatus)
    assert LEVELS[NodeStatus.REACHED] == OK
    assert {s for s, level in LEVELS.items() if level == ERROR} == REJECTED


def test_categories_partition_the_statuses():
    assert SOLVED | CLAMPED | REJECTED == set(NodeStatus)
    assert not (SOLVED & CLAMPED or SOLVED & REJECTED or CLAMPED & REJECTED)
    assert category(NodeStatus.ELBOW_FLIPPED) == 'solved'
    assert category(NodeStatus.OFF_PLANE) == 'clamped'
    assert category(NodeStatus.INVALID_TARGET) == 'rejected'
