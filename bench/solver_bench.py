#!/usr/bin/env python3
"""Speed of the two_bone_ik solver beside bare floors measured in the same run.

Usage: python bench/solver_bench.py [--rounds N] [--batch-size N]

The floors are written here: a bare scalar solver (law of cosines + atan2, elbow up, no
validation, no result object) and the same formula on numpy arrays. Each round times every
case once, floors included, in turn, so a slow spell of a shared machine hits them alike; the
figures are medians over the rounds, and each ratio is the median of the per-round ratios to
the floor timed in that round. Every scalar case runs through the same loop as the floor
(``function(x, y, *args)``). The servo arm is 0.30 m + 0.25 m with both joints limited to
+-90 degrees; about 80 % of its reachable targets need the closest-pose search.

The node's per-target path (``TargetSolver.solve``: frame check, mapping into the arm plane,
solve, readings) is timed twice on the same arm, unlimited: configured by parameters (shoulder
at the origin, plane xy) and from ``demo/demo_arm.urdf`` with continuous joints (raised
shoulder, zero pose up, axes reversed), so their ratio is the cost of the general mapping.

Goals: ``solve`` within 2x of the bare scalar floor, with the servo limits within 8x (the
closest-pose search is written to be read, not unrolled: below 8x readable code wins);
``solve_batch`` at least half the bare numpy throughput, with the servo limits within 8x of
the bare numpy time. A script, not a test; docs/solver.md lists five runs.
"""

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

from two_bone_ik.arm.config import ArmConfig  # noqa: E402
from two_bone_ik.arm.urdf_import import arm_from_urdf  # noqa: E402
from two_bone_ik.ik.target_solver import TargetSolver  # noqa: E402
from two_bone_ik.solver import (  # noqa: E402
    IkStatus, JointLimits, solve, solve_batch, solve_ccd)

#: The demo's URDF arm, its joints made continuous (unlimited, like the parameters arm).
URDF_ARM = arm_from_urdf(
    open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'demo',
                      'demo_arm.urdf')).read().replace('type="revolute"', 'type="continuous"'),
    'base_link', 'tool')

L1, L2 = 0.30, 0.25
SERVO_LIMITS = ((-math.pi / 2, math.pi / 2), (-math.pi / 2, math.pi / 2))
SERVO_JOINT_LIMITS = JointLimits(SERVO_LIMITS)


def bare_solve(x, y, l1, l2):
    """Solve like the floor: elbow-up law of cosines, no checks, a bare tuple."""
    q2 = -math.acos((x * x + y * y - l1 * l1 - l2 * l2) / (2.0 * l1 * l2))
    return math.atan2(y, x) - math.atan2(l2 * math.sin(q2), l1 + l2 * math.cos(q2)), q2


def bare_solve_batch(xy, l1, l2):
    """Solve like the vectorised floor: the same formula on numpy arrays."""
    x, y = xy[:, 0], xy[:, 1]
    q2 = -np.arccos((x * x + y * y - l1 * l1 - l2 * l2) / (2.0 * l1 * l2))
    q1 = np.arctan2(y, x) - np.arctan2(l2 * np.sin(q2), l1 + l2 * np.cos(q2))
    return q1, q2


def reachable_targets(rng, count):
    radius = rng.uniform(abs(L1 - L2) * 1.01, (L1 + L2) * 0.99, size=count)
    angle = rng.uniform(-math.pi, math.pi, size=count)
    return np.stack((radius * np.cos(angle), radius * np.sin(angle)), axis=1)


def per_call_seconds(points, function, *args):
    """Seconds per call of ``function(x, y, *args)`` over the target list."""
    start = time.perf_counter()
    for x, y in points:
        function(x, y, *args)
    return (time.perf_counter() - start) / len(points)


def per_target_seconds(targets, function, *args, **kwargs):
    """Seconds per target of one ``function(targets, *args, **kwargs)`` call."""
    start = time.perf_counter()
    function(targets, *args, **kwargs)
    return (time.perf_counter() - start) / len(targets)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=9)
    parser.add_argument('--batch-size', type=int, default=1_000_000)
    parser.add_argument('--scalar-size', type=int, default=20_000)
    options = parser.parse_args()
    rng = np.random.default_rng(0)
    points = reachable_targets(rng, options.scalar_size).tolist()
    batch_targets = reachable_targets(rng, options.batch_size)
    ccd_targets = reachable_targets(rng, 200)

    # The node's path: the same plane targets, as the parameters arm and the URDF arm see them.
    scale = sum(URDF_ARM.link_lengths) / (L1 + L2)
    plain = TargetSolver(ArmConfig(link_lengths=URDF_ARM.link_lengths))
    general = TargetSolver(ArmConfig(), URDF_ARM)
    plain_targets = [(x * scale, y * scale, 0.0) for x, y in points]
    urdf_targets = [URDF_ARM.from_plane(x, y) for x, y, _ in plain_targets]

    def time_target_solver(solver, targets):
        frame, previous = 'base_link', (0.1, -0.2)
        start = time.perf_counter()
        for x, y, z in targets:
            solver.solve(frame, x, y, z, previous)
        return (time.perf_counter() - start) / len(targets)

    def time_ccd():
        start = time.perf_counter()
        for target in ccd_targets:
            solve_ccd(target, (L1, L2), (0.3, -0.3), tolerance=1e-9, max_iterations=5000)
        return (time.perf_counter() - start) / len(ccd_targets)

    # (name, unit, floor, measure); each floor is listed before the cases measured against it.
    cases = [
        ('bare scalar (law of cosines + atan2)', 'us/solve', None,
         lambda: per_call_seconds(points, bare_solve, L1, L2)),
        ('solve, no limits', 'us/solve', 0,
         lambda: per_call_seconds(points, solve, L1, L2)),
        ('solve, servo limits as JointLimits', 'us/solve', 0,
         lambda: per_call_seconds(points, solve, L1, L2, 'up', SERVO_JOINT_LIMITS)),
        ('solve, servo limits as a plain tuple', 'us/solve', 0,
         lambda: per_call_seconds(points, solve, L1, L2, 'up', SERVO_LIMITS)),
        ('solve_ccd, 2 links, tolerance 1e-9 m', 'us/solve', 0, time_ccd),
        ('TargetSolver, arm from parameters', 'us/solve', 0,
         lambda: time_target_solver(plain, plain_targets)),
        ('TargetSolver, arm from URDF (vs parameters)', 'us/solve', 5,
         lambda: time_target_solver(general, urdf_targets)),
        ('bare numpy batch', 'ns/target', None,
         lambda: per_target_seconds(batch_targets, bare_solve_batch, L1, L2)),
        ('solve_batch, no limits', 'ns/target', 7,
         lambda: per_target_seconds(batch_targets, solve_batch, L1, L2)),
        ('solve_batch, servo limits (JointLimits)', 'ns/target', 7,
         lambda: per_target_seconds(batch_targets, solve_batch, L1, L2,
                                    limits=SERVO_JOINT_LIMITS)),
    ]
    times = [[] for _ in cases]
    ratios = [[] for _ in cases]
    for _ in range(options.rounds):
        for i, (_, _, floor, measure) in enumerate(cases):
            times[i].append(measure())
            if floor is not None:
                ratios[i].append(times[i][-1] / times[floor][-1])
    median = [statistics.median(t) for t in times]
    ratio = [statistics.median(r) if r else 1.0 for r in ratios]

    searched = np.count_nonzero(
        solve_batch(np.array(points), L1, L2, limits=SERVO_LIMITS).status
        == IkStatus.JOINT_LIMITED) / len(points)
    sweeps = statistics.median(
        solve_ccd(t, (L1, L2), (0.3, -0.3), tolerance=1e-9, max_iterations=5000).iterations
        for t in ccd_targets)
    print(f'two_bone_ik solver bench: {options.rounds} rounds, medians; {len(points)} scalar '
          f'targets, {len(batch_targets)} batch targets; arm {L1} m + {L2} m')
    print(f'{"case":44s} {"time":>12s} {"":10s} {"x floor":>8s}')
    for (name, unit, _, _), value, factor in zip(cases, median, ratio):
        scale = 1e6 if unit == 'us/solve' else 1e9
        print(f'{name:44s} {value * scale:12.3f} {unit:10s} {factor:8.2f}')
    print(f'servo targets that needed the closest-pose search: {searched:.1%}; solve_ccd median '
          f'sweeps: {sweeps:.0f}')
    print(f'solve_batch throughput: {1e-6 / median[8]:.1f} M targets/s, bare numpy '
          f'{1e-6 / median[7]:.1f} M/s')
    goals = [
        ('solve, no limits, within 2x of the bare scalar floor', ratio[1], ratio[1] <= 2.0),
        ('solve, servo limits (JointLimits), within 8x of it', ratio[2], ratio[2] <= 8.0),
        ('solve_batch, no limits, at least 0.5 of the bare numpy throughput', 1.0 / ratio[8],
         1.0 / ratio[8] >= 0.5),
        ('solve_batch, servo limits, within 8x of the bare numpy time', ratio[9],
         ratio[9] <= 8.0),
    ]
    for text, value, met in goals:
        print(f'goal: {text}: {value:.2f} {"met" if met else "NOT met"}')
    print(f'(servo limits as a plain tuple, validated once and cached: {ratio[3]:.2f}x)')


if __name__ == '__main__':
    main()
