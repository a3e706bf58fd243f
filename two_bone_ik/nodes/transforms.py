"""The IK node's transform lookup: a tf2_ros ``Buffer`` behind the session's plain callable.

:class:`BufferLookup` adapts ``Buffer.lookup_transform(target_frame, source_frame, time,
timeout)`` to the lookup the session takes (``lookup(frame, stamp_ns, timeout_s)`` -> a
:class:`~two_bone_ik.ik.target_frame.FrameTransform` into ``base_frame``, or tf2's reason as
a string; see :mod:`two_bone_ik.session.target_frames` for how the session uses it without
ever blocking the executor). :func:`node_transforms` builds it with a ``TransformListener`` on
the node, importing ``tf2_ros`` only then: without it (no ROS distro; PyPI has no tf2) the
node runs, says so once, and refuses other frames ``WRONG_FRAME``.

The listener subscribes to tf2's absolute ``/tf`` and ``/tf_static``; its callbacks run on the
node's executor, so every ``/tf`` message costs the node a wake-up. To use a namespace's own
tree (as this package's launch files give robot_state_publisher), remap them:
``-r /tf:=tf -r /tf_static:=tf_static``.
"""

from typing import Any, NamedTuple, Optional, Tuple, Union

from rclpy.duration import Duration
from rclpy.time import Time

from two_bone_ik.ik.target_frame import FrameTransform
from two_bone_ik.session.outputs import LogLine
from two_bone_ik.session.target_frames import RETRY_PERIOD


class BufferLookup:
    """The session's transform lookup on a tf2_ros ``Buffer`` (or anything with its interface).

    Parameters
    ----------
    buffer
        Has ``lookup_transform(target_frame, source_frame, time, timeout)`` returning a
        ``geometry_msgs/TransformStamped`` and raising ``error`` when it cannot.
    base_frame : str
        The frame targets are transformed into (``target_frame``).
    error : type
        tf2's ``TransformException``: the base of ``LookupException``,
        ``ConnectivityException``, ``ExtrapolationException``, ``InvalidArgumentException``
        and ``TimeoutException``.
    """

    def __init__(self, buffer, base_frame: str, error: type):
        self._buffer = buffer
        self._base_frame = base_frame
        self._error = error

    def __call__(self, frame: str, stamp: int, timeout: float) -> Union[FrameTransform, str]:
        """Return ``frame``'s transform into base_frame at ``stamp`` (ns, 0: latest), or why not.

        ``timeout`` (s) goes to tf2, which waits on the calling thread (the session passes 0).
        """
        try:
            found = self._buffer.lookup_transform(
                self._base_frame, frame, Time(nanoseconds=int(stamp)),
                Duration(nanoseconds=int(round(timeout * 1e9))))
        except self._error as error:
            return f"{type(error).__name__}: {' '.join(str(error).split())}"
        translation, rotation = found.transform.translation, found.transform.rotation
        return FrameTransform((translation.x, translation.y, translation.z),
                              (rotation.x, rotation.y, rotation.z, rotation.w))


class NodeTransforms(NamedTuple):
    """What :func:`node_transforms` set up: the lookup (None without tf2_ros), lines to log."""

    lookup: Optional[BufferLookup]
    logs: Tuple[LogLine, ...]
    listener: Any = None  # kept alive with the node


def node_transforms(node, base_frame: str) -> NodeTransforms:
    """Return a tf2 lookup into ``base_frame`` listening on ``node``, or why there is none."""
    try:
        import tf2_ros
    except ImportError as error:
        return NodeTransforms(None, (LogLine('info', (
            f'tf2_ros is not installed ({error}): targets and twists must be in base_frame '
            f"'{base_frame}' (or an empty frame); other frames are answered WRONG_FRAME. A ROS "
            "2 distro's tf2_ros_py brings it.")),))
    buffer = tf2_ros.Buffer()
    listener = tf2_ros.TransformListener(buffer, node)
    return NodeTransforms(BufferLookup(buffer, base_frame, tf2_ros.TransformException), (),
                          listener)


class HeldTargets:
    """The node's timer that answers targets held for their transform; it runs only then.

    ``answer(target_answer)`` publishes one answer (as for any target). Call :meth:`due`
    after anything that may hold or supersede a target (a target, a twist, ``~/stop``).
    """

    def __init__(self, node, session, answer):
        self._session = session
        self._answer = answer
        self._timer = node.create_timer(RETRY_PERIOD, self._retry)
        self._timer.cancel()

    def due(self) -> None:
        """Run the timer if the session holds a target or has an answer due."""
        if self._session.frames_pending and self._timer.is_canceled():
            self._timer.reset()

    def _retry(self) -> None:
        for answer in self._session.frame_answers():
            self._answer(answer)
        if not self._session.frames_pending:
            self._timer.cancel()
