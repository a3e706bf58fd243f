"""Tests of the servo link (ROS-free): reconnect schedule, dropping, diagnostics, protocols.

A scripted controller stands in for the serial protocols here (their own tests run them on
emulated devices), so each failure can be made to happen exactly when wanted.
"""

from pathlib import Path
import subprocess
import sys

import pytest
from servo_emulators import FakeClock, ScriptedController

from two_bone_ik.ik.status import ERROR, OK, WARN
from two_bone_ik.servo.calibration import Calibration
from two_bone_ik.servo.controller import PortMissingError, ServoSettings
from two_bone_ik.servo.servo_link import assess, controller_class, ServoLink
from two_bone_ik.servo.servo_settings import ServoConfigError


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
