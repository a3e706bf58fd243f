"""A stand-in for tf2_ros's Python Buffer, TransformListener and exceptions (no tf2 on PyPI).

Written from tf2_ros's documented interface (docs.ros.org tf2_ros Python API; ros2/geometry2
jazzy ``tf2_ros_py/tf2_ros/buffer.py``, ``transform_listener.py`` and the exceptions
``tf2_py`` defines), not from its code:

- ``TransformException`` is the base of ``LookupException`` (a frame not in the graph),
  ``ConnectivityException`` (the frames are in unconnected trees), ``ExtrapolationException``
  (a time outside the data), ``InvalidArgumentException`` (ill-formed arguments: an empty frame
  id) and ``TimeoutException``; their messages are the C++ ones' wording.
- ``Buffer.lookup_transform(target_frame, source_frame, time, timeout=Duration())`` returns a
  ``geometry_msgs/TransformStamped`` whose transform takes points in ``source_frame`` into
  ``target_frame`` (header.frame_id = target_frame, child_frame_id = source_frame); time 0 is
  the latest; with a non-zero timeout the real one polls on the calling thread until then (here:
  recorded in ``timeouts`` and not waited for).
- ``Buffer.can_transform(target_frame, source_frame, time, timeout=Duration(),
  return_debug_tuple=False)`` answers True/False (or ``(bool, reason)``).
- ``TransformListener(buffer, node, *, spin_thread=False, qos=None, static_qos=None)``.

Its own simplifications: time 0 takes each link's latest sample (tf2 takes the latest time
common to the whole chain), and samples are interpolated linearly (positions) and by normalised
linear interpolation (rotations) where tf2 uses slerp. The maths is numpy's rotation matrices,
apart from the package's own quaternion code, so the one checks the other.

:func:`install` puts it into ``sys.modules`` as ``tf2_ros``; a node process gets it through
``test/fake_tf2_ros`` on its ``PYTHONPATH`` (see that module), loaded with the transforms of
the environment variable ``TWO_BONE_IK_TEST_TRANSFORMS``.
"""

import json
import os
import sys
from typing import Dict, List, Tuple

from geometry_msgs.msg import TransformStamped
import numpy as np

#: The environment variable holding the transforms a node process's stand-in knows (JSON list of
#: ``{"parent", "child", "translation", "rotation" (x, y, z, w), "stamp" (s, 0: static),
#: "delay" (s after the listener starts that it arrives; 0: at once), "after_asked" (s after
#: the first lookup of the child frame that it arrives: a transform that comes late)}``).
TRANSFORMS_ENV = 'TWO_BONE_IK_TEST_TRANSFORMS'


class TransformException(Exception):
    """Base class of tf2's exceptions."""


class ConnectivityException(TransformException):
    """The frames are not connected."""


class LookupException(TransformException):
    """A frame is not in the graph."""


class ExtrapolationException(TransformException):
    """The time asked is outside the data."""


class InvalidArgumentException(TransformException):
    """An argument is ill-formed."""


class TimeoutException(TransformException):
    """A wait timed out."""


def _nanoseconds(time) -> int:
    if hasattr(time, 'sec') and hasattr(time, 'nanosec'):
        return int(time.sec) * 1_000_000_000 + int(time.nanosec)
    return int(time.nanoseconds)


def matrix_of(quaternion) -> np.ndarray:
    """Return the 3x3 rotation matrix of a unit quaternion (x, y, z, w)."""
    x, y, z, w = np.asarray(quaternion, dtype=float) / np.linalg.norm(quaternion)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def quaternion_of(matrix: np.ndarray) -> Tuple[float, float, float, float]:
    """Return the unit quaternion (x, y, z, w) of a rotation matrix (w >= 0)."""
    m = np.asarray(matrix)
    # Of the four equivalent formulas, the one with the largest pivot.
    pivots = [m[0, 0] + m[1, 1] + m[2, 2], m[0, 0], m[1, 1], m[2, 2]]
    k = int(np.argmax(pivots))
    if k == 0:
        w = np.sqrt(1 + pivots[0]) / 2
        q = ((m[2, 1] - m[1, 2]) / (4 * w), (m[0, 2] - m[2, 0]) / (4 * w),
             (m[1, 0] - m[0, 1]) / (4 * w), w)
    else:
        i, j, n = k - 1, k % 3, (k + 1) % 3
        v = [0.0, 0.0, 0.0]
        v[i] = np.sqrt(1 + m[i, i] - m[j, j] - m[n, n]) / 2
        v[j] = (m[j, i] + m[i, j]) / (4 * v[i])
        v[n] = (m[n, i] + m[i, n]) / (4 * v[i])
        q = (v[0], v[1], v[2], (m[n, j] - m[j, n]) / (4 * v[i]))
    q = np.array(q) * (1 if q[3] >= 0 else -1)
    return tuple(float(c) for c in q / np.linalg.norm(q))


class _Sample:

    def __init__(self, parent: str, stamp: int, msg: TransformStamped):
        self.parent = parent
        self.stamp = stamp
        t, r = msg.transform.translation, msg.transform.rotation
        self.translation = np.array([t.x, t.y, t.z])
        self.rotation = np.array([r.x, r.y, r.z, r.w])


class Buffer:
    """The stand-in Buffer (see the module docstring)."""

    def __init__(self, cache_time=None, node=None):
        self._static: Dict[str, _Sample] = {}
        self._dynamic: Dict[str, List[_Sample]] = {}
        #: Every timeout (ns) lookup_transform and can_transform were called with.
        self.timeouts: List[int] = []
        #: Called (and forgotten) the first time an unknown frame is asked for (the listener's).
        self.on_first_ask: Dict[str, object] = {}

    # -- what the listener feeds in ---------------------------------------------------------

    def set_transform(self, transform: TransformStamped, authority: str) -> bool:
        sample = _Sample(transform.header.frame_id, _nanoseconds(transform.header.stamp),
                         transform)
        samples = self._dynamic.setdefault(transform.child_frame_id, [])
        samples.append(sample)
        samples.sort(key=lambda s: s.stamp)
        return True

    def set_transform_static(self, transform: TransformStamped, authority: str) -> bool:
        self._static[transform.child_frame_id] = _Sample(transform.header.frame_id, 0, transform)
        return True

    # -- queries -----------------------------------------------------------------------------

    def _known(self, frame: str) -> bool:
        if frame in self._static or frame in self._dynamic:
            return True
        return any(s.parent == frame for s in self._static.values()) or any(
            samples[-1].parent == frame for samples in self._dynamic.values())

    def _link(self, frame: str, time: int, target: str, source: str):
        """Return (parent, rotation matrix, translation) of ``frame`` at ``time``, or None."""
        if frame in self._static:
            s = self._static[frame]
            return s.parent, matrix_of(s.rotation), s.translation
        samples = self._dynamic.get(frame)
        if not samples:
            return None
        if time == 0:
            s = samples[-1]
            return s.parent, matrix_of(s.rotation), s.translation
        if time > samples[-1].stamp or time < samples[0].stamp:
            side = 'future' if time > samples[-1].stamp else 'past'
            edge = samples[-1].stamp if side == 'future' else samples[0].stamp
            which = 'latest' if side == 'future' else 'earliest'
            raise ExtrapolationException(
                f'Lookup would require extrapolation into the {side}.  Requested time '
                f'{time * 1e-9:.6f} but the {which} data is at time {edge * 1e-9:.6f}, when '
                f'looking up transform from frame [{source}] to frame [{target}]')
        after = next(s for s in samples if s.stamp >= time)
        before = [s for s in samples if s.stamp <= time][-1]
        share = 0.0 if after.stamp == before.stamp else (
            (time - before.stamp) / (after.stamp - before.stamp))
        rotation = (1 - share) * before.rotation + share * (
            after.rotation if np.dot(before.rotation, after.rotation) >= 0 else -after.rotation)
        translation = (1 - share) * before.translation + share * after.translation
        return before.parent, matrix_of(rotation), translation

    def _to_root(self, frame: str, time: int, target: str, source: str):
        """Return (root, R, t): the pose of ``frame`` in the root of its tree."""
        rotation, translation = np.eye(3), np.zeros(3)
        seen = {frame}
        while True:
            link = self._link(frame, time, target, source)
            if link is None:
                return frame, rotation, translation
            parent, r, t = link
            rotation, translation = r @ rotation, r @ translation + t
            frame = parent
            if frame in seen:
                raise ConnectivityException(f'a loop in the tree at {frame}')
            seen.add(frame)

    def _core(self, target_frame: str, source_frame: str, time) -> TransformStamped:
        for argument, frame in (('target_frame', target_frame), ('source_frame', source_frame)):
            if not frame:
                raise InvalidArgumentException(
                    f'Invalid argument "" passed to lookupTransform argument {argument} - in '
                    'tf2 frame_ids cannot be empty')
            if not self._known(frame):
                if frame in self.on_first_ask:
                    self.on_first_ask.pop(frame)()
                raise LookupException(
                    f'"{frame}" passed to lookupTransform argument {argument} does not exist. ')
        stamp = _nanoseconds(time)
        source_root, rs, ts = self._to_root(source_frame, stamp, target_frame, source_frame)
        target_root, rt, tt = self._to_root(target_frame, stamp, target_frame, source_frame)
        if source_root != target_root:
            raise ConnectivityException(
                f"Could not find a connection between '{target_frame}' and '{source_frame}' "
                'because they are not part of the same tree.Tf has two or more unconnected '
                'trees.')
        rotation, translation = rt.T @ rs, rt.T @ (ts - tt)
        msg = TransformStamped()
        msg.header.frame_id, msg.child_frame_id = target_frame, source_frame
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp, 1_000_000_000)
        t, r = msg.transform.translation, msg.transform.rotation
        t.x, t.y, t.z = (float(v) for v in translation)
        r.x, r.y, r.z, r.w = quaternion_of(rotation)
        return msg

    def lookup_transform(self, target_frame: str, source_frame: str, time, timeout=None):
        self.timeouts.append(0 if timeout is None else _nanoseconds(timeout))
        return self._core(target_frame, source_frame, time)

    def can_transform(self, target_frame: str, source_frame: str, time, timeout=None,
                      return_debug_tuple: bool = False):
        self.timeouts.append(0 if timeout is None else _nanoseconds(timeout))
        try:
            self._core(target_frame, source_frame, time)
        except TransformException as error:
            answer = (False, str(error))
        else:
            answer = (True, '')
        return answer if return_debug_tuple else answer[0]


def transform_msg(parent: str, child: str, translation, rotation, stamp: float = 0.0):
    """Return a ``TransformStamped`` of ``child`` in ``parent`` (m; quaternion xyzw; s)."""
    msg = TransformStamped()
    msg.header.frame_id, msg.child_frame_id = parent, child
    nanoseconds = int(round(stamp * 1e9))
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(nanoseconds, 1_000_000_000)
    t, r = msg.transform.translation, msg.transform.rotation
    t.x, t.y, t.z = (float(v) for v in translation)
    r.x, r.y, r.z, r.w = (float(v) for v in rotation)
    return msg


class TransformListener:
    """Feeds the buffer the transforms of :data:`TRANSFORMS_ENV`, as tf2's listener would.

    A transform with a ``delay`` arrives that long after the listener starts, one with
    ``after_asked`` that long after its frame is first asked for (through a timer on the node,
    as /tf messages come through the node's executor).
    """

    instances: List['TransformListener'] = []

    def __init__(self, buffer, node, *, spin_thread: bool = False, qos=None, static_qos=None):
        self.buffer = buffer
        self.node = node
        self._timers = []
        TransformListener.instances.append(self)
        for item in json.loads(os.environ.get(TRANSFORMS_ENV, '[]')):
            self._schedule(item)

    def _schedule(self, item) -> None:
        msg = transform_msg(item['parent'], item['child'], item['translation'],
                            item['rotation'], item.get('stamp', 0.0))
        static = not item.get('stamp', 0.0)

        def arrive():
            (self.buffer.set_transform_static if static else self.buffer.set_transform)(
                msg, 'stand_in')

        if 'after_asked' in item:
            self.buffer.on_first_ask[item['child']] = (
                lambda: self._later(item['after_asked'], arrive))
        elif item.get('delay', 0.0) > 0.0:
            self._later(item['delay'], arrive)
        else:
            arrive()

    def _later(self, delay: float, arrive) -> None:
        def once():
            timer.cancel()
            arrive()

        timer = self.node.create_timer(delay, once)
        self._timers.append(timer)


def install() -> None:
    """Make ``import tf2_ros`` give this module (as in a process with tf2_ros installed)."""
    sys.modules['tf2_ros'] = sys.modules[__name__]
