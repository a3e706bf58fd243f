"""Tests of the servo link (ROS-free): settings, reconnect schedule, dropping, diagnostics.

A scripted controller stands in for the serial protocols here (their own tests run them on
emulated devices), so each failure can be made to happen exactly when wanted.
"""

import math
from pathlib import Path
import subprocess
import sys

import pytest
from servo_emulators import FakeClock

from two_bone_ik.servo.calibration import Calibration, CalibrationError
from two_bone_ik.servo.controller import Controller, LinkError, PortMissingError, Reading
from two_bone_ik.servo.controller import ReplyTimeout, ServoSettings
from two_bone_ik.servo.servo_link import assess, controller_class, servo_settings
from two_bone_ik.servo.servo_link import ServoConfigError, ServoLink
from two_bone_ik.status import ERROR, OK, WARN


class ScriptedController(Controller):
    """A controller whose port and device do what the test says."""

    PROTOCOL = 'scripted'
    UNITS = 'µs'

    def __init__(self, servos):
        super().__init__('/dev/scripted', 9600, servos)
        self.port_present = True
        self.answering = True
        self.steps = {servo.channel: 1500 for servo in servos}
        self.errors = ()
        self.written = []
        self.opened = 0
        self.released = []

    def open_port(self):
        if not self.port_present:
            raise PortMissingError(f'port: {self.port} does not exist')
        self.opened += 1
        self.is_open = True

    def _close(self):
        pass

    def _answer(self):
        if not self.answering:
            raise ReplyTimeout('no reply')
        reading = Reading(dict(self.steps), self.errors)
        self.errors = ()
        return reading

    def setup(self):
        return self._answer()

    def read(self):
        return self._answer()

    def write(self, steps):
        if not self.answering:
            raise LinkError('write failed')
        self.written.append(dict(steps))
        self.steps.update(steps)

    def release(self, torque_off):
        self.released.append(torque_off)


def _servos():
    calibration = Calibration((0.0, 1.0), (1500.0, 2000.0), resolution=1.0)
    return [ServoSettings('shoulder', 0, calibration), ServoSettings('elbow', 1, calibration)]


@pytest.fixture
def controller():
    return ScriptedController(_servos())


@pytest.fixture
def clock():
    return FakeClock()


def test_start_poll_and_command(controller, clock):
    link = ServoLink(controller, 1.0, clock)
    assert link.start()
    assert link.poll() == {0: 0.0, 1: 0.0}
    assert link.command({1: 0.5}) == (True, ())
    assert controller.written == [{1: 1750}]
    assert link.poll() == {0: 0.0, 1: 0.5}
    assert link.command({0: 2.0}) == (True, ('shoulder',))
    assert controller.written[-1] == {0: 2000}
    status = link.status()
    assert (status.commands_sent, status.commands_clamped) == (2, 1)


def test_a_missing_port_at_start_is_a_config_error(controller, clock):
    controller.port_present = False
    with pytest.raises(PortMissingError, match='port: /dev/scripted does not exist'):
        ServoLink(controller, 1.0, clock).start()


def test_a_silent_device_at_start_is_retried_every_period(controller, clock):
    controller.answering = False
    link = ServoLink(controller, 0.5, clock)
    assert not link.start()
    attempts = [controller.opened]
    for _ in range(10):            # 2.5 s in steps of 0.25 s: an attempt every other step
        clock.advance(0.25)
        assert link.poll() is None
        attempts.append(controller.opened)
    assert attempts == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6]
    controller.answering = True
    clock.advance(0.5)
    assert link.poll() == {0: 0.0, 1: 0.0}
    assert link.status().reconnects == 1


def test_commands_while_disconnected_are_dropped_not_replayed(controller, clock):
    link = ServoLink(controller, 1.0, clock)
    link.start()
    controller.answering = False
    assert link.poll() is None                 # the read fails: link down
    assert link.command({0: 0.2}) == (False, ())
    assert link.command({0: 0.4}) == (False, ())
    controller.answering = True
    clock.advance(1.0)
    assert link.poll() == {0: 0.0, 1: 0.0}     # reconnected, still where it was
    assert controller.written == []
    assert link.status().commands_dropped == 2


def test_a_failed_write_drops_the_link_and_the_command(controller, clock):
    link = ServoLink(controller, 1.0, clock)
    link.start()
    controller.answering = False
    assert link.command({0: 0.2}) == (False, ())
    assert not link.connected and link.status().last_error == 'write failed'


def test_no_stale_positions_while_disconnected(controller, clock):
    link = ServoLink(controller, 1.0, clock)
    link.start()
    controller.answering = False
    results = [link.poll()]
    for _ in range(3):
        clock.advance(1.0)
        results.append(link.poll())
    assert results == [None] * 4


def test_the_port_vanishing_while_running_is_a_link_failure_not_an_exit(controller, clock):
    link = ServoLink(controller, 1.0, clock)
    link.start()
    controller.answering = False
    link.poll()
    controller.port_present = False
    clock.advance(1.0)
    assert link.poll() is None
    assert link.status().last_error == '/dev/scripted does not exist'
    controller.port_present = controller.answering = True
    clock.advance(1.0)
    assert link.poll() is not None


def test_diagnostic_levels(controller, clock):
    link = ServoLink(controller, 1.0, clock)
    link.start()
    first = link.status()
    assert assess(None, first) == (OK, 'connected')
    link.command({0: 5.0})
    clamped = link.status()
    level, message = assess(first, clamped)
    assert level == WARN and message.startswith('1 command(s) clamped; shoulder: 5.0000 rad is')
    assert assess(clamped, clamped) == (OK, 'connected')    # once reported, back to OK
    controller.errors = ('overheating',)
    link.poll()
    errored = link.status()
    assert assess(clamped, errored) == (ERROR, 'error: overheating')
    assert assess(errored, errored) == (OK, 'connected')
    controller.answering = False
    link.poll()
    assert assess(errored, link.status()) == (ERROR, 'disconnected: no reply')


def test_close_releases_only_a_connected_link(controller, clock):
    link = ServoLink(controller, 1.0, clock)
    link.start()
    link.close(torque_off=True)
    assert controller.released == [True] and not link.connected
    controller2 = ScriptedController(_servos())
    controller2.answering = False
    link2 = ServoLink(controller2, 1.0, clock)
    link2.start()
    link2.close(torque_off=True)
    assert controller2.released == []


# -- settings from parameters ---------------------------------------------------------------

def _values(**changes):
    values = {
        'servos.a.channel': 0, 'servos.a.angle_range': [-1.0, 1.0],
        'servos.a.output_range': [1000.0, 2000.0],
        'servos.b.channel': 1, 'servos.b.angle_range': [-1.0, 1.0],
        'servos.b.output_range': [2000.0, 1000.0], 'servos.b.max_velocity': 2.0,
    }
    values.update({key.replace('__', '.'): value for key, value in changes.items()})
    return values


def test_servo_settings_from_parameters():
    servos = servo_settings(controller_class('maestro'), ['a', 'b'], _values())
    assert [(s.joint, s.channel, s.max_velocity) for s in servos] == [('a', 0, 0.0),
                                                                      ('b', 1, 2.0)]
    assert servos[1].calibration.resolution == 0.25
    assert servos[1].calibration.output_limits == (1000.0, 2000.0)


@pytest.mark.parametrize('protocol, joints, changes, error, message', [
    ('maestro', ['a', 'b'], {'servos__a__channel': 24}, ServoConfigError,
     'servos.a.channel: expected a channel from 0 to 23, got 24'),
    ('ssc32u', ['a', 'b'], {'servos__b__channel': 0}, ServoConfigError,
     'servos.b.channel: 0 is also the channel of a'),
    ('dynamixel', ['a', 'b'], {'servos__a__channel': 253}, ServoConfigError,
     'servos.a.channel: expected a motor ID from 0 to 252, got 253'),
    ('ssc32u', ['a', 'b'], {'servos__a__output_range': [400.0, 2000.0]}, CalibrationError,
     r'servos.a.output_limits: \[400.0, 2000.0\] is outside what the controller takes, 500'),
    ('maestro', ['a', 'b'], {'servos__b__max_velocity': -1.0}, ServoConfigError,
     'servos.b.max_velocity: expected a finite value >= 0, got -1.0'),
    ('maestro', ['a', 'b'], {'servos__a__max_acceleration': math.inf}, ServoConfigError,
     'servos.a.max_acceleration: expected a finite value >= 0'),
    ('maestro', [], {}, ServoConfigError, 'joints: expected at least one joint name'),
    ('maestro', ['a', 'a'], {}, ServoConfigError, 'joints: expected distinct non-empty names'),
])
def test_bad_servo_settings_name_the_parameter(protocol, joints, changes, error, message):
    with pytest.raises(error, match=message):
        servo_settings(controller_class(protocol), joints, _values(**changes))


def test_an_unknown_protocol_is_named():
    with pytest.raises(ServoConfigError, match='protocol: expected one of maestro, ssc32u, '
                                               'dynamixel, dynamixel1, feetech, feetech_scs, '
                                               "got 'pwm'"):
        controller_class('pwm')


def test_serial_libraries_are_imported_only_where_needed():
    # In a fresh interpreter: the IK node and the servo node's module import neither pyserial
    # nor dynamixel-sdk; the Maestro (and SSC-32U, Feetech) modules pull in pyserial only when a
    # port is opened, and never dynamixel-sdk; the Dynamixel module imports dynamixel-sdk.
    code = (
        'import sys\n'
        'import two_bone_ik.nodes.ik_node, two_bone_ik.nodes.servo_node\n'
        'import two_bone_ik.servo.maestro, two_bone_ik.servo.ssc32u, two_bone_ik.servo.feetech\n'
        'print(sorted(m for m in ("serial", "dynamixel_sdk") if m in sys.modules))\n'
        'import two_bone_ik.servo.dynamixel\n'
        'print("dynamixel_sdk" in sys.modules)\n')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=60, cwd=Path(__file__).resolve().parents[1])
    assert result.returncode == 0, result.stderr
    assert result.stdout.split('\n')[:2] == ['[]', 'True']
