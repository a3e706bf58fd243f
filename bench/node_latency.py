#!/usr/bin/env python3
"""Publish -> JointState latency of the IK node, against a bare rclpy echo node (the floor).

Run from the repository root (or with the package installed)::

    python bench/node_latency.py [--rates 100 1000] [--rounds 5] [--duration 2]

The script starts two nodes as subprocesses and drives them from this process:

- ``floor`` (namespace ``/floor``): a bare rclpy node (this file, ``--echo-node``) that answers
  each PoseStamped with a JointState holding the target's x and y: rclpy and DDS only, no IK;
- ``ik`` (namespace ``/ik``): the real two_bone_ik node (``python -m two_bone_ik``) with the
  default arm (config/two_bone_ik.yaml);
- ``ik_urdf`` (namespace ``/ik_urdf``): the same node with an arm from its URDF
  (``robot_description``): the same links, but the shoulder off the origin, zero angles and a
  reversed joint, so every target goes through the general mapping (shoulder, plane axes,
  zero angles, directions) on the way in and out.

Both use the same QoS (reliable, keep last ``--depth``, default 10 as the node) and executor
(``rclpy.spin``). For each rate it
runs ``--rounds`` rounds; in each round each node (alternating which goes first, so both see
the same machine load on average) gets a short unmeasured warm-up, then ``--duration`` seconds
of ``target_pose`` at that rate. Each target is a distinct point on a circle inside the reach,
so each ``joint_commands`` answer is matched to its target (from the echoed x, y, or from the
forward kinematics of the IK answer) and timed with this process's monotonic clock; an answer
that never comes is lost. It prints p50 / p99 / max latency, lost answers and the node's CPU
time per target, then a table with the ik / floor ratios: of the pooled p50 and p99, and of the
median over rounds of each round's p99 (less swayed by one stall of the machine). A script,
not a test: the figures depend on the machine and its load.
"""

import argparse
import math
import os
from pathlib import Path
import signal
import sys
import threading
import time

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO_ROOT), str(REPO_ROOT / 'test')]  # this checkout, the process harness

from geometry_msgs.msg import PoseStamped  # noqa: E402
import numpy as np  # noqa: E402
import rclpy  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.node import Node  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from rclpy.utilities import remove_ros_args  # noqa: E402
from ros_harness import isolate_ros_domain, NodeProcess, run_bare_node  # noqa: E402,I100
from ros_harness import wait_until  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from two_bone_ik.arm.config import ArmConfig  # noqa: E402
from two_bone_ik.arm.geometry import ArmGeometry  # noqa: E402
from two_bone_ik.arm.urdf_export import arm_urdf  # noqa: E402
from two_bone_ik.solver import forward  # noqa: E402
import yaml  # noqa: E402

#: QoS of the driver's own endpoints: deep queues, so the instrument never drops a message.
DRIVER_QOS = QoSProfile(depth=10000, reliability=ReliabilityPolicy.RELIABLE)
LINKS = (0.30, 0.25)  # the default arm (config/two_bone_ik.yaml)
KINDS = ('floor', 'ik', 'ik_urdf')
#: The URDF-described arm: the default arm's links, moved and turned about.
URDF_ARM = ArmGeometry.from_config(ArmConfig(
    shoulder_position=(0.1, -0.2, 0.05), joint_zero_angles=(0.7, -0.3),
    joint_directions=(-1, 1)))


def phase_radius(phase):
    """Return the radius (m) of the target circle of a phase.

    Inside the 0.05..0.55 m annulus, and different from the previous phases', so late answers
    never count in a later phase.
    """
    return 0.15 + 0.01 * (phase % 39)


class EchoNode(Node):
    """The floor: answers each PoseStamped with a JointState (x, y as positions), no IK."""

    def __init__(self, depth=10):
        super().__init__('latency_floor')
        qos = QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE)
        self._pub = self.create_publisher(JointState, 'joint_commands', qos)
        self._msg = JointState()
        self._msg.header.frame_id = 'base_link'
        self._msg.name = ['shoulder_joint', 'elbow_joint']
        self._clock = self.get_clock()
        self.create_subscription(PoseStamped, 'target_pose', self._on_target, qos)

    def _on_target(self, msg):
        p = msg.pose.position
        out = self._msg
        out.header.stamp = self._clock.now().to_msg()
        out.position = [p.x, p.y]
        self._pub.publish(out)


def target_xy(index, count, radius):
    angle = -math.pi + 2.0 * math.pi * (index + 0.5) / count
    return radius * math.cos(angle), radius * math.sin(angle)


def decode(x, y, count):
    return int(round((math.atan2(y, x) + math.pi) / (2.0 * math.pi) * count - 0.5)) % count


class Driver:
    """Endpoints for one node under test; records send and receive times (ns)."""

    def __init__(self, node, kind):
        self.kind = kind
        self.pub = node.create_publisher(PoseStamped, f'/{kind}/target_pose', DRIVER_QOS)
        self.sub = node.create_subscription(JointState, f'/{kind}/joint_commands',
                                            self._on_joints, DRIVER_QOS)
        self.count = 1
        self.radius = phase_radius(0)
        self.received = {}
        self.extra = 0

    def start_phase(self, count, radius):
        self.count = count
        self.radius = radius
        self.received = {}
        self.extra = 0

    def _on_joints(self, msg):
        now = time.monotonic_ns()
        q = msg.position
        if self.kind == 'floor':
            x, y = q[0], q[1]
        elif self.kind == 'ik':
            x, y = forward(q[0], q[1], *LINKS)
        else:
            x, y, _ = URDF_ARM.to_plane(URDF_ARM.tip_position(q))
        if abs(math.hypot(x, y) - self.radius) > 1e-6:
            return  # an answer from an earlier phase
        index = decode(x, y, self.count)
        if index in self.received:
            self.extra += 1
        else:
            self.received[index] = now

    def target(self, index, count):
        """Return the ``index``-th of ``count`` targets on the phase's circle, base_link, m."""
        x, y = target_xy(index, count, self.radius)
        return URDF_ARM.from_plane(x, y) if self.kind == 'ik_urdf' else (x, y, 0.0)

    def publish_schedule(self, rate, sent):
        """Publish ``len(sent)`` targets at ``rate`` Hz, recording send times (own thread)."""
        msg = PoseStamped()
        msg.header.frame_id = 'base_link'
        msg.pose.orientation.w = 1.0
        period = 1e9 / rate
        start = time.monotonic_ns() + 1_000_000
        for index in range(len(sent)):
            due = start + index * period
            delay = (due - time.monotonic_ns()) / 1e9
            if delay > 0.0:
                time.sleep(delay)
            p = msg.pose.position
            p.x, p.y, p.z = self.target(index, len(sent))
            sent[index] = time.monotonic_ns()
            self.pub.publish(msg)


def cpu_seconds(pid):
    """User + system CPU time of a process so far, seconds (Linux /proc)."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def spin_until(executor, predicate, timeout):
    """Spin until ``predicate()`` holds; return whether it did within ``timeout`` s."""
    return bool(wait_until(predicate, timeout, what=None,
                           step=lambda seconds: executor.spin_once(timeout_sec=seconds)))


class Bench:
    """Both nodes under test, started once, and the driver node of this process."""

    def __init__(self, domain, log_dir, depth):
        # The IK node's queue depths are set with the standard qos_overrides parameters.
        qos_file = log_dir / 'qos_overrides.yaml'
        qos_file.write_text(
            '/**:\n  ros__parameters:\n    qos_overrides:\n' + ''.join(
                f'      /{kind}/target_pose:\n        subscription:\n          depth: {depth}\n'
                f'      /{kind}/joint_commands:\n        publisher:\n          depth: {depth}\n'
                for kind in ('ik', 'ik_urdf')))
        urdf_file = log_dir / 'urdf_arm.yaml'
        urdf_file.write_text(yaml.safe_dump({'/**/two_bone_ik': {'ros__parameters': {
            'robot_description': arm_urdf(URDF_ARM),
            # One command per target, as for the other arm (no motion planning).
            'max_joint_velocity': [float('inf')] * 2}}}))
        self.processes = {
            'floor': NodeProcess(
                None, ['--echo-node', '--depth', str(depth)], ros_args=['-r', '__ns:=/floor'],
                command=[sys.executable, str(Path(__file__).resolve())], domain_id=domain,
                log_dir=log_dir, name='floor'),
            'ik': NodeProcess(
                'two_bone_ik', params_file=REPO_ROOT / 'config' / 'two_bone_ik.yaml',
                ros_args=['--params-file', str(qos_file), '-r', '__ns:=/ik'],
                domain_id=domain, log_dir=log_dir, name='ik'),
            'ik_urdf': NodeProcess(
                'two_bone_ik', params_file=urdf_file,
                ros_args=['--params-file', str(qos_file), '-r', '__ns:=/ik_urdf'],
                domain_id=domain, log_dir=log_dir, name='ik_urdf'),
        }
        for process in self.processes.values():
            process.start()
        self.logs = {kind: log_dir / f'{kind}.stderr' for kind in KINDS}
        self.node = Node('latency_driver')
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.drivers = {kind: Driver(self.node, kind) for kind in KINDS}
        self.phase = 0

    def connect(self):
        """Wait for both nodes, and for each to answer one target (matched both ways)."""
        for kind, driver in self.drivers.items():
            if not spin_until(self.executor, lambda: driver.pub.get_subscription_count() > 0
                              and driver.sub.get_publisher_count() > 0, 60.0):
                raise RuntimeError(f'{kind} node did not come up (see {self.logs[kind]})')
            driver.start_phase(1, phase_radius(self.phase))
            msg = PoseStamped()
            msg.header.frame_id = 'base_link'
            p = msg.pose.position
            p.x, p.y, p.z = driver.target(0, 1)
            for _ in range(100):
                driver.pub.publish(msg)
                if spin_until(self.executor, lambda: driver.received, 0.3):
                    break
            else:
                raise RuntimeError(f'{kind} node never answered (see {self.logs[kind]})')

    def drive(self, kind, rate, duration):
        """Publish at ``rate`` Hz for ``duration`` s to one node.

        Returns (send times, {index: receive time}, CPU seconds the node used meanwhile).
        """
        self.phase += 1
        cpu_before = cpu_seconds(self.processes[kind].pid)
        driver = self.drivers[kind]
        sent = [None] * max(1, int(round(rate * duration)))
        driver.start_phase(len(sent), phase_radius(self.phase))
        thread = threading.Thread(target=driver.publish_schedule, args=(rate, sent))
        thread.start()
        while thread.is_alive():
            self.executor.spin_once(timeout_sec=0.01)
        thread.join()
        spin_until(self.executor, lambda: len(driver.received) >= len(sent), 2.0)
        return sent, dict(driver.received), cpu_seconds(self.processes[kind].pid) - cpu_before

    def close(self):
        self.executor.remove_node(self.node)
        self.node.destroy_node()
        for process in self.processes.values():
            process.send_signal(signal.SIGINT)
        for process in self.processes.values():
            process.stop(timeout=10)


def summarise(latencies_us, count, cpu):
    latencies = np.asarray(latencies_us)
    if not len(latencies):
        return {'count': count, 'lost': count, 'p50': math.nan, 'p99': math.nan, 'max': math.nan,
                'cpu': cpu / count * 1e6}
    return {'count': count, 'lost': count - len(latencies), 'cpu': cpu / count * 1e6,
            'p50': float(np.percentile(latencies, 50)),
            'p99': float(np.percentile(latencies, 99)), 'max': float(latencies.max())}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--duration', type=float, default=2.0,
                        help='measured seconds per round, node and rate (default 2)')
    parser.add_argument('--rounds', type=int, default=5,
                        help='rounds per rate; nodes alternate within a round (default 5)')
    parser.add_argument('--warmup', type=float, default=0.3,
                        help='unmeasured seconds at the rate before each measurement')
    parser.add_argument('--rates', type=float, nargs='+', default=[100.0, 1000.0],
                        help='target rates in Hz (default 100 1000)')
    parser.add_argument('--depth', type=int, default=10,
                        help="keep-last depth of both nodes' target_pose and joint_commands "
                        '(default 10, the node default)')
    parser.add_argument('--echo-node', action='store_true', help=argparse.SUPPRESS)
    args = parser.parse_args(remove_ros_args(sys.argv if argv is None else argv)[1:])
    if args.echo_node:
        run_bare_node(lambda: EchoNode(args.depth))
        return 0

    domain = isolate_ros_domain()
    log_dir = Path(os.environ.get('TMPDIR', '/tmp')) / f'two_bone_ik_bench_{os.getpid()}'
    log_dir.mkdir(parents=True, exist_ok=True)

    rclpy.init()
    rows = []
    bench = Bench(domain, log_dir, args.depth)
    try:
        bench.connect()
        for rate in args.rates:
            pooled = {kind: ([], [0, 0.0]) for kind in KINDS}
            round_p99 = {kind: [] for kind in KINDS}
            for round_index in range(args.rounds):
                # Alternate the order so both nodes see the same conditions on average.
                order = KINDS if round_index % 2 == 0 else KINDS[::-1]
                for kind in order:
                    bench.drive(kind, rate, args.warmup)
                    sent, received, cpu = bench.drive(kind, rate, args.duration)
                    latencies, totals = pooled[kind]
                    this_round = [(received[i] - sent[i]) / 1e3
                                  for i in range(len(sent)) if i in received]
                    latencies.extend(this_round)
                    if this_round:
                        round_p99[kind].append(float(np.percentile(this_round, 99)))
                    totals[0] += len(sent)
                    totals[1] += cpu
            for kind in KINDS:
                stats = summarise(pooled[kind][0], *pooled[kind][1])
                # A single stall of the machine sets the pooled p99; the median over rounds of
                # each round's p99 is the steadier figure on a shared machine.
                stats['p99_round_median'] = (float(np.median(round_p99[kind]))
                                             if round_p99[kind] else math.nan)
                rows.append((rate, kind, stats))
                print(f'{rate:6.0f} Hz  {kind:5s}  n={stats["count"]:5d}  '
                      f'p50={stats["p50"]:8.1f} us  p99={stats["p99"]:8.1f} us  '
                      f'max={stats["max"]:8.1f} us  lost={stats["lost"]}  '
                      f'cpu={stats["cpu"]:.0f} us/target', flush=True)
    except KeyboardInterrupt:
        return 130
    finally:
        bench.close()
        rclpy.try_shutdown()

    print()
    print(f'python {sys.version.split()[0]}, rclpy from {Path(rclpy.__file__).parents[4]}, '
          f'{os.cpu_count()} CPUs, {args.rounds} rounds x {args.duration:g} s per node and rate, '
          f'queue depth {args.depth}')
    print('| rate | node | p50 (us) | p99 (us) | lost | p50 ratio | p99 ratio '
          '| median round p99 (us) | its ratio | node CPU/target |')
    print('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    floors = {rate: stats for rate, kind, stats in rows if kind == 'floor'}
    for rate, kind, stats in rows:
        floor = floors[rate]
        ratio50 = stats['p50'] / floor['p50']
        ratio99 = stats['p99'] / floor['p99']
        round99 = stats['p99_round_median']
        print(f'| {rate:g} Hz | {kind} | {stats["p50"]:.0f} | {stats["p99"]:.0f} | '
              f'{stats["lost"]}/{stats["count"]} | {ratio50:.2f} | {ratio99:.2f} | '
              f'{round99:.0f} | {round99 / floor["p99_round_median"]:.2f} | '
              f'{stats["cpu"]:.0f} us |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
