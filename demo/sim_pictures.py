"""Rendered pictures of a demo's run: an animation and a still, from the sim's own camera.

The demos record what the sim measured (``joint_states``, with the time each came) and what
was asked (the targets); :func:`render_run` replays that record through the same MuJoCo model
and its ``front_side`` camera (:class:`two_bone_ik.sim.camera.OffscreenCamera`) and writes:

- an animated GIF (imageio, through Pillow): the arm as measured, the target in force marked,
  the tool's path so far drawn behind it;
- a still PNG: the arm's last pose, every target marked and the whole tool path.

Without a headless OpenGL (no EGL, no OSMesa) it writes nothing and returns the reason; the
demo's matplotlib figures stand. Times are seconds, points metres in ``base_frame``.
"""

import bisect
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import numpy as np

from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.camera import OffscreenCamera
from two_bone_ik.sim.gl_backend import RenderUnavailable

Point = Tuple[float, float, float]

#: Frames per second of the animation; the size the frames and the still are rendered at
#: (pixels), before both are cropped to what moved in them (:func:`crop_box`).
FPS = 10
ANIMATION_SIZE = (640, 480)
STILL_SIZE = (960, 720)


def picture_paths(output: Path) -> Tuple[Path, Path]:
    """Return the animation's and the still's paths beside a demo's ``output`` picture."""
    return output.with_suffix('.gif'), output.with_name(f'{output.stem}_still.png')


def crop_box(images: Sequence[np.ndarray], pad: float = 0.12,
             aspect: float = 4 / 3) -> Tuple[int, int, int, int]:
    """Return (top, bottom, left, right) around everything not sky in any of ``images``.

    The sky is pale and grey-blue; the arm, the marker and the path are not. The box is padded
    by ``pad`` of its size, widened to ``aspect`` and kept inside the pictures.
    """
    height, width = images[0].shape[:2]
    seen = np.zeros((height, width), bool)
    for image in images:
        channels = image.astype(int)
        seen |= (channels.max(axis=2) - channels.min(axis=2) > 70) | (channels.max(axis=2) < 130)
    rows, cols = np.nonzero(seen)
    if len(rows) == 0:
        return 0, height, 0, width
    top, bottom, left, right = rows.min(), rows.max() + 1, cols.min(), cols.max() + 1
    box_h = (bottom - top) * (1 + 2 * pad)
    box_w = max((right - left) * (1 + 2 * pad), box_h * aspect)
    box_h = min(max(box_h, box_w / aspect), height)
    box_w = min(box_h * aspect, width)
    centre_v, centre_u = (top + bottom) / 2, (left + right) / 2
    top = int(round(min(max(centre_v - box_h / 2, 0), height - box_h)))
    left = int(round(min(max(centre_u - box_w / 2, 0), width - box_w)))
    return top, top + int(round(box_h)), left, left + int(round(box_w))


def _cropped(images: Sequence[np.ndarray]) -> List[np.ndarray]:
    top, bottom, left, right = crop_box(images)
    return [image[top:bottom, left:right] for image in images]


def _scaled(size: Tuple[int, int], scale: float) -> Tuple[int, int]:
    return int(round(size[0] * scale)), int(round(size[1] * scale))


def _latest(times: Sequence[float], values: Sequence, t: float):
    index = bisect.bisect_right(times, t) - 1
    return values[index] if index >= 0 else None


def _qpos(sim: ArmSim, positions: Sequence[float]) -> np.ndarray:
    sim.reset(positions)
    return sim.data.qpos.copy()


def _frames(sim, camera, states, targets, path, fps) -> List[np.ndarray]:
    state_times = [t for t, _ in states]
    target_times = [t for t, _ in targets]
    path_times = [t for t, _ in path]
    frames = []
    t = state_times[0]
    while t <= state_times[-1]:
        positions = _latest(state_times, [p for _, p in states], t)
        trail = [p for _, p in path[:bisect.bisect_right(path_times, t)]]
        frames.append(camera.render(_qpos(sim, positions),
                                    _latest(target_times, [p for _, p in targets], t),
                                    path=trail))
        t += 1.0 / fps
    return frames


def render_run(arm, states: Sequence[Tuple[float, Sequence[float]]], output: Path,
               targets: Sequence[Tuple[float, Point]] = (),
               path: Sequence[Tuple[float, Point]] = (), fps: float = FPS,
               camera: str = 'front_side',
               still_targets: Optional[Sequence[Point]] = None,
               scale: float = 1.0, workspace=None) -> Optional[str]:
    """Write the animation and the still of a run beside ``output``; None, or why not.

    Parameters
    ----------
    arm
        What :class:`~two_bone_ik.sim.arm_sim.ArmSim` takes: the arm the demo simulated.
    states : sequence of (time, positions)
        The measured joint positions (``joint_states``, every simulated joint in order).
    output : Path
        The demo's picture; the animation and the still go beside it (:func:`picture_paths`).
    targets : sequence of (time, point)
        The targets sent, each marked from its time on.
    path : sequence of (time, point)
        The measured tool point, drawn as a path.
    still_targets : sequence of point, optional
        The targets the still marks (default: every one of ``targets``).
    scale : float
        Render at this many times :data:`ANIMATION_SIZE` and :data:`STILL_SIZE` (before the
        crop): above 1 for an arm that moves in a small part of its reach.
    workspace : SimWorkspace, optional
        The table and boxes to show (:mod:`two_bone_ik.sim.workspace_geometry`).
    """
    import imageio.v3 as imageio
    if not states:
        return 'no joint states were recorded'
    sim = ArmSim(arm, workspace=workspace)
    animation, still = picture_paths(output)
    try:
        moving = OffscreenCamera(sim.model, sim.arm.base_frame, _scaled(ANIMATION_SIZE, scale),
                                 camera)
    except RenderUnavailable as error:
        return str(error)
    try:
        frames = _frames(sim, moving, states, targets, path, fps)
    finally:
        moving.close()
    imageio.imwrite(animation, np.stack(_cropped(frames)), duration=1000.0 / fps, loop=0)
    steady = OffscreenCamera(sim.model, sim.arm.base_frame, _scaled(STILL_SIZE, scale), camera)
    try:
        marked = [p for _, p in targets] if still_targets is None else list(still_targets)
        image = steady.render(_qpos(sim, states[-1][1]), targets=marked,
                              path=[p for _, p in path], path_width=0.003)
    finally:
        steady.close()
    imageio.imwrite(still, _cropped([image])[0], optimize=True)
    return None


def rendered_line(output: Path, reason: Optional[str]) -> str:
    """Return the line a demo prints after :func:`render_run` (``reason``: what it returned)."""
    if reason is None:
        return "rendered from the sim's camera: " + ', '.join(
            str(p) for p in picture_paths(output))
    return f'no rendered pictures ({reason}); the figure above stands'
