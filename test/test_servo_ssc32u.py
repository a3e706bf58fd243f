"""Tests of the Lynxmotion SSC-32U protocol module: the guide's ASCII, against an emulator."""

import pytest
import serial
from servo_emulators import check_noise_is_discarded, link_fixture, Ssc32uEmulator

from two_bone_ik.servo import ssc32u

# Shoulder on channel 4: 0 rad at 1500 µs, 1 rad at 2100 µs (600 µs/rad), 0.5 rad/s at most.
# Elbow on channel 17, reversed: 0 rad at 1500 µs, 1 rad at 900 µs, limited to 700..2300 µs.
SERVOS = {
    'servos.shoulder.channel': 4, 'servos.shoulder.angle_range': [0.0, 1.0],
    'servos.shoulder.output_range': [1500.0, 2100.0], 'servos.shoulder.max_velocity': 0.5,
    'servos.elbow.channel': 17, 'servos.elbow.angle_range': [0.0, 1.0],
    'servos.elbow.output_range': [1500.0, 900.0], 'servos.elbow.output_limits': [700.0, 2300.0],
}


def test_commands_encode_as_in_the_user_guide():
    # The guide's group move example: #5 P1600 #10 P750 T2500 <cr> (spaces are optional).
    assert ssc32u.group_move({5: 1600, 10: 750}, 2500) == b'#5P1600#10P750T2500\r'
    assert ssc32u.group_move({17: 750}, 2000, {17: 500}) == b'#17P750S500T2000\r'
    assert ssc32u.query_pulse_width(3) == b'QP3\r'
    assert ssc32u.outputs_low([0, 1]) == b'#0L#1L\r'
    assert ssc32u.speed_units(0.5, 600.0) == 300
    assert ssc32u.speed_units(0.0, 600.0) == 0
    with pytest.raises(ValueError, match='pulse width must be 500 to 2500'):
        ssc32u.group_move({0: 2600}, 20)
    with pytest.raises(ValueError, match='time must be 0 to 65535'):
        ssc32u.group_move({0: 1500}, 70000)


@pytest.fixture
def device(tmp_path):
    # Channel 4 puts out 1620 µs (a previous run); channel 17 no pulses yet.
    with Ssc32uEmulator(tmp_path / 'ttyUSB0', pulses={4: 1620}) as emulator:
        yield emulator


@pytest.fixture
def link(device):
    yield from link_fixture('ssc32u', device, SERVOS, move_time=0.05)


def test_start_queries_the_pulse_widths_and_moves_nothing(device, link):
    assert link.connected
    assert device.lines == ['QP4', 'QP17', 'Q']
    assert device.moves == []
    # Channel 4 at 1620 µs = 0.2 rad; channel 17 sends no pulses, so the elbow is unknown.
    assert link.poll() == {0: pytest.approx(0.2)}


def test_a_command_is_one_group_move_line(device, link):
    outcome = link.command({1: 0.25, 0: 0.5})
    assert outcome == (True, ())
    # Both joints in one line (they start and stop together), each with its speed limit,
    # the move time last: 0.5 rad -> 1800 µs, S 300 µs/s; reversed 0.25 rad -> 1350 µs.
    link.poll()   # a round trip: the emulator has seen the move
    assert device.lines[-4] == '#17P1350#4P1800S300T50'
    assert device.moves[-1] == ({17: (1350, None), 4: (1800, 300)}, 50)


def test_clamping_and_read_back_at_ten_microseconds(device, link):
    outcome = link.command({0: -1.0, 1: 1.2})   # 900 µs < the 1500 µs limit; 780 µs fine
    assert outcome.clamped == ('shoulder',)
    positions = link.poll()
    assert device.pulses[4] == 1500 and device.pulses[17] == 780
    assert positions == {0: pytest.approx(0.0), 1: pytest.approx(1.2)}
    link.command({1: 0.1234})                  # 1425.96 µs -> 1426 µs
    positions = link.poll()
    assert device.pulses[17] == 1426
    assert positions[1] == pytest.approx((1500 - 1420) / 600.0)   # QP answers 142: 10 µs steps


@pytest.mark.parametrize('change, error', [
    (lambda reply: b'\x07' + reply[1:], 'QP answered 7, not a pulse width'),
    (lambda reply: reply[:1], 'sent 1 of 3 reply bytes'),
])
def test_a_garbled_or_short_reply_drops_the_link(device, link, change, error):
    device.garble_next(change)
    assert link.poll() is None
    assert not link.connected
    assert error in link.status().last_error


@pytest.mark.parametrize('change, error', [
    (lambda reply: b'\x55' + reply, '1 byte(s) more than the 3 of its reply'),
    (lambda reply: reply[:1] + b'\x55' + reply[1:], '1 byte(s) more than the 3 of its reply'),
    (lambda reply: reply + b'\x55', '1 byte(s) more than the 3 of its reply'),
    # The noise in, the reply's last byte not yet: the Q answer is not where it belongs.
    (lambda reply: b'\x55' + reply[:-1], 'does not end with the answer to Q (. or +) but 120'),
], ids=['before', 'between', 'after', 'before-reply-cut'])
def test_a_stray_byte_in_a_reply_drops_the_reading_never_publishes_it(device, link, change,
                                                                      error):
    # 16.5: 0x55 (850 µs) is a plausible QP answer, so a reply shifted by it decodes as wrong
    # positions; the reading is garbled and dropped instead.
    device.pulses[17] = 1200
    assert link.poll() == {0: pytest.approx(0.2), 1: pytest.approx(0.5)}
    device.garble_next(change)
    assert link.poll() is None
    assert not link.connected
    assert error in link.status().last_error
    link._clock.advance(1.0)
    readings = [link.poll() for _ in range(3)]   # reconnected: nothing stale is read
    assert readings == [{0: pytest.approx(0.2), 1: pytest.approx(0.5)}] * 3
    assert device.lines[-9:] == ['QP4', 'QP17', 'Q'] * 3 and link.status().reconnects == 1


def test_line_noise_between_queries_is_discarded_and_reported(device, link):
    # Bytes that come while no query is out are discarded before the next query, which then
    # reads its own reply; the link stays up and diagnostics hear of it once.
    assert link.poll() == {0: pytest.approx(0.2)}
    check_noise_is_discarded(device, link, b'\x55\x99', 'the SSC-32U')


def test_a_device_that_never_answers_times_out(device, link):
    device.answering = False
    assert link.poll() is None
    assert 'the SSC-32U sent 0 of 3 reply bytes' in link.status().last_error


def test_unplugged_then_replugged(device, link):
    clock = link._clock
    device.unplug()
    assert link.command({0: 0.1}) == (False, ())      # the write fails: dropped
    assert not link.connected
    assert link.command({0: 0.3}) == (False, ())      # while disconnected: dropped
    assert link.status().commands_dropped == 2
    device.replug()
    clock.advance(1.0)
    assert link.poll() == {0: pytest.approx(0.2)}     # reconnected; nothing was moved
    link.poll()
    assert device.moves == []


def test_release_with_torque_off_drives_the_outputs_low(device, link):
    link.command({0: 0.5, 1: 0.5})
    link.poll()
    link.close(torque_off=True)
    with serial.Serial(str(device.path), timeout=5.0) as port:   # a round trip of our own
        port.write(b'QP4\r')
        assert port.read(1) == b'\x00'
    assert device.lines[-2] == '#4L#17L'
    assert device.pulses[4] == 0 and device.pulses[17] == 0
