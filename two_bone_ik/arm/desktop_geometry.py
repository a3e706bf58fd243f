"""A desktop arm's shape, read from its chain, and its geometry for the solver and the node.

The chain from ``base_frame`` to ``tip_frame`` (fixed joints anywhere, any origins) may hold 2
to 5 moving revolute joints in one of these shapes, by their axes at zero readings:

- ``planar``: two parallel axes (today's arms:
  :func:`two_bone_ik.arm.urdf_import.planar_from_chain`, whose tolerance stays 1e-9 rad);
- ``yaw + pair``: a yaw whose axis is perpendicular to the pair's two parallel axes;
- ``pair + pitch``: three parallel axes (a planar wrist);
- ``yaw + pair + pitch`` and ``yaw + pair + pitch + roll`` (the roll's axis perpendicular to the
  pitch's; the tool point may be off it).

A joint whose child is ``tip_frame`` counts as the roll when it makes the chain a ``yaw + pair +
pitch + roll``; otherwise it only turns the tip frame about its own origin and is held at 0, as
for planar arms. Axes count as parallel or perpendicular within :data:`AXIS_TOLERANCE`; within
it the solver still puts the tool point on the target to 1e-9 x reach in the chain's own
kinematics (Newton steps on the real chain). Another shape, or axes beyond the tolerance, raises
:class:`ArmShapeError` with one line naming the joints and the angle.

From the axes and the joints' origins at zero readings, :func:`desktop_from_chain` builds the
canonical :class:`~two_bone_ik.solver.desktop_model.DesktopArm` (see there for the frame: O on
the yaw axis, ``up``, ``forward``, ``normal``) and :class:`DesktopGeometry`, what the node
needs: joint names, limits, the tool point, the points of the arm for markers, and the pair's
plane as a planar :class:`~two_bone_ik.arm.geometry.ArmGeometry`.
"""

from dataclasses import dataclass
import math
from typing import Optional, Sequence, Tuple, Union

from two_bone_ik.arm.chain import KinematicChain
from two_bone_ik.arm.geometry import (
    ArmGeometry, cross, dot, JointRanges, normalized, principal_plane_axes, Vector)
from two_bone_ik.arm.urdf_import import chain_from_urdf, planar_from_chain, UrdfError
from two_bone_ik.solver.chain_kinematics import chain_pose
from two_bone_ik.solver.desktop_model import (
    DesktopArm, PAIR_PITCH, YAW_PAIR, YAW_PAIR_PITCH, YAW_PAIR_PITCH_ROLL)

#: Largest angle (rad) by which axes may be off parallel or perpendicular: 2e-3 rad (0.11
#: degrees) takes URDFs that write pi/2 as 1.57 or 1.5708 and pi as 3.14.
AXIS_TOLERANCE = 2e-3

#: The shape relations checked per joint count: (joint, joint, 'parallel' | 'perpendicular').
_RELATIONS = {
    YAW_PAIR: ((0, 1, 'perpendicular'), (1, 2, 'parallel')),
    PAIR_PITCH: ((0, 1, 'parallel'), (0, 2, 'parallel')),
    YAW_PAIR_PITCH: ((0, 1, 'perpendicular'), (1, 2, 'parallel'), (1, 3, 'parallel')),
    YAW_PAIR_PITCH_ROLL: ((0, 1, 'perpendicular'), (1, 2, 'parallel'), (1, 3, 'parallel'),
                          (3, 4, 'perpendicular')),
}
_BY_COUNT = {3: (YAW_PAIR, PAIR_PITCH), 4: (YAW_PAIR_PITCH,), 5: (YAW_PAIR_PITCH_ROLL,)}


class ArmShapeError(UrdfError):
    """The chain is not a shape the solver knows; one line naming the joints and the angle."""


def _line_angle(a: Sequence[float], b: Sequence[float]) -> float:
    """Angle between two lines of directions a, b (unit), rad in [0, pi/2]."""
    return math.atan2(math.sqrt(dot(cross(a, b), cross(a, b))), abs(dot(a, b)))


def _violations(axes, shape):
    """(angle off, joint, joint, relation) of each relation of the shape, worst first."""
    out = []
    for i, j, relation in _RELATIONS[shape]:
        angle = _line_angle(axes[i], axes[j])
        off = angle if relation == 'parallel' else 0.5 * math.pi - angle
        out.append((off, i, j, relation))
    return sorted(out, reverse=True)


def read_shape(chain: KinematicChain) -> Tuple[str, KinematicChain]:
    """Return the shape of a chain and the chain the arm uses (an unused tip joint made fixed).

    Returns
    -------
    shape : str
        ``'planar'`` or a desktop shape name.
    chain : KinematicChain

    Raises
    ------
    ArmShapeError
        For another shape, or axes beyond :data:`AXIS_TOLERANCE` (one line).
    """
    last = chain.joints[-1] if chain.joints else None
    if last is not None and last.moving and last.child == chain.tip_frame:
        if len(chain.moving) == 5 and _classify(chain) == YAW_PAIR_PITCH_ROLL:
            return YAW_PAIR_PITCH_ROLL, chain
        chain = chain.with_fixed((last.name,))
    count = len(chain.moving)
    if count == 2:
        return 'planar', chain
    shape = _classify(chain)
    if shape is None:
        _refuse(chain)
    return shape, chain


def _classify(chain: KinematicChain) -> Optional[str]:
    axes = chain.forward().axes
    for shape in _BY_COUNT.get(len(axes), ()):
        if _violations(axes, shape)[0][0] <= AXIS_TOLERANCE:
            return shape
    return None


def _refuse(chain: KinematicChain) -> None:
    names = chain.moving_names
    where = (f'the chain from {chain.base_frame} to {chain.tip_frame} has {len(names)} moving '
             f"joints ({', '.join(names) or 'none'})")
    shapes = _BY_COUNT.get(len(names))
    if not shapes:
        raise ArmShapeError(f'robot_description: {where}; a desktop arm has 2 to 5: planar, '
                            'yaw + pair, pair + pitch, yaw + pair + pitch, yaw + pair + pitch '
                            '+ roll')
    axes = chain.forward().axes
    best = min(shapes, key=lambda s: _violations(axes, s)[0][0])
    off, i, j, relation = _violations(axes, best)[0]
    raise ArmShapeError(
        f"robot_description: {where}; read as {best}, joints '{names[i]}' and '{names[j]}' "
        f'have axes {off:.3g} rad from {relation} (tolerance {AXIS_TOLERANCE:g} rad)')


def _signed(vector: Vector, order: Sequence[int]) -> Vector:
    """``vector`` or its opposite: the one whose first nonzero component in ``order`` is > 0."""
    for k in order:
        if vector[k] != 0.0:
            return vector if vector[k] > 0.0 else (-vector[0], -vector[1], -vector[2])
    return vector


def _sub(a: Sequence[float], b: Sequence[float]) -> Vector:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _along(point: Vector, direction: Vector, length: float) -> Vector:
    return (point[0] + length * direction[0], point[1] + length * direction[1],
            point[2] + length * direction[2])


def _frame(shape: str, axes, points, tool: Vector):
    """(origin, forward, up, normal) of the arm (see :mod:`two_bone_ik.solver.desktop_model`)."""
    if shape == PAIR_PITCH:
        _, forward, up, normal = principal_plane_axes(axes[0])
        origin = _along(points[0], normal, dot(_sub(tool, points[0]), normal))
        return origin, forward, up, normal
    up = _signed(axes[0], (2, 0, 1))  # on base_frame's +z side (+x, then +y, when level)
    across = normalized(_along(axes[1], up, -dot(axes[1], up)))
    side = cross(across, up)
    origin = _along(points[0], up, -dot(points[0], up))
    scale = max(1.0, *(abs(c) for p in points + (tool,) for c in p))
    # Forward: toward the tool point at zero readings (else the wrist, elbow, shoulder).
    for point in (tool,) + tuple(reversed(points[1:4])):
        along = dot(_sub(point, origin), side)
        if abs(along) > 1e-12 * scale:
            forward = side if along > 0.0 else (-side[0], -side[1], -side[2])
            break
    else:
        forward = _signed(side, (0, 1, 2))
    return origin, forward, up, cross(forward, up)


def _angle(u: float, v: float) -> float:
    return math.atan2(v, u) if (u or v) else 0.0


def _tool_model(shape, frame, axes, points, tool):
    """(wrist point (u, v), wrist lateral, (a, b, c), roll axis) of the canonical arm."""
    origin, forward, up, normal = frame

    def coords(point):
        d = _sub(point, origin)
        return (dot(d, forward), dot(d, up), dot(d, normal))

    def components(vector):
        return (dot(vector, forward), dot(vector, up), dot(vector, normal))

    index = {YAW_PAIR: None, PAIR_PITCH: 2, YAW_PAIR_PITCH: 3, YAW_PAIR_PITCH_ROLL: 3}[shape]
    tool_c = coords(tool)
    if index is None:
        return (tool_c[0], tool_c[1]), tool_c[2], ((0.0,) * 3,) * 3, forward
    wrist = coords(points[index])
    if shape != YAW_PAIR_PITCH_ROLL:
        a = (tool_c[0] - wrist[0], tool_c[1] - wrist[1], tool_c[2] - wrist[2])
        phi0 = math.atan2(a[1], a[0])
        virtual = tuple(math.cos(phi0) * f + math.sin(phi0) * w for f, w in zip(forward, up))
        return wrist[:2], wrist[2], (a, (0.0,) * 3, (0.0,) * 3), virtual
    roll_axis = normalized(_along(axes[4], normal, -dot(axes[4], normal)))
    foot = _along(points[4], roll_axis, dot(_sub(tool, points[4]), roll_axis))
    offset = _sub(tool, foot)
    foot_c = coords(foot)
    a = (foot_c[0] - wrist[0], foot_c[1] - wrist[1], foot_c[2] - wrist[2])
    return (wrist[:2], wrist[2], (a, components(offset), components(cross(roll_axis, offset))),
            roll_axis)


def _narrowed(chain: KinematicChain, lower_limits, upper_limits):
    """Per joint (lower, upper, velocity): the chain's, narrowed by the parameters' limits."""
    joints = chain.moving
    count = len(joints)
    for name, values in (('joint_lower_limits', lower_limits),
                         ('joint_upper_limits', upper_limits)):
        if len(values) not in (0, count):
            raise UrdfError(f'{name}: expected {count} values (joints '
                            f"{', '.join(chain.moving_names)}) or none, got {len(values)}")
    lower = [max(j.lower, float(lower_limits[i]) if lower_limits else -math.inf)
             for i, j in enumerate(joints)]
    upper = [min(j.upper, float(upper_limits[i]) if upper_limits else math.inf)
             for i, j in enumerate(joints)]
    for joint, lo, hi in zip(joints, lower, upper):
        if lo > hi or math.isnan(lo) or math.isnan(hi):
            raise UrdfError(f"robot_description: joint '{joint.name}': lower limit {lo!r} is "
                            f'above its upper limit {hi!r} (joint_lower_limits and '
                            'joint_upper_limits narrow the URDF limits)')
    return tuple(lower), tuple(upper), tuple(j.velocity for j in joints)


def _axis_error(arm: DesktopArm, axes) -> float:
    """Largest angle (rad) between a real joint axis and the ideal one."""
    _, i1, i2, i3, i4 = arm.indices
    errors = [_line_angle(axes[i], arm.normal) for i in (i1, i2, i3) if i is not None]
    if i4 is not None:
        errors.append(_line_angle(axes[i4], arm.roll_axis))
    return max(errors)


def _ideal_tool(arm: DesktopArm, readings) -> Vector:
    yaw, points, lateral = arm.plane_points(readings)
    return arm.to_world(yaw, points[3][0], points[3][1], lateral)


def _model_error(arm: DesktopArm, axes) -> float:
    """Return a bound (m) on the ideal arm's tool point's distance from the real one's.

    Each joint axis off by e_i turns what follows it (at most the levers after it, summed) by
    at most e_i off; twice that covers the positions projected along the ideal axes.
    """
    levers = [math.sqrt(dot(s.translation, s.translation)) for s in arm.segments]
    levers.append(math.sqrt(dot(arm.tail[1], arm.tail[1])))
    _, i1, i2, i3, i4 = arm.indices
    ideal = {i: arm.normal for i in (i1, i2, i3) if i is not None}
    if i4 is not None:
        ideal[i4] = arm.roll_axis
    return 2.0 * sum(_line_angle(axes[i], direction) * sum(levers[i + 1:])
                     for i, direction in ideal.items())


def _is_exact(arm: DesktopArm) -> bool:
    """Whether the ideal arm is the real one to rounding (checked at a few readings too)."""
    if arm.model_error > 1e-13 * arm.reach:
        return False
    for step in range(1, 4):
        readings = [math.sin(1.7 * step * (i + 1)) * 2.0 for i in range(arm.joint_count)]
        position = chain_pose(arm.segments, arm.tail, readings).position
        if math.dist(position, _ideal_tool(arm, readings)) > 1e-12 * arm.reach:
            return False
    return True


def desktop_arm_of(chain: KinematicChain, shape: str, lower, upper) -> DesktopArm:
    """Return the canonical :class:`DesktopArm` of a chain of a known desktop shape.

    Raises
    ------
    ArmShapeError
        If the pair has no length or the tool point can lie on the wrist pitch axis.
    """
    return _desktop_arm(chain, chain.forward(), shape, lower, upper)


def _desktop_arm(chain: KinematicChain, pose, shape: str, lower, upper) -> DesktopArm:
    """:func:`desktop_arm_of`, given the chain's pose at zero readings."""
    axes, points, tool = pose.axes, pose.points, pose.position
    frame = _frame(shape, axes, points, tool)
    origin, forward, up, normal = frame
    has_yaw = shape != PAIR_PITCH
    first = 1 if has_yaw else 0

    def plane(point):
        d = _sub(point, origin)
        return dot(d, forward), dot(d, up)

    shoulder, elbow = plane(points[first]), plane(points[first + 1])
    wrist, wrist_lateral, tool_model, roll_axis = _tool_model(shape, frame, axes, points, tool)
    link1 = (elbow[0] - shoulder[0], elbow[1] - shoulder[1])
    link2 = (wrist[0] - elbow[0], wrist[1] - elbow[1])
    zero1 = _angle(*link1)
    zero2 = math.remainder(_angle(*link2) - zero1, math.tau)
    directions = [1 if dot(axis, normal) > 0.0 else -1 for axis in axes]
    if has_yaw:
        directions[0] = 1 if dot(axes[0], up) > 0.0 else -1
    if shape == YAW_PAIR_PITCH_ROLL:
        directions[4] = 1
    segments, tail = chain.segments()
    arm = DesktopArm(shape, origin, forward, up, normal, shoulder, wrist_lateral,
                     (math.hypot(*link1), math.hypot(*link2)), (zero1, zero2), tuple(directions),
                     tool_model, roll_axis, pose.rotation, tuple(lower), tuple(upper), segments,
                     tail, False)
    names = chain.moving_names
    if arm.link_lengths[0] + arm.link_lengths[1] <= 0.0:
        raise ArmShapeError(f"robot_description: joints '{names[first]}' and "
                            f"'{names[first + 1]}' have no length between them and the wrist")
    if arm.has_pitch and _nearest_tool(arm) <= 1e-9 * arm.reach:
        raise ArmShapeError(
            f'robot_description: the tool point ({chain.tip_frame}) lies on the axis of the '
            f"wrist pitch joint '{names[first + 2]}' (in the arm's plane), so it has no "
            'approach pitch; choose a tip_frame off that axis')
    arm = arm._replace(model_error=_model_error(arm, axes))
    return arm._replace(exact=_is_exact(arm))


def _nearest_tool(arm: DesktopArm) -> float:
    """Smallest in-plane distance from the wrist pitch axis to the tool point over the roll."""
    (au, av, _), (bu, bv, _), (cu, cv, _) = arm.tool
    span = math.sqrt(bu * bu + bv * bv + cu * cu + cv * cv)
    if span == 0.0:
        return math.hypot(au, av)
    pu, pv = (bu, bv) if math.hypot(bu, bv) >= math.hypot(cu, cv) else (cu, cv)
    norm = math.hypot(pu, pv)
    pu, pv = pu / norm, pv / norm
    along = au * pu + av * pv
    return math.hypot(au - along * pu, av - along * pv) if abs(along) <= span else math.hypot(
        abs(along) - span, au * pv - av * pu)


@dataclass(frozen=True)
class DesktopGeometry(JointRanges):
    """A desktop arm as the node drives it. Lengths in m, angles in rad, velocities in rad/s.

    Build it with :func:`desktop_from_chain` (a URDF's chain) or
    :func:`two_bone_ik.arm.desktop_config.desktop_geometry` (parameters).

    Attributes
    ----------
    joint_names : tuple of N str
        The arm's joints in chain order (yaw, shoulder, elbow, pitch, roll as present).
    base_frame, tip_frame : str
    shape : str
        One of the desktop shape names.
    lower_limits, upper_limits, velocity_limits : tuple of N float
        In readings; infinite where open or unknown.
    model : DesktopArm
        The canonical parameters the solver is built from.
    chain : KinematicChain
        The chain, an unused tip joint held fixed: the arm's own kinematics.
    axis_error : float
        Largest angle between a joint axis and the ideal shape's, rad.
    """

    joint_names: Tuple[str, ...]
    base_frame: str
    tip_frame: str
    shape: str
    lower_limits: Tuple[float, ...]
    upper_limits: Tuple[float, ...]
    velocity_limits: Tuple[float, ...]
    model: DesktopArm
    chain: KinematicChain
    axis_error: float

    @property
    def reach(self) -> Tuple[float, float]:
        """Inner and outer reach of the tool point about the shoulder in the plane, m."""
        l1, l2 = self.model.link_lengths
        l3 = self.model.max_tool_length() if self.model.has_pitch else 0.0
        return (max(0.0, abs(l1 - l2) - l3, l3 - l1 - l2), l1 + l2 + l3)

    def tool_position(self, readings: Sequence[float]) -> Vector:
        """Where the tool point (``tip_frame``'s origin) is in ``base_frame`` at readings, m."""
        model = self.model
        return chain_pose(model.segments, model.tail, [float(r) for r in readings]).position

    def tip_position(self, readings: Sequence[float]) -> Vector:
        """Return :meth:`tool_position` (the name a planar ``ArmGeometry`` gives it)."""
        return self.tool_position(readings)

    def arm_points(self, readings: Sequence[float]) -> Tuple[Vector, ...]:
        """Return the base, shoulder, elbow, wrist and tool points in ``base_frame``, m.

        The base is O (the yaw axis' point nearest the base frame's origin; without a yaw
        joint, the shoulder); shoulder, elbow and wrist are where those axes meet the wrist's
        plane; the tool point is the chain's own.
        """
        model = self.model
        yaw, (shoulder, elbow, wrist, _), _ = model.plane_points(readings)
        lateral = model.wrist_lateral
        return ((model.origin,)
                + tuple(model.to_world(yaw, u, v, lateral) for u, v in (shoulder, elbow, wrist))
                + (self.tool_position(readings),))

    def pair_plane(self, readings: Sequence[float]) -> ArmGeometry:
        """Return the pair as a planar arm in the wrist's plane, turned by the readings' yaw."""
        model = self.model
        _, i1, i2, _, _ = model.indices
        yaw = model.directions[0] * readings[0] if model.has_yaw else 0.0
        c, s = math.cos(yaw), math.sin(yaw)
        f, n = model.forward, model.normal
        u_axis = tuple(c * f[k] - s * n[k] for k in range(3))
        su, sv = model.shoulder
        return ArmGeometry(
            joint_names=(self.joint_names[i1], self.joint_names[i2]), base_frame=self.base_frame,
            shoulder_position=model.to_world(yaw, su, sv, model.wrist_lateral), u_axis=u_axis,
            v_axis=model.up, link_lengths=model.link_lengths, zero_angles=model.zero_angles,
            directions=(model.directions[i1], model.directions[i2]),
            lower_limits=(self.lower_limits[i1], self.lower_limits[i2]),
            upper_limits=(self.upper_limits[i1], self.upper_limits[i2]),
            velocity_limits=(self.velocity_limits[i1], self.velocity_limits[i2]),
            plane_name='arm', tip_frame='')

    def describe(self) -> str:
        """One line for logs: shape, links, tool, where the shoulder sits, zeros, directions."""
        model = self.model
        l1, l2 = model.link_lengths
        su, sv = model.shoulder
        parts = [f'{self.shape} arm in {self.base_frame!r}: links {l1:.4g} + {l2:.4g} m']
        if model.has_pitch:
            parts.append(f'tool {model.max_tool_length():.4g} m from the wrist pitch axis')
        where = 'from the yaw axis' if model.has_yaw else 'in its plane'
        parts.append(f'shoulder {su:.4g} m out and {sv:.4g} m up {where}, plane '
                     f'{model.wrist_lateral:.4g} m aside')
        zeros = ', '.join(f'{z:.4g}' for z in model.zero_angles)
        directions = ', '.join(f'{d:+d}' for d in model.directions)
        parts.append(f'pair zero angles ({zeros}) rad, directions ({directions})')
        if self.axis_error > 1e-12:
            parts.append(f'axes within {self.axis_error:.2g} rad of the shape')
        return ', '.join(parts)


def desktop_from_chain(chain: KinematicChain, lower_limits: Sequence[float] = (),
                       upper_limits: Sequence[float] = ()) -> DesktopGeometry:
    """Read a chain's desktop shape and build its geometry.

    Parameters
    ----------
    chain : KinematicChain
        From ``base_frame`` to ``tip_frame``.
    lower_limits, upper_limits : sequence of N float, or empty
        Limits (readings, rad) that narrow the chain's; empty to keep them.

    Raises
    ------
    ArmShapeError
        If the chain is planar (use :func:`arm_from_description`), another shape, or its axes
        are beyond :data:`AXIS_TOLERANCE`.
    UrdfError
        If the limits do not fit the joints.
    """
    shape, chain = read_shape(chain)
    if shape == 'planar':
        raise ArmShapeError(f'robot_description: the chain from {chain.base_frame} to '
                            f'{chain.tip_frame} is a planar pair '
                            f"({', '.join(chain.moving_names)}), not a desktop arm")
    return _desktop_geometry(chain, shape, lower_limits, upper_limits)


def _desktop_geometry(chain: KinematicChain, shape: str, lower_limits: Sequence[float],
                      upper_limits: Sequence[float]) -> DesktopGeometry:
    """Build the geometry of a chain :func:`read_shape` read as the desktop ``shape``."""
    lower, upper, velocity = _narrowed(chain, lower_limits, upper_limits)
    pose = chain.forward()
    arm = _desktop_arm(chain, pose, shape, lower, upper)
    return DesktopGeometry(chain.moving_names, chain.base_frame, chain.tip_frame, shape, lower,
                           upper, velocity, arm, chain, _axis_error(arm, pose.axes))


def arm_from_description(text: str, base_frame: str, tip_frame: str = '',
                         lower_limits: Sequence[float] = (),
                         upper_limits: Sequence[float] = ()
                         ) -> Union[ArmGeometry, DesktopGeometry]:
    """Return a URDF's arm: today's planar :class:`ArmGeometry`, or a :class:`DesktopGeometry`.

    The one reading of a description: parsed once into its chain
    (:func:`~two_bone_ik.arm.urdf_import.chain_from_urdf`), its shape read once
    (:func:`read_shape`), then the one geometry that shape needs: a chain with two moving
    joints is the planar :func:`~two_bone_ik.arm.urdf_import.planar_from_chain` (its limits: 2
    values, or none for unlimited), any other a desktop arm as :func:`desktop_from_chain`
    builds it.

    Raises
    ------
    UrdfError
        If the description cannot be read or is not an arm of a known shape (one line).
    """
    shape, chain = read_shape(chain_from_urdf(text, base_frame, tip_frame))
    if shape == 'planar':
        lower = tuple(lower_limits) or (-math.inf, -math.inf)
        upper = tuple(upper_limits) or (math.inf, math.inf)
        return planar_from_chain(chain, lower, upper)
    return _desktop_geometry(chain, shape, lower_limits, upper_limits)
