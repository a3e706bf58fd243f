"""Tests of two_bone_ik.nodes.launch_support: what the launch files decide, without launch."""

import sys
import types

import pytest
from ros_harness import REPO_ROOT

from two_bone_ik.arm.config import GEOMETRY_PARAMETERS
from two_bone_ik.arm.description_file import DescriptionFileError
from two_bone_ik.arm.params_file import parameters_for_node
from two_bone_ik.nodes.launch_support import command_outputs, CommandOutputs, declare_arguments
from two_bone_ik.nodes.launch_support import description_parameters, end_launch_on_exit
from two_bone_ik.nodes.launch_support import forward_arguments, full_node_name, given_parameters
from two_bone_ik.nodes.launch_support import ik_node_parameters, include_launch_file
from two_bone_ik.nodes.launch_support import LaunchArgumentError, RequiredNodeFailed
from two_bone_ik.nodes.launch_support import servo_overrides, SHARED_ARGUMENTS
from two_bone_ik.nodes.launch_support import sim_description_parameters, written_description
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


class Recorded:
    """A stand-in for a launch class: records what it was made with."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


def stand_in_launch(monkeypatch):
    """Install a stand-in ``launch`` (not installable here) whose actions record their making."""
    modules = {name: types.ModuleType(name) for name in (
        'launch', 'launch.actions', 'launch.substitutions', 'launch.launch_description_sources',
        'launch_ros', 'launch_ros.parameter_descriptions', 'launch_ros.substitutions')}
    for module, names in (
            ('launch.actions', ('Shutdown', 'DeclareLaunchArgument', 'GroupAction',
                                'IncludeLaunchDescription')),
            ('launch.substitutions', ('LaunchConfiguration', 'ThisLaunchFileDir', 'Command')),
            ('launch_ros.substitutions', ('ExecutableInPackage',)),
            ('launch.launch_description_sources', ('PythonLaunchDescriptionSource',)),
            ('launch_ros.parameter_descriptions', ('ParameterValue',))):
        for name in names:
            setattr(modules[module], name, type(name, (Recorded,), {}))
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    return modules['launch.actions'], modules['launch.substitutions']


def test_a_node_that_exits_cleanly_shuts_the_launch_down(monkeypatch):
    # launch is not installable here: a stand-in records the Shutdown action asked for.
    Shutdown = stand_in_launch(monkeypatch)[0].Shutdown
    handler = end_launch_on_exit('two_bone_ik_sim')
    (shutdown,) = handler(ProcessExited(returncode=0), LaunchContext(is_shutdown=False))
    assert isinstance(shutdown, Shutdown)
    assert shutdown.kwargs == {'reason': 'two_bone_ik_sim exited'}
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


# -- shared arguments -------------------------------------------------------------------------

def test_shared_arguments_are_declared_with_their_default_description_and_choices(monkeypatch):
    stand_in_launch(monkeypatch)
    elbow, topic, sim_time = declare_arguments('elbow', 'robot_description_topic', 'use_sim_time')
    assert elbow.args == ('elbow',) and elbow.kwargs == {
        'default_value': '', 'description': SHARED_ARGUMENTS['elbow'].description,
        'choices': ['', 'up', 'down', 'nearest']}
    assert topic.kwargs == {'default_value': '',
                            'description': SHARED_ARGUMENTS['robot_description_topic'].description}
    assert sim_time.kwargs['default_value'] == 'false'
    assert sim_time.kwargs['choices'] == ['true', 'false']
    with pytest.raises(KeyError):
        declare_arguments('no_such_argument')
    forwarded = forward_arguments('namespace', 'use_sim_time')
    assert {name: value.args for name, value in forwarded.items()} == {
        'namespace': ('namespace',), 'use_sim_time': ('use_sim_time',)}


def test_an_include_gives_the_file_beside_the_including_one_its_arguments(monkeypatch):
    actions, substitutions = stand_in_launch(monkeypatch)
    group = include_launch_file('sim.launch.py', condition='if sim', namespace='left_arm',
                                **forward_arguments('use_sim_time'))
    assert isinstance(group, actions.GroupAction) and group.kwargs == {'condition': 'if sim'}
    (include,) = group.args[0]
    (source,) = include.args
    directory, slash, file_name = source.args[0]
    assert isinstance(directory, substitutions.ThisLaunchFileDir)
    assert (slash, file_name) == ('/', 'sim.launch.py')
    arguments = dict(include.kwargs['launch_arguments'])
    assert arguments['namespace'] == 'left_arm'
    assert arguments['use_sim_time'].args == ('use_sim_time',)


def test_only_the_parameters_given_are_passed_and_text_stays_text(monkeypatch):
    stand_in_launch(monkeypatch)
    given = given_parameters(elbow=None, base_frame='0', use_sim_time=False, limits=[1.0])
    assert set(given) == {'base_frame', 'use_sim_time', 'limits'}
    assert given['base_frame'].args == ('0',) and given['base_frame'].kwargs == {
        'value_type': str}
    assert given['use_sim_time'] is False and given['limits'] == [1.0]


def test_every_shared_argument_says_what_it_does_and_defaults_to_a_choice():
    for name, argument in SHARED_ARGUMENTS.items():
        assert argument.description.endswith('.') and len(argument.description) > 30, name
        assert argument.choices is None or argument.default in argument.choices, name


def test_full_node_name_is_the_key_of_its_params_file_section():
    assert full_node_name('', 'two_bone_ik') == '/two_bone_ik'
    assert full_node_name('left_arm', 'two_bone_ik') == '/left_arm/two_bone_ik'
    assert full_node_name('/robot/left/', 'two_bone_ik_sim') == '/robot/left/two_bone_ik_sim'


# -- where the arm comes from -----------------------------------------------------------------

URDF = '<robot name="arm"><link name="base_link"/></robot>'


def test_the_arm_comes_from_a_file_a_topic_or_the_params_file(tmp_path):
    urdf = tmp_path / 'arm.urdf'
    urdf.write_text(URDF)
    assert description_parameters(str(urdf), '', '') == {'robot_description': URDF}
    assert description_parameters('', '', 'robot_description') == {
        'robot_description_topic': 'robot_description'}
    assert description_parameters('', '', '') == {}
    xacro = tmp_path / 'arm.urdf.xacro'
    xacro.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="arm">'
                     '<xacro:arg name="base" default="base"/><link name="$(arg base)_link"/>'
                     '</robot>')
    expanded = description_parameters(str(xacro), 'base:=world', '')['robot_description']
    assert '<link name="world_link"/>' in expanded


def test_a_file_and_a_topic_or_xacro_args_alone_are_refused(tmp_path):
    with pytest.raises(LaunchArgumentError) as error:
        description_parameters('arm.urdf', '', 'robot_description')
    assert str(error.value) == ('urdf_file (arm.urdf) and robot_description_topic '
                                '(robot_description) are both given: the arm comes from one '
                                'of them')
    with pytest.raises(LaunchArgumentError) as error:
        description_parameters('', 'prefix:=left_', '')
    assert str(error.value) == 'xacro_args (prefix:=left_) is given without urdf_file'
    broken = tmp_path / 'broken.xacro'
    broken.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:arm/></robot>')
    with pytest.raises(DescriptionFileError,
                       match=f'^{broken}: xacro: unknown macro name: xacro:arm$'):
        description_parameters(str(broken), '', '')


def test_the_sim_needs_the_arm_as_a_file_even_when_the_ik_node_reads_a_topic(tmp_path):
    urdf = tmp_path / 'arm.urdf'
    urdf.write_text(URDF)
    assert sim_description_parameters(str(urdf), '', 'robot_description') == {
        'robot_description': URDF}
    assert sim_description_parameters('', '', '') == {}
    with pytest.raises(LaunchArgumentError) as error:
        sim_description_parameters('', '', 'robot_description')
    assert str(error.value) == (
        'robot_description_topic (robot_description) is given without urdf_file: the '
        'simulated arm is built from a file at start (give the same arm as urdf_file)')


# -- where the commands go --------------------------------------------------------------------

@pytest.mark.parametrize('arguments, outputs', [
    (('', '', ''), None),
    (('joint_commands', '', ''), CommandOutputs(True, '', '')),
    (('position', '', ''), CommandOutputs(False, 'forward_position_controller', '')),
    (('trajectory', '', ''), CommandOutputs(False, '', 'joint_trajectory_controller')),
    (('position', 'arm_position', ''), CommandOutputs(False, 'arm_position', '')),
    (('', 'arm_position', ''), CommandOutputs(False, 'arm_position', '')),
    (('trajectory', '', 'arm_controller'), CommandOutputs(False, '', 'arm_controller')),
    (('', '', 'joint_trajectory_controller'),
     CommandOutputs(False, '', 'joint_trajectory_controller')),
])
def test_output_and_a_controller_name_give_one_way_out(arguments, outputs):
    assert command_outputs(*arguments) == outputs
    if outputs is not None:
        assert [outputs.publish_joint_commands, bool(outputs.position_controller),
                bool(outputs.trajectory_controller)].count(True) == 1
        # The output it is, given with its controller's name, says the same.
        assert command_outputs(outputs.output, outputs.position_controller,
                               outputs.trajectory_controller) == outputs


@pytest.mark.parametrize('arguments, message', [
    (('', 'a', 'b'), 'position_controller (a) and trajectory_controller (b) are both given: '
                     'the IK node commands one controller'),
    (('joint_commands', '', 'b'), 'trajectory_controller (b) is given with '
                                  'output:=joint_commands, which commands no controller'),
    (('trajectory', 'a', ''), 'position_controller (a) is given with output:=trajectory, which '
                              'commands a trajectory controller'),
    (('position', '', 'b'), 'trajectory_controller (b) is given with output:=position, which '
                            'commands a position controller'),
    (('velocity', '', ''), "output 'velocity' is none of joint_commands, position, trajectory"),
])
def test_outputs_that_contradict_each_other_are_refused_in_one_line(arguments, message):
    with pytest.raises(LaunchArgumentError) as error:
        command_outputs(*arguments)
    assert str(error.value) == message


def test_the_written_description_is_two_bone_ik_urdf_on_the_ik_nodes_section(monkeypatch):
    substitutions = stand_in_launch(monkeypatch)[1]
    command = written_description('/p/so101.yaml', '/so101/two_bone_ik')
    assert isinstance(command, substitutions.Command)
    (parts,) = command.args
    program, *rest = parts
    # Found in the package's lib/two_bone_ik (a colcon install), not on PATH.
    assert program.args == ('two_bone_ik_urdf', 'two_bone_ik')
    assert rest == [' --params-file ', '/p/so101.yaml', ' --node-name ', '/so101/two_bone_ik']


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
