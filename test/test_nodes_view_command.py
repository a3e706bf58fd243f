"""Tests of two_bone_ik.nodes.view_command: ``two_bone_ik_view`` as a process.

A picture from a file (no ROS graph) and from the running IK node's parameters (the same
picture); a window in Xvfb that follows joint_states and ends the tool when closed; one line
and exit status 2 without a display.
"""

import subprocess
import sys

import imageio.v3 as imageio
import numpy as np
import pytest
from ros_harness import NodeProcess, REPO_ROOT, ros_environment, wait_until, write_params
from sensor_msgs.msg import JointState
from virtual_display import arm_pixels, changed_pixels, VirtualDisplay, without_display

MODULE = 'two_bone_ik.nodes.view_command'
ARM = {'link_lengths': [0.2, 0.15], 'plane': 'xz', 'joint_names': ['hip', 'knee']}
TIMEOUT = 60.0


def _view(args, domain, env_extra=None):
    code = f'import sys; from {MODULE} import main; sys.exit(main())'
    return subprocess.run([sys.executable, '-c', code, *args], capture_output=True, text=True,
                          env=ros_environment(domain, extra=env_extra), timeout=TIMEOUT)


@pytest.fixture(scope='module')
def params(tmp_path_factory):
    return write_params(tmp_path_factory.mktemp('view') / 'arm.yaml', ARM)


def test_a_picture_of_a_urdf_file_shows_the_joints_asked(domain, tmp_path):
    urdf = REPO_ROOT / 'demo' / 'desktop_arm.urdf'
    pictures = []
    for name, joints in (('zero', []), ('bent', ['0.5', '0.6', '-0.9'])):
        out = tmp_path / f'{name}.png'
        done = _view(['--urdf', str(urdf), '--tip', 'tool', '--render', str(out),
                      '--size', '160', '120', *(['--joints', *joints] if joints else [])],
                     domain, without_display())
        assert done.returncode == 0, done.stderr
        assert done.stderr.strip() == f'two_bone_ik_view: wrote {out} (160x120, camera ' \
                                      'front_side)'
        pictures.append(imageio.imread(out))
    assert pictures[0].shape == (120, 160, 3) and arm_pixels(pictures[0]) > 20
    assert changed_pixels(*pictures) > 50


def test_the_running_nodes_arm_is_the_one_its_params_file_gives(domain, params, tmp_path):
    common = ['--size', '160', '120', '--joints', '0.4', '-0.7', '--target', '0.2', '0', '0.1']
    from_file = tmp_path / 'file.png'
    done = _view(['--params-file', str(params), '--render', str(from_file), *common], domain)
    assert done.returncode == 0, done.stderr
    with NodeProcess('two_bone_ik', params_file=params, domain_id=domain, log_dir=tmp_path,
                     ros_args=['-r', '__ns:=/left'], name='ik_node') as node:
        from_node = tmp_path / 'node.png'
        done = _view(['--namespace', 'left', '--render', str(from_node), *common], domain)
        assert done.returncode == 0, done.stderr + node.output()
    assert np.array_equal(imageio.imread(from_file), imageio.imread(from_node))
    # No node: one line, exit status 2.
    done = _view(['--namespace', 'nobody', '--timeout', '2', '--render',
                  str(tmp_path / 'x.png')], domain)
    assert done.returncode == 2
    assert done.stderr.startswith('two_bone_ik_view: no node /nobody/two_bone_ik answered '
                                  'within 2 s'), done.stderr


@pytest.mark.parametrize('args, complaint', [
    (['--camera', 'wrist'], "camera: the model has no camera 'wrist'"),
    (['--size', '0', '10'], '--size: expected [width, height]'),
    (['--joints', '1', '2', '3'], '--joints: expected at most 2 positions'),
])
def test_what_cannot_be_rendered_is_one_line_and_exit_2(domain, params, tmp_path, args,
                                                        complaint):
    done = _view(['--params-file', str(params), '--render', str(tmp_path / 'x.png'), *args],
                 domain)
    assert done.returncode == 2 and complaint in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_without_a_display_the_window_is_refused_in_one_line(domain, params):
    done = _view(['--params-file', str(params)], domain, without_display())
    assert done.returncode == 2
    assert done.stderr.strip() == ('two_bone_ik_view: viewer: no display (DISPLAY and '
                                   'WAYLAND_DISPLAY are not set); use --render for a picture')


def test_the_window_follows_joint_states_and_closing_it_ends_the_tool(domain, probe, params,
                                                                      tmp_path):
    with VirtualDisplay(tmp_path) as display, NodeProcess(
            MODULE, args=['--params-file', str(params)], domain_id=domain, log_dir=tmp_path,
            env_extra=display.environment(), name='view') as view:
        states = probe.publisher(JointState, 'joint_states')
        window = display.wait_for_window('MuJoCo', processes={'view': view})
        wait_until(lambda: arm_pixels(display.screenshot(window)) > 100, 15.0,
                   what='the arm in the window', processes={'view': view})
        before = display.screenshot(window)
        probe.wait_for_subscribers(states)
        moved = JointState(name=['hip', 'knee'], position=[1.2, -1.8])

        def shows_it_moved():
            states.publish(moved)
            return changed_pixels(before, display.screenshot(window)) > 300
        wait_until(shows_it_moved, 15.0, what='the window to follow joint_states',
                   processes={'view': view})
        display.close_window(window)
        assert view.wait(15.0) == 0, view.output()
    assert 'Traceback' not in view.stderr, view.output()
