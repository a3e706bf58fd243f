"""The SO-101 end to end over DDS: a target in, the servos' raw goals out, the readings back.

The IK node on ``config/so101.yaml`` -> ``joint_commands`` -> the servo driver on the same file
(``protocol: feetech``), with ``port`` pointed at six emulated STS3215s on a pseudo-terminal
(``bus_servo_emulators.FeetechEmulator``, ideal servos: present position = goal) and
``calibration_file`` at a LeRobot calibration file written here, as ``so101.launch.py`` starts
them, in a namespace. What is checked, with oracles of the test's own:

- the servos end at the raw goals LeRobot's degrees formula gives for the IK's readings
  (``raw = mid + s * q * 4095 / 2 pi``, rounded, within [range_min, range_max]);
- ``joint_states`` reads those raw positions back through the same formula;
- the tool point of the read-back readings, by an independent forward kinematics
  (``urdf_arms.chain_tip``) of the URDF ``two_bone_ik_urdf`` writes from the file, is on the
  target to within the servos' resolution, and that of the IK's own readings exactly; by the
  same kinematics the gripper points straight down (approach pitch -pi/2);
- the arm's commands leave the gripper where the driver held it at connect;
- a ``joint_commands`` message naming only the gripper moves only the gripper's servo, and one
  beyond its calibrated range moves it onto range_max.
"""

import json
import math

from bus_servo_emulators import FeetechEmulator
from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from ik_client import values
import numpy as np
import pytest
from ros_harness import claim_domain_id, NodeProcess, REPO_ROOT, RosProbe
from sensor_msgs.msg import JointState

from test_servo_lerobot_calibration import SO101_LIKE
from two_bone_ik.nodes.urdf_command import main as urdf_main
from urdf_arms import chain_tip

SO101 = REPO_ROOT / 'config' / 'so101.yaml'
NAMESPACE = '/so101'
ARM = ('shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll')
MOTORS = ARM + ('gripper',)
#: A LeRobot calibration file as lerobot-calibrate writes one for an SO-101 (IDs 1-6, ranges
#: recorded by moving each joint, the roll over the whole turn), with one motor reversed
#: (drive_mode 1) and half-tick middles, to exercise the formula.
CALIBRATION = SO101_LIKE
TICK = 2 * math.pi / 4095   # rad per tick in LeRobot's degrees mode (it divides by 4095)
#: Table targets (m, in base_link) the arm reaches with the gripper pointing down.
TARGETS = ((0.25, 0.0, 0.02), (0.20, 0.10, 0.05))


def _mid(motor):
    entry = CALIBRATION[motor]
    return (entry['range_min'] + entry['range_max']) / 2


def _sign(motor):
    return -1.0 if CALIBRATION[motor]['drive_mode'] == 1 else 1.0


def raw_goal(motor, angle):
    """Return the raw goal of ``angle`` (rad): LeRobot's degrees mode inverted, clamped."""
    entry = CALIBRATION[motor]
    raw = math.floor(_mid(motor) + _sign(motor) * angle / TICK + 0.5)
    return min(max(raw, entry['range_min']), entry['range_max'])


def angle_of(motor, raw):
    """Return the angle (rad) of raw position ``raw``: LeRobot's degrees mode, in radians."""
    return _sign(motor) * (raw - _mid(motor)) * TICK


def approach_pitch(description, readings):
    """Return the approach pitch (rad) of ``readings`` by forward kinematics of ``description``.

    The angle, in the arm's plane, of the direction from the wrist pitch axis (the ``wrist``
    link's origin) to the tool point, from forward toward up (docs/desktop_arms.md): forward is
    the horizontal direction from the shoulder lift axis to the wrist pitch axis, both in the
    arm's plane.
    """
    def at(link):
        return chain_tip(description, 'base_link', link, readings)
    wrist = at('wrist')
    forward = (wrist - at('link1')) * (1.0, 1.0, 0.0)
    forward /= np.linalg.norm(forward)
    tool = at('tool') - wrist
    return math.atan2(tool[2], float(np.dot(tool, forward)))


def _target(x, y, z):
    msg = PoseStamped()
    msg.header.frame_id = 'base_link'
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = x, y, z
    return msg


@pytest.fixture(scope='module')
def description(tmp_path_factory):
    path = tmp_path_factory.mktemp('so101') / 'so101.urdf'
    assert urdf_main(['--params-file', str(SO101), '--node-name', f'{NAMESPACE}/two_bone_ik',
                      '-o', str(path)]) == 0
    return path.read_text()


def test_targets_to_raw_goals_and_back_then_the_gripper_alone(tmp_path, description):
    calibration = tmp_path / 'so101_follower.json'
    calibration.write_text(json.dumps(CALIBRATION, indent=4))
    reach = 0.116 + 0.135 + 0.1594   # l1 + l2 + the tool's distance from the wrist axis, m
    ids = {motor: CALIBRATION[motor]['id'] for motor in MOTORS}
    # The arm at rest in the middle of every range (all readings 0), the gripper 300
    # ticks off its middle (so a goal sent to it by mistake shows).
    start = {ids[motor]: round(_mid(motor)) for motor in MOTORS}
    start[ids['gripper']] -= 300
    domain = claim_domain_id()
    namespace = ['-r', f'__ns:={NAMESPACE}']
    with FeetechEmulator(tmp_path / 'ttyACM0', dict(start)) as device, \
            NodeProcess('two_bone_ik.nodes.servo_node', params_file=SO101,
                        ros_args=[*namespace, '-p', f'port:={device.path}',
                                  '-p', f'calibration_file:={calibration}'],
                        domain_id=domain, log_dir=tmp_path, name='servo') as servo, \
            NodeProcess('two_bone_ik', params_file=SO101, ros_args=namespace,
                        domain_id=domain, log_dir=tmp_path, name='ik') as ik, \
            RosProbe(domain, 'so101_probe') as probe:
        targets = probe.publisher(PoseStamped, f'{NAMESPACE}/target_pose')
        gripper = probe.publisher(JointState, f'{NAMESPACE}/joint_commands')
        commands = probe.collect(JointState, f'{NAMESPACE}/joint_commands')
        states = probe.collect(JointState, f'{NAMESPACE}/joint_states')
        statuses = probe.collect(DiagnosticStatus, f'{NAMESPACE}/ik_status')
        probe.wait_for_subscribers(targets)
        probe.wait_for_subscribers(gripper)
        probe.wait_for_publishers(commands)
        first = states.wait_for_count(1, timeout=60.0)[0]
        assert tuple(first.name) == MOTORS   # the driver is up and read every servo

        def tool(readings):
            return chain_tip(description, 'base_link', 'tool', readings)

        for target in TARGETS:
            seen, sent = len(statuses), len(commands)
            probe.publish_until(targets, _target(*target), lambda: len(statuses) > seen, 60.0,
                                f'the answer to {target}')

            def at_rest_there(msg):
                # A target sent twice (publish_until repeats it until it is answered) is
                # answered twice: the last command at rest near this target is its answer.
                return (len(msg.velocity) and not any(msg.velocity) and np.linalg.norm(
                    tool(dict(zip(msg.name, msg.position))) - target) < 1e-3)
            # The planned motion ends on a command at rest: the IK's readings for the target.
            final = commands.wait_for(at_rest_there, start=sent, timeout=60.0)
            assert [values(s)['status'] for s in statuses.messages[seen:]] == (
                ['REACHED'] * (len(statuses) - seen))
            assert tuple(final.name) == ARM   # the chain's joints only, never the gripper
            q = dict(zip(final.name, final.position))
            np.testing.assert_allclose(tool(q), target, rtol=0, atol=1e-9 * reach)
            # The gripper pointing down at the table (config/so101.yaml's approach_pitch).
            assert approach_pitch(description, q) == pytest.approx(-math.pi / 2, abs=1e-9)
            # The servos end at the formula's raw goals for those readings...
            goals = {ids[motor]: raw_goal(motor, q[motor]) for motor in ARM}
            device.wait_for(lambda: all(device.get(i, 'goal') == g for i, g in goals.items()),
                            timeout=30.0, what=f'the raw goals {goals}')
            # ...and joint_states reads them back through the same formula.
            state = states.wait_for(
                lambda m: all(abs(p - angle_of(motor, goals[ids[motor]])) < 1e-12
                              for motor, p in zip(m.name, m.position) if motor in ARM),
                start=len(states), timeout=30.0)
            back = dict(zip(state.name, state.position))
            assert all(abs(back[motor] - q[motor]) <= TICK / 2 + 1e-12 for motor in ARM)
            # Within half a tick on each joint, so within that many half-ticks times the
            # reach of the target (the lever of each joint is less than the reach).
            error = np.linalg.norm(tool(back) - target)
            assert error <= len(ARM) * TICK / 2 * reach, error
            # The pitch is the sum of three joints' (lift, elbow, wrist flex), each within half
            # a tick.
            assert approach_pitch(description, back) == pytest.approx(
                -math.pi / 2, abs=3 * TICK / 2 + 1e-12)

        # The arm's commands never moved the gripper: its goal is still the one the driver held
        # it at on connecting (the first Goal Position SYNC_WRITE, every servo where it was),
        # and no later Goal Position SYNC_WRITE names it.
        holds = device.sync_writes(42)
        assert holds[0] == start
        assert device.get(ids['gripper'], 'goal') == start[ids['gripper']]
        assert [goals for goals in holds[1:] if ids['gripper'] in goals] == []

        # The gripper alone, from another node: one SYNC_WRITE holding only its servo (the IK
        # node may still answer a repeated target with the same goals for the arm's five).
        arm_goals = {i: device.get(i, 'goal') for i in range(1, 6)}
        writes = len(device.sync_writes(42))

        def gripper_writes():
            return [goals for goals in device.sync_writes(42)[writes:] if ids['gripper'] in goals]
        gripper.publish(JointState(name=['gripper'], position=[0.3]))
        device.wait_for(gripper_writes, timeout=30.0, what='the gripper goal')
        assert gripper_writes() == [{ids['gripper']: raw_goal('gripper', 0.3)}]
        assert {i: device.get(i, 'goal') for i in range(1, 6)} == arm_goals
        states.wait_for(lambda m: dict(zip(m.name, m.position))['gripper'] == pytest.approx(
            angle_of('gripper', raw_goal('gripper', 0.3)), abs=1e-12), start=len(states))
        # Beyond its calibrated range (2 rad is 1303 ticks above the middle, past range_max):
        # the goal is range_max, and joint_states reads its angle.
        top = CALIBRATION['gripper']['range_max']
        assert _mid('gripper') + 2.0 / TICK > top
        writes = len(device.sync_writes(42))
        gripper.publish(JointState(name=['gripper'], position=[2.0]))
        device.wait_for(gripper_writes, timeout=30.0, what='the gripper goal beyond its range')
        assert gripper_writes() == [{ids['gripper']: top}]
        assert device.get(ids['gripper'], 'goal') == top
        states.wait_for(lambda m: dict(zip(m.name, m.position))['gripper'] == pytest.approx(
            angle_of('gripper', top), abs=1e-12), start=len(states))
        assert ik.returncode is None and servo.returncode is None
