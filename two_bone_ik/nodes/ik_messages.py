"""ROS messages the IK node builds from ROS-free values: markers and trajectories.

Conversions only, kept out of the node so that each can be checked without a running node.
"""

from typing import Iterable, Sequence

from builtin_interfaces.msg import Duration
from geometry_msgs.msg import Point
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from two_bone_ik.ik.markers import Shape
from two_bone_ik.motion.trajectory import TrajectoryPoint
from visualization_msgs.msg import Marker, MarkerArray

_MARKER_TYPES = {'line_strip': Marker.LINE_STRIP, 'line_list': Marker.LINE_LIST,
                 'sphere': Marker.SPHERE, 'cube': Marker.CUBE}


def duration_msg(seconds: float) -> Duration:
    """Return ``seconds`` (>= 0) as a builtin_interfaces/Duration, nanoseconds below 1e9."""
    sec, nanosec = divmod(round(seconds * 1e9), 1_000_000_000)
    return Duration(sec=int(sec), nanosec=int(nanosec))


def marker_msg(shape: Shape, frame: str, stamp) -> Marker:
    """Return the visualization_msgs/Marker (ADD) of one :class:`two_bone_ik.ik.markers.Shape`."""
    marker = Marker(ns=shape.namespace, id=shape.marker_id, type=_MARKER_TYPES[shape.kind],
                    action=Marker.ADD)
    marker.header.frame_id = frame
    marker.header.stamp = stamp
    marker.pose.orientation.w = 1.0
    marker.color.r, marker.color.g, marker.color.b, marker.color.a = shape.color
    if shape.kind in ('sphere', 'cube'):
        (x, y, z), = shape.points
        marker.pose.position.x, marker.pose.position.y, marker.pose.position.z = x, y, z
        if shape.kind == 'cube':
            marker.scale.x, marker.scale.y, marker.scale.z = (float(v) for v in shape.size)
        else:
            marker.scale.x = marker.scale.y = marker.scale.z = shape.scale
    else:
        marker.scale.x = shape.scale
        marker.points = [Point(x=float(x), y=float(y), z=float(z)) for x, y, z in shape.points]
    return marker


def marker_array(shapes: Iterable[Shape], frame: str, stamp,
                 prebuilt: Sequence[Marker] = ()) -> MarkerArray:
    """Return the whole picture: a DELETEALL, then the markers of ``prebuilt`` and ``shapes``.

    ``prebuilt`` markers (the arm's, which change only with the arm) are stamped ``stamp``
    and reused as they are.
    """
    for marker in prebuilt:
        marker.header.stamp = stamp
    return MarkerArray(markers=[Marker(action=Marker.DELETEALL)] + list(prebuilt)
                       + [marker_msg(shape, frame, stamp) for shape in shapes])


def joint_trajectory(joint_names: Sequence[str],
                     points: Iterable[TrajectoryPoint]) -> JointTrajectory:
    """Return a JointTrajectory that starts now (zero stamp) with every point of a motion."""
    msg = JointTrajectory()
    msg.joint_names = list(joint_names)
    msg.points = [JointTrajectoryPoint(
        positions=[float(v) for v in point.position],
        velocities=[float(v) for v in point.velocity],
        accelerations=[float(v) for v in point.acceleration],
        time_from_start=duration_msg(point.time_from_start)) for point in points]
    return msg
