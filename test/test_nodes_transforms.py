"""Tests for two_bone_ik.nodes.transforms: the tf2 lookup adapter, and the node using it.

No tf2 can be installed here (PyPI has none): the adapter is tested against a stand-in of the
tf2_ros Buffer interface as tf2_ros documents it (test/tf2_stand_in.py), and the node over DDS
with that stand-in installed as its ``tf2_ros`` module (test/fake_tf2_ros); the node without
tf2_ros is the real thing. What ran against the real tf2 is in docs/testing.md.
"""

import json
import math
import os
from pathlib import Path
import sys

from ik_client import Arm, pose
import numpy as np
import pytest
from rclpy.time import Time
from ros_harness import NodeProcess, REPO_ROOT, without_modules, write_params
import tf2_stand_in
from tf2_stand_in import transform_msg

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.ik.target_frame import FrameTransform
from two_bone_ik.ik.target_solver import TargetSolver
from two_bone_ik.nodes.transforms import BufferLookup, node_transforms

TEST_DIR = Path(__file__).resolve().parent
QUARTER = (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4))  # about z


def buffer_with(*transforms, static=True):
    buffer = tf2_stand_in.Buffer()
    for msg in transforms:
        (buffer.set_transform_static if static else buffer.set_transform)(msg, 'test')
    return buffer


def lookup_on(buffer, base='base_link'):
    return BufferLookup(buffer, base, tf2_stand_in.TransformException)


# -- the adapter against the stand-in ---------------------------------------------------------


def test_a_known_frame_gives_its_pose_in_base_frame():
    buffer = buffer_with(transform_msg('base_link', 'camera_link', (0.1, -0.2, 0.3), QUARTER))
    found = lookup_on(buffer)('camera_link', 0, 0.0)
    assert isinstance(found, FrameTransform)
    np.testing.assert_allclose(found.translation, (0.1, -0.2, 0.3), atol=1e-15)
    np.testing.assert_allclose(found.rotation, QUARTER, atol=1e-15)
    assert buffer.timeouts == [0]  # the session's lookups never wait


def test_a_chain_of_frames_and_the_inverse_direction():
    # world -> base_link and world -> camera_link: camera_link's pose in base_link.
    buffer = buffer_with(transform_msg('world', 'base_link', (1.0, 0.0, 0.0), QUARTER),
                         transform_msg('world', 'camera_link', (1.0, 1.0, 0.0), (0, 0, 0, 1)))
    found = lookup_on(buffer)('camera_link', 0, 0.0)
    # In base_link (turned a quarter from world), world's +y is base_link's +x.
    np.testing.assert_allclose(found.translation, (1.0, 0.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(found.rotation, (0.0, 0.0, -QUARTER[2], QUARTER[3]), atol=1e-12)


def test_the_transform_at_the_targets_stamp_and_the_latest_for_stamp_zero():
    buffer = buffer_with(transform_msg('base_link', 'hand_camera', (0.0, 0.0, 0.0), (0, 0, 0, 1),
                                       stamp=10.0),
                         transform_msg('base_link', 'hand_camera', (0.2, 0.0, 0.0), (0, 0, 0, 1),
                                       stamp=11.0), static=False)
    lookup = lookup_on(buffer)
    assert lookup('hand_camera', 10_500_000_000, 0.0).translation == pytest.approx((0.1, 0, 0))
    assert lookup('hand_camera', 0, 0.0).translation == pytest.approx((0.2, 0, 0))
    future = lookup('hand_camera', 12_000_000_000, 0.0)
    assert future.startswith('ExtrapolationException: Lookup would require extrapolation into '
                             'the future. Requested time 12.000000 but the latest data is at '
                             'time 11.000000')
    assert lookup('hand_camera', 9_000_000_000, 0.0).startswith(
        'ExtrapolationException: Lookup would require extrapolation into the past.')


@pytest.mark.parametrize('frame, words', [
    ('nowhere', 'LookupException: "nowhere" passed to lookupTransform argument source_frame '
                'does not exist.'),
    ('island', "ConnectivityException: Could not find a connection between 'base_link' and "
               "'island' because they are not part of the same tree."),
    ('', 'InvalidArgumentException: Invalid argument "" passed to lookupTransform argument '
         'source_frame - in tf2 frame_ids cannot be empty'),
])
def test_tf2s_exceptions_become_its_reason_in_one_line(frame, words):
    buffer = buffer_with(transform_msg('base_link', 'camera_link', (0, 0, 0), (0, 0, 0, 1)),
                         transform_msg('sea', 'island', (0, 0, 0), (0, 0, 0, 1)))
    found = lookup_on(buffer)(frame, 0, 0.0)
    assert isinstance(found, str) and found.startswith(words) and '\n' not in found


def test_the_timeout_and_stamp_reach_tf2_as_its_duration_and_time():
    class Recording(tf2_stand_in.Buffer):

        def lookup_transform(self, target_frame, source_frame, time, timeout=None):
            self.asked = (target_frame, source_frame, time.nanoseconds, timeout.nanoseconds)
            return super().lookup_transform(target_frame, source_frame, time, timeout)

    buffer = Recording()
    buffer.set_transform_static(transform_msg('base_link', 'cam', (0, 0, 0), (0, 0, 0, 1)), 't')
    lookup_on(buffer)('cam', 1_700_000_000_123_456_789, 0.25)
    assert buffer.asked == ('base_link', 'cam', 1_700_000_000_123_456_789, 250_000_000)


def test_other_errors_are_not_swallowed_by_the_adapter():
    # Only tf2's own exceptions are reasons here; anything else is the session's to catch.
    class Broken:

        def lookup_transform(self, *args):
            raise TypeError('bad argument')

    with pytest.raises(TypeError):
        lookup_on(Broken())('cam', 0, 0.0)


def test_the_stand_ins_can_transform_answers_as_documented():
    buffer = buffer_with(transform_msg('base_link', 'cam', (0, 0, 0), (0, 0, 0, 1)))
    assert buffer.can_transform('base_link', 'cam', Time(seconds=5))  # any time: static
    assert buffer.can_transform('base_link', 'x', Time(), return_debug_tuple=True) == (
        False, '"x" passed to lookupTransform argument source_frame does not exist. ')


def test_node_transforms_without_tf2_ros_says_so_and_gives_no_lookup(monkeypatch):
    monkeypatch.setitem(sys.modules, 'tf2_ros', None)  # import fails, as without it
    made = node_transforms(object(), 'base_link')
    assert made.lookup is None
    (line,) = made.logs
    assert line.severity == 'info'
    assert line.text.startswith('tf2_ros is not installed')
    assert "must be in base_frame 'base_link'" in line.text


def test_node_transforms_listens_on_the_node_with_tf2_ros(monkeypatch):
    monkeypatch.setitem(sys.modules, 'tf2_ros', tf2_stand_in)
    monkeypatch.setenv(tf2_stand_in.TRANSFORMS_ENV, json.dumps([
        {'parent': 'base_link', 'child': 'cam', 'translation': [0, 0, 1],
         'rotation': [0, 0, 0, 1]}]))
    node = object()
    made = node_transforms(node, 'base_link')
    assert made.logs == () and made.listener.node is node
    assert made.lookup('cam', 0, 0.0).translation == (0.0, 0.0, 1.0)


# -- the node over DDS ------------------------------------------------------------------------

#: camera_link in base_link: a quarter turn about z, at (0.1, -0.2, 0).
CAMERA = {'parent': 'base_link', 'child': 'camera_link', 'translation': [0.1, -0.2, 0.0],
          'rotation': list(QUARTER)}
#: A frame whose transform arrives 2 s after the node first asks for it.
LATE = {'parent': 'base_link', 'child': 'late_link', 'translation': [0.0, 0.0, 0.0],
        'rotation': [0.0, 0.0, 0.0, 1.0], 'after_asked': 2.0}


def fake_tf2(*transforms):
    """Return the environment of a node whose ``tf2_ros`` is the stand-in, knowing these."""
    return {'PYTHONPATH': os.pathsep.join([str(TEST_DIR / 'fake_tf2_ros'), str(TEST_DIR),
                                           str(REPO_ROOT)]),
            tf2_stand_in.TRANSFORMS_ENV: json.dumps(list(transforms))}


@pytest.fixture(scope='module')
def framed(domain, probe, tmp_path_factory):
    """Run the default arm, its tf2_ros the stand-in; targets wait up to 5 s for a transform."""
    log_dir = tmp_path_factory.mktemp('framed')
    params = write_params(log_dir / 'framed.yaml', {'transform_timeout': 5.0})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/framed'],
                     domain_id=domain, log_dir=log_dir, name='framed',
                     env_extra=fake_tf2(CAMERA, LATE)) as process:
        arm = Arm(probe, process, ns='/framed')
        arm.connect()
        yield arm
        assert process.returncode is None, process.output()


def test_a_target_from_camera_link_is_reached_at_the_joints_of_the_same_point(framed):
    goal = (0.3, 0.25, 0.0)  # in base_link
    in_camera = (goal[1] + 0.2, -(goal[0] - 0.1), goal[2])
    reply = framed.send(pose(*in_camera, frame='camera_link'))
    assert reply.name == 'REACHED' and reply.reachable, reply.status.message
    expected = TargetSolver(ArmConfig()).solve('base_link', *goal)
    np.testing.assert_allclose(reply.q, expected.readings, atol=1e-9)
    tip = ArmGeometry.from_config(ArmConfig()).tip_position(reply.q)
    np.testing.assert_allclose(tip, goal, atol=1e-9)


def test_an_unknown_frame_is_wrong_frame_with_tf2s_reason(framed):
    framed.set_params(transform_timeout=0.0)
    try:
        reply = framed.send(pose(0.3, 0.1, frame='nowhere'))
    finally:
        framed.set_params(transform_timeout=5.0)
    assert reply.name == 'WRONG_FRAME' and reply.code == 11 and not reply.reachable
    assert reply.joints is None
    assert reply.status.message == (
        "WRONG_FRAME: no transform from target frame 'nowhere' into base_frame 'base_link': "
        'LookupException: "nowhere" passed to lookupTransform argument source_frame does not '
        'exist.; nothing commanded')


def test_a_target_waits_for_a_transform_that_comes_late_without_blocking_the_node(framed):
    # late_link's transform comes 2 s after the node first asks for it: the target is held,
    # and meanwhile the node goes on serving (a parameter request is answered before it).
    statuses, joints = len(framed.status), len(framed.joints)
    framed.target.publish(pose(0.35, 0.1, frame='late_link'))
    assert framed.get_params('transform_timeout') == {'transform_timeout': 5.0}
    assert len(framed.status) == statuses  # answered while the target still waits
    reply_status = framed.status.wait_for(lambda s: True, start=statuses)
    assert reply_status.message.startswith('REACHED'), reply_status.message
    command = framed.joints.wait_for(lambda m: True, start=joints)
    tip = ArmGeometry.from_config(ArmConfig()).tip_position(command.position)
    np.testing.assert_allclose(tip, (0.35, 0.1, 0.0), atol=1e-9)


def test_without_tf2_ros_the_node_says_so_once_and_refuses_other_frames(
        domain, probe, tmp_path):
    with NodeProcess('two_bone_ik', ros_args=['-r', '__ns:=/no_tf2'], domain_id=domain,
                     log_dir=tmp_path, name='no_tf2',
                     env_extra=without_modules('tf2_ros')) as process:
        arm = Arm(probe, process, ns='/no_tf2')
        arm.connect()
        for _ in range(2):
            reply = arm.send(pose(0.3, 0.1, frame='camera_link'))
            assert reply.name == 'WRONG_FRAME' and reply.joints is None
            assert "no transform from target frame 'camera_link'" in reply.status.message
            assert 'tf2_ros is not installed' in reply.status.message
        assert arm.send(pose(0.3, 0.1, frame='base_link')).name == 'REACHED'
        assert process.returncode is None
    log = process.output()
    assert log.count('tf2_ros is not installed (') == 1, log
