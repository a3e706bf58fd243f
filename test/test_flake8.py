"""Lint like ament_flake8: the whole source tree passes flake8 with the settings in setup.cfg."""

from pathlib import Path
import subprocess
import sys

REPO = Path(__file__).resolve().parents[1]
CHECKED = ['two_bone_ik', 'test', 'demo', 'launch', 'bench', 'setup.py']


def test_flake8_with_ament_settings():
    result = subprocess.run(
        [sys.executable, '-m', 'flake8', *CHECKED], cwd=REPO, capture_output=True, text=True,
        timeout=300)
    report = result.stdout + result.stderr
    assert result.returncode == 0, f'flake8 found problems:\n{report}'
    assert report.strip() == ''
