#!/usr/bin/env python3
"""Servo driver: joint_commands -> first byte on the wire, beside a bare pyserial writer.

Run from the repository root (pyserial and dynamixel-sdk installed)::

    python bench/servo_bench.py [--protocols maestro ssc32u dynamixel dynamixel1 feetech
                                 feetech_scs] [--rates 50 100 200]
                                [--rounds 3] [--duration 2]

For each protocol it starts, as subprocesses, each on an emulated controller of its own
(``test/servo_emulators.py``, ``test/bus_servo_emulators.py``, a pseudo-terminal):

- ``driver`` (namespace ``/driver``): the real ``two_bone_ik_servo`` node, two joints, at the
  controller's default baud rate and the default ``state_rate`` of 50 Hz (so its reads of the
  servos run meanwhile, as in use);
- ``floor`` (namespace ``/floor``): a bare rclpy node (this file, ``--floor``) that writes, for
  each JointState, the same bytes the driver sends for it (looked up in a table built
  beforehand) with pyserial: DDS, rclpy and a ``write`` only.

Then, per rate and round (the two alternating which goes first), it publishes ``joint_commands``
at that rate for ``--duration`` seconds. Each command's angles encode its number, so the target
the emulator decodes names the command; the emulator stamps the moment its thread read the
bytes. It prints per protocol and rate: latency p50 / p99 (median over rounds of each round's
figure) and the achieved command rate for both, the ratios driver / floor, and the command rate
the controller's default baud rate would allow on a real wire (a pty moves bytes at once,
whatever the baud rate). A script, not a test: the figures depend on the machine and its load.
"""

import argparse
from pathlib import Path
import sys
import tempfile
import time
from typing import Callable, NamedTuple

REPO_ROOT = Path(__file__).resolve().parents[1]
for path in (REPO_ROOT, REPO_ROOT / 'test'):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bus_servo_emulators import Dynamixel1Emulator, FeetechEmulator, packet  # noqa: E402
import numpy as np  # noqa: E402
import rclpy  # noqa: E402
from rclpy.node import Node  # noqa: E402
from rclpy.qos import QoSProfile  # noqa: E402
from ros_harness import claim_domain_id, NodeProcess, RosProbe, write_params  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from servo_emulators import dynamixel_packet, DynamixelEmulator, MaestroEmulator  # noqa: E402
from servo_emulators import Ssc32uEmulator  # noqa: E402

#: Commands distinguishable by their target; the number wraps after this many.
CODES = 400
#: The first joint's angle of command ``k``: ``BASE + (k % CODES) * step`` rad.
BASE = 0.1
JOINTS = ('shoulder', 'elbow')


class Timed:
    """Mixin: stamp each first-joint target the emulator decodes, by command code."""

    def stamp(self, value: int) -> None:
        self.arrivals.append((self.chunk_time, value))


class TimedMaestro(Timed, MaestroEmulator):

    def _execute(self, name, data):
        if name == 'target' and data[0] == 0:
            self.stamp(data[1] | data[2] << 7)
        return super()._execute(name, data)


class TimedSsc32u(Timed, Ssc32uEmulator):

    def _execute(self, line):
        if line.startswith('#0P'):
            self.stamp(int(line[3:].split('#')[0].split('S')[0]))
        return super()._execute(line)


class TimedDynamixel(Timed, DynamixelEmulator):

    def _sync_write(self, parameters):
        if parameters[:2] == bytes((116, 0)) and parameters[4] == 1:
            self.stamp(int.from_bytes(parameters[5:9], 'little', signed=True))
        return super()._sync_write(parameters)


class TimedBus(Timed):
    """Stamp the first servo's goal of each Sync Write (bus protocols)."""

    def _sync_write(self, parameters):
        if parameters[0] == self.ENTRIES['goal'][0] and parameters[2] == 1:
            self.stamp(self._decode(parameters[3:5]))
        return super()._sync_write(parameters)


class TimedFeetech(TimedBus, FeetechEmulator):
    pass


class TimedDynamixel1(TimedBus, Dynamixel1Emulator):
    pass


def maestro_bytes(value: int) -> bytes:
    return b''.join(bytes((0x84, ch, value & 0x7F, value >> 7)) for ch in (0, 1))


def ssc32u_bytes(value: int) -> bytes:
    return f'#0P{value}#1P{value}T20\r'.encode('ascii')


def dynamixel_bytes(value: int) -> bytes:
    data = bytearray((116, 0, 4, 0))
    for dxl_id in (1, 2):
        data += bytes((dxl_id,)) + value.to_bytes(4, 'little')
    return dynamixel_packet(0xFE, 0x83, bytes(data))


def bus_bytes(goal_address: int, big_endian: bool) -> Callable[[int], bytes]:
    """Return the encoder of one Sync Write of Goal Position to IDs 1 and 2 (Feetech, AX)."""
    def encode(value: int) -> bytes:
        word = value.to_bytes(2, 'big' if big_endian else 'little')
        return packet(0xFE, 0x83, bytes((goal_address, 2, 1)) + word + bytes((2,)) + word)
    return encode


class BenchProtocol(NamedTuple):
    """What the bench needs of one protocol (one row of :data:`PROTOCOLS`).

    Attributes
    ----------
    step : float
        One device step in rad for the bench's calibration (1000 device units per rad).
    baud : int
        The controller's default baud rate.
    zero : float
        Device output at 0 rad in the bench's calibration (the servo range holds it and 1000
        more); command code ``k`` is ``zero + 1000 * (BASE + k * step)`` device units.
    first_channel : int
        Channel (or ID) of the first joint; the second is the next one.
    read_bytes : int
        Bytes on the wire per state read of two joints (request and reply).
    command_bytes : callable
        Device steps -> the bytes the driver sends for a two-joint command (the floor's).
    make_device : callable
        Path -> a :class:`Timed` emulator holding both servos at their centre.
    """

    step: float
    baud: int
    zero: float
    first_channel: int
    read_bytes: int
    command_bytes: Callable[[int], bytes]
    make_device: Callable[[Path], Timed]


#: The protocols benched; a new protocol is one row (and its Timed emulator).
PROTOCOLS = {
    'maestro': BenchProtocol(0.00025, 9600, 1000.0, 0, 5 + 6, maestro_bytes,
                             lambda path: TimedMaestro(path, targets={0: 6000, 1: 6000})),
    'ssc32u': BenchProtocol(0.001, 9600, 1000.0, 0, 10 + 3, ssc32u_bytes,
                            lambda path: TimedSsc32u(path, pulses={0: 1500, 1: 1500})),
    'dynamixel': BenchProtocol(0.001, 57600, 1000.0, 1, 16 + 2 * 15, dynamixel_bytes,
                               lambda path: TimedDynamixel(path, {1: 1500, 2: 1500})),
    # Protocol 1.0 has no Sync Read: a Read per servo (request 8, reply 8).
    'dynamixel1': BenchProtocol(0.001, 1_000_000, 0.0, 1, 2 * 16, bus_bytes(30, False),
                                lambda path: TimedDynamixel1(path, {1: 500, 2: 500})),
    # One SYNC_READ (request 10, replies 2 x 8).
    'feetech': BenchProtocol(0.001, 1_000_000, 1000.0, 1, 10 + 2 * 8, bus_bytes(42, False),
                             lambda path: TimedFeetech(path, {1: 1500, 2: 1500})),
    # SCS: no SYNC_READ, a READ per servo.
    'feetech_scs': BenchProtocol(0.001, 1_000_000, 0.0, 1, 2 * 16, bus_bytes(42, True),
                                 lambda path: TimedFeetech(path, {1: 500, 2: 500},
                                                           series='scs')),
}


def device_units(protocol: str, code: int) -> int:
    """Device steps of command ``code`` (both joints get the same)."""
    spec = PROTOCOLS[protocol]
    return round((spec.zero + 1000.0 * BASE) / (1000.0 * spec.step)) + code


def command_bytes(protocol: str, code: int) -> bytes:
    """Return the bytes the driver sends for command ``code`` (what the floor writes)."""
    return PROTOCOLS[protocol].command_bytes(device_units(protocol, code))


def wire_rate(protocol: str, state_rate: float = 50.0) -> float:
    """Commands per second the default baud rate allows, with the state reads at 50 Hz."""
    spec = PROTOCOLS[protocol]
    bytes_per_second = spec.baud / 10.0 - spec.read_bytes * state_rate
    return bytes_per_second / len(command_bytes(protocol, 0))


def make_device(protocol: str, path: Path):
    device = PROTOCOLS[protocol].make_device(path)
    device.arrivals = []
    return device


def driver_params(protocol: str, port: str, path: Path) -> Path:
    spec = PROTOCOLS[protocol]
    servos = {}
    for index, joint in enumerate(JOINTS):
        servos[joint] = {'channel': spec.first_channel + index, 'angle_range': [0.0, 1.0],
                         'output_range': [spec.zero, spec.zero + 1000.0],
                         'max_velocity': 0.0}
    return write_params(path, {'protocol': protocol, 'port': port, 'joints': list(JOINTS),
                               'servos': servos}, 'two_bone_ik_servo')


class FloorNode(Node):
    """The floor: for each JointState, write the bytes of its code with pyserial."""

    def __init__(self, protocol: str, port: str):
        super().__init__('servo_floor')
        import serial
        self._serial = serial.Serial(port, PROTOCOLS[protocol].baud, timeout=0.05)
        self._table = {code: command_bytes(protocol, code) for code in range(CODES)}
        self._step = PROTOCOLS[protocol].step
        self.create_subscription(JointState, 'joint_commands', self._on_command,
                                 QoSProfile(depth=10))

    def _on_command(self, msg):
        code = int(round((msg.position[0] - BASE) / self._step))
        self._serial.write(self._table[code])


def run_floor(protocol: str, port: str) -> int:
    rclpy.init()
    node = FloorNode(protocol, port)
    try:
        rclpy.spin(node)
    except KeyboardInterrupt:
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


def measure(publisher, device, protocol: str, rate: float, duration: float,
            first_code: int):
    """Publish at ``rate`` for ``duration`` s; return (latencies in s, achieved rate, sent)."""
    period = 1.0 / rate
    count = int(duration * rate)
    sent = {}
    device.arrivals.clear()
    start = time.monotonic()
    for i in range(count):
        due = start + i * period
        while time.monotonic() < due:
            time.sleep(min(0.001, max(0.0, due - time.monotonic())))
        code = (first_code + i) % CODES
        angle = BASE + code * PROTOCOLS[protocol].step
        msg = JointState(name=list(JOINTS), position=[angle, angle])
        sent[device_units(protocol, code)] = time.monotonic()
        publisher.publish(msg)
    deadline = time.monotonic() + 1.0
    while len(device.arrivals) < count and time.monotonic() < deadline:
        time.sleep(0.005)
    latencies = [stamp - sent[value] for stamp, value in device.arrivals if value in sent]
    stamps = sorted(stamp for stamp, value in device.arrivals if value in sent)
    achieved = (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else 0.0
    return np.array(latencies), achieved, count


def bench(args) -> None:
    domain = claim_domain_id()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for protocol in args.protocols:
            devices = {kind: make_device(protocol, tmp / f'{protocol}_{kind}')
                       for kind in ('driver', 'floor')}
            params = driver_params(protocol, str(devices['driver'].path), tmp / 'driver.yaml')
            driver = NodeProcess('two_bone_ik.nodes.servo_node', params_file=params,
                                 ros_args=['-r', '__ns:=/driver'], domain_id=domain,
                                 log_dir=tmp, name=f'{protocol}_driver')
            floor = NodeProcess(None, command=[sys.executable, __file__, '--floor', protocol,
                                               str(devices['floor'].path)],
                                ros_args=['-r', '__ns:=/floor'], domain_id=domain,
                                log_dir=tmp, name=f'{protocol}_floor')
            with driver, floor, RosProbe(domain, 'servo_bench') as probe:
                publishers = {kind: probe.publisher(JointState, f'/{kind}/joint_commands')
                              for kind in devices}
                for publisher in publishers.values():
                    probe.wait_for_subscribers(publisher)
                results = {}
                code = 0
                for rate in args.rates:
                    for round_ in range(args.rounds):
                        kinds = ('driver', 'floor') if round_ % 2 == 0 else ('floor', 'driver')
                        for kind in kinds:
                            # A short warm-up, then the measured run.
                            measure(publishers[kind], devices[kind], protocol, rate, 0.25, code)
                            code += int(0.25 * rate)
                            lat, achieved, count = measure(publishers[kind], devices[kind],
                                                           protocol, rate, args.duration, code)
                            code += count
                            results.setdefault((rate, kind), []).append(
                                (np.percentile(lat, 50), np.percentile(lat, 99), achieved,
                                 count - len(lat)))
                for rate in args.rates:
                    row = {'protocol': protocol, 'rate': rate, 'wire': wire_rate(protocol)}
                    for kind in ('driver', 'floor'):
                        figures = np.array(results[(rate, kind)])
                        row[kind] = (np.median(figures[:, 0]) * 1e6,
                                     np.median(figures[:, 1]) * 1e6,
                                     np.median(figures[:, 2]), int(figures[:, 3].sum()))
                    rows.append(row)
            for device in devices.values():
                device.close()
    print(f'{args.rounds} rounds of {args.duration:g} s per rate; medians over rounds; '
          'latency = joint_commands publish -> first byte read by the emulated controller')
    print('| protocol | rate | driver p50 | driver p99 | floor p50 | floor p99 | p50 ratio | '
          'p99 ratio | achieved (driver / floor) | lost | wire limit at default baud |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for row in rows:
        d, f = row['driver'], row['floor']
        print(f"| {row['protocol']} | {row['rate']:g} Hz | {d[0]:.0f} µs | {d[1]:.0f} µs | "
              f'{f[0]:.0f} µs | {f[1]:.0f} µs | {d[0] / f[0]:.2f} | {d[1] / f[1]:.2f} | '
              f'{d[2]:.1f} / {f[2]:.1f} Hz | {d[3]} / {f[3]} | {row["wire"]:.0f} Hz |')


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == '--floor':
        return run_floor(sys.argv[2], sys.argv[3])
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--protocols', nargs='+', default=list(PROTOCOLS), choices=PROTOCOLS)
    parser.add_argument('--rates', nargs='+', type=float, default=[50.0, 100.0, 200.0])
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--duration', type=float, default=2.0)
    bench(parser.parse_args())
    return 0


if __name__ == '__main__':
    sys.exit(main())
