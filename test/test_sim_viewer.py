"""Tests of two_bone_ik.sim.viewer: without a usable display one line, nothing else; closing.

The window itself is tested for real in a virtual display, through the node and the tool
(test_nodes_sim_render.py, test_nodes_view_command.py); here, that closing it from the program
closes it before close() returns.
"""

import math
import os
import subprocess
import sys

import numpy as np
import pytest
from ros_harness import REPO_ROOT, wait_until

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.render_feed import RenderFeed
from two_bone_ik.sim.viewer import ArmViewer, display_problem, free_camera_view


def test_a_display_is_one_of_x11_or_wayland():
    assert display_problem({}) == 'no display (DISPLAY and WAYLAND_DISPLAY are not set)'
    assert display_problem({'DISPLAY': '', 'WAYLAND_DISPLAY': ''}) is not None
    assert display_problem({'DISPLAY': ':0'}) is None
    assert display_problem({'WAYLAND_DISPLAY': 'wayland-0'}) is None


@pytest.mark.parametrize('environment, reason', [
    ({}, 'no display (DISPLAY and WAYLAND_DISPLAY are not set)'),
    ({'DISPLAY': ':189'}, 'cannot open an OpenGL window on :189: '),  # no X server there
])
def test_without_a_usable_display_one_line_and_the_thread_ends(monkeypatch, environment,
                                                               reason):
    monkeypatch.delenv('DISPLAY', raising=False)
    monkeypatch.delenv('WAYLAND_DISPLAY', raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    lines, problems = [], []
    viewer = ArmViewer(ArmSim(ArmConfig()).model, 'base_link', RenderFeed(), lines.append,
                       headless_note='the simulation runs on without it',
                       on_problem=problems.append)
    wait_until(lambda: not viewer.running, 30.0, what='the viewer thread to end')
    viewer.close()
    assert lines == [] and len(problems) == 1, problems
    assert problems[0].startswith(f'viewer: {reason}'), problems
    assert problems[0].endswith('; the simulation runs on without it')
    assert '\n' not in problems[0] and not viewer.opened
    assert viewer.settled.is_set()  # a node waiting for the window does not wait for good


def test_the_window_starts_as_the_front_side_camera_sees():
    sim = ArmSim(ArmConfig(plane='xz'))
    import mujoco
    mujoco.mj_forward(sim.model, sim.data)
    view = free_camera_view(sim.model, sim.data, 'front_side')
    camera = sim.model.camera('front_side').id
    forward = -sim.data.cam_xmat[camera].reshape(3, 3)[:, 2]
    # Looking along the camera's axis, from the camera's place, at the reach's centre.
    assert view['lookat'] == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)
    assert view['lookat'] - view['distance'] * forward == \
        pytest.approx(sim.data.cam_xpos[camera])
    assert view['azimuth'] == pytest.approx(math.degrees(math.atan2(forward[1], forward[0])))
    assert view['elevation'] == pytest.approx(-30.0)  # looking down at the arm
    assert np.isfinite(view['distance'])


CLOSE_SCRIPT = """
from Xlib import display as xdisplay
from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.render_feed import RenderFeed
from two_bone_ik.sim.viewer import ArmViewer
viewer = ArmViewer(ArmSim(ArmConfig()).model, 'base_link', RenderFeed(), print)
assert viewer.open.wait(30), 'the window did not open'
x = xdisplay.Display()
titled = lambda: [w for w in x.screen().root.query_tree().children
                  if (w.get_wm_name() or '').startswith('MuJoCo')]
print('windows while open', len(titled()), flush=True)
viewer.close()
print('windows after close', len(titled()), 'running', viewer.running, flush=True)
"""


def test_close_closes_the_window_before_it_returns(tmp_path):
    # What a node's Ctrl-C does: when close() returns, the window and MuJoCo's threads are
    # gone (the process may exit at once: exiting under them crashed it).
    from virtual_display import VirtualDisplay
    with VirtualDisplay(tmp_path) as display:
        env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), **display.environment())
        done = subprocess.run([sys.executable, '-c', CLOSE_SCRIPT], env=env,
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert 'windows while open 1' in done.stdout, done.stdout
    assert 'windows after close 0 running False' in done.stdout, done.stdout
