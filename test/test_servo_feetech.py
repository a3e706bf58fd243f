"""Tests of the Feetech STS/SMS (``feetech``) and SCS (``feetech_scs``) protocols, emulated.

The emulator (``bus_servo_emulators.FeetechEmulator``) follows Feetech's protocol byte for
byte; what is checked is what reaches the servos and what the link reports.
"""

import math

from bus_servo_emulators import FeetechEmulator, packet, replug_after_a_dropped_command
from bus_servo_emulators import short_reply
import pytest
from servo_emulators import check_noise_is_discarded, link_fixture, open_link, TURN_SERVOS

from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.servo.feedback import ServoFeedback
from two_bone_ik.servo.feetech import FeetechController, FeetechScsController
from two_bone_ik.servo.servo_link import controller_class, servo_settings, ServoConfigError

STEPS_PER_RAD = 4096 / (2 * math.pi)

# STS3215s: the shoulder (ID 1) and reversed elbow (ID 2) of TURN_SERVOS, and a gripper ID 3.
STS = dict(TURN_SERVOS, **{
    'servos.gripper.channel': 3, 'servos.gripper.angle_range': [0.0, 2 * math.pi],
    'servos.gripper.output_range': [2048.0, 6144.0],
    'servos.gripper.output_limits': [1500.0, 2500.0],
})
JOINTS = ('shoulder', 'elbow', 'gripper')
START = {1: 2560, 2: 1536, 3: 2048}

# SCS servos: 0..1023, 0 rad at 512, 195 steps a radian (0.19 deg a step... rounded).
SCS = {
    'servos.shoulder.channel': 1, 'servos.shoulder.angle_range': [0.0, 1.0],
    'servos.shoulder.output_range': [512.0, 707.0], 'servos.shoulder.output_limits': [0.0, 1023.0],
    'servos.shoulder.max_velocity': 1.0, 'servos.shoulder.max_acceleration': 5.0,
    'servos.elbow.channel': 2, 'servos.elbow.angle_range': [0.0, 1.0],
    'servos.elbow.output_range': [512.0, 317.0], 'servos.elbow.output_limits': [100.0, 900.0],
}


@pytest.fixture
def device(tmp_path):
    with FeetechEmulator(tmp_path / 'ttyACM0', dict(START)) as emulator:
        yield emulator


@pytest.fixture
def link(device):
    yield from link_fixture('feetech', device, STS, joints=JOINTS)


@pytest.fixture
def scs(tmp_path):
    with FeetechEmulator(tmp_path / 'ttyUSB0', {1: 600, 2: 400}, series='scs') as emulator:
        link, _ = open_link('feetech_scs', emulator.path, SCS)
        yield emulator, link
        link.close(torque_off=False)


def _goals(device, count):
    """Wait for ``count`` SYNC_WRITEs of Goal Position (they get no reply); return them all."""
    device.wait_for(lambda: len(device.sync_writes(42)) >= count,
                    what=f'{count} SYNC_WRITEs of Goal Position')
    return device.sync_writes(42)


def _order(device):
    """(ID, instruction, address or None) of every packet, in order."""
    return [(i, ins, p[0] if ins in (0x02, 0x03, 0x82, 0x83) else None)
            for i, ins, p in device.packets]


def test_start_pings_holds_then_torques_on(device, link):
    assert link.connected and link.status().last_error == ''
    order = _order(device)
    assert order[:3] == [(1, 0x01, None), (2, 0x01, None), (3, 0x01, None)]
    assert order[3] == (0xFE, 0x82, 56)   # one SYNC_READ of Present Position
    assert device.instructions(0x82)[0] == (0xFE, bytes((56, 2, 1, 2, 3)))
    # Per servo: Operating Mode read, Acceleration and Goal Speed written.
    assert [(i, p[0]) for i, p in device.instructions(0x02)] == [(1, 33), (2, 33), (3, 33)]
    # 2 rad/s^2 * 651.9 steps/rad = 1304 steps/s^2 = 13 units of 100; 1 rad/s = 652 steps/s.
    assert device.writes(41) == [(1, b'\x0d'), (2, b'\x00'), (3, b'\x00')]
    assert device.writes(46) == [(1, (652).to_bytes(2, 'little')), (2, b'\x00\x00'),
                                 (3, b'\x00\x00')]
    # Goal = present in one SYNC_WRITE, then Torque Enable servo by servo.
    assert device.sync_writes(42) == [START]
    hold = order.index((0xFE, 0x83, 42))
    torque = [k for k, item in enumerate(order) if item[1:] == (0x03, 40)]
    assert len(torque) == 3 and min(torque) > hold
    assert all(device.get(i, 'torque') == 1 and device.get(i, 'goal') == START[i]
               for i in START)
    positions = link.poll()
    assert positions[0] == pytest.approx(512 / STEPS_PER_RAD)
    assert positions[1] == pytest.approx(512 / STEPS_PER_RAD)
    assert positions[2] == pytest.approx(0.0)


def test_each_command_is_one_sync_write_and_positions_one_sync_read(device, link):
    writes_before = len(device.instructions(0x03))
    for angle in (0.1, -0.2, 0.3):
        assert link.command({0: angle, 1: angle / 2, 2: 0.05}).sent
    goals = _goals(device, 4)[1:]
    assert len(goals) == 3
    assert goals[-1] == {1: 2048 + round(0.3 * STEPS_PER_RAD),
                         2: 2048 - round(0.15 * STEPS_PER_RAD),
                         3: 2048 + round(0.05 * STEPS_PER_RAD)}
    reads = len(device.instructions(0x82))
    positions = link.poll()
    assert len(device.instructions(0x82)) == reads + 1
    assert len(device.instructions(0x03)) == writes_before   # no per-servo WRITE
    assert positions[0] == pytest.approx(round(0.3 * STEPS_PER_RAD) / STEPS_PER_RAD)
    # A command naming one joint moves only that servo, still by SYNC_WRITE.
    assert link.command({2: 0.0}).sent
    assert _goals(device, 5)[-1] == {3: 2048}


def test_negative_positions_are_sign_magnitude_both_ways(tmp_path):
    values = {'servos.shoulder.channel': 1, 'servos.shoulder.angle_range': [0.0, 2 * math.pi],
              'servos.shoulder.output_range': [0.0, 4096.0],
              'servos.shoulder.output_limits': [-4096.0, 4095.0]}
    with FeetechEmulator(tmp_path / 'sts', {1: 0}) as device:
        link, _ = open_link('feetech', device.path, values, joints=('shoulder',))
        assert link.command({0: -100 / STEPS_PER_RAD}).sent
        positions = link.poll()
        # On the wire: 100 with bit 15 set, little-endian (64 80), not two's complement.
        assert device.instructions(0x83)[-1][1] == bytes((42, 2, 1, 0x64, 0x80))
        assert device.get(1, 'goal') == -100
        assert positions[0] == pytest.approx(-100 / STEPS_PER_RAD)
        link.close(torque_off=False)


def test_a_silent_servo_is_named_left_out_and_prepared_again_without_replay(device, link):
    device.silent.add(2)
    positions = link.poll()
    assert set(positions) == {0, 2}   # the elbow is not published at all
    status = link.status()
    assert status.connected and status.device_errors == 1
    assert status.last_error == ('no reply from ID 2 (elbow) to a read of Present Position: '
                                 'left out of joint_states and not commanded until it answers')
    # Commanded while silent: the elbow is not in the SYNC_WRITE.
    assert link.command({0: 0.1, 1: 0.4}).sent
    assert set(_goals(device, 2)[-1]) == {1}
    # It comes back (powered up again, torque off, moved by hand meanwhile).
    device.silent.clear()
    device.put(2, 'torque', 0)
    device.put(2, 'present', 2100)
    positions = link.poll()
    assert set(positions) == {0, 1, 2}
    assert positions[1] == pytest.approx((2048 - 2100) / STEPS_PER_RAD)
    # Held where it is (not the 0.4 rad sent while it was away), then torque on.
    assert device.sync_writes(42)[-1] == {2: 2100}
    assert device.get(2, 'goal') == 2100 and device.get(2, 'torque') == 1


def test_a_servo_silent_at_start_is_pinged_named_and_never_moved(tmp_path):
    with FeetechEmulator(tmp_path / 'sts', dict(START)) as device:
        device.silent.add(3)
        link, _ = open_link('feetech', device.path, STS, joints=JOINTS)
        assert link.connected
        assert 'no reply from ID 3 (gripper)' in link.status().last_error
        assert (3, b'') in device.instructions(0x01)
        assert set(link.poll()) == {0, 1}
        assert all(3 not in goals for goals in device.sync_writes(42))
        assert device.get(3, 'torque') == 0
        link.close(torque_off=False)


def test_no_servo_answering_leaves_the_link_down(tmp_path):
    with FeetechEmulator(tmp_path / 'sts', dict(START)) as device:
        device.answering = False
        link, _ = open_link('feetech', device.path, STS, joints=JOINTS)
        assert not link.connected
        assert link.status().last_error == (
            'no servo answered a ping at 1000000 baud (IDs 1, 2, 3); is the bus powered, and '
            'are these its IDs and baud rate?')
        assert device.instructions(0x83) == []


def test_an_overload_bit_is_a_device_error_the_link_survives(device, link):
    device.error_bits[2] = FeetechEmulator.OVERLOAD
    positions = link.poll()
    assert set(positions) == {0, 1, 2}
    status = link.status()
    assert status.connected and status.device_errors == 1
    assert status.last_error == 'ID 2 (elbow): status error 0x20: overload (bit 5)'


@pytest.mark.parametrize('change, error', [
    (lambda reply: reply[:-1] + bytes((reply[-1] ^ 0x01,)), 'ID 3: status packet checksum'),
    (short_reply, 'ID 1: status packet length 3, expected 4 (a short or long reply)'),
    (lambda reply: reply[:20], 'ID 3: status packet cut off after 4 of 8 bytes'),
    (lambda reply: reply[8:16] + reply[:8] + reply[16:], 'status packet from ID 1, which was'),
    (lambda reply: packet(1, 0, b'\x00\x08\x00') + reply[9:], 'ID 1: status packet length 5'),
    (lambda reply: reply + b'\x00', 'the servo bus sent 1 byte(s) more than the 24 of its reply'),
    (lambda reply: reply[:8] + b'\x00' + reply[8:],
     'the servo bus sent 1 byte(s) more than the 24 of its reply'),
])
def test_garbled_replies_drop_the_link_and_publish_nothing(device, link, change, error):
    device.garble_next(change)
    assert link.poll() is None
    status = link.status()
    assert not status.connected and error in status.last_error


def test_line_noise_between_reads_is_discarded_and_reported(device, link):
    # As on the pyserial protocols: bytes waiting before a request (noise, a late reply) are
    # discarded, so they cannot be read as a status packet, and reported once; the link stays
    # up. (Before the merge with the servo branch's rule, they closed the link.)
    check_noise_is_discarded(device, link, b'\xff\xff\x02', 'the servo bus')


def test_unplugged_then_replugged_no_replay(device, link):
    replug_after_a_dropped_command(device, link)
    # The only goals ever sent are the two start-ups' holds; the dropped command never came.
    assert device.sync_writes(42) == [START, START]


def test_a_servo_not_in_position_mode_is_refused(tmp_path):
    with FeetechEmulator(tmp_path / 'sts', dict(START)) as device:
        device.put(2, 'mode', 1)
        link, _ = open_link('feetech', device.path, STS, joints=JOINTS)
        assert not link.connected
        assert link.status().last_error.startswith(
            'ID 2 (elbow): Operating Mode is 1 (wheel (constant speed)), not 0')
        assert device.get(1, 'torque') == 0 and device.sync_writes(42) == []


@pytest.mark.parametrize('torque_off, torque', [(True, 0), (False, 1)])
def test_release_leaves_torque_as_configured(device, link, torque_off, torque):
    link.close(torque_off=torque_off)
    if torque_off:   # one SYNC_WRITE of Torque Enable = 0 for all (no reply to wait for)
        device.wait_for(lambda: len(device.sync_writes(40)) == 1, what='the torque-off write')
        assert device.instructions(0x83)[-1][1] == bytes((40, 1, 1, 0, 2, 0, 3, 0))
    else:
        assert device.sync_writes(40) == []
    assert [device.get(i, 'torque') for i in START] == [torque] * 3


# -- SCS ------------------------------------------------------------------------------------

def test_scs_big_endian_read_per_servo_no_acceleration(scs):
    device, link = scs
    assert link.connected
    assert device.instructions(0x82) == []      # SCS has no SYNC_READ
    assert device.writes(41) == []               # nor an Acceleration register
    assert [p for _, p in device.instructions(0x02)] == [bytes((56, 2))] * 2
    # Goal Speed: 1 rad/s * 195 steps/rad = 195 steps/s; a unit is 0.059 rev/min of 1895
    # steps (0.19 deg each) = 1.863 steps/s: 104.7 -> 105 units, big-endian.
    assert device.writes(46) == [(1, (105).to_bytes(2, 'big')), (2, b'\x00\x00')]
    assert device.sync_writes(42) == [{1: 600, 2: 400}]
    assert link.command({0: 0.4, 1: 0.4}).sent
    positions = link.poll()   # a round trip: the SYNC_WRITE before it has arrived
    goal = device.instructions(0x83)[-1][1]
    shoulder, elbow = 512 + 78, 512 - 78   # 0.4 rad * 195 steps/rad
    assert goal == bytes((42, 2, 1)) + shoulder.to_bytes(2, 'big') + bytes((2,)) + \
        elbow.to_bytes(2, 'big')
    assert positions[0] == pytest.approx((shoulder - 512) / 195)
    assert positions[1] == pytest.approx((512 - elbow) / 195)


def test_scs_silent_servo_and_short_reply(scs):
    device, link = scs
    device.silent.add(1)
    assert set(link.poll()) == {1}
    assert 'no reply from ID 1 (shoulder)' in link.status().last_error
    device.silent.clear()
    assert set(link.poll()) == {0, 1}
    device.garble_next(short_reply)
    assert link.poll() is None
    assert 'status packet length 3, expected 4' in link.status().last_error


# -- parameters -----------------------------------------------------------------------------

def test_ids_and_baud_rates_are_checked():
    cls = controller_class('feetech')
    assert cls is FeetechController and controller_class('feetech_scs') is FeetechScsController
    bad = dict(STS, **{'servos.elbow.channel': 254})
    with pytest.raises(ServoConfigError, match='servos.elbow.channel: expected a servo ID from '
                                               '0 to 253, got 254'):
        servo_settings(cls, JOINTS, bad)
    servos = servo_settings(cls, JOINTS, STS)
    assert FeetechController('/dev/null', 0, servos).baud_rate == 1_000_000
    assert FeetechController('/dev/null', 19_200, servos).baud_rate == 19_200
    with pytest.raises(ConfigError, match='baud_rate: feetech devices take one of 1000000, '
                                          '500000.* got 9600'):
        FeetechController('/dev/null', 9600, servos)
    with pytest.raises(ConfigError, match='baud_rate: feetech_scs devices take one of'):
        FeetechScsController('/dev/null', 19_200, servo_settings(
            controller_class('feetech_scs'), ('shoulder', 'elbow'), SCS))
    with pytest.raises(Exception, match='outside what the controller takes, 0 to 1023'):
        servo_settings(controller_class('feetech_scs'), ('shoulder',),
                       dict(SCS, **{'servos.shoulder.output_limits': [0.0, 2000.0]}))


def test_feedback_comes_in_the_sync_read_from_present_position_to_temperature(tmp_path):
    # STS3215 memory table: Present Load 60 (0.1 %, bit 10 the direction), Present Voltage 62
    # (0.1 V), Present Temperature 63 (degrees C), read with Present Position 56 in one go.
    with FeetechEmulator(tmp_path / 'ttyACM0', dict(START)) as device:
        link, clock = open_link('feetech', device.path, STS, joints=JOINTS)
        device.put_load(1, 345)
        device.put_load(3, -12)
        for servo_id in (1, 2, 3):
            device.put(servo_id, 'voltage', 121)
            device.put(servo_id, 'temperature', 30 + servo_id)
        device.error_bits[2] = FeetechEmulator.OVERLOAD | FeetechEmulator.OVERHEATING
        clock.advance(1.0)
        positions = link.poll()
        assert device.instructions(0x82)[-1] == (0xFE, bytes((56, 8, 1, 2, 3)))
        assert positions[0] == pytest.approx((2560 - 2048) / STEPS_PER_RAD)
        feedback = link.feedback()
        assert feedback[0] == ServoFeedback(pytest.approx(34.5), pytest.approx(12.1), 31.0)
        assert feedback[2].load == pytest.approx(-1.2)
        assert feedback[1].stalling == ('overheating (bit 2)', 'overload (bit 5)')
        assert link.status().last_error.startswith('ID 2 (elbow): status error 0x24')
        link.close(torque_off=False)


def test_scs_feedback_is_big_endian_in_each_read(tmp_path):
    with FeetechEmulator(tmp_path / 'ttyUSB0', {1: 600, 2: 400}, series='scs') as device:
        link, clock = open_link('feetech_scs', device.path, SCS)
        device.put_load(2, -700)
        device.put(2, 'voltage', 60)
        device.put(2, 'temperature', 44)
        clock.advance(1.0)
        link.poll()
        assert device.instructions(0x02)[-2:] == [(1, bytes((56, 8))), (2, bytes((56, 8)))]
        assert device.tables[2][60:62] == bytes((0x06, 0xBC))   # 0x400 | 700, big-endian
        feedback = link.feedback()[1]
        assert (feedback.load, feedback.voltage, feedback.temperature) == (
            pytest.approx(-70.0), pytest.approx(6.0), 44.0)
        link.close(torque_off=False)
