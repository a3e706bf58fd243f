#!/usr/bin/env python3
"""Draw the planned motion the IK node streams: one limited move, then a replan mid-way.

ROS-free: the node's own command stream (:class:`two_bone_ik.motion.command_stream.
CommandStream`, Ruckig underneath) at 100 Hz with velocity, acceleration and jerk limits; the
first goal is replaced by a second one halfway through the first motion, as a new target
arriving mid-motion would. Writes ``docs/motion.png`` (or ``--output``): joint positions and
velocities over plan time, the limits dashed, the moment of the new target marked.

Run it with ``python demo/motion_plot.py [--output motion.png]``.
"""

import argparse
import math
from pathlib import Path
import sys

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from two_bone_ik.motion.command_stream import CommandStream  # noqa: E402
from two_bone_ik.motion.limits import MotionLimits  # noqa: E402

RATE = 100.0
LIMITS = MotionLimits(velocity=(1.2, 1.6), acceleration=(3.0, 4.0), jerk=(20.0, 30.0))
START = (0.0, 0.0)
FIRST, SECOND = (1.4, -1.8), (-0.6, -0.9)
SWITCH_AFTER = 0.8  # s of plan time, mid-way through the first motion


def stream_samples():
    """Return (times, positions, velocities, switch time) of the streamed motion."""
    stream = CommandStream(LIMITS, ((-math.pi, math.pi), (-math.pi, math.pi)), RATE, START)
    stream.goal(FIRST)
    times, positions, velocities = [], [], []
    switched = None
    while True:
        if switched is None and len(times) >= round(SWITCH_AFTER * RATE):
            stream.goal(SECOND)
            switched = times[-1]
        sample, _ = stream.tick()
        if sample is None:
            return times, positions, velocities, switched
        times.append(sample.time)
        positions.append(sample.position)
        velocities.append(sample.velocity)


def draw(path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    times, positions, velocities, switched = stream_samples()
    fig, (ax_q, ax_v) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
    colors = ('tab:blue', 'tab:orange')
    for joint, name in enumerate(('shoulder', 'elbow')):
        ax_q.plot(times, [p[joint] for p in positions], color=colors[joint], label=name)
        ax_v.plot(times, [v[joint] for v in velocities], color=colors[joint], label=name)
        for sign in (-1, 1):
            ax_v.axhline(sign * LIMITS.velocity[joint], color=colors[joint], ls='--', lw=0.8)
        for goal, style in ((FIRST, ':'), (SECOND, '-.')):
            ax_q.axhline(goal[joint], color=colors[joint], ls=style, lw=0.8)
    for ax in (ax_q, ax_v):
        ax.axvline(switched, color='grey', lw=1.0)
        ax.grid(alpha=0.3)
    ax_q.annotate('new target', (switched, ax_q.get_ylim()[1]), textcoords='offset points',
                  xytext=(4, -12), fontsize=8, color='grey')
    ax_q.set_ylabel('joint position [rad]')
    ax_v.set_ylabel('joint velocity [rad/s]')
    ax_v.set_xlabel('plan time [s] (one sample per 1/command_rate = 10 ms)')
    ax_q.set_title('Streamed motion: limited move toward the first goal (dotted), replanned '
                   'mid-way to the second (dash-dot)', fontsize=9)
    ax_q.legend(loc='upper right', fontsize=8)
    ax_v.text(0.01, 0.04, f'limits: velocity {LIMITS.velocity} rad/s (dashed), acceleration '
              f'{LIMITS.acceleration} rad/s^2, jerk {LIMITS.jerk} rad/s^3',
              transform=ax_v.transAxes, fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--output', type=Path, default=REPO / 'docs' / 'motion.png')
    args = parser.parse_args(argv)
    draw(args.output)
    print(f'picture: {args.output}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
