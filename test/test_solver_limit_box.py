"""Tests of two_bone_ik.solver.limit_box: the box of limits as the arm's tip sees it."""

import math

from fk_oracle import arm_tip
import pytest

from two_bone_ik.solver import JointLimits
from two_bone_ik.solver.limit_box import (
    ANY_SIDE, ARC, DOWN_SIDE, limit_box, POINT, side_arcs, TURN, UP_SIDE, WIDE_ARC)

HALF_PI = math.pi / 2
SERVO = JointLimits(((-HALF_PI, HALF_PI), (-HALF_PI, HALF_PI)))


def test_a_servo_box_has_two_edges_per_joint_and_its_four_corners():
    box = limit_box(SERVO, 0.3, 0.25)
    assert (box.q1_arc.start, box.q1_arc.width, box.q1_arc.end) == (-HALF_PI, math.pi, HALF_PI)
    side = box.sides[ANY_SIDE]
    assert side.whole
    assert [edge.q2 for edge in side.fixed_elbow] == [-HALF_PI, HALF_PI]
    assert [edge.q1 for edge in side.fixed_shoulder] == [-HALF_PI, HALF_PI]
    corners = set()
    for edge in side.fixed_elbow:
        # q2 = c: the tip's circle about the shoulder, radius |l1 + l2 e^(ic)|, angle q1 + beta.
        assert edge.radius == pytest.approx(abs(0.3 + 0.25 * complex(math.cos(edge.q2),
                                                                     math.sin(edge.q2))))
        corners |= {edge.corner_lo, edge.corner_hi}
    for edge in side.fixed_shoulder:
        assert edge.mode == ARC and edge.arc == (-HALF_PI, math.pi, HALF_PI)
        assert (edge.elbow_u, edge.elbow_v) == pytest.approx(
            (0.3 * math.cos(edge.q1), 0.3 * math.sin(edge.q1)))
        corners |= {edge.corner_start, edge.corner_end}
    ends = (-HALF_PI, HALF_PI)
    assert {(c.q1, c.q2) for c in corners} == {(a, b) for a in ends for b in ends}
    for corner in corners:
        assert (corner.tip_u, corner.tip_v) == pytest.approx(
            arm_tip(corner.q1, corner.q2, 0.3, 0.25), abs=1e-15)


def test_the_elbow_sides_cut_the_elbow_range():
    box = limit_box(SERVO, 0.3, 0.25)
    up, down = box.sides[UP_SIDE], box.sides[DOWN_SIDE]
    assert [edge.q2 for edge in up.fixed_elbow] == [-HALF_PI, 0.0]
    assert [edge.q2 for edge in down.fixed_elbow] == [0.0, HALF_PI]
    assert not up.whole and not down.whole


def test_a_box_is_cached_by_value_and_per_arm():
    first = limit_box(SERVO, 0.3, 0.25)
    assert limit_box(JointLimits(SERVO.pairs), 0.3, 0.25) is first
    other = limit_box(SERVO, 0.6, 0.5)
    assert other is not first
    assert other.sides[ANY_SIDE].fixed_elbow[0].radius == pytest.approx(
        2 * first.sides[ANY_SIDE].fixed_elbow[0].radius)
    assert limit_box(SERVO, 0.3, 0.25) is first


def test_a_box_and_its_edges_are_immutable():
    box = limit_box(SERVO, 0.3, 0.25)
    edge = box.sides[ANY_SIDE].fixed_shoulder[0]
    for record, name in ((box, 'q1_arc'), (edge, 'mode'), (edge.corner_start, 'tip_u')):
        with pytest.raises(AttributeError, match='immutable'):
            setattr(record, name, None)
    assert repr(edge.corner_start).startswith('Corner(q1=')


def test_wide_and_open_ranges_give_no_edges_of_their_own():
    box = limit_box(JointLimits(((-10.0, 10.0), (-math.inf, math.inf))), 0.3, 0.25)
    assert box.q1_arc is None
    assert box.sides[ANY_SIDE].fixed_elbow == () and box.sides[ANY_SIDE].fixed_shoulder == ()
    # The elbow side alone cuts an unlimited elbow into a half turn: edges at its two ends.
    assert [edge.q2 for edge in box.sides[UP_SIDE].fixed_elbow] == [-math.pi, 0.0]
    narrow_q1 = limit_box(JointLimits(((0.0, 1.0), (-math.inf, math.inf))), 0.3, 0.25)
    assert [edge.mode for edge in narrow_q1.sides[ANY_SIDE].fixed_shoulder] == [TURN, TURN]
    assert [edge.mode for edge in narrow_q1.sides[UP_SIDE].fixed_shoulder] == [ARC, ARC]


@pytest.mark.parametrize('lo, hi, side, arcs', [
    (-1.0, 2.0, UP_SIDE, ((-1.0, 1.0, 0.0),)),
    (-1.0, 2.0, DOWN_SIDE, ((0.0, 2.0, 2.0),)),
    (0.5, 1.0, UP_SIDE, ()),
    (-10.0, 10.0, DOWN_SIDE, ((0.0, math.pi, math.pi),)),
    (1e-11, 1.0, UP_SIDE, ((1e-11, 0.0, 1e-11),)),  # within LIMIT_TOLERANCE of the side
    (-4.0, -2.0, DOWN_SIDE, ((-4.0, 4.0 - math.pi, -math.pi),)),  # the side one turn down
])
def test_side_arcs(lo, hi, side, arcs):
    assert list(side_arcs(lo, hi, side)) == [pytest.approx(arc) for arc in arcs]


def test_arc_modes_follow_the_width():
    box = limit_box(JointLimits(((0.0, 1.0), (0.0, 4.0))), 0.3, 0.25)
    assert box.sides[ANY_SIDE].fixed_shoulder[0].mode == WIDE_ARC
    point = limit_box(JointLimits(((0.0, 1.0), (0.5, 0.5))), 0.3, 0.25)
    assert point.sides[ANY_SIDE].fixed_shoulder[0].mode == POINT
