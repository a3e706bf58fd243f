"""The demo scripts (demo/*.py) as modules, for tests of their own helpers."""

import importlib.util

from ros_harness import REPO_ROOT


def load_demo(name: str):
    """Import ``demo/<name>.py`` (not a package module) and return it."""
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / 'demo' / f'{name}.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
