"""The sim node's pictures as a real process: the camera topics over DDS, the viewer in Xvfb.

Checked for content, not only existence: the pictures' size and encoding are the parameters',
each is stamped as a joint_states message, the arm's pixels change when it moves, the target
marker is where camera_info and camera/pose project the target (within 3 px); the window
opens in a virtual display, shows the arm and follows it, closing it leaves the sim running,
Ctrl-C ends both; without a display one line, and the sim runs on.
"""

import math
import signal

from geometry_msgs.msg import PoseStamped
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import NodeProcess, wait_until, write_params
from sensor_msgs.msg import CameraInfo, Image, JointState
from virtual_display import arm_pixels, changed_pixels, VirtualDisplay, without_display

MODULE = 'two_bone_ik.nodes.sim_node'
SHOULDER, ELBOW = 'shoulder_joint', 'elbow_joint'
WIDTH, HEIGHT = 200, 150
#: A target away from the arm at its zero pose (along +x), m in base_link.
TARGET = (0.15, 0.35, 0.05)
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


def _image(msg):
    return np.frombuffer(bytes(msg.data), np.uint8).reshape(msg.height, msg.width, 3)


def _marker_centroid(image):
    r, g, b = (image[:, :, i].astype(int) for i in range(3))
    v, u = np.nonzero((r > 150) & (b > 150) & (g < 110))
    return (u.mean(), v.mean()) if len(u) > 3 else None


def _project(point, pose, info):
    """Project a point of base_link through camera/pose and camera_info's P, as a user would."""
    q = pose.pose.orientation
    w, x, y, z = q.w, q.x, q.y, q.z
    rotation = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    p = pose.pose.position
    optical = rotation.T @ (np.asarray(point) - np.array([p.x, p.y, p.z]))
    u, v, s = np.array(info.p).reshape(3, 4) @ np.append(optical, 1.0)
    return u / s, v / s


def _seconds(msg):
    return msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec


def _command(positions):
    return JointState(name=[SHOULDER, ELBOW], position=[float(v) for v in positions])


def _at(positions):
    return lambda m: all(abs(a - b) < 2e-3 for a, b in zip(m.position, positions))


@pytest.fixture(scope='module')
def display(tmp_path_factory):
    with VirtualDisplay(tmp_path_factory.mktemp('xvfb')) as display:
        yield display


def test_the_camera_shows_the_arm_and_marks_the_target_where_camera_info_projects_it(
        domain, probe, tmp_path):
    params = write_params(tmp_path / 'arm.yaml', {'plane': 'xy'})
    ros_args = ['-p', f'arm_params_file:={params}', '-p', 'camera_rate:=20.0',
                '-p', f'camera_size:=[{WIDTH},{HEIGHT}]']
    with NodeProcess(MODULE, ros_args=ros_args, domain_id=domain, log_dir=tmp_path,
                     env_extra=without_display(), name='sim') as node:
        images = probe.collect(Image, 'camera/image_raw')
        infos = probe.collect(CameraInfo, 'camera/camera_info')
        poses = probe.collect(PoseStamped, 'camera/pose', LATCHED)
        states = probe.collect(JointState, 'joint_states')
        commands = probe.publisher(JointState, 'joint_commands')
        targets = probe.publisher(PoseStamped, 'target_pose')
        probe.wait_for_subscribers(targets)
        first = images.wait_for_count(1)[0]
        info, pose = infos.wait_for_count(1)[0], poses.wait_for_count(1)[0]
        # The size, the encoding and the frames the parameters and REP 103 say.
        assert (first.width, first.height, first.encoding) == (WIDTH, HEIGHT, 'rgb8')
        assert first.step == 3 * WIDTH and len(first.data) == 3 * WIDTH * HEIGHT
        assert first.header.frame_id == info.header.frame_id == 'front_side_optical_frame'
        assert (info.width, info.height, info.distortion_model) == (WIDTH, HEIGHT, 'plumb_bob')
        focal = (HEIGHT / 2) / math.tan(math.radians(45.0) / 2)
        assert list(info.k) == pytest.approx([focal, 0, (WIDTH - 1) / 2, 0, focal,
                                              (HEIGHT - 1) / 2, 0, 0, 1])
        assert pose.header.frame_id == 'base_link'
        # Each picture is stamped as the joint_states message of the state it shows.
        received = states.wait_for_count(1)[0]
        later = images.wait_for(lambda m: _seconds(m) >= _seconds(received))
        states.wait_for(lambda m: m.header.stamp == later.header.stamp)
        # The target, marked where the intrinsics and the pose project it.
        target = PoseStamped()
        target.header.frame_id = 'base_link'
        target.pose.position.x, target.pose.position.y, target.pose.position.z = TARGET
        targets.publish(target)
        marked = images.wait_for(lambda m: _marker_centroid(_image(m)) is not None,
                                 start=len(images))
        centroid = _marker_centroid(_image(marked))
        assert math.dist(centroid, _project(TARGET, pose, info)) <= 3.0, centroid
        # The arm moves: its pixels change.
        probe.wait_for_subscribers(commands)
        commands.publish(_command((1.2, -1.6)))
        moved_state = states.wait_for(_at((1.2, -1.6)), start=len(states), timeout=20)
        moved = images.wait_for(lambda m: _seconds(m) >= _seconds(moved_state),
                                start=len(images))
        assert changed_pixels(_image(marked), _image(moved)) > 200
        assert node.poll() is None
        # No tf2_msgs among the wheels: no /tf_static (with it, the same transform is there).
        try:
            import tf2_msgs  # noqa: F401
            expected = True
        except ImportError:
            expected = False
        assert ('/tf_static' in probe.topic_types()) == expected
        node.assert_ctrl_c_exits_0()
    assert "camera: 'front_side' 200x150 at 20 Hz (egl) on camera/image_raw" in node.stderr


def test_without_a_display_the_viewer_says_so_once_and_the_sim_runs_on(
        domain, probe, tmp_path):
    with NodeProcess(MODULE, ros_args=['-p', 'viewer:=true'], domain_id=domain,
                     log_dir=tmp_path, env_extra=without_display(), name='sim') as node:
        states = probe.collect(JointState, 'joint_states')
        wait_until(lambda: 'viewer:' in node.stderr, 30.0, what='the viewer line',
                   processes={'sim': node})
        count = len(states.wait_for_count(1))
        states.wait_for_count(count + 20)
        node.assert_ctrl_c_exits_0()
    lines = [line for line in node.stderr.splitlines() if 'viewer:' in line]
    assert len(lines) == 1 and '[WARN]' in lines[0], node.output()
    assert lines[0].endswith('viewer: no display (DISPLAY and WAYLAND_DISPLAY are not set); '
                             'the simulation runs on without it')


def test_the_window_shows_the_arm_follow_and_closing_it_leaves_the_sim_running(
        domain, probe, tmp_path, display):
    with NodeProcess(MODULE, ros_args=['-p', 'viewer:=true'], domain_id=domain,
                     log_dir=tmp_path, env_extra=display.environment(), name='sim') as node:
        states = probe.collect(JointState, 'joint_states')
        commands = probe.publisher(JointState, 'joint_commands')
        window = display.wait_for_window('MuJoCo', processes={'sim': node})
        # The arm is there: its blue links against the sky.
        wait_until(lambda: arm_pixels(display.screenshot(window)) > 200, 15.0,
                   what='the arm in the window', processes={'sim': node})
        before = display.screenshot(window)
        probe.wait_for_subscribers(commands)
        commands.publish(_command((1.5, -2.0)))
        states.wait_for(_at((1.5, -2.0)), timeout=20)
        wait_until(lambda: changed_pixels(before, display.screenshot(window)) > 500, 15.0,
                   what='the window to show the arm moved', processes={'sim': node})
        display.close_window(window)
        wait_until(lambda: display.window('MuJoCo') is None, 15.0, what='the window to close',
                   processes={'sim': node})
        wait_until(lambda: 'viewer: window closed' in node.stderr, 15.0,
                   what='the line saying so', processes={'sim': node})
        count = len(states)
        states.wait_for_count(count + 20)  # the sim runs on
        commands.publish(_command((0.2, 0.3)))
        states.wait_for(_at((0.2, 0.3)), start=count, timeout=20)
        node.assert_ctrl_c_exits_0()
    assert 'Traceback' not in node.stderr + node.stdout, node.output()


def test_ctrl_c_ends_the_sim_and_its_window(domain, tmp_path, display):
    with NodeProcess(MODULE, ros_args=['-p', 'viewer:=true'], domain_id=domain,
                     log_dir=tmp_path, env_extra=display.environment(), name='sim') as node:
        display.wait_for_window('MuJoCo', processes={'sim': node})
        node.send_signal(signal.SIGINT)
        assert node.wait(15.0) == 0, node.output()
    assert display.window('MuJoCo') is None
    assert 'Traceback' not in node.stderr + node.stdout, node.output()


def test_with_neither_nothing_renders_and_nothing_more_is_in_the_graph(
        domain, probe, tmp_path):
    # viewer false and camera_rate 0 (the defaults): no camera topic, no target_pose
    # subscription, no window line; the sim as before.
    # In a namespace of its own: the probe and the sims before it used the camera's topics.
    with NodeProcess(MODULE, ros_args=['-r', '__ns:=/plain'], domain_id=domain,
                     log_dir=tmp_path, name='sim') as node:
        states = probe.collect(JointState, '/plain/joint_states')
        states.wait_for_count(5)
        assert node.poll() is None
        topics = probe.topic_types()
        assert not [t for t in topics if t.startswith('/plain/camera')], topics
        assert '/plain/joint_commands' in topics  # the graph is seen
        assert probe.node.count_subscribers('/plain/target_pose') == 0
        node.assert_ctrl_c_exits_0()
    assert 'viewer' not in node.stderr and 'camera:' not in node.stderr, node.output()
