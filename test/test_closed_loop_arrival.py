"""Closed loops over DDS that show whether the arm got there: the IK node's ``motion_status``.

The real IK node drives, in this test's own ROS domain:

- the MuJoCo sim of the default arm with its elbow held (``blocked_joints``) and motion limits
  in the IK node: a target that only turns the shoulder (the arm stretched, elbow at 0) is
  ``MOVING`` then ``ARRIVED``; one that needs the elbow is ``NOT_FOLLOWING`` naming
  ``elbow_joint``, and the stream stops: the commands come to rest where the arm is, not at the
  goal, and no more follow;
- the servo driver on an emulated Feetech bus (``bus_servo_emulators.FeetechEmulator``, ideal
  servos): a target ``ARRIVED``; then the elbow's servo stops answering (the driver goes on
  publishing ``joint_states`` without it) and the next target is ``NOT_FOLLOWING`` naming it.

Every wait is bounded; the rules themselves are proven on a simulated clock in
``test_session_arrival.py`` and ``test_session_arm_session.py``.
"""

import math

from bus_servo_emulators import FeetechEmulator
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from ik_client import values
from ros_harness import NodeProcess, REPO_ROOT, write_params
from sensor_msgs.msg import JointState

SHIPPED = REPO_ROOT / 'config' / 'two_bone_ik.yaml'
REACH = 0.55
#: Motion limits for the IK node driving the sim: every target a streamed motion.
LIMITS = {'max_joint_velocity': [1.5, 1.5], 'max_joint_acceleration': [6.0, 6.0]}
#: Seconds any one answer may take on a loaded machine.
PATIENT = 30.0


def target(probe, x, y):
    """Return a target in base_link stamped now, and its ``target_id`` (``sec.nanosec``)."""
    msg = PoseStamped()
    msg.header.frame_id = 'base_link'
    msg.header.stamp = probe.node.get_clock().now().to_msg()
    msg.pose.position.x, msg.pose.position.y = float(x), float(y)
    msg.pose.orientation.w = 1.0
    return msg, f'{msg.header.stamp.sec}.{msg.header.stamp.nanosec:09d}'


class Watch:
    """The probe's view of one IK node: targets out, ``motion_status`` and commands in."""

    def __init__(self, probe, ik):
        self.probe, self.ik = probe, ik
        self.targets = probe.publisher(PoseStamped, 'target_pose')
        self.motion = probe.collect(DiagnosticStatus, 'motion_status')
        self.commands = probe.collect(JointState, 'joint_commands')
        probe.wait_for_subscribers(self.targets)
        probe.wait_for_publishers(self.motion)
        probe.wait_for_publishers(self.commands)

    def wait_until_measured(self):
        """Wait until the node has taken a joint_states message (its /diagnostics say where).

        The sim and the driver take seconds to start: a target before would be NOT_MONITORED.
        """
        diagnostics = self.probe.collect(DiagnosticArray, '/diagnostics')

        def measured(array):
            return any(s.name == '/two_bone_ik: motion'
                       and values(s)['measured_position'] != 'none' for s in array.status)
        try:
            diagnostics.wait_for(measured, timeout=PATIENT)
        finally:
            self.probe.node.destroy_subscription(diagnostics.subscription)

    def about(self, target_id):
        """Return the ``motion_status`` messages about ``target_id``: (status, text, values)."""
        return [(values(m)['status'], m.message, values(m)) for m in self.motion.messages
                if values(m)['target_id'] == target_id]

    def final(self, target_id, timeout=PATIENT):
        """Wait for the verdict (anything after MOVING) about ``target_id``; return them all."""
        self.probe.spin_until(lambda: any(s != 'MOVING' for s, _, _ in self.about(target_id)),
                              timeout, f'a verdict about {target_id}\n{self.ik.output()}')
        return self.about(target_id)

    def send_until_heard(self, x, y):
        """Publish a target until its MOVING comes back (the node has matched the probe).

        Returns its ``target_id`` (each repeat has the same stamp, so the same id).
        """
        msg, target_id = target(self.probe, x, y)
        self.probe.publish_until(self.targets, msg, lambda: self.about(target_id), PATIENT,
                                 f'a MOVING about {target_id}\n{self.ik.output()}')
        return target_id


def test_a_blocked_sim_joint_is_not_following_and_the_stream_stops(domain, probe, tmp_path):
    params = write_params(tmp_path / 'limited.yaml', LIMITS)
    sim_args = ['-p', f'arm_params_file:={SHIPPED}', '-p', 'blocked_joints:=[elbow_joint]',
                '-p', 'real_time_factor:=2.0']
    with NodeProcess('two_bone_ik', params_file=SHIPPED, ros_args=['--params-file', str(params)],
                     domain_id=domain, log_dir=tmp_path, name='ik') as ik, \
            NodeProcess('two_bone_ik.nodes.sim_node', ros_args=sim_args, domain_id=domain,
                        log_dir=tmp_path, name='sim') as sim:
        watch = Watch(probe, ik)
        watch.wait_until_measured()
        # The shoulder alone (the arm stretched: elbow 0, where it is held): it gets there.
        angle = 0.6
        stretched = watch.send_until_heard(REACH * math.cos(angle), REACH * math.sin(angle))
        verdicts = watch.final(stretched)
        assert [s for s, _, _ in verdicts] == ['MOVING', 'ARRIVED'], (verdicts, ik.output())
        assert verdicts[0][2]['code'] == '20' and verdicts[1][2]['code'] == '21'
        assert float(verdicts[1][2]['tool_error']) < 0.02 * REACH

        # A target the elbow must turn for: the elbow lags, the node stops the stream.
        msg, folded = target(probe, 0.3, 0.25)
        before = len(watch.commands)
        watch.targets.publish(msg)
        verdicts = watch.final(folded)
        assert [s for s, _, _ in verdicts] == ['MOVING', 'NOT_FOLLOWING'], verdicts
        _, message, said = verdicts[1]
        assert said['code'] == '22'
        assert message.startswith('NOT_FOLLOWING: elbow_joint lags its command by 0.5')
        goal = [float(v) for v in verdicts[0][2]['tool_point'].strip('[]').split(', ')]
        assert math.dist(goal, (0.3, 0.25, 0.0)) < 1e-6

        # The stream comes to rest (zero velocities) where the arm is, the elbow near 0 where
        # it is held, not at the goal's elbow; then nothing more is commanded.
        def at_rest(m):
            return len(m.velocity) == 2 and not any(m.velocity)
        rest = watch.commands.wait_for(at_rest, start=before, timeout=PATIENT)
        assert abs(rest.position[1]) < 0.05, rest.position
        moving = [float(v) for v in verdicts[0][1].split('toward [')[1].split(']')[0].split(', ')]
        assert abs(moving[1]) > 1.0  # the goal's elbow was far from 0
        count = len(watch.commands)
        probe.spin_for(0.5)
        assert len(watch.commands) == count
    for process in (ik, sim):
        assert process.returncode == 0, process.output()


def _feetech_driver(path, device):
    """Write the driver's params: the default arm's joints on IDs 1 and 2, 0 rad at 2048."""
    servos = {joint: {'channel': index + 1, 'angle_range': [0.0, 2 * math.pi],
                      'output_range': [2048.0, 6144.0], 'output_limits': [0.0, 4095.0]}
              for index, joint in enumerate(('shoulder_joint', 'elbow_joint'))}
    return write_params(path, {'protocol': 'feetech', 'port': str(device.path),
                               'joints': ['shoulder_joint', 'elbow_joint'],
                               'state_rate': 50.0, 'servos': servos}, 'two_bone_ik_servo')


def test_a_feetech_servo_that_stops_answering_is_not_following(domain, probe, tmp_path):
    with FeetechEmulator(tmp_path / 'ttyUSB0', {1: 2048, 2: 2048}) as device:
        driver = _feetech_driver(tmp_path / 'driver.yaml', device)
        with NodeProcess('two_bone_ik.nodes.servo_node', params_file=driver, domain_id=domain,
                         log_dir=tmp_path, name='feetech') as servo, \
                NodeProcess('two_bone_ik', params_file=SHIPPED, domain_id=domain,
                            log_dir=tmp_path, name='ik') as ik:
            states = probe.collect(JointState, 'joint_states')
            watch = Watch(probe, ik)
            states.wait_for(lambda m: len(m.name) == 2, timeout=PATIENT)
            watch.wait_until_measured()
            first = watch.send_until_heard(0.4, 0.2)
            assert [s for s, _, _ in watch.final(first)] == ['MOVING', 'ARRIVED'], (
                watch.about(first), servo.output())
            # The elbow's servo (ID 2) stops answering: the driver reads the shoulder alone.
            device.silent.add(2)
            states.wait_for(lambda m: list(m.name) == ['shoulder_joint'], start=len(states),
                            timeout=PATIENT)
            msg, second = target(probe, 0.3, -0.3)
            watch.targets.publish(msg)
            verdicts = watch.final(second)
            assert [s for s, _, _ in verdicts] == ['MOVING', 'NOT_FOLLOWING'], verdicts
            _, message, said = verdicts[1]
            assert message.startswith('NOT_FOLLOWING: no joint_states for elbow_joint for 0.5')
            assert said['joint_errors'].endswith('elbow_joint: unknown')
        for process in (servo, ik):
            assert process.returncode == 0, process.output()
