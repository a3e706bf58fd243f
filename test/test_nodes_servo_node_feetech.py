"""The two_bone_ik_servo node over DDS driving five emulated Feetech STS3215s (an SO-101-like arm).

Four arm joints and a gripper on one bus (IDs 1-5), as a process with a params file; what is
checked is what reaches the servos and what the node publishes.
"""

import math

from bus_servo_emulators import FeetechEmulator
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
import pytest
from ros_harness import claim_domain_id, NodeProcess, RosProbe, write_params
from sensor_msgs.msg import JointState

from two_bone_ik.nodes.node_runner import EXIT_BAD_CONFIG

MODULE = 'two_bone_ik.nodes.servo_node'
NODE = 'two_bone_ik_servo'
JOINTS = ['shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'gripper']
STEPS_PER_RAD = 4096 / (2 * math.pi)
# Where the servos are when the driver starts.
START = {1: 2048, 2: 1800, 3: 2300, 4: 2048, 5: 2100}


def servos():
    """0 rad at 2048 steps on every joint, direct drive, limited to 1024..3072."""
    return {joint: {'channel': index + 1, 'angle_range': [0.0, 2 * math.pi],
                    'output_range': [2048.0, 6144.0], 'output_limits': [1024.0, 3072.0],
                    'max_velocity': 2.0, 'max_acceleration': 10.0}
            for index, joint in enumerate(JOINTS)}


def steps(angle):
    return math.floor(2048 + angle * STEPS_PER_RAD + 0.5)


def test_five_servos_over_dds(tmp_path):
    domain = claim_domain_id()
    with FeetechEmulator(tmp_path / 'ttyACM0', dict(START)) as device:
        params = write_params(tmp_path / 'so101.yaml', {
            'protocol': 'feetech', 'port': str(device.path), 'joints': JOINTS,
            'state_rate': 50.0, 'torque_off_on_exit': True, 'servos': servos()}, NODE)
        with NodeProcess(MODULE, params_file=params, domain_id=domain, log_dir=tmp_path,
                         name='feetech') as node, RosProbe(domain, 'feetech_probe') as probe:
            states = probe.collect(JointState, 'joint_states')
            diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
            commands = probe.publisher(JointState, 'joint_commands')
            probe.wait_for_subscribers(commands)
            first = states.wait_for_count(1)[0]
            assert list(first.name) == JOINTS
            assert list(first.position) == pytest.approx(
                [(START[i] - 2048) / STEPS_PER_RAD for i in range(1, 6)])
            assert device.sync_writes(42) == [START]   # held where they were
            assert all(device.get(i, 'torque') == 1 for i in START)

            # One message, one SYNC_WRITE holding all five.
            targets = [0.1, -0.2, 0.3, -0.4, 0.5]
            commands.publish(JointState(name=JOINTS, position=targets))
            goal = {i + 1: steps(a) for i, a in enumerate(targets)}
            device.wait_for(lambda: device.sync_writes(42)[-1:] == [goal], what='the goals')
            assert len(device.sync_writes(42)) == 2
            state = states.wait_for(lambda m: m.position[4] == pytest.approx(0.5, abs=1e-3),
                                    start=len(states))
            assert list(state.position) == pytest.approx(targets, abs=0.5 / STEPS_PER_RAD)

            # The gripper alone (from another node): only ID 5 moves.
            commands.publish(JointState(name=['gripper'], position=[0.2]))
            device.wait_for(lambda: device.sync_writes(42)[-1:] == [{5: steps(0.2)}],
                            what='the gripper goal')

            # Each servo's own report, once a second: shoulder_lift overloaded is an ERROR
            # line naming the joint, with its load, voltage and temperature.
            device.put_load(2, -912)
            device.put(2, 'voltage', 74)
            device.put(2, 'temperature', 57)
            device.error_bits[2] = FeetechEmulator.OVERLOAD

            def lift_overloaded(array):
                return any(s.name == f'/{NODE}: shoulder_lift' and s.level ==
                           DiagnosticStatus.ERROR for s in array.status)
            array = diagnostics.wait_for(lift_overloaded, start=len(diagnostics))
            lift = next(s for s in array.status if s.name == f'/{NODE}: shoulder_lift')
            assert lift.message == ('shoulder_lift: overload (bit 5): stalled or blocked, or '
                                    'overloaded; the servo protects itself (load -91.2 %, '
                                    '7.4 V, 57 °C)')
            assert lift.hardware_id == f'feetech {device.path} servo ID 2'
            assert {s.name for s in array.status} >= {f'/{NODE}: {joint}' for joint in JOINTS}
            device.error_bits.clear()

            # The wrist servo goes silent: an ERROR naming it, and no wrist in joint_states.
            device.silent.add(4)

            def names_wrist(array):
                return any(s.level == DiagnosticStatus.ERROR and 'ID 4 (wrist_flex)' in
                           s.message for s in array.status)
            diagnostics.wait_for(names_wrist, start=len(diagnostics))
            state = states.wait_for(lambda m: len(m.name) == 4, start=len(states))
            assert list(state.name) == ['shoulder_pan', 'shoulder_lift', 'elbow_flex', 'gripper']
            device.silent.clear()
            states.wait_for(lambda m: len(m.name) == 5, start=len(states))
            node.assert_ctrl_c_exits_0()
        device.wait_for(lambda: all(device.get(i, 'torque') == 0 for i in START),
                        what='torque off on exit')
        assert 'Traceback' not in node.stderr


@pytest.mark.parametrize('settings, message', [
    ({'baud_rate': 9600}, 'baud_rate: feetech devices take one of 1000000, 500000'),
    ({'servos': dict(servos(), gripper=dict(servos()['gripper'], channel=254))},
     'servos.gripper.channel: expected a servo ID from 0 to 253, got 254'),
])
def test_bad_feetech_settings_exit_2_with_one_line(tmp_path, settings, message):
    params = write_params(tmp_path / 'bad.yaml', {
        'protocol': 'feetech', 'port': '/dev/null', 'joints': JOINTS, 'servos': servos(),
        **settings}, NODE)
    node = NodeProcess(MODULE, params_file=params, domain_id=claim_domain_id(),
                       log_dir=tmp_path, name='bad').start()
    assert node.wait() == EXIT_BAD_CONFIG, node.output()
    lines = node.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], node.output()
