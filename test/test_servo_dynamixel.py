"""Tests of the Dynamixel Protocol 2.0 module against an emulator on a pty.

CRC, byte stuffing, the X-series start-up, Sync Write and Sync Read, all through the real
dynamixel-sdk.
"""

import math

import dynamixel_sdk as sdk
import numpy as np
import pytest
from servo_emulators import dynamixel_crc, dynamixel_packet, DynamixelEmulator, link_fixture
from servo_emulators import open_link, TURN_SERVOS

from two_bone_ik.servo import dynamixel

TICKS_PER_RAD = 4096 / (2 * math.pi)

# Shoulder ID 1: 0 rad at 2048 ticks, direct drive (4096 ticks a turn), 1 rad/s, 2 rad/s^2.
# Elbow ID 2, reversed, limited to 1024..3072 ticks.
SERVOS = TURN_SERVOS


def test_crc16_matches_the_e_manual_and_the_sdk():
    # The e-manual's Ping example for ID 1: FF FF FD 00 01 03 00 01, CRC 0x4E19 (19 4E).
    assert dynamixel.crc16(bytes((0xFF, 0xFF, 0xFD, 0x00, 0x01, 0x03, 0x00, 0x01))) == 0x4E19
    rng = np.random.default_rng(0)
    packets = sdk.Protocol2PacketHandler()
    for size in (1, 7, 64):
        data = rng.integers(0, 256, size).tolist()
        assert dynamixel.crc16(data) == packets.updateCRC(0, data, size) == dynamixel_crc(data)


def test_byte_stuffing_of_a_packet():
    # Write FF FF FD 00 to Goal Position of ID 1, unstuffed, with the CRC of that.
    body = bytes((0x03, 116, 0, 0xFF, 0xFF, 0xFD, 0x00))
    plain = bytes((0xFF, 0xFF, 0xFD, 0x00, 1, len(body) + 2, 0)) + body
    crc = dynamixel.crc16(plain)
    plain += bytes((crc & 0xFF, crc >> 8))
    stuffed = dynamixel.stuff_packet(plain)
    # One FD added after FF FF FD, the length one more, the CRC over the stuffed packet: the
    # packet a spec-following writer builds.
    assert stuffed == dynamixel_packet(1, 0x03, body[1:])
    assert stuffed[5] == len(body) + 3
    assert stuffed[7:-2] == bytes((0x03, 116, 0, 0xFF, 0xFF, 0xFD, 0xFD, 0x00))
    # A packet without the pattern is left alone; FF FF FD FD is stuffed once more.
    ping = dynamixel_packet(1, 0x01)
    assert dynamixel.stuff_packet(ping) == ping
    data = bytes((116, 0, 0xFF, 0xFF, 0xFD, 0xFD))
    plain = bytes((0xFF, 0xFF, 0xFD, 0x00, 1, len(data) + 3, 0, 0x03)) + data
    crc = dynamixel.crc16(plain)
    stuffed = dynamixel.stuff_packet(plain + bytes((crc & 0xFF, crc >> 8)))
    assert stuffed[7:-2] == bytes((0x03, 116, 0, 0xFF, 0xFF, 0xFD, 0xFD, 0xFD))
    assert stuffed == dynamixel_packet(1, 0x03, data)


def test_profile_units():
    # 1 rad/s direct drive: 651.9 ticks/s = 9.549 rev/min = 41.7 units of 0.229 rev/min.
    assert dynamixel.profile_velocity(1.0, TICKS_PER_RAD) == 42
    # 2 rad/s^2: 1.0 * 3600 / (2 pi) = 1145.9 rev/min^2 = 5.34 units of 214.577.
    assert dynamixel.profile_acceleration(2.0, TICKS_PER_RAD) == 5
    assert dynamixel.profile_velocity(0.0, TICKS_PER_RAD) == 0
    assert dynamixel.profile_velocity(1e-9, TICKS_PER_RAD) == 1
    assert dynamixel.to_signed32(0xFFFDFFFF) == -131073
    assert dynamixel.le32(-131073) == [0xFF, 0xFF, 0xFD, 0xFF]


@pytest.fixture
def device(tmp_path):
    with DynamixelEmulator(tmp_path / 'ttyUSB0', {1: 2560, 2: 1536}) as emulator:
        yield emulator


@pytest.fixture
def link(device):
    yield from link_fixture('dynamixel', device, SERVOS)


def _writes(device, address):
    """Values of the single-servo Writes to ``address``, as (ID, value)."""
    return [(dxl_id, int.from_bytes(p[2:], 'little', signed=True))
            for dxl_id, p in device.instructions(0x03) if p[0] | p[1] << 8 == address]


def test_start_checks_the_mode_sets_the_profile_and_holds_before_torque_on(device, link):
    assert link.connected
    reads = [(dxl_id, p[0] | p[1] << 8) for dxl_id, p in device.instructions(0x02)]
    assert reads == [(1, 11), (1, 52), (1, 48), (2, 11), (2, 52), (2, 48)]
    assert _writes(device, 108) == [(1, 5), (2, 0)]        # Profile Acceleration
    assert _writes(device, 112) == [(1, 42), (2, 0)]       # Profile Velocity
    # Goal = present position, in one Sync Write, and only then torque on.
    assert device.sync_writes() == [{1: 2560, 2: 1536}]
    order = [ins for _, ins, p in device.packets if ins == 0x83 or (ins == 0x03 and p[0] == 64)]
    assert order == [0x83, 0x03, 0x03]
    assert device.get(1, 'torque') == 1 and device.get(2, 'torque') == 1
    assert device.get(1, 'goal') == 2560 and device.get(2, 'goal') == 1536
    # What start read: (2560 - 2048) ticks = 0.785 rad; elbow reversed: +0.785 rad.
    positions = link.poll()
    assert positions[0] == pytest.approx(512 / TICKS_PER_RAD)
    assert positions[1] == pytest.approx(512 / TICKS_PER_RAD)
    assert device.dropped == 0


def test_commands_go_out_in_one_sync_write_and_read_back_by_sync_read(device, link):
    outcome = link.command({0: -0.5, 1: 0.25})
    assert outcome == (True, ())
    goal = {1: 2048 + round(-0.5 * TICKS_PER_RAD), 2: 2048 - round(0.25 * TICKS_PER_RAD)}
    positions = link.poll()
    assert device.sync_writes()[-1] == goal
    assert device.get(1, 'goal') == goal[1] and device.get(2, 'goal') == goal[2]
    # Present Position comes from one Sync Read of address 132, 4 bytes, IDs 1 and 2.
    assert device.instructions(0x82)[-1] == (0xFE, bytes((132, 0, 4, 0, 1, 2)))
    assert positions[0] == pytest.approx((goal[1] - 2048) / TICKS_PER_RAD)
    assert positions[1] == pytest.approx((2048 - goal[2]) / TICKS_PER_RAD)
    assert abs(positions[0] + 0.5) <= 0.5 / TICKS_PER_RAD


def test_clamping_at_the_output_limits(device, link):
    outcome = link.command({1: -math.pi})   # 4096 ticks, beyond 3072
    assert outcome.clamped == ('elbow',)
    link.poll()
    assert device.get(2, 'goal') == 3072


def test_a_hardware_alert_is_an_error_report_the_link_survives(device, link):
    device.put(2, 'hardware_error', 1 << 5)
    positions = link.poll()
    assert set(positions) == {0, 1}
    status = link.status()
    assert status.connected and status.device_errors == 1
    assert status.last_error == ('ID 2: hardware error status 0x20 (overload error); reboot the '
                                 'servo to clear it')


def test_a_servo_in_velocity_mode_is_refused_at_connect(tmp_path):
    with DynamixelEmulator(tmp_path / 'dxl', {1: 2048, 2: 2048}, mode=1) as device:
        link, _ = open_link('dynamixel', device.path, SERVOS)
        assert not link.connected
        assert link.status().last_error.startswith('ID 1: Operating Mode is 1, not a position')
        assert device.get(1, 'torque') == 0 and device.instructions(0x83) == []


def test_limits_beyond_the_servos_position_limits_are_refused_at_connect(tmp_path):
    with DynamixelEmulator(tmp_path / 'dxl', {1: 2048, 2: 2048}) as device:
        device.put(2, 'min_limit', 1500)
        link, _ = open_link('dynamixel', device.path, SERVOS)
        assert not link.connected
        assert link.status().last_error == (
            'ID 2: servos.elbow.output_limits [1024, 3072] reach beyond what the servo takes in '
            'position mode, [1500, 4095]')


def test_an_error_number_in_a_status_packet_drops_the_link(device, link):
    device.next_error = 6   # data limit error, where a Present Position was expected
    assert link.poll() is None
    assert not link.connected
    assert link.status().last_error == ('ID 1: Sync Read of Present Position: the servo answered '
                                        'error 6 (data limit error)')


@pytest.mark.parametrize('change, error', [
    (lambda reply: reply[:-1] + bytes((reply[-1] ^ 0x01,)), 'garbled or short status packet'),
    (lambda reply: reply[:12], 'garbled or short status packet'),
    (lambda reply: b'', 'no status packet within the timeout'),
])
def test_a_garbled_short_or_missing_reply_drops_the_link(device, link, change, error):
    device.garble_next(change)
    assert link.poll() is None
    assert not link.connected
    assert error in link.status().last_error


def test_a_bus_that_never_answers_times_out(device, link):
    device.answering = False
    assert link.poll() is None
    assert link.status().last_error == ('ID 1: Sync Read of Present Position: no status packet '
                                        'within the timeout')


def test_unplugged_then_replugged(device, link):
    clock = link._clock
    device.unplug()
    assert link.poll() is None and not link.connected
    assert link.command({0: 0.3}) == (False, ())
    device.replug()
    clock.advance(1.0)
    assert link.poll() is not None
    assert link.status().reconnects == 1
    # The dropped command never arrived: the only Sync Writes are the two start-ups' holds.
    assert device.sync_writes() == [{1: 2560, 2: 1536}, {1: 2560, 2: 1536}]


@pytest.mark.parametrize('torque_off, torque', [(True, 0), (False, 1)])
def test_release_leaves_torque_as_configured(device, link, torque_off, torque):
    link.close(torque_off=torque_off)
    assert device.get(1, 'torque') == torque and device.get(2, 'torque') == torque


# -- byte stuffing end to end ---------------------------------------------------------------

EXTENDED = {
    'servos.shoulder.channel': 1, 'servos.shoulder.angle_range': [0.0, 2 * math.pi],
    'servos.shoulder.output_range': [0.0, 4096.0],
    'servos.shoulder.output_limits': [-1048575.0, 1048575.0],
}


def test_a_goal_that_needs_stuffing_arrives_intact(tmp_path):
    # Extended position mode, goal -131073 ticks = FF FF FD FF: inside the Sync Write the
    # bytes FF FF FD must go out stuffed.
    with DynamixelEmulator(tmp_path / 'dxl', {1: 0}, mode=4) as device:
        link, _ = open_link('dynamixel', device.path, EXTENDED, joints=('shoulder',))
        angle = -131073 / 4096 * 2 * math.pi
        assert link.command({0: angle}).sent
        positions = link.poll()
        assert device.dropped == 0
        assert device.get(1, 'goal') == -131073
        assert positions[0] == pytest.approx(angle)
        link.close(torque_off=False)


@pytest.mark.skipif(dynamixel.sdk_stuffs_packets(), reason='this dynamixel-sdk stuffs packets')
def test_the_sdk_alone_sends_that_goal_unstuffed_and_the_servo_drops_it(tmp_path):
    # Why the driver stuffs: the same Sync Write through the SDK's own PortHandler.
    with DynamixelEmulator(tmp_path / 'dxl', {1: 0}, mode=4) as device:
        port = sdk.PortHandler(str(device.path))
        assert port.setBaudRate(57600)
        packets = sdk.Protocol2PacketHandler()
        assert packets.write1ByteTxRx(port, 1, 64, 1)[0] == sdk.COMM_SUCCESS
        goal = sdk.GroupSyncWrite(port, packets, 116, 4)
        goal.addParam(1, dynamixel.le32(-131073))
        assert goal.txPacket() == sdk.COMM_SUCCESS
        value, result, _ = packets.read4ByteTxRx(port, 1, 116)   # a round trip after it
        port.closePort()
        assert result == sdk.COMM_SUCCESS and value == 0
        assert device.dropped == 1 and device.get(1, 'goal') == 0


def test_feedback_comes_in_the_sync_read_from_present_load_to_temperature(tmp_path):
    # XL430 control table: Present Load 126 (signed), Present Position 132, Present Input
    # Voltage 144 (0.1 V), Present Temperature 146 (degrees C); Hardware Error Status 70.
    with DynamixelEmulator(tmp_path / 'ttyUSB0', {1: 2560, 2: 1536}) as device:
        link, clock = open_link('dynamixel', device.path, SERVOS)
        device.put(1, 'load', -123)
        device.put(1, 'input_voltage', 118)
        device.put(1, 'temperature', 41)
        device.put(2, 'hardware_error', 1 << 2)   # overheating
        clock.advance(1.0)
        positions = link.poll()
        assert device.instructions(0x82)[-1] == (
            0xFE, bytes((126, 0, 21, 0, 1, 2)))   # one Sync Read, 21 bytes a servo
        assert positions[0] == pytest.approx((2560 - 2048) / TICKS_PER_RAD)
        assert positions[1] == pytest.approx(-(1536 - 2048) / TICKS_PER_RAD)
        feedback = link.feedback()
        assert feedback[0].voltage == pytest.approx(11.8) and feedback[0].temperature == 41.0
        assert feedback[0].extra == (('load_or_current_raw', '-123'),)
        assert feedback[0].load is None and feedback[0].errors == ()
        assert feedback[1].stalling == ('overheating error (bit 2)',)
        # Read the hardware error status as before (the alert bit), and only for ID 2.
        assert [(i, p[:2]) for i, p in device.instructions(0x02)][-1] == (2, bytes((70, 0)))
        link.poll()   # not due again: Present Position alone
        assert device.instructions(0x82)[-1] == (0xFE, bytes((132, 0, 4, 0, 1, 2)))
        link.close(torque_off=False)
