"""Tests of two_bone_ik.sim.scene_marks: the target and the path drawn into a scene."""

import mujoco
import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.scene_marks import mark_path, mark_target, MAX_PATH_SEGMENTS, TARGET_RGBA


@pytest.fixture(scope='module')
def sim():
    return ArmSim(ArmConfig(shoulder_position=(0.1, 0.0, 0.2)))


def test_the_target_is_a_sphere_placed_from_base_frame(sim):
    scene = mujoco.MjvScene(sim.model, maxgeom=10)
    base = sim.model.body('base_link').id
    mark_target(scene, sim.data, base, None, 0.02)
    assert scene.ngeom == 0
    mark_target(scene, sim.data, base, (0.3, -0.1, 0.05), 0.02)
    geom = scene.geoms[0]
    assert scene.ngeom == 1 and geom.type == mujoco.mjtGeom.mjGEOM_SPHERE
    assert geom.pos.tolist() == pytest.approx([0.3, -0.1, 0.05])  # base_link is the world
    assert geom.size[0] == pytest.approx(0.02) and tuple(geom.rgba) == TARGET_RGBA


def test_a_long_path_is_thinned_and_a_full_scene_takes_no_more(sim):
    base = sim.model.body('base_link').id
    points = [(0.001 * i, 0.0, 0.0) for i in range(2001)]
    scene = mujoco.MjvScene(sim.model, maxgeom=1000)
    mark_path(scene, sim.data, base, points, 0.004)
    assert 0 < scene.ngeom <= MAX_PATH_SEGMENTS + 1
    ends = [scene.geoms[i].pos for i in range(scene.ngeom)]
    assert np.min(ends, axis=0)[0] < 0.01 and np.max(ends, axis=0)[0] > 1.99  # end to end
    small = mujoco.MjvScene(sim.model, maxgeom=3)
    mark_path(small, sim.data, base, points, 0.004)
    mark_target(small, sim.data, base, (0, 0, 0), 0.01)
    assert small.ngeom == 3
