"""The workspace in the MuJoCo model: the floor, the keep-out boxes, the links' capsules (no ROS).

:func:`add_workspace` adds to an arm's ``mujoco.MjSpec``, from the same parameters the IK node
reads (``floor_height``, ``keep_out_boxes``, ``link_radius``, in ``base_frame``):

- the floor as a plane and each box as a box, fixed in the world where ``base_frame`` puts them;
- on each moving link's body, its capsule: from its joint's anchor to the next joint's (the
  last one to the tool link's origin), at its radius (a link of radius 0 gets none), where
  MuJoCo's own kinematics of the model puts them at zero readings;

and a contact pair between every capsule and every obstacle (the geoms' own ``contype`` and
``conaffinity`` are 0: nothing else collides with them, the model's other contacts are as
before). The capsules add no mass. :class:`TableContacts` counts the contacts MuJoCo finds on
those pairs as the simulation steps: real contacts, which push back.
"""

import math
from typing import NamedTuple, Optional, Sequence, Tuple

import mujoco
import numpy as np

#: Name prefixes of the geoms added.
FLOOR_GEOM = 'workspace_floor'
BOX_GEOM = 'workspace_box_'
LINK_GEOM = 'workspace_link_'


class SimWorkspace(NamedTuple):
    """What to add: the obstacles and one radius per arm link (N, link 1 first)."""

    obstacles: object
    radii: Tuple[float, ...]


def _base_pose(model, data, base: int):
    return data.xpos[base].copy(), data.xmat[base].reshape(3, 3).copy(), data.xquat[base].copy()


def _obstacle_geoms(spec, obstacles, pose) -> list:
    position, rotation, quaternion = pose
    names = []
    if obstacles.floor_height > -math.inf:
        geom = spec.worldbody.add_geom()
        geom.name, geom.type = FLOOR_GEOM, mujoco.mjtGeom.mjGEOM_PLANE
        geom.size = [0.0, 0.0, 1.0]
        geom.pos = position + rotation @ np.array([0.0, 0.0, obstacles.floor_height])
        geom.quat = quaternion
        names.append(geom.name)
    for box in obstacles.boxes:
        geom = spec.worldbody.add_geom()
        geom.name, geom.type = f'{BOX_GEOM}{box.number}', mujoco.mjtGeom.mjGEOM_BOX
        lower, upper = np.array(box.lower), np.array(box.upper)
        geom.size = np.maximum(0.5 * (upper - lower), 1e-6)
        geom.pos = position + rotation @ (0.5 * (lower + upper))
        geom.quat = quaternion
        names.append(geom.name)
    for name in names:
        geom = spec.geom(name)
        geom.contype = geom.conaffinity = 0
        geom.rgba = [0.8, 0.7, 0.5, 0.5] if name == FLOOR_GEOM else [0.85, 0.2, 0.2, 0.35]
    return names


def _link_geoms(spec, model, data, arm, radii: Sequence[float]) -> list:
    joints = [model.joint(name).id for name in arm.joint_names]
    ends = [data.xanchor[j].copy() for j in joints] + [data.xpos[model.body(arm.tip_frame).id]]
    names = []
    for index, (joint, radius) in enumerate(zip(joints, radii)):
        if radius <= 0.0:
            continue
        body = model.jnt_bodyid[joint]
        rotation = data.xmat[body].reshape(3, 3)
        a, b = (rotation.T @ (ends[k] - data.xpos[body]) for k in (index, index + 1))
        geom = spec.body(model.body(body).name).add_geom()
        geom.name = f'{LINK_GEOM}{index + 1}'
        geom.contype = geom.conaffinity = 0
        geom.density = 0.0
        geom.rgba = [0.2, 0.5, 0.9, 0.3]
        if np.linalg.norm(b - a) < 1e-9:
            geom.type, geom.size, geom.pos = mujoco.mjtGeom.mjGEOM_SPHERE, [radius, 0, 0], a
        else:
            geom.type = mujoco.mjtGeom.mjGEOM_CAPSULE
            geom.fromto = np.concatenate((a, b))
            geom.size = [radius, 0.0, 0.0]
        names.append(geom.name)
    return names


def add_workspace(spec, model, arm, workspace: SimWorkspace) -> Tuple[list, list]:
    """Add the workspace to ``spec`` (see the module docstring).

    Parameters
    ----------
    spec : mujoco.MjSpec
        The arm's model, being built.
    model : mujoco.MjModel
        ``spec`` compiled as it is (its kinematics place the geoms).
    arm : SimulatedArm
        Its joints, ``base_frame`` and ``tip_frame``.
    workspace : SimWorkspace

    Returns
    -------
    links, obstacles : list of str
        The names of the geoms added.
    """
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)  # at qpos0: zero readings
    pose = _base_pose(model, data, model.body(arm.base_frame).id)
    obstacles = _obstacle_geoms(spec, workspace.obstacles, pose)
    links = _link_geoms(spec, model, data, arm, workspace.radii)
    for link in links:
        for obstacle in obstacles:
            pair = spec.add_pair()
            pair.geomname1, pair.geomname2 = link, obstacle
    return links, obstacles


class TableContacts:
    """Counts the arm's contacts with the floor and the boxes as the simulation steps.

    Parameters
    ----------
    model : mujoco.MjModel
        Compiled, with the geoms :func:`add_workspace` added.
    links, obstacles : sequence of str
        Their names.
    """

    def __init__(self, model, links: Sequence[str], obstacles: Sequence[str]):
        self._links = {model.geom(name).id: name for name in links}
        self._obstacles = {model.geom(name).id: name for name in obstacles}
        #: Steps in which a link touched the floor or a box.
        self.steps = 0
        #: Contacts begun (a step touching after one that did not).
        self.contacts = 0
        #: Deepest penetration seen, m (0: none).
        self.deepest = 0.0
        #: The last contact, in words ('' before any).
        self.last = ''
        self._touching = False

    @property
    def active(self) -> bool:
        """Whether there is anything to count (a link's capsule and an obstacle)."""
        return bool(self._links and self._obstacles)

    def record(self, data) -> bool:
        """Count the contacts of the state in ``data`` (after a step); return whether any."""
        touching: Optional[str] = None
        for contact in data.contact[:data.ncon]:
            pair = (int(contact.geom1), int(contact.geom2))
            link = self._links.get(pair[0]) or self._links.get(pair[1])
            obstacle = self._obstacles.get(pair[0]) or self._obstacles.get(pair[1])
            if link and obstacle:
                touching = f'{link} on {obstacle}'
                self.deepest = max(self.deepest, -float(contact.dist))
        if touching:
            self.steps += 1
            self.contacts += not self._touching
            self.last = touching
        self._touching = touching is not None
        return self._touching
