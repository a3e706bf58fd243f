#!/usr/bin/env python3
"""Speed of the workspace checks beside the same work without them, measured in the same run.

Usage: python bench/workspace_bench.py [--rounds N] [--targets N]

The arm is ``config/so101.yaml``'s SO-101 (yaw + pair + pitch + roll, from parameters), no
motion limits (one command per target), and the default planar arm (0.30 + 0.25 m) stood in the
xz plane. The workspace: a table 5 mm below the base's origin (it never touches the targets
below) and 10 keep-out boxes on it around the arm (random, seeded, each clear of every target's
pose as commanded, so every target is answered as without them).

- ``target``: :meth:`ArmSession.target` on each target, as the node's subscription calls it
  (the solve, the decisions, the bookkeeping), without and with the workspace; goal: the
  workspace adds at most 20 % to it;
- ``node``: the IK node's own ``target_pose`` callback in this process (message in, session,
  ``joint_commands`` and ``reachable`` published, no subscriber), without and with it;
- ``linear plan``: a straight line of the SO-101 that takes about 2 s at its motion limits
  (2 rad/s, 8 rad/s^2, 80 rad/s^3), planned, timed and checked against the table and the boxes
  at 100 Hz (:meth:`WorkspaceGuard.line_motion`); goal: at most 20 ms. Its floor: Ruckig's
  joint-space plan of the same two poses, checked the same way.

Each round times every case once, in turn, so a slow spell of a shared machine hits them
alike; figures are medians over rounds, ratios the median of the per-round ratios. A script,
not a test.
"""

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
sys.path.insert(0, ROOT)

from two_bone_ik.arm.params_file import parameters_for_node  # noqa: E402
from two_bone_ik.motion.limits import MotionLimits  # noqa: E402
from two_bone_ik.motion.planner import MotionPlanner  # noqa: E402
from two_bone_ik.session import ArmSession  # noqa: E402
from two_bone_ik.session.workspace_guard import WorkspaceGuard  # noqa: E402
from two_bone_ik.workspace.links import ArmLinks  # noqa: E402

SO101 = os.path.join(ROOT, 'config', 'so101.yaml')
LIMITS = MotionLimits((2.0,) * 5, (8.0,) * 5, (80.0,) * 5)
PERIOD = 0.01


def so101_values():
    values = dict(parameters_for_node(SO101, '/two_bone_ik').values)
    for name in ('max_joint_velocity', 'max_joint_acceleration', 'max_joint_jerk',
                 'floor_height', 'keep_out_boxes'):
        values.pop(name, None)
    return values


PLANAR = {'link_lengths': [0.30, 0.25], 'plane': 'xz', 'shoulder_position': [0.0, 0.0, 0.1],
          'joint_lower_limits': [-3.0, -3.0], 'joint_upper_limits': [3.0, 3.0]}


def targets_for(values, count, rng, box):
    """Targets the arm reaches (REACHED), on the table's side of the arm, inside ``box``."""
    session = ArmSession(values, set(values))
    out = []
    while len(out) < count:
        point = tuple(rng.uniform(box[0], box[1]))
        if session.target('', *point).result.status.name == 'REACHED':
            out.append(point)
    return out


def clear_boxes(values, targets, rng, count=10):
    """10 boxes on the table around the arm, each clear of every target's commanded pose."""
    session = ArmSession(values, set(values))
    poses = [session.target('', *t).result.readings for t in targets]
    links = ArmLinks(session.solver.geometry, (0.03,) * len(poses[0]))
    points = np.array([links.points(p) for p in poses])
    boxes = []
    while len(boxes) < 6 * count:
        centre = rng.uniform((-0.35, -0.35, 0.0), (0.35, 0.35, 0.08))
        half = rng.uniform(0.01, 0.04, 3)
        lo, hi = centre - half - 0.04, centre + half + 0.04  # kept 4 cm off every point
        if not ((points > lo) & (points < hi)).all(axis=2).any():
            boxes += list(centre - half) + list(centre + half)
    return boxes


def session_pair(values, boxes, floor):
    plain = ArmSession(values, set(values))
    checked = {**values, 'floor_height': floor, 'keep_out_boxes': boxes}
    return plain, ArmSession(checked, set(checked))


def time_targets(session, targets) -> float:
    """Seconds per target of ``session.target``."""
    start = time.perf_counter()
    for point in targets:
        session.target('', *point)
    return (time.perf_counter() - start) / len(targets)


def node_pair(values, boxes, floor):
    """Two IK nodes in this process (rclpy, no DDS peers): without and with the workspace."""
    import rclpy
    from rclpy.context import Context
    from rclpy.parameter import Parameter
    from two_bone_ik.nodes.ik_node import IkNode
    context = Context()
    rclpy.init(context=context, domain_id=101 % 100 + 1)

    def node(extra):
        overrides = [Parameter(k, value=v) for k, v in {**values, **extra}.items()]
        return IkNode(context=context, parameter_overrides=overrides,
                      start_parameter_services=False)
    return context, node({}), node({'floor_height': floor, 'keep_out_boxes': boxes})


def time_node(node, messages) -> float:
    start = time.perf_counter()
    for msg in messages:
        node._on_target(msg)
    return (time.perf_counter() - start) / len(messages)


def pose_messages(targets, frame):
    from geometry_msgs.msg import PoseStamped
    out = []
    for x, y, z in targets:
        msg = PoseStamped()
        msg.header.frame_id = frame
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = x, y, z
        msg.pose.orientation.w = 1.0
        out.append(msg)
    return out


def line_case(values, boxes, floor):
    """Return the line (about 2 s at the limits) and its floor, Ruckig's joint plan."""
    session = ArmSession(values, set(values))
    start = session.target('', 0.2, -0.11, 0.1).result.readings
    goal = session.target('', 0.22, 0.1, 0.035).result.readings
    guard = WorkspaceGuard({'floor_height': floor, 'keep_out_boxes': boxes,
                            'link_radius': values['link_radius']})
    guard.use_arm(session.solver)
    bounds = tuple(zip(session.solver.geometry.lower_limits,
                       session.solver.geometry.upper_limits))

    def joint_plan():
        planner = MotionPlanner(LIMITS, bounds, PERIOD, start, guard.check)
        return planner.plan(goal)
    return (lambda: guard.line_motion(start, goal, LIMITS, PERIOD)), joint_plan


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def _row(name, values, unit=1e6, suffix='us'):
    return f'{name:<36} {statistics.median(values) * unit:>9.1f} {suffix}'


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rounds', type=int, default=9)
    parser.add_argument('--targets', type=int, default=400)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    so101 = so101_values()
    floor = -0.005
    so101_targets = targets_for(so101, args.targets, rng, ((0.12, -0.2, 0.04), (0.3, 0.2, 0.2)))
    so101_boxes = clear_boxes(so101, so101_targets, rng)
    planar_targets = targets_for(PLANAR, args.targets, rng, ((0.05, 0.0, 0.04), (0.5, 0.0, 0.5)))
    planar_boxes = clear_boxes(PLANAR, planar_targets, rng)
    cases = {'so101': (session_pair(so101, so101_boxes, floor), so101_targets),
             'planar': (session_pair(PLANAR, planar_boxes, floor), planar_targets)}
    context, node_plain, node_checked = node_pair(so101, so101_boxes, floor)
    messages = pose_messages(so101_targets, 'base_link')
    line, joint = line_case(so101, so101_boxes, floor)
    motion = line()
    print(f'line: {motion.duration:.3f} s at the SO-101 limits, '
          f'{math.ceil(motion.duration / PERIOD)} samples at 100 Hz')
    figures = {key: [] for key in ('so101 plain', 'so101 checked', 'planar plain',
                                   'planar checked', 'node plain', 'node checked', 'line',
                                   'joint')}
    for _ in range(args.rounds):
        for name, ((plain, checked), targets) in cases.items():
            figures[f'{name} plain'].append(time_targets(plain, targets))
            figures[f'{name} checked'].append(time_targets(checked, targets))
        figures['node plain'].append(time_node(node_plain, messages))
        figures['node checked'].append(time_node(node_checked, messages))
        figures['line'].append(timed(line))
        figures['joint'].append(timed(joint))
    for node in (node_plain, node_checked):
        node.destroy_node()
    context.try_shutdown()
    print(f'{args.rounds} rounds, {args.targets} targets each; medians\n')
    for name in ('so101', 'planar', 'node'):
        plain, checked = figures[f'{name} plain'], figures[f'{name} checked']
        ratio = statistics.median(c / p for c, p in zip(checked, plain))
        label = {'so101': 'SO-101 session.target', 'planar': 'planar session.target',
                 'node': 'SO-101 node target callback'}[name]
        print(_row(f'{label}, no workspace', plain))
        print(_row(f'{label}, floor + 10 boxes', checked)
              + f'   x{ratio:.3f} (+{(ratio - 1) * 100:.1f} %; goal <= +20 %)')
    print(_row('linear plan, 2 s at 100 Hz', figures['line'], 1e3, 'ms') + '   (goal <= 20 ms)')
    print(_row('joint plan (Ruckig), checked: floor', figures['joint'], 1e3, 'ms'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
