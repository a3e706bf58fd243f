"""Tests of the Pololu Maestro protocol module: bytes from the user's guide, against an emulator.

The emulator (``servo_emulators.MaestroEmulator``) serves a pseudo-terminal; the driver opens
it by path through pyserial, as it would open ``/dev/ttyACM0``.
"""

import pytest
import serial
from servo_emulators import check_noise_is_discarded, link_fixture, MaestroEmulator

from two_bone_ik.servo import maestro

# Shoulder: 0 rad at 1500 µs, +1 rad at 2000 µs. Elbow reversed: 0 rad at 1500 µs, +1 rad at
# 1000 µs, limited to 1100..1900 µs.
SERVOS = {
    'servos.shoulder.channel': 0, 'servos.shoulder.angle_range': [0.0, 1.0],
    'servos.shoulder.output_range': [1500.0, 2000.0],
    'servos.shoulder.max_velocity': 1.0, 'servos.shoulder.max_acceleration': 4.0,
    'servos.elbow.channel': 3, 'servos.elbow.angle_range': [0.0, 1.0],
    'servos.elbow.output_range': [1500.0, 1000.0], 'servos.elbow.output_limits': [1100.0, 1900.0],
}


def test_commands_encode_as_in_the_users_guide():
    # The guide's own examples: channel 2 to 1500 µs; channel 5 speed 140.
    assert maestro.set_target(2, 6000) == bytes((0x84, 0x02, 0x70, 0x2E))
    assert maestro.set_speed(5, 140) == bytes((0x87, 0x05, 0x0C, 0x01))
    assert maestro.set_acceleration(1, 255) == bytes((0x89, 0x01, 0x7F, 0x01))
    assert maestro.get_position(4) == bytes((0x90, 0x04))
    assert maestro.get_errors() == bytes((0xA1,))
    assert maestro.decode_word(bytes((0x70, 0x17))) == 6000
    with pytest.raises(ValueError, match='value must be 0 to 16383'):
        maestro.set_target(0, 16384)
    with pytest.raises(ValueError, match='acceleration must be 0 to 255'):
        maestro.set_acceleration(0, 256)


def test_speed_and_acceleration_units():
    # 500 µs/rad: 1 rad/s = 500 µs/s = 20 units of 25 µs/s; 4 rad/s^2 = 2000 µs/s^2 = 6.4
    # units of 312.5 µs/s^2.
    assert maestro.speed_units(1.0, 500.0) == 20
    assert maestro.acceleration_units(4.0, 500.0) == 6
    assert maestro.speed_units(0.0, 500.0) == 0           # no limit
    assert maestro.speed_units(1e-6, 500.0) == 1          # limited, however slightly
    assert maestro.speed_units(1e6, 500.0) == 16383
    assert maestro.acceleration_units(1e6, 500.0) == 255


def test_describe_errors_names_the_bits():
    assert maestro.describe_errors(0x12) == ('serial overrun error (bit 1), serial protocol '
                                             'error (bit 4)')


@pytest.fixture
def device(tmp_path):
    # Channel 0 holds 1600 µs (a previous run); channel 3 sends no pulses yet.
    with MaestroEmulator(tmp_path / 'ttyACM0', targets={0: 6400}) as emulator:
        yield emulator


@pytest.fixture
def link(device):
    yield from link_fixture('maestro', device, SERVOS)


def test_start_reads_positions_and_sets_limits_but_moves_nothing(device, link):
    assert link.connected
    expected = (b'\x90\x00\x90\x03\xa1'                           # Get Position 0, 3, Errors
                + bytes((0x87, 0, 20, 0)) + bytes((0x89, 0, 6, 0))  # speed 20, acceleration 6
                + bytes((0x87, 3, 0, 0)) + bytes((0x89, 3, 0, 0)))  # elbow: no limits
    device.wait_for(lambda: len(device.received) >= len(expected), what='the set-up')
    assert device.take_received() == expected
    assert device.speeds == {0: 20, 3: 0}
    assert device.accelerations == {0: 6, 3: 0}
    # What start read: the shoulder where the Maestro holds it; the elbow (no pulses) unknown.
    assert link.poll() == {0: pytest.approx(0.2)}
    assert [c for c in device.commands if c[0] == 'target'] == []


def test_a_command_is_one_write_of_exact_set_target_bytes(device, link):
    link.poll()
    device.take_received()
    outcome = link.command({0: 0.25, 1: 0.5})
    assert outcome == (True, ())
    # 0.25 rad -> 1625 µs = 6500 quarter-µs; reversed elbow 0.5 rad -> 1250 µs = 5000.
    expected = bytes((0x84, 0, 6500 & 0x7F, 6500 >> 7, 0x84, 3, 5000 & 0x7F, 5000 >> 7))
    device.wait_for(lambda: bytes(device.received) == expected, what='the targets')
    assert device.targets[0] == 6500 and device.targets[3] == 5000


def test_quarter_microsecond_resolution(device, link):
    link.command({0: 0.0012345})   # 1500.61725 µs -> 6002.469 quarter-µs -> 6002
    device.wait_for(lambda: device.targets[0] == 6002, what='the target')
    assert link.poll()[0] == pytest.approx(0.5 / 500.0)   # 6002 / 4 = 1500.5 µs


def test_clamping_at_the_output_limits(device, link):
    outcome = link.command({0: 0.1, 1: -1.0})   # elbow: -1 rad -> 2000 µs, beyond 1900
    assert outcome.clamped == ('elbow',)
    device.wait_for(lambda: device.targets[3] == 1900 * 4, what='the clamped target')
    status = link.status()
    assert status.commands_clamped == 1
    assert 'elbow: -1.0000 rad is 2000.00 µs, clamped to 1900' in status.last_clamp


def test_read_back_follows_the_maestro_output(device, link):
    link.command({0: 0.4, 1: 0.6})
    device.wait_for(lambda: device.targets[3] == 1200 * 4, what='the targets')
    positions = link.poll()
    assert positions[0] == pytest.approx(0.4, abs=1e-12)
    assert positions[1] == pytest.approx(0.6, abs=1e-12)


def test_an_error_report_is_an_error_but_the_link_stays_up(device, link):
    link.poll()
    device.error_bits = 0x10 | 0x02
    positions = link.poll()
    assert positions is not None and 0 in positions
    status = link.status()
    assert status.connected and status.device_errors == 1
    assert status.last_error == ('Maestro error 0x0012: serial overrun error (bit 1), serial '
                                 'protocol error (bit 4)')
    assert device.error_bits == 0   # Get Errors cleared them


@pytest.mark.parametrize('change, error', [
    (lambda reply: b'\xff\xff' + reply[2:], 'position 65535 is not a Maestro pulse width'),
    (lambda reply: reply[:-2] + b'\x00\x80', 'undefined bits'),
    (lambda reply: reply[:-1], 'sent 5 of 6 reply bytes'),
    (lambda reply: b'', 'sent 0 of 6 reply bytes'),
])
def test_a_garbled_or_short_reply_drops_the_link(device, link, change, error):
    link.poll()
    device.garble_next(change)
    assert link.poll() is None
    status = link.status()
    assert not status.connected and status.read_failures == 1
    assert error in status.last_error


def test_extra_reply_bytes_drop_the_reading_they_came_with(device, link):
    link.poll()
    device.garble_next(lambda reply: reply + b'\x00\x00')
    assert link.poll() is None
    assert 'the Maestro sent 2 byte(s) more than the 6 of its reply' in link.status().last_error


def test_bytes_between_replies_are_discarded_and_reported(device, link):
    check_noise_is_discarded(device, link, b'\x01', 'the Maestro')


def test_a_device_that_never_answers_times_out(device, link):
    device.answering = False
    assert link.poll() is None   # returns (after the read timeout) instead of hanging
    assert 'sent 0 of 6 reply bytes within' in link.status().last_error


def test_unplugged_then_replugged_reconnects_and_drops_what_came_meanwhile(device, link):
    clock = link._clock
    link.command({0: 0.1})
    device.wait_for(lambda: device.targets[0] == 1550 * 4, what='the first target')
    device.unplug()
    assert link.poll() is None
    status = link.status()
    assert not status.connected
    # A command while disconnected is dropped, not kept.
    assert link.command({0: 0.5}) == (False, ())
    assert link.status().commands_dropped == 1
    device.replug()
    device.take_received()
    assert link.poll() is None            # not yet time to reconnect
    clock.advance(1.0)
    positions = link.poll()               # reconnects: reads where the Maestro holds
    assert positions == {0: pytest.approx(0.1)}
    assert link.status().reconnects == 1
    # Only the reconnect's reads and limits went out: the dropped command never did (the
    # next read is a round trip, so the emulator has seen everything sent before it).
    assert link.poll() is not None
    received = device.take_received()
    assert received.startswith(b'\x90\x00\x90\x03\xa1') and 0x84 not in received
    assert device.targets[0] == 1550 * 4


def test_a_reconnect_attempt_while_the_port_is_missing_waits_another_period(device, link):
    clock = link._clock
    device.unplug()
    link.poll()
    for _ in range(3):
        clock.advance(1.0)
        assert link.poll() is None
    assert 'does not exist' in link.status().last_error
    device.replug()
    clock.advance(0.5)
    assert link.poll() is None   # half a period after the last attempt
    clock.advance(0.5)
    assert link.poll() is not None


def test_release_with_torque_off_stops_the_pulses(device, link):
    link.command({0: 0.1, 1: 0.1})
    device.wait_for(lambda: device.targets[3] == 1450 * 4, what='the targets')
    link.close(torque_off=True)
    device.wait_for(lambda: device.targets[0] == 0 and device.targets[3] == 0,
                    what='target 0 on both channels')


def test_release_without_torque_off_leaves_the_targets(device, link):
    link.command({0: 0.1})
    device.wait_for(lambda: device.targets[0] == 1550 * 4, what='the target')
    device.take_received()
    link.close(torque_off=False)
    assert not link.connected
    # A round trip of our own on the port: the emulator has handled all that came before.
    with serial.Serial(str(device.path), timeout=5.0) as port:
        port.write(maestro.get_errors())
        assert port.read(2) == b'\x00\x00'
    assert device.take_received() == maestro.get_errors()
    assert device.targets[0] == 6200
