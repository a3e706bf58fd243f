"""The simulated arm's camera: offscreen pictures, their intrinsics, its optical frame (ROS-free).

- :class:`CameraIntrinsics`: the pinhole model of a MuJoCo camera rendered at a size: square
  pixels, focal length from the vertical field of view, the principal point at the image
  centre, no distortion; pixel coordinates as ROS's ``image_geometry`` counts them (the centre
  of the top-left pixel is (0, 0)), so ``(u, v) = (fx x / z + cx, fy y / z + cy)`` for a point
  (x, y, z) of the optical frame.
- :func:`optical_pose`: where the camera's optical frame is in ``base_frame`` (REP 103: z
  forward, x right, y down the image; a MuJoCo camera looks along its -z with y up).
- :class:`OffscreenCamera`: renders the arm at given joint positions, with the target marker
  and a tool path when given, to an RGB array (rows top to bottom), through a headless OpenGL
  context of its own (:mod:`two_bone_ik.sim.gl_backend`). One camera is used by one thread.

Lengths are metres, angles degrees (``fovy``) or radians, images ``uint8`` (height, width, 3).
"""

import copy
import math
from typing import NamedTuple, Optional, Sequence, Tuple

import mujoco
import numpy as np

from two_bone_ik.sim.gl_backend import gl_context
from two_bone_ik.sim.scene_marks import mark_path, mark_target, TARGET_RADIUS_SHARE
from two_bone_ik.sim.views import FRONT_SIDE

#: Largest image side rendered, pixels.
MAX_SIDE = 4096

#: The optical frame in the MuJoCo camera's frame: x the same, y and z reversed.
_OPTICAL = np.diag([1.0, -1.0, -1.0])


class CameraIntrinsics(NamedTuple):
    """A pinhole camera: image size (pixels), focal lengths and principal point (pixels)."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float

    @classmethod
    def from_fovy(cls, fovy: float, width: int, height: int) -> 'CameraIntrinsics':
        """Return the intrinsics of a camera with vertical field of view ``fovy`` (degrees)."""
        focal = (height / 2.0) / math.tan(math.radians(fovy) / 2.0)
        return cls(int(width), int(height), focal, focal, (width - 1) / 2.0,
                   (height - 1) / 2.0)

    @property
    def k(self) -> Tuple[float, ...]:
        """The 3x3 camera matrix, row-major (``sensor_msgs/CameraInfo.k``)."""
        return (self.fx, 0.0, self.cx, 0.0, self.fy, self.cy, 0.0, 0.0, 1.0)

    @property
    def p(self) -> Tuple[float, ...]:
        """The 3x4 projection matrix, row-major (``sensor_msgs/CameraInfo.p``)."""
        return (self.fx, 0.0, self.cx, 0.0, 0.0, self.fy, self.cy, 0.0, 0.0, 0.0, 1.0, 0.0)

    def project(self, point: Sequence[float]) -> Tuple[float, float]:
        """Return the pixel (u, v) of a point of the optical frame (z > 0), m."""
        x, y, z = (float(v) for v in point)
        return self.fx * x / z + self.cx, self.fy * y / z + self.cy


class CameraPose(NamedTuple):
    """The optical frame in ``base_frame``: origin (m) and quaternion (w, x, y, z)."""

    position: Tuple[float, float, float]
    quaternion: Tuple[float, float, float, float]

    def rotation(self) -> np.ndarray:
        """Return the rotation matrix (optical frame axes as columns), shape (3, 3)."""
        matrix = np.empty(9)
        mujoco.mju_quat2Mat(matrix, np.asarray(self.quaternion, dtype=float))
        return matrix.reshape(3, 3)

    def to_optical(self, point: Sequence[float]) -> np.ndarray:
        """Return a point of ``base_frame`` (m) in the optical frame, m."""
        return self.rotation().T @ (np.asarray(point, dtype=float) - self.position)


def optical_pose(model, data, camera_id: int, base_id: int) -> CameraPose:
    """Return the optical frame of camera ``camera_id`` in the frame of body ``base_id``.

    ``data`` must have its camera poses computed (``mj_camlight`` after the kinematics).
    """
    base = data.xmat[base_id].reshape(3, 3)
    position = base.T @ (data.cam_xpos[camera_id] - data.xpos[base_id])
    rotation = base.T @ data.cam_xmat[camera_id].reshape(3, 3) @ _OPTICAL
    quaternion = np.empty(4)
    mujoco.mju_mat2Quat(quaternion, rotation.flatten())
    if quaternion[0] < 0.0:
        quaternion = -quaternion  # the same rotation, w >= 0
    return CameraPose(tuple(float(v) for v in position), tuple(float(v) for v in quaternion))


def camera_names(model) -> Tuple[str, ...]:
    """Return the names of the model's cameras, in order."""
    return tuple(model.camera(i).name for i in range(model.ncam))


def check_camera(model, camera: str) -> int:
    """Return the id of camera ``camera`` of ``model``.

    Raises
    ------
    ValueError
        If the model has no camera of that name; the message lists those it has.
    """
    names = camera_names(model)
    if camera not in names:
        listed = ', '.join(names) or 'none'
        raise ValueError(f'camera: the model has no camera {camera!r} (its cameras: {listed})')
    return names.index(camera)


def check_size(size: Sequence[int]) -> Tuple[int, int]:
    """Return ``(width, height)``.

    Raises
    ------
    ValueError
        If ``size`` is not two whole numbers from 1 to :data:`MAX_SIDE`.
    """
    values = list(size)
    if len(values) != 2 or not all(isinstance(v, (int, np.integer)) and 1 <= v <= MAX_SIDE
                                   for v in values):
        raise ValueError(f'camera_size: expected [width, height], each 1 to {MAX_SIDE} '
                         f'pixels, got {values!r}')
    return int(values[0]), int(values[1])


def _render_model(model, width: int, height: int):
    """Return a copy of ``model`` whose offscreen buffer holds ``width`` x ``height``."""
    copied = copy.deepcopy(model)
    copied.vis.global_.offwidth = max(int(copied.vis.global_.offwidth), width)
    copied.vis.global_.offheight = max(int(copied.vis.global_.offheight), height)
    return copied


class OffscreenCamera:
    """Renders a model's camera offscreen (see the module docstring).

    Parameters
    ----------
    model : mujoco.MjModel
        The simulated arm's model (copied: the camera never touches it).
    base_frame : str
        The body targets and paths are given in, and the pose is expressed in.
    size : (int, int)
        Width and height of the images, pixels.
    camera : str
        A camera of the model.
    marker_radius : float, optional
        Radius of the target marker, m (default: a share of the framed reach).
    backend : str, optional
        ``'egl'`` or ``'osmesa'`` (default: :func:`~two_bone_ik.sim.gl_backend.choose_backend`).

    Raises
    ------
    ValueError
        If the size or the camera is invalid.
    RenderUnavailable
        If no headless OpenGL works here.
    """

    def __init__(self, model, base_frame: str, size: Sequence[int], camera: str = FRONT_SIDE,
                 marker_radius: Optional[float] = None, backend: Optional[str] = None):
        width, height = check_size(size)
        self._camera_id = check_camera(model, camera)
        self.model = _render_model(model, width, height)
        self.data = mujoco.MjData(self.model)
        self._base = self.model.body(base_frame).id
        #: The pinhole model of the images.
        self.intrinsics = CameraIntrinsics.from_fovy(
            float(self.model.cam_fovy[self._camera_id]), width, height)
        self._marker_radius = marker_radius or TARGET_RADIUS_SHARE * float(
            self.model.stat.extent)
        self._context = gl_context(width, height, backend)
        self._mjr = mujoco.MjrContext(self.model, mujoco.mjtFontScale.mjFONTSCALE_100)
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self._mjr)
        self._scene = mujoco.MjvScene(self.model, maxgeom=2000)
        self._view = mujoco.MjvCamera()
        self._view.type = mujoco.mjtCamera.mjCAMERA_FIXED
        self._view.fixedcamid = self._camera_id
        self._options = mujoco.MjvOption()
        self._rect = mujoco.MjrRect(0, 0, width, height)
        self._pixels = np.empty((height, width, 3), dtype=np.uint8)

    def pose(self, qpos: Optional[Sequence[float]] = None) -> CameraPose:
        """Return the optical frame in ``base_frame`` at joint positions ``qpos`` (full)."""
        self._pose_data(qpos)
        return optical_pose(self.model, self.data, self._camera_id, self._base)

    def _pose_data(self, qpos) -> None:
        if qpos is not None:
            self.data.qpos[:] = qpos
        mujoco.mj_kinematics(self.model, self.data)
        mujoco.mj_comPos(self.model, self.data)
        mujoco.mj_camlight(self.model, self.data)

    def warm_up(self) -> None:
        """Render once, unseen: the first picture compiles the shaders (slow, once)."""
        self.render(self.data.qpos.copy())

    def render(self, qpos: Sequence[float], target: Optional[Sequence[float]] = None,
               path: Sequence[Sequence[float]] = (), path_width: float = 0.004,
               targets: Sequence[Sequence[float]] = ()) -> np.ndarray:
        """Return the picture at ``qpos`` (the model's whole ``qpos``), shape (h, w, 3).

        ``target`` (``base_frame``, m) is drawn as the marker, and so is each of ``targets``;
        ``path`` as a polyline ``path_width`` m wide.
        """
        self._context.make_current()
        self._pose_data(qpos)
        mujoco.mjv_updateScene(self.model, self.data, self._options, None, self._view,
                               mujoco.mjtCatBit.mjCAT_ALL, self._scene)
        mark_path(self._scene, self.data, self._base, path, path_width)
        for point in (*targets, target):
            mark_target(self._scene, self.data, self._base, point, self._marker_radius)
        mujoco.mjr_render(self._rect, self._scene, self._mjr)
        mujoco.mjr_readPixels(self._pixels, None, self._rect, self._mjr)
        return np.flipud(self._pixels).copy()

    def close(self) -> None:
        """Free the OpenGL context (the camera cannot render afterwards)."""
        if self._context is not None:
            self._mjr.free()
            self._context.free()
            self._context = None
