#!/usr/bin/env python3
"""Draw docs/real_arms.md's conventions figure: a raised shoulder, a zero angle, a direction.

The arm is ``demo/demo_arm.urdf``'s, seen along its joint axes: base_link's xz plane (u = x,
v = z), the shoulder raised 0.6 m, both links pointing up (+v) at zero readings (zero angle of
link 1: +90 deg from +u), and joint axes along +y, opposite to u x v = -y (direction -1: a
positive reading turns the link from +v toward +u). The arm is drawn at zero readings (dashed)
and at readings (0.7, -1.2) rad, with q1 (the solver's angle from +u) and the reading.
Writes ``docs/conventions.png`` (or ``--output``).
"""

import argparse
import math
from pathlib import Path
import sys

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from two_bone_ik.arm.urdf_import import arm_from_urdf  # noqa: E402

READINGS = (0.7, -1.2)


def draw(path):
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib.patches import Arc, FancyArrowPatch
    import matplotlib.pyplot as plt

    geometry = arm_from_urdf((REPO / 'demo' / 'demo_arm.urdf').read_text(), 'base_link')
    sx, _, sz = geometry.shoulder_position

    def xz(point):
        return point[0], point[2]

    fig, ax = plt.subplots(figsize=(7.5, 6.5))
    # base_link frame at the origin
    for dx, dz, name in ((0.15, 0.0, 'x'), (0.0, 0.15, 'z')):
        ax.annotate('', (dx, dz), (0.0, 0.0), arrowprops={'arrowstyle': '->', 'color': 'black'})
        ax.text(dx + 0.01, dz + 0.01, name, fontsize=9)
    ax.text(0.01, -0.06, 'base_link (y into the page)', fontsize=8)
    ax.plot([0, 0], [0, sz], color='grey', lw=6, alpha=0.4, solid_capstyle='butt')
    ax.annotate('shoulder_position\n(0, 0.05, 0.6) m', xz(geometry.shoulder_position),
                xytext=(-0.42, 0.42), fontsize=9,
                arrowprops={'arrowstyle': '->', 'color': 'grey'})
    # the arm plane's axes at the shoulder
    for (dx, dz), name in (((0.18, 0.0), '+u'), ((0.0, 0.18), '+v')):
        ax.annotate('', (sx + dx, sz + dz), (sx, sz),
                    arrowprops={'arrowstyle': '->', 'color': 'tab:green', 'lw': 1.5})
        ax.text(sx + dx + 0.01, sz + dz + 0.01, name, color='tab:green', fontsize=10)
    # zero readings: straight up (dashed), and the arm at READINGS
    zero = (0.0, 0.0)
    for readings, style, label in ((zero, '--', 'joints at 0: zero angle of link 1 = +90 deg'),
                                   (READINGS, '-', f'readings {READINGS} rad')):
        points = [xz(geometry.shoulder_position), xz(geometry.elbow_position(readings)),
                  xz(geometry.tip_position(readings))]
        ax.plot(*zip(*points), style, marker='o', color='tab:blue', lw=2.5 if style == '-' else
                1.2, ms=5, label=label)
    # q1: the solver's angle of link 1 from +u; the reading turns it the other way
    q1 = geometry.solver_angles(READINGS)[0]
    ax.add_patch(Arc((sx, sz), 0.24, 0.24, theta1=0.0, theta2=math.degrees(q1),
                     color='tab:purple'))
    ax.text(sx + 0.13 * math.cos(q1 / 2), sz + 0.13 * math.sin(q1 / 2) - 0.02,
            f'q1 = {math.degrees(q1):.0f} deg', color='tab:purple', fontsize=9)
    ax.add_patch(FancyArrowPatch(
        (sx + 0.34 * math.cos(math.pi / 2), sz + 0.34 * math.sin(math.pi / 2)),
        (sx + 0.34 * math.cos(q1), sz + 0.34 * math.sin(q1)),
        connectionstyle=f'arc3,rad={-0.25}', arrowstyle='->', color='tab:red', lw=1.2))
    ax.text(sx + 0.20, sz + 0.36,
            'reading +0.7 rad:\ndirection -1 (axis +y,\nopposite u x v = -y)',
            color='tab:red', fontsize=8)
    ax.set_aspect('equal')
    ax.set_xlim(-0.55, 0.75)
    ax.set_ylim(-0.12, 1.35)
    ax.grid(alpha=0.3)
    ax.set_xlabel('x [m]')
    ax.set_ylabel('z [m]')
    ax.legend(loc='upper left', fontsize=8)
    ax.set_title('demo/demo_arm.urdf, seen along its joint axes: q = zero angle + direction x '
                 'reading', fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--output', type=Path, default=REPO / 'docs' / 'conventions.png')
    args = parser.parse_args(argv)
    draw(args.output)
    print(f'picture: {args.output}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
