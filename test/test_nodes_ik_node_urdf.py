"""The IK node driving arms described by their URDF, over DDS: from the parameter and the topic.

The arms are hand-written URDFs with the traits of real ones (test/urdf_arms.py); every command
is checked with an independent forward kinematics of the URDF (ElementTree + numpy).
"""

import math

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from ik_client import Arm, LATCHED, pose, values
import numpy as np
import pytest
from ros_harness import NodeProcess, wait_until, write_params
from std_msgs.msg import String

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.urdf_import import arm_from_urdf
from two_bone_ik.ik.markers import workspace_shapes
from two_bone_ik.nodes.node_runner import EXIT_BAD_CONFIG
from urdf_arms import chain_tip, HANGING_LEG, joint_xml, RAISED_UP, SCARA, with_elements
from visualization_msgs.msg import MarkerArray

ERROR = DiagnosticStatus.ERROR


def check_command(reply, urdf, base, tip, target, tolerance=1e-9):
    """Return the commanded readings put the URDF's tip (independent FK) on ``target``."""
    readings = dict(zip(reply.joints.name, reply.joints.position))
    np.testing.assert_allclose(chain_tip(urdf, base, tip, readings), target, rtol=0.0,
                               atol=tolerance)


@pytest.fixture(scope='module')
def rrbot(domain, probe, tmp_path_factory):
    """Return the RRBot-like arm from the robot_description parameter, in namespace /rrbot."""
    log_dir = tmp_path_factory.mktemp('rrbot')
    params = write_params(log_dir / 'rrbot.yaml', {
        'robot_description': RAISED_UP, 'base_frame': 'base_link',
        # Given but unused: the URDF decides the geometry (a warning says so).
        'link_lengths': [0.3, 0.25]})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/rrbot'],
                     domain_id=domain, log_dir=log_dir, name='rrbot') as process:
        arm = Arm(probe, process, ns='/rrbot',
                  geometry=arm_from_urdf(RAISED_UP, 'base_link'))
        arm.connect()
        yield arm
        assert process.returncode is None, process.output()


def test_urdf_arm_from_the_parameter(rrbot):
    assert 'ignoring link_lengths: the arm comes from its robot description' in \
        rrbot.process.stderr
    rng = np.random.default_rng(0)
    for readings in rng.uniform(-math.pi, math.pi, size=(12, 2)):
        target = chain_tip(RAISED_UP, 'base_link', 'tool_link',
                           dict(zip(('joint1', 'joint2'), readings)))
        reply = rrbot.send(pose(*target))
        assert (reply.name, reply.reachable) == ('REACHED', True), reply.status.message
        assert list(reply.joints.name) == ['joint1', 'joint2']
        # The URDF's <limit velocity="3.0"> stands in for max_joint_velocity: planned motion.
        assert reply.values['moving'] == 'true'
        check_command(reply, RAISED_UP, 'base_link', 'tool_link', target)
    # Off the arm's plane (y = 0.2 m here, not y = 0): never REACHED.
    off = rrbot.send(pose(1.0, 0.0, 2.5))
    assert (off.name, off.reachable) == ('OFF_PLANE', False)
    assert float(off.values['off_plane']) == pytest.approx(0.2, abs=1e-9)


def test_urdf_arm_elbow_up_is_geometric(rrbot):
    # RRBot's axes are along +y (directions -1): "up" is still the elbow above the line.
    geometry = rrbot.geometry
    for elbow, above in (('up', True), ('down', False)):
        assert rrbot.set_params(elbow=elbow)[0].successful
        reply = rrbot.send(pose(1.2, 0.2, 1.95))
        elbow_z = geometry.elbow_position(reply.q)[2]
        assert (elbow_z > 1.95) is above, (elbow, reply.q)
    assert rrbot.set_params(elbow='up')[0].successful


def test_urdf_arm_limits_narrowed_at_runtime(rrbot):
    # The URDF's joints are continuous; a runtime limit narrows them, and a target that needs
    # more comes back JOINT_LIMITED with readings inside the narrowed limits.
    results = rrbot.set_params(joint_lower_limits=[-0.5, -0.5], joint_upper_limits=[0.5, 0.5])
    assert all(r.successful for r in results), [r.reason for r in results]
    try:
        reply = rrbot.send(pose(-1.5, 0.2, 1.0))
        assert reply.name == 'JOINT_LIMITED'
        assert all(-0.5 - 1e-9 <= q <= 0.5 + 1e-9 for q in reply.q)
    finally:
        results = rrbot.set_params(joint_lower_limits=[-math.inf, -math.inf],
                                   joint_upper_limits=[math.inf, math.inf])
        assert all(r.successful for r in results)


def test_urdf_arm_from_the_topic_and_a_new_one_while_targets_stream(domain, probe, tmp_path):
    params = write_params(tmp_path / 'topic.yaml', {
        'robot_description_topic': 'robot_description', 'base_frame': 'base_link'})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/topic_arm'],
                     domain_id=domain, log_dir=tmp_path, name='topic_arm') as process:
        arm = Arm(probe, process, ns='/topic_arm', config=ArmConfig())
        descriptions = probe.publisher(String, '/topic_arm/robot_description', LATCHED)
        diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
        markers = probe.collect(MarkerArray, '/topic_arm/ik_markers', LATCHED)
        arm.probe.wait_for_subscribers(arm.target)
        for collector in (arm.reachable, arm.status):
            arm.probe.wait_for_publishers(collector)
        # No description yet: NO_ARM_DESCRIPTION, not reachable, nothing commanded.
        start = len(arm.status)
        arm.probe.publish_until(arm.target, pose(1.0, 0.2, 1.95),
                                lambda: len(arm.status) > start, what='the first answer')
        waiting = arm.status.messages[start]
        assert (values(waiting)['status'], values(waiting)['code'], waiting.level) == \
            ('NO_ARM_DESCRIPTION', '13', ERROR)
        assert arm.reachable.last.data is False
        assert len(arm.joints) == 0

        # The description arrives (latched, as robot_state_publisher publishes it).
        descriptions.publish(String(data=RAISED_UP))
        target = chain_tip(RAISED_UP, 'base_link', 'tool_link', {'joint1': 0.4, 'joint2': -0.8})
        wait_until(lambda: 'robot_description: arm from its URDF' in process.stderr,
                   what='the arm from the topic')
        reply = arm.send(pose(*target))
        assert (reply.name, list(reply.joints.name)) == ('REACHED', ['joint1', 'joint2'])
        check_command(reply, RAISED_UP, 'base_link', 'tool_link', target)

        # A bad description: an ERROR, and the arm in force stays.
        descriptions.publish(String(data=SCARA.replace('type="revolute"', 'type="prismatic"',
                                                       1)))
        wait_until(lambda: "joint 'joint1' (prismatic" in process.stderr,
                   what='the bad description refused')
        kept = arm.send(pose(*target))
        assert kept.name == 'REACHED'
        check_command(kept, RAISED_UP, 'base_link', 'tool_link', target)
        report = diagnostics.wait_for(lambda a: any(
            s.name == '/topic_arm/two_bone_ik: arm' and s.level == ERROR
            and 'prismatic' in s.message for s in a.status))
        arm_status = [s for s in report.status if s.name.endswith(': arm')][0]
        assert 'prismatic' in arm_status.message and 'previous arm stays' in arm_status.message

        # A new description while targets stream: every target is answered, by one arm or
        # the other, each command right for the arm whose joints it names.
        leg_target = chain_tip(HANGING_LEG, 'base_link', 'foot', {'hip': 0.3, 'knee': -0.6})
        # Each target waits for its answer (a burst would overflow the depth-10 queues).
        sent, replies = [], []
        for index in range(30):
            if index == 20:
                descriptions.publish(String(data=HANGING_LEG))
            replies.append(arm.send(pose(*target)))
            sent.append(target)
        wait_until(lambda: 'arm from its URDF: links 0.16 + 0.16 m' in process.stderr,
                   what='the second arm from the topic')
        for _ in range(10):
            replies.append(arm.send(pose(*leg_target)))
            sent.append(leg_target)
        arms = {('joint1', 'joint2'): (RAISED_UP, 'tool_link'), ('hip', 'knee'): (HANGING_LEG,
                                                                                  'foot')}
        seen = set()
        for goal, reply in zip(sent, replies):
            names = tuple(reply.joints.name)
            urdf, tip = arms[names]
            seen.add(names)
            if reply.name == 'REACHED':
                readings = dict(zip(names, reply.q))
                np.testing.assert_allclose(chain_tip(urdf, 'base_link', tip, readings), goal,
                                           atol=1e-9)
            else:  # the other arm's target lies off this arm's plane
                assert reply.name == 'OFF_PLANE', reply.status.message
        assert seen == set(arms)
        assert all(reply.name == 'REACHED' for reply in replies[-10:])
        # The markers follow the new arm: its reach circle, not the first arm's.
        leg_circle = workspace_shapes(arm_from_urdf(HANGING_LEG, 'base_link', 'foot'))[0]

        def shows_leg(array):
            return any((m.ns, m.id) == ('workspace', 0) and len(m.points) == len(
                leg_circle.points) and np.allclose([(p.x, p.y, p.z) for p in m.points],
                                                   leg_circle.points, atol=1e-9)
                       for m in array.markers)
        markers.wait_for(shows_leg)
        assert process.returncode is None, process.output()


def test_urdf_arm_from_a_description_published_before_the_node_started(domain, probe, tmp_path):
    # robot_state_publisher usually starts first and publishes once, latched: the node's
    # subscription must be transient local to get it.
    descriptions = probe.publisher(String, '/early_arm/robot_description', LATCHED)
    descriptions.publish(String(data=RAISED_UP))
    params = write_params(tmp_path / 'early.yaml', {
        'robot_description_topic': 'robot_description', 'base_frame': 'base_link'})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/early_arm'],
                     domain_id=domain, log_dir=tmp_path, name='early_arm') as process:
        wait_until(lambda: 'robot_description: arm from its URDF' in process.stderr,
                   what='the arm from the description published before the node started')
        arm = Arm(probe, process, ns='/early_arm',
                  geometry=arm_from_urdf(RAISED_UP, 'base_link'))
        arm.connect()
        target = chain_tip(RAISED_UP, 'base_link', 'tool_link', {'joint1': -0.3, 'joint2': 1.1})
        reply = arm.send(pose(*target))
        assert reply.name == 'REACHED', reply.status.message
        check_command(reply, RAISED_UP, 'base_link', 'tool_link', target)


def test_bad_description_parameter_exits_with_one_line(domain, tmp_path):
    params = write_params(tmp_path / 'bad.yaml', {
        'robot_description': SCARA, 'base_frame': 'base_link', 'tip_frame': 'nowhere'})
    process = NodeProcess('two_bone_ik', params_file=params, domain_id=domain,
                          log_dir=tmp_path, name='bad_description').start()
    assert process.wait() == EXIT_BAD_CONFIG, process.output()
    lines = [line for line in (process.stdout + process.stderr).splitlines() if line.strip()]
    assert lines == ["two_bone_ik: invalid parameter tip_frame: 'nowhere' is not a link of the "
                     'robot description (links: base_link, flange, link1, link2, tool0)'], lines


def test_given_max_joint_velocity_replaces_the_urdfs(domain, probe, tmp_path):
    params = write_params(tmp_path / 'steps.yaml', {
        'robot_description': RAISED_UP, 'base_frame': 'base_link',
        'max_joint_velocity': [math.inf, math.inf]})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/steps'],
                     domain_id=domain, log_dir=tmp_path, name='steps') as process:
        arm = Arm(probe, process, ns='/steps', geometry=arm_from_urdf(RAISED_UP, 'base_link'))
        arm.connect()
        target = chain_tip(RAISED_UP, 'base_link', 'tool_link', {'joint1': 1.0, 'joint2': 0.5})
        reply = arm.send(pose(*target))
        assert (reply.name, reply.values['moving']) == ('REACHED', 'false')
        assert list(reply.joints.velocity) == []  # one command, not a stream
        check_command(reply, RAISED_UP, 'base_link', 'tool_link', target)


def test_hostile_descriptions_on_the_topic_are_refused_at_once(domain, probe, tmp_path):
    # A cycle used to block the executor for good (targets, ~/stop and parameter calls never
    # answered, memory growing); a description of hundreds of thousands of links, for minutes.
    # Now each is an ERROR at once, and the arm in force stays.
    params = write_params(tmp_path / 'hostile.yaml', {
        'robot_description_topic': 'robot_description', 'base_frame': 'base_link',
        'tip_frame': 'tool0'})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/hostile'],
                     domain_id=domain, log_dir=tmp_path, name='hostile') as process:
        descriptions = probe.publisher(String, '/hostile/robot_description', LATCHED)
        descriptions.publish(String(data=SCARA))
        wait_until(lambda: 'robot_description: arm from its URDF' in process.stderr,
                   what='the arm from the topic', processes={'node': process})
        geometry = arm_from_urdf(SCARA, 'base_link', 'tool0')
        arm = Arm(probe, process, ns='/hostile', geometry=geometry)
        arm.connect()
        target = chain_tip(SCARA, 'base_link', 'tool0', {'joint1': 0.4, 'joint2': -0.8})
        cycle = with_elements(SCARA, joint_xml('back', 'fixed', 'tool0', 'base_link'))
        huge = with_elements(SCARA, *(f'<link name="l{i}"/>' for i in range(200_000)))
        for description, refusal in ((cycle, 'the joints form a cycle'),
                                     (huge, "200047 tags ('<'); at most")):
            descriptions.publish(String(data=description))
            wait_until(lambda: refusal in process.stderr, what='the description refused',
                       processes={'node': process})
            reply = arm.send(pose(*target))
            assert reply.name == 'REACHED', reply.status.message
            check_command(reply, SCARA, 'base_link', 'tool0', target)
        assert process.returncode is None, process.output()


def test_a_description_republished_mid_motion(domain, probe, tmp_path):
    # robot_state_publisher restarting republishes the same URDF: the motion in flight was
    # dropped without braking (no command after the republish, the goal lost) and the next
    # one started from a lagging measurement. Now the same text changes nothing, and a
    # different one brakes (as ~/stop) and the next motion goes on from the commanded state.
    params = write_params(tmp_path / 'republish.yaml', {
        'robot_description_topic': 'robot_description', 'base_frame': 'base_link',
        'max_joint_acceleration': [3.0, 3.0], 'max_joint_jerk': [30.0, 30.0]})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/republish'],
                     domain_id=domain, log_dir=tmp_path, name='republish') as process:
        descriptions = probe.publisher(String, '/republish/robot_description', LATCHED)
        descriptions.publish(String(data=SCARA))
        wait_until(lambda: 'robot_description: arm from its URDF' in process.stderr,
                   what='the arm from the topic')
        arm = Arm(probe, process, ns='/republish', geometry=arm_from_urdf(SCARA, 'base_link'))
        arm.connect()
        arm.wait_at_rest()
        goal = {'joint1': 2.0, 'joint2': -1.5}
        start = len(arm.joints)
        arm.target.publish(pose(*chain_tip(SCARA, 'base_link', 'tool0', goal)))
        arm.joints.wait_for_count(start + 20)
        descriptions.publish(String(data=SCARA))  # the same text
        arm.joints.wait_for(lambda m: np.allclose(m.position, list(goal.values()), atol=1e-9),
                            start=start, timeout=30.0)
        streamed = np.array([m.position for m in arm.joints.messages[start:]])
        assert np.abs(np.diff(streamed, axis=0)).max() <= 3.0 / 100.0 * (1 + 1e-6)

        # A different description mid-motion: braking, then on from where it stopped.
        start = len(arm.joints)
        arm.target.publish(pose(*chain_tip(SCARA, 'base_link', 'tool0',
                                           {'joint1': -1.0, 'joint2': 1.0})))
        arm.joints.wait_for_count(start + 25)
        descriptions.publish(String(data=SCARA.replace('lower="-2.5" upper="2.5"',
                                                       'lower="-2.4" upper="2.4"')))
        wait_until(lambda: process.stderr.count('robot_description: arm from its URDF') == 2,
                   what='the second description')
        arm.wait_at_rest()
        braked = arm.joints.messages[-1].position
        mid = len(arm.joints)
        reply = arm.send(pose(*chain_tip(SCARA, 'base_link', 'tool0',
                                         {'joint1': 0.5, 'joint2': 0.5})))
        assert reply.name == 'REACHED'
        arm.wait_at_rest()
        after = np.array([m.position for m in arm.joints.messages[mid:]])
        assert np.abs(after[0] - braked).max() <= 3.0 / 100.0 * (1 + 1e-6)
        whole = np.array([m.position for m in arm.joints.messages[start:]])
        assert np.abs(np.diff(whole, axis=0)).max() <= 3.0 / 100.0 * (1 + 1e-6)
        assert process.returncode is None, process.output()
