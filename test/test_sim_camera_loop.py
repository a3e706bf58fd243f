"""Tests of two_bone_ik.sim.camera_loop: the camera's own thread (with a stand-in camera)."""

import threading

import numpy as np
from ros_harness import wait_until

from two_bone_ik.sim.camera_loop import CameraLoop
from two_bone_ik.sim.gl_backend import RenderUnavailable
from two_bone_ik.sim.render_feed import RenderFeed


class _Camera:
    """Records what it renders, and in which thread; closed at the end."""

    def __init__(self):
        self.rendered, self.threads, self.closed, self.warmed = [], set(), False, False

    def warm_up(self):
        self.warmed = True

    def render(self, qpos, target):
        self.rendered.append((qpos.tolist(), target))
        self.threads.add(threading.current_thread().name)
        return np.zeros((2, 3, 3), np.uint8)

    def close(self):
        self.closed = True


def test_each_new_state_is_rendered_once_in_the_loops_thread():
    feed, camera, frames, failures = RenderFeed(), _Camera(), [], []
    loop = CameraLoop(lambda: camera, feed, 200.0,
                      lambda image, snapshot, cam: frames.append((snapshot.sequence, cam)),
                      failures.append)
    try:
        assert loop.ready.wait(10.0) and camera.warmed  # before any state was offered
        feed.set_target((1.0, 2.0, 3.0))
        feed.offer(np.array([0.5]), 'a')
        wait_until(lambda: frames, 10.0, what='the first frame')
        feed.offer(np.array([0.7]), 'b')
        wait_until(lambda: len(frames) >= 2, 10.0, what='the second frame')
    finally:
        loop.stop()
    assert not loop.running and camera.closed
    # Nothing new between the offers: no frame repeated.
    assert [sequence for sequence, _ in frames] == [1, 2]
    assert camera.rendered == [([0.5], (1.0, 2.0, 3.0)), ([0.7], (1.0, 2.0, 3.0))]
    assert camera.threads == {'sim camera'} and frames[0][1] is camera
    assert failures == [] and loop.frames == 2


def test_a_camera_that_cannot_be_made_says_so_once_and_the_loop_ends():
    failures = []

    def unavailable():
        raise RenderUnavailable('no headless OpenGL: EGL: EGL finds no device')
    loop = CameraLoop(unavailable, RenderFeed(), 10.0, None, failures.append)
    wait_until(lambda: not loop.running, 10.0, what='the loop to end')
    assert failures == ['no headless OpenGL: EGL: EGL finds no device']
    assert loop.ready.is_set()  # nobody waits for good


def test_a_frame_that_fails_ends_only_the_camera():
    feed, camera, failures = RenderFeed(), _Camera(), []

    def broken(image, snapshot, cam):
        raise RuntimeError('publisher gone')
    loop = CameraLoop(lambda: camera, feed, 100.0, broken, failures.append)
    feed.offer(np.array([0.0]), None)
    wait_until(lambda: not loop.running, 10.0, what='the loop to end')
    assert failures == ['RuntimeError: publisher gone'] and camera.closed
