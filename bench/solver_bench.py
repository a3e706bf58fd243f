#!/usr/bin/env python3
"""Speed of the two_bone_ik solver beside a bare law-of-cosines floor, measured in one run.

Usage: python bench/solver_bench.py [--repeats N]

Prints the median over N repeats of: microseconds per scalar ``solve`` (no limits; with hobby
servo limits), nanoseconds per target for ``solve_batch`` on 10^6 targets, microseconds per
``solve_ccd`` on a two-link arm, and the same for a bare implementation written here (law of
cosines + atan2, no validation, no result object), with the ratios. A script, not a test.
"""

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

from two_bone_ik.solver import IkStatus, solve, solve_batch, solve_ccd  # noqa: E402

L1, L2 = 0.30, 0.25
SERVO_LIMITS = ((-math.pi / 2, math.pi / 2), (-math.pi / 2, math.pi / 2))


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


def per_call_seconds(function, targets, *args, **kwargs):
    points = targets.tolist()
    start = time.perf_counter()
    for x, y in points:
        function(x, y, *args, **kwargs)
    return (time.perf_counter() - start) / len(points)


def median_of(repeats, measure):
    return statistics.median(measure() for _ in range(repeats))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeats', type=int, default=7)
    parser.add_argument('--batch-size', type=int, default=1_000_000)
    options = parser.parse_args()
    rng = np.random.default_rng(0)
    scalar_targets = reachable_targets(rng, 20_000)
    batch_targets = reachable_targets(rng, options.batch_size)
    ccd_targets = reachable_targets(rng, 500)
    repeats = options.repeats

    bare = median_of(repeats, lambda: per_call_seconds(bare_solve, scalar_targets, L1, L2))
    plain = median_of(repeats, lambda: per_call_seconds(solve, scalar_targets, L1, L2))
    limited = median_of(repeats, lambda: per_call_seconds(
        solve, scalar_targets, L1, L2, limits=SERVO_LIMITS))
    searched = np.count_nonzero(
        solve_batch(scalar_targets, L1, L2, limits=SERVO_LIMITS).status
        == IkStatus.JOINT_LIMITED) / len(scalar_targets)

    def time_batch(function, *args, **kwargs):
        start = time.perf_counter()
        function(batch_targets, *args, **kwargs)
        return (time.perf_counter() - start) / len(batch_targets)

    bare_batch = median_of(repeats, lambda: time_batch(bare_solve_batch, L1, L2))
    batch = median_of(repeats, lambda: time_batch(solve_batch, L1, L2))
    batch_limited = median_of(max(1, repeats // 2), lambda: time_batch(
        solve_batch, L1, L2, limits=SERVO_LIMITS))

    def time_ccd():
        start = time.perf_counter()
        for target in ccd_targets:
            solve_ccd(target, (L1, L2), (0.3, -0.3), tolerance=1e-9, max_iterations=5000)
        return (time.perf_counter() - start) / len(ccd_targets)

    ccd = median_of(max(1, repeats // 2), time_ccd)
    sweeps = statistics.median(
        solve_ccd(t, (L1, L2), (0.3, -0.3), tolerance=1e-9, max_iterations=5000).iterations
        for t in ccd_targets)

    rows = [
        ('bare scalar (law of cosines + atan2)', bare * 1e6, 'us/solve', 1.0),
        ('solve, no limits', plain * 1e6, 'us/solve', plain / bare),
        ('solve, servo limits (+-90 deg)', limited * 1e6, 'us/solve', limited / bare),
        ('solve_ccd, 2 links, tol 1e-9 m', ccd * 1e6, 'us/solve', ccd / bare),
        ('bare numpy batch', bare_batch * 1e9, 'ns/target', 1.0),
        ('solve_batch, no limits', batch * 1e9, 'ns/target', batch / bare_batch),
        ('solve_batch, servo limits', batch_limited * 1e9, 'ns/target',
         batch_limited / bare_batch),
    ]
    print(f'two_bone_ik solver bench: medians of {repeats} runs, {len(scalar_targets)} scalar '
          f'targets, {len(batch_targets)} batch targets, arm {L1} m + {L2} m')
    print(f'{"case":40s} {"time":>10s} {"unit":10s} {"x floor":>8s}')
    for name, value, unit, ratio in rows:
        print(f'{name:40s} {value:10.3f} {unit:10s} {ratio:8.2f}')
    print(f'share of servo-limited targets that needed the closest-pose search: {searched:.1%}')
    print(f'solve_ccd median sweeps: {sweeps:.0f}; solve_ccd / solve: {ccd / plain:.1f}x')
    print(f'solve_batch throughput: {1e-6 / batch:.1f} M targets/s '
          f'(bare {1e-6 / bare_batch:.1f} M/s, {bare_batch / batch:.2f} of it)')
    print(f'goals: solve within 2x of bare scalar: {"met" if plain / bare <= 2 else "NOT met"} '
          f'({plain / bare:.2f}x); solve_batch at least half the bare throughput: '
          f'{"met" if bare_batch / batch >= 0.5 else "NOT met"} ({bare_batch / batch:.2f})')


if __name__ == '__main__':
    main()
