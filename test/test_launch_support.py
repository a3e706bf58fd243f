"""Tests of two_bone_ik.launch_support: what the launch files decide, without launch itself."""

import sys
import types

import pytest
from ros_harness import REPO_ROOT

from two_bone_ik.arm.config import GEOMETRY_PARAMETERS
from two_bone_ik.arm.params_file import parameters_for_node
from two_bone_ik.launch_support import end_launch_on_exit, ik_node_parameters
from two_bone_ik.launch_support import LaunchArgumentError, RequiredNodeFailed, servo_overrides
import yaml

DEFAULT = str(REPO_ROOT / 'config' / 'two_bone_ik.yaml')


class ProcessExited(types.SimpleNamespace):
    """The fields of launch.events.process.ProcessExited the handler reads."""


class LaunchContext(types.SimpleNamespace):
    """The fields of launch.LaunchContext the handler reads."""


@pytest.mark.parametrize('code', [2, 1, -2, -9])
def test_a_node_that_fails_ends_the_launch_with_an_error(code):
    # LaunchService.run() returns 1 when an exception escapes an event handler.
    handler = end_launch_on_exit('two_bone_ik_servo')
    with pytest.raises(RequiredNodeFailed) as error:
        handler(ProcessExited(returncode=code), LaunchContext(is_shutdown=code < 0))
    assert str(error.value) == (f'two_bone_ik_servo exited with code {code} (its own line above '
                                'says why): the launch ends with an error')


def test_a_node_that_exits_cleanly_shuts_the_launch_down(monkeypatch):
    # launch is not installable here: a stand-in records the Shutdown action asked for.
    actions = types.ModuleType('launch.actions')

    class Shutdown:

        def __init__(self, *, reason):
            self.reason = reason
    actions.Shutdown = Shutdown
    monkeypatch.setitem(sys.modules, 'launch', types.ModuleType('launch'))
    monkeypatch.setitem(sys.modules, 'launch.actions', actions)
    handler = end_launch_on_exit('two_bone_ik_sim')
    (shutdown,) = handler(ProcessExited(returncode=0), LaunchContext(is_shutdown=False))
    assert isinstance(shutdown, Shutdown) and shutdown.reason == 'two_bone_ik_sim exited'
    # After Ctrl-C (or another node's exit) the launch is ending already: nothing to add.
    assert handler(ProcessExited(returncode=0), LaunchContext(is_shutdown=True)) == []


def test_with_a_urdf_the_default_params_file_gives_no_geometry(tmp_path):
    (given,) = ik_node_parameters(DEFAULT, DEFAULT, True, '/left_arm/two_bone_ik')
    section = parameters_for_node(DEFAULT, '/left_arm/two_bone_ik').values
    assert {'link_lengths', 'joint_names', 'plane'} <= set(section)  # what the node warned of
    assert given == {name: list(value) if isinstance(value, tuple) else value
                     for name, value in section.items() if name not in GEOMETRY_PARAMETERS}
    # launch_ros writes it with yaml.dump, and rcl reads that file as YAML.
    assert yaml.safe_load(yaml.dump({'/**': {'ros__parameters': given}})) == {
        '/**': {'ros__parameters': given}}
    assert {'base_frame', 'elbow', 'joint_lower_limits'} <= set(given)
    # The same file under another path is still the default one.
    link = tmp_path / 'link.yaml'
    link.symlink_to(DEFAULT)
    assert ik_node_parameters(str(link), DEFAULT, True, '/two_bone_ik') == [
        ik_node_parameters(DEFAULT, DEFAULT, True, '/two_bone_ik')[0]]


def test_a_params_file_the_user_gives_or_an_arm_without_urdf_gets_the_file_whole(tmp_path):
    own = tmp_path / 'own.yaml'
    own.write_text((REPO_ROOT / 'config' / 'two_bone_ik.yaml').read_text())
    assert ik_node_parameters(str(own), DEFAULT, True, '/two_bone_ik') == [str(own)]
    assert ik_node_parameters(DEFAULT, DEFAULT, False, '/two_bone_ik') == [DEFAULT]


SO101 = str(REPO_ROOT / 'config' / 'so101.yaml')


def test_the_servo_driver_takes_port_and_calibration_file_given(monkeypatch):
    monkeypatch.setenv('HOME', '/home/me')
    assert servo_overrides(SO101, '/two_bone_ik_servo', '', '/tmp/arm.json') == {
        'calibration_file': '/tmp/arm.json'}
    # A shell does not expand ~ after :=, so the launch does.
    assert servo_overrides(SO101, '/so101/two_bone_ik_servo', '/dev/ttyACM1', '~/arm.json') == {
        'port': '/dev/ttyACM1', 'calibration_file': '/home/me/arm.json'}


def test_without_a_calibration_the_launch_says_so_not_the_channel(tmp_path):
    with pytest.raises(LaunchArgumentError) as error:
        servo_overrides(SO101, '/two_bone_ik_servo', '/dev/ttyACM0', '')
    assert str(error.value) == (
        'calibration_file is not given: the servo driver takes the ids and calibration of '
        'shoulder_pan, shoulder_lift, elbow_flex, wrist_flex, wrist_roll, gripper from '
        "LeRobot's calibration file of the arm: give calibration_file:=<the JSON "
        'lerobot-calibrate wrote, under ~/.cache/huggingface/lerobot/calibration/robots/'
        '<robot>/>')
    # A params file naming a calibration file, or calibrating every joint itself, needs none.
    for driver in ({'calibration_file': '/tmp/arm.json', 'joints': ['a']},
                   {'joints': ['a'], 'servos': {'a': {'channel': 1}}}):
        path = tmp_path / 'driver.yaml'
        path.write_text(yaml.safe_dump({'/**/two_bone_ik_servo': {'ros__parameters': driver}}))
        assert servo_overrides(str(path), '/two_bone_ik_servo', '', '') == {}
