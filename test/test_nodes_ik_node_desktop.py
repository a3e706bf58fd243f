"""The IK node driving desktop arms (4 and 5 joints) from their URDF, over DDS.

The arms are our own (test/urdf_arms.py DESKTOP_4, DESKTOP_5: a base yaw, the two-bone pair, a
wrist pitch and, for DESKTOP_5, a roll; kinked links, mixed axis signs, the tool point off the
plane, a jaw off the chain). Every command is checked with an independent forward kinematics of
the URDF (ElementTree + numpy); targets are tool points of poses within the limits.
"""

import math

from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from ik_client import LATCHED, values
import numpy as np
import pytest
from ros_harness import NodeProcess, write_params
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

from two_bone_ik.arm.desktop_geometry import arm_from_description
from two_bone_ik.arm.urdf_import import chain_from_urdf
from urdf_arms import chain_tip, DESKTOP_4, DESKTOP_5

JOINTS_4 = ['yaw_joint', 'shoulder_joint', 'elbow_joint', 'pitch_joint']
JOINTS_5 = JOINTS_4 + ['roll_joint']
#: Poses within the limits whose tool points lie forward of the yaw axis (where the arm faces
#: targets; a tool point behind it is reached by reaching back over the yaw axis).
POSES_4 = [(-1.0, -0.2, 1.4, 0.6), (1.8, 0.6, 0.4, 0.2), (0.0, 0.0, 0.0, 0.0),
           (-0.6, 0.5, 0.6, 0.2)]
TOLERANCE = 1e-9


def pose(x, y, z, orientation=None, frame='base_link'):
    msg = PoseStamped()
    msg.header.frame_id = frame
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = x, y, z
    if orientation is not None:
        o = msg.pose.orientation
        o.x, o.y, o.z, o.w = orientation
    return msg


class Desktop:
    """Probe-side endpoints of a node driving a desktop arm in namespace ``ns``."""

    def __init__(self, probe, process, ns, urdf, joints):
        self.probe, self.process, self.ns = probe, process, ns
        self.urdf, self.joints = urdf, joints
        self.geometry = arm_from_description(urdf, 'base_link', 'tool')
        self.target = probe.publisher(PoseStamped, f'{ns}/target_pose')
        self.commands = probe.collect(JointState, f'{ns}/joint_commands')
        self.positions = probe.collect(Float64MultiArray, f'{ns}/fpc/commands')
        self.trajectories = probe.collect(JointTrajectory, f'{ns}/jtc/joint_trajectory')
        self.statuses = probe.collect(DiagnosticStatus, f'{ns}/ik_status')
        self.reachable = probe.collect(Bool, f'{ns}/reachable', LATCHED)
        probe.wait_for_subscribers(self.target)
        for collector in (self.commands, self.positions, self.trajectories, self.statuses):
            probe.wait_for_publishers(collector)
        start = len(self.statuses)
        probe.publish_until(self.target, pose(*self.tool(POSES_4[0][:len(joints)])),
                            lambda: len(self.statuses) > start, 30.0, 'a first answer')
        self.at_rest()

    def tool(self, readings):
        return chain_tip(self.urdf, 'base_link', 'tool', dict(zip(self.joints, readings)))

    def at_rest(self):
        self.probe.spin_until(lambda: self.commands.messages and not any(
            self.commands.messages[-1].velocity), 60.0, 'the motion to end')
        return self.commands.messages[-1]

    def send(self, msg):
        """Send a target; return its status values and the command at rest."""
        start = len(self.statuses)
        self.target.publish(msg)
        status = values(self.statuses.wait_for(lambda s: True, start=start))
        if status['code'] in ('11', '12', '13', '15'):
            return status, None
        self.probe.spin_for(0.05)
        return status, self.at_rest()


@pytest.fixture(scope='module', params=[('desktop_4', DESKTOP_4, JOINTS_4),
                                        ('desktop_5', DESKTOP_5, JOINTS_5)], ids=['4', '5'])
def arm(request, domain, probe, tmp_path_factory):
    name, urdf, joints = request.param
    log_dir = tmp_path_factory.mktemp(name)
    params = write_params(log_dir / f'{name}.yaml', {
        'robot_description': urdf, 'base_frame': 'base_link', 'tip_frame': 'tool',
        'position_controller': 'fpc', 'trajectory_controller': 'jtc',
        'max_joint_acceleration': [8.0] * len(joints), 'max_joint_jerk': [80.0] * len(joints)})
    with NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', f'__ns:=/{name}'],
                     domain_id=domain, log_dir=log_dir, name=name) as process:
        yield Desktop(probe, process, f'/{name}', urdf, joints)
        assert process.returncode is None, process.output()


def test_tool_point_on_the_target_in_the_urdfs_own_kinematics(arm):
    reach = arm.geometry.reach[1]
    for readings in POSES_4:
        readings = readings + (0.3,) * (len(arm.joints) - 4)
        goal = arm.tool(readings)
        status, command = arm.send(pose(*goal))
        assert status['status'] == 'REACHED', status
        assert list(command.name) == arm.joints  # chain order, no jaw
        np.testing.assert_allclose(arm.tool(command.position), goal, rtol=0,
                                   atol=TOLERANCE * reach)
        assert float(status['tip_error']) <= TOLERANCE * reach
        assert 'approach_pitch' in status
        assert arm.reachable.messages[-1].data is True


def test_controller_messages_carry_every_joint(arm):
    start_p, start_t = len(arm.positions), len(arm.trajectories)
    status, command = arm.send(pose(*arm.tool((1.8, 0.6, 0.4, 0.2, -0.4)[:len(arm.joints)])))
    trajectory = arm.trajectories.wait_for(lambda t: True, start=start_t)
    assert list(trajectory.joint_names) == arm.joints
    assert all(len(p.positions) == len(p.velocities) == len(arm.joints)
               for p in trajectory.points)
    assert list(trajectory.points[-1].velocities) == [0.0] * len(arm.joints)
    arm.positions.wait_for(lambda m: list(m.data) == list(command.position), start=start_p)
    data = np.array([m.data for m in arm.positions.messages[start_p:]])
    assert data.shape[1] == len(arm.joints)
    lower, upper = arm.geometry.lower_limits, arm.geometry.upper_limits
    assert np.all(data >= np.array(lower)) and np.all(data <= np.array(upper))
    # Within the URDF's velocity limits (3 rad/s) on every joint, one period apart.
    assert np.abs(np.diff(data, axis=0)).max() <= 3.0 / 100.0 * (1 + 1e-6)


def test_out_of_reach_is_the_closest_pose_never_reached(arm):
    status, command = arm.send(pose(2.0, 0.5, 0.3))
    assert status['status'] == 'OUT_OF_REACH'
    assert arm.reachable.messages[-1].data is False
    assert float(status['tip_error']) > 1.0


def test_approach_pitch_is_a_preference_and_orientation_a_demand(arm):
    node = f'{arm.ns}/two_bone_ik'
    goal = arm.tool((-0.6, 0.5, 0.6, 0.2, 0.0)[:len(arm.joints)])
    try:
        for asked in (0.0, -0.6):
            (result,) = arm.probe.set_parameters(node, {'approach_pitch': asked})
            assert result.successful, result.reason
            status, command = arm.send(pose(*goal))
            assert status['status'] == 'REACHED'
            np.testing.assert_allclose(arm.tool(command.position), goal, atol=1e-9)
        # The node passes the preference on (the policy itself, the reachable pitch nearest the
        # one asked, is checked against a dense search in test_solver_desktop).
        pitches = {}
        for asked in (0.0, -0.6):
            arm.probe.set_parameters(node, {'approach_pitch': asked})
            pitches[asked] = float(arm.send(pose(*goal))[0]['approach_pitch'])
        assert pitches[-0.6] < pitches[0.0]
        # With use_orientation, the orientation of a pose the arm reaches is met exactly.
        (result,) = arm.probe.set_parameters(node, {'use_orientation': True})
        assert result.successful, result.reason
        readings = (1.8, 0.6, 0.4, 0.2, 0.7)[:len(arm.joints)]
        position, quaternion = tool_pose(arm, readings)
        status, command = arm.send(pose(*position, quaternion))
        assert status['status'] == 'REACHED', status
        assert float(status['orientation_error']) <= 1e-6
        np.testing.assert_allclose(arm.tool(command.position), position, atol=1e-9)
    finally:
        arm.probe.set_parameters(node, {'use_orientation': False, 'approach_pitch': 0.0})


def tool_pose(arm, readings):
    """Return the tool point and its orientation quaternion (x, y, z, w) at ``readings``."""
    chain_pose = chain_from_urdf(arm.urdf, 'base_link', 'tool').forward(readings)
    m = np.array(chain_pose.rotation).reshape(3, 3)
    w = math.sqrt(max(0.0, 1.0 + m[0, 0] + m[1, 1] + m[2, 2])) / 2.0
    x = math.copysign(math.sqrt(max(0.0, 1.0 + m[0, 0] - m[1, 1] - m[2, 2])) / 2.0,
                      m[2, 1] - m[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1.0 - m[0, 0] + m[1, 1] - m[2, 2])) / 2.0,
                      m[0, 2] - m[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1.0 - m[0, 0] - m[1, 1] + m[2, 2])) / 2.0,
                      m[1, 0] - m[0, 1])
    np.testing.assert_allclose(chain_pose.position, arm.tool(readings), atol=1e-12)
    return tuple(chain_pose.position), (x, y, z, w)


def test_a_target_behind_is_reached_back_unless_reach_back_is_refused(arm):
    # A tool point only the arm reaching back over its yaw axis reaches (found with the solver
    # from the last command): REACHED or ELBOW_FLIPPED with yaw_branch back; allow_reach_back
    # false at runtime: JOINT_LIMITED, the yaw facing; true again: back again.
    from two_bone_ik.solver.desktop import DesktopSolver
    solver = DesktopSolver(arm.geometry.model)
    last = tuple(arm.at_rest().position)
    rng = np.random.default_rng(2)
    lower, upper = arm.geometry.lower_limits, arm.geometry.upper_limits
    for _ in range(500):
        readings = [float(rng.uniform(lo, hi)) for lo, hi in zip(lower, upper)]
        goal = arm.tool(readings)
        expected = solver.solve(*goal, previous=last)
        if expected.yaw_branch == 'back' and expected.reachable:
            break
    assert expected.yaw_branch == 'back'
    status, command = arm.send(pose(*goal))
    assert (status['yaw_branch'], status['roll_moved']) == ('back', 'false'), status
    assert status['status'] in ('REACHED', 'ELBOW_FLIPPED')
    np.testing.assert_allclose(arm.tool(command.position), goal, rtol=0,
                               atol=TOLERANCE * arm.geometry.reach[1])
    name = f'{arm.ns}/two_bone_ik'
    try:
        results = arm.probe.set_parameters(name, {'allow_reach_back': False})
        assert all(r.successful for r in results), [r.reason for r in results]
        status, _ = arm.send(pose(*goal))
        assert (status['status'], status['yaw_branch']) == ('JOINT_LIMITED', 'facing'), status
        assert arm.reachable.messages[-1].data is False
    finally:
        results = arm.probe.set_parameters(name, {'allow_reach_back': True})
        assert all(r.successful for r in results)
    status, _ = arm.send(pose(*goal))
    assert status['yaw_branch'] == 'back'
