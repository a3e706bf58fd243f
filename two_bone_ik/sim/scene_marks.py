"""Marks drawn into a MuJoCo scene on top of the model: the target, a tool path (ROS-free).

They are decor geoms (``mjvGeom``) added to an ``mujoco.MjvScene`` after
``mjv_updateScene``: seen by the camera and in the viewer, never part of the model, so they
neither collide nor weigh anything. Points are given in ``base_frame`` (m) and placed with the
base body's pose in the data being drawn.
"""

from typing import Optional, Sequence

import mujoco
import numpy as np

#: The target marker's colour (RGBA): magenta, a colour nothing else in the scene has.
TARGET_RGBA = (1.0, 0.0, 1.0, 1.0)
#: The tool path's colour (RGBA).
PATH_RGBA = (0.9, 0.45, 0.0, 1.0)
#: The target marker's radius as a share of the reach (the scene's size).
TARGET_RADIUS_SHARE = 0.03
#: Most segments of a path drawn (a longer path is thinned evenly).
MAX_PATH_SEGMENTS = 400


def to_world(data, base_id: int, point) -> np.ndarray:
    """Return ``point`` (in the frame of body ``base_id``) in MuJoCo's world frame, m."""
    rotation = data.xmat[base_id].reshape(3, 3)
    return data.xpos[base_id] + rotation @ np.asarray(point, dtype=float)


def _next_geom(scene):
    if scene.ngeom >= scene.maxgeom:
        return None
    geom = scene.geoms[scene.ngeom]
    scene.ngeom += 1
    return geom


def mark_target(scene, data, base_id: int, target: Optional[Sequence[float]],
                radius: float) -> None:
    """Draw the target (``base_frame``, m) as a sphere of ``radius`` m; nothing for None."""
    if target is None:
        return
    geom = _next_geom(scene)
    if geom is None:
        return
    mujoco.mjv_initGeom(geom, mujoco.mjtGeom.mjGEOM_SPHERE, np.array([radius, 0.0, 0.0]),
                        to_world(data, base_id, target), np.eye(3).flatten(),
                        np.array(TARGET_RGBA, dtype=np.float32))
    geom.emission = 0.5
    geom.category = mujoco.mjtCatBit.mjCAT_DECOR


def mark_path(scene, data, base_id: int, points: Sequence[Sequence[float]],
              width: float) -> None:
    """Draw the polyline through ``points`` (``base_frame``, m) as capsules ``width`` m wide."""
    if len(points) < 2:
        return
    step = max(1, -(-(len(points) - 1) // MAX_PATH_SEGMENTS))
    kept = list(points[::step])
    if tuple(kept[-1]) != tuple(points[-1]):
        kept.append(points[-1])
    world = [to_world(data, base_id, p) for p in kept]
    for start, end in zip(world, world[1:]):
        geom = _next_geom(scene)
        if geom is None:
            return
        mujoco.mjv_initGeom(geom, mujoco.mjtGeom.mjGEOM_CAPSULE, np.zeros(3), np.zeros(3),
                            np.eye(3).flatten(), np.array(PATH_RGBA, dtype=np.float32))
        mujoco.mjv_connector(geom, mujoco.mjtGeom.mjGEOM_CAPSULE, width, start, end)
        geom.category = mujoco.mjtCatBit.mjCAT_DECOR
