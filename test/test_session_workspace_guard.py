"""Tests of two_bone_ik.session.workspace_guard: the node's decisions with a floor and boxes.

Driven through :class:`~two_bone_ik.session.ArmSession` on a simulated clock (the helpers of
test_session_arm_session), without ROS. Every clearance verdict is checked with the
independent oracle of :mod:`workspace_oracle`, never the package's own distances.
"""

import math

import numpy as np
import pytest
from test_session_arm_session import check_motion_limits, drive, FollowingArm, SimClock, stream

from two_bone_ik.arm.desktop_config import arm_config_from_mapping, desktop_geometry
from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.ik.desktop_target_solver import DesktopTargetSolver
from two_bone_ik.ik.status import NodeStatus
from two_bone_ik.session import ArmSession
from two_bone_ik.session.workspace_guard import WorkspaceGuard
from two_bone_ik.workspace.links import ArmLinks
from urdf_arms import DESKTOP_PARAMETERS
from workspace_oracle import oracle_touches, random_boxes

PERIOD = 0.01
VELOCITY, ACCELERATION, JERK = (1.0, 1.5), (4.0, 5.0), (40.0, 50.0)
#: A planar arm standing in the xz plane on a table 0.1 m below its shoulder (at rest bent:
#: a straight line cannot leave a stretched arm, where the elbow would turn infinitely fast).
ARM = {'link_lengths': [0.30, 0.25], 'plane': 'xz', 'joint_names': ['shoulder', 'elbow'],
       'joint_lower_limits': [-3.0, -3.0], 'joint_upper_limits': [3.0, 3.0],
       'initial_positions': [0.5, -1.0]}
TABLE = {'floor_height': -0.1, 'link_radius': [0.02]}
LIMITS = {'max_joint_velocity': list(VELOCITY), 'max_joint_acceleration': list(ACCELERATION),
          'max_joint_jerk': list(JERK), 'command_rate': 100.0}


def new_session(*settings, **values):
    """Return a session of ARM with ``settings`` (dicts) and ``values``, later ones winning."""
    clock = SimClock()
    for setting in reversed(settings):
        values = {**setting, **values}
    values = {**ARM, **values}
    return ArmSession(values, given=set(values), clock=clock), clock


def oracle_clear(session, readings, obstacles=None):
    links = ArmLinks(session.solver.geometry, session._workspace.links.radii)
    obstacles = obstacles or session._workspace.obstacles
    return not oracle_touches(links.points(readings), links.radii, obstacles)


# -- targets --------------------------------------------------------------------------------


def test_without_a_floor_or_a_box_nothing_is_checked():
    session, _ = new_session(link_radius=[0.5], motion_path='joint')
    assert not session._workspace.active and session._workspace.check is None
    answer = session.target('', 0.2, 0.0, -0.4)  # below where a floor would be
    assert answer.result.status is NodeStatus.REACHED and answer.detail == ''
    assert answer.command is not None


@pytest.mark.parametrize('target, where', [
    ((0.3, 0.0, -0.15), 'the target is below the floor'),
    ((0.3, 0.0, 0.1), 'the target is inside a keep-out box')])
def test_a_target_in_the_table_or_a_box_is_collision_and_nothing_is_commanded(target, where):
    session, _ = new_session(TABLE, keep_out_boxes=[0.25, -0.1, 0.05, 0.35, 0.1, 0.15])
    answer = session.target('', *target)
    assert answer.result.status is NodeStatus.COLLISION
    assert not answer.result.reachable and answer.command is None and not answer.wake
    level, text, values = session.status(answer)
    assert level == 2 and text.startswith(f'COLLISION: {where}: ')
    assert "link 2 ('elbow' to the tool point) would touch" in text
    assert text.endswith('; nothing commanded')
    assert dict(values)['code'] == '16'
    assert answer.logs and answer.logs[0].severity == 'warning'


def test_the_other_elbow_is_commanded_when_the_configured_one_touches():
    # Elbow up would put the upper arm through a box above the shoulder; elbow down is clear.
    session, _ = new_session(TABLE, floor_height=-0.5,
                             keep_out_boxes=[0.05, -0.1, 0.12, 0.25, 0.1, 0.3])
    answer = session.target('', 0.45, 0.0, 0.0)
    assert answer.result.status is NodeStatus.ELBOW_FLIPPED
    assert answer.result.elbow == 'down' and answer.result.reachable
    assert answer.command is not None
    assert oracle_clear(session, answer.result.readings)
    assert 'the preferred pose would touch: link 1' in session.status(answer)[1]


def test_no_clear_elbow_is_collision_naming_the_preferred_pose():
    session, _ = new_session(TABLE, floor_height=-0.5, keep_out_boxes=[
        0.05, -0.1, 0.12, 0.25, 0.1, 0.3, 0.05, -0.1, -0.3, 0.25, 0.1, -0.12])
    answer = session.target('', 0.45, 0.0, 0.0)
    assert answer.result.status is NodeStatus.COLLISION and answer.command is None
    assert 'every pose the solver may command would touch: link 1' in answer.detail
    assert answer.result.elbow == 'up'  # the preferred one is named


def test_without_flipping_the_configured_elbow_alone_counts():
    session, _ = new_session(TABLE, floor_height=-0.5, allow_elbow_flip=False,
                             keep_out_boxes=[0.05, -0.1, 0.12, 0.25, 0.1, 0.3])
    assert session.target('', 0.45, 0.0, 0.0).result.status is NodeStatus.COLLISION


def test_a_stretched_pose_toward_a_target_out_of_reach_is_checked_too():
    session, _ = new_session(TABLE, keep_out_boxes=[0.4, -0.1, -0.05, 0.5, 0.1, 0.05])
    answer = session.target('', 0.9, 0.0, 0.0)  # out of reach: the arm stretched along x
    assert answer.result.status is NodeStatus.COLLISION


def test_links_of_radius_0_are_kept_out_of_boxes_too():
    # link_radius 0 (as config/so101.yaml gives the turntable): the link is its segment, which
    # may not go through a box, nor may a target inside one be reached.
    session, _ = new_session(TABLE, floor_height=-0.5, link_radius=[0.0],
                             keep_out_boxes=[0.25, -0.1, 0.05, 0.35, 0.1, 0.15])
    answer = session.target('', 0.3, 0.0, 0.1)
    assert answer.result.status is NodeStatus.COLLISION and answer.command is None
    assert not answer.result.reachable
    assert answer.detail.startswith('the target is inside a keep-out box')
    # Elbow up would put the upper arm (radius 0) through a box: elbow down is commanded.
    session, _ = new_session(TABLE, floor_height=-0.5, link_radius=[0.0, 0.0, 0.02],
                             keep_out_boxes=[0.1, -0.1, 0.0, 0.2, 0.1, 0.3])
    answer = session.target('', 0.45, 0.0, 0.0)
    assert answer.result.status is NodeStatus.ELBOW_FLIPPED and answer.command is not None
    assert answer.result.elbow == 'down'
    assert oracle_clear(session, answer.command.position)


@pytest.mark.parametrize('seed', range(3))
def test_random_targets_and_boxes_command_only_clear_poses(seed):
    rng = np.random.default_rng(seed)
    collisions = commanded = 0
    for _ in range(10):
        boxes = random_boxes(rng, 6, centre=(0.2, 0.0, 0.1), spread=0.3)
        session, _ = new_session(floor_height=float(rng.uniform(-0.4, -0.05)),
                                 keep_out_boxes=boxes, link_radius=[0.0, 0.02, 0.015])
        for _ in range(20):
            target = (rng.uniform(-0.6, 0.6), 0.0, rng.uniform(-0.4, 0.6))
            answer = session.target('', *target)
            status = answer.result.status
            if status is NodeStatus.COLLISION:
                collisions += 1
                continue
            commanded += 1
            assert answer.command is not None
            assert oracle_clear(session, answer.command.position), (target, status)
    assert collisions and commanded


def _desktop_solver():
    config = arm_config_from_mapping(DESKTOP_PARAMETERS)
    return DesktopTargetSolver.from_config(config, desktop_geometry(config))


def _box_around(point, half=0.01):
    return [point[0] - half, point[1] - half, point[2] - half, point[0] + half,
            point[1] + half, point[2] + half]


#: The desktop arm's radii, base first (the turntable starts on the base: no radius).
DESKTOP_RADII = [0.0, 0.0, 0.01, 0.01, 0.01, 0.01]


def test_a_desktop_arm_is_offered_its_next_pose_when_the_preferred_one_touches():
    solver = _desktop_solver()
    guard = WorkspaceGuard({'floor_height': 0.0, 'link_radius': DESKTOP_RADII})
    guard.use_arm(solver)
    target = (0.25, 0.0, 0.05)
    clear = guard.solve(solver, '', target, None)
    assert clear.result.status is NodeStatus.REACHED and clear.detail == ''
    # A box around the preferred pose's wrist: the solver's next pose in its order is taken.
    wrist = ArmLinks(solver.geometry, (0.01,) * 5).points(clear.result.readings)[3]
    guard = WorkspaceGuard({'floor_height': 0.0, 'link_radius': DESKTOP_RADII,
                            'keep_out_boxes': _box_around(wrist)})
    guard.use_arm(solver)
    passed = guard.solve(solver, '', target, None)
    assert passed.result.reachable and passed.result.status is not NodeStatus.COLLISION
    assert passed.result.readings != pytest.approx(clear.result.readings, abs=1e-6)
    assert passed.detail.startswith('the preferred pose would touch: ')
    assert not oracle_touches(guard.links.points(passed.result.readings), guard.links.radii,
                              guard.obstacles)
    tip = solver.geometry.tool_position(passed.result.readings)
    assert math.dist(tip, target) < 1e-9


def test_a_desktop_target_with_no_clear_pose_is_collision_naming_the_preferred_one():
    solver = _desktop_solver()
    # A wall between the arm and the target: every exact pose passes the hand through it.
    wall = [0.2, -0.4, -0.02, 0.22, 0.4, 0.4]
    guard = WorkspaceGuard({'floor_height': -0.5, 'link_radius': DESKTOP_RADII,
                            'keep_out_boxes': wall})
    guard.use_arm(solver)
    refused = guard.solve(solver, '', (0.25, 0.0, 0.05), None)
    assert refused.result.status is NodeStatus.COLLISION and not refused.result.reachable
    assert refused.detail.startswith('every pose the solver may command would touch: ')
    assert 'keep-out box' in refused.detail


@pytest.mark.parametrize('seed', range(2))
def test_random_desktop_targets_and_boxes_command_only_clear_poses(seed):
    rng = np.random.default_rng(seed)
    solver = _desktop_solver()
    clear = refused = 0
    for _ in range(6):
        guard = WorkspaceGuard({'floor_height': float(rng.uniform(-0.05, 0.0)),
                                'link_radius': DESKTOP_RADII,
                                'keep_out_boxes': random_boxes(rng, 4, (0.15, 0.0, 0.1), 0.2)})
        guard.use_arm(solver)
        for _ in range(15):
            target = tuple(rng.uniform((-0.3, -0.3, 0.0), (0.3, 0.3, 0.35)))
            guarded = guard.solve(solver, '', target, None)
            if guarded.result.status is NodeStatus.COLLISION:
                refused += 1
                assert not guarded.result.reachable
                continue
            clear += 1
            assert not oracle_touches(guard.links.points(guarded.result.readings),
                                      guard.links.radii, guard.obstacles), target
    assert clear and refused


def test_link_radius_must_fit_the_arm_and_leave_the_first_joint_off_the_floor():
    with pytest.raises(ConfigError, match=r'link_radius: expected .* base first \(3\)'):
        new_session(link_radius=[0.02, 0.02])
    with pytest.raises(ConfigError, match=r"link_radius: link 1 \('shoulder' to 'elbow'\) "
                                          "starts at the first joint's origin, 0.01 m above"):
        new_session(floor_height=-0.01, link_radius=[0.02])
    session, _ = new_session(**TABLE)
    assert session.check({'link_radius': [0.1, 0.2, 0.3, 0.4]}).startswith('link_radius: ')
    assert session.check({'keep_out_boxes': [0.0] * 5}).startswith('keep_out_boxes: ')
    assert session.check({'motion_path': 'curved'}).startswith('motion_path: ')
    assert session.check({'floor_height': -0.05, 'link_radius': [0.0, 0.02, 0.02]}) is None


def test_a_workspace_set_at_runtime_applies_to_the_next_target_and_the_picture():
    session, _ = new_session()
    assert session.target('', 0.3, 0.0, -0.2).result.status is NodeStatus.REACHED
    changes = {'floor_height': -0.1, 'keep_out_boxes': [0.25, -0.1, 0.0, 0.35, 0.1, 0.1]}
    assert session.check(changes) is None
    assert session.apply(changes).logs[0].text.startswith('workspace: floor_height=-0.1')
    assert session.target('', 0.3, 0.0, -0.2).result.status is NodeStatus.COLLISION
    namespaces = [shape.namespace for shape in session.picture().target_shapes]
    assert namespaces.count('floor') == 1 and namespaces.count('keep_out') == 1
    floor = next(s for s in session.picture().target_shapes if s.namespace == 'floor')
    assert floor.kind == 'cube' and floor.points[0][2] < -0.1 < floor.points[0][2] + 0.01
    session.apply({'floor_height': -math.inf, 'keep_out_boxes': None})
    assert session.target('', 0.3, 0.0, -0.2).result.status is NodeStatus.REACHED


# -- planned motions ------------------------------------------------------------------------


def test_a_joint_motion_through_the_table_is_not_started_and_says_where():
    session, clock = new_session(TABLE, LIMITS)
    session.target('', 0.37, 0.0, 0.06)
    stream(session, clock)
    before = session._motion.stream.last_command
    # From forward to behind, low: the shoulder turns the arm down through the table.
    answer = session.target('', -0.4, 0.0, 0.17)
    assert answer.result.status is NodeStatus.MOTION_FAILED
    assert not answer.result.reachable and answer.command is None and not answer.wake
    assert 'would touch, ' in answer.detail and 'the floor (z = -0.1 m)' in answer.detail
    text = session.status(answer)[1]
    assert text.startswith('MOTION_FAILED: target solved, but no motion to [')
    assert 's into it: link ' in text and text.endswith('nothing new commanded')
    assert not session.moving and session.tick().command is None
    assert session._motion.stream.last_command == before


@pytest.mark.parametrize('seed', range(2))
def test_streamed_samples_of_random_targets_stay_clear(seed):
    rng = np.random.default_rng(20 + seed)
    boxes = random_boxes(rng, 5, centre=(0.2, 0.0, 0.1), spread=0.3)
    session, clock = new_session(floor_height=-0.2, keep_out_boxes=boxes,
                                 link_radius=[0.0, 0.02, 0.015], **LIMITS)
    started = refused = 0
    for _ in range(12):
        answer = session.target('', rng.uniform(-0.5, 0.5), 0.0, rng.uniform(-0.15, 0.5))
        if answer.result.status is NodeStatus.MOTION_FAILED:
            refused += 1
            continue
        if answer.result.status is NodeStatus.COLLISION:
            continue
        started += 1
        cleared = False  # (a motion that starts touching, the boxes drawn on the arm, leaves)
        for sent in stream(session, clock):
            clear = oracle_clear(session, sent.position)
            assert clear or not cleared
            cleared |= clear
    assert started and refused


# -- straight lines --------------------------------------------------------------------------


def _line_session(**values):
    session, clock = new_session(TABLE, LIMITS, motion_path='linear', **values)
    return session, clock


def _off_line(session, positions, start, goal):
    tips = np.array([session.solver.geometry.tip_position(q) for q in positions])
    start, goal = np.asarray(start), np.asarray(goal)
    direction = (goal - start) / np.linalg.norm(goal - start)
    along = (tips - start) @ direction
    off = tips - start - along[:, None] * direction
    return np.abs(off).max(), along


def test_a_linear_motion_keeps_the_tool_point_on_the_line_and_every_limit():
    session, clock = _line_session(trajectory_controller='joint_trajectory_controller')
    session._motion._trajectories = True
    session.target('', 0.35, 0.0, 0.25)
    stream(session, clock)
    start = session.solver.geometry.tip_position(session._motion.stream.last_command)
    answer = session.target('', 0.4, 0.0, -0.05)
    assert answer.result.status is NodeStatus.REACHED and answer.wake
    sent = stream(session, clock)
    positions = [s.position for s in sent]
    worst, along = _off_line(session, positions, start, (0.4, 0.0, -0.05))
    assert worst <= 1e-9
    assert (np.diff(along) >= -1e-12).all() and along[-1] == pytest.approx(along.max())
    np.testing.assert_allclose(sent[-1].position, answer.result.readings, atol=1e-9)
    assert not sent[-1].velocity.any()  # ends at rest
    q = np.array(positions)
    assert (np.abs(np.diff(q, axis=0)) / PERIOD <= np.array(VELOCITY) * (1 + 1e-6)).all()
    assert (np.abs([s.velocity for s in sent]) <= np.array(VELOCITY) * (1 + 1e-6)).all()
    assert (np.abs(np.diff(q, 2, axis=0)) / PERIOD ** 2
            <= np.array(ACCELERATION) * (1 + 1e-6)).all()
    assert (np.abs(np.diff(q, 3, axis=0)) / PERIOD ** 3 <= np.array(JERK) * (1 + 1e-6)).all()
    check_motion_limits(sent, ACCELERATION, JERK)
    assert (q >= -3.0).all() and (q <= 3.0).all()
    # The trajectory controller gets the same line.
    points = answer.trajectory.points
    worst, _ = _off_line(session, [p.position for p in points], start, (0.4, 0.0, -0.05))
    assert worst <= 1e-9 and len(points) == len(sent)


_OPEN = {'joint_lower_limits': [-math.inf] * 2, 'joint_upper_limits': [math.inf] * 2}


@pytest.mark.parametrize('start, target, values, refusal', [
    ((0.35, 0.0, 0.25), (0.0, 0.0, 0.549999), {},
     'passes a singularity at (0.001, 0.000, 0.549) m, 100 % along it'),
    ((0.35, 0.0, 0.25), (-0.3, 0.0, 0.2), {},
     'crosses a joint limit at (-0.116, 0.000, 0.214) m, 72 % along it'),
    ((0.2, 0.0, 0.03), (-0.2, 0.0, 0.03), _OPEN,
     'leaves the workspace at (0.039, 0.000, 0.030) m, 40 % along it (INSIDE_INNER)'),
])
def test_a_line_that_cannot_be_followed_is_refused_and_nothing_moves(
        start, target, values, refusal):
    session, clock = _line_session(floor_height=-0.6, **values)
    assert session.target('', *start).result.status is NodeStatus.REACHED
    stream(session, clock)
    answer = session.target('', *target)
    assert answer.result.status is NodeStatus.MOTION_FAILED, answer.result.status
    assert refusal in answer.detail
    assert not session.moving and session.tick().command is None


def test_a_line_through_a_box_is_refused_where_it_touches():
    session, clock = _line_session(keep_out_boxes=[0.42, -0.1, 0.08, 0.48, 0.1, 0.12])
    session.target('', 0.45, 0.0, 0.25)
    stream(session, clock)
    answer = session.target('', 0.45, 0.0, -0.05)  # straight down through the box
    assert answer.result.status is NodeStatus.MOTION_FAILED
    assert answer.detail.startswith('the straight line would touch, ')
    assert "link 2 ('elbow' to the tool point) would touch keep-out box 1" in answer.detail
    assert not session.moving


def test_stop_brakes_a_line_along_its_line():
    session, clock = _line_session()
    session.target('', 0.35, 0.0, 0.25)
    stream(session, clock)
    start = session.solver.geometry.tip_position(session._motion.stream.last_command)
    session.target('', 0.4, 0.0, -0.05)
    sent = stream(session, clock, until=lambda sent: len(sent) >= 40)
    message = session.stop().message
    assert message.startswith('stopping: at rest at [')
    sent += stream(session, clock)
    worst, along = _off_line(session, [s.position for s in sent], start, (0.4, 0.0, -0.05))
    assert worst <= 1e-9
    assert along[-1] < np.linalg.norm(np.subtract((0.4, 0.0, -0.05), start)) - 0.01
    assert (np.diff(along) >= -1e-12).all()  # braking never turns back along the line
    assert not sent[-1].velocity.any() and not session.moving
    check_motion_limits(sent, ACCELERATION, JERK)


def test_a_line_asked_while_moving_starts_from_where_that_motion_ends():
    session, clock = _line_session()
    session.target('', 0.35, 0.0, 0.25)
    stream(session, clock)
    session.target('', 0.45, 0.0, 0.1)
    first = stream(session, clock, until=lambda sent: len(sent) >= 10)
    answer = session.target('', 0.45, 0.0, -0.05)
    assert answer.result.status is NodeStatus.REACHED and answer.remaining > 0.0
    rest = stream(session, clock)
    end_of_first = session.solver.geometry.tip_position(
        session.solver.solve('', 0.45, 0.0, 0.1).readings)
    positions = [s.position for s in first + rest]
    tips = np.array([session.solver.geometry.tip_position(q) for q in positions])
    second = tips[np.argmin(np.linalg.norm(tips - end_of_first, axis=1)):]
    assert len(second) > 20
    assert np.abs(second[:, 0] - 0.45).max() <= 1e-9  # the second line: x = 0.45, straight down
    assert tips[-1] == pytest.approx((0.45, 0.0, -0.05), abs=1e-9)


def test_an_arm_that_follows_a_line_arrives():
    session, clock = _line_session()
    session.target('', 0.35, 0.0, 0.25)
    stream(session, clock)
    start = session._motion.stream.last_command
    arm = FollowingArm(session, clock, position=start)
    arm.report()
    answer = session.target('', 0.4, 0.0, -0.05)
    sent, statuses = drive(session, clock, arm, answer)
    assert [name for name, _ in statuses] == ['MOVING', 'ARRIVED']
    assert float(statuses[1][1]['tool_error']) < 1e-9
    worst, _ = _off_line(session, [s.position for s in sent],
                         session.solver.geometry.tip_position(start), (0.4, 0.0, -0.05))
    assert len(sent) > 10 and worst <= 1e-9  # it was the line that the arm followed


def test_a_blocked_joint_on_a_line_is_not_following_and_nothing_more_is_streamed():
    session, clock = _line_session(path_tolerance=[0.05, 0.05])
    session.target('', 0.35, 0.0, 0.25)
    stream(session, clock)
    start = session._motion.stream.last_command
    arm = FollowingArm(session, clock, blocked={'elbow'}, position=start)
    arm.report()
    answer = session.target('', 0.4, 0.0, -0.05)
    sent, statuses = drive(session, clock, arm, answer)
    assert [name for name, _ in statuses] == ['MOVING', 'NOT_FOLLOWING']
    assert 'elbow' in statuses[1][1]['joint_errors']
    assert not session.moving and session.tick().command is None


# -- jogging --------------------------------------------------------------------------------


def _jog(session, clock, linear, periods):
    """Twist every 0.1 s and tick ``periods`` times (bounded); return the commanded tips."""
    tips = []
    for period in range(periods):
        if period % 10 == 0:
            session.twist('', linear, (0.0, 0.0, 0.0))
        tick = session.tick()
        clock.now += PERIOD
        if tick.command is not None:
            tips.append(np.array(session.solver.geometry.tip_position(tick.command.position)))
    return np.array(tips)


def test_a_jog_into_the_table_slides_along_it():
    session, clock = new_session(TABLE, link_radius=[0.0, 0.02, 0.01])
    session.target('', 0.2, 0.0, 0.0)
    tips = _jog(session, clock, (0.1, 0.0, -0.2), 150)
    assert len(tips) == 150  # never held: it slid
    assert tips[:, 2].min() >= -0.1 + 0.01 - 1e-9  # never into the table
    assert np.abs(tips[-30:, 2] - tips[-1, 2]).max() <= 0.01  # on it ...
    assert (np.diff(tips[-30:, 0]) > 0.0).all()  # ... still going forward: sliding
    for tip in tips[::10]:
        assert oracle_clear(session, session.solver.solve('', *tip).readings)
    answer = session.twist('', (0.1, 0.0, -0.2), (0.0, 0.0, 0.0))
    assert dict(session.status(answer)[2])['jog'] == 'sliding'


def test_a_jog_into_a_corner_holds_there():
    # Forward and down at the reach's edge: into the table and out of reach at once.
    session, clock = new_session(TABLE, link_radius=[0.0, 0.02, 0.01])
    session.target('', 0.5, 0.0, 0.0)
    tips = _jog(session, clock, (0.1, 0.0, -0.2), 200)
    assert tips[:, 2].min() >= -0.1 + 0.01 - 1e-9
    last = tips[-1]
    for _ in range(20):  # holding: nothing new is commanded, or the same point
        tick = session.tick()
        clock.now += PERIOD
        if tick.command is not None:
            np.testing.assert_allclose(
                session.solver.geometry.tip_position(tick.command.position), last, atol=1e-6)
