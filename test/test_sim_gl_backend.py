"""Tests of two_bone_ik.sim.gl_backend: which headless OpenGL the camera renders with."""

import os
import subprocess
import sys

import pytest
from ros_harness import REPO_ROOT

from two_bone_ik.sim.gl_backend import choose_backend, egl_problem, RenderUnavailable


def _problems(egl=None, osmesa=None):
    return {'egl': lambda: egl, 'osmesa': lambda: osmesa}


def test_egl_first_then_osmesa():
    assert choose_backend('', _problems()) == 'egl'
    assert choose_backend('disable', _problems()) == 'egl'
    assert choose_backend('', _problems(egl='EGL finds no device')) == 'osmesa'


def test_a_backend_the_user_names_is_the_only_one_tried():
    assert choose_backend('osmesa', _problems()) == 'osmesa'
    assert choose_backend(' EGL ', _problems(osmesa='x')) == 'egl'
    with pytest.raises(RenderUnavailable, match=r'^no headless OpenGL \(MUJOCO_GL=egl\): '
                       r'EGL: EGL finds no device$'):
        choose_backend('egl', _problems(egl='EGL finds no device'))


def test_neither_says_why_in_one_line():
    with pytest.raises(RenderUnavailable) as raised:
        choose_backend('', _problems(egl='libEGL.so.1 is not installed',
                                     osmesa='libOSMesa is not installed'))
    assert str(raised.value) == ('no headless OpenGL: EGL: libEGL.so.1 is not installed; '
                                 'OSMesa: libOSMesa is not installed')


def test_this_machine_renders_with_egl():
    # The project's machines (developers', CI) have Mesa's EGL: the camera must work there.
    assert egl_problem() is None
    assert choose_backend('') == 'egl'


def test_egl_without_a_driver_is_seen_before_pyopengl_binds_to_it():
    # glvnd with no vendor library: libEGL loads but finds no device. Seen through ctypes,
    # so the choice can still fall to OSMesa (PyOpenGL binds to one platform per process).
    env = dict(os.environ, __EGL_VENDOR_LIBRARY_FILENAMES='/nonexistent.json',
               PYTHONPATH=str(REPO_ROOT))
    code = ('import sys\n'
            'from two_bone_ik.sim.gl_backend import egl_problem\n'
            'print(egl_problem())\n'
            'print("OpenGL" in sys.modules)\n')
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                         timeout=60, check=True).stdout.split('\n')
    assert out[:2] == ['EGL finds no device', 'False'], out
