"""What the simulated arm is seen with: fixed cameras framing its reach, a light, a sky (ROS-free).

:func:`add_views` adds to an ``mujoco.MjSpec`` (before it is compiled) only things that render:

- three fixed cameras on the ``base_frame`` body, each framing the sphere the arm can reach
  (centred on ``base_frame``'s origin, radius the sum of the distances between the frames of
  the chain from ``base_frame`` to ``tip_frame``, plus a margin): :data:`FRONT_SIDE` (the
  default view: in front of the arm, to its right and above it), :data:`SIDE` (from -y, level:
  x to the right, z up) and :data:`TOP` (from above: x up the image, y to the left);
- a directional light from above, behind the front-side camera;
- a gradient sky behind everything.

None of them has mass, collides or changes the physics: the compiled model's bodies, joints,
geoms and actuators are those without them (tested). Up is +z of ``base_frame`` (REP 103).

MuJoCo cameras look along their -z axis with +y up the image. Lengths are metres.
"""

import math
from typing import NamedTuple, Tuple

import mujoco
import numpy as np

from two_bone_ik.sim.defaults import DEFAULT_CAMERA

#: The default view: in front of the arm (+x), to its right (-y), above it.
FRONT_SIDE = DEFAULT_CAMERA
#: From the arm's right (-y), level: x to the right of the image, z up.
SIDE = 'side'
#: From above: x up the image, y to its left.
TOP = 'top'

#: The cameras :func:`add_views` adds: name -> (azimuth from +x toward +y, elevation), degrees,
#: of the direction from the reach's centre to the camera.
VIEWS = {FRONT_SIDE: (-55.0, 30.0), SIDE: (-90.0, 0.0), TOP: (0.0, 90.0)}

#: Vertical field of view of the added cameras, degrees (MuJoCo's default).
FOVY = 45.0

#: The reach sphere's radius is enlarged by this factor for framing (room around the arm).
MARGIN = 1.08

#: Sky colours, top and bottom (RGB 0..1).
SKY_TOP, SKY_BOTTOM = (0.55, 0.68, 0.82), (0.93, 0.94, 0.95)


class Reach(NamedTuple):
    """The sphere an arm can reach: ``centre`` in ``base_frame`` (m) and ``radius`` (m)."""

    centre: Tuple[float, float, float]
    radius: float


def reach(spec, base_frame: str, tip_frame: str) -> Reach:
    """Return the sphere around ``base_frame``'s origin that holds every pose of the chain.

    The radius is the sum of the distances between successive body frames from ``base_frame``
    to ``tip_frame`` at the zero pose (no pose of the chain reaches further), at least 1 cm.
    ``spec`` is compiled on a copy; it is not changed.
    """
    model = spec.copy().compile()
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    base, body = (_body_id(model, base_frame, 'base_frame'),
                  _body_id(model, tip_frame, 'tip_frame'))
    radius = 0.0
    while body not in (base, 0):
        parent = int(model.body_parentid[body])
        radius += float(np.linalg.norm(data.xpos[body] - data.xpos[parent]))
        body = parent
    return Reach((0.0, 0.0, 0.0), max(radius, 0.01))


def _body_id(model, name: str, what: str) -> int:
    try:
        return model.body(name).id
    except KeyError:
        raise ValueError(f'{what}: the simulated model has no link {name!r}') from None


def _direction(azimuth: float, elevation: float) -> np.ndarray:
    a, e = math.radians(azimuth), math.radians(elevation)
    return np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])


def view_pose(area: Reach, azimuth: float, elevation: float,
              fovy: float = FOVY) -> Tuple[np.ndarray, np.ndarray]:
    """Return the position and quaternion (w, x, y, z) of a camera framing ``area``.

    The camera is on the line from the centre at ``azimuth``/``elevation`` (degrees), far
    enough for the sphere (times :data:`MARGIN`) to fit the vertical field of view ``fovy``,
    looking at the centre with +z up the image (+x up the image when looking straight down).
    """
    back = _direction(azimuth, elevation)  # the camera's +z: from the centre to the camera
    distance = MARGIN * area.radius / math.sin(math.radians(fovy) / 2.0)
    up = np.array([0.0, 0.0, 1.0]) if abs(back[2]) < 0.999 else np.array([1.0, 0.0, 0.0])
    right = np.cross(up, back)
    right /= np.linalg.norm(right)
    image_up = np.cross(back, right)
    rotation = np.column_stack([right, image_up, back])
    quaternion = np.empty(4)
    mujoco.mju_mat2Quat(quaternion, rotation.flatten())
    return np.asarray(area.centre) + distance * back, quaternion


def add_views(spec, base_frame: str, tip_frame: str) -> Reach:
    """Add the cameras of :data:`VIEWS`, a light and a sky to ``spec``; return the reach framed.

    Raises
    ------
    ValueError
        If ``spec`` has no body ``base_frame`` or ``tip_frame``, or already a camera of one of
        those names.
    """
    area = reach(spec, base_frame, tip_frame)
    taken = {camera.name for camera in spec.cameras}
    base = spec.body(base_frame)
    for name, (azimuth, elevation) in VIEWS.items():
        if name in taken:
            raise ValueError(f'the model already has a camera named {name!r}')
        position, quaternion = view_pose(area, azimuth, elevation)
        base.add_camera(name=name, pos=position, quat=quaternion, fovy=FOVY)
    light = base.add_light()
    light.type = mujoco.mjtLightType.mjLIGHT_DIRECTIONAL
    light.dir = -_direction(-35.0, 60.0)
    light.diffuse = [0.6, 0.6, 0.6]
    light.specular = [0.2, 0.2, 0.2]
    light.castshadow = False
    sky = spec.add_texture()
    sky.name = 'two_bone_ik_sky'
    sky.type = mujoco.mjtTexture.mjTEXTURE_SKYBOX
    sky.builtin = mujoco.mjtBuiltin.mjBUILTIN_GRADIENT
    sky.rgb1, sky.rgb2 = list(SKY_TOP), list(SKY_BOTTOM)
    sky.width, sky.height = 64, 384
    return area
