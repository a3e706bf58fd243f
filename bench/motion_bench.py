#!/usr/bin/env python3
"""Motion streaming of the IK node beside a bare rclpy timer (the floor), measured in one run.

Run from the repository root (or with the package installed)::

    python bench/motion_bench.py [--rates 100 500] [--rounds 5] [--duration 2]

It prints, in one run:

- planning time per new target: ``MotionPlanner.plan`` (Ruckig, two joints, velocity,
  acceleration and jerk limits) on random goals, in this process, median over rounds, beside
  the closed-form IK solve of the same targets for scale;
- per rate (100 and 500 Hz by default), for the IK node streaming a long planned motion on
  ``joint_commands`` and for a bare rclpy node whose timer publishes the same JointState at the
  same rate (this file, ``--timer-node``): the achieved rate, the period between messages as
  received here (p50 / p99, and the p99 of its deviation from the nominal period), and the
  node's CPU time per message (from /proc), with ik / floor ratios;
- the same IK stream under a flood of targets (``ik+flood``: a new target every 0.5 ms from
  this process, 2 kHz, while it streams), with the worst gap between two streamed commands
  beside the floor's: only the newest waiting target is planned, at the next period, so the
  stream's period does not depend on the target load.

Both nodes run as subprocesses on localhost in this process's own ROS domain; rounds
alternate which is measured first. The issue's goals: at 500 Hz, the stream period p99 within
1.2x of the bare timer's and the CPU per command within 1.3x. A script, not a test: the figures
depend on the machine and its load.
"""

import argparse
import math
import os
from pathlib import Path
import statistics
import sys
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
from ros_harness import write_params  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from two_bone_ik.motion.limits import MotionLimits  # noqa: E402
from two_bone_ik.motion.planner import MotionPlanner  # noqa: E402
from two_bone_ik.solver import solve  # noqa: E402

KINDS = ('floor', 'ik', 'ik+flood')
#: Seconds between two targets of the flood (2 kHz).
FLOOD_PERIOD = 0.0005
#: Slow enough that one target streams for longer than any measurement window.
STREAM_VELOCITY = [0.02, 0.02]
QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)


class TimerNode(Node):
    """The floor: a timer that publishes a two-joint JointState at a fixed rate, nothing else."""

    def __init__(self, rate):
        super().__init__('motion_floor')
        self._pub = self.create_publisher(JointState, 'joint_commands', 10)
        self._msg = JointState(name=['shoulder_joint', 'elbow_joint'])
        self._msg.header.frame_id = 'base_link'
        self._clock = self.get_clock()
        self._position = 0.0
        self.create_timer(1.0 / rate, self._on_timer)

    def _on_timer(self):
        self._position += 1e-4
        msg = self._msg
        msg.header.stamp = self._clock.now().to_msg()
        msg.position = [self._position, -self._position]
        msg.velocity = [0.01, -0.01]
        self._pub.publish(msg)


def cpu_seconds(pid):
    """User + system CPU time of a process so far, seconds (Linux /proc)."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def planning_figures(rounds, count=2000):
    """Return (median us per plan, median us per solve) over ``rounds``."""
    rng = np.random.default_rng(0)
    limits = MotionLimits((1.5, 2.0), (6.0, 8.0), (60.0, 80.0))
    bounds = ((-2.5, 2.5), (-2.8, 2.8))
    goals = rng.uniform(-2.4, 2.4, size=(count, 2)).tolist()
    targets = rng.uniform(-0.5, 0.5, size=(count, 2)).tolist()
    plans, solves = [], []
    for _ in range(rounds):
        planner = MotionPlanner(limits, bounds, 0.01, (0.0, 0.0))
        start = time.perf_counter()
        for goal in goals:
            planner.plan(goal)
            planner.advance()  # from a moving state, as a new target mid-motion is
        plans.append((time.perf_counter() - start) / count * 1e6)
        start = time.perf_counter()
        for x, y in targets:
            solve(x, y, 0.30, 0.25)
        solves.append((time.perf_counter() - start) / count * 1e6)
    return statistics.median(plans), statistics.median(solves)


class Bench:
    """The IK node and the floor for one rate, and this process's receiving node."""

    def __init__(self, domain, log_dir, rate):
        params = write_params(log_dir / f'stream_{rate:g}.yaml', {
            'max_joint_velocity': STREAM_VELOCITY, 'max_joint_acceleration': [1.0, 1.0],
            'max_joint_jerk': [10.0, 10.0], 'command_rate': float(rate)})
        self.processes = {
            'floor': NodeProcess(None, ['--timer-node', '--rate', str(rate)],
                                 ros_args=['-r', '__ns:=/floor'],
                                 command=[sys.executable, str(Path(__file__).resolve())],
                                 domain_id=domain, log_dir=log_dir, name=f'floor_{rate:g}'),
            'ik': NodeProcess('two_bone_ik', params_file=params, ros_args=['-r', '__ns:=/ik'],
                              domain_id=domain, log_dir=log_dir, name=f'ik_{rate:g}'),
        }
        for process in self.processes.values():
            process.start()
        self.node = Node(f'motion_bench_{int(rate)}')
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.received = {kind: [] for kind in KINDS}
        self.recording = None
        for topic in ('floor', 'ik'):
            self.node.create_subscription(
                JointState, f'/{topic}/joint_commands',
                lambda msg, topic=topic: self._on_message(topic), QOS)
        self.target = self.node.create_publisher(PoseStamped, '/ik/target_pose', QOS)
        self.stop = self.node.create_client(Trigger, '/ik/two_bone_ik/stop')
        self.side = 1.0

    def _on_message(self, topic):
        if self.recording is not None and self.recording.split('+')[0] == topic:
            self.received[self.recording].append(time.monotonic())

    def spin_for(self, seconds, flood=False):
        """Spin this process's node; with ``flood``, publish a target every FLOOD_PERIOD."""
        end = time.monotonic() + seconds
        due = time.monotonic()
        sent = 0
        while time.monotonic() < end:
            if flood and time.monotonic() >= due:
                sent += 1
                self._publish_target(-0.4 + 1e-4 * (sent % 100), 0.3 * self.side)
                due += FLOOD_PERIOD
            self.executor.spin_once(timeout_sec=0.0 if flood else 0.001)
        return sent

    def connect(self):
        ready = wait_until(
            lambda: (self.target.get_subscription_count() > 0 and self.stop.service_is_ready()
                     and all(sub.get_publisher_count() > 0 for sub in self.node.subscriptions)),
            60.0, what=None, step=lambda s: self.executor.spin_once(timeout_sec=s))
        if not ready:
            raise RuntimeError('the nodes did not come up: ' + ' '.join(
                p.output() for p in self.processes.values()))

    def _publish_target(self, x, y):
        msg = PoseStamped()
        msg.header.frame_id = 'base_link'
        msg.pose.position.x, msg.pose.position.y = x, y
        self.target.publish(msg)

    def _start_stream(self):
        """Send a far target: the slow limits make it stream for minutes."""
        self._publish_target(-0.4, 0.3 * self.side)
        self.side = -self.side

    def measure(self, kind, warmup, duration):
        """Return (receive times, CPU seconds of the node) over ``duration`` s of ``kind``."""
        node = kind.split('+')[0]
        if node == 'ik':
            self._start_stream()
        self.recording = None
        self.spin_for(warmup)
        pid = self.processes[node].pid
        before = cpu_seconds(pid)
        self.recording = kind
        self.received[kind] = []
        self.spin_for(duration, flood=kind == 'ik+flood')
        self.recording = None
        cpu = cpu_seconds(pid) - before
        if node == 'ik':
            future = self.stop.call_async(Trigger.Request())
            wait_until(future.done, 10.0, what=None,
                       step=lambda s: self.executor.spin_once(timeout_sec=s))
        return list(self.received[kind]), cpu

    def close(self):
        self.executor.remove_node(self.node)
        self.node.destroy_node()
        for process in self.processes.values():
            process.stop(timeout=10)


def stream_stats(times, cpu, rate):
    periods = np.diff(np.asarray(times)) * 1e6 if len(times) > 1 else np.array([math.nan])
    nominal = 1e6 / rate
    return {'count': len(times),
            'rate': (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else math.nan,
            'p50': float(np.percentile(periods, 50)), 'p99': float(np.percentile(periods, 99)),
            'jitter99': float(np.percentile(np.abs(periods - nominal), 99)),
            'worst': float(np.max(periods)), 'cpu': cpu / max(len(times), 1) * 1e6}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rates', type=float, nargs='+', default=[100.0, 500.0])
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--duration', type=float, default=2.0,
                        help='measured seconds per node, rate and round (default 2)')
    parser.add_argument('--warmup', type=float, default=0.3)
    parser.add_argument('--no-flood', dest='flood', action='store_false',
                        help='skip the ik+flood measurement')
    parser.add_argument('--timer-node', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--rate', type=float, default=100.0, help=argparse.SUPPRESS)
    args = parser.parse_args(remove_ros_args(sys.argv if argv is None else argv)[1:])
    if args.timer_node:
        run_bare_node(lambda: TimerNode(args.rate))
        return 0

    plan_us, solve_us = planning_figures(args.rounds)
    print(f'planning a new motion (Ruckig, 2 joints, from a moving state): {plan_us:.1f} us '
          f'median; the closed-form IK solve: {solve_us:.2f} us ({plan_us / solve_us:.0f}x)')
    domain = isolate_ros_domain()
    log_dir = Path(os.environ.get('TMPDIR', '/tmp')) / f'two_bone_ik_motion_bench_{os.getpid()}'
    log_dir.mkdir(parents=True, exist_ok=True)
    rclpy.init()
    rows = []
    try:
        for rate in args.rates:
            bench = Bench(domain, log_dir, rate)
            try:
                bench.connect()
                per_kind = {kind: {'p50': [], 'p99': [], 'jitter99': [], 'cpu': [], 'rate': [],
                                   'worst': []} for kind in KINDS}
                for round_index in range(args.rounds):
                    order = KINDS if round_index % 2 == 0 else KINDS[::-1]
                    for kind in order:
                        if kind == 'ik+flood' and not args.flood:
                            continue
                        times, cpu = bench.measure(kind, args.warmup, args.duration)
                        stats = stream_stats(times, cpu, rate)
                        for key in per_kind[kind]:
                            per_kind[kind][key].append(stats[key])
                        print(f'{rate:5.0f} Hz {kind:5s} round {round_index}: '
                              f'{stats["count"]} msgs, {stats["rate"]:.1f} Hz, period '
                              f'p50 {stats["p50"]:.0f} us p99 {stats["p99"]:.0f} us, '
                              f'worst {stats["worst"] / 1e3:.1f} ms, '
                              f'cpu {stats["cpu"]:.0f} us/msg', flush=True)
                for kind in KINDS:
                    if not per_kind[kind]['rate']:
                        continue
                    rows.append((rate, kind, {key: statistics.median(vals)
                                              for key, vals in per_kind[kind].items()}))
            finally:
                bench.close()
    finally:
        rclpy.try_shutdown()

    print()
    print(f'python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.rounds} rounds x '
          f'{args.duration:g} s per node and rate; medians over rounds')
    print('| rate | node | achieved | period p50 (us) | period p99 (us) | p99 ratio '
          '| |period - nominal| p99 (us) | worst gap (ms) | worst ratio | CPU/msg (us) '
          '| CPU ratio |')
    print('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    floors = {rate: stats for rate, kind, stats in rows if kind == 'floor'}
    for rate, kind, stats in rows:
        floor = floors[rate]
        print(f'| {rate:g} Hz | {kind} | {stats["rate"]:.1f} Hz | {stats["p50"]:.0f} | '
              f'{stats["p99"]:.0f} | {stats["p99"] / floor["p99"]:.2f} | '
              f'{stats["jitter99"]:.0f} | {stats["worst"] / 1e3:.1f} | '
              f'{stats["worst"] / floor["worst"]:.2f} | {stats["cpu"]:.0f} | '
              f'{stats["cpu"] / floor["cpu"]:.2f} |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
