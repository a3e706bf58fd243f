"""Forward kinematics of a serial chain of revolute joints, and its Jacobian (math and numpy).

A chain is a tuple of :class:`Segment`, one per moving joint, and a tail: segment ``i`` is the
fixed transform from the frame of the previous moving joint (after its rotation; the chain's
base for the first) to the frame of joint ``i`` (every fixed joint in between folded in), and
the joint's unit axis in its own frame; the tail is the fixed transform from the last moving
joint's frame to the tip frame. A reading turns a joint about its axis by that many radians
(right hand). Rotations are row-major 9-tuples, vectors 3-tuples; the batch twins take and
return numpy arrays.

The scalar functions are plain Python on purpose: for 3 x 3 matrices they are several times
faster than numpy, and the desktop solver calls them per target.
"""

import math
from typing import NamedTuple, Sequence, Tuple

import numpy as np

Vector = Tuple[float, float, float]
Rotation = Tuple[float, float, float, float, float, float, float, float, float]

#: The identity rotation, row-major.
IDENTITY: Rotation = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


class Segment(NamedTuple):
    """The fixed transform up to one moving joint, and its axis.

    Attributes
    ----------
    rotation : tuple of 9 float
        Row-major rotation of the joint's frame in the previous joint's frame.
    translation : tuple of 3 float
        Origin of the joint's frame in the previous joint's frame, metres.
    axis : tuple of 3 float
        Unit axis in the joint's own frame.
    """

    rotation: Rotation
    translation: Vector
    axis: Vector


class ChainPose(NamedTuple):
    """Tip pose, and every moving joint's axis and origin, in the chain's base frame.

    Attributes
    ----------
    position : tuple of 3 float
        Tip origin, metres.
    rotation : tuple of 9 float
        Tip rotation, row-major.
    axes : tuple of tuple of 3 float
        World axis of each moving joint (unit).
    points : tuple of tuple of 3 float
        World origin of each moving joint's frame (a point on its axis), metres.
    """

    position: Vector
    rotation: Rotation
    axes: Tuple[Vector, ...]
    points: Tuple[Vector, ...]


def multiply(a: Sequence[float], b: Sequence[float]) -> Rotation:
    """Product of two row-major 3 x 3 matrices."""
    a0, a1, a2, a3, a4, a5, a6, a7, a8 = a
    b0, b1, b2, b3, b4, b5, b6, b7, b8 = b
    return (a0 * b0 + a1 * b3 + a2 * b6, a0 * b1 + a1 * b4 + a2 * b7, a0 * b2 + a1 * b5 + a2 * b8,
            a3 * b0 + a4 * b3 + a5 * b6, a3 * b1 + a4 * b4 + a5 * b7, a3 * b2 + a4 * b5 + a5 * b8,
            a6 * b0 + a7 * b3 + a8 * b6, a6 * b1 + a7 * b4 + a8 * b7, a6 * b2 + a7 * b5 + a8 * b8)


def apply(r: Sequence[float], v: Sequence[float]) -> Vector:
    """Rotate vector ``v`` by the row-major matrix ``r``."""
    x, y, z = v
    return (r[0] * x + r[1] * y + r[2] * z, r[3] * x + r[4] * y + r[5] * z,
            r[6] * x + r[7] * y + r[8] * z)


def transpose(r: Sequence[float]) -> Rotation:
    """Transpose (inverse) of a row-major rotation."""
    return (r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8])


def rotation_about(axis: Sequence[float], angle: float) -> Rotation:
    """Rotation by ``angle`` (rad, right hand) about the unit vector ``axis`` (Rodrigues)."""
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    return (t * x * x + c, t * x * y - s * z, t * x * z + s * y,
            t * x * y + s * z, t * y * y + c, t * y * z - s * x,
            t * x * z - s * y, t * y * z + s * x, t * z * z + c)


def rotation_angle(r: Sequence[float]) -> float:
    """Angle of a rotation matrix, rad in [0, pi] (from its skew part and trace, stable)."""
    sine = 0.5 * math.sqrt((r[7] - r[5]) ** 2 + (r[2] - r[6]) ** 2 + (r[3] - r[1]) ** 2)
    cosine = 0.5 * (r[0] + r[4] + r[8] - 1.0)
    return math.atan2(sine, cosine)


def chain_pose(segments: Sequence[Segment], tail: Tuple[Rotation, Vector],
               readings: Sequence[float]) -> ChainPose:
    """Forward kinematics of the chain at ``readings`` (rad, one per segment)."""
    rotation = IDENTITY
    position = (0.0, 0.0, 0.0)
    axes = []
    points = []
    for (fixed, offset, axis), angle in zip(segments, readings):
        dx, dy, dz = apply(rotation, offset)
        position = (position[0] + dx, position[1] + dy, position[2] + dz)
        rotation = multiply(rotation, fixed)
        axes.append(apply(rotation, axis))
        points.append(position)
        rotation = multiply(rotation, rotation_about(axis, angle))
    fixed, offset = tail
    dx, dy, dz = apply(rotation, offset)
    return ChainPose((position[0] + dx, position[1] + dy, position[2] + dz),
                     multiply(rotation, fixed), tuple(axes), tuple(points))


def jacobian_columns(pose: ChainPose, joints: Sequence[int]) -> Tuple[Vector, ...]:
    """d(tip position)/d(reading) of the given joints: axis x (tip - joint origin), m/rad."""
    px, py, pz = pose.position
    columns = []
    for index in joints:
        ax, ay, az = pose.axes[index]
        ox, oy, oz = pose.points[index]
        rx, ry, rz = px - ox, py - oy, pz - oz
        columns.append((ay * rz - az * ry, az * rx - ax * rz, ax * ry - ay * rx))
    return tuple(columns)


# -- batch twins -------------------------------------------------------------------------------


def rotations_about(axis: Sequence[float], angles: np.ndarray) -> np.ndarray:
    """Rotations by ``angles`` (shape (n,), rad) about one unit axis: shape (n, 3, 3)."""
    x, y, z = axis
    c, s = np.cos(angles), np.sin(angles)
    t = 1.0 - c
    out = np.empty(angles.shape + (3, 3))
    out[:, 0, 0] = t * x * x + c
    out[:, 0, 1] = t * x * y - s * z
    out[:, 0, 2] = t * x * z + s * y
    out[:, 1, 0] = t * x * y + s * z
    out[:, 1, 1] = t * y * y + c
    out[:, 1, 2] = t * y * z - s * x
    out[:, 2, 0] = t * x * z - s * y
    out[:, 2, 1] = t * y * z + s * x
    out[:, 2, 2] = t * z * z + c
    return out


def chain_poses(segments: Sequence[Segment], tail: Tuple[Rotation, Vector],
                readings: np.ndarray):
    """Batch twin of :func:`chain_pose`: readings (n, N) rad.

    Returns
    -------
    position : ndarray, shape (n, 3)
    rotation : ndarray, shape (n, 3, 3)
    axes, points : ndarray, shape (n, N, 3)
        World axes and origins of the moving joints.
    """
    readings = np.asarray(readings, dtype=float)
    count = readings.shape[0]
    rotation = np.broadcast_to(np.eye(3), (count, 3, 3))
    position = np.zeros((count, 3))
    axes = np.empty((count, len(segments), 3))
    points = np.empty((count, len(segments), 3))
    for index, (fixed, offset, axis) in enumerate(segments):
        position = position + rotation @ np.asarray(offset)
        rotation = rotation @ np.asarray(fixed).reshape(3, 3)
        axes[:, index] = rotation @ np.asarray(axis)
        points[:, index] = position
        rotation = rotation @ rotations_about(axis, readings[:, index])
    fixed, offset = tail
    position = position + rotation @ np.asarray(offset)
    return position, rotation @ np.asarray(fixed).reshape(3, 3), axes, points
