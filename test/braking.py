"""What every stop test checks: each joint brakes forward, within its braking distance.

A stop planned as a move somewhere else (back to 0, say) passes checks that only look at the
limits and at coming to rest; :func:`check_brakes_forward` does not let it: every joint comes
to rest beyond where it was when the stop came, in the direction it was moving, no further
than :func:`braking_distance_bound` allows, and its velocity never changes sign meanwhile.
"""

import math
from typing import Sequence


def braking_distance_bound(speed, acceleration, max_acceleration, max_jerk):
    """Return a bound on how far a joint travels while stopping (speed >= 0 along its motion).

    The time-optimal stop takes at most the time to bring the acceleration to -A at jerk J,
    hold it until slow, and release it; the speed meanwhile never exceeds its start plus what
    a positive acceleration adds while it is ramped down.
    """
    a = max(acceleration, 0.0)
    peak = speed + a * a / (2.0 * max_jerk)
    duration = (a + max_acceleration) / max_jerk + peak / max_acceleration + \
        max_acceleration / max_jerk
    return peak * duration


def check_brakes_forward(position: Sequence[float], velocity: Sequence[float],
                         acceleration: Sequence[float], rest: Sequence[float],
                         velocities: Sequence[Sequence[float]], max_acceleration,
                         max_jerk, slack: float = 1e-9) -> None:
    """Assert that each joint braked forward from its state at the stop, within its distance.

    Parameters
    ----------
    position, velocity, acceleration : sequence of float
        Each joint's state when the stop came (rad, rad/s, rad/s^2).
    rest : sequence of float
        Where each joint came to rest, rad.
    velocities : sequence of sequences of float
        The velocities while braking, one row per sample, rad/s.
    max_acceleration, max_jerk : sequence of float
        The limits braking kept to.
    slack : float
        Tolerance on positions (rad) and velocities (rad/s).
    """
    for joint, (start, speed) in enumerate(zip(position, velocity)):
        direction = math.copysign(1.0, speed)
        travelled = (rest[joint] - start) * direction
        assert travelled >= -slack, f'joint {joint} came to rest behind where it was stopped'
        bound = braking_distance_bound(abs(speed), acceleration[joint] * direction,
                                       max_acceleration[joint], max_jerk[joint])
        assert travelled <= bound + slack, (
            f'joint {joint} braked {travelled:.6f} rad, more than its {bound:.6f} rad')
        assert all(v[joint] * direction >= -slack for v in velocities), (
            f'joint {joint} turned back while braking')
