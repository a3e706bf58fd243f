"""The newest state of the simulated arm, handed from the physics to the renderers (ROS-free).

The thread that steps the physics (the node's executor) offers a snapshot after each
publication: a copy of the model's joint positions, the stamp its ``joint_states`` carried and
the target to mark. The camera and the viewer, each in a thread of its own, take the newest one
when they are ready: the physics never waits for a renderer, a renderer never reads the state
while it is being stepped, and a slow renderer skips states instead of queueing them.

Offering replaces one reference (atomic in CPython): no lock, nothing that can block.
"""

import math
from typing import Any, NamedTuple, Optional, Sequence, Tuple

import numpy as np


def target_to_mark(frame_id: str, base_frame: str,
                   position: Sequence[float]) -> Optional[Tuple[float, float, float]]:
    """Return the target to mark for a ``target_pose``, or None to keep the last one.

    A target in ``base_frame`` (or an empty frame) with finite coordinates is marked; one the
    IK node rejects for its frame or its numbers (``WRONG_FRAME``, ``INVALID_TARGET``) is not.
    """
    point = tuple(float(v) for v in position)
    if frame_id not in ('', base_frame) or not all(math.isfinite(v) for v in point):
        return None
    return point


class ArmSnapshot(NamedTuple):
    """One state to draw.

    Attributes
    ----------
    qpos : numpy.ndarray
        The model's whole ``qpos`` (a copy), rad (m for prismatic joints).
    stamp : any
        What the state was published with (the node's ``builtin_interfaces/Time``).
    target : tuple of 3 float or None
        The target to mark, m in ``base_frame``; None: none.
    sequence : int
        Counts the snapshots offered, from 1.
    """

    qpos: np.ndarray
    stamp: Any
    target: Optional[Tuple[float, float, float]]
    sequence: int


class RenderFeed:
    """The newest :class:`ArmSnapshot` and target; one writer thread, any number of readers."""

    def __init__(self):
        self._latest: Optional[ArmSnapshot] = None
        self._target: Optional[Tuple[float, float, float]] = None
        self._count = 0

    def set_target(self, target: Optional[Sequence[float]]) -> None:
        """Mark ``target`` (m in ``base_frame``) from the next snapshot on; None: no marker."""
        self._target = None if target is None else tuple(float(v) for v in target)

    def offer(self, qpos: np.ndarray, stamp: Any) -> None:
        """Make a copy of ``qpos``, stamped ``stamp``, the newest snapshot."""
        self._count += 1
        self._latest = ArmSnapshot(np.array(qpos, dtype=float), stamp, self._target,
                                   self._count)

    def latest(self) -> Optional[ArmSnapshot]:
        """Return the newest snapshot, or None before the first."""
        return self._latest
