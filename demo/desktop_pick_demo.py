#!/usr/bin/env python3
"""A desktop arm picking points on a table: the IK node drives the MuJoCo-simulated arm.

Starts, as subprocesses on this machine only, in a ROS domain of its own:

- the IK node with ``robot_description`` = ``demo/desktop_arm.urdf`` (a base yaw, the
  shoulder-elbow pair, a wrist pitch and a wrist roll, the tool point 6 mm off the roll axis, a
  gripper jaw off the chain), ``approach_pitch`` -pi/2 (the tool pointing straight down where
  it can), planning every motion of the five joints within the URDF's velocity limits and
  acceleration and jerk limits and streaming it at 100 Hz to
  ``forward_position_controller/commands`` (std_msgs/Float64MultiArray, five values), as to a
  ros2_control position controller; its ``joint_commands`` are remapped to
  ``streamed_commands`` (recorded for the picture), so only the controller topic drives the arm;
- the MuJoCo sim of the same URDF standing in for that controller.

The table top is z = 0 of ``base_link`` (the arm's foot stands on it), and a box stands on it
(:data:`BOX`); both nodes know them (``floor_height``, ``keep_out_boxes``, ``link_radius``:
the IK node plans no pose or motion through them, the sim builds them and counts the arm's
contacts). The targets are grasp points :data:`GRASP` above the table or the box's top. For
each, the arm goes to a point :data:`HOVER` above it (a motion in joint space, checked clear of
the table and the box), comes down to it on the straight line and lifts back up on it
(``motion_path: linear``, set through the parameter service); each move waits for the planned
motion to end and the measured tool point (``tip_pose``) to settle on what was commanded. Then
it prints a row per target (the target, the IK node's status, the commanded approach pitch,
the measured tool point's error at the touch), the largest distance of the measured tool
point from the straight lines (goal :data:`LINE_TOLERANCE`) and the sim's count of the arm's
contacts with the table and the box (goal 0), and draws ``demo_desktop.png``: the arm's path
over the table from the side and from above (the arm drawn at each touch from the sim's
measured joint states through the URDF's own kinematics), and the tool point's height over
time. No display needed.

Exits 0 when both nodes ran and stopped cleanly, every target was touched within
:data:`TOUCH_TOLERANCE`, every straight line followed within :data:`LINE_TOLERANCE` and the
arm never touched the table or the box, 1 otherwise. Run it with ``make demo`` or
``python demo/desktop_pick_demo.py [--output demo_desktop.png]``.
"""

import argparse
import math
from pathlib import Path
import sys
import tempfile
import time
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
# This checkout, the process harness, and the demos' own modules (sim_pictures).
sys.path[:0] = [str(REPO), str(REPO / 'test'), str(REPO / 'demo')]

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus  # noqa: E402
from geometry_msgs.msg import PoseStamped  # noqa: E402
import numpy as np  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from ros_harness import drive_nodes, ik_and_sim, isolate_ros_domain  # noqa: E402,I100
from ros_harness import RosProbe, write_params  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from two_bone_ik.arm.urdf_import import chain_from_urdf  # noqa: E402

URDF = REPO / 'demo' / 'desktop_arm.urdf'
DEFAULT_OUTPUT = REPO / 'demo_desktop.png'
NAMESPACE = '/desktop_arm'
CONTROLLER = 'forward_position_controller'
BASE, TIP = 'base_link', 'tool'
#: The approach pitch asked: the tool pointing straight down (rad).
APPROACH_PITCH = -math.pi / 2
#: Motion limits of the five joints (the velocities are the URDF's).
ACCELERATION, JERK = [8.0] * 5, [80.0] * 5
#: Height above each target the arm comes down from and lifts back to, m.
HOVER = 0.05
#: The box on the table to pick from, m in base_link: min x, y, z, max x, y, z.
BOX = (0.17, -0.03, 0.0, 0.25, 0.03, 0.04)
#: Each link's radius, m, base first (the base's never counts): the turntable, the upper arm,
#: the forearm, the wrist and the hand to the tool point between the jaws.
LINK_RADIUS = [0.0, 0.02, 0.02, 0.015, 0.015, 0.008]
#: How high above the table (or the box's top) a grasp point is, m.
GRASP = 0.015
#: The grasp points, m: a row across in front of the arm on the table, one on the box, one
#: behind the arm that the yaw (limited to +-2.8 rad) cannot face, so the arm reaches back over
#: its yaw axis (``ik_status`` ``yaw_branch`` ``back``), and one at the far edge of the table
#: that the tool reaches only tilted from the vertical.
TARGETS = ((0.20, -0.12, GRASP), (0.22, -0.08, GRASP), (0.21, 0.0, BOX[5] + GRASP),
           (0.22, 0.08, GRASP), (0.20, 0.12, GRASP), (-0.28, 0.0, GRASP),
           (0.31, 0.06, GRASP))
#: Frames per second of the rendered animation (fewer than the planar demo's: a longer run,
#: kept under 2 MB).
FPS = 7
#: Most the measured tool point may stray from a straight line it follows, m.
LINE_TOLERANCE = 1e-3
#: The table top drawn, m: x from, x to, y from, y to.
TABLE = (-0.32, 0.36, -0.18, 0.18)
#: The measured tool point counts as settled on its command within this (m) ...
SETTLE_TOLERANCE = 5e-4
#: ... for this many consecutive tip_pose messages (50 Hz).
SETTLED_SAMPLES = 5
#: A touch measured further than this from its target (m) fails the demo.
TOUCH_TOLERANCE = 1e-3
#: Seconds to wait for the graph, an answer, a motion or settling; a bound, never a sleep.
TIMEOUT = 30.0


class Move(NamedTuple):
    """One target sent and what came of it.

    Attributes
    ----------
    goal : tuple of 3 float
        The target, m in base_link.
    status : dict
        The IK node's ``ik_status`` values for it (``status``, ``approach_pitch``, ...).
    command : tuple of float
        The command the arm came to rest on (the planned motion's last), rad.
    tool : tuple of 3 float
        The measured tool point once settled, m.
    readings : tuple of float
        The measured joint readings then (the sim's ``joint_states``), rad.
    """

    goal: Tuple[float, float, float]
    status: Dict[str, str]
    command: Tuple[float, ...]
    tool: Tuple[float, float, float]
    readings: Tuple[float, ...]
    path: Tuple[Tuple[float, float, float], ...] = ()

    def deviation(self, start) -> float:
        """Return the measured path's largest distance from the segment start-goal, m."""
        a, b = np.asarray(start), np.asarray(self.goal)
        points = np.asarray(self.path).reshape(-1, 3)
        t = np.clip((points - a) @ (b - a) / max((b - a) @ (b - a), 1e-30), 0.0, 1.0)
        return float(np.linalg.norm(points - (a + t[:, None] * (b - a)), axis=1).max(
            initial=0.0))

    @property
    def error(self) -> float:
        """Metres between the measured tool point and the goal."""
        return math.dist(self.tool, self.goal)


class Pick(NamedTuple):
    """A target on the table: hovered over, touched, lifted from."""

    target: Tuple[float, float, float]
    hover: Move
    touch: Move
    lift: Move

    @property
    def deviation(self) -> float:
        """How far (m) the measured tool point strayed from the straight lines down and up."""
        return max(self.touch.deviation(self.hover.goal), self.lift.deviation(self.target))


class DemoResult(NamedTuple):
    """What the demo did: the picks, the recorded streams, and what went wrong.

    ``contacts`` is the sim's count of the arm's contacts with the table and the box (None
    when it did not report).
    """

    picks: List[Pick]
    tips: List[Tuple[float, Tuple[float, float, float]]]  # (time, tool point)
    failures: List[str]
    contacts: Optional[int] = None
    #: For the rendered pictures: ``{'states': [(time, joints)], 'targets': [(time, goal)]}``.
    recording: Optional[dict] = None

    @property
    def deviation(self) -> float:
        """The largest distance (m) of the measured tool point from a straight line."""
        return max((pick.deviation for pick in self.picks), default=math.nan)


def _values(status) -> Dict[str, str]:
    return {kv.key: kv.value for kv in status.values}


def _at_rest(msg) -> bool:
    """Whether a streamed command is a planned motion's last (velocities given, all zero)."""
    return len(msg.velocity) == len(msg.position) > 0 and not any(msg.velocity)


def _point(msg) -> Tuple[float, float, float]:
    p = msg.pose.position
    return (p.x, p.y, p.z)


class PickDriver:
    """The demo's endpoints in the IK node's namespace, and one move at a time."""

    def __init__(self, probe: RosProbe, chain, processes):
        self.probe, self.chain, self.processes = probe, chain, processes
        deep = QoSProfile(depth=5000, reliability=ReliabilityPolicy.RELIABLE)
        ns = NAMESPACE
        self.target = probe.publisher(PoseStamped, f'{ns}/target_pose', deep)
        self.streamed = probe.collect(JointState, f'{ns}/streamed_commands', deep)
        self.states = probe.collect(JointState, f'{ns}/joint_states', deep)
        self.tips = probe.collect(PoseStamped, f'{ns}/tip_pose', deep)
        self.statuses = probe.collect(DiagnosticStatus, f'{ns}/ik_status', deep)
        self.diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
        self.sent = probe.collect(PoseStamped, f'{ns}/target_pose', deep)  # for the pictures
        probe.wait_for_subscribers(self.target, timeout=TIMEOUT)
        for collector in (self.streamed, self.states, self.tips, self.statuses,
                          self.diagnostics):
            probe.wait_for_publishers(collector, timeout=TIMEOUT)
        self.path = 'joint'

    def motion_path(self, kind: str) -> None:
        """Set the IK node's ``motion_path`` (``joint`` or ``linear``) for the next moves."""
        if kind != self.path:
            result, = self.probe.set_parameters(f'{NAMESPACE}/two_bone_ik',
                                                {'motion_path': kind}, timeout=TIMEOUT)
            if not result.successful:
                raise RuntimeError(f'motion_path: {result.reason}')
            self.path = kind

    def table_contacts(self) -> Optional[int]:
        """Return the sim's count of the arm's contacts with the table and the box."""
        start = len(self.diagnostics)
        array = self.diagnostics.wait_for(lambda a: any(
            s.name.endswith(': simulation') for s in a.status), start=start, timeout=TIMEOUT)
        status = next(s for s in array.status if s.name.endswith(': simulation'))
        value = _values(status).get('table_contacts')
        return None if value is None else int(value)

    def _msg(self, goal):
        msg = PoseStamped()
        msg.header.frame_id = BASE
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = goal
        msg.pose.orientation.w = 1.0
        return msg

    def _wait(self, predicate, what):
        return self.probe.spin_until(predicate, TIMEOUT, what)

    def connect(self, goal) -> Move:
        """Send the first goal until the IK node answers it (its outputs have matched us)."""
        start = len(self.statuses)
        self.probe.publish_until(self.target, self._msg(goal), lambda: len(self.statuses) > start,
                                 TIMEOUT, 'the IK node to answer')
        return self._finish(goal, start, 0, len(self.tips))

    def move(self, goal) -> Move:
        """Send ``goal``; wait for its answer, the end of its motion and the tool settled."""
        start, streamed, tips = len(self.statuses), len(self.streamed), len(self.tips)
        self.target.publish(self._msg(goal))
        self._wait(lambda: len(self.statuses) > start, f'the answer to {goal}')
        return self._finish(goal, start, streamed, tips)

    def _finish(self, goal, status_index, streamed_index, tips_index) -> Move:
        """Wait for the motion's end and the tool settled; ``path``: the tips from the send."""
        status = _values(self.statuses.messages[status_index])
        moving = status.get('moving') == 'true'
        last = self.streamed.wait_for(lambda m: not moving or _at_rest(m), start=streamed_index,
                                      timeout=TIMEOUT)
        command = tuple(last.position)
        commanded = self.chain.forward(command).position
        first = len(self.tips)

        def settled():
            run = 0
            for msg in self.tips.messages[first:]:
                run = run + 1 if math.dist(_point(msg), commanded) < SETTLE_TOLERANCE else 0
                if run >= SETTLED_SAMPLES:
                    return msg
            return None
        tip = self._wait(settled, f'the tool point to settle at {goal}')
        state = self.states.wait_for(lambda m: m.header.stamp == tip.header.stamp,
                                     timeout=TIMEOUT)
        joints = len(command)
        settled_at = self.tips.messages.index(tip, first)
        path = tuple(_point(m) for m in self.tips.messages[tips_index:settled_at + 1])
        if status.get('status') not in ('REACHED', 'ELBOW_FLIPPED', 'APPROACH_ADJUSTED'):
            raise RuntimeError(f'{goal}: {status.get("status")}: {status}')
        return Move(tuple(goal), status, command, _point(tip), tuple(state.position[:joints]),
                    path)


def _pick(driver: PickDriver, target) -> Pick:
    x, y, z = target
    above = (x, y, z + HOVER)
    driver.motion_path('joint')  # to above the target: any path clear of the table and box
    hover = driver.move(above)
    driver.motion_path('linear')  # straight down to it and straight back up
    touch = driver.move(target)
    lift = driver.move(above)
    return Pick(tuple(target), hover, touch, lift)


def _pick_all(driver: PickDriver, targets):
    """Pick every target; return the picks and the measured tool path ``(time, point)``."""
    x, y, z = targets[0]
    driver.connect((x, y, z + HOVER))
    first = len(driver.tips)  # the path recorded from above the first target on
    first_state, first_sent = len(driver.states), len(driver.sent)
    t0 = time.monotonic()
    picks = [_pick(driver, target) for target in targets]
    recorded = zip(driver.tips.times[first:], driver.tips.messages[first:])
    return picks, [(t - t0, _point(msg)) for t, msg in recorded], driver.table_contacts(), \
        _recording(driver, first_state, first_sent, t0)


def _recording(driver: PickDriver, first_state: int, first_sent: int, t0: float) -> dict:
    """Return the measured joints and the targets sent since ``t0``, for the pictures."""
    return {'states': [(t - t0, tuple(m.position)) for t, m in zip(
                driver.states.times[first_state:], driver.states.messages[first_state:])],
            'targets': [(t - t0, _point(m)) for t, m in zip(
                driver.sent.times[first_sent:], driver.sent.messages[first_sent:])]}


def run_picks(targets: Sequence[Tuple[float, float, float]], log_dir) -> DemoResult:
    """Start both nodes, pick every target, stop them; return what happened."""
    urdf = URDF.read_text()
    chain = chain_from_urdf(urdf, BASE, TIP)
    domain_id = isolate_ros_domain()
    params = write_params(Path(log_dir) / 'desktop_arm.yaml', {
        'robot_description': urdf, 'base_frame': BASE, 'tip_frame': TIP,
        'approach_pitch': APPROACH_PITCH, 'position_controller': CONTROLLER,
        'max_joint_acceleration': ACCELERATION, 'max_joint_jerk': JERK, 'command_rate': 100.0,
        'floor_height': 0.0, 'keep_out_boxes': list(BOX), 'link_radius': LINK_RADIUS})
    print(f'ROS_DOMAIN_ID={domain_id}, localhost only; starting the IK node and the sim',
          flush=True)
    processes = ik_and_sim(
        params, domain_id, log_dir, NAMESPACE,
        ik_ros_args=['-r', 'joint_commands:=streamed_commands'],
        # Servos stiffer than the sim's default 3 Hz loops, so the tool follows the stream
        # down to the table closely; and little viscous damping: the default 0.01 N m s/rad
        # would slow the roll's loop (its gains scale with the light hand's inertia) to seconds.
        sim_ros_args=['-p', f'position_controller:={CONTROLLER}',
                      '-p', 'natural_frequency:=6.0', '-p', 'joint_damping:=0.0001'])
    recorded, failures = drive_nodes(
        processes, domain_id, lambda probe: _pick_all(PickDriver(probe, chain, processes),
                                                      targets), 'desktop_pick_demo')
    picks, tips, contacts, recording = (recorded if recorded is not None
                                        else ([], [], None, None))
    for pick in picks:
        if pick.touch.error > TOUCH_TOLERANCE:
            failures.append(f'target {pick.target}: touched {pick.touch.error * 1000:.2f} mm '
                            f'away (more than {TOUCH_TOLERANCE * 1000:g} mm)')
        if pick.deviation > LINE_TOLERANCE:
            failures.append(f'target {pick.target}: the tool point strayed '
                            f'{pick.deviation * 1000:.3f} mm from its straight line (more '
                            f'than {LINE_TOLERANCE * 1000:g} mm)')
    if recorded is not None and contacts != 0:
        failures.append(f'the sim counted {contacts} contact(s) of the arm with the table or '
                        'the box')
    return DemoResult(picks, tips, failures, contacts, recording)


def _print_rows(result: DemoResult) -> None:
    print(f"\n{'#':>2}  {'target x, y, z [m]':<22} {'status':<17} {'yaw':<7} {'pitch [rad]':>11}  "
          f"{'touch error [mm]':>16}  {'hover error [mm]':>16}  {'off line [mm]':>13}")
    print('-' * 115)
    for number, pick in enumerate(result.picks, start=1):
        x, y, z = pick.target
        status = pick.touch.status
        print(f"{number:>2}  {x:+.3f}, {y:+.3f}, {z:+.3f}    {status.get('status', '?'):<17} "
              f"{status.get('yaw_branch', '?'):<7} "
              f"{float(status.get('approach_pitch', 'nan')):>+11.3f}  "
              f'{pick.touch.error * 1000:>16.3f}  {pick.hover.error * 1000:>16.3f}  '
              f'{pick.deviation * 1000:>13.3f}')
    print(f'\nasked approach pitch {APPROACH_PITCH:+.3f} rad (straight down); each target '
          f'approached on the straight line from {HOVER * 1000:.0f} mm above, touched and left '
          'on it; errors are the measured tool point (MuJoCo) from the target once settled; '
          'yaw: facing the target, or back (reaching back over the yaw axis)')
    print(f'largest distance of the measured tool point from a straight line it followed: '
          f'{result.deviation * 1000:.3f} mm (goal <= {LINE_TOLERANCE * 1000:g} mm)')
    print(f'contacts of the arm with the table or the box in the sim: {result.contacts} '
          '(goal 0)')
    if result.tips:
        lowest = min(p[2] for _, p in result.tips)
        print(f'lowest measured tool point over the whole path: z = {lowest * 1000:+.3f} mm '
              '(the table top is z = 0)')


def _arm_points(chain, readings):
    """Return the base, each moving joint's origin and the tool point at ``readings``, m.

    The URDF's own forward kinematics (its chain ``base_link`` -> ``tool``).
    """
    pose = chain.forward(readings)
    return [(0.0, 0.0, 0.0), *pose.points, pose.position]


def draw(path, result: DemoResult) -> None:
    """Write the picture: side and top views over the table, the tool height over time."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    chain = chain_from_urdf(URDF.read_text(), BASE, TIP)
    fig = plt.figure(figsize=(13, 6.2))
    side = fig.add_axes([0.05, 0.40, 0.44, 0.52])
    top = fig.add_axes([0.55, 0.08, 0.42, 0.84])
    height = fig.add_axes([0.05, 0.08, 0.44, 0.22])
    path_xyz = [p for _, p in result.tips]
    x0, x1, y0, y1 = TABLE
    side.add_patch(Rectangle((x0, -0.02), x1 - x0, 0.02, color='tan', alpha=0.6))
    top.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, color='tan', alpha=0.35,
                            label='table top (z = 0)'))
    bx0, by0, bz0, bx1, by1, bz1 = BOX
    side.add_patch(Rectangle((bx0, bz0), bx1 - bx0, bz1 - bz0, color='tab:brown', alpha=0.5))
    top.add_patch(Rectangle((bx0, by0), bx1 - bx0, by1 - by0, color='tab:brown', alpha=0.5,
                            label='the box (keep-out)'))
    side.plot([p[0] for p in path_xyz], [p[2] for p in path_xyz], color='tab:red', lw=0.8,
              label='measured tool point (MuJoCo)')
    top.plot([p[0] for p in path_xyz], [p[1] for p in path_xyz], color='tab:red', lw=0.8,
             label='measured tool point (MuJoCo)')
    for number, pick in enumerate(result.picks, start=1):
        points = _arm_points(chain, pick.touch.readings)
        label = 'the arm at each touch (measured joints, URDF FK)' if number == 1 else None
        side.plot([p[0] for p in points], [p[2] for p in points], '-o', color='tab:blue',
                  lw=2, ms=3, alpha=0.55, label=label)
        top.plot([p[0] for p in points], [p[1] for p in points], '-o', color='tab:blue',
                 lw=2, ms=3, alpha=0.55, label=label)
        x, y, z = pick.target
        side.plot(x, z, 'x', color='black', ms=8, mew=1.5)
        top.plot(x, y, 'x', color='black', ms=8, mew=1.5, label='target' if number == 1 else None)
        top.annotate(str(number), (x, y), textcoords='offset points', xytext=(5, -11),
                     fontsize=8)
    top.plot(0.0, 0.0, 'k+', ms=12, mew=2, label='yaw axis')
    side.set_title('from the side (x, z of base_link)', fontsize=10)
    side.set_ylabel('z [m]')
    top.set_title('from above (x, y of base_link)', fontsize=10)
    top.set_xlabel('x [m]')
    top.set_ylabel('y [m]')
    for ax, corner in ((side, 'upper right'), (top, 'lower left')):
        ax.set_aspect('equal')
        ax.grid(alpha=0.3)
        ax.legend(loc=corner, fontsize=7)
    side.set_xlim(x0, x1)
    side.set_ylim(-0.03, 0.27)  # room for the legend above the arm
    top.set_xlim(x0, x1)
    top.set_ylim(y0, y1)
    height.plot([t for t, _ in result.tips], [p[2] * 1000 for p in path_xyz], color='tab:red',
                lw=0.8)
    height.axhline(0.0, color='tan', lw=3)
    height.axhline(BOX[5] * 1000, color='tab:brown', lw=1, ls='--')
    height.set_xlabel('time [s]')
    height.set_ylabel('tool z [mm]')
    height.grid(alpha=0.3)
    fig.suptitle('demo/desktop_arm.urdf picking from a table and a box, straight down and up: '
                 f'approach pitch {APPROACH_PITCH:.2f} rad, streamed to {CONTROLLER}',
                 fontsize=10)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def render_pictures(output: Path, result: DemoResult) -> None:
    """Render the run from the sim's camera: an animation and a still beside ``output``."""
    from sim_pictures import render_run, rendered_line
    from two_bone_ik.sim.simulated_arm import urdf_simulated_arm
    from two_bone_ik.sim.workspace_geometry import SimWorkspace
    from two_bone_ik.workspace.obstacles import Box, Obstacles
    arm = urdf_simulated_arm(URDF.read_text(), BASE, TIP)
    # The table and the box as the sim had them (the links' capsules left out of the picture).
    table = SimWorkspace(Obstacles(0.0, (Box(BOX[:3], BOX[3:], 1),)), (0.0,) * 5)
    recording = result.recording or {'states': [], 'targets': []}
    # The picks fill a small part of the arm's reach, which the camera frames: rendered larger,
    # so that the crop around them is a picture of a readable size.
    print(rendered_line(output, render_run(arm, recording['states'], output,
                                           recording['targets'], result.tips, scale=2.0,
                                           fps=FPS, workspace=table)))


def run(output, targets=TARGETS) -> DemoResult:
    """Run the demo: pick ``targets``, print the table, draw ``output``; return the result."""
    with tempfile.TemporaryDirectory() as log_dir:
        result = run_picks(targets, log_dir)
    if result.picks:
        _print_rows(result)
        draw(output, result)
        print(f'\npicture: {output}')
        render_pictures(output, result)
    if result.failures:
        print('demo FAILED:\n  ' + '\n  '.join(result.failures), file=sys.stderr)
    else:
        print('demo OK: both nodes ran and stopped cleanly; every target was touched within '
              f'{TOUCH_TOLERANCE * 1000:g} mm, every straight line followed within '
              f'{LINE_TOLERANCE * 1000:g} mm, no contact with the table or the box.')
    return result


def _parse_args(argv: Optional[Sequence[str]]):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--output', type=Path, default=DEFAULT_OUTPUT,
                        help='picture to write (default: demo_desktop.png)')
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = _parse_args(argv)
    return 1 if run(args.output.resolve()).failures else 0


if __name__ == '__main__':
    sys.exit(main())
