"""Integration tests: the real IK node as a subprocess, driven over DDS with rclpy.

Two long-lived node processes are shared by most tests (module-scoped fixtures): the default
arm (config/two_bone_ik.yaml, root namespace) and the servo arm (config/servo_arm.yaml, under
``-r __ns:=/left_arm``). Start-up failures and signals get processes of their own.
"""

import math
from pathlib import Path
import re
import signal
import time

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from ik_client import Arm, LATCHED, pose, values
import numpy as np
import pytest
from rcl_interfaces.msg import ParameterType
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy
from rclpy.time import Time
from ros_harness import NodeProcess, signal_inside_publish, signal_while_stopping
from ros_harness import wait_until, without_modules, write_params
from std_msgs.msg import Bool

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.params_file import load_arm_config
from two_bone_ik.arm.plane import from_plane
from two_bone_ik.ik.markers import CLAMPED_AMBER, REACHED_GREEN, REJECTED_RED
from two_bone_ik.ik.status import NodeStatus
from two_bone_ik.nodes.node_runner import EXIT_BAD_CONFIG
from two_bone_ik.solver import forward
from visualization_msgs.msg import Marker, MarkerArray

CONFIG_DIR = Path(__file__).resolve().parents[1] / 'config'
DEFAULT = ArmConfig()
#: The shipped default arm: the same, with the limits of a real arm's revolute joints.
SHIPPED = load_arm_config(CONFIG_DIR / 'two_bone_ik.yaml')
OK, WARN, ERROR = DiagnosticStatus.OK, DiagnosticStatus.WARN, DiagnosticStatus.ERROR
FK_TOLERANCE = 1e-9


def wrapped(angle):
    """Return the angle moved by whole turns into [-pi, pi] (the branch is the pose's)."""
    return math.remainder(angle, 2 * math.pi)


def tip_xy(q, config=DEFAULT):
    return forward(q[0], q[1], *config.link_lengths)


# -- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope='module')
def arm(domain, probe, tmp_path_factory):
    """Run the default arm from the shipped config, in the root namespace."""
    log_dir = tmp_path_factory.mktemp('default_node')
    with NodeProcess('two_bone_ik', params_file=CONFIG_DIR / 'two_bone_ik.yaml',
                     domain_id=domain, log_dir=log_dir, name='default') as process:
        arm = Arm(probe, process)
        arm.connect()
        yield arm
        assert process.returncode is None, process.output()


@pytest.fixture(scope='module')
def servo(domain, probe, tmp_path_factory):
    """Run the servo arm (xz plane, +-90 degree limits) in namespace /left_arm."""
    log_dir = tmp_path_factory.mktemp('servo_node')
    config = load_arm_config(CONFIG_DIR / 'servo_arm.yaml')
    with NodeProcess('two_bone_ik', params_file=CONFIG_DIR / 'servo_arm.yaml',
                     ros_args=['-r', '__ns:=/left_arm'], domain_id=domain, log_dir=log_dir,
                     name='servo') as process:
        arm = Arm(probe, process, ns='/left_arm', config=config)
        arm.connect()
        yield arm


@pytest.fixture
def restore(arm):
    """Put the runtime parameters of the default arm back after a test."""
    yield
    results = arm.set_params(elbow='up', joint_lower_limits=list(SHIPPED.joint_lower_limits),
                             joint_upper_limits=list(SHIPPED.joint_upper_limits),
                             allow_elbow_flip=True)
    assert all(r.successful for r in results), [r.reason for r in results]


@pytest.fixture
def unlimited(arm, restore):
    """Free the default arm's joints for a test of the closed form's whole range."""
    results = arm.set_params(joint_lower_limits=[-math.inf, -math.inf],
                             joint_upper_limits=[math.inf, math.inf])
    assert all(r.successful for r in results), [r.reason for r in results]


# -- interfaces -------------------------------------------------------------------------------


def test_interfaces_and_qos(arm, probe):
    node = probe.node
    probe.wait_for_node('/two_bone_ik')

    def endpoint(infos):
        mine = [i for i in infos if i.node_name == 'two_bone_ik' and i.node_namespace == '/']
        assert len(mine) == 1, infos
        return mine[0]

    sub = endpoint(node.get_subscriptions_info_by_topic('/target_pose'))
    assert sub.topic_type == 'geometry_msgs/msg/PoseStamped'
    expected = {
        '/joint_commands': ('sensor_msgs/msg/JointState', DurabilityPolicy.VOLATILE),
        '/reachable': ('std_msgs/msg/Bool', DurabilityPolicy.TRANSIENT_LOCAL),
        '/ik_status': ('diagnostic_msgs/msg/DiagnosticStatus', DurabilityPolicy.VOLATILE),
        '/diagnostics': ('diagnostic_msgs/msg/DiagnosticArray', DurabilityPolicy.VOLATILE),
    }
    for topic, (type_name, durability) in expected.items():
        info = endpoint(node.get_publishers_info_by_topic(topic))
        assert info.topic_type == type_name
        assert info.qos_profile.reliability == ReliabilityPolicy.RELIABLE, topic
        assert info.qos_profile.durability == durability, topic
    publishers = node.get_publishers_info_by_topic('/joint_states')
    assert not [i for i in publishers if i.node_name == 'two_bone_ik']


def test_parameters_declared_with_descriptors(arm):
    names = ['link_lengths', 'joint_names', 'base_frame', 'plane', 'elbow',
             'joint_lower_limits', 'joint_upper_limits', 'allow_elbow_flip',
             'out_of_plane_tolerance']
    descriptors = arm.probe.describe_parameters(arm.node_name, names)
    types = {
        'link_lengths': ParameterType.PARAMETER_DOUBLE_ARRAY,
        'joint_names': ParameterType.PARAMETER_STRING_ARRAY,
        'base_frame': ParameterType.PARAMETER_STRING,
        'plane': ParameterType.PARAMETER_STRING,
        'elbow': ParameterType.PARAMETER_STRING,
        'joint_lower_limits': ParameterType.PARAMETER_DOUBLE_ARRAY,
        'joint_upper_limits': ParameterType.PARAMETER_DOUBLE_ARRAY,
        'allow_elbow_flip': ParameterType.PARAMETER_BOOL,
        'out_of_plane_tolerance': ParameterType.PARAMETER_DOUBLE,
    }
    runtime = {'elbow', 'joint_lower_limits', 'joint_upper_limits', 'allow_elbow_flip'}
    for name in names:
        descriptor = descriptors[name]
        assert descriptor.type == types[name], name
        assert descriptor.description, name
        assert descriptor.read_only == (name not in runtime), name
    assert 'up, down, nearest' in descriptors['elbow'].additional_constraints
    assert 'xy, xz, yz' in descriptors['plane'].additional_constraints
    tolerance_range = descriptors['out_of_plane_tolerance'].floating_point_range
    assert [(r.from_value, r.to_value) for r in tolerance_range] == [(0.0, 10.0)]

    assert arm.get_params(*names) == {
        'link_lengths': [0.30, 0.25], 'joint_names': ['shoulder_joint', 'elbow_joint'],
        'base_frame': 'base_link', 'plane': 'xy', 'elbow': 'up',
        'joint_lower_limits': [-2.8, -2.8], 'joint_upper_limits': [2.8, 2.8],
        'allow_elbow_flip': True, 'out_of_plane_tolerance': 0.001}


# -- solved targets ---------------------------------------------------------------------------


def reachable_targets():
    rng = np.random.default_rng(0)
    radius = rng.uniform(0.06, 0.545, 10)
    angle = rng.uniform(-math.pi, math.pi, 10)
    named = [(0.3, 0.25), (-0.3, 0.25), (-0.3, -0.25), (0.3, -0.25), (0.0, 0.5), (0.549, 0.0)]
    return named + list(zip(radius * np.cos(angle), radius * np.sin(angle)))


def test_reachable_targets_command_exact_angles(arm, unlimited):
    for x, y in reachable_targets():
        before = arm.probe.node.get_clock().now()
        reply = arm.send(pose(x, y))
        joints = reply.joints
        assert list(joints.name) == ['shoulder_joint', 'elbow_joint']
        assert joints.header.frame_id == 'base_link'
        assert Time.from_msg(joints.header.stamp) >= before
        assert len(joints.position) == 2 and not joints.velocity and not joints.effort
        np.testing.assert_allclose(tip_xy(reply.q), (x, y), atol=FK_TOLERANCE)
        assert wrapped(reply.q[1]) <= 0.0  # elbow up
        assert reply.reachable is True
        assert (reply.name, reply.code) == ('REACHED', 0)
        assert reply.status.level == OK
        assert reply.status.message.startswith('REACHED: ')
        assert reply.status.name == '/two_bone_ik'
        assert float(reply.values['target_distance']) == pytest.approx(math.hypot(x, y),
                                                                       abs=1e-6)
        assert float(reply.values['tip_error']) == pytest.approx(0.0, abs=1e-6)
        assert reply.values['elbow'] == 'up'
        assert reply.values['solver_status'] == 'REACHED'


def test_empty_frame_means_base_frame(arm):
    reply = arm.send(pose(0.2, 0.1, frame=''))
    assert reply.code == NodeStatus.REACHED
    np.testing.assert_allclose(tip_xy(reply.q), (0.2, 0.1), atol=FK_TOLERANCE)


def test_out_of_reach_commands_closest_pose(arm, unlimited):
    x, y = 0.6, -0.8  # 1.0 m away, 0.45 m beyond the 0.55 m reach
    reply = arm.send(pose(x, y))
    np.testing.assert_allclose(tip_xy(reply.q), (0.55 * 0.6, -0.55 * 0.8), atol=FK_TOLERANCE)
    assert reply.reachable is False
    assert (reply.name, reply.code, reply.status.level) == ('OUT_OF_REACH', 1, WARN)
    assert reply.status.message.startswith('OUT_OF_REACH: target 0.450 m beyond reach')
    assert float(reply.values['tip_error']) == pytest.approx(0.45, abs=1e-6)
    assert float(reply.values['target_distance']) == pytest.approx(1.0, abs=1e-6)


def test_inside_inner_hole_commands_closest_pose(arm, unlimited):
    x, y = 0.0, -0.02  # inner reach is |0.30 - 0.25| = 0.05 m
    reply = arm.send(pose(x, y))
    np.testing.assert_allclose(tip_xy(reply.q), (0.0, -0.05), atol=FK_TOLERANCE)
    assert reply.reachable is False
    assert (reply.name, reply.code, reply.status.level) == ('INSIDE_INNER', 2, WARN)
    assert reply.status.message.startswith('INSIDE_INNER: target 0.030 m inside')
    assert float(reply.values['tip_error']) == pytest.approx(0.03, abs=1e-6)


def test_off_plane_target_solved_for_its_projection(arm):
    reply = arm.send(pose(0.25, 0.2, 0.05))
    np.testing.assert_allclose(tip_xy(reply.q), (0.25, 0.2), atol=FK_TOLERANCE)
    assert reply.reachable is False
    assert (reply.name, reply.code, reply.status.level) == ('OFF_PLANE', 10, WARN)
    assert reply.status.message.startswith('OFF_PLANE: target 0.0500 m off the xy plane, '
                                           'beyond out_of_plane_tolerance (0.001 m)')
    assert float(reply.values['off_plane']) == pytest.approx(0.05)
    assert float(reply.values['tip_error']) == pytest.approx(0.05, abs=1e-6)
    assert reply.values['solver_status'] == 'REACHED'

    # Within out_of_plane_tolerance (0.001 m): never OFF_PLANE, and never reachable (the tip is
    # on the projection): PROJECTED, tip_error and the text say how far off the target is.
    within = arm.send(pose(0.25, 0.2, -0.0005))
    assert (within.name, within.code, within.status.level, within.reachable) == (
        'PROJECTED', 17, WARN, False)
    assert within.status.message.startswith('PROJECTED: target 0.0005 m off the xy plane, '
                                            'within out_of_plane_tolerance (0.001 m)')
    assert float(within.values['tip_error']) == pytest.approx(0.0005, abs=1e-6)
    np.testing.assert_allclose(tip_xy(within.q), (0.25, 0.2), atol=FK_TOLERANCE)


# -- rejected targets -------------------------------------------------------------------------


def assert_rejected_then_recovers(arm, reply, name, code):
    assert reply.reachable is False
    assert (reply.name, reply.code, reply.status.level) == (name, code, ERROR)
    assert reply.status.message.startswith(f'{name}: ')
    # The node keeps working, and the rejected target commanded nothing. DDS delivers one
    # writer's samples in order, so once the command for the next target has arrived, any
    # command sent for the rejected one has arrived before it: since the rejected target was
    # published, exactly one command must have come, the next target's.
    u, v = arm.reachable_uv()
    after = arm.send(pose(*from_plane(u, v, arm.config.plane), frame=arm.config.base_frame))
    assert after.code == NodeStatus.REACHED

    def commands_next_target(joints):
        return np.allclose(tip_xy(joints.position, arm.config), (u, v), rtol=0.0,
                           atol=FK_TOLERANCE)

    command = arm.joints.wait_for(commands_next_target, start=reply.joints_before)
    new = arm.joints.messages[reply.joints_before:]
    assert len(new) == 1, [tuple(m.position) for m in new]
    assert new[0] is command is after.joints


def test_wrong_frame_rejected(arm):
    reply = arm.send(pose(0.3, 0.1, frame='world'))
    assert "'world'" in reply.status.message and "'base_link'" in reply.status.message
    assert_rejected_then_recovers(arm, reply, 'WRONG_FRAME', 11)


@pytest.mark.parametrize('xyz', [
    (math.nan, 0.1, 0.0), (0.1, math.inf, 0.0), (0.1, 0.1, -math.inf), (1e308, 1e308, 0.0)],
    ids=['nan_x', 'inf_y', 'minus_inf_z', 'overflow'])
def test_invalid_target_rejected(arm, xyz):
    reply = arm.send(pose(*xyz))
    assert_rejected_then_recovers(arm, reply, 'INVALID_TARGET', 12)


def test_reachable_is_latched_for_late_subscribers(arm):
    assert arm.send(pose(0.2, 0.2)).reachable is True
    assert arm.send(pose(2.0, 0.0)).reachable is False
    late = arm.probe.collect(Bool, '/reachable', LATCHED)
    assert [m.data for m in late.wait_for_count(1)] == [False]
    assert arm.send(pose(0.2, 0.2)).reachable is True
    late.wait_for_count(2)
    later = arm.probe.collect(Bool, '/reachable', LATCHED)
    assert [m.data for m in later.wait_for_count(1)] == [True]
    arm.probe.spin_until(lambda: len(late) >= 2)
    assert [m.data for m in late.messages] == [False, True]
    assert len(later) == 1
    arm.probe.node.destroy_subscription(late.subscription)
    arm.probe.node.destroy_subscription(later.subscription)


def test_diagnostics_counts(arm, probe):
    diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
    name = '/two_bone_ik: targets'

    def ours(array):
        return [s for s in array.status if s.name == name]

    # The first report arrives after every earlier target was answered (and so counted).
    baseline = values(ours(diagnostics.wait_for(ours))[0])
    sent = [(pose(0.2, 0.2), 'solved', 'REACHED'), (pose(0.1, -0.3), 'solved', 'REACHED'),
            (pose(3.0, 0.0), 'clamped', 'OUT_OF_REACH'),
            (pose(0.1, 0.1, frame='map'), 'rejected', 'WRONG_FRAME'),
            (pose(math.nan, 0.0), 'rejected', 'INVALID_TARGET')]
    for target, _, status in sent:
        assert arm.send(target).name == status
    base_total = int(baseline['targets'])
    total = base_total + len(sent)

    def counts_all(array):
        mine = ours(array)
        return bool(mine) and int(values(mine[0])['targets']) >= total

    array = diagnostics.wait_for(counts_all)
    (report,) = ours(array)
    # One node publishes three statuses per report: its targets, its arm and its motion.
    assert [s.name for s in array.status] == [name, '/two_bone_ik: arm', '/two_bone_ik: motion']
    motion_status = array.status[2]
    assert motion_status.message == ('no motion planning (every motion limit infinite): one '
                                     'command per target')
    assert values(motion_status)['planned'] == 'false'
    arm_status = array.status[1]
    assert arm_status.level == OK
    assert arm_status.message.startswith(
        "links 0.3 + 0.25 m in the xy plane of 'base_link', shoulder at (0, 0, 0) m")
    assert values(arm_status) == {'source': 'parameters',
                                  'joint_names': 'shoulder_joint,elbow_joint'}
    now = values(report)
    assert int(now['targets']) == total
    categories = ('solved', 'clamped', 'rejected')
    keys = categories + tuple(f'count_{status.name}' for status in NodeStatus)
    delta = {key: int(now[key]) - int(baseline[key]) for key in keys}
    expected = dict.fromkeys(keys, 0)
    for _, category, status in sent:
        expected[category] += 1
        expected[f'count_{status}'] += 1
    assert delta == expected
    assert (now['last_status'], now['last_status_code']) == ('INVALID_TARGET', '12')
    assert report.level == ERROR  # the window holding the last target saw a rejection

    # The report covers the targets counted since the report before it (every report since
    # the baseline arrived: reliable, and matched before the baseline), at least the last one.
    position = next(i for i, a in enumerate(diagnostics.messages) if a is array)
    earlier = [r for a in diagnostics.messages[:position] for r in ours(a)]
    in_window = total - int(values(earlier[-1])['targets'])
    assert 1 <= in_window <= len(sent)
    head = f'{in_window} targets in the last '
    assert report.message.startswith(head), report.message
    assert report.message.endswith('; last INVALID_TARGET'), report.message
    # 'N targets in the last E s (R Hz)': the rate is N / E (E is rounded to 0.1 s).
    elapsed = float(report.message[len(head):].split(' s (')[0])
    rate = float(now['input_rate_hz'])
    assert in_window / (elapsed + 0.05) - 5e-4 <= rate, (report.message, rate)
    if elapsed > 0.05:
        assert rate <= in_window / (elapsed - 0.05) + 5e-4, (report.message, rate)
    probe.node.destroy_subscription(diagnostics.subscription)


# -- runtime parameters -----------------------------------------------------------------------


def test_elbow_change_accepted(arm, restore):
    (result,) = arm.set_params(elbow='down')
    assert result.successful, result.reason
    assert arm.get_params('elbow') == {'elbow': 'down'}
    reply = arm.send(pose(0.35, 0.1))
    assert wrapped(reply.q[1]) >= 0.0
    assert reply.values['elbow'] == 'down'
    assert reply.code == NodeStatus.REACHED
    np.testing.assert_allclose(tip_xy(reply.q), (0.35, 0.1), atol=FK_TOLERANCE)


def test_nearest_elbow_follows_last_command(arm, restore):
    for branch, sign in (('down', 1.0), ('up', -1.0)):
        assert arm.set_params(elbow=branch)[0].successful
        first = arm.send(pose(0.3, 0.2))
        assert sign * wrapped(first.q[1]) > 0.0
        assert arm.set_params(elbow='nearest')[0].successful
        reply = arm.send(pose(0.32, 0.18))
        assert sign * wrapped(reply.q[1]) > 0.0, (branch, reply.q)
        assert reply.values['elbow'] == branch
        np.testing.assert_allclose(tip_xy(reply.q), (0.32, 0.18), atol=FK_TOLERANCE)


@pytest.mark.parametrize('params, needle', [
    ({'elbow': 'sideways'}, "elbow: expected one of up, down, nearest, got 'sideways'"),
    ({'joint_lower_limits': [0.0]},
     'joint_lower_limits: expected an array of 2 to 5 doubles (write 1.0, not 1), got 1 '
     'value(s) [0.0]'),
    ({'joint_lower_limits': [-1e12, 0.0]},
     'joint_lower_limits: shoulder lower limit -1e+12 rad is beyond'),
    ({'joint_lower_limits': [-1.7e308, -1.7e308]}, 'joint_lower_limits: shoulder lower limit'),
    ({'joint_upper_limits': [1.0, math.nan]}, 'joint_upper_limits: expected 2 angles'),
    ({'joint_lower_limits': [1.0, math.inf]}, 'joint_lower_limits: expected 2 angles below'),
])
def test_invalid_runtime_change_rejected_and_old_value_kept(arm, restore, params, needle):
    name = next(iter(params))
    old = arm.get_params(name)
    (result,) = arm.set_params(**params)
    assert not result.successful
    assert needle in result.reason
    assert arm.get_params(name) == old
    reply = arm.send(pose(0.3, 0.2))
    assert (reply.code, reply.values['elbow']) == (NodeStatus.REACHED, 'up')


def test_lower_above_upper_rejected(arm, restore):
    first, second = arm.set_params(joint_upper_limits=[1.0, 1.0], joint_lower_limits=[2.0, -1.0])
    assert first.successful, first.reason
    assert not second.successful
    assert 'joint_lower_limits: shoulder lower limit 2.0 is above its upper limit 1.0' \
        in second.reason
    assert arm.get_params('joint_lower_limits') == {
        'joint_lower_limits': list(SHIPPED.joint_lower_limits)}


@pytest.mark.parametrize('params, reason', [
    ({'link_lengths': [0.5, 0.5]},
     'link_lengths: read-only; give it at start (params file or -p link_lengths:=...)'),
    ({'plane': 'xz'}, 'plane: read-only; give it at start (params file or -p plane:=...)'),
    ({'out_of_plane_tolerance': 0.5}, 'out_of_plane_tolerance: read-only; give it at start '
                                      '(params file or -p out_of_plane_tolerance:=...)'),
    # rclpy alone answered "Wrong parameter type, expected '4' got '2'".
    ({'elbow': 3}, 'elbow: expected a string, got integer 3'),
    ({'allow_elbow_flip': 'no'}, "allow_elbow_flip: expected true or false, got string 'no'"),
    ({'joint_upper_limits': [1, 2]}, 'joint_upper_limits: expected an array of 2 to 5 doubles '
                                     '(write 1.0, not 1), got integer_array [1, 2]'),
])
def test_read_only_and_wrong_type_rejected_in_words(arm, params, reason):
    name = next(iter(params))
    old = arm.get_params(name)
    (result,) = arm.set_params(**params)
    assert (result.successful, result.reason) == (False, reason)
    assert arm.get_params(name) == old


def test_unknown_parameter_rejected_in_words(arm):
    # rclpy alone answered "Invalid access to undeclared parameter(s): []".
    (result,) = arm.set_params(elbw='down')
    assert not result.successful
    assert result.reason.startswith(f'elbw: no such parameter on {arm.node_name} (its '
                                    'parameters: allow_elbow_flip, allow_reach_back, '
                                    'approach_pitch, arm_shape, base_frame, ')
    assert ', elbow, ' in result.reason


def test_joint_limits_change_flips_then_limits(arm, restore):
    x, y = 0.3, 0.2
    # Elbow up needs q2 in [-pi, 0] (modulo whole turns); forbid it.
    results = arm.set_params(joint_lower_limits=[-math.inf, 0.0],
                             joint_upper_limits=[math.inf, 3.0])
    assert all(r.successful for r in results)
    flipped = arm.send(pose(x, y))
    assert (flipped.name, flipped.code, flipped.status.level) == ('ELBOW_FLIPPED', 4, WARN)
    assert flipped.reachable is True
    assert wrapped(flipped.q[1]) >= 0.0 and flipped.values['elbow'] == 'down'
    np.testing.assert_allclose(tip_xy(flipped.q), (x, y), atol=FK_TOLERANCE)

    assert arm.set_params(allow_elbow_flip=False)[0].successful
    limited = arm.send(pose(x, y))
    assert (limited.name, limited.code, limited.status.level) == ('JOINT_LIMITED', 3, WARN)
    assert limited.reachable is False
    assert wrapped(limited.q[1]) >= 0.0
    tip = tip_xy(limited.q)
    error = math.hypot(tip[0] - x, tip[1] - y)
    assert error > 1e-3
    assert float(limited.values['tip_error']) == pytest.approx(error, abs=1e-6)
    assert limited.status.message.startswith('JOINT_LIMITED: joint limits keep the tip')


# -- second instance: namespace, plane, limits ------------------------------------------------


def test_namespace_gives_the_arm_its_own_topics(servo, probe):
    probe.wait_for_node('/left_arm/two_bone_ik')
    node = probe.node
    for topic in ('/left_arm/joint_commands', '/left_arm/reachable', '/left_arm/ik_status'):
        assert [i.node_namespace for i in node.get_publishers_info_by_topic(topic)] == \
            ['/left_arm']
    assert [i.node_namespace for i in node.get_subscriptions_info_by_topic(
        '/left_arm/target_pose')] == ['/left_arm']
    assert '/left_arm' in [i.node_namespace
                           for i in node.get_publishers_info_by_topic('/diagnostics')]
    assert servo.get_params('plane', 'elbow') == {'plane': 'xz', 'elbow': 'up'}

    reply = servo.send(pose(0.12, 0.0, 0.06))  # xz plane: u = x, v = z
    assert list(reply.joints.name) == ['shoulder_servo', 'elbow_servo']
    assert reply.status.name == '/left_arm/two_bone_ik'
    assert (reply.name, reply.reachable) == ('REACHED', True)
    np.testing.assert_allclose(tip_xy(reply.q, servo.config), (0.12, 0.06), atol=FK_TOLERANCE)
    assert wrapped(reply.q[1]) <= 0.0  # elbow up: above the shoulder-target line


def test_servo_arm_plane_and_limits(servo):
    config = servo.config
    lower, upper = config.joint_lower_limits, config.joint_upper_limits

    off = servo.send(pose(0.14, 0.01, 0.05))  # y is off the xz plane
    assert (off.name, off.reachable) == ('OFF_PLANE', False)
    assert off.values['solver_status'] == 'REACHED'
    assert float(off.values['off_plane']) == pytest.approx(-0.01)  # joint axis is -y
    np.testing.assert_allclose(tip_xy(off.q, config), (0.14, 0.05), atol=FK_TOLERANCE)

    behind = servo.send(pose(-0.15, 0.0, -0.05))  # needs the shoulder beyond -90 degrees
    assert (behind.name, behind.code, behind.reachable) == ('JOINT_LIMITED', 3, False)
    assert all(lo - 1e-9 <= q <= hi + 1e-9 for q, lo, hi in zip(behind.q, lower, upper))
    tip = tip_xy(behind.q, config)
    error = math.hypot(tip[0] + 0.15, tip[1] + 0.05)
    assert float(behind.values['tip_error']) == pytest.approx(error, abs=1e-6)


# -- start-up failures and signals (own processes) --------------------------------------------


BAD_CONFIGS = {
    'negative_length': ({'link_lengths': [0.3, -0.1]}, 'link_lengths'),
    'three_lengths': ({'link_lengths': [0.3, 0.2, 0.1]}, 'link_lengths'),
    'integer_lengths': ({'link_lengths': [1, 2]}, 'link_lengths'),
    'one_joint_name': ({'joint_names': ['shoulder']}, 'joint_names'),
    'unknown_plane': ({'plane': 'xw'}, 'plane'),
    'unknown_elbow': ({'elbow': 'sideways'}, 'elbow'),
    'lower_above_upper': ({'joint_lower_limits': [0.5, 0.0],
                           'joint_upper_limits': [0.4, 1.0]}, 'joint_lower_limits'),
    'tolerance_out_of_range': ({'out_of_plane_tolerance': 50.0}, 'out_of_plane_tolerance'),
    'radii_for_another_arm': ({'link_radius': [0.02, 0.02]}, 'link_radius'),
    'shoulder_on_the_floor': ({'plane': 'xz', 'floor_height': 0.0}, 'link_radius'),
    'box_inside_out': ({'keep_out_boxes': [0.3, 0.0, 0.0, 0.2, 0.1, 0.1]}, 'keep_out_boxes'),
    'unknown_path': ({'motion_path': 'curved'}, 'motion_path'),
}


@pytest.fixture(scope='module')
def bad_config_runs(domain, tmp_path_factory):
    """Start one node per bad config at once (they exit at start) and collect the results."""
    log_dir = tmp_path_factory.mktemp('bad_configs')
    processes = {}
    for case, (params, _) in BAD_CONFIGS.items():
        params_file = write_params(log_dir / f'{case}.yaml', params)
        processes[case] = NodeProcess('two_bone_ik', params_file=params_file, domain_id=domain,
                                      log_dir=log_dir, name=case).start()
    try:
        yield {case: (process.wait(), process.stdout, process.stderr)
               for case, process in processes.items()}
    finally:
        for process in processes.values():
            process.stop()


@pytest.mark.parametrize('case', list(BAD_CONFIGS))
def test_bad_config_exits_with_one_readable_line(bad_config_runs, case):
    returncode, stdout, stderr = bad_config_runs[case]
    parameter = BAD_CONFIGS[case][1]
    assert returncode == EXIT_BAD_CONFIG == 2  # the exit code README promises
    assert 'Traceback' not in stdout + stderr
    lines = [line for line in (stdout + stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f'two_bone_ik: invalid parameter {parameter}: '), lines


def test_qos_overrides_and_unknown_parameter_warning(domain, probe, tmp_path):
    # Standard QoS override parameters apply to the command path (here: best effort input);
    # a misspelt parameter is warned about.
    params = write_params(tmp_path / 'qos.yaml', {'elbw': 'down', 'qos_overrides': {
        '/qos_test/target_pose': {'subscription': {'reliability': 'best_effort'}}}})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/qos_test'],
                     domain_id=domain, log_dir=tmp_path) as process:
        target = probe.publisher(PoseStamped, '/qos_test/target_pose')
        probe.wait_for_subscribers(target)
        (info,) = probe.node.get_subscriptions_info_by_topic('/qos_test/target_pose')
        assert info.qos_profile.reliability == ReliabilityPolicy.BEST_EFFORT
        wait_until(lambda: "ignoring unknown parameter 'elbw' (misspelt?)" in process.stderr,
                   what='the misspelt parameter warned about', processes={'node': process})
        probe.node.destroy_publisher(target)
        assert process.returncode is None


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
def test_clean_exit_on_signal_inside_a_publish(domain, probe, tmp_path, signum):
    # The signal lands inside the callback's publish of the 3rd joint command, and the publish
    # goes on once rclpy has shut the context down (test/process_hooks): it fails with rcl's
    # "publisher's context is invalid", which must still be a clean exit.
    env = signal_inside_publish('/busy/joint_commands', 3, signum)
    with NodeProcess('two_bone_ik', ros_args=['-r', '__ns:=/busy'], domain_id=domain,
                     log_dir=tmp_path, env_extra=env) as process:
        target = probe.publisher(PoseStamped, '/busy/target_pose')
        probe.wait_for_subscribers(target)
        wait_until(lambda: target.publish(pose(0.3, 0.1)) or process.returncode is not None,
                   what='the node to exit')
        returncode = process.wait()
        probe.node.destroy_publisher(target)
    assert returncode == 0, process.output()
    assert 'Traceback' not in process.stderr + process.stdout, process.output()


@pytest.mark.parametrize('stage', ['teardown', 'exit'])
def test_a_second_ctrl_c_while_stopping_is_ignored(domain, tmp_path, stage):
    # Under ros2 launch a terminal's Ctrl-C reaches each node twice (the terminal's and the one
    # launch forwards). The second, landing while the node is destroyed or while Python exits,
    # used to kill the process by the signal (exit -2).
    with NodeProcess('two_bone_ik', ros_args=['-r', '__ns:=/twice'], domain_id=domain,
                     log_dir=tmp_path, name=f'twice_{stage}',
                     env_extra=signal_while_stopping(stage)) as process:
        wait_until(lambda: 'ready: ' in process.stderr, what='the ready line')
        returncode = process.interrupt()
    assert returncode == 0, process.output()
    assert 'Traceback' not in process.stderr + process.stdout, process.output()


# -- start-up noise, a node of its own each ---------------------------------------------------


def only_line(process):
    lines = [line for line in (process.stdout + process.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, process.output()
    return lines[0]


@pytest.mark.parametrize('text, expected', [
    ('two_bone_ik:\n  ros__parameters:\n    elbow: [up\n',
     r"^two_bone_ik: cannot start: params file '.*bad\.yaml': not valid YAML at line 4: "),
    ('two_bone_ik:\n  ros__parameters:\n    link_lengths: [0.3, 1]\n',
     r"^two_bone_ik: cannot start: params file '.*bad\.yaml': two_bone_ik: link_lengths: a "
     r'list must hold one type, got \[0\.3, 1\]; write 1\.0, not 1, for a double$'),
    (None, r"^two_bone_ik: cannot start: params file '.*bad\.yaml': No such file or directory$"),
], ids=['yaml_syntax', 'mixed_list', 'missing'])
def test_malformed_params_file_is_one_readable_line(domain, tmp_path, text, expected):
    path = tmp_path / 'bad.yaml'
    if text is not None:
        path.write_text(text)
    process = NodeProcess('two_bone_ik', params_file=path, domain_id=domain, log_dir=tmp_path,
                          name='bad_file').start()
    assert process.wait() == EXIT_BAD_CONFIG, process.output()
    line = only_line(process)  # no "[rcl]: Failed to parse global arguments" beside it
    assert re.match(expected, line), line
    assert '.c:' not in line


def test_command_line_rcl_refuses_is_one_line_without_c_sources(domain, tmp_path):
    process = NodeProcess('two_bone_ik', ros_args=['-p', 'link_lengths:=[0.3,'],
                          domain_id=domain, log_dir=tmp_path, name='bad_arg').start()
    assert process.wait() == EXIT_BAD_CONFIG, process.output()
    line = only_line(process)
    assert line.startswith('two_bone_ik: cannot start: '), line
    assert 'Failed to parse global arguments' not in line and '/src/' not in line, line


def test_params_file_without_a_section_for_the_node_is_warned_about(domain, probe, tmp_path):
    params = write_params(tmp_path / 'other.yaml', {'elbow': 'down'},
                          node_name='/right_arm/two_bone_ik')
    with NodeProcess('two_bone_ik', params_file=params, domain_id=domain, log_dir=tmp_path,
                     ros_args=['-r', '__ns:=/left_arm', '-r', '__node:=unmatched']) as process:
        warning = ("params file '{}' has no section for node /left_arm/unmatched (its keys: "
                   '/right_arm/two_bone_ik); key it /**/unmatched').format(params)
        wait_until(lambda: warning in process.stderr, what='the warning',
                   processes={'node': process})
        assert probe.get_parameters('/left_arm/unmatched', ['elbow']) == {'elbow': 'up'}


# -- a third arm: its own base frame, a wide plane tolerance, multi-turn limits ---------------


@pytest.fixture(scope='module')
def custom(domain, probe, tmp_path_factory):
    """Run an arm keyed by its full name in a file that also holds another arm."""
    log_dir = tmp_path_factory.mktemp('custom_node')
    params = log_dir / 'arms.yaml'
    params.write_text(
        '/other/two_bone_ik:\n  ros__parameters:\n    base_frame: wrong_frame\n'
        '/custom/two_bone_ik:\n  ros__parameters:\n'
        '    base_frame: arm_base\n    out_of_plane_tolerance: 0.005\n'
        '    joint_lower_limits: [-100.0, -.inf]\n    joint_upper_limits: [0.0, .inf]\n')
    config = ArmConfig(base_frame='arm_base', out_of_plane_tolerance=0.005,
                       joint_lower_limits=(-100.0, -math.inf),
                       joint_upper_limits=(0.0, math.inf))
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/custom'],
                     domain_id=domain, log_dir=log_dir, name='custom') as process:
        arm = Arm(probe, process, ns='/custom', config=config)
        arm.connect()
        yield arm
        assert process.returncode is None, process.output()


def test_commands_carry_the_configured_base_frame(custom):
    reply = custom.send(pose(0.2, 0.3, frame='arm_base'))
    assert reply.joints.header.frame_id == 'arm_base'
    assert reply.status.hardware_id == 'arm_base'
    assert custom.send(pose(0.2, 0.3, frame='base_link')).name == 'WRONG_FRAME'


def test_out_of_plane_tolerance_from_the_file_reaches_the_logic(custom, arm):
    # 0.003 m off the plane, 0.1 m beyond reach: within this arm's 0.005 m tolerance the node
    # says why the plane cannot reach it; the default arm (0.001 m) says OFF_PLANE.
    wide = custom.send(pose(0.65, 0.0, 0.003, frame='arm_base'))
    assert (wide.name, wide.reachable) == ('OUT_OF_REACH', False)
    narrow = arm.send(pose(0.65, 0.0, 0.003))
    assert (narrow.name, narrow.reachable) == ('OFF_PLANE', False)
    # A target the plane can reach exactly, 0.003 m off it: its projection reached for this
    # arm (PROJECTED, never reachable: its tip_error says how far), OFF_PLANE for the default.
    off = custom.send(pose(0.3, 0.2, 0.003, frame='arm_base'))
    assert (off.name, off.reachable) == ('PROJECTED', False)
    assert float(off.values['tip_error']) == pytest.approx(0.003, abs=1e-9)
    assert arm.send(pose(0.3, 0.2, 0.003)).name == 'OFF_PLANE'


def test_multi_turn_joint_commands_the_turn_nearest_the_last_command(custom):
    # Limits [-100, 0] rad on the shoulder: the pose at q1 = -5.10 rad is also at -99.34 rad;
    # starting from nothing the node picks the turn nearest 0, then keeps near the last command.
    first = custom.send(pose(0.3, -0.25, frame='arm_base'))
    assert first.name == 'REACHED'
    assert -2 * math.pi <= first.q[0] <= 0.0, first.q
    np.testing.assert_allclose(tip_xy(first.q), (0.3, -0.25), atol=FK_TOLERANCE)
    previous = first.q[0]
    for angle in np.linspace(-0.7, -5.0, 12):  # walk the target round, clockwise
        reply = custom.send(pose(0.45 * math.cos(angle), 0.45 * math.sin(angle),
                                 frame='arm_base'))
        assert reply.name == 'REACHED'
        assert abs(reply.q[0] - previous) < math.pi, (previous, reply.q)
        np.testing.assert_allclose(
            tip_xy(reply.q), (0.45 * math.cos(angle), 0.45 * math.sin(angle)),
            atol=FK_TOLERANCE)
        previous = reply.q[0]
    assert previous < -2 * math.pi  # followed the stream past a whole turn, no unwinding


def test_rejected_target_warnings_are_throttled(custom):
    # 8 of each: one new line per status and 5 s throttle window at most (none if an earlier
    # test opened the window), and the first of each has been logged at some point.
    before = len(custom.process.stderr)
    start = time.monotonic()
    for index in range(8):
        custom.send(pose(0.3, 0.01 * index, frame='world'))
        custom.send(pose(math.nan, 0.0, frame='arm_base'))
    windows = 1 + int((time.monotonic() - start) / 5.0)
    log = custom.process.stderr
    for name in ('WRONG_FRAME: ', 'INVALID_TARGET: '):
        assert log[before:].count(name) <= min(windows, 7), log
        assert log.count(name) >= 1, log


def test_target_too_large_for_a_limited_arm_is_invalid_not_a_crash(servo):
    # This finite target used to end a limited node with "TypeError: cannot unpack
    # non-iterable NoneType object".
    for xyz in ((-1e308, 0.0, 1.7e308), (1e308, 0.0, -1e308), (1e101, 0.0, 0.0)):
        reply = servo.send(pose(*xyz))
        assert_rejected_then_recovers(servo, reply, 'INVALID_TARGET', 12)
    assert servo.process.returncode is None


# -- markers ----------------------------------------------------------------------------------


def test_markers_show_workspace_limits_target_arm_and_closest_point(servo, probe):
    # The servo arm has limits, so every kind of marker appears: a late subscriber (latched)
    # gets the last picture, and each target gets one with its colour.
    markers = probe.collect(MarkerArray, '/left_arm/ik_markers', LATCHED)

    def kinds(array):
        return {(m.ns, m.id) for m in array.markers if m.action == Marker.ADD}

    def picture_after(status_colour, target):
        # The picture for this target: its target marker sits on the target with the colour
        # of the status (an earlier picture, latched or throttled, never matches both).
        def shows(array):
            return any(
                m.ns == 'target'
                and (m.pose.position.x, m.pose.position.y, m.pose.position.z)
                == pytest.approx(target, abs=1e-9)
                and (m.color.r, m.color.g) == pytest.approx(status_colour[:2], abs=1e-6)
                for m in array.markers)
        return markers.wait_for(shows)

    reached = servo.send(pose(0.12, 0.0, 0.06))
    assert reached.name == 'REACHED'
    array = picture_after(REACHED_GREEN, (0.12, 0.0, 0.06))
    assert array.markers[0].action == Marker.DELETEALL  # each picture replaces the last
    assert {('workspace', 0), ('workspace', 1), ('target', 0), ('arm', 0)} <= kinds(array)
    assert any(ns == 'limits' for ns, _ in kinds(array))
    assert all(m.header.frame_id == 'base_link' for m in array.markers[1:])
    (arm,) = [m for m in array.markers if m.ns == 'arm']
    tip = arm.points[-1]
    np.testing.assert_allclose((tip.x, tip.y, tip.z), (0.12, 0.0, 0.06), atol=1e-9)
    assert ('closest', 0) not in kinds(array)

    beyond = servo.send(pose(0.3, 0.0, 0.1))
    assert beyond.name == 'OUT_OF_REACH'
    array = picture_after(CLAMPED_AMBER, (0.3, 0.0, 0.1))
    assert {('closest', 0), ('closest', 1)} <= kinds(array)

    rejected = servo.send(pose(0.1, 0.0, 0.1, frame='world'))
    assert rejected.name == 'WRONG_FRAME'
    array = picture_after(REJECTED_RED, (0.1, 0.0, 0.1))
    assert ('arm', 0) not in kinds(array)
    probe.node.destroy_subscription(markers.subscription)


# -- what the IK node needs installed ---------------------------------------------------------


#: What a small robot computer running only the IK node may lack.
NOT_NEEDED = ('mujoco', 'serial', 'dynamixel_sdk', 'matplotlib', 'urdf_parser_py')


def test_ik_node_runs_without_the_sim_servo_and_plot_libraries(domain, probe, tmp_path):
    # Only rclpy, the message packages, numpy, yaml and ruckig: MuJoCo, pyserial,
    # dynamixel-sdk, matplotlib and (for an arm from its parameters) urdf_parser_py can be
    # missing. Planned motion (ruckig) included.
    params = write_params(tmp_path / 'lean.yaml', {'max_joint_velocity': [2.0, 2.0]})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/lean'],
                     domain_id=domain, log_dir=tmp_path, name='lean',
                     env_extra=without_modules(*NOT_NEEDED)) as process:
        arm = Arm(probe, process, ns='/lean')
        arm.connect()
        reply = arm.send(pose(0.2, 0.35))
        assert (reply.name, reply.values['moving']) == ('REACHED', 'true')
        np.testing.assert_allclose(tip_xy(reply.q), (0.2, 0.35), atol=FK_TOLERANCE)
        assert process.returncode is None


def test_urdf_arm_without_urdf_parser_py_says_what_to_install(domain, tmp_path):
    params = write_params(tmp_path / 'urdf.yaml', {'robot_description': '<robot name="x"/>'})
    process = NodeProcess('two_bone_ik', params_file=params, domain_id=domain, log_dir=tmp_path,
                          name='no_parser', env_extra=without_modules('urdf_parser_py')).start()
    assert process.wait() == EXIT_BAD_CONFIG, process.output()
    assert process.stderr.strip() == (
        'two_bone_ik: invalid parameter robot_description: reading a URDF needs '
        'urdf_parser_py (ROS: rosdep key urdfdom_py; pip: urdfdom-py)')
