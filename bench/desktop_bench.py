#!/usr/bin/env python3
"""Speed of the desktop solver beside the planar ``solve`` measured in the same run.

Usage: python bench/desktop_bench.py [--rounds N] [--targets N] [--peer-targets N]
       [--ikpy-targets N] [--so101 PATH] [--no-peers]

The arm is ``demo/desktop_arm.urdf`` (yaw + pair + pitch + roll) with its roll made fixed, so a
4-joint yaw + pair + pitch arm, its joints made continuous (unlimited, like the planar case it
is compared with). Cases, each on its own target list:

- ``planar solve``: :func:`two_bone_ik.solver.solve` on the planar targets of the pair (the
  floor of this bench; 0.30 m + 0.25 m, unlimited, as in ``bench/solver_bench.py``);
- ``desktop, pitch kept``: :meth:`DesktopSolver.solve`, position only, targets the arm reaches
  at the wanted approach pitch (-pi/2, pointing down: picking from a table), so the fast path;
- ``desktop, pitch kept, last command given``: the same with the last command (whole turns,
  the roll held), as the node calls it;
- ``desktop, pitch searched``: targets it does not reach at that pitch, so the exact search
  of the nearest feasible pitch runs;
- ``desktop, 5 joints``: the demo arm as it is (roll held), pitch kept;
- ``desktop, axes off 4e-6 rad``: the 5-joint arm with its roll axis tilted as SO-101's URDF
  has it, so Newton steps on the real chain correct every solution;
- ``desktop batch, pitch kept``: :meth:`DesktopSolver.solve_batch` on the first list.

Each round times every case once, in turn, so a slow spell of a shared machine hits them
alike; figures are medians over rounds and each ratio is the median of the per-round ratios to
the planar solve timed in that round. Goal: a 4-joint position-only solve (pitch kept) within 3x
the planar solve. A script, not a test.

Then, beside the numeric solvers (``bench/desktop_peers.py``): the published SO-101 URDF
(``--so101``, default ``../shared/arms/so101.urdf`` beside the repository; ``base_link`` ->
``gripper_frame_link``) and the demo arm (``base_link`` -> ``tool``), approach pitch 0 and
-pi/2, ``--peer-targets`` FK-sampled targets (2000), timed per target in one process,
interleaved, with roboticstoolbox-python's ``ik_LM`` and ikpy (the first ``--ikpy-targets``
only: it takes about 40 ms a target). Goals: ``solve``'s median at most half ``ik_LM``'s, its
p99 at most 3x its own median; ``solve_batch`` of 2000 at most 2 us per target; every target
reached.
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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from two_bone_ik.arm.desktop_geometry import desktop_from_chain  # noqa: E402
from two_bone_ik.arm.urdf_import import chain_from_urdf  # noqa: E402
from two_bone_ik.solver import solve  # noqa: E402
from two_bone_ik.solver.desktop import DesktopSolver  # noqa: E402

import desktop_peers  # noqa: E402, I100

DEMO_ARM = os.path.join(ROOT, 'demo', 'desktop_arm.urdf')
WANTED = -0.5 * math.pi
#: The last command, as the node passes it with every target.
LAST = (0.3, 0.2, -0.4, -1.0)
L1, L2 = 0.30, 0.25


def desktop_arm(roll: bool, tilt: bool = False):
    """Return the demo arm: continuous joints, the roll fixed or not, its axis tilted or not."""
    text = open(DEMO_ARM).read().replace('type="revolute"', 'type="continuous"')
    if tilt:
        text = text.replace('<axis xyz="1 0 0"/>', '<axis xyz="1 4e-6 0"/>')
    chain = chain_from_urdf(text, 'base_link', 'tool')
    if not roll:
        chain = chain.with_fixed(('wrist_roll',))
    return desktop_from_chain(chain)


def targets(geometry, solver, rng, count, kept):
    """Return tool points of random poses the arm faces with the roll held (at 0).

    Those reached at the wanted pitch (kept) or not.
    """
    out = []
    while len(out) < count:
        readings = rng.uniform(-math.pi, math.pi, len(geometry.joint_names))
        point = tuple(float(v) for v in geometry.tool_position(readings))
        solution = solver.solve_general(*point, approach_pitch=WANTED)
        if solution.reachable and solution.yaw_branch == 'facing' and not \
                solution.roll_moved and (abs(solution.approach_pitch - WANTED) < 1e-12) == kept:
            out.append(point)
    return out


def per_target(points, function):
    start = time.perf_counter()
    for x, y, z in points:
        function(x, y, z)
    return (time.perf_counter() - start) / len(points)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=9)
    parser.add_argument('--targets', type=int, default=2000)
    parser.add_argument('--peer-targets', type=int, default=2000)
    parser.add_argument('--ikpy-targets', type=int, default=2000)
    parser.add_argument('--so101', default=os.path.join(ROOT, '..', 'shared', 'arms',
                                                        'so101.urdf'))
    parser.add_argument('--no-peers', action='store_true', help='only the planar comparison')
    args = parser.parse_args()
    planar_cases(args)
    if not args.no_peers:
        peer_cases(args)


def peer_cases(args) -> None:
    """Time the desktop solver beside ik_LM and ikpy (see the module docstring)."""
    arms = [('demo arm', DEMO_ARM, 'base_link', 'tool')]
    if os.path.exists(args.so101):
        arms.insert(0, ('SO-101 (published URDF)', args.so101, 'base_link',
                        'gripper_frame_link'))
    else:
        print(f'\n{args.so101}: no such file, the SO-101 rows skipped (--so101 PATH)')
    for name, path, base, tip in arms:
        for wanted, label in ((0.0, '0'), (-0.5 * math.pi, '-pi/2')):
            rows, skipped = desktop_peers.compare(path, base, tip, wanted, args.peer_targets,
                                                  args.ikpy_targets)
            desktop_peers.print_table(f'{name}, approach_pitch {label}', rows, skipped)


def planar_cases(args) -> None:
    """Time the desktop solver's cases beside the planar ``solve`` (see the module docstring)."""
    rng = np.random.default_rng(0)
    four = desktop_arm(roll=False)
    five = desktop_arm(roll=True)
    tilted = desktop_arm(roll=True, tilt=True)
    solvers = {name: DesktopSolver(g.model) for name, g in
               (('four', four), ('five', five), ('tilted', tilted))}
    kept = targets(four, solvers['four'], rng, args.targets, True)
    searched = targets(four, solvers['four'], rng, args.targets // 4, False)
    kept5 = targets(five, solvers['five'], rng, args.targets, True)
    kept_tilted = targets(tilted, solvers['tilted'], rng, args.targets // 4, True)
    radius = rng.uniform(abs(L1 - L2) * 1.01, (L1 + L2) * 0.99, args.targets)
    angle = rng.uniform(-math.pi, math.pi, args.targets)
    planar = [(float(r * math.cos(a)), float(r * math.sin(a)), 0.0)
              for r, a in zip(radius, angle)]
    batch = np.array(kept)

    def batch_case():
        start = time.perf_counter()
        solvers['four'].solve_batch(batch, approach_pitch=WANTED)
        return (time.perf_counter() - start) / len(batch)

    cases = {
        'planar solve (floor)': lambda: per_target(planar, lambda x, y, z: solve(x, y, L1, L2)),
        'desktop 4 joints, pitch kept': lambda: per_target(
            kept, lambda x, y, z: solvers['four'].solve(x, y, z, None, WANTED)),
        'desktop 4 joints, pitch kept, last command given': lambda: per_target(
            kept, lambda x, y, z: solvers['four'].solve(x, y, z, LAST, WANTED)),
        'desktop 4 joints, pitch searched': lambda: per_target(
            searched, lambda x, y, z: solvers['four'].solve(x, y, z, None, WANTED)),
        'desktop 5 joints, pitch kept': lambda: per_target(
            kept5, lambda x, y, z: solvers['five'].solve(x, y, z, None, WANTED)),
        'desktop 5 joints, axes off 4e-6 rad (Newton)': lambda: per_target(
            kept_tilted, lambda x, y, z: solvers['tilted'].solve(x, y, z, None, WANTED)),
        'desktop batch 4 joints, pitch kept': batch_case,
    }
    times = {name: [] for name in cases}
    ratios = {name: [] for name in cases}
    for _ in range(args.rounds):
        round_times = {name: case() for name, case in cases.items()}
        floor = round_times['planar solve (floor)']
        for name, value in round_times.items():
            times[name].append(value)
            ratios[name].append(value / floor)
    print(f'{args.rounds} rounds, {args.targets} targets per list')
    print('| case | time | x planar solve |')
    print('| --- | ---: | ---: |')
    for name in cases:
        print(f'| {name} | {statistics.median(times[name]) * 1e6:.2f} us/target | '
              f'{statistics.median(ratios[name]):.2f} |')


if __name__ == '__main__':
    main()
