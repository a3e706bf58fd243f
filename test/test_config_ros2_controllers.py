"""Tests of config/ros2_controllers.yaml against the parameter definitions of ros2_control.

controller_manager cannot run here, so the file is checked against what the Jazzy sources
declare (generate_parameter_library definitions and pluginlib descriptions), copied below with
where each fact comes from, and against the ``<ros2_control>`` block the URDF generator writes
for the same arm.
"""

from pathlib import Path
import xml.etree.ElementTree as ET

import pytest

from two_bone_ik.arm.params_file import load_arm_config, read_params_file
from two_bone_ik.arm.urdf_export import arm_urdf
from two_bone_ik.sim.controller_commands import trajectory_command
from two_bone_ik.sim.trajectory_follower import TrajectoryPoint

REPO = Path(__file__).resolve().parents[1]
CONTROLLERS = REPO / 'config' / 'ros2_controllers.yaml'
DEFAULT_ARM = load_arm_config(REPO / 'config' / 'two_bone_ik.yaml')

#: Controller plugins by name: joint_state_broadcaster/joint_state_plugin.xml,
#: position_controllers/position_controllers_plugins.xml,
#: joint_trajectory_controller/joint_trajectory_plugin.xml (ros2_controllers, jazzy).
PLUGINS = {
    'joint_state_broadcaster': 'joint_state_broadcaster/JointStateBroadcaster',
    'forward_position_controller': 'position_controllers/JointGroupPositionController',
    'joint_trajectory_controller': 'joint_trajectory_controller/JointTrajectoryController',
}

#: Python types of generate_parameter_library's parameter types.
TYPES = {'int': int, 'double': float, 'bool': bool, 'string': str, 'string_array': list}

#: controller_manager/src/controller_manager_parameters.yaml (ros2_control, jazzy), top level,
#: plus ``<controller_name>.type`` (controller_manager/doc/userdoc.rst).
CONTROLLER_MANAGER = {'update_rate': 'int', 'enforce_command_limits': 'bool',
                      'handle_exceptions': 'bool'}

#: forward_command_controller/src/forward_command_controller_parameters.yaml; the
#: JointGroupPositionController sets ``interface_name`` to ``position`` itself.
FORWARD_COMMAND = {'joints': 'string_array', 'interface_name': 'string'}

#: joint_trajectory_controller/src/joint_trajectory_controller_parameters.yaml, top level
#: (the nested gains.*, constraints.*, speed_scaling.* are not used here).
TRAJECTORY = {
    'joints': 'string_array', 'command_joints': 'string_array',
    'command_interfaces': 'string_array', 'state_interfaces': 'string_array',
    'allow_partial_joints_goal': 'bool', 'open_loop_control': 'bool',
    'interpolate_from_desired_state': 'bool', 'allow_integration_in_goal_trajectories': 'bool',
    'set_last_command_interface_value_as_state_on_activation': 'bool',
    'action_monitor_rate': 'double', 'interpolation_method': 'string',
    'allow_nonzero_velocity_at_trajectory_end': 'bool', 'cmd_timeout': 'double',
}
#: Its ``subset_of`` validations of the interfaces.
TRAJECTORY_COMMAND_INTERFACES = {'position', 'velocity', 'acceleration', 'effort'}
TRAJECTORY_STATE_INTERFACES = {'position', 'velocity', 'acceleration'}


@pytest.fixture(scope='module')
def sections():
    """Return ``{node key: {dotted parameter: value}}`` of the file, read as rcl reads it."""
    read = read_params_file(CONTROLLERS)
    assert len({key for key, _ in read}) == len(read)
    return dict(read)


def _check_types(values, schema):
    for name, value in values.items():
        assert name in schema, f'{name}: not a parameter of the controller'
        expected = TYPES[schema[name]]
        assert type(value) is expected, f'{name}: expected {schema[name]}, got {value!r}'
        if expected is list:
            assert all(isinstance(item, str) for item in value), name
            assert len(set(value)) == len(value), f'{name}: not unique'


def test_controller_manager_section(sections):
    manager = sections['controller_manager']
    types = {name[:-len('.type')]: value for name, value in manager.items()
             if name.endswith('.type')}
    assert types == PLUGINS
    _check_types({k: v for k, v in manager.items() if not k.endswith('.type')},
                 CONTROLLER_MANAGER)
    assert manager['update_rate'] > 0  # validation gt<>: 0
    # Every controller the manager loads has its own section (the broadcaster needs none),
    # and nothing else is configured.
    assert set(sections) == {'controller_manager', 'forward_position_controller',
                             'joint_trajectory_controller'}


def test_forward_position_controller(sections):
    values = sections['forward_position_controller']
    _check_types(values, FORWARD_COMMAND)
    assert values == {'joints': list(DEFAULT_ARM.joint_names)}


def test_joint_trajectory_controller(sections):
    values = sections['joint_trajectory_controller']
    _check_types(values, TRAJECTORY)
    assert values['joints'] == list(DEFAULT_ARM.joint_names)
    assert values['command_interfaces'] == ['position']
    assert values['state_interfaces'] == ['position', 'velocity']
    assert set(values['command_interfaces']) <= TRAJECTORY_COMMAND_INTERFACES
    assert set(values['state_interfaces']) <= TRAJECTORY_STATE_INTERFACES
    # The settings two_bone_ik_sim checks trajectories by (Jazzy's defaults).
    assert values['allow_partial_joints_goal'] is False
    assert values['allow_nonzero_velocity_at_trajectory_end'] is False
    with pytest.raises(ValueError, match='no partial goals'):
        trajectory_command(values['joints'][:1], [TrajectoryPoint(1.0, (0.0,))], None,
                           values['joints'])


@pytest.mark.parametrize('kind', ['mock', 'gazebo'])
def test_the_urdfs_interfaces_are_the_ones_the_controllers_claim(sections, kind):
    # The controllers' joints and interfaces exist in the generated <ros2_control> block of the
    # default arm.
    urdf = arm_urdf(DEFAULT_ARM, ros2_control=kind, controllers_file=str(CONTROLLERS))
    control = ET.fromstring(urdf).find('ros2_control')
    commands = {(joint.get('name'), interface.get('name'))
                for joint in control.findall('joint')
                for interface in joint.findall('command_interface')}
    states = {(joint.get('name'), interface.get('name'))
              for joint in control.findall('joint')
              for interface in joint.findall('state_interface')}
    forward = sections['forward_position_controller']
    assert {(joint, 'position') for joint in forward['joints']} <= commands
    trajectory = sections['joint_trajectory_controller']
    assert {(joint, interface) for joint in trajectory['joints']
            for interface in trajectory['command_interfaces']} <= commands
    assert {(joint, interface) for joint in trajectory['joints']
            for interface in trajectory['state_interfaces']} <= states
