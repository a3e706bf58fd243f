"""The desktop pick demo (demo/desktop_pick_demo.py) run for real, on two of its targets.

Both nodes run as processes over DDS as ``make demo`` runs them: the IK node drives the
MuJoCo-simulated ``demo/desktop_arm.urdf`` through the position controller topic, with the
table and the box. Checked: each target approached from above on the straight line (within
1 mm, measured) and touched within 1 mm, the commanded approach pitch the solver's own for the
target, no contact with the table or the box in the sim, the recorded arm the URDF's, and the
picture written.
"""

import math

from demo_modules import load_demo
import pytest

from two_bone_ik.arm.desktop_geometry import arm_from_description
from two_bone_ik.arm.urdf_import import chain_from_urdf
from two_bone_ik.solver.desktop import DesktopSolver

demo = load_demo('desktop_pick_demo')


@pytest.fixture(scope='module')
def picked(tmp_path_factory):
    """Run the demo on three targets and return it.

    The first (straight down), the one behind the arm (reached back over the yaw axis) and
    the last (tilted).
    """
    output = tmp_path_factory.mktemp('desktop_demo') / 'demo_desktop.png'
    targets = (demo.TARGETS[0], demo.TARGETS[-2], demo.TARGETS[-1])
    return demo.run(output, targets), targets, output


def test_every_target_is_approached_from_above_and_touched(picked):
    result, targets, _ = picked
    assert result.failures == []
    assert [pick.target for pick in result.picks] == list(targets)
    for pick in result.picks:
        x, y, z = pick.target
        assert pick.hover.goal == (x, y, z + demo.HOVER)
        assert pick.touch.status['status'] == 'REACHED', pick.touch.status
        # Measured in the sim, once settled: above the target, on it, above it again.
        for move in (pick.hover, pick.touch, pick.lift):
            assert move.error < demo.TOUCH_TOLERANCE, move
    # Never through the table top on the way (z = 0): the tool came down from above, on the
    # straight line, and the sim counted no contact with the table or the box.
    assert min(point[2] for _, point in result.tips) > demo.GRASP - demo.TOUCH_TOLERANCE
    assert result.contacts == 0
    assert result.deviation <= demo.LINE_TOLERANCE
    for pick in result.picks:
        assert len(pick.touch.path) > 10 and len(pick.lift.path) > 10


def test_the_commanded_pitch_is_the_reachable_one_nearest_straight_down(picked):
    result, _, _ = picked
    geometry = arm_from_description(demo.URDF.read_text(), demo.BASE, demo.TIP)
    solver = DesktopSolver(geometry.model)
    pitches = [float(pick.touch.status['approach_pitch']) for pick in result.picks]
    assert pitches[0] == pytest.approx(demo.APPROACH_PITCH, abs=1e-6)  # 6 decimals sent
    # The far target cannot be touched pointing straight down: the nearest pitch that can.
    assert pitches[2] > demo.APPROACH_PITCH + 0.01
    # The one behind: the yaw cannot face it, the arm reaches back over its axis.
    branches = [pick.touch.status['yaw_branch'] for pick in result.picks]
    assert branches == ['facing', 'back', 'facing']
    for pick, pitch in zip(result.picks, pitches):
        solution = solver.solve(*pick.target, previous=pick.hover.command,
                                approach_pitch=demo.APPROACH_PITCH)
        assert pitch == pytest.approx(solution.approach_pitch, abs=1e-6)


def test_the_recorded_arm_is_the_urdfs_and_the_picture_is_written(picked):
    result, _, output = picked
    chain = chain_from_urdf(demo.URDF.read_text(), demo.BASE, demo.TIP)
    for pick in result.picks:
        # joint_states and tip_pose of one instant: the URDF's kinematics joins them.
        assert math.dist(chain.forward(pick.touch.readings).position, pick.touch.tool) < 1e-9
        assert len(pick.touch.command) == 5
    assert output.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    assert output.stat().st_size > 20_000
    # Rendered from the sim's camera too: the run animated, and a still.
    animation, still = output.with_suffix('.gif'), output.with_name(f'{output.stem}_still.png')
    assert animation.read_bytes()[:6] == b'GIF89a' and animation.stat().st_size > 20_000
    assert still.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
