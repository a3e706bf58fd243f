#!/usr/bin/env python3
"""Draw docs/desktop_arms.md's figure: a desktop arm's conventions, from the side and from above.

The arm is ``demo/desktop_arm.urdf`` (yaw + pair + pitch + roll), solved by the package's
desktop solver for a target on a table. Left, the arm's plane as the yaw turned it (u forward,
v up along the yaw axis): the shoulder off the yaw axis, the two links, the wrist pitch axis,
the tool point, the approach pitch (from forward toward up; here pointing down), the other
elbow branch dashed, and the reach circle l1 + l2 + l3 about the shoulder. Right, from above:
the yaw axis, the target, the arm's plane offset from the axis (the tool point 6 mm off the roll
axis and across the plane at roll 0), the yaw the solver takes (the target on the side where
the tool point is at zero readings) and the other one whose plane also holds the target
(the arm would reach back over the axis). Writes ``docs/desktop_arms.png`` (or ``--output``).
"""

import argparse
import math
from pathlib import Path
import sys

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from two_bone_ik.arm.desktop_geometry import arm_from_description  # noqa: E402
from two_bone_ik.solver.desktop import DesktopSolver  # noqa: E402

TARGET = (0.16, 0.12, 0.02)
APPROACH = -math.pi / 2
ROLL = 0.0


def _plane_xy(model, yaw, point):
    """Plane coordinates (u, v) of a base-frame point with the arm at ``yaw``."""
    d = [p - o for p, o in zip(point, model.origin)]
    c, s = math.cos(yaw), math.sin(yaw)
    forward = [c * f - s * n for f, n in zip(model.forward, model.normal)]
    return (sum(a * b for a, b in zip(d, forward)), sum(a * b for a, b in zip(d, model.up)))


def _side(ax, geometry, solution):
    from matplotlib.patches import Arc
    model = geometry.model
    yaw = model.directions[0] * solution.readings[0]
    points = [_plane_xy(model, yaw, p) for p in geometry.arm_points(solution.readings)]
    base, shoulder, elbow, wrist, tool = points
    l1, l2 = model.link_lengths
    reach = l1 + l2 + model.tool_at(ROLL).length
    circle = [(shoulder[0] + reach * math.cos(t), shoulder[1] + reach * math.sin(t))
              for t in (2 * math.pi * i / 200 for i in range(201))]
    ax.plot(*zip(*circle), color='0.75', lw=1, label='reach l1 + l2 + l3 about the shoulder')
    target = _plane_xy(model, yaw, TARGET)
    ax.axhline(target[1] - 0.01, color='tan', lw=4, alpha=0.5)
    ax.plot([0, 0], [-0.03, 0.32], color='0.4', lw=1, ls=':')
    ax.text(0.004, 0.31, 'yaw axis (+v = up)', fontsize=8, color='0.3')
    # The other elbow branch to the same wrist point: the elbow mirrored across shoulder-wrist.
    across = math.atan2(wrist[1] - shoulder[1], wrist[0] - shoulder[0])
    other = 2 * across - math.atan2(elbow[1] - shoulder[1], elbow[0] - shoulder[0])
    mirror = (shoulder[0] + l1 * math.cos(other), shoulder[1] + l1 * math.sin(other))
    ax.plot(*zip(shoulder, mirror, wrist), '--', color='tab:blue', lw=1, alpha=0.6,
            label=f"the other elbow branch ('{'down' if solution.elbow == 'up' else 'up'}')")
    ax.plot(*zip(base, shoulder, elbow, wrist, tool), '-o', color='tab:blue', lw=3, ms=5,
            label=f"the arm, elbow '{solution.elbow}' (+v side of shoulder -> wrist)")
    for point, name, offset in ((shoulder, 'shoulder', (-0.07, 0.01)),
                                (elbow, 'elbow', (0.01, 0.01)),
                                (wrist, 'wrist pitch axis', (-0.02, 0.02)),
                                (tool, 'tool point', (0.012, -0.012))):
        ax.annotate(name, point, xytext=(point[0] + offset[0], point[1] + offset[1]),
                    fontsize=8)
    # The approach pitch: from forward (+u) toward up, at the wrist pitch axis.
    ax.annotate('', (wrist[0] + 0.06, wrist[1]), wrist,
                arrowprops={'arrowstyle': '->', 'color': 'tab:green'})
    ax.text(wrist[0] + 0.062, wrist[1] + 0.006, '+u', color='tab:green', fontsize=8)
    ax.add_patch(Arc(wrist, 0.07, 0.07, theta1=math.degrees(solution.approach_pitch),
                     theta2=0.0, color='tab:red'))
    ax.text(wrist[0] + 0.045, wrist[1] - 0.06,
            f'approach pitch\n{solution.approach_pitch:+.2f} rad', color='tab:red', fontsize=8)
    ax.plot(*target, 'x', color='tab:red', ms=10, mew=2)
    ax.set_title("the arm's plane, turned by the yaw (the table in tan)", fontsize=10)
    ax.set_xlabel('u, m (forward)')
    ax.set_ylabel('v, m (up)')
    ax.set_aspect('equal')
    ax.legend(loc='lower left', fontsize=7)


def _top(ax, geometry, solution):
    model = geometry.model
    lateral = model.tool_at(ROLL).lateral
    ox, oy = model.origin[0], model.origin[1]
    ax.plot(ox, oy, 'k+', ms=12, mew=2)
    ax.text(ox + 0.005, oy - 0.02, 'yaw axis', fontsize=8)
    hole = [(ox + abs(lateral) * math.cos(t), oy + abs(lateral) * math.sin(t))
            for t in (2 * math.pi * i / 100 for i in range(101))]
    ax.plot(*zip(*hole), color='0.6', lw=1,
            label=f'no plane reaches inside |offset| = {abs(lateral) * 1000:.0f} mm')
    # Both yaws whose plane holds the target: the target at +u (taken) or at -u (not). Each
    # drawn as its plane's trace and an arrow along its forward axis from the yaw axis.
    d = [t - o for t, o in zip(TARGET, model.origin)]
    hu = sum(a * b for a, b in zip(d, model.forward))
    hn = sum(a * b for a, b in zip(d, model.normal))
    rho, theta = math.hypot(hu, hn), math.atan2(hn, hu)
    taken = model.directions[0] * solution.readings[0]
    other = math.pi - math.asin(lateral / rho) - theta
    for yaw, style, label in ((taken, '-', 'the yaw taken: the target where the tool is at 0'),
                              (other, '--', 'the other yaw: the arm would reach back over '
                                            'the axis')):
        ends = [model.to_world(yaw, u, 0.0, lateral) for u in (-0.25, 0.25)]
        ax.plot(*zip(*[end[:2] for end in ends]), style, color='tab:blue', lw=1, label=label)
        tip = model.to_world(yaw, 0.12, 0.0, lateral)
        foot = model.to_world(yaw, 0.0, 0.0, lateral)
        ax.annotate('', tip[:2], foot[:2], arrowprops={
            'arrowstyle': '->', 'color': 'tab:blue', 'lw': 2.5 if style == '-' else 1,
            'linestyle': 'solid' if style == '-' else 'dashed'})
    ax.text(ox - 0.19, oy + 0.25, f'the plane is {abs(lateral) * 1000:.0f} mm off the yaw axis:\n'
            'the tool point 6 mm off the roll axis,\nacross the plane at roll 0', fontsize=8)
    tool = geometry.arm_points(solution.readings)[4]
    ax.plot(tool[0], tool[1], 'o', color='tab:orange', ms=6, label='tool point (on the target)')
    ax.plot(TARGET[0], TARGET[1], 'x', color='tab:red', ms=10, mew=2, label='target')
    ax.set_title(f'from above: the plane {abs(lateral) * 1000:.0f} mm off the yaw axis '
                 f'(roll {ROLL:.2f} rad)', fontsize=10)
    ax.set_xlabel('x, m')
    ax.set_ylabel('y, m')
    ax.set_aspect('equal')
    ax.set_xlim(-0.2, 0.3)
    ax.set_ylim(-0.2, 0.3)
    ax.legend(loc='lower right', fontsize=7)


def draw(path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    geometry = arm_from_description((REPO / 'demo' / 'desktop_arm.urdf').read_text(),
                                    'base_link', 'tool')
    solver = DesktopSolver(geometry.model)
    previous = (0.0, 0.0, 0.0, 0.0, ROLL)
    solution = solver.solve(*TARGET, previous=previous, approach_pitch=APPROACH)
    assert solution.reachable, solution
    fig, (side, top) = plt.subplots(1, 2, figsize=(12, 5.6))
    _side(side, geometry, solution)
    _top(top, geometry, solution)
    fig.suptitle('A desktop arm (demo/desktop_arm.urdf): yaw, the two-bone pair, wrist pitch '
                 f'and roll, target {TARGET} m, approach pitch asked {APPROACH:.2f} rad',
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f'wrote {path}: readings {", ".join(f"{r:.3f}" for r in solution.readings)} rad, '
          f'{solution.status.name}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output', default=str(REPO / 'docs' / 'desktop_arms.png'))
    draw(parser.parse_args().output)


if __name__ == '__main__':
    main()
