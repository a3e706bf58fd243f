"""The arm from its URDF: the chain ``base_frame`` -> ``tip_frame`` as an ArmGeometry (no ROS).

The chain must hold exactly two movable joints, revolute or continuous, with parallel axes; any
number of fixed joints, with any origins, may come before, between and after them. A revolute
or continuous joint whose child is ``tip_frame`` only turns the tip frame about its own origin
and does not count (it is taken at 0). Everything is derived from the joints at zero readings:

- the plane: perpendicular to the joint axes, through the tip;
- ``shoulder_position``: where the first axis meets that plane; the elbow likewise;
- ``link_lengths``: shoulder to elbow and elbow to tip, in the plane;
- (u, v): see :mod:`two_bone_ik.arm.geometry` (the nearest principal plane, projected);
- ``zero_angles``: the links' directions at zero readings; ``directions``: the sign of each
  axis along u x v;
- limits: ``revolute`` ``<limit lower upper>``, ``continuous`` unlimited, each narrowed by the
  limits given as parameters; velocity limits from ``<limit velocity>``.

Anything else (malformed XML, a missing link, a link not below the base, a prismatic, floating
or planar joint on the chain, a third movable joint, skew axes, joints that do not form a tree, a
NaN or negative ``<limit>``, a non-finite or huge origin, a description too large: see
:data:`MAX_DESCRIPTION_LENGTH`, :data:`MAX_TAGS`, :data:`MAX_LINKS`, :data:`MAX_JOINTS` and
:data:`MAX_JOINT_ELEMENTS`) raises :class:`UrdfError` with one line naming the links or joints,
and nothing on stderr. Parsing uses ``urdf_parser_py`` (PyPI ``urdfdom-py``) on the joints and
the links' names only (see :func:`parse_urdf`), quietly.
"""

import math
from typing import List, Sequence, Tuple
import xml.etree.ElementTree as ElementTree

import numpy as np

from two_bone_ik.arm.chain import ChainJoint, KinematicChain, rpy_rotation
from two_bone_ik.arm.config import ArmConfig, ArmConfigError, MAX_COORDINATE
from two_bone_ik.arm.geometry import ArmGeometry, principal_plane_axes
from two_bone_ik.common.config_error import ConfigError

#: Largest angle between the two joint axes (rad) for them to count as parallel: a larger tilt
#: would move the tip off the plane by more than 1e-9 of the arm's reach.
PARALLEL_TOLERANCE = 1e-9

#: Longest description read (characters), and most tags (``<``) in it: the XML parser takes
#: about 0.1 s over a 20 MB comment and 1-5 us per element. Checked before it runs.
MAX_DESCRIPTION_LENGTH = 32 * 1024 * 1024
MAX_TAGS = 200_000

#: Most ``<link>`` elements, and most ``<joint>`` elements, read; and most elements inside the
#: joints (a joint has at most 9 kinds of child). urdf_parser_py takes about 0.03-0.3 ms per
#: element (a robot description topic's callback would block that long), and real robots have
#: tens to a few hundred links. Counted before that parser runs.
MAX_LINKS = 1000
MAX_JOINTS = 1000
MAX_JOINT_ELEMENTS = 10 * MAX_JOINTS

_MOVABLE = ('revolute', 'continuous')
_REFUSED = ('prismatic', 'floating', 'planar')


class UrdfError(ConfigError):
    """A robot description the node cannot drive; one line naming the links or joints."""


def _matrix(xyz: Sequence[float], rpy: Sequence[float]) -> np.ndarray:
    """Return the 4x4 transform of a URDF ``<origin xyz rpy>`` (fixed-axis roll, pitch, yaw)."""
    transform = np.eye(4)
    transform[:3, :3] = np.reshape(rpy_rotation(rpy), (3, 3))
    transform[:3, 3] = xyz
    return transform


def _kinematic_tree(root) -> None:
    """Cut a parsed ``<robot>`` down to what the kinematics need; refuse one too large.

    Kept: the ``<joint>`` elements and the links' names. The rest (the links' inertials,
    visuals and collisions, materials, ``<ros2_control>``, ``<gazebo>``, ``<transmission>``,
    extensions) plays no part: the parser would take time over any number of them, print
    "Unknown tag" lines for some or refuse a transmission that robot_state_publisher accepts.

    Raises
    ------
    UrdfError
        Above :data:`MAX_LINKS` links, :data:`MAX_JOINTS` joints or
        :data:`MAX_JOINT_ELEMENTS` elements inside the joints.
    """
    for element in list(root):
        if element.tag == 'link':
            del element[:]
        elif element.tag != 'joint':
            root.remove(element)
    links = sum(1 for _ in root.iterfind('link'))
    joints = list(root.iterfind('joint'))
    inside = sum(1 for joint in joints for _ in joint.iter()) - len(joints)
    for count, most, what in ((links, MAX_LINKS, '<link> elements'),
                              (len(joints), MAX_JOINTS, '<joint> elements'),
                              (inside, MAX_JOINT_ELEMENTS, 'elements inside <joint>s')):
        if count > most:
            raise UrdfError(f'robot_description: {count} {what}; at most {most} are read')


def parse_urdf(text: str):
    """Parse the kinematics of a URDF document with ``urdf_parser_py``, quietly.

    Only the ``<joint>`` elements and the links' names are handed to the parser (see
    :func:`_kinematic_tree`). Its warnings are kept off stderr.

    Returns
    -------
    urdf_parser_py.urdf.Robot

    Raises
    ------
    UrdfError
        If the text is empty, not XML, or not a URDF the parser accepts.
    """
    if not isinstance(text, str) or not text.strip():
        raise UrdfError('robot_description: empty')
    for count, most, what in ((len(text), MAX_DESCRIPTION_LENGTH, 'characters'),
                              (text.count('<'), MAX_TAGS, "tags ('<')")):
        if count > most:
            raise UrdfError(f'robot_description: {count} {what}; at most {most} are read')
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise UrdfError(f'robot_description: not valid XML: {error}') from None
    if root.tag != 'robot':
        raise UrdfError(f'robot_description: the root element is <{root.tag}>, not <robot>')
    _kinematic_tree(root)
    try:
        from urdf_parser_py import urdf as urdf_model
        from urdf_parser_py.xml_reflection import core
    except ImportError:
        raise UrdfError('robot_description: reading a URDF needs urdf_parser_py (ROS: rosdep '
                        'key urdfdom_py; pip: urdfdom-py)') from None
    warnings: List[str] = []
    saved = core.on_error
    core.on_error = warnings.append
    try:
        return urdf_model.URDF.from_xml_string(ElementTree.tostring(root, encoding='unicode'))
    except Exception as error:  # noqa: B902 - the parser raises many kinds; each is one line
        reason = ' '.join(str(error).split()) or type(error).__name__
        raise UrdfError(f'robot_description: not a valid URDF: {reason}') from None
    finally:
        core.on_error = saved


def _check_tree(robot) -> None:
    """Raise :class:`UrdfError` unless the joints form a tree (so every walk over it ends).

    Refused: two joints of one name, a link that is the child of two joints, a cycle.
    """
    parent_joint = {}
    names = set()
    for joint in robot.joints:
        if joint.name in names:
            raise UrdfError(f"robot_description: two joints are named '{joint.name}'")
        names.add(joint.name)
        if joint.child in parent_joint:
            raise UrdfError(f"robot_description: link '{joint.child}' is the child of two "
                            f"joints, '{parent_joint[joint.child].name}' and '{joint.name}'; "
                            'a URDF is a tree')
        parent_joint[joint.child] = joint
    rooted = set()  # links whose ancestors end at a root
    for link in parent_joint:
        path = {}  # link -> its position on the walk up from this one
        while link in parent_joint and link not in rooted:
            if link in path:
                cycle = list(path)[path[link]:]
                raise UrdfError(
                    'robot_description: the joints form a cycle: '
                    f"{' -> '.join(reversed(cycle + [link]))} (joints "
                    f"{', '.join(parent_joint[c].name for c in reversed(cycle))}); a URDF is "
                    'a tree')
            path[link] = len(path)
            link = parent_joint[link].parent
        rooted.update(path)


def _single_end_link(robot, base_frame: str) -> str:
    ends = []
    stack = [base_frame]
    while stack:
        link = stack.pop()
        children = robot.child_map.get(link, [])
        if not children:
            ends.append(link)
        stack.extend(child for _, child in children)
    if len(ends) != 1:
        raise UrdfError(
            f"tip_frame: base_frame '{base_frame}' has {len(ends)} end links below it "
            f"({', '.join(sorted(ends))}); set tip_frame to the one that is the tip")
    return ends[0]


def _chain(robot, base_frame: str, tip_frame: str) -> list:
    """Return the joints from ``base_frame`` down to ``tip_frame``, in order."""
    _check_tree(robot)
    links = {link.name for link in robot.links}
    if base_frame not in links:
        raise UrdfError(f"base_frame: '{base_frame}' is not a link of the robot description "
                        f"(links: {', '.join(sorted(links))})")
    if not tip_frame:
        tip_frame = _single_end_link(robot, base_frame)
    elif tip_frame not in links:
        raise UrdfError(f"tip_frame: '{tip_frame}' is not a link of the robot description "
                        f"(links: {', '.join(sorted(links))})")
    joints = {joint.name: joint for joint in robot.joints}
    chain = []
    link = tip_frame
    while link != base_frame:
        parent = robot.parent_map.get(link)
        if parent is None:
            raise UrdfError(f"tip_frame: '{tip_frame}' is not below base_frame '{base_frame}' "
                            f"(it hangs from '{link}', the root of its tree)")
        chain.append(joints[parent[0]])
        link = parent[1]
    chain.reverse()
    return chain


def _limits(joint) -> Tuple[float, float, float]:
    """(lower, upper, velocity) of a movable joint, in readings; infinite where open.

    A velocity of 0 (as some exporters write) means none given.
    """
    limit = joint.limit
    for attribute, expected in (('lower', 'an angle (rad)'), ('upper', 'an angle (rad)'),
                                ('velocity', 'a speed >= 0 (rad/s; 0 for none)')):
        value = getattr(limit, attribute, None)
        if value is not None and (math.isnan(value) or (attribute == 'velocity' and value < 0)):
            raise UrdfError(f"robot_description: joint '{joint.name}': <limit {attribute}> is "
                            f'{value:g}; expected {expected}')
    velocity = math.inf
    if limit is not None and limit.velocity is not None and float(limit.velocity) > 0.0:
        velocity = float(limit.velocity)
    if joint.type == 'continuous' or limit is None:
        return -math.inf, math.inf, velocity
    lower = float(limit.lower) if limit.lower is not None else 0.0
    upper = float(limit.upper) if limit.upper is not None else 0.0
    return lower, upper, velocity


def _finite(joint, element: str, values, bound: float = math.inf) -> np.ndarray:
    """Return an origin's or axis's numbers; refused, naming the joint, unless within ``bound``."""
    array = np.array(values, dtype=float)
    if not (np.isfinite(array).all() and np.abs(array).max() <= bound):
        within = f' within +-{bound:g}' if math.isfinite(bound) else ''
        raise UrdfError(f"robot_description: joint '{joint.name}': <{element}> is "
                        f"[{', '.join(repr(float(v)) for v in array)}]; expected finite "
                        f'values{within}')
    return array


def _origin_values(joint):
    """Return a joint's ``<origin>`` xyz (m) and rpy (rad), checked, zeros where not given.

    Coordinates beyond ``MAX_COORDINATE`` are refused, so no chain of at most ``MAX_JOINTS``
    of them overflows.
    """
    origin = joint.origin
    xyz = origin.xyz if origin is not None and origin.xyz is not None else (0.0, 0.0, 0.0)
    rpy = origin.rpy if origin is not None and origin.rpy is not None else (0.0, 0.0, 0.0)
    return (_finite(joint, 'origin xyz', xyz, MAX_COORDINATE),
            _finite(joint, 'origin rpy', rpy))


def _check_type(joint, base_frame: str, tip_frame: str) -> None:
    """Refuse a prismatic, floating or planar joint on the chain, naming it."""
    if joint.type in _REFUSED:
        raise UrdfError(f"robot_description: joint '{joint.name}' ({joint.type}, "
                        f'{joint.parent} -> {joint.child}) is on the chain from '
                        f'{base_frame} to {tip_frame}; only revolute, continuous and fixed '
                        'joints can be')


def _unit_axis(joint) -> np.ndarray:
    """Return a movable joint's axis as a unit vector in its own frame."""
    axis = _finite(joint, 'axis xyz', joint.axis if joint.axis is not None else (1.0, 0.0, 0.0))
    if not axis.any():
        raise UrdfError(f"robot_description: joint '{joint.name}': axis "
                        f'{list(joint.axis)!r} has no direction')
    axis = axis / np.abs(axis).max()  # so that the norm cannot overflow
    return axis / np.linalg.norm(axis)


def arm_from_urdf(text: str, base_frame: str, tip_frame: str = '',
                  lower_limits: Sequence[float] = (-math.inf, -math.inf),
                  upper_limits: Sequence[float] = (math.inf, math.inf)) -> ArmGeometry:
    """Build the arm from the chain ``base_frame`` -> ``tip_frame`` of a URDF.

    Parameters
    ----------
    text : str
        The URDF document (what ``robot_description`` holds).
    base_frame : str
        The link targets are expressed in (the chain's root).
    tip_frame : str
        The link whose origin is the tip; empty: the end of the chain below ``base_frame``
        when there is exactly one.
    lower_limits, upper_limits : sequence of 2 float
        Joint limits (readings, rad) that narrow the URDF's; infinite to keep them.

    Returns
    -------
    ArmGeometry

    Raises
    ------
    UrdfError
        If the description cannot be read or is not a planar two-link chain.
    """
    # One parse: the chain read, then the planar arm built from it (planar_from_chain).
    return planar_from_chain(robot_chain(parse_urdf(text), base_frame, tip_frame),
                             lower_limits, upper_limits)


def _planar_joints(chain: KinematicChain) -> list:
    """(joint, axis in base_frame, a point on the axis) of the chain's two moving joints.

    A moving joint whose child is ``tip_frame`` only turns the tip frame and does not count.

    Raises
    ------
    UrdfError
        Unless exactly two joints move, with parallel axes.
    """
    base_frame, tip_frame = chain.base_frame, chain.tip_frame
    transform = np.eye(4)
    movable = []
    for joint in chain.joints:
        transform = transform @ _matrix(joint.xyz, joint.rpy)
        if joint.moving and joint.child != tip_frame:
            movable.append((joint, transform[:3, :3] @ np.array(joint.axis),
                            transform[:3, 3].copy()))
    names = [joint.name for joint, _, _ in movable]
    if len(movable) != 2:
        raise UrdfError(
            f'robot_description: the chain from {base_frame} to {tip_frame} has '
            f'{len(movable)} movable joint(s)'
            f"{' (' + ', '.join(names) + ')' if names else ''}; exactly 2 (revolute or "
            'continuous) are needed')
    (joint1, axis1, _), (joint2, axis2, _) = movable
    skew = math.asin(min(1.0, float(np.linalg.norm(np.cross(axis1, axis2)))))
    if skew > PARALLEL_TOLERANCE:
        raise UrdfError(
            f"robot_description: joints '{joint1.name}' and '{joint2.name}' have axes "
            f'{skew:.3g} rad apart; a '
            'planar arm needs them parallel (check the rpy of the joints before '
            f"'{joint2.name}': 3.14 is not pi)")
    return movable, transform[:3, 3]


def planar_from_chain(chain: KinematicChain,
                      lower_limits: Sequence[float] = (-math.inf, -math.inf),
                      upper_limits: Sequence[float] = (math.inf, math.inf)) -> ArmGeometry:
    """Build the planar arm of a chain :func:`robot_chain` read (see the module docstring).

    ``chain`` runs from ``base_frame`` to ``tip_frame``; the limits narrow its own as in
    :func:`arm_from_urdf`, which is this function on a URDF's text. A description whose shape
    is not known yet is read once by
    :func:`two_bone_ik.arm.desktop_geometry.arm_from_description`, which ends here for a pair.

    Raises
    ------
    UrdfError
        If the chain is not a planar two-link chain, or its limits or lengths are invalid.
    """
    ((joint1, axis1, point1), (joint2, axis2, point2)), tip = _planar_joints(chain)
    plane_name, u_axis, v_axis, normal = principal_plane_axes(tuple(axis1))
    normal = np.array(normal)
    shoulder = point1 + float(np.dot(tip - point1, normal)) * normal
    elbow = point2 + float(np.dot(tip - point2, normal)) * normal
    u_axis, v_axis = np.array(u_axis), np.array(v_axis)

    def angle(vector):
        if float(np.linalg.norm(vector)) == 0.0:
            return 0.0
        return math.atan2(float(np.dot(vector, v_axis)), float(np.dot(vector, u_axis)))

    link1, link2 = elbow - shoulder, tip - elbow
    zero1 = angle(link1)
    zero2 = math.remainder(angle(link2) - zero1, math.tau)
    directions = tuple(1 if float(np.dot(axis, normal)) > 0.0 else -1 for axis in (axis1, axis2))
    lower, upper, velocity = [], [], []
    for index, joint in enumerate((joint1, joint2)):
        lower.append(max(joint.lower, float(lower_limits[index])))
        upper.append(min(joint.upper, float(upper_limits[index])))
        velocity.append(joint.velocity)
    base_frame = chain.base_frame
    try:
        # The arm's own validation: limits (order, magnitude), lengths, names.
        ArmConfig(link_lengths=(float(np.linalg.norm(link1)), float(np.linalg.norm(link2))),
                  joint_names=(joint1.name, joint2.name), base_frame=base_frame,
                  joint_lower_limits=tuple(lower), joint_upper_limits=tuple(upper))
    except ArmConfigError as error:
        raise UrdfError(f'robot_description: {error}') from None
    tilted = '' if float(np.abs(normal - np.round(normal)).max()) <= 1e-12 else ' (tilted)'
    return ArmGeometry(
        joint_names=(joint1.name, joint2.name), base_frame=base_frame,
        shoulder_position=tuple(float(c) for c in shoulder),
        u_axis=tuple(float(c) for c in u_axis), v_axis=tuple(float(c) for c in v_axis),
        link_lengths=(float(np.linalg.norm(link1)), float(np.linalg.norm(link2))),
        zero_angles=(zero1, zero2), directions=directions,
        lower_limits=tuple(lower), upper_limits=tuple(upper), velocity_limits=tuple(velocity),
        plane_name=plane_name + tilted, tip_frame=chain.tip_frame)


def arm_geometry(config: ArmConfig, robot_description: str = '',
                 tip_frame: str = '') -> ArmGeometry:
    """Return the arm a node drives: from its URDF when given, else from its parameters.

    With a ``robot_description``, only ``base_frame`` and the joint limits (which narrow the
    URDF's) of ``config`` apply; the rest of the geometry comes from the URDF.

    Raises
    ------
    UrdfError
        If the description cannot be used (see :func:`arm_from_urdf`).
    """
    if robot_description:
        return arm_from_urdf(robot_description, config.base_frame, tip_frame,
                             config.joint_lower_limits, config.joint_upper_limits)
    return ArmGeometry.from_config(config)


def chain_from_urdf(text: str, base_frame: str, tip_frame: str = '') -> KinematicChain:
    """Return the chain ``base_frame`` -> ``tip_frame`` of a URDF, every joint on it.

    The same parsing, chain walk and checks as :func:`arm_from_urdf` (a link not below the
    base, a prismatic, floating or planar joint on the chain, bad origins, axes and limits),
    but no shape: :mod:`two_bone_ik.arm.desktop_geometry` reads the shape.

    Raises
    ------
    UrdfError
        If the description cannot be read or holds a joint the chain cannot have.
    """
    return robot_chain(parse_urdf(text), base_frame, tip_frame)


def robot_chain(robot, base_frame: str, tip_frame: str = '') -> KinematicChain:
    """Return the chain ``base_frame`` -> ``tip_frame`` of a robot :func:`parse_urdf` read.

    What :func:`chain_from_urdf` does after parsing, for a caller that also reads the rest of
    the tree (the sim finds the joints off the chain in it).

    Raises
    ------
    UrdfError
        As :func:`chain_from_urdf`.
    """
    chain = _chain(robot, base_frame, tip_frame)
    tip_frame = chain[-1].child if chain else base_frame
    joints = []
    for joint in chain:
        _check_type(joint, base_frame, tip_frame)
        xyz, rpy = (tuple(float(v) for v in values) for values in _origin_values(joint))
        if joint.type in _MOVABLE:
            lower, upper, velocity = _limits(joint)
            axis = tuple(float(v) for v in _unit_axis(joint))
            joints.append(ChainJoint(joint.name, joint.type, joint.parent, joint.child, xyz, rpy,
                                     axis, lower, upper, velocity))
        else:
            joints.append(ChainJoint(joint.name, 'fixed', joint.parent, joint.child, xyz, rpy))
    return KinematicChain(base_frame, tip_frame, tuple(joints))
