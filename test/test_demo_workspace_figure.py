"""demo/workspace_figure.py, the picture of docs/workspace.md, run (no ROS: a simulated clock)."""

import importlib.util

from ros_harness import REPO_ROOT


def test_the_figure_shows_a_refused_arc_and_a_straight_line(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location(
        'workspace_figure', REPO_ROOT / 'demo' / 'workspace_figure.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    output = tmp_path / 'workspace.png'
    assert module.main(['--output', str(output)]) == 0
    printed = capsys.readouterr().out
    assert 'joint: MOTION_FAILED: it would touch, ' in printed and 'demo OK' in printed
    assert output.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
