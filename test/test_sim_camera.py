"""Tests of two_bone_ik.sim.camera: intrinsics, the optical frame, and what the pictures show.

The pictures are rendered for real (headless EGL, as on every machine this project runs on),
small, and checked for content: the arm's pixels, the marker where the intrinsics put it.
"""

import math

import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.camera import CameraIntrinsics, CameraPose, check_camera, check_size
from two_bone_ik.sim.camera import OffscreenCamera
from two_bone_ik.sim.workspace_geometry import SimWorkspace
from two_bone_ik.workspace.obstacles import Box, Obstacles

ARM = ArmConfig(plane='xz')


def marker_pixels(image):
    """Return the (u, v) of the pixels of the target marker's colour (magenta, TARGET_RGBA)."""
    r, g, b = (image[:, :, i].astype(int) for i in range(3))
    v, u = np.nonzero((r > 150) & (b > 150) & (g < 110))
    return u, v


@pytest.fixture(scope='module')
def sim():
    return ArmSim(ARM)


@pytest.fixture(scope='module')
def camera(sim):
    camera = OffscreenCamera(sim.model, 'base_link', (200, 150))
    yield camera
    camera.close()


def test_the_intrinsics_come_from_the_field_of_view():
    intrinsics = CameraIntrinsics.from_fovy(90.0, 640, 480)
    assert intrinsics.fy == pytest.approx(240.0) and intrinsics.fx == intrinsics.fy
    assert (intrinsics.cx, intrinsics.cy) == (319.5, 239.5)  # pixel centres count from 0
    assert intrinsics.project((0.0, 0.0, 2.0)) == (319.5, 239.5)
    # 45 degrees off the axis: the edge of the picture, half a pixel outside the last centre.
    assert intrinsics.project((0.0, 1.0, 1.0))[1] == pytest.approx(479.5)
    assert intrinsics.k == pytest.approx((240.0, 0.0, 319.5, 0.0, 240.0, 239.5, 0.0, 0.0, 1.0))
    assert intrinsics.p[:3] == intrinsics.k[:3] and intrinsics.p[3] == 0.0
    assert intrinsics.p[4:7] == intrinsics.k[3:6] and intrinsics.p[8:] == (0.0, 0.0, 1.0, 0.0)


def test_the_optical_frame_is_rep_103(camera):
    # z forward (the reach's centre ahead), x to the right, y down the picture.
    pose = camera.pose()
    rotation = pose.rotation()
    assert rotation.T @ rotation == pytest.approx(np.eye(3), abs=1e-12)
    assert np.linalg.det(rotation) == pytest.approx(1.0)
    assert pose.quaternion[0] >= 0.0
    intrinsics = camera.intrinsics
    u, v = intrinsics.project(pose.to_optical((0.0, 0.0, 0.0)))
    assert (u, v) == pytest.approx((intrinsics.cx, intrinsics.cy), abs=1e-6)
    up = intrinsics.project(pose.to_optical((0.0, 0.0, 0.2)))
    assert up[1] < v  # up in the world is up the picture
    camera_position = np.array(pose.position)
    ahead = pose.to_optical(camera_position + rotation[:, 2])
    assert ahead == pytest.approx([0.0, 0.0, 1.0])
    assert CameraPose((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)).to_optical((1, 2, 3)) == \
        pytest.approx([1.0, 2.0, 3.0])


def test_the_picture_has_its_size_and_shows_the_arm_move(sim, camera):
    qpos = sim.data.qpos.copy()
    first = camera.render(qpos)
    assert first.shape == (150, 200, 3) and first.dtype == np.uint8
    assert np.array_equal(camera.render(qpos), first)  # the same state, the same picture
    qpos[:2] = (1.2, -1.5)
    moved = camera.render(qpos)
    changed = (np.abs(moved.astype(int) - first.astype(int)).sum(axis=2) > 40).sum()
    assert changed > 100, changed
    # The arm (blue links) is there, and the sky is not one colour of it.
    assert (first[:, :, 2].astype(int) - first[:, :, 0] > 60).sum() > 50


@pytest.mark.parametrize('view', ['front_side', 'side', 'top'])
@pytest.mark.parametrize('target', [(0.35, 0.1, 0.3), (-0.2, -0.3, 0.1), (0.1, 0.2, -0.4)])
def test_the_marker_is_where_the_intrinsics_project_the_target(sim, view, target):
    camera = OffscreenCamera(sim.model, 'base_link', (240, 180), view)
    try:
        qpos = sim.data.qpos.copy()
        qpos[:2] = (-2.0, 0.0)  # the arm out of the way
        image = camera.render(qpos, target)
        u, v = marker_pixels(image)
        assert len(u) > 4, 'no marker in the picture'
        expected = camera.intrinsics.project(camera.pose(qpos).to_optical(target))
        assert math.dist((u.mean(), v.mean()), expected) <= 3.0
        assert len(marker_pixels(camera.render(qpos))[0]) == 0  # no target, no marker
    finally:
        camera.close()


def test_the_size_and_the_camera_are_checked(sim):
    assert check_size([640, 480]) == (640, 480)
    for bad in ([640], [0, 480], [640, 5000], [640.0, 480]):
        with pytest.raises(ValueError, match=r'camera_size: expected \[width, height\]'):
            check_size(bad)
    assert check_camera(sim.model, 'top') == sim.model.camera('top').id
    with pytest.raises(ValueError, match=r"no camera 'wrist' \(its cameras: front_side, side, "):
        check_camera(sim.model, 'wrist')
    with pytest.raises(ValueError, match='camera_size'):
        OffscreenCamera(sim.model, 'base_link', (0, 10))


def test_the_render_copy_leaves_the_simulation_alone(sim):
    before = (sim.data.qpos.copy(), sim.model.vis.global_.offwidth)
    camera = OffscreenCamera(sim.model, 'base_link', (1200, 900))
    try:
        camera.render(np.array([0.5, 0.5]))
    finally:
        camera.close()
    assert np.array_equal(sim.data.qpos, before[0])
    assert sim.model.vis.global_.offwidth == before[1]


def test_the_table_and_a_box_are_in_the_picture_where_the_camera_projects_them():
    box = Box((0.25, -0.25, -0.05), (0.35, -0.15, 0.05), 1)
    pictures = {}
    for name, obstacles in (('none', Obstacles(-math.inf, ())),
                            ('floor', Obstacles(-0.3, ())), ('box', Obstacles(-0.3, (box,)))):
        sim = ArmSim(ARM, workspace=SimWorkspace(obstacles, (0.0, 0.0)))
        camera = OffscreenCamera(sim.model, 'base_link', (240, 180))
        try:
            qpos = sim.data.qpos.copy()
            qpos[:2] = (-2.0, 0.0)  # the arm out of the way
            pictures[name] = camera.render(qpos).astype(int)
            pose = camera.pose(qpos)
        finally:
            camera.close()

    def changed(a, b):
        return np.abs(pictures[a] - pictures[b]).sum(axis=2) > 30

    def pixel(point):
        return tuple(int(round(c)) for c in camera.intrinsics.project(pose.to_optical(point)))
    # The table: the picture changes where the camera sees the floor plane.
    u, v = pixel((0.0, 0.4, -0.3))
    assert changed('floor', 'none')[max(v - 3, 0):v + 4, max(u - 3, 0):u + 4].any()
    # The box: it changes the picture at its projection, redder, and nowhere outside it.
    box_pixels = changed('box', 'floor')
    u, v = pixel((0.3, -0.2, 0.0))
    assert box_pixels[v, u]
    assert (pictures['box'][v, u, 0] - pictures['box'][v, u, 2]
            > pictures['floor'][v, u, 0] - pictures['floor'][v, u, 2])
    corners = np.array([pixel((x, y, z)) for x in (0.25, 0.35) for y in (-0.25, -0.15)
                        for z in (-0.05, 0.05)])
    (u0, v0), (u1, v1) = corners.min(axis=0) - 3, corners.max(axis=0) + 3
    outside = box_pixels.copy()
    outside[max(v0, 0):v1 + 1, max(u0, 0):u1 + 1] = False
    assert box_pixels.sum() > 20 and outside.sum() <= 5, outside.sum()
