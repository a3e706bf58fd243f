"""Tests of demo/sim_pictures.py: the demos' rendered animation and still, on a made-up run."""

import importlib.util
import math

import imageio.v3 as imageio
import numpy as np
import pytest
from ros_harness import REPO_ROOT

from two_bone_ik.arm.config import ArmConfig


def _load():
    spec = importlib.util.spec_from_file_location(
        'sim_pictures', REPO_ROOT / 'demo' / 'sim_pictures.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pictures = _load()


def test_a_run_becomes_an_animation_of_the_arm_and_a_still_with_targets_and_path(tmp_path):
    config = ArmConfig(plane='xz')
    states = [(t, (0.8 * math.sin(t), -0.6)) for t in np.arange(0.0, 2.0, 0.02)]
    targets = [(0.0, (0.4, 0.0, 0.1)), (1.0, (0.2, 0.0, 0.35))]
    path = [(t, (0.3, 0.0, 0.1 * t)) for t in np.arange(0.0, 2.0, 0.1)]
    output = tmp_path / 'demo.png'
    assert pictures.render_run(config, states, output, targets, path) is None
    animation, still = pictures.picture_paths(output)
    assert (animation.name, still.name) == ('demo.gif', 'demo_still.png')
    frames = imageio.imread(animation, index=None)
    assert len(frames) == 20  # 2 s at 10 frames a second
    moving = np.abs(frames[0].astype(int) - frames[10].astype(int)).sum(axis=-1) > 40
    assert moving.sum() > 100  # the arm moved between them
    image = imageio.imread(still)
    r, g, b = (image[:, :, i].astype(int) for i in range(3))
    assert ((r > 150) & (b > 150) & (g < 110)).sum() > 20  # the targets' markers
    assert ((r > 150) & (b < 80) & (g > 60) & (g < 160)).sum() > 20  # the orange path
    # Cropped to what moved: smaller than rendered, 4:3.
    height, width = image.shape[:2]
    assert width < pictures.STILL_SIZE[0] and width / height == pytest.approx(4 / 3, abs=0.02)
    assert pictures.rendered_line(output, None) == (
        f"rendered from the sim's camera: {animation}, {still}")


def test_the_crop_holds_everything_that_is_not_sky():
    sky = np.full((100, 200, 3), 200, np.uint8)
    arm = sky.copy()
    arm[40:60, 90:110] = (30, 60, 200)
    top, bottom, left, right = pictures.crop_box([sky, arm])
    assert top <= 40 and bottom >= 60 and left <= 90 and right >= 110
    assert (right - left) / (bottom - top) == pytest.approx(4 / 3, abs=0.05)
    assert pictures.crop_box([sky]) == (0, 100, 0, 200)  # nothing: everything


def test_without_headless_opengl_nothing_is_written_and_the_line_says_why(
        tmp_path, monkeypatch):
    from two_bone_ik.sim import camera
    from two_bone_ik.sim.gl_backend import RenderUnavailable

    def unavailable(*args, **kwargs):
        raise RenderUnavailable('no headless OpenGL: EGL: EGL finds no device')
    monkeypatch.setattr(camera, 'gl_context', unavailable)
    output = tmp_path / 'demo.png'
    reason = pictures.render_run(ArmConfig(), [(0.0, (0.0, 0.0))], output)
    assert reason == 'no headless OpenGL: EGL: EGL finds no device'
    assert not any(p.exists() for p in pictures.picture_paths(output))
    assert pictures.rendered_line(output, reason) == (
        'no rendered pictures (no headless OpenGL: EGL: EGL finds no device); the figure '
        'above stands')
