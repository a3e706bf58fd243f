#!/usr/bin/env python3
"""The picture of docs/workspace.md: an arm on its table, a joint motion and a straight line.

A planar arm (0.30 + 0.25 m, standing in the x, z plane, its shoulder 0.1 m above the table) with
motion limits, driven by the IK node's logic (:class:`two_bone_ik.session.ArmSession`) on a
simulated clock, no ROS: from a pose forward and low to a target near its base,

- ``motion_path: joint``, the tool point sweeps an arc down through the table: the motion is
  refused before it starts (``MOTION_FAILED`` says where; drawn from the same session without
  the table, to show the arc);
- ``motion_path: linear``, it moves on the straight line, every streamed sample an exact pose:
  the arm drawn every few samples with its links' capsules;

and, on the right, the joints' velocities along the line beside their limits. Writes
``docs/workspace.png`` (``--output`` for elsewhere). Prints ``demo OK`` when the joint motion
was refused and the line followed to 1e-9 m.
"""

import argparse
import math
from pathlib import Path
import sys

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from two_bone_ik.session import ArmSession  # noqa: E402

DEFAULT_OUTPUT = REPO / 'docs' / 'workspace.png'
ARM = {'link_lengths': [0.30, 0.25], 'plane': 'xz', 'joint_names': ['shoulder', 'elbow'],
       'shoulder_position': [0.0, 0.0, 0.1], 'joint_lower_limits': [-3.0, -3.0],
       'joint_upper_limits': [3.0, 3.0], 'initial_positions': [0.5, -1.0],
       'max_joint_velocity': [1.0, 1.5], 'max_joint_acceleration': [4.0, 5.0],
       'max_joint_jerk': [40.0, 50.0]}
TABLE = {'floor_height': 0.0, 'link_radius': [0.0, 0.025, 0.02]}
START, GOAL = (0.5, 0.0, 0.1), (0.1, 0.0, 0.07)
PERIOD = 0.01


def _run(session, clock):
    """Tick the session until the motion ends; return the streamed readings."""
    readings = []
    while session.moving:
        tick = session.tick()
        clock[0] += PERIOD
        if tick.command is not None:
            readings.append(tick.command.position)
    return np.array(readings)


def _session(values):
    clock = [0.0]
    session = ArmSession(values, set(values), clock=lambda: clock[0])
    session.target('', *START)
    _run(session, clock)
    return session, clock


def motions():
    """Return the refused joint motion's answer and arc, and the line's readings."""
    session, clock = _session({**ARM, **TABLE})
    refused = session.target('', *GOAL)
    free, free_clock = _session(dict(ARM))  # the same arm without its table: the arc
    free.target('', *GOAL)
    arc = _run(free, free_clock)
    session.apply({'motion_path': 'linear'})
    line = session.target('', *GOAL)
    return session, refused, arc, line, _run(session, clock)


def draw(path, session, refused, arc, line):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    geometry = session.solver.geometry
    links = session._workspace.links
    fig, (side, speeds) = plt.subplots(1, 2, figsize=(12, 5),
                                       gridspec_kw={'width_ratios': [1.3, 1]})
    side.add_patch(Rectangle((-0.15, -0.04), 0.8, 0.04, color='tan', alpha=0.7,
                             label='the table (floor_height 0)'))
    tips = np.array([geometry.tip_position(q) for q in arc])
    side.plot(tips[:, 0], tips[:, 2], '--', color='tab:red', lw=1.5,
              label='motion_path: joint (refused: MOTION_FAILED)')
    below = tips[:, 2] < links.radii[1]
    side.plot(tips[below, 0], tips[below, 2], '-', color='tab:red', lw=3)
    tips = np.array([geometry.tip_position(q) for q in line])
    side.plot(tips[:, 0], tips[:, 2], color='tab:green', lw=2,
              label='motion_path: linear (the streamed samples)')
    for index in np.linspace(0, len(line) - 1, 7).astype(int):
        points = np.array(links.points(line[index]))
        for (a, b), radius in zip(zip(points[:-1], points[1:]), links.radii):
            side.plot([a[0], b[0]], [a[2], b[2]], color='tab:blue', alpha=0.25,
                      lw=radius * 2 * 410, solid_capstyle='round')
        side.plot(points[:, 0], points[:, 2], '-o', color='tab:blue', lw=1, ms=3)
    side.plot(*np.array([START, GOAL])[:, [0, 2]].T, 'kx', ms=9, mew=2)
    side.set_aspect('equal')
    side.set_xlim(-0.15, 0.65)
    side.set_ylim(-0.05, 0.5)
    side.set_xlabel('x [m]')
    side.set_ylabel('z [m]')
    side.grid(alpha=0.3)
    side.legend(loc='center right', fontsize=8)
    side.set_title('a planar arm on its table: the links as capsules (link_radius)', fontsize=10)
    where = refused.detail.split(': ', 1)[-1]
    side.text(-0.14, 0.46, 'joint: ' + where[:70] + '\n' + where[70:140], fontsize=6.5,
              va='top')
    time = np.arange(1, len(line) + 1) * PERIOD
    velocity = np.gradient(line, PERIOD, axis=0)
    for joint, (name, limit, color) in enumerate(zip(
            ('shoulder', 'elbow'), ARM['max_joint_velocity'], ('tab:purple', 'tab:orange'))):
        speeds.plot(time, velocity[:, joint], color=color, label=f'{name} (rad/s)')
        speeds.axhline(limit, color=color, ls=':', lw=1)
        speeds.axhline(-limit, color=color, ls=':', lw=1)
    speeds.set_xlabel('time [s]')
    speeds.set_title('the line, timed by Ruckig on its path parameter:\njoint velocities, '
                     'their limits dotted', fontsize=9)
    speeds.grid(alpha=0.3)
    speeds.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=85)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--output', type=Path, default=DEFAULT_OUTPUT,
                        help='picture to write (default: docs/workspace.png)')
    args = parser.parse_args(argv)
    session, refused, arc, line, readings = motions()
    geometry = session.solver.geometry
    tips = np.array([geometry.tip_position(q) for q in readings])
    start = np.array(geometry.tip_position(readings[0]))
    direction = np.subtract(GOAL, START) / math.dist(GOAL, START)
    off = np.abs((tips - start) - ((tips - start) @ direction)[:, None] * direction).max()
    print(f'joint: {refused.result.status.name}: {refused.detail}')
    print(f'linear: {line.result.status.name}, {len(readings)} samples, '
          f'{len(readings) * PERIOD:.2f} s, largest distance from the line {off:.2e} m')
    draw(args.output, session, refused, arc, readings)
    print(f'picture: {args.output}')
    ok = refused.result.status.name == 'MOTION_FAILED' and off <= 1e-9
    print('demo OK' if ok else 'demo FAILED')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
