"""Jogging: a target that moves at the velocity of the last twist (no ROS).

``target_twist`` (geometry_msgs/TwistStamped, or Twist) sets the velocity of a jog point in
``base_frame``; once per command period the point moves on by velocity x period and the arm is
commanded to it. When the arm cannot follow (the point leaves the workspace, or the joint
limits stop it), the point is put back where the commanded tip is, so it slides along the
boundary with the velocity's component along it instead of running away or stopping dead.
The same at the floor and at a keep-out box: a step that would put a link through one is
put back out of it along its normal (:func:`slid`), keeping the step's part along it: the
point slides along the surface; where even that touches, the point holds. Twists stop: after
``twist_timeout`` seconds without one the jog ends where the point is.

On a desktop arm the angular velocity turns the approach: its component about the arm's
sideways axis (the normal of the plane its yaw turns the pair into) turns the approach pitch the
jog holds, and, with a roll joint, its component along the approach turns the roll.
"""

import math
from typing import Optional, Sequence, Tuple

Vector3 = Tuple[float, float, float]

#: Fastest jog accepted, m/s (a twist faster than this is refused as invalid).
MAX_JOG_SPEED = 100.0


def twist_problem(linear: Sequence[float], angular: Sequence[float]) -> str:
    """Return why a twist cannot be used ('' if it can)."""
    values = tuple(linear) + tuple(angular)
    if not all(math.isfinite(v) for v in values):
        return 'a twist component is not finite'
    speed = math.sqrt(sum(v * v for v in linear))
    if speed > MAX_JOG_SPEED:
        return f'linear speed {speed:g} m/s is above {MAX_JOG_SPEED:g} m/s'
    return ''


#: How far (m) a jog sliding along the floor or a box keeps off it (rounding would otherwise
#: put a pose on the surface a hair inside it, and the jog would stop there).
SLIDE_CLEARANCE = 1e-6


def slid(point: Sequence[float], depth: float, normal: Sequence[float]) -> Vector3:
    """Return a jog point that put a link ``depth`` (m) into the floor or a box, put back out.

    ``normal`` (unit) points away from the surface: the point moves along it by ``depth`` and
    :data:`SLIDE_CLEARANCE`, so what was left of the step is its part along the surface, and
    the jog slides along it.
    """
    lift = depth + SLIDE_CLEARANCE
    return tuple(p + lift * n for p, n in zip(point, normal))


class Jog:
    """The jog point and its velocity.

    Parameters
    ----------
    timeout : float
        Seconds without a twist after which the jog ends.
    """

    def __init__(self, timeout: float):
        self.timeout = float(timeout)
        self.point: Optional[Vector3] = None
        self.velocity: Vector3 = (0.0, 0.0, 0.0)
        #: Angular velocity, rad/s in base_frame (turns a desktop arm's approach).
        self.angular: Vector3 = (0.0, 0.0, 0.0)
        #: The approach pitch the jog holds, rad (a desktop arm with a pitch joint), or None.
        self.pitch: Optional[float] = None
        self._last_twist = -math.inf
        #: Whether the last step had to put the point back on the boundary.
        self.sliding = False

    @property
    def active(self) -> bool:
        """Whether a jog is under way."""
        return self.point is not None

    def twist(self, linear: Sequence[float], now: float, start: Vector3,
              angular: Sequence[float] = (0.0, 0.0, 0.0),
              pitch: Optional[float] = None) -> None:
        """Take a twist at ``now``: linear (m/s) and angular (rad/s) velocity in base_frame.

        A new jog starts at ``start`` (m) and, for an arm with a wrist pitch, at approach pitch
        ``pitch`` (rad).
        """
        if self.point is None:
            self.point = tuple(float(c) for c in start)
            self.pitch = pitch
            self.sliding = False
        self.velocity = tuple(float(v) for v in linear)
        self.angular = tuple(float(v) for v in angular)
        self._last_twist = now

    def step(self, period: float, now: float) -> Optional[Vector3]:
        """Move the point on by one period; return it, or None once the jog has ended."""
        if self.point is None:
            return None
        if now - self._last_twist > self.timeout:
            self.stop()
            return None
        self.point = tuple(p + v * period for p, v in zip(self.point, self.velocity))
        return self.point

    def put_back(self, point: Vector3, sliding: bool) -> None:
        """Put the point where the arm's tip is commanded (on the boundary when sliding)."""
        self.point = tuple(float(c) for c in point)
        self.sliding = sliding

    def stop(self) -> None:
        """End the jog (a target, ``~/stop`` or silence took over)."""
        self.point = None
        self.pitch = None
        self.velocity = self.angular = (0.0, 0.0, 0.0)
        self.sliding = False
