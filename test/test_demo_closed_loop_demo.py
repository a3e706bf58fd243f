"""The closed-loop demo's table notes and picture labels (demo/closed_loop_demo.py), no ROS.

The demo itself runs over DDS in ``test_demo_scripts.py``; here its own helpers, on rows as it
builds them: a measured elbow other than the one asked is explained under the table, and the
picture numbers each waypoint once per place, beside a marker of its own.
"""

from demo_modules import load_demo
import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402,I100

demo = load_demo('closed_loop_demo')


def _row(name, target, status, asked, measured):
    return {'name': name, 'target': target, 'status': status, 'elbow': asked,
            'measured_elbow': measured}


ROWS = [_row('start', (0.396, 0.154), 'REACHED', 'up', 'up'),
        _row('beyond reach', (0.632, 0.303), 'OUT_OF_REACH', 'up', 'straight'),
        _row('inner hole', (0.019, -0.011), 'JOINT_LIMITED', 'down', 'up'),
        _row('start', (0.396, 0.154), 'REACHED', 'down', 'down')]


def test_an_elbow_measured_other_than_asked_is_explained_under_the_table():
    notes = demo._elbow_notes(ROWS)
    assert notes[0].startswith("elbow asked/measured: asked is the IK node's elbow parameter")
    assert "'straight': the arm stretched toward a target beyond reach" in notes[1]
    # Only the real mismatch gets a line, with the reason its status gives.
    assert notes[2:] == ['  3: asked down, measured up: JOINT_LIMITED: no pose reaches the '
                         'target within the joint limits; the closest one is on the other '
                         'elbow (allow_elbow_flip: true)']


def test_each_place_is_numbered_once_beside_its_own_marker():
    fig, ax = plt.subplots()
    try:
        ax.plot([0.0], [0.0], 'ks')  # the base, drawn before, as the demo does
        demo._label_waypoints(ax, ROWS)
        labels = {text.get_text(): text.xy for text in ax.texts}
        # Waypoints 1 and 4 share a target: one label, not two printed over each other.
        assert sorted(labels) == ['1, 4', '2', '3']
        markers = [tuple(line.get_xydata()[0]) for line in ax.lines[1:]]
        assert sorted(markers) == sorted(labels.values())  # every label on a marker
        base = ax.lines[0].get_zorder()
        assert all(line.get_zorder() > base for line in ax.lines[1:])  # none hidden by it
    finally:
        plt.close(fig)
