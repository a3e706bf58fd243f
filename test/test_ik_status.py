"""Tests for two_bone_ik.ik.status: stable numbers, the levels the node publishes, categories."""

from diagnostic_msgs.msg import DiagnosticStatus

from two_bone_ik.ik.status import (
    category, CLAMPED, FROM_DESKTOP_STATUS, FROM_IK_STATUS, LEVELS, MOTION_FINAL, MOTION_LEVELS,
    MotionStatus, NodeStatus, REJECTED, SOLVED)
from two_bone_ik.nodes.diagnostics import level_byte
from two_bone_ik.solver import IkStatus
from two_bone_ik.solver.desktop_results import DesktopStatus

# The README's status table: code, name and the diagnostic level published in ik_status.
README_TABLE = {
    'REACHED': (0, DiagnosticStatus.OK),
    'OUT_OF_REACH': (1, DiagnosticStatus.WARN),
    'INSIDE_INNER': (2, DiagnosticStatus.WARN),
    'JOINT_LIMITED': (3, DiagnosticStatus.WARN),
    'ELBOW_FLIPPED': (4, DiagnosticStatus.WARN),
    'OFF_PLANE': (10, DiagnosticStatus.WARN),
    'WRONG_FRAME': (11, DiagnosticStatus.ERROR),
    'INVALID_TARGET': (12, DiagnosticStatus.ERROR),
    'NO_ARM_DESCRIPTION': (13, DiagnosticStatus.ERROR),
    'APPROACH_ADJUSTED': (14, DiagnosticStatus.WARN),
    'MOTION_FAILED': (15, DiagnosticStatus.ERROR),
    'COLLISION': (16, DiagnosticStatus.ERROR),
    'PROJECTED': (17, DiagnosticStatus.WARN),
}


def test_numbers_are_stable():
    assert {s.name: int(s) for s in NodeStatus} == {
        name: code for name, (code, _) in README_TABLE.items()}


def test_solver_statuses_keep_name_and_number():
    for status in IkStatus:
        assert NodeStatus[status.name] == status
        assert FROM_IK_STATUS[status] is NodeStatus[status.name]


def test_desktop_statuses_keep_name_and_number():
    for status in DesktopStatus:
        assert NodeStatus[status.name] == status
        assert FROM_DESKTOP_STATUS[status] is NodeStatus[status.name]


def diagnostic_level(status):
    """Return the byte the node puts into DiagnosticStatus.level for a status."""
    return level_byte(LEVELS[status])


def test_published_levels_follow_the_readme_table():
    assert {s.name: diagnostic_level(s) for s in NodeStatus} == {
        name: level for name, (_, level) in README_TABLE.items()}
    assert {s for s in NodeStatus if diagnostic_level(s) == DiagnosticStatus.ERROR} == REJECTED


def test_categories_partition_the_statuses():
    assert SOLVED | CLAMPED | REJECTED == set(NodeStatus)
    assert not (SOLVED & CLAMPED or SOLVED & REJECTED or CLAMPED & REJECTED)
    assert category(NodeStatus.ELBOW_FLIPPED) == 'solved'
    assert category(NodeStatus.APPROACH_ADJUSTED) == 'solved'
    assert category(NodeStatus.OFF_PLANE) == 'clamped'
    assert category(NodeStatus.INVALID_TARGET) == 'rejected'


#: docs/node.md's table of motion_status codes: code and the diagnostic level published.
MOTION_TABLE = {
    'MOVING': (20, DiagnosticStatus.OK),
    'ARRIVED': (21, DiagnosticStatus.OK),
    'NOT_FOLLOWING': (22, DiagnosticStatus.ERROR),
    'GOAL_MISSED': (23, DiagnosticStatus.ERROR),
    'NOT_MONITORED': (24, DiagnosticStatus.WARN),
}


def test_motion_status_numbers_and_levels_are_stable():
    assert {s.name: (int(s), level_byte(MOTION_LEVELS[s])) for s in MotionStatus} == MOTION_TABLE
    assert MOTION_FINAL == set(MotionStatus) - {MotionStatus.MOVING}


def test_motion_status_codes_never_collide_with_ik_status_codes():
    # A code names one outcome whichever topic carries it: no number (and no name) in both.
    assert not {int(s) for s in MotionStatus} & {int(s) for s in NodeStatus}
    assert not {s.name for s in MotionStatus} & {s.name for s in NodeStatus}
