"""Targets from other frames: the frame check and the rigid transform into ``base_frame`` (no ROS).

A target whose ``header.frame_id`` is neither empty nor ``base_frame`` is moved into
``base_frame`` by the transform a lookup returns (the node's comes from tf2, see
:mod:`two_bone_ik.nodes.transforms`); a lookup that cannot answer returns why, and the target is
``WRONG_FRAME`` with that reason. Quaternions are ``(x, y, z, w)``, as in ``geometry_msgs``.
"""

import math
from typing import Callable, NamedTuple, Optional, Sequence, Tuple, Union

Vector = Tuple[float, float, float]
Quaternion = Tuple[float, float, float, float]

#: How far from 1 the norm of a looked-up rotation may be (tf2 refuses unnormalised ones when
#: they are set; this catches a lookup that returns garbage).
ROTATION_NORM_TOLERANCE = 1e-6


class FrameTransform(NamedTuple):
    """Where a frame is in ``base_frame``, as tf2's ``lookup_transform(base_frame, frame)`` says.

    Attributes
    ----------
    translation : tuple of 3 float
        The frame's origin in ``base_frame``, m.
    rotation : tuple of 4 float
        The frame's orientation in ``base_frame``, a unit quaternion ``(x, y, z, w)``.
    """

    translation: Vector
    rotation: Quaternion


#: A transform lookup: ``lookup(frame, stamp, timeout)`` returns the :class:`FrameTransform`
#: from ``frame`` into ``base_frame`` at ``stamp`` (int, ns; 0 for the latest), waiting at most
#: ``timeout`` s, or a one-line reason (str) why there is none.
TransformLookup = Callable[[str, int, float], Union[FrameTransform, str]]


def needs_transform(frame_id: str, base_frame: str) -> bool:
    """Whether a target in ``frame_id`` must be transformed (neither empty nor ``base_frame``)."""
    return bool(frame_id) and frame_id != base_frame


def transform_problem(transform) -> str:
    """Return why a lookup's answer is no usable transform ('' if it is one).

    A :class:`FrameTransform` with finite numbers and a rotation of norm 1 (within
    :data:`ROTATION_NORM_TOLERANCE`) is usable; a string is the lookup's own reason.
    """
    if isinstance(transform, str):
        return transform or 'no transform (no reason given)'
    if not isinstance(transform, FrameTransform):
        return f'the lookup returned {type(transform).__name__}, not a transform'
    values = tuple(transform.translation) + tuple(transform.rotation)
    if len(values) != 7 or not all(math.isfinite(v) for v in values):
        return f'the transform is not 7 finite numbers: {transform!r}'
    norm = math.sqrt(sum(v * v for v in transform.rotation))
    if abs(norm - 1.0) > ROTATION_NORM_TOLERANCE:
        return f"the transform's rotation is not a unit quaternion (norm {norm:.9g})"
    return ''


def rotate(rotation: Sequence[float], vector: Sequence[float]) -> Vector:
    """Return ``vector`` turned by the unit quaternion ``rotation`` ``(x, y, z, w)``.

    ``v' = v + 2 w (q x v) + 2 q x (q x v)`` with ``q`` the vector part.
    """
    qx, qy, qz, qw = rotation
    vx, vy, vz = vector
    tx = 2.0 * (qy * vz - qz * vy)
    ty = 2.0 * (qz * vx - qx * vz)
    tz = 2.0 * (qx * vy - qy * vx)
    return (vx + qw * tx + (qy * tz - qz * ty),
            vy + qw * ty + (qz * tx - qx * tz),
            vz + qw * tz + (qx * ty - qy * tx))


def multiply(a: Sequence[float], b: Sequence[float]) -> Quaternion:
    """Return the Hamilton product ``a b`` of quaternions ``(x, y, z, w)``: ``b``, then ``a``."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def to_base_frame(transform: FrameTransform, position: Sequence[float],
                  orientation: Optional[Sequence[float]] = None
                  ) -> Tuple[Vector, Optional[Quaternion]]:
    """Return a target's position (m) and orientation in ``base_frame``.

    Parameters
    ----------
    transform : FrameTransform
        The target frame's pose in ``base_frame`` (usable: see :func:`transform_problem`).
    position : sequence of 3 float
        The target, m in its frame.
    orientation : sequence of 4 float, optional
        Its orientation in its frame ``(x, y, z, w)``; None for none.
    """
    norm = math.sqrt(sum(v * v for v in transform.rotation))
    rotation = tuple(v / norm for v in transform.rotation)
    x, y, z = rotate(rotation, position)
    tx, ty, tz = transform.translation
    moved = (x + tx, y + ty, z + tz)
    if orientation is None:
        return moved, None
    return moved, multiply(rotation, orientation)
