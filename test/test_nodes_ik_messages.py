"""The IK node's message conversions: markers and trajectories, without a running node."""

from builtin_interfaces.msg import Time
import pytest

from two_bone_ik.ik.markers import Shape
from two_bone_ik.motion.trajectory import TrajectoryPoint
from two_bone_ik.nodes.ik_messages import duration_msg, joint_trajectory, marker_array
from two_bone_ik.nodes.ik_messages import marker_msg
from visualization_msgs.msg import Marker


@pytest.mark.parametrize('seconds, sec, nanosec', [
    (0.0, 0, 0), (0.01, 0, 10_000_000), (1.5, 1, 500_000_000), (2.0, 2, 0),
    # Just below a whole second: rounds up to the next second, never nanosec == 1e9.
    (0.9999999999, 1, 0), (41.9999999996, 42, 0), (3.0000000004, 3, 0)])
def test_duration_keeps_nanoseconds_below_a_second(seconds, sec, nanosec):
    msg = duration_msg(seconds)
    assert (msg.sec, msg.nanosec) == (sec, nanosec)


def test_trajectory_starts_now_with_every_point_in_order():
    points = [TrajectoryPoint(0.01, (0.1, -0.2), (1.0, -2.0), (10.0, 0.0)),
              TrajectoryPoint(0.9999999999, (0.5, -0.6), (0.0, 0.0), (0.0, 0.0))]
    msg = joint_trajectory(('shoulder', 'elbow'), points)
    assert msg.header.stamp == Time()
    assert list(msg.joint_names) == ['shoulder', 'elbow']
    assert [list(p.positions) for p in msg.points] == [[0.1, -0.2], [0.5, -0.6]]
    assert [list(p.velocities) for p in msg.points] == [[1.0, -2.0], [0.0, 0.0]]
    assert [list(p.accelerations) for p in msg.points] == [[10.0, 0.0], [0.0, 0.0]]
    assert [(p.time_from_start.sec, p.time_from_start.nanosec) for p in msg.points] == [
        (0, 10_000_000), (1, 0)]


def test_marker_array_replaces_the_picture_and_places_each_shape():
    stamp = Time(sec=7, nanosec=8)
    shapes = [Shape('target', 0, 'sphere', ((0.1, 0.2, 0.3),), (0.0, 1.0, 0.0, 1.0), 0.02),
              Shape('arm', 0, 'line_strip', ((0, 0, 0), (0.3, 0, 0), (0.3, 0.25, 0)),
                    (0.2, 0.2, 0.2, 1.0), 0.01),
              Shape('closest', 1, 'line_list', ((0, 0, 0), (1, 1, 1)), (1.0, 0.5, 0.0, 1.0),
                    0.005)]
    msg = marker_array(shapes, 'base_link', stamp)
    first, sphere, strip, lines = msg.markers
    assert first.action == Marker.DELETEALL
    assert [m.type for m in (sphere, strip, lines)] == [Marker.SPHERE, Marker.LINE_STRIP,
                                                        Marker.LINE_LIST]
    assert all(m.action == Marker.ADD and m.header.frame_id == 'base_link'
               and m.header.stamp == stamp and m.pose.orientation.w == 1.0
               for m in (sphere, strip, lines))
    assert (sphere.ns, sphere.id) == ('target', 0)
    p = sphere.pose.position
    assert (p.x, p.y, p.z) == (0.1, 0.2, 0.3) and not sphere.points
    assert (sphere.scale.x, sphere.scale.y, sphere.scale.z) == (0.02, 0.02, 0.02)
    assert (sphere.color.g, sphere.color.a) == (1.0, 1.0)
    assert [(q.x, q.y, q.z) for q in strip.points] == [(0, 0, 0), (0.3, 0, 0), (0.3, 0.25, 0)]
    assert strip.scale.x == 0.01
    assert (lines.ns, lines.id, len(lines.points)) == ('closest', 1, 2)


def test_no_arm_is_an_empty_picture():
    (only,) = marker_array([], 'base_link', Time()).markers
    assert only.action == Marker.DELETEALL


def test_prebuilt_markers_are_reused_with_the_new_stamp():
    workspace = Shape('workspace', 0, 'line_strip', ((1, 0, 0), (0, 1, 0)), (0, 0, 1, 1), 0.01)
    target = Shape('target', 0, 'sphere', ((0.1, 0.2, 0.3),), (0.0, 1.0, 0.0, 1.0), 0.02)
    prebuilt = [marker_msg(workspace, 'base_link', Time(sec=1))]
    msg = marker_array([target], 'base_link', Time(sec=2), prebuilt)
    first, reused, sphere = msg.markers
    assert first.action == Marker.DELETEALL
    assert reused is prebuilt[0] and reused.header.stamp == Time(sec=2)
    assert (reused.ns, sphere.ns) == ('workspace', 'target')
    assert sphere.header.stamp == Time(sec=2)


def test_a_cube_is_placed_at_its_centre_with_its_sides():
    shape = Shape('keep_out', 2, 'cube', ((0.3, -0.1, 0.05),), (0.85, 0.2, 0.2, 0.35), 0.0,
                  (0.1, 0.2, 0.04))
    marker = marker_msg(shape, 'base_link', Time(sec=1))
    assert (marker.type, marker.ns, marker.id) == (Marker.CUBE, 'keep_out', 2)
    position = marker.pose.position
    assert (position.x, position.y, position.z) == (0.3, -0.1, 0.05)
    assert (marker.scale.x, marker.scale.y, marker.scale.z) == (0.1, 0.2, 0.04)
    assert marker.pose.orientation.w == 1.0 and not marker.points
