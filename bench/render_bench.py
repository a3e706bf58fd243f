#!/usr/bin/env python3
"""Does rendering slow the sim? joint_states and the physics with the camera and the viewer on.

Run from the repository root (or with the package installed; the viewer needs ``Xvfb``)::

    python bench/render_bench.py [--rounds 3] [--duration 5] [--publish-rate 100]

The script starts the sim node (``two_bone_ik_sim``, the default arm) as a subprocess in four
set-ups, one after another in each round (the order turning from round to round, so each sees
the machine's load alike):

- ``plain``: no rendering (the floor);
- ``camera``: ``camera_rate`` 30 Hz at 640x480 (``camera_info`` subscribed, not the images, so
  the probe's own work stays small);
- ``viewer``: the viewer window, in a virtual display (Xvfb) of the script's own;
- ``both``: the camera and the viewer.

Each set-up gets a warm-up of 2 s, then ``--duration`` s measured from this process: the rate
of ``joint_states`` (messages per second), the p99 of the gaps between them, the pictures per
second, and the physics' pace, simulated seconds per wall-clock second from the sim's
``/diagnostics`` (``simulated_time`` at the window's two ends), with any time it skipped to keep
up. It prints each round and a table of medians over rounds with each set-up's ratio to
``plain``. The goal (issue 26): rendering delays neither by more than 10 %, so the rate and the
pace ratios stay at or above 0.90. A script, not a test: the figures depend on the machine.
"""

import argparse
from pathlib import Path
import statistics
import sys
import tempfile
import time

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO_ROOT), str(REPO_ROOT / 'test')]  # this checkout, the test harness

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
import numpy as np  # noqa: E402
from ros_harness import isolate_ros_domain, NodeProcess, RosProbe  # noqa: E402,I100
from sensor_msgs.msg import CameraInfo, JointState  # noqa: E402
from virtual_display import VirtualDisplay  # noqa: E402

SETUPS = {
    'plain': [],
    'camera': ['-p', 'camera_rate:=30.0', '-p', 'camera_size:=[640,480]'],
    'viewer': ['-p', 'viewer:=true'],
    'both': ['-p', 'camera_rate:=30.0', '-p', 'camera_size:=[640,480]', '-p', 'viewer:=true'],
}
WARM_UP = 2.0


def _simulated_time(array: DiagnosticArray) -> float:
    values = {kv.key: kv.value for kv in array.status[0].values}
    return float(values['simulated_time']), float(values['time_skipped'])


def measure(probe: RosProbe, setup: str, args, log_dir, display) -> dict:
    """Run the sim in ``setup`` and return its figures for one window."""
    ros_args = ['-p', f'publish_rate:={args.publish_rate}', '-r', f'__ns:=/{setup}',
                *SETUPS[setup]]
    env = display.environment() if 'viewer' in setup or setup == 'both' else {}
    with NodeProcess('two_bone_ik.nodes.sim_node', ros_args=ros_args,
                     domain_id=probe.domain, log_dir=log_dir, env_extra=env,
                     name=setup) as node:
        states = probe.collect(JointState, f'/{setup}/joint_states')
        infos = probe.collect(CameraInfo, f'/{setup}/camera/camera_info')
        diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
        probe.wait_for_publishers(states, timeout=30.0)
        states.wait_for_count(1, timeout=30.0)
        probe.spin_for(WARM_UP)
        start, first_state, first_info = time.monotonic(), len(states), len(infos)
        first_diag = len(diagnostics)
        probe.spin_for(args.duration)
        end = time.monotonic()
        ours = [m for m in diagnostics.messages[first_diag:]
                if m.status and m.status[0].name.startswith(f'/{setup}/')]
        code = node.interrupt()
    times = np.array(states.times[first_state:])
    gaps = np.diff(times) if len(times) > 1 else np.array([np.nan])
    (sim0, skip0), (sim1, skip1) = _simulated_time(ours[0]), _simulated_time(ours[-1])
    wall = ours[-1].header.stamp.sec + 1e-9 * ours[-1].header.stamp.nanosec - (
        ours[0].header.stamp.sec + 1e-9 * ours[0].header.stamp.nanosec)
    return {'rate': len(times) / (end - start), 'gap_p99': 1000 * np.percentile(gaps, 99),
            'fps': (len(infos) - first_info) / (end - start),
            'pace': (sim1 - sim0) / wall if wall > 0 else float('nan'),
            'skipped': skip1 - skip0, 'exit': code}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--duration', type=float, default=5.0)
    parser.add_argument('--publish-rate', type=float, default=100.0)
    args = parser.parse_args(argv)
    domain = isolate_ros_domain()
    results = {name: [] for name in SETUPS}
    with tempfile.TemporaryDirectory() as log_dir, VirtualDisplay(log_dir) as display, \
            RosProbe(domain, 'render_bench') as probe:
        probe.domain = domain
        for round_ in range(args.rounds):
            order = list(SETUPS)[round_ % len(SETUPS):] + list(SETUPS)[:round_ % len(SETUPS)]
            for setup in order:
                figures = measure(probe, setup, args, log_dir, display)
                results[setup].append(figures)
                print(f'round {round_ + 1} {setup:>6}: ' + ', '.join(
                    f'{k} {v:.3f}' if isinstance(v, float) else f'{k} {v}'
                    for k, v in figures.items()), flush=True)
    floor = {key: statistics.median(r[key] for r in results['plain'])
             for key in ('rate', 'gap_p99', 'pace')}
    print(f'\npublish_rate {args.publish_rate:g} Hz, {args.rounds} rounds of '
          f'{args.duration:g} s; medians over rounds\n')
    print('| set-up | joint_states rate | ratio | gap p99 | ratio | pictures/s | physics pace '
          '| ratio | time skipped |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    failed = False
    for setup, rounds in results.items():
        median = {key: statistics.median(r[key] for r in rounds)
                  for key in ('rate', 'gap_p99', 'fps', 'pace', 'skipped')}
        rate_ratio, pace_ratio = median['rate'] / floor['rate'], median['pace'] / floor['pace']
        failed |= rate_ratio < 0.9 or pace_ratio < 0.9 or any(r['exit'] for r in rounds)
        print(f"| {setup} | {median['rate']:.1f} Hz | {rate_ratio:.3f} | "
              f"{median['gap_p99']:.1f} ms | {median['gap_p99'] / floor['gap_p99']:.2f} | "
              f"{median['fps']:.1f} | {median['pace']:.3f} | {pace_ratio:.3f} | "
              f"{median['skipped']:.3f} s |")
    print('\ngoal (rate and pace ratios >= 0.90, clean exits): '
          + ('NOT met' if failed else 'met'))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
