#!/usr/bin/env python3
"""The IK node driving an arm described by its URDF, through a ros2_control-style topic.

Starts, as subprocesses on this machine only, in a ROS domain of its own:

- the IK node with ``robot_description`` = ``demo/demo_arm.urdf`` (shoulder raised 0.6 m and
  0.05 m aside, zero pose straight up, joint axes opposite to u x v, joint and velocity
  limits), planning every motion within velocity (the URDF's), acceleration and jerk limits and
  streaming it at 100 Hz to ``forward_position_controller/commands``
  (std_msgs/Float64MultiArray), as to a ros2_control position controller; its ``joint_commands``
  (positions and velocities of the same stream) are remapped to ``streamed_commands`` so that
  only the controller topic drives the arm;
- the MuJoCo sim of the same URDF standing in for that controller (``position_controller``).

It sends a few targets (reached, out of reach, behind a joint limit, inside the inner hole, and
one replaced mid-motion), prints a row per target, and draws ``demo_urdf.png``: the markers the
IK node publishes on ``ik_markers`` (workspace, joint-limit outline, targets coloured by status,
the commanded arm, the closest point), rendered with matplotlib as RViz would show them, with
the measured tip's trace; and the streamed joint positions and velocities over time beside the
measured ones, with the velocity limits. No display needed.

Exits 0 when both nodes ran and stopped cleanly and every target was answered, 1 otherwise.
Run it with ``make demo`` or ``python demo/urdf_arm_demo.py [--output demo_urdf.png]``.
"""

import argparse
import math
from pathlib import Path
import sys
import tempfile
import time

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / 'test')]  # this checkout, and the process harness

from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402
from geometry_msgs.msg import PoseStamped  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from ros_harness import drive_nodes, ik_and_sim, isolate_ros_domain  # noqa: E402,I100
from ros_harness import write_params  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402

from two_bone_ik.arm.urdf_import import arm_from_urdf  # noqa: E402
from visualization_msgs.msg import MarkerArray  # noqa: E402

URDF = REPO / 'demo' / 'demo_arm.urdf'
DEFAULT_OUTPUT = REPO / 'demo_urdf.png'
NAMESPACE = '/urdf_arm'
CONTROLLER = 'forward_position_controller'
ACCELERATION, JERK = [4.0, 6.0], [40.0, 60.0]
HOLD = 2.5  # s at each target

#: (what, target (u, v) in the arm plane from the shoulder, m). u = +x, v = +z of base_link.
WAYPOINTS = [
    ('reached, up and forward', (0.45, 0.25)),
    ('out of reach', (0.90, 0.10)),
    ('reached behind, elbow up', (-0.30, 0.40)),
    ('beyond the shoulder limit', (0.20, -0.55)),
    ('replaced mid-motion ...', (0.50, -0.10)),
    ('... by this one', (-0.15, 0.55)),
    ('inside the inner hole: the elbow cannot fold that far', (0.03, 0.01)),
]
REPLACE_AFTER = 0.45  # s: the 5th target is replaced this soon by the 6th


def _values(status):
    return {kv.key: kv.value for kv in status.values}


def run(output):
    """Run the demo; return the process exit code."""
    urdf = URDF.read_text()
    geometry = arm_from_urdf(urdf, 'base_link')
    domain_id = isolate_ros_domain()
    print(f'arm from demo/demo_arm.urdf: {geometry.describe()}; driven through '
          f'{CONTROLLER}/commands with motion limits, MuJoCo standing in for the controller '
          f'(ROS_DOMAIN_ID={domain_id}, localhost only)', flush=True)
    with tempfile.TemporaryDirectory() as log_dir:
        params = write_params(Path(log_dir) / 'demo_arm.yaml', {
            'robot_description': urdf, 'base_frame': 'base_link',
            'position_controller': CONTROLLER, 'max_joint_acceleration': ACCELERATION,
            'max_joint_jerk': JERK, 'command_rate': 100.0})
        processes = ik_and_sim(
            params, domain_id, log_dir, NAMESPACE,
            ik_ros_args=['-r', 'joint_commands:=streamed_commands'],
            sim_ros_args=['-p', f'position_controller:={CONTROLLER}'])
        record, failures = drive_nodes(
            processes, domain_id, lambda probe: _drive(probe, geometry, processes),
            'urdf_arm_demo')
        if failures:
            print('demo FAILED:\n  ' + '\n  '.join(failures), file=sys.stderr)
            return 1
    _print_rows(record, geometry)
    _draw(output, record, geometry)
    print(f'\npicture: {output}')
    print('demo OK: both nodes ran and stopped cleanly; every target was answered.')
    return 0


def _drive(probe, geometry, processes):
    """Send the waypoints; return what was recorded."""
    ns = NAMESPACE
    deep = QoSProfile(depth=5000, reliability=ReliabilityPolicy.RELIABLE)
    latched = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
    t0 = time.monotonic()

    def collect(msg_type, topic, qos):
        return probe.collect(msg_type, f'{ns}/{topic}', qos)

    target = probe.publisher(PoseStamped, f'{ns}/target_pose', deep)
    streamed = collect(JointState, 'streamed_commands', deep)
    controller = collect(Float64MultiArray, f'{CONTROLLER}/commands', deep)
    states = collect(JointState, 'joint_states', deep)
    tips = collect(PoseStamped, 'tip_pose', deep)
    statuses = collect(DiagnosticStatus, 'ik_status', deep)
    markers = collect(MarkerArray, 'ik_markers', latched)
    probe.wait_for_subscribers(target, timeout=60.0)
    for collector in (streamed, controller, states, tips, statuses, markers):
        probe.wait_for_publishers(collector, timeout=60.0)

    def send(u, v):
        msg = PoseStamped()
        msg.header.frame_id = 'base_link'
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = \
            geometry.from_plane(u, v)
        msg.pose.orientation.w = 1.0
        target.publish(msg)

    def spin_for(seconds):
        end = time.monotonic() + seconds
        probe.spin_until(lambda: time.monotonic() >= end, seconds + 5.0, 'time to pass')

    # The first exchange is retried until the node's outputs have matched us.
    first = WAYPOINTS[0][1]
    probe.publish_until(target, _target_msg(geometry, *first), lambda: len(statuses), 30.0,
                        'the IK node to answer')
    rows = []
    index = 0
    while index < len(WAYPOINTS):
        what, (u, v) = WAYPOINTS[index]
        start = len(statuses)
        sent_at = time.monotonic() - t0
        if index:
            send(u, v)
        statuses.wait_for_count(start + 1 if index else 1)
        status = statuses.messages[start if index else 0]
        if what.startswith('replaced'):
            spin_for(REPLACE_AFTER)
            rows.append((what, (u, v), _values(status), sent_at, None))
            index += 1
            continue
        spin_for(HOLD)
        arrays = markers.messages
        rows.append((what, (u, v), _values(status), sent_at, arrays[-1] if arrays else None))
        index += 1
    return {'rows': rows, 't0': t0, 'streamed': streamed, 'controller': controller.messages,
            'states': states, 'tips': tips.messages, 'markers': markers.messages}


def _target_msg(geometry, u, v):
    msg = PoseStamped()
    msg.header.frame_id = 'base_link'
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = geometry.from_plane(u, v)
    msg.pose.orientation.w = 1.0
    return msg


def _print_rows(record, geometry):
    print(f"\n{'#':>2}  {'target u, v [m]':<16} {'status':<15} {'motion [s]':>10}  what")
    print('-' * 72)
    for number, (what, (u, v), values, _, _) in enumerate(record['rows'], start=1):
        print(f"{number:>2}  {u:+.2f}, {v:+.2f}     {values.get('status', '?'):<15} "
              f"{float(values.get('motion_remaining', 'nan')):>10.2f}  {what}")
    commands = record['controller']
    streamed = record['streamed'].messages
    speeds = [max(abs(v) for v in m.velocity) for m in streamed if m.velocity]
    print(f'\n{len(commands)} commands streamed on {CONTROLLER}/commands at 100 Hz; peak joint '
          f'speed {max(speeds, default=0.0):.2f} rad/s (limits '
          f'{geometry.velocity_limits[0]:g}, {geometry.velocity_limits[1]:g} rad/s from the '
          'URDF)')
    tips = record['tips']
    if tips:
        p = tips[-1].pose.position
        print(f'measured tip at the end: ({p.x:+.3f}, {p.y:+.3f}, {p.z:+.3f}) m in base_link')


def _draw(path, record, geometry):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(12, 6))
    ax_m = fig.add_axes([0.05, 0.08, 0.42, 0.84])
    ax_q = fig.add_axes([0.55, 0.55, 0.42, 0.37])
    ax_v = fig.add_axes([0.55, 0.08, 0.42, 0.37], sharex=ax_q)

    # What RViz would show: the markers, seen along the joint axes (x right, z up).
    last = [array for *_, array in record['rows'] if array is not None]
    drawn_static = False
    for array in last:
        for marker in array.markers:
            if marker.action != 0:
                continue
            color = (marker.color.r, marker.color.g, marker.color.b, marker.color.a)
            if marker.ns in ('workspace', 'limits'):
                if drawn_static:
                    continue
                xs = [p.x for p in marker.points]
                zs = [p.z for p in marker.points]
                ax_m.plot(xs, zs, color=color, lw=1.0 if marker.ns == 'workspace' else 0.8)
            elif marker.ns == 'arm':
                ax_m.plot([p.x for p in marker.points], [p.z for p in marker.points], '-o',
                          color=color, lw=2.0, ms=3, alpha=0.7)
            elif marker.ns == 'target':
                p = marker.pose.position
                ax_m.plot(p.x, p.z, 'o', color=color, ms=9, mec='black', mew=0.5)
            elif marker.ns == 'closest' and marker.type == 2:
                p = marker.pose.position
                ax_m.plot(p.x, p.z, 'o', mfc='none', mec=color, ms=8)
            elif marker.ns == 'closest':
                ax_m.plot([p.x for p in marker.points], [p.z for p in marker.points], ':',
                          color=color, lw=1.0)
        drawn_static = True
    tips = record['tips']
    ax_m.plot([m.pose.position.x for m in tips], [m.pose.position.z for m in tips],
              color='tab:red', lw=0.6, alpha=0.6, label='measured tip (MuJoCo)')
    for number, (_, (u, v), *_) in enumerate(record['rows'], start=1):
        x, _, z = geometry.from_plane(u, v)
        ax_m.annotate(str(number), (x, z), textcoords='offset points', xytext=(6, 4),
                      fontsize=8)
    ax_m.plot([], [], 'o', color=(0.15, 0.75, 0.25), label='target reached')
    ax_m.plot([], [], 'o', color=(0.95, 0.65, 0.10), label='closest pose commanded')
    ax_m.plot([], [], color=(0.25, 0.50, 0.95), label='joint-limit outline')
    ax_m.plot([], [], color=(0.55, 0.55, 0.60), label='reach circles')
    ax_m.set_aspect('equal')
    ax_m.set_xlabel('x of base_link [m]')
    ax_m.set_ylabel('z of base_link [m]')
    ax_m.set_title('ik_markers, as RViz shows them (side view)', fontsize=10)
    ax_m.legend(loc='lower left', fontsize=7)
    ax_m.grid(alpha=0.3)

    t0 = record['t0']
    colors = ('tab:blue', 'tab:orange')
    streamed = record['streamed'].messages
    times = [t - t0 for t in record['streamed'].times]
    states = record['states'].messages
    state_times = [t - t0 for t in record['states'].times]
    for joint, name in enumerate(geometry.joint_names):
        ax_q.plot(times, [m.position[joint] for m in streamed], color=colors[joint],
                  label=f'{name}, streamed')
        ax_q.plot(state_times, [m.position[joint] for m in states], color=colors[joint],
                  ls=':', lw=1.0, label=f'{name}, measured')
        ax_v.plot(times, [m.velocity[joint] if m.velocity else math.nan for m in streamed],
                  color=colors[joint], label=name)
        for sign in (-1, 1):
            ax_v.axhline(sign * geometry.velocity_limits[joint], color=colors[joint], ls='--',
                         lw=0.8)
    for _, _, _, sent_at, _ in record['rows']:
        for ax in (ax_q, ax_v):
            ax.axvline(sent_at, color='grey', lw=0.5)
    ax_q.set_ylabel('joint reading [rad]')
    ax_q.legend(loc='upper right', fontsize=7, ncol=2)
    ax_q.set_title(f'streamed to {CONTROLLER}/commands (100 Hz) and measured', fontsize=10)
    ax_v.set_ylabel('streamed velocity [rad/s]')
    ax_v.set_xlabel('time [s] (grey: a target sent)')
    ax_v.legend(loc='upper right', fontsize=7)
    for ax in (ax_q, ax_v):
        ax.grid(alpha=0.3)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--output', type=Path, default=DEFAULT_OUTPUT,
                        help='picture to write (default: demo_urdf.png)')
    return parser.parse_args(argv)


def main(argv=None):
    args = _parse_args(argv)
    return run(args.output.resolve())


if __name__ == '__main__':
    sys.exit(main())
