"""Tests of two_bone_ik.sim.views: the cameras, light and sky added to the model."""

import itertools

import mujoco
import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.urdf_export import arm_urdf
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.camera import CameraIntrinsics, optical_pose
from two_bone_ik.sim.views import add_views, FRONT_SIDE, reach, SIDE, TOP, VIEWS

ARMS = {'xy': ArmConfig(), 'xz': ArmConfig(plane='xz', link_lengths=(0.1, 0.08)),
        'raised': ArmConfig(plane='yz', shoulder_position=(0.2, 0.0, 0.5))}


def _spec(config):
    spec = mujoco.MjSpec.from_string(arm_urdf(config))
    spec.compiler.fusestatic = False
    spec.compiler.discardvisual = False
    return spec


def test_the_views_change_no_physics():
    # The same arm with and without the views, falling under gravity from the same pose:
    # the same bodies, joints and geoms, and the same motion to the last bit.
    plain, viewed = _spec(ARMS['xz']), _spec(ARMS['xz'])
    add_views(viewed, 'base_link', 'tool')
    models = [plain.compile(), viewed.compile()]
    for field in ('nbody', 'njnt', 'ngeom', 'nq', 'nv', 'nu', 'nsite'):
        assert getattr(models[0], field) == getattr(models[1], field), field
    assert (models[0].ncam, models[1].ncam) == (0, len(VIEWS))
    assert models[1].nlight == models[0].nlight + 1
    datas = [mujoco.MjData(m) for m in models]
    for model, data in zip(models, datas):
        data.qpos[:] = (0.3, -0.4)
        mujoco.mj_step(model, data, nstep=500)
    assert np.array_equal(datas[0].qpos, datas[1].qpos)
    assert np.array_equal(datas[0].qvel, datas[1].qvel)
    assert datas[0].qvel.any()  # it moved


@pytest.mark.parametrize('arm', sorted(ARMS))
def test_the_reach_is_the_chain_stretched(arm):
    config = ARMS[arm]
    area = reach(_spec(config), 'base_link', 'tool')
    shoulder = np.linalg.norm(config.shoulder_position)
    assert area.radius == pytest.approx(shoulder + sum(config.link_lengths), rel=1e-9)
    assert area.centre == (0.0, 0.0, 0.0)


@pytest.mark.parametrize('arm, camera', list(itertools.product(sorted(ARMS), sorted(VIEWS))))
def test_every_view_frames_the_whole_reach(arm, camera):
    # Every point of the reach sphere (the ends of its axes and diagonals) is in the picture,
    # and the sphere fills most of its height.
    sim = ArmSim(ARMS[arm])
    mujoco.mj_forward(sim.model, sim.data)
    cam = sim.model.camera(camera).id
    pose = optical_pose(sim.model, sim.data, cam, sim.model.body('base_link').id)
    intrinsics = CameraIntrinsics.from_fovy(sim.model.cam_fovy[cam], 640, 480)
    directions = [np.array(d) for d in itertools.product((-1, 0, 1), repeat=3) if any(d)]
    pixels = [intrinsics.project(pose.to_optical(sim.reach.radius * d / np.linalg.norm(d)))
              for d in directions]
    us, vs = zip(*pixels)
    assert 0 <= min(us) and max(us) <= 639 and 0 <= min(vs) and max(vs) <= 479
    assert max(vs) - min(vs) > 0.6 * 480


def test_the_views_look_from_where_their_names_say():
    sim = ArmSim(ARMS['xy'])
    mujoco.mj_forward(sim.model, sim.data)
    base = sim.model.body('base_link').id
    poses = {name: optical_pose(sim.model, sim.data, sim.model.camera(name).id, base)
             for name in VIEWS}
    # Each looks at the reach's centre (z forward) ...
    for pose in poses.values():
        x, y, z = pose.to_optical((0.0, 0.0, 0.0))
        assert abs(x) < 1e-9 and abs(y) < 1e-9 and z > 0.0
    # ... from in front, to the right and above; from the right, level; from above.
    x, y, z = poses[FRONT_SIDE].position
    assert x > 0.0 and y < 0.0 and z > 0.0
    x, y, z = poses[SIDE].position
    assert abs(x) < 1e-9 and y < 0.0 and abs(z) < 1e-9
    x, y, z = poses[TOP].position
    assert abs(x) < 1e-9 and abs(y) < 1e-9 and z > 0.0
    # Up is up: +z of base_frame goes up the side view's image (optical -y); the top view has
    # +x up the image and +y to the left.
    rotation = poses[SIDE].rotation()
    assert rotation.T @ np.array([0.0, 0.0, 1.0]) == pytest.approx([0.0, -1.0, 0.0], abs=1e-9)
    rotation = poses[TOP].rotation()
    assert rotation.T @ np.array([1.0, 0.0, 0.0]) == pytest.approx([0.0, -1.0, 0.0], abs=1e-9)
    assert rotation.T @ np.array([0.0, 1.0, 0.0]) == pytest.approx([-1.0, 0.0, 0.0], abs=1e-9)


def test_a_camera_name_the_model_has_already_is_refused():
    spec = _spec(ARMS['xy'])
    spec.body('base_link').add_camera(name=SIDE)
    with pytest.raises(ValueError, match="already has a camera named 'side'"):
        add_views(spec, 'base_link', 'tool')
