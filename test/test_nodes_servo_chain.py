"""The whole chain over DDS: a target into the IK node, the right pulses out of the servo driver.

IK node (config/servo_arm.yaml) -> joint_commands -> two_bone_ik_servo
(config/servo_driver_maestro.yaml, its port pointed at an emulated Maestro) -> Set Target bytes.
"""

import math
import time

from geometry_msgs.msg import PoseStamped
import pytest
from ros_harness import isolate_ros_domain, NodeProcess, REPO_ROOT, RosProbe, wait_until
from sensor_msgs.msg import JointState
from servo_emulators import MaestroEmulator

from two_bone_ik.arm.params_file import load_arm_config, parameters_for_node
from two_bone_ik.solver import forward, solve

ARM = REPO_ROOT / 'config' / 'servo_arm.yaml'
DRIVER = REPO_ROOT / 'config' / 'servo_driver_maestro.yaml'


def test_a_target_in_the_right_pulses_out(tmp_path):
    domain = isolate_ros_domain()
    config = load_arm_config(ARM)
    driver = parameters_for_node(DRIVER, '/two_bone_ik_servo').values
    # Both servos start centred (1500 µs), as the Maestro's start-up settings might put them.
    with MaestroEmulator(tmp_path / 'ttyACM0', targets={0: 6000, 1: 6000}) as device, \
            NodeProcess('two_bone_ik', params_file=ARM, domain_id=domain, log_dir=tmp_path,
                        name='ik') as ik, \
            NodeProcess('two_bone_ik.nodes.servo_node', params_file=DRIVER,
                        ros_args=['-p', f'port:={device.path}'], domain_id=domain,
                        log_dir=tmp_path, name='servo') as servo, \
            RosProbe(domain) as probe:
        targets = probe.publisher(PoseStamped, 'target_pose')
        commands = probe.collect(JointState, 'joint_commands')
        states = probe.collect(JointState, 'joint_states')
        probe.wait_for_subscribers(targets)
        probe.wait_for_publishers(commands)
        probe.wait_for_publishers(states)
        states.wait_for_count(1)   # the driver is up (and has read the Maestro)

        # The arm moves in the xz plane: a target 12 cm out and 6 cm up.
        target = PoseStamped()
        target.header.frame_id = config.base_frame
        target.pose.position.x, target.pose.position.z = 0.12, 0.06
        # The probe sees the driver's subscription before the IK node's publisher may have
        # matched it (a command published before then never reaches the driver): publish the
        # target until the Maestro got a command; the IK node answers it the same every time.
        deadline = time.monotonic() + 30.0
        targets.publish(target)
        while not wait_until(lambda: any(c[0] == 'target' for c in device.commands), 0.5,
                             what=None):  # publish again, as a first message may be missed
            assert time.monotonic() < deadline, 'no Set Target reached the Maestro'
            targets.publish(target)
        probe.spin_until(lambda: len(commands) > 0, what='joint_commands')
        q = tuple(commands.messages[0].position)
        assert all(tuple(m.position) == q for m in commands.messages)

        # The command the driver got puts the tip on the target...
        l1, l2 = config.link_lengths
        assert forward(*q, l1, l2) == pytest.approx((0.12, 0.06), abs=1e-9)
        expected_q = solve(0.12, 0.06, l1, l2, elbow=config.elbow, limits=config.limits,
                           allow_elbow_flip=config.allow_elbow_flip)
        assert q == pytest.approx((expected_q.q1, expected_q.q2), abs=1e-12)
        # ...and the Maestro gets the pulses of servo_driver_maestro.yaml's calibration:
        # shoulder 1500 µs + q1 * 900 µs / (pi / 2), elbow reversed, in quarter-µs.
        per_rad = 900.0 / (math.pi / 2)
        shoulder = math.floor((1500.0 + q[0] * per_rad) * 4 + 0.5)
        elbow = math.floor((1500.0 - q[1] * per_rad) * 4 + 0.5)
        assert driver['servos.elbow_servo.output_range'] == [1500.0, 600.0]
        device.wait_for(lambda: device.targets[0] == shoulder and device.targets[1] == elbow,
                        what=f'targets {shoulder}, {elbow}')
        assert ('target', 0, shoulder) in device.commands
        assert ('target', 1, elbow) in device.commands
        # joint_states reports what the Maestro outputs, back in radians.
        state = states.wait_for(lambda m: abs(m.position[0] - q[0]) < 1e-3, start=0)
        assert list(state.name) == list(config.joint_names)
        assert state.position == pytest.approx(q, abs=0.25 / per_rad)
        assert ik.returncode is None and servo.returncode is None
