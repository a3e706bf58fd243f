"""Tests of the Dynamixel Protocol 1.0 module (``dynamixel1``, AX-12A) on an emulated bus.

Through the real dynamixel-sdk (its Protocol 1.0 packet handler) against
``bus_servo_emulators.Dynamixel1Emulator``.
"""

import math

from bus_servo_emulators import Dynamixel1Emulator, packet, replug_after_a_dropped_command
from bus_servo_emulators import short_reply
import dynamixel_sdk as sdk
import pytest
from servo_emulators import link_fixture, open_link

from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.servo import dynamixel1
from two_bone_ik.servo.servo_link import controller_class, servo_settings, ServoConfigError

# 1024 steps over 300 degrees.
STEPS_PER_RAD = 1024 / math.radians(300)

# Shoulder ID 1: 0 rad at 512, 1 rad/s; elbow ID 2 reversed, limited to 200..800.
SERVOS = {
    'servos.shoulder.channel': 1, 'servos.shoulder.angle_range': [0.0, 1.0],
    'servos.shoulder.output_range': [512.0, 512.0 + STEPS_PER_RAD],
    'servos.shoulder.output_limits': [0.0, 1023.0], 'servos.shoulder.max_velocity': 1.0,
    'servos.elbow.channel': 2, 'servos.elbow.angle_range': [0.0, 1.0],
    'servos.elbow.output_range': [512.0, 512.0 - STEPS_PER_RAD],
    'servos.elbow.output_limits': [200.0, 800.0],
}
START = {1: 600, 2: 400}


@pytest.fixture
def device(tmp_path):
    with Dynamixel1Emulator(tmp_path / 'ttyUSB0', dict(START)) as emulator:
        yield emulator


@pytest.fixture
def link(device):
    yield from link_fixture('dynamixel1', device, SERVOS)


def test_moving_speed_units():
    # 1 rad/s direct: 195.6 steps/s of 1228.8 a turn = 9.549 rev/min = 86.0 units of 0.111.
    assert dynamixel1.moving_speed(1.0, STEPS_PER_RAD) == 86
    assert dynamixel1.moving_speed(0.0, STEPS_PER_RAD) == 0
    assert dynamixel1.moving_speed(100.0, STEPS_PER_RAD) == 1023


def test_start_pings_checks_limits_sets_speed_holds_then_torque_on(device, link):
    assert link.connected and link.status().last_error == ''
    order = [(i, ins, p[0] if p else None) for i, ins, p in device.packets]
    assert order[:2] == [(1, 0x01, None), (2, 0x01, None)]
    assert [(i, p) for i, p in device.instructions(0x02)] == [
        (1, bytes((36, 2))), (2, bytes((36, 2))),      # Present Position, servo by servo
        (1, bytes((6, 4))), (2, bytes((6, 4)))]        # the angle limits
    assert device.writes(32) == [(1, bytes((86, 0))), (2, bytes((0, 0)))]
    assert device.sync_writes(30) == [START]
    hold = order.index((0xFE, 0x83, 30))
    assert [k for k, item in enumerate(order) if item[1:] == (0x03, 24)] == [hold + 1, hold + 2]
    assert device.get(1, 'torque') == 1 and device.get(2, 'torque') == 1
    positions = link.poll()
    assert positions[0] == pytest.approx(88 / STEPS_PER_RAD)
    assert positions[1] == pytest.approx(112 / STEPS_PER_RAD)


def test_a_command_is_one_sync_write_read_back_per_servo(device, link):
    writes = len(device.instructions(0x03))
    assert link.command({0: -0.5, 1: 0.25}).sent
    positions = link.poll()
    goal = {1: math.floor(512 - 0.5 * STEPS_PER_RAD + 0.5),
            2: math.floor(512 - 0.25 * STEPS_PER_RAD + 0.5)}
    assert device.sync_writes(30)[-1] == goal
    assert device.instructions(0x83)[-1][1] == bytes((30, 2, 1, goal[1] & 0xFF, goal[1] >> 8,
                                                      2, goal[2] & 0xFF, goal[2] >> 8))
    assert len(device.instructions(0x03)) == writes   # no per-servo WRITE
    assert positions[0] == pytest.approx((goal[1] - 512) / STEPS_PER_RAD)
    assert positions[1] == pytest.approx((512 - goal[2]) / STEPS_PER_RAD)


def test_a_silent_servo_is_named_left_out_and_held_when_back(device, link):
    device.silent.add(2)
    assert set(link.poll()) == {0}
    assert link.status().last_error.startswith('no reply from ID 2 (elbow)')
    assert link.command({0: 0.1, 1: 0.5}).sent
    link.poll()
    assert set(device.sync_writes(30)[-1]) == {1}
    device.silent.clear()
    device.put(2, 'torque', 0)
    device.put(2, 'present', 450)
    assert link.poll()[1] == pytest.approx(62 / STEPS_PER_RAD)
    assert device.sync_writes(30)[-1] == {2: 450}
    assert device.get(2, 'torque') == 1 and device.get(2, 'goal') == 450


@pytest.mark.parametrize('bit, name', [(0x20, 'overload error (bit 5)'),
                                       (0x04, 'overheating error (bit 2)')])
def test_hardware_error_bits_are_device_errors(device, link, bit, name):
    device.error_bits[1] = bit
    assert set(link.poll()) == {0, 1}
    status = link.status()
    assert status.connected
    assert status.last_error == f'ID 1 (shoulder): status error 0x{bit:02x}: {name}'


def test_a_refusal_bit_drops_the_link(device, link):
    device.error_bits[2] = 0x08   # range error
    assert link.poll() is None
    assert link.status().last_error == ('ID 2 (elbow): read of Present Position: the servo '
                                        'answered error 0x08 (range error (bit 3))')


@pytest.mark.parametrize('change, error', [
    # One byte short with a valid checksum: dynamixel-sdk alone would read its checksum as
    # the position's high byte.
    (short_reply, 'ID 1 (shoulder): read of Present Position: status packet length 3, '
                  'expected 4'),
    (lambda reply: reply[:-1] + bytes((reply[-1] ^ 0x01,)), 'garbled or short status'),
    (lambda reply: reply[:5], 'garbled or short status'),
])
def test_garbled_or_short_replies_drop_the_link(device, link, change, error):
    device.garble_next(change)
    assert link.poll() is None
    assert not link.connected and error in link.status().last_error


def test_the_sdk_alone_takes_a_short_reply_as_a_position(device):
    # Why the driver checks the length itself.
    port = sdk.PortHandler(str(device.path))
    assert port.setBaudRate(1_000_000)
    device.garble_next(short_reply)
    value, result, error = sdk.PacketHandler(1.0).read2ByteTxRx(port, 1, 36)
    port.closePort()
    # The reply held one byte (600 & 0xFF = 0x58) and its checksum 01 + 03 + 00 + 58 -> A3.
    assert (result, error) == (sdk.COMM_SUCCESS, 0)
    assert value == 0x58 | 0xA3 << 8 != 600
    assert packet(1, 0, b'\x58')[-1] == 0xA3


def test_wheel_mode_and_limits_outside_the_angle_limits_are_refused(tmp_path):
    with Dynamixel1Emulator(tmp_path / 'ax', dict(START)) as device:
        device.put(1, 'ccw_limit', 0)
        link, _ = open_link('dynamixel1', device.path, SERVOS)
        assert not link.connected
        assert link.status().last_error.startswith(
            'ID 1 (shoulder): CW and CCW Angle Limit are 0 (wheel mode)')
        assert device.get(1, 'torque') == 0 and device.sync_writes(30) == []
    with Dynamixel1Emulator(tmp_path / 'ax', dict(START)) as device:
        device.put(2, 'cw_limit', 300)
        link, _ = open_link('dynamixel1', device.path, SERVOS)
        assert link.status().last_error == (
            "ID 2 (elbow): servos.elbow.output_limits [200, 800] reach beyond the servo's angle "
            'limits [300, 1023]')


def test_unplugged_then_replugged_no_replay(device, link):
    replug_after_a_dropped_command(device, link)
    assert device.sync_writes(30) == [START, START]


@pytest.mark.parametrize('torque_off, torque', [(True, 0), (False, 1)])
def test_release_leaves_torque_as_configured(device, link, torque_off, torque):
    link.close(torque_off=torque_off)
    if torque_off:
        device.wait_for(lambda: len(device.sync_writes(24)) == 1, what='the torque-off write')
    assert device.get(1, 'torque') == torque and device.get(2, 'torque') == torque


def test_ids_and_baud_rates_are_checked():
    cls = controller_class('dynamixel1')
    assert cls is dynamixel1.Dynamixel1Controller
    with pytest.raises(ServoConfigError, match='expected a motor ID from 0 to 253, got 254'):
        servo_settings(cls, ('shoulder', 'elbow'), dict(SERVOS, **{
            'servos.elbow.channel': 254}))
    servos = servo_settings(cls, ('shoulder', 'elbow'), SERVOS)
    assert cls('/dev/null', 0, servos).baud_rate == 1_000_000
    assert cls('/dev/null', 57_600, servos).baud_rate == 57_600
    with pytest.raises(ConfigError, match='baud_rate: dynamixel1 devices take one of'):
        cls('/dev/null', 38_400, servos)


def test_a_status_packet_is_awaited_50_ms_plus_wire_time(link):
    # The SDK's own wait is 34 ms plus wire time; a loaded host answers later than that.
    port = link.controller._port
    port.setPacketTimeout(6)
    assert port.packet_timeout == pytest.approx(50.0 + 6 * 10 * 1000.0 / 1_000_000)


def test_feedback_comes_in_each_read_from_present_position_to_temperature(tmp_path):
    # AX-12A: Present Load 40 (bit 10 the direction, ~0.1 %), Present Voltage 42 (0.1 V),
    # Present Temperature 43 (degrees C); the error byte's overheating bit (2).
    with Dynamixel1Emulator(tmp_path / 'ttyUSB0', dict(START)) as device:
        link, clock = open_link('dynamixel1', device.path, SERVOS)
        device.put(1, 'load', 1024 | 250)
        device.put(1, 'voltage', 113)
        device.put(1, 'temperature', 52)
        device.put(2, 'load', 80)
        device.error_bits[1] = Dynamixel1Emulator.OVERHEATING
        clock.advance(1.0)
        positions = link.poll()
        reads = [(i, p) for i, p in device.instructions(0x02)][-2:]
        assert reads == [(1, bytes((36, 8))), (2, bytes((36, 8)))]   # 8 bytes, one READ each
        assert positions[0] == pytest.approx((600 - 512) / STEPS_PER_RAD)
        feedback = link.feedback()
        assert feedback[0].load == pytest.approx(-25.0)
        assert (feedback[0].voltage, feedback[0].temperature) == (pytest.approx(11.3), 52.0)
        assert feedback[0].stalling == ('overheating error (bit 2)',)
        assert feedback[1].load == pytest.approx(8.0) and feedback[1].errors == ()
        link.poll()
        assert device.instructions(0x02)[-1] == (2, bytes((36, 2)))
        link.close(torque_off=False)
