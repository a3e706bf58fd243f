#!/usr/bin/env python3
"""Demo: the IK node drives a MuJoCo-simulated arm along a path; table and picture of the result.

Starts two processes from the same params file (default ``config/two_bone_ik.yaml``), on this
machine only (``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``) and in a ROS domain of its own:

- the IK node (``python -m two_bone_ik``), which turns ``target_pose`` into ``joint_commands``;
- the simulated arm (``python -m two_bone_ik.nodes.sim_node``), which follows ``joint_commands``
  in MuJoCo, in real time, and publishes the measured ``joint_states`` and ``tip_pose``.

This script streams targets along a fixed path at 20 Hz: it visits waypoints, holding each for a
while, goes out of reach, passes through the inner hole of the workspace, and halfway switches
the elbow from ``up`` to ``down`` through the IK node's parameter service. Then it prints a table
per waypoint (the measured tip at the end of each hold) and a summary, and draws ``demo.png``:
the workspace, the target path coloured by reachability, the measured tip trace, the arm at each
waypoint, and the joint angles over time. No display is needed (matplotlib's Agg backend).

Exits 0 when both nodes ran and stopped cleanly and every target got an answer, 1 otherwise.

Run it with ``make demo``, or ``python demo/closed_loop_demo.py [--output demo.png]``.
"""

import argparse
import math
from pathlib import Path
import sys
import tempfile
import time

REPO = Path(__file__).resolve().parents[1]
# This checkout, the process harness, and the demos' own modules (sim_pictures).
sys.path[:0] = [str(REPO), str(REPO / 'test'), str(REPO / 'demo')]

from ros_harness import isolate_ros_domain, NodeProcess  # noqa: E402,I100
from ros_harness import spin_until, stop_processes, WaitTimeout  # noqa: E402

from two_bone_ik.arm.params_file import load_arm_config  # noqa: E402
from two_bone_ik.arm.plane import from_plane  # noqa: E402
from two_bone_ik.arm.plane import to_plane  # noqa: E402
from two_bone_ik.solver import elbow_position  # noqa: E402
from two_bone_ik.solver import solve  # noqa: E402

DEFAULT_PARAMS = REPO / 'config' / 'two_bone_ik.yaml'
DEFAULT_OUTPUT = REPO / 'demo.png'
IK_NODE = '/two_bone_ik'

#: Seconds to wait for the graph to connect or for a process to stop; a bound, never a sleep.
TIMEOUT = 30.0
#: Target stream rate, Hz, and speed between waypoints, in reaches (l1 + l2) per second.
STREAM_RATE = 20.0
SPEED = 0.55
#: Seconds each waypoint is held; the measured tip at the end of the hold is the settled one.
HOLD = 1.0
#: A settled tip further than this from its goal is reported, m.
SETTLED_TOLERANCE = 1e-3

#: Waypoints as fractions of the reach l1 + l2 in the arm plane (u, v), with a label. The elbow
#: switches to 'down' when the path arrives at SWITCH_AT.
WAYPOINTS = (
    ('start', 0.72, 0.28),
    ('beyond reach', 1.15, 0.55),
    ('top', 0.10, 0.92),
    ('left', -0.72, 0.36),
    ('inner hole', 0.035, -0.02),
    ('lower right', 0.55, -0.62),
    ('beyond reach', 1.25, -0.35),
    ('start', 0.72, 0.28),
)
SWITCH_AT = 3


def _parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--params-file', type=Path, default=DEFAULT_PARAMS,
                        help='ROS params YAML of the arm, for both nodes (default: %(default)s)')
    parser.add_argument('--output', type=Path, default=DEFAULT_OUTPUT,
                        help='picture to write (default: %(default)s)')
    return parser.parse_args(argv)


class Schedule:
    """The target path: straight segments between waypoints, each waypoint held for HOLD s."""

    def __init__(self, config):
        reach = sum(config.link_lengths)
        self.points = [(name, u * reach, v * reach) for name, u, v in WAYPOINTS]
        speed = SPEED * reach
        self.segments = []  # (start time, end time, from (u, v), to (u, v), waypoint index)
        t = 0.0
        previous = self.points[0][1:]
        for index, (_, u, v) in enumerate(self.points):
            travel = math.dist(previous, (u, v)) / speed
            self.segments.append((t, t + travel, previous, (u, v), None))
            t += travel
            self.segments.append((t, t + HOLD, (u, v), (u, v), index))
            t += HOLD
            previous = (u, v)
        self.duration = t
        #: End time of each waypoint's hold.
        self.hold_ends = [end for _, end, _, _, index in self.segments if index is not None]
        self.switch_time = [start for start, _, _, _, index in self.segments
                            if index == SWITCH_AT][0]

    def target(self, t):
        """Target (u, v) at path time ``t``, m."""
        for start, end, a, b, _ in self.segments:
            if t <= end:
                f = 0.0 if end <= start else (t - start) / (end - start)
                return (a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]))
        return self.points[-1][1:]


class Recorder:
    """The demo's ROS node: streams targets, records everything the two nodes publish."""

    def __init__(self, domain_id, config, processes):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

        from diagnostic_msgs.msg import DiagnosticStatus
        from geometry_msgs.msg import PoseStamped
        from rcl_interfaces.srv import SetParameters
        from sensor_msgs.msg import JointState
        from std_msgs.msg import Bool

        self.rclpy = rclpy
        self.config = config
        self.processes = processes
        self.PoseStamped = PoseStamped
        self.SetParameters = SetParameters
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = rclpy.create_node('closed_loop_demo', context=self.context,
                                      start_parameter_services=False)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.t0 = time.monotonic()
        deep = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
        latched = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.tips, self.states, self.commands, self.reachable, self.statuses = [], [], [], [], []
        self.sent = []  # (time, u, v)
        self.switched_at = None

        def keep(store, convert):
            return lambda msg: store.append((self.now(), convert(msg)))

        self.node.create_subscription(
            PoseStamped, 'tip_pose', keep(self.tips, self._tip_uv), deep)
        self.node.create_subscription(
            JointState, 'joint_states', keep(self.states, lambda m: tuple(m.position)), deep)
        self.node.create_subscription(
            JointState, 'joint_commands', keep(self.commands, lambda m: tuple(m.position)),
            deep)
        self.node.create_subscription(
            Bool, 'reachable', keep(self.reachable, lambda m: m.data), latched)
        self.node.create_subscription(
            DiagnosticStatus, 'ik_status', keep(self.statuses, lambda m: m.message), deep)
        self.publisher = self.node.create_publisher(PoseStamped, 'target_pose', deep)
        self.parameters = self.node.create_client(SetParameters, f'{IK_NODE}/set_parameters')

    def now(self):
        return time.monotonic() - self.t0

    def _tip_uv(self, msg):
        p = msg.pose.position
        u, v, _ = to_plane((p.x, p.y, p.z), self.config.plane)
        return (u, v)

    def spin_until(self, condition, what, timeout=TIMEOUT):
        spin_until(self.executor, condition, timeout, what, self.processes)

    def send(self, u, v):
        msg = self.PoseStamped()
        msg.header.frame_id = self.config.base_frame
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = from_plane(
            u, v, self.config.plane)
        msg.pose.orientation.w = 1.0
        self.publisher.publish(msg)
        self.sent.append((self.now(), u, v))

    def connect(self, start):
        """Wait for the graph, then drive the arm to ``start`` (proves IK -> sim is matched)."""
        node = self.node
        self.spin_until(lambda: (self.publisher.get_subscription_count() > 0
                                 and node.count_publishers('/tip_pose') > 0
                                 and node.count_publishers('/joint_commands') > 0
                                 and self.parameters.service_is_ready()),
                        'connection to the IK node and the sim')
        deadline = time.monotonic() + TIMEOUT
        while True:
            self.send(*start)
            mark = len(self.tips)
            try:
                self.spin_until(lambda: any(math.dist(uv, start) < SETTLED_TOLERANCE
                                            for _, uv in self.tips[mark:]),
                                'the arm at the start', timeout=1.0)
                return
            except WaitTimeout:
                if time.monotonic() > deadline:
                    raise

    def set_elbow(self, value):
        from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue

        request = self.SetParameters.Request()
        request.parameters = [Parameter(name='elbow', value=ParameterValue(
            type=ParameterType.PARAMETER_STRING, string_value=value))]
        return self.parameters.call_async(request)

    def run_path(self, schedule):
        """Stream the path in real time; switch the elbow on the way. Returns the path start."""
        period = 1.0 / STREAM_RATE
        start = self.now()
        tick = 0
        switch = None
        while True:
            t_next = start + tick * period
            self.spin_until(lambda: self.now() >= t_next, 'the next tick')
            t = self.now() - start
            if t > schedule.duration:
                break
            if switch is None and t >= schedule.switch_time:
                switch = self.set_elbow('down')
                self.switched_at = self.now()
            self.send(*schedule.target(t))
            tick += 1
        self.spin_until(lambda: switch is not None and switch.done(),
                        'the answer to the elbow switch')
        result = switch.result().results[0]
        if not result.successful:
            raise WaitTimeout(f'the IK node rejected elbow=down: {result.reason}')
        # Every target answered (reachable is published once per target).
        self.spin_until(lambda: len(self.reachable) >= len(self.sent), 'all answers')
        return start

    def close(self):
        self.node.destroy_node()
        self.rclpy.try_shutdown(context=self.context)


def _last_before(samples, t):
    """Value of the last (time, value) sample at or before ``t`` (None if none)."""
    value = None
    for time_, item in samples:
        if time_ > t:
            break
        value = item
    return value


def _elbow_side(joints):
    """'up' (q2 < 0), 'down' (q2 > 0) or 'straight' from measured joint angles."""
    q2 = math.remainder(joints[1], 2.0 * math.pi)
    if abs(q2) < 1e-3:
        return 'straight'
    return 'up' if q2 < 0.0 else 'down'


def _analyse(recorder, schedule, start, config):
    """Per-waypoint rows and the summary figures."""
    l1, l2 = config.link_lengths
    rows = []
    for index, (name, u, v) in enumerate(schedule.points):
        t_end = start + schedule.hold_ends[index]
        tip = _last_before(recorder.tips, t_end)
        joints = _last_before(recorder.states, t_end)
        closest = solve(u, v, l1, l2, elbow='up', limits=config.limits)
        reachable = bool(closest.reachable)
        goal = (u, v) if reachable else tuple(closest.tip)
        status = _last_before(recorder.statuses, t_end) or ''
        rows.append({
            'name': name, 'target': (u, v), 'reachable': reachable, 'goal': goal,
            'tip': tip, 'joints': joints, 'error': math.dist(tip, goal),
            'beyond': math.dist((u, v), closest.tip), 'status': status.split(':')[0],
            'elbow': 'down' if index >= SWITCH_AT else 'up',
            'measured_elbow': _elbow_side(joints)})
    answers = [value for _, value in recorder.reachable]
    return rows, {
        'sent': len(recorder.sent), 'answered': len(answers),
        'reachable_share': sum(answers) / max(len(answers), 1)}


def _mm(values):
    if not values:
        return 'n/a'
    return (f'mean {1e3 * sum(values) / len(values):.3f} mm, max {1e3 * max(values):.3f} mm '
            f'({len(values)} waypoint{"s" if len(values) > 1 else ""})')


def _print_report(rows, totals, config, duration):
    l1, l2 = config.link_lengths
    print(f'closed-loop demo: IK node + MuJoCo sim, arm {l1:g} m + {l2:g} m in the '
          f'{config.plane} plane, path of {duration:.1f} s streamed at {STREAM_RATE:g} Hz')
    header = (f"{'#':>2}  {'waypoint':<13} {'target u, v [m]':<17} {'IK status':<13} "
              f"{'elbow asked/measured':<20}  {'settled tip u, v [m]':<20} {'goal':<8} "
              f"{'error [mm]':>10}")
    print(header)
    print('-' * len(header))
    for number, row in enumerate(rows, start=1):
        target = '{:6.3f}, {:6.3f}'.format(*row['target'])
        tip = '{:6.3f}, {:6.3f}'.format(*row['tip'])
        goal = 'target' if row['reachable'] else 'closest'
        elbow = f"{row['elbow']} / {row['measured_elbow']}"
        print(f"{number:>2}  {row['name']:<13} {target:<17} {row['status']:<13} "
              f'{elbow:<20}  {tip:<20} {goal:<8} {1e3 * row["error"]:>10.3f}')
    reachable = [r['error'] for r in rows if r['reachable']]
    unreachable = [r['error'] for r in rows if not r['reachable']]
    beyond = [r['beyond'] for r in rows if not r['reachable']]
    print()
    print('summary')
    summary = (
        ('targets sent', f"{totals['sent']} ({totals['answered']} answered by the IK node)"),
        ('reachable share', f"{100.0 * totals['reachable_share']:.1f} % of the targets sent"),
        ('tip error after settling, reachable', _mm(reachable)),
        ('unreachable: tip to closest point', _mm(unreachable)),
        ('unreachable: target outside workspace', _mm(beyond)),
        ('elbow switch', f'up -> down through {IK_NODE}/set_parameters at waypoint '
                         f'{SWITCH_AT + 1} ({rows[SWITCH_AT]["name"]})'),
    )
    width = max(len(k) for k, _ in summary)
    for key, value in summary:
        print(f'  {key:<{width}}  {value}')
    print()
    for line in _elbow_notes(rows):
        print(line)


#: Why the measured elbow is not the one asked, by the waypoint's IK status.
_ELBOW_REASONS = {
    'JOINT_LIMITED': 'no pose reaches the target within the joint limits; the closest one is '
                     'on the other elbow (allow_elbow_flip: true)',
    'ELBOW_FLIPPED': 'the asked elbow would break a joint limit (allow_elbow_flip: true)',
}


def _elbow_notes(rows):
    """Return the lines that explain the table's 'elbow asked/measured' column."""
    lines = [f"elbow asked/measured: asked is the IK node's elbow parameter (switched at "
             f'waypoint {SWITCH_AT + 1});',
             "  measured is the side the sim's elbow is on after the hold ('straight': the arm "
             'stretched toward a target beyond reach).']
    for number, row in enumerate(rows, start=1):
        if row['measured_elbow'] not in (row['elbow'], 'straight'):
            reason = _ELBOW_REASONS.get(row['status'], 'the IK node chose the other elbow')
            lines.append(f"  {number}: asked {row['elbow']}, measured {row['measured_elbow']}: "
                         f"{row['status']}: {reason}")
    return lines


def _label_waypoints(ax, rows):
    """Mark each waypoint's target (one ring per place) and number it beside the ring.

    Waypoints at the same target share one label (``1, 8``); the label sits outward from the
    shoulder, off the arm's links, and the ring is drawn above the base so none is hidden.
    """
    places = {}
    for number, row in enumerate(rows, start=1):
        places.setdefault(tuple(round(c, 9) for c in row['target']), []).append(number)
    for (u, v), numbers in places.items():
        ax.plot([u], [v], 'o', markersize=7, markerfacecolor='none', markeredgecolor='k',
                markeredgewidth=1.2, zorder=7)
        norm = math.hypot(u, v) or 1.0
        ax.annotate(', '.join(map(str, numbers)), (u, v), textcoords='offset points',
                    xytext=(9 * u / norm, 9 * v / norm), fontsize=9, zorder=8,
                    ha='left' if u >= 0.0 else 'right', va='bottom' if v >= 0.0 else 'top')


def _draw(path, recorder, schedule, start, rows, config):
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib.lines import Line2D
    from matplotlib.patches import Wedge
    import matplotlib.pyplot as plt

    l1, l2 = config.link_lengths
    inner, outer = abs(l1 - l2), l1 + l2
    u_name, v_name = config.plane[0], config.plane[1]
    fig, (ax, ax_q) = plt.subplots(1, 2, figsize=(13, 5.8),
                                   gridspec_kw={'width_ratios': [1.0, 1.25]})

    ax.add_patch(Wedge((0.0, 0.0), outer, 0.0, 360.0, width=outer - inner,
                       facecolor='#e8eef7', edgecolor='#9aaecb', linewidth=1.0))
    answers = [value for _, value in recorder.reachable]
    sent = recorder.sent[:len(answers)]
    for flag, colour in ((True, '#2a9d3f'), (False, '#d62728')):
        points = [(u, v) for (_, u, v), ok in zip(sent, answers) if ok == flag]
        if points:
            ax.scatter(*zip(*points), s=7, color=colour, zorder=3)
    trace = [uv for t, uv in recorder.tips if t >= start - 0.2]
    ax.plot(*zip(*trace), color='#1f4e9c', linewidth=1.2, zorder=4)
    for row in rows:
        if row['joints'] is None:
            continue
        q1 = row['joints'][0]
        elbow = elbow_position(q1, l1)
        # The elbow the sim's arm is on (the one asked when stretched straight).
        side = row['elbow'] if row['measured_elbow'] == 'straight' else row['measured_elbow']
        colour = '#444444' if side == 'up' else '#b8590b'
        ax.plot([0.0, elbow[0], row['tip'][0]], [0.0, elbow[1], row['tip'][1]], '-o',
                color=colour, linewidth=2.2, markersize=4, alpha=0.75, zorder=5)
    ax.plot([0.0], [0.0], 'ks', markersize=5, zorder=5)
    _label_waypoints(ax, rows)
    limit = 1.3 * outer
    ax.set_xlim(-limit, limit)
    ax.set_ylim(-limit, limit)
    ax.set_aspect('equal')
    ax.set_xlabel(f'{u_name} [m]')
    ax.set_ylabel(f'{v_name} [m]')
    ax.set_title('workspace, targets and measured tip')
    ax.grid(True, linewidth=0.3)
    ax.legend(handles=[
        Line2D([], [], marker='o', linestyle='', color='#2a9d3f', label='target, reachable'),
        Line2D([], [], marker='o', linestyle='', color='#d62728', label='target, unreachable'),
        Line2D([], [], color='#1f4e9c', label='measured tip (MuJoCo)'),
        Line2D([], [], marker='o', linestyle='', markerfacecolor='none', color='k',
               label='waypoint (numbered)'),
        Line2D([], [], color='#444444', linewidth=2.2, label='arm at waypoint (sim), elbow up'),
        Line2D([], [], color='#b8590b', linewidth=2.2, label='arm at waypoint (sim), elbow down'),
    ], loc='lower left', fontsize=8, framealpha=0.9)

    def wrapped(samples):
        """Return (times, q1s, q2s) wrapped into [-pi, pi), with a gap wherever one wraps."""
        out = ([], [], [])
        previous = None
        for t, q in samples:
            if t < start - 0.2:
                continue
            q = [math.remainder(v, 2.0 * math.pi) for v in q]
            if previous is not None and max(abs(a - b) for a, b in zip(q, previous)) > math.pi:
                for column in out:
                    column.append(math.nan)
            out[0].append(t - start)
            out[1].append(q[0])
            out[2].append(q[1])
            previous = q
        return out

    measured, commanded = wrapped(recorder.states), wrapped(recorder.commands)
    for k, colour in ((1, '#1f4e9c'), (2, '#b8590b')):
        ax_q.plot(measured[0], measured[k], color=colour, linewidth=1.5,
                  label=f'q{k} measured (sim)')
        ax_q.plot(commanded[0], commanded[k], '--', color=colour, linewidth=0.8,
                  label=f'q{k} commanded (IK node)')
    # Shade the stretches of time where the targets were unreachable.
    half = 0.5 / STREAM_RATE
    spans = []
    for (t, _, _), ok in zip(sent, answers):
        if ok:
            continue
        if spans and t - half <= spans[-1][1] + 1e-9 + 2 * half:
            spans[-1][1] = t + half
        else:
            spans.append([t - half, t + half])
    for begin, end in spans:
        ax_q.axvspan(begin - start, end - start, color='#d62728', alpha=0.10, linewidth=0)
    ax_q.axvline(recorder.switched_at - start, color='k', linestyle=':', linewidth=1.0)
    ax_q.annotate('elbow up -> down', (recorder.switched_at - start, 0.80),
                  xycoords=('data', 'axes fraction'), xytext=(4, 0),
                  textcoords='offset points', fontsize=9)
    for number, end in enumerate(schedule.hold_ends, start=1):
        ax_q.annotate(str(number), (end, 0.0), xycoords=('data', 'axes fraction'),
                      xytext=(-3, 4), textcoords='offset points', fontsize=8, color='#555555')
    ax_q.set_xlabel('time [s] (shaded: target unreachable; numbers: end of each waypoint hold)')
    ax_q.set_ylabel('joint angle [rad], wrapped to [-pi, pi)')
    ax_q.set_ylim(-math.pi - 0.3, math.pi + 1.3)
    ax_q.set_title('joint angles')
    ax_q.grid(True, linewidth=0.3)
    ax_q.legend(loc='upper center', fontsize=8, ncol=2, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def render_pictures(output, recorder, start, config):
    """Render the run from the sim's camera: an animation and a still beside ``output``."""
    from sim_pictures import render_run, rendered_line

    def since_start(records):
        return [(t - start, value) for t, value in records if t >= start]
    targets = since_start((t, from_plane(u, v, config.plane)) for t, u, v in recorder.sent)
    path = since_start((t, from_plane(u, v, config.plane)) for t, (u, v) in recorder.tips)
    # The still marks the waypoints (the targets held), not each of the streamed ones.
    held = [p for (_, p), (_, q) in zip(targets, targets[1:]) if p == q]
    waypoints = [p for i, p in enumerate(held) if i == 0 or p != held[i - 1]]
    print(rendered_line(output, render_run(config, since_start(recorder.states), output,
                                           targets, path, still_targets=waypoints)))


def run(params_file, output):
    """Run the demo; return the process exit code."""
    config = load_arm_config(params_file)
    schedule = Schedule(config)
    domain_id = isolate_ros_domain()
    print(f'starting the IK node and the MuJoCo sim with {params_file.name} '
          f'(ROS_DOMAIN_ID={domain_id}, localhost only)', flush=True)
    failures = []
    with tempfile.TemporaryDirectory() as log_dir:
        processes = {
            'IK node': NodeProcess('two_bone_ik', params_file=params_file, domain_id=domain_id,
                                   log_dir=log_dir, name='ik_node').start(),
            'sim': NodeProcess('two_bone_ik.nodes.sim_node',
                               ros_args=['-p', f'arm_params_file:={params_file}'],
                               domain_id=domain_id, log_dir=log_dir, name='sim').start(),
        }
        recorder = None
        try:
            recorder = Recorder(domain_id, config, processes)
            recorder.connect(schedule.target(0.0))
            start = recorder.run_path(schedule)
            recorder.spin_until(lambda: recorder.now() >= start + schedule.duration + 0.1,
                                'the last samples')
        except WaitTimeout as error:
            failures.append(str(error))
        finally:
            if recorder is not None:
                recorder.close()
            failures += stop_processes(processes)
        if failures:
            print('demo FAILED:\n  ' + '\n  '.join(failures), file=sys.stderr)
            return 1

    rows, totals = _analyse(recorder, schedule, start, config)
    print()
    _print_report(rows, totals, config, schedule.duration)
    _draw(output, recorder, schedule, start, rows, config)
    print(f'\npicture: {output}')
    render_pictures(output, recorder, start, config)
    late = [str(n) for n, row in enumerate(rows, start=1) if row['error'] > SETTLED_TOLERANCE]
    if late:
        print(f'note: waypoint(s) {", ".join(late)} had not settled within '
              f'{1e3 * SETTLED_TOLERANCE:g} mm by the end of the hold (a busy machine?)')
    print('demo OK: both nodes ran and stopped cleanly; every target was answered.')
    return 0


def main(argv=None):
    args = _parse_args(argv)
    return run(args.params_file.resolve(), args.output.resolve())


if __name__ == '__main__':
    sys.exit(main())
