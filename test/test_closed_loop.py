"""Closed loop over DDS: the real IK node commands the real simulated arm; check the measured tip.

Both nodes run as processes on localhost in this test's own ROS domain, configured from the same
params file. The measured tip (``tip_pose`` from the sim) must settle within 1 mm of a reachable
target, within 1 mm of the closest workspace point for an unreachable one, and after an elbow
switch through the parameter service the measured elbow must be on the requested side.
"""

import dataclasses
import math

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from ik_client import unsupervised
import numpy as np
import pytest
from ros_harness import isolate_ros_domain
from ros_harness import NodeProcess
from ros_harness import REPO_ROOT
from ros_harness import RosProbe
from ros_harness import WaitTimeout
from ros_harness import write_params
from sensor_msgs.msg import JointState

from two_bone_ik.arm.desktop_config import desktop_geometry, DesktopConfig
from two_bone_ik.arm.params_file import load_arm_config
from two_bone_ik.arm.plane import from_plane
from two_bone_ik.arm.urdf_import import arm_from_urdf
from two_bone_ik.solver import elbow_position
from two_bone_ik.solver import forward
from urdf_arms import chain_tip, DESKTOP_5, DESKTOP_PARAMETERS, RAISED_UP

SHIPPED = REPO_ROOT / 'config' / 'two_bone_ik.yaml'
#: The shipped default arm (0.30 + 0.25 m in the xy plane) with its joints freed, so the loop
#: closes over the whole workspace, the inner hole included.
CONFIG = dataclasses.replace(load_arm_config(SHIPPED), joint_lower_limits=(-math.inf, -math.inf),
                             joint_upper_limits=(math.inf, math.inf))
L1, L2 = CONFIG.link_lengths
INNER, OUTER = abs(L1 - L2), L1 + L2

#: Measured tip within this of its goal (m) ...
TOLERANCE = 1e-3
#: ... for this many consecutive tip_pose messages counts as settled.
SETTLED_SAMPLES = 10


def closest_workspace_point(x, y):
    """Closest point of the annulus INNER <= r <= OUTER to (x, y) (no joint limits)."""
    r = math.hypot(x, y)
    clamped = min(max(r, INNER), OUTER)
    return (x * clamped / r, y * clamped / r)


def _nanoseconds(stamp):
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def _about(status, target):
    """Whether an ``ik_status`` is about ``target`` (by the distance it carries)."""
    distance = f'{math.hypot(*target):.6f}'
    return any(kv.key == 'target_distance' and kv.value == distance for kv in status.values)


class Loop:
    """The IK node and the sim, driven and observed by a probe."""

    def __init__(self, ik, sim, probe):
        self.ik, self.sim, self.probe = ik, sim, probe
        self.targets = probe.publisher(PoseStamped, 'target_pose')
        self.tips = probe.collect(PoseStamped, 'tip_pose')
        self.states = probe.collect(JointState, 'joint_states')
        self.statuses = probe.collect(DiagnosticStatus, 'ik_status')
        self.commands = probe.collect(JointState, 'joint_commands')
        probe.wait_for_subscribers(self.targets)
        probe.wait_for_publishers(self.commands)
        probe.wait_for_publishers(self.tips)
        probe.wait_for_publishers(self.states)
        probe.wait_for_publishers(self.statuses)

    @staticmethod
    def target_msg(x, y):
        msg = PoseStamped()
        msg.header.frame_id = CONFIG.base_frame
        msg.pose.position.x, msg.pose.position.y = float(x), float(y)
        msg.pose.orientation.w = 1.0
        return msg

    def send(self, x, y):
        self.targets.publish(self.target_msg(x, y))

    def _settled_at(self, goal, start, after):
        run = 0
        for msg in self.tips.messages[start:]:
            if _nanoseconds(msg.header.stamp) <= after:
                continue
            p = msg.pose.position
            near = math.hypot(p.x - goal[0], p.y - goal[1]) < TOLERANCE and abs(p.z) < TOLERANCE
            run = run + 1 if near else 0
            if run >= SETTLED_SAMPLES:
                return msg
        return None

    def settle(self, goal, after, timeout=20.0):
        """Spin until the measured tip, after time ``after``, stays within TOLERANCE of ``goal``.

        Only tips measured after ``after`` (ns since the epoch, e.g. the stamp of the command
        that went there) count, so a tip that was already there from an earlier test does not.
        Returns the settled tip message.
        """
        start = len(self.tips)
        return self.probe.spin_until(lambda: self._settled_at(goal, start, after), timeout,
                                     f'the tip to settle at {goal}')

    def command_for(self, goal, start, timeout=15.0):
        """Wait for the joint command (from index ``start``) whose tip is ``goal``."""
        def reaches_goal(msg):
            return np.allclose(forward(*msg.position, L1, L2), goal, rtol=0.0, atol=1e-9)
        return self.commands.wait_for(reaches_goal, start=start, timeout=timeout)

    def status_for(self, target, start, timeout=15.0):
        """Wait for the IK node's ``ik_status`` about ``target`` (from index ``start``).

        Matched by the target's distance from the shoulder, which the status carries. Returns
        ``(message, {key: value})``.
        """
        msg = self.statuses.wait_for(lambda m: _about(m, target), start=start, timeout=timeout)
        return msg, {kv.key: kv.value for kv in msg.values}

    def status_for_index(self, target, start):
        """Return the first ``ik_status`` about ``target`` from index ``start``, or None."""
        return next((m for m in self.statuses.messages[start:] if _about(m, target)), None)

    def drive(self, target, goal, timeout=20.0):
        """Send ``target``, wait until the tip settles at ``goal``; return (tip, ik_status values).

        The tip is the settled ``tip_pose`` message, measured after the command for ``target``
        was sent: every call checks a move of its own, whatever earlier tests left behind.
        """
        start = len(self.statuses)
        commands = len(self.commands)
        self.send(*target)
        command = self.command_for(goal, commands)
        tip = self.settle(goal, _nanoseconds(command.header.stamp), timeout)
        return tip, self.status_for(target, start)[1]

    def check_tip_is_forward_of_joints(self, tip):
        """Check the tip is the forward kinematics of the joint_states with its stamp."""
        state = self.states.wait_for(lambda m: m.header.stamp == tip.header.stamp)
        expected = from_plane(*forward(*state.position, L1, L2), CONFIG.plane)
        p = tip.pose.position
        np.testing.assert_allclose((p.x, p.y, p.z), expected, atol=1e-9)

    def joints(self):
        """Latest measured joint angles, rad."""
        return tuple(self.states.wait_for_count(1)[-1].position)


@pytest.fixture(scope='module')
def loop(tmp_path_factory):
    domain = isolate_ros_domain()
    log_dir = tmp_path_factory.mktemp('closed_loop')
    params = write_params(log_dir / 'default_unlimited.yaml', CONFIG.as_parameters())
    sim_args = ['-p', f'arm_params_file:={params}', '-p', 'real_time_factor:=2.0',
                '-p', 'publish_rate:=50.0']
    with NodeProcess('two_bone_ik', params_file=params, domain_id=domain, log_dir=log_dir,
                     name='ik') as ik, \
            NodeProcess('two_bone_ik.nodes.sim_node', ros_args=sim_args, domain_id=domain,
                        log_dir=log_dir, name='sim') as sim, \
            RosProbe(domain) as probe:
        loop = Loop(ik, sim, probe)
        # The IK node's joint_commands must have matched the sim's subscription, and its
        # ik_status the probe (it publishes the status only to a subscriber), before a single
        # target counts: repeat a first target until the arm has gone there and it is answered.
        first = (0.35, 0.2)
        loop.tips.wait_for_count(1)
        start = len(loop.statuses)

        def answered_and_there():
            return (loop.status_for_index(first, start) is not None
                    and loop._settled_at(first, 0, 0) is not None)
        probe.publish_until(loop.targets, loop.target_msg(*first), answered_and_there, 30.0,
                            'the arm at the first target')
        yield loop
    # Both were stopped with SIGINT on leaving the block: a clean exit each.
    for process in (ik, sim):
        assert process.returncode == 0, process.output()
        assert 'Traceback' not in process.stderr, process.output()


REACHABLE = [(0.45, 0.10), (-0.20, 0.40), (0.10, -0.45), (-0.52, -0.05), (0.06, 0.04)]


@pytest.mark.parametrize('target', REACHABLE)
def test_reachable_target_settles_within_1_mm(loop, target):
    assert INNER < math.hypot(*target) < OUTER
    tip, status = loop.drive(target, target)
    # drive() saw the measured tip settle on the target; independently, the IK node says so
    # too, and the tip is the arm's own forward kinematics of its measured joints.
    assert (status['status'], status['code']) == ('REACHED', '0'), status
    assert float(status['tip_error']) < 1e-9, status
    loop.check_tip_is_forward_of_joints(tip)


UNREACHABLE = [(0.80, 0.30), (-0.10, -0.70), (0.02, -0.01), (-0.015, 0.03)]


@pytest.mark.parametrize('target', UNREACHABLE)
def test_unreachable_target_settles_at_closest_workspace_point(loop, target):
    r = math.hypot(*target)
    assert r > OUTER or r < INNER
    goal = closest_workspace_point(*target)
    tip, status = loop.drive(target, goal)
    # The IK node reports it unreachable, on the right side, with the error the tip shows.
    expected = 'OUT_OF_REACH' if r > OUTER else 'INSIDE_INNER'
    assert status['status'] == expected, status
    assert float(status['tip_error']) == pytest.approx(math.dist(target, goal), abs=1e-6)
    loop.check_tip_is_forward_of_joints(tip)


def _elbow_side(joints, target):
    """+1 if the measured elbow is on the +v side of the shoulder->target line, else -1."""
    ex, ey = elbow_position(joints[0], L1)
    return 1 if target[0] * ey - target[1] * ex > 0.0 else -1


@pytest.fixture
def elbow_restored(loop):
    """Put the IK node's elbow back to the params file's 'up' after the test."""
    yield
    results = loop.probe.set_parameters('/two_bone_ik', {'elbow': CONFIG.elbow})
    assert results[0].successful, results[0].reason


@pytest.mark.parametrize('elbow, side', [('down', -1), ('up', 1), ('down', -1)])
def test_elbow_switch_through_parameter_service(loop, elbow_restored, elbow, side):
    results = loop.probe.set_parameters('/two_bone_ik', {'elbow': elbow})
    assert results[0].successful, results[0].reason
    target = (0.30, 0.25)
    loop.drive((0.45, -0.10), (0.45, -0.10))  # away first, so the tip has to travel
    _, status = loop.drive(target, target)
    assert status['elbow'] == elbow, status
    # After settling, the latest joint_states is the settled pose.
    joints = loop.joints()
    assert _elbow_side(joints, target) == side
    q2 = math.remainder(joints[1], 2.0 * math.pi)
    assert (q2 < 0.0) if elbow == 'up' else (q2 > 0.0)


# -- the closed loop on a URDF with offsets (not the generated one) ---------------------------


#: The IK node's output (and the sim's matching input), per closed loop: the JointState topic,
#: a position controller's Float64MultiArray, a trajectory controller's JointTrajectory.
OUTPUTS = {
    'joint_commands': ({}, []),
    'position_controller': (
        {'publish_joint_commands': False, 'position_controller': 'forward_position_controller'},
        ['-p', 'position_controller:=forward_position_controller']),
    'trajectory_controller': (
        {'publish_joint_commands': False, 'trajectory_controller': 'joint_trajectory_controller'},
        ['-p', 'trajectory_controller:=joint_trajectory_controller']),
}


@pytest.fixture(scope='module', params=list(OUTPUTS))
def rrbot_loop(request, tmp_path_factory):
    """IK node and sim for the RRBot-like URDF, one params file for both, namespace /rrbot.

    The URDF's velocity limits (3 rad/s) make the IK node plan and stream each motion; each
    parameter of the fixture closes the loop through another output.
    """
    domain = isolate_ros_domain()
    log_dir = tmp_path_factory.mktemp('rrbot_loop')
    ik_params, sim_extra = OUTPUTS[request.param]
    params = write_params(log_dir / 'rrbot.yaml', {'robot_description': RAISED_UP,
                                                   'base_frame': 'base_link', **ik_params,
                                                   **unsupervised(2)})
    sim_args = ['-r', '__ns:=/rrbot', '-p', f'arm_params_file:={params}',
                '-p', 'real_time_factor:=2.0'] + sim_extra
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/rrbot'],
                     domain_id=domain, log_dir=log_dir, name='ik') as ik, \
            NodeProcess('two_bone_ik.nodes.sim_node', ros_args=sim_args, domain_id=domain,
                        log_dir=log_dir, name='sim') as sim, \
            RosProbe(domain, 'rrbot_probe') as probe:
        targets = probe.publisher(PoseStamped, '/rrbot/target_pose')
        tips = probe.collect(PoseStamped, '/rrbot/tip_pose')
        states = probe.collect(JointState, '/rrbot/joint_states')
        statuses = probe.collect(DiagnosticStatus, '/rrbot/ik_status')
        probe.wait_for_subscribers(targets)
        for collector in (tips, states, statuses):
            probe.wait_for_publishers(collector)
        # The sim's subscription must have matched the IK node's command output before the
        # first motion (a stream is sent once): the IK node says so in /diagnostics (its
        # motion status is OK, not WARN "nothing subscribes", once the sim listens).
        diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
        diagnostics.wait_for(lambda array: any(
            s.name == '/rrbot/two_bone_ik: motion' and s.level == DiagnosticStatus.OK
            for s in array.status), timeout=30.0)
        probe.node.destroy_subscription(diagnostics.subscription)
        yield probe, targets, tips, states, statuses, (ik, sim)
    for process in (ik, sim):
        assert process.returncode == 0, process.output()


def wait_until_settled(probe, tips, goal, timeout=60.0, states=None):
    """Return the tip_pose message with which the measured tip settled within 1 mm of ``goal``.

    Settled: SETTLED_SAMPLES consecutive tip_pose messages, from now on, within TOLERANCE. On a
    timeout the message says where the tip was last (and the last joint_states, if given).
    """
    first = len(tips)

    def settled():
        run = 0
        for msg in tips.messages[first:]:
            p = msg.pose.position
            run = run + 1 if math.dist((p.x, p.y, p.z), goal) < TOLERANCE else 0
            if run >= SETTLED_SAMPLES:
                return msg
        return None
    try:
        return probe.spin_until(settled, timeout, f'the tip at {goal}')
    except WaitTimeout as timeout_error:
        raise WaitTimeout(f'{timeout_error}; {_last_seen(tips, first, goal, states)}') \
            from None


def _last_seen(tips, first, goal, states):
    """Say where the tip was last (and the joints), for a timeout's message."""
    if len(tips) <= first:
        return 'no tip_pose since the target'
    p = tips.messages[-1].pose.position
    text = (f'{len(tips) - first} tip_pose messages since the target, the last at '
            f'({p.x:.6f}, {p.y:.6f}, {p.z:.6f}), {math.dist((p.x, p.y, p.z), goal):.6f} m away')
    if states is not None and len(states):
        text += f'; last joint_states {[round(q, 6) for q in states.messages[-1].position]}'
    return text


def _rrbot_target(x, y, z):
    msg = PoseStamped()
    msg.header.frame_id = 'base_link'
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = float(x), float(y), float(z)
    msg.pose.orientation.w = 1.0
    return msg


@pytest.mark.parametrize('readings', [(0.6, -1.0), (-1.2, 0.5), (2.0, 1.2)])
def test_urdf_arm_tip_settles_on_the_target(rrbot_loop, readings):
    # The sim simulates the user's URDF; the tip (its tool_link, measured in base_link) settles
    # within 1 mm of a target the URDF's own kinematics says the arm can reach, through each of
    # the IK node's outputs.
    probe, targets, tips, states, statuses, processes = rrbot_loop
    goal = chain_tip(RAISED_UP, 'base_link', 'tool_link', dict(zip(('joint1', 'joint2'),
                                                                   readings)))
    start = len(statuses)

    def answered():
        return next((m for m in statuses.messages[start:]
                     if _about_point(m, goal)), None)
    status = probe.publish_until(targets, _rrbot_target(*goal), answered, 30.0,
                                 'the IK node to answer the target')
    assert {kv.key: kv.value for kv in status.values}['status'] == 'REACHED'
    tip = wait_until_settled(probe, tips, goal)
    state = states.wait_for(lambda m: m.header.stamp == tip.header.stamp)
    p = tip.pose.position
    np.testing.assert_allclose(
        (p.x, p.y, p.z),
        chain_tip(RAISED_UP, 'base_link', 'tool_link', dict(zip(state.name, state.position))),
        atol=1e-9)
    assert all(process.returncode is None for process in processes)


def _about_point(status, goal):
    """Whether an ik_status is about the target ``goal`` (in base_link, m)."""
    values = {kv.key: kv.value for kv in status.values}
    geometry = arm_from_urdf(RAISED_UP, 'base_link')
    u, v, _ = geometry.to_plane(goal)
    return values.get('target_distance') == f'{math.hypot(u, v):.6f}'


#: A desktop arm's two descriptions, for the IK node and the sim alike: (parameters of the
#: IK node's params file, the sim's controller input, the tool point at readings).
DESKTOP_SOURCES = {
    # A base yaw, the pair, a wrist pitch and roll in a URDF, through the trajectory controller.
    'urdf': ({'robot_description': DESKTOP_5, 'base_frame': 'base_link', 'tip_frame': 'tool',
              'publish_joint_commands': False, 'trajectory_controller': 'jtc'},
             ['-p', 'trajectory_controller:=jtc'],
             lambda readings: chain_tip(DESKTOP_5, 'base_link', 'tool', dict(zip(
                 ('yaw_joint', 'shoulder_joint', 'elbow_joint', 'pitch_joint', 'roll_joint'),
                 readings)))),
    # The same shape by parameters only (the sim writes its URDF), through the position
    # controller; no viscous damping in the sim, which would slow the light hand's roll loop.
    'parameters': ({**DESKTOP_PARAMETERS, 'publish_joint_commands': False,
                    'position_controller': 'fpc'},
                   ['-p', 'position_controller:=fpc', '-p', 'joint_damping:=0.0'],
                   desktop_geometry(DesktopConfig.from_mapping(DESKTOP_PARAMETERS))
                   .tool_position),
}


@pytest.fixture(scope='module', params=list(DESKTOP_SOURCES))
def desktop_loop(request, tmp_path_factory):
    """IK node and sim for a 5-joint desktop arm, one params file for both (see the sources)."""
    domain = isolate_ros_domain()
    log_dir = tmp_path_factory.mktemp('desktop_loop')
    arm, sim_extra, tool = DESKTOP_SOURCES[request.param]
    params = write_params(log_dir / 'desktop.yaml', {
        **arm, 'max_joint_acceleration': [6.0] * 5, 'max_joint_jerk': [60.0] * 5,
        **unsupervised(5)})
    sim_args = ['-r', '__ns:=/desktop', '-p', f'arm_params_file:={params}',
                '-p', 'real_time_factor:=2.0'] + sim_extra
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/desktop'],
                     domain_id=domain, log_dir=log_dir, name='ik') as ik, \
            NodeProcess('two_bone_ik.nodes.sim_node', ros_args=sim_args, domain_id=domain,
                        log_dir=log_dir, name='sim') as sim, \
            RosProbe(domain, 'desktop_probe') as probe:
        targets = probe.publisher(PoseStamped, '/desktop/target_pose')
        tips = probe.collect(PoseStamped, '/desktop/tip_pose')
        states = probe.collect(JointState, '/desktop/joint_states')
        statuses = probe.collect(DiagnosticStatus, '/desktop/ik_status')
        probe.wait_for_subscribers(targets)
        for collector in (tips, states, statuses):
            probe.wait_for_publishers(collector)
        diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
        diagnostics.wait_for(lambda array: any(
            s.name == '/desktop/two_bone_ik: motion' and s.level == DiagnosticStatus.OK
            for s in array.status), timeout=30.0)
        probe.node.destroy_subscription(diagnostics.subscription)
        yield probe, targets, tips, states, statuses, (arm['base_frame'], tool), (ik, sim)
    for process in (ik, sim):
        assert process.returncode == 0, process.output()


@pytest.mark.parametrize('readings', [(1.8, 0.6, 0.4, 0.2, 0.7), (-0.6, 0.5, 0.6, 0.2, -0.3)])
def test_desktop_arm_tool_point_settles_on_the_target(desktop_loop, readings):
    # The measured tool point settles within 1 mm of a target the arm's own kinematics (its
    # URDF's, or its parameters') says it reaches, and it is that kinematics at the measured
    # joints.
    probe, targets, tips, states, statuses, (frame, tool), processes = desktop_loop
    goal = tool(readings)
    target = _rrbot_target(*goal)
    target.header.frame_id = frame
    start = len(statuses)
    status = probe.publish_until(  # this test alone sends targets: the next answer is ours
        targets, target,
        lambda: statuses.messages[start] if len(statuses) > start else None,
        30.0, 'the IK node to answer the target')
    assert {kv.key: kv.value for kv in status.values}['status'] == 'REACHED'
    tip = wait_until_settled(probe, tips, goal, states=states)
    state = states.wait_for(lambda m: m.header.stamp == tip.header.stamp)
    p = tip.pose.position
    np.testing.assert_allclose((p.x, p.y, p.z), tool(state.position[:5]), atol=1e-9)
    assert all(process.returncode is None for process in processes)
