"""Targets from other frames: transformed now, or held until their transform comes (no ROS).

The IK node never waits for a transform on its executor: with one executor thread the wait
would also hold back the tf2 listener's callbacks that bring the transform (tf2_ros's own
blocking ``lookup_transform(timeout)`` sleeps on the caller's thread). Instead, like a tf2
message filter with a queue of one:

- a target whose transform is there now is transformed at once (one lookup, no wait);
- one whose transform is not there yet is *held* for ``transform_timeout`` s and its lookup
  retried every :data:`RETRY_PERIOD` s (the node's timer calls :meth:`TargetFrames.retry`): it
  is answered when the transform comes, or ``WRONG_FRAME`` with tf2's last reason when the
  time is up;
- the newest target wins: a newer target, a twist or ``~/stop`` supersedes the held one
  (answered ``WRONG_FRAME``, "superseded"), so a late transform never moves the arm to an
  older target than the last one sent.

The cost: a held target is answered up to ``RETRY_PERIOD`` after its transform arrives, and a
frame that never comes costs one lookup per period for ``transform_timeout`` s; nothing blocks.
"""

import math
import time
from typing import Any, Callable, NamedTuple, Optional, Sequence, Tuple, Union

from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.ik.target_frame import FrameTransform, to_base_frame, transform_problem
from two_bone_ik.ik.target_frame import TransformLookup

#: Seconds between two lookups of a held target's transform.
RETRY_PERIOD = 0.01

#: Longest ``transform_timeout`` accepted, s.
MAX_TRANSFORM_TIMEOUT = 10.0

#: The reason given for other frames when the session has no lookup.
NO_LOOKUP = ('tf2_ros is not installed, so targets are taken in base_frame only (or an empty '
             "frame); a ROS 2 distro's tf2_ros_py brings it")


def check_transform_timeout(value: Any) -> float:
    """Return ``transform_timeout`` (s) or raise :class:`ConfigError` naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            0.0 <= float(value) <= MAX_TRANSFORM_TIMEOUT):
        raise ConfigError(f'transform_timeout: expected 0 to {MAX_TRANSFORM_TIMEOUT:g} s, '
                          f'got {value!r}')
    return float(value)


class Moved(NamedTuple):
    """A target moved into ``base_frame``: position (m) and orientation (or None)."""

    position: Tuple[float, float, float]
    orientation: Optional[Tuple[float, float, float, float]]


class Held(NamedTuple):
    """A target waiting for its transform.

    ``stamp`` is the target's stamp (ns, 0: the latest transform), ``deadline`` the clock's
    time when it is given up, ``reason`` why the last lookup failed.
    """

    frame_id: str
    position: Tuple[float, float, float]
    orientation: Optional[Tuple[float, ...]]
    stamp: int
    deadline: float
    reason: str


#: What taking a target gives: moved, refused (why), or held (None).
Outcome = Union[Moved, str, None]


class TargetFrames:
    """Looks transforms up for targets from other frames; holds the newest one that waits.

    Parameters
    ----------
    lookup : callable or None
        The transform lookup (:data:`~two_bone_ik.ik.target_frame.TransformLookup`); None:
        every other frame is refused with :data:`NO_LOOKUP`.
    timeout : float
        ``transform_timeout``: how long a target waits for its transform, s (0: not at all).
    clock : callable
        Monotonic clock, s.
    """

    def __init__(self, lookup: Optional[TransformLookup], timeout: float,
                 clock: Callable[[], float] = time.monotonic):
        self._lookup = lookup
        self.timeout = float(timeout)
        self._clock = clock
        #: The target waiting for its transform, if any.
        self.held: Optional[Held] = None

    def look_up(self, frame_id: str, stamp: int = 0) -> Union[FrameTransform, str]:
        """Return the transform from ``frame_id`` at ``stamp`` (ns) now, or why there is none.

        Never waits (the lookup gets timeout 0) and never raises: a lookup that raises
        answers with the error.
        """
        if self._lookup is None:
            return NO_LOOKUP
        try:
            found = self._lookup(frame_id, int(stamp), 0.0)
        except Exception as error:  # noqa: B902 - a lookup's failure is a reason, not a crash
            return f'the transform lookup failed: {type(error).__name__}: {error}'
        problem = transform_problem(found)
        return problem or found

    def take(self, frame_id: str, position: Sequence[float],
             orientation: Optional[Sequence[float]], stamp: int = 0) -> Outcome:
        """Take a target in ``frame_id``: moved into base_frame, refused (why), or held (None).

        A target is held only when a lookup exists and ``timeout`` is above 0; it replaces a
        held one (call :meth:`drop` first to answer that).
        """
        found = self.look_up(frame_id, stamp)
        if not isinstance(found, str):
            return Moved(*to_base_frame(found, position, orientation))
        if self._lookup is None or self.timeout <= 0.0:
            return found
        self.held = Held(frame_id, tuple(position),
                         None if orientation is None else tuple(orientation), int(stamp),
                         self._clock() + self.timeout, found)
        return None

    def drop(self) -> Optional[Held]:
        """Stop holding; return the target that was held, if any."""
        held, self.held = self.held, None
        return held

    def retry(self) -> Optional[Tuple[Held, Union[Moved, str]]]:
        """Look the held target's transform up again.

        Returns
        -------
        tuple or None
            ``(held, Moved)`` when its transform came, ``(held, reason)`` when its time is up
            (the last lookup's reason), None while it still waits or nothing is held.
        """
        held = self.held
        if held is None:
            return None
        found = self.look_up(held.frame_id, held.stamp)
        if not isinstance(found, str):
            self.held = None
            return held, Moved(*to_base_frame(found, held.position, held.orientation))
        if self._clock() >= held.deadline or not math.isfinite(held.deadline):
            self.held = None
            return held, (f'{found} (waited {self.timeout:g} s: transform_timeout)')
        self.held = held._replace(reason=found)
        return None
