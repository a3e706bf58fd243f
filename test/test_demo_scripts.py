"""The scripts `make demo` runs, run as it runs them: the README's first command works.

``make test`` cannot run ``make demo`` (it would rebuild what is running), so each script of the
Makefile's demo targets runs here, with the virtualenv's Python, from the repository root, its
picture written into the test's directory. A script with a test module of its own
(``test_demo_<script>.py``, which may run a short version) is left to it.
"""

from pathlib import Path
import subprocess
import sys

import pytest
from readme_quick_starts import demo_scripts, REPO

#: Seconds a demo may take here (each is about half a minute on a quiet machine).
TIMEOUT = 300
HERE = Path(__file__).resolve().parent
SCRIPTS = [script for script in demo_scripts()
           if not (HERE / f'test_demo_{Path(script).stem}.py').exists()]


@pytest.mark.parametrize('script', SCRIPTS)
def test_demo_script_runs_and_says_ok(script, tmp_path):
    command = [sys.executable, script]
    usage = subprocess.run(command + ['-h'], cwd=REPO, capture_output=True, text=True,
                           timeout=TIMEOUT)
    assert usage.returncode == 0, usage.stderr
    picture = tmp_path / 'demo.png'
    if '--output' in usage.stdout:
        command += ['--output', str(picture)]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, f'{result.stdout}\n{result.stderr}'
    assert 'demo OK' in result.stdout, result.stdout
    if '--output' in usage.stdout:
        assert picture.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'


def test_every_demo_of_make_demo_is_run_by_a_test():
    assert len(demo_scripts()) >= 3
    for script in demo_scripts():
        assert (REPO / script).is_file(), script
        own = HERE / f'test_demo_{Path(script).stem}.py'
        assert script in SCRIPTS or Path(script).name in own.read_text(), script
