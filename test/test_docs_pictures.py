"""The rendered pictures in docs/: what the README shows first, and small enough to keep."""

import re

import imageio.v3 as imageio
from ros_harness import REPO_ROOT

DOCS = REPO_ROOT / 'docs'
ANIMATIONS = ('desktop_demo.gif', 'demo.gif')
STILLS = ('desktop_demo_still.png', 'demo_still.png')


def test_the_readmes_first_picture_is_the_rendered_animation():
    first = re.search(r'!\[[^]]*\]\(([^)]+)\)', (REPO_ROOT / 'README.md').read_text())
    assert first.group(1) == 'docs/desktop_demo.gif'


def test_the_animations_move_and_stay_under_2_mb():
    for name in ANIMATIONS:
        path = DOCS / name
        assert path.stat().st_size <= 2_000_000, name
        frames = imageio.imread(path, index=None)
        assert len(frames) >= 20, name
        assert (frames[0] != frames[len(frames) // 2]).any(), name


def test_the_stills_stay_under_300_kb():
    for name in STILLS:
        path = DOCS / name
        assert path.stat().st_size <= 300_000, name
        assert imageio.imread(path).shape[2] == 3, name
