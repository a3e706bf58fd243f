"""A kinematic chain ``base_frame`` -> ``tip_frame``: its joints and kinematics (no ROS).

:class:`KinematicChain` holds every joint on the way, fixed and moving, as a URDF writes them
(name, type, parent and child link, ``<origin xyz rpy>``, unit ``<axis>``, limits, velocity),
whether it came from a URDF (:func:`two_bone_ik.arm.urdf_import.chain_from_urdf`) or from a
desktop arm's parameters (:mod:`two_bone_ik.arm.desktop_config`). Its forward kinematics gives
the tip frame's pose in ``base_frame`` for readings of the moving joints, in chain order; the
computation itself is :mod:`two_bone_ik.solver.chain_kinematics`, which the desktop solver also
uses for its exactness correction.
"""

from dataclasses import dataclass
import math
from typing import Optional, Sequence, Tuple

from two_bone_ik.arm.geometry import cross
from two_bone_ik.solver.chain_kinematics import (
    apply, chain_pose, ChainPose, IDENTITY, multiply, Rotation, Segment, Vector)

#: Joint types that move (a continuous joint is a revolute joint without position limits).
MOVING_TYPES = ('revolute', 'continuous')


def rpy_rotation(rpy: Sequence[float]) -> Rotation:
    """Row-major rotation of a URDF ``<origin rpy>``: Rz(yaw) Ry(pitch) Rx(roll)."""
    roll, pitch, yaw = (float(v) for v in rpy)
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return (cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
            sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
            -sp, cp * sr, cp * cr)


def rpy_of(x_axis: Sequence[float], z_axis: Sequence[float]) -> Tuple[float, float, float]:
    """Return the URDF roll, pitch, yaw of the frame with these x and z axes (orthonormal)."""
    y_axis = cross(z_axis, x_axis)
    # R = Rz(yaw) Ry(pitch) Rx(roll), columns x, y, z: R[2][0] = x_z = -sin(pitch).
    pitch = math.asin(max(-1.0, min(1.0, -x_axis[2])))
    if abs(x_axis[2]) < 1.0 - 1e-12:
        roll = math.atan2(y_axis[2], z_axis[2])
        yaw = math.atan2(x_axis[1], x_axis[0])
    else:  # gimbal lock: x along +-z; put the whole turn about x into yaw
        roll = 0.0
        yaw = math.atan2(-y_axis[0], y_axis[1])
    return (roll + 0.0, pitch + 0.0, yaw + 0.0)


@dataclass(frozen=True)
class ChainJoint:
    """One joint of a chain, as a URDF ``<joint>`` describes it.

    Attributes
    ----------
    name : str
    kind : str
        The URDF ``type``: ``'revolute'``, ``'continuous'`` or ``'fixed'``.
    parent, child : str
        Link names.
    xyz : tuple of 3 float
        ``<origin xyz>``, metres, in the parent link's frame.
    rpy : tuple of 3 float
        ``<origin rpy>``, rad.
    axis : tuple of 3 float
        Unit ``<axis xyz>`` in the joint's frame (``(1, 0, 0)`` when the URDF gives none).
    lower, upper : float
        Position limits, rad; infinite for a continuous joint (and for fixed ones).
    velocity : float
        ``<limit velocity>``, rad/s; infinite when not given.
    """

    name: str
    kind: str
    parent: str
    child: str
    xyz: Vector = (0.0, 0.0, 0.0)
    rpy: Vector = (0.0, 0.0, 0.0)
    axis: Vector = (1.0, 0.0, 0.0)
    lower: float = -math.inf
    upper: float = math.inf
    velocity: float = math.inf

    @property
    def moving(self) -> bool:
        """Whether the joint turns (revolute or continuous)."""
        return self.kind in MOVING_TYPES


@dataclass(frozen=True)
class KinematicChain:
    """The joints from ``base_frame`` down to ``tip_frame``, in order.

    Attributes
    ----------
    base_frame, tip_frame : str
        The chain's root link and the link whose origin is the tool point.
    joints : tuple of ChainJoint
        Every joint on the way, fixed ones included.
    """

    base_frame: str
    tip_frame: str
    joints: Tuple[ChainJoint, ...]

    @property
    def moving(self) -> Tuple[ChainJoint, ...]:
        """The moving joints, in chain order."""
        return tuple(joint for joint in self.joints if joint.moving)

    @property
    def moving_names(self) -> Tuple[str, ...]:
        """Names of the moving joints, in chain order."""
        return tuple(joint.name for joint in self.moving)

    def with_fixed(self, names: Sequence[str]) -> 'KinematicChain':
        """Return the chain with the named moving joints held at 0 (made fixed)."""
        names = set(names)
        joints = tuple(ChainJoint(j.name, 'fixed', j.parent, j.child, j.xyz, j.rpy)
                       if j.name in names else j for j in self.joints)
        return KinematicChain(self.base_frame, self.tip_frame, joints)

    def segments(self) -> Tuple[Tuple[Segment, ...], Tuple[Rotation, Vector]]:
        """Return the chain in the solver's form (see :mod:`two_bone_ik.solver.chain_kinematics`).

        Returns
        -------
        segments : tuple of Segment
            One per moving joint, in chain order.
        tail : (rotation, translation)
            From the last moving joint's frame to ``tip_frame``.
        """
        segments = []
        rotation, position = IDENTITY, (0.0, 0.0, 0.0)
        for joint in self.joints:
            offset = apply(rotation, tuple(float(v) for v in joint.xyz))
            position = tuple(p + o for p, o in zip(position, offset))
            rotation = multiply(rotation, rpy_rotation(joint.rpy))
            if joint.moving:
                segments.append(Segment(rotation, position, joint.axis))
                rotation, position = IDENTITY, (0.0, 0.0, 0.0)
        return tuple(segments), (rotation, position)

    def forward(self, readings: Optional[Sequence[float]] = None) -> ChainPose:
        """Tip pose (and each moving joint's world axis and origin) at ``readings``.

        Parameters
        ----------
        readings : sequence of float, optional
            One per moving joint, in chain order, rad; default all 0.

        Returns
        -------
        ChainPose
            ``position`` (m) and row-major ``rotation`` of ``tip_frame`` in ``base_frame``.
        """
        segments, tail = self.segments()
        if readings is None:
            readings = (0.0,) * len(segments)
        if len(readings) != len(segments):
            raise ValueError(f'readings: expected {len(segments)} values (joints '
                             f"{', '.join(self.moving_names)}), got {len(readings)}")
        return chain_pose(segments, tail, [float(r) for r in readings])
