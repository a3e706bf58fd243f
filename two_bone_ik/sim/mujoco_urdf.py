"""A user's URDF made loadable by MuJoCo's URDF importer, kinematics untouched (no ROS).

Robot descriptions written for RViz and Gazebo carry things MuJoCo cannot or should not load:
mesh files referenced as ``package://`` (not found outside a ROS workspace), and joints the
simulation does not drive. :func:`urdf_for_mujoco` returns a copy in which

- every ``<visual>`` and ``<collision>`` whose geometry is a ``<mesh>`` is dropped (primitive
  shapes stay; no geometry takes part in the kinematics or, with contacts off, the dynamics);
- every movable joint other than the simulated ones becomes ``fixed`` at its zero position,
  which holds it where the description puts it;
- the child link of a simulated joint without an ``<inertial>`` gets a small one, since MuJoCo
  refuses massless moving bodies;
- the ``<mujoco><compiler fusestatic="false" discardvisual="false"/></mujoco>`` extension is set,
  so the tip link survives as a body of its own.

``<ros2_control>``, ``<gazebo>`` and ``<transmission>`` elements are dropped too (MuJoCo would
ignore them anyway).
"""

from typing import Iterable
import xml.etree.ElementTree as ElementTree

from two_bone_ik.common.config_error import ConfigError

#: Mass (kg) and inertia (kg m^2) given to a moving link without an ``<inertial>``.
PLACEHOLDER_MASS = 1e-3
PLACEHOLDER_INERTIA = 1e-7

_MOVABLE = ('revolute', 'continuous', 'prismatic', 'floating', 'planar')
_NOT_FOR_MUJOCO = ('ros2_control', 'gazebo', 'transmission', 'mujoco')


class MujocoUrdfError(ConfigError):
    """A URDF that cannot be prepared for MuJoCo; the message names the problem."""


def urdf_for_mujoco(text: str, arm_joints: Iterable[str]) -> str:
    """Return the URDF ``text`` prepared for MuJoCo (see the module docstring).

    Parameters
    ----------
    text : str
        The robot description.
    arm_joints : iterable of str
        The joints the simulation actuates; every other movable joint is fixed.

    Raises
    ------
    MujocoUrdfError
        If the text is not XML with a ``<robot>`` root.
    """
    try:
        robot = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise MujocoUrdfError(f'robot_description: not valid XML: {error}') from None
    if robot.tag != 'robot':
        raise MujocoUrdfError(f'robot_description: the root element is <{robot.tag}>, not '
                              '<robot>')
    arm_joints = set(arm_joints)
    for element in list(robot):
        if element.tag in _NOT_FOR_MUJOCO:
            robot.remove(element)
    for link in robot.iter('link'):
        for part in list(link):
            if part.tag in ('visual', 'collision') and part.find('geometry/mesh') is not None:
                link.remove(part)
    moving_links = set()
    for joint in robot.iter('joint'):
        if joint.get('type') not in _MOVABLE:
            continue
        if joint.get('name') in arm_joints:
            child = joint.find('child')
            if child is not None:
                moving_links.add(child.get('link'))
            continue
        joint.set('type', 'fixed')
        for part in list(joint):
            if part.tag in ('axis', 'limit', 'mimic', 'dynamics', 'safety_controller',
                            'calibration'):
                joint.remove(part)
    for link in robot.iter('link'):
        if link.get('name') in moving_links and link.find('inertial') is None:
            inertial = ElementTree.SubElement(link, 'inertial')
            ElementTree.SubElement(inertial, 'mass', value=repr(PLACEHOLDER_MASS))
            value = repr(PLACEHOLDER_INERTIA)
            ElementTree.SubElement(inertial, 'inertia', ixx=value, ixy='0', ixz='0', iyy=value,
                                   iyz='0', izz=value)
    extension = ElementTree.Element('mujoco')
    ElementTree.SubElement(extension, 'compiler', fusestatic='false', discardvisual='false')
    robot.insert(0, extension)
    return ElementTree.tostring(robot, encoding='unicode')
