"""The OpenGL the offscreen camera renders with: EGL, else OSMesa, else none (ROS-free).

MuJoCo's Python bindings pick their OpenGL from ``MUJOCO_GL`` when ``mujoco`` is imported, and
the simulated arm imports it with ``MUJOCO_GL=disable`` (see :mod:`two_bone_ik.sim`). The camera
makes its own context instead, headless, with MuJoCo's ``mujoco.egl`` or ``mujoco.osmesa``:

- ``MUJOCO_GL=egl`` or ``osmesa`` set by the user: that one only;
- otherwise EGL when ``libEGL.so.1`` loads and finds a device (Mesa's software one counts),
  else OSMesa when ``libOSMesa`` is installed.

Both are looked at through ``ctypes`` before PyOpenGL is imported, because PyOpenGL binds to
one platform (``PYOPENGL_PLATFORM``) for the life of the process: the first choice must be the
right one. When neither works, :class:`RenderUnavailable` says why in one line.
"""

import ctypes
import ctypes.util
from typing import Callable, Mapping, Optional, Sequence

#: The headless platforms, in the order tried.
BACKENDS = ('egl', 'osmesa')


class RenderUnavailable(RuntimeError):
    """No headless OpenGL to render with; the message says why, in one line."""


def egl_problem() -> Optional[str]:
    """Return why EGL cannot render headless here, or None if it has a device."""
    try:
        egl = ctypes.CDLL('libEGL.so.1')
    except OSError:
        return 'libEGL.so.1 is not installed'
    get_proc = egl.eglGetProcAddress
    get_proc.restype = ctypes.c_void_p
    get_proc.argtypes = [ctypes.c_char_p]
    address = get_proc(b'eglQueryDevicesEXT')
    if not address:
        return 'libEGL lacks eglQueryDevicesEXT (EGL_EXT_device_enumeration)'
    query = ctypes.CFUNCTYPE(ctypes.c_uint, ctypes.c_int, ctypes.c_void_p,
                             ctypes.POINTER(ctypes.c_int))(address)
    count = ctypes.c_int(0)
    if not query(0, None, ctypes.byref(count)) or count.value < 1:
        return 'EGL finds no device'
    return None


def osmesa_problem() -> Optional[str]:
    """Return why OSMesa cannot render here, or None if its library is installed."""
    if ctypes.util.find_library('OSMesa') is None:
        return 'libOSMesa is not installed'
    return None


PROBLEMS = {'egl': egl_problem, 'osmesa': osmesa_problem}


def choose_backend(requested: Optional[str] = None,
                   problems: Mapping[str, Callable[[], Optional[str]]] = PROBLEMS) -> str:
    """Return ``'egl'`` or ``'osmesa'``: the headless OpenGL to render with.

    Parameters
    ----------
    requested : str, optional
        The user's ``MUJOCO_GL`` (default: read from the environment before the package set
        it): ``egl`` or ``osmesa`` tries only that one; anything else tries both in turn.
    problems : mapping
        Per backend, a function that returns why it cannot work, or None.

    Raises
    ------
    RenderUnavailable
        If none works; the message gives each one's reason.
    """
    if requested is None:
        requested = user_mujoco_gl()
    requested = (requested or '').strip().lower()
    candidates: Sequence[str] = (requested,) if requested in BACKENDS else BACKENDS
    reasons = []
    for name in candidates:
        problem = problems[name]()
        if problem is None:
            return name
        reasons.append(f'{"EGL" if name == "egl" else "OSMesa"}: {problem}')
    chosen = f' (MUJOCO_GL={requested})' if requested in BACKENDS else ''
    raise RenderUnavailable(f"no headless OpenGL{chosen}: {'; '.join(reasons)}")


def user_mujoco_gl() -> str:
    """Return ``MUJOCO_GL`` as the user set it (before :mod:`two_bone_ik.sim` defaulted it)."""
    from two_bone_ik import sim
    return sim.USER_MUJOCO_GL or ''


def gl_context(width: int, height: int, backend: Optional[str] = None):
    """Return a current headless OpenGL context (MuJoCo's ``GLContext``) of at least that size.

    Raises
    ------
    RenderUnavailable
        If no backend works, or the chosen one fails to make a context.
    """
    name = backend or choose_backend()
    try:
        if name == 'egl':
            from mujoco.egl import GLContext
        else:
            from mujoco.osmesa import GLContext
        context = GLContext(int(width), int(height))
        context.make_current()
    except Exception as error:  # noqa: B902 - ImportError, OSError, GLError, RuntimeError...
        reason = ' '.join(str(error).split()) or type(error).__name__
        raise RenderUnavailable(f'{name}: could not make an OpenGL context: {reason}') from None
    return context
