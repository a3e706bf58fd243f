"""Joint limits: the validated limits type and whole-turn representatives inside the limits.

An angle fits a joint's limits when some whole-turn representative of it (the angle plus a
whole number of turns) lies inside them. :func:`into_range` finds it for one angle and
:func:`into_range_array` for many, with the same arithmetic, so row ``i`` of a batch equals
the scalar result.
"""

import math
from typing import Optional, Tuple

import numpy as np

from two_bone_ik.solver.angles import wrap_angle, wrap_angles
from two_bone_ik.solver.validation import check_limits, MAX_JOINT_LIMIT

#: Slack in radians within which an angle counts as inside its joint limits (it is then put
#: onto the limit), so rounding never turns an exact solution into a limited one.
LIMIT_TOLERANCE = 1e-10

_TWO_PI = 2.0 * math.pi
_INF = math.inf


class JointLimits:
    """Joint limits of the two-link arm, validated once.

    Pass one wherever ``limits=`` is accepted to skip the per-call validation of a plain
    sequence. Immutable; it iterates and indexes as its pairs ``((lo1, hi1), (lo2, hi2))``, and
    compares equal to (and hashes as) another JointLimits with the same pairs; it does not
    compare equal to the plain pairs themselves.

    Parameters
    ----------
    limits : sequence of two (lower, upper) pairs, or JointLimits
        ``((lo1, hi1), (lo2, hi2))`` in radians for the shoulder and the elbow; ``-inf`` /
        ``inf`` for an unlimited side. Each lower limit at most its upper limit; a finite limit
        within :data:`MAX_JOINT_LIMIT` (1e5 rad) in absolute value.

    Raises
    ------
    IkInputError
        If ``limits`` is not two pairs of numbers, a limit is NaN, a lower limit is ``inf``, an
        upper one ``-inf``, a lower limit is above its upper limit, or a finite limit is beyond
        :data:`MAX_JOINT_LIMIT`.
    """

    __slots__ = ('pairs',)

    #: ``((lo1, hi1), (lo2, hi2))`` as floats, radians.
    pairs: Tuple[Tuple[float, float], Tuple[float, float]]

    def __init__(self, limits):
        if isinstance(limits, JointLimits):
            pairs = limits.pairs
        else:
            # + 0.0 turns -0.0 into 0.0, so equal limits give identical results.
            pairs = tuple((lo + 0.0, hi + 0.0) for lo, hi in check_limits(limits))
        object.__setattr__(self, 'pairs', pairs)

    def __iter__(self):
        return iter(self.pairs)

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index):
        return self.pairs[index]

    def __eq__(self, other):
        if isinstance(other, JointLimits):
            return self.pairs == other.pairs
        return NotImplemented

    def __hash__(self):
        return hash(self.pairs)

    def __repr__(self) -> str:
        return f'JointLimits({self.pairs!r})'

    def __reduce__(self):
        return JointLimits, (self.pairs,)

    def __setattr__(self, name, value):
        raise AttributeError('JointLimits is immutable')

    def __delattr__(self, name):
        raise AttributeError('JointLimits is immutable')


_VALIDATED = {}
_VALIDATED_SIZE = 64


def as_joint_limits(limits) -> JointLimits:
    """Return ``limits`` as a JointLimits, validating a plain sequence.

    Hashable sequences (tuples of numbers: immutable, so a cached result stays right) are
    validated once and cached; anything else (lists, arrays) is validated on every call.

    Raises
    ------
    IkInputError
        As :class:`JointLimits`.
    """
    if limits.__class__ is JointLimits:
        return limits
    try:
        found = _VALIDATED.get(limits)
    except TypeError:  # unhashable
        return JointLimits(limits)
    if found is None:
        found = JointLimits(limits)
        if len(_VALIDATED) >= _VALIDATED_SIZE:
            _VALIDATED.clear()
        _VALIDATED[limits] = found
    return found


def into_range(q: float, lo: float, hi: float, ref: float = 0.0) -> Optional[float]:
    """Return the whole-turn representative of ``q`` inside [lo, hi], or None if none fits.

    Among several representatives, the one nearest ``ref`` clamped into [lo, hi] (an open side
    counting as MAX_JOINT_LIMIT), on a tie the one nearer ``q``. An angle already inside a
    range under a turn comes back as it is; an unlimited joint gets ``q`` wrapped into
    [-pi, pi]. An angle within LIMIT_TOLERANCE outside a limit is put on that limit. All in
    radians.
    """
    if hi - lo < _TWO_PI:  # at most one representative
        if lo <= q <= hi:
            return q
        moved = lo + (q - lo) % _TWO_PI
        if moved <= hi:
            return moved
        if moved - hi <= LIMIT_TOLERANCE:
            return hi
        if lo - (moved - _TWO_PI) <= LIMIT_TOLERANCE:
            return lo
        return None
    if lo == -_INF and hi == _INF:
        return wrap_angle(q)
    # With limits of a turn or more, of the two representatives around the reference one fits
    # (to LIMIT_TOLERANCE, which covers the rounding of q + k 2pi for |k 2pi| up to 2e5 rad).
    centre = min(max(ref, lo, -MAX_JOINT_LIMIT), hi, MAX_JOINT_LIMIT)
    below = q + _TWO_PI * math.floor((centre - q) / _TWO_PI)
    above = below + _TWO_PI
    below_fits = lo - LIMIT_TOLERANCE <= below <= hi + LIMIT_TOLERANCE
    above_fits = lo - LIMIT_TOLERANCE <= above <= hi + LIMIT_TOLERANCE
    if below_fits and above_fits:
        gap_below, gap_above = centre - below, above - centre
        if gap_above < gap_below or (gap_above == gap_below and abs(above - q) < abs(below - q)):
            below = above
    elif above_fits:
        below = above
    elif not below_fits:
        return None
    return lo if below < lo else hi if below > hi else below


def into_range_array(q: np.ndarray, lo: float, hi: float, ref=0.0) -> np.ndarray:
    """:func:`into_range` for each angle of ``q`` (rad, shape (n,)), NaN where none fits.

    ``ref`` is a float or an array like ``q``. Returns a new array.
    """
    if hi - lo < _TWO_PI:
        fit = q.copy()
        outside = np.flatnonzero((q < lo) | (q > hi))
        if outside.size:
            moved = q[outside] - lo
            np.remainder(moved, _TWO_PI, out=moved)
            moved += lo
            over = moved > hi
            if over.any():
                beyond = moved[over]
                moved[over] = np.where(beyond - hi <= LIMIT_TOLERANCE, hi, np.where(
                    lo - (beyond - _TWO_PI) <= LIMIT_TOLERANCE, lo, np.nan))
            fit[outside] = moved
        return fit
    if lo == -_INF and hi == _INF:
        return wrap_angles(q)
    centre = np.clip(ref, max(lo, -MAX_JOINT_LIMIT), min(hi, MAX_JOINT_LIMIT))
    below = q + _TWO_PI * np.floor((centre - q) / _TWO_PI)
    above = below + _TWO_PI
    below_fits = (lo - LIMIT_TOLERANCE <= below) & (below <= hi + LIMIT_TOLERANCE)
    above_fits = (lo - LIMIT_TOLERANCE <= above) & (above <= hi + LIMIT_TOLERANCE)
    gap_below, gap_above = centre - below, above - centre
    nearer_above = (gap_above < gap_below) | (
        (gap_above == gap_below) & (np.abs(above - q) < np.abs(below - q)))
    np.copyto(below, above, where=above_fits & (~below_fits | nearer_above))
    below[~(below_fits | above_fits)] = np.nan
    return np.clip(below, lo, hi, out=below)
