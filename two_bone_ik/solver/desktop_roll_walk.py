"""The stretches of a moved roll, nearest the held roll first, found lazily (math only).

:func:`~two_bone_ik.solver.desktop_roll.roll_ends` cuts the roll's range where reachability
may change; the moved roll wants only the stretch nearest the held roll that reaches, so it
needs only the ends between the held roll and that stretch. :func:`nearest_stretches` walks
outward from the held roll on both sides, merged by distance, and refines a bracket of
:func:`~two_bone_ik.solver.desktop_roll.roll_brackets` only when its zero might be the next
end on the side walked: one farther from the held roll than every end of the stretches tried
(up to the first that reaches) is never refined. The
stretches come in the order (and with the rolls) of
:func:`~two_bone_ik.solver.desktop_roll.stretch_trials` of the whole set.
"""

import math
from typing import Iterator, Optional

from two_bone_ik.solver.desktop_roll import (END_MARGINS, resolve, roll_brackets, RollGeometry,
                                             RollTarget)


class _Ends:
    """The ends found so far (exact) and the brackets still to refine, of one target.

    ``side`` +1 looks above a roll, -1 below; ``inclusive``: an end at the roll counts.
    """

    def __init__(self, geometry: RollGeometry, target: RollTarget, low: float, high: float):
        self._geometry, self._target = geometry, target
        self._found, self._pending = roll_brackets(geometry, target, low, high)

    def bound(self, after: float, side: float, inclusive: bool = False):
        """Return (roll, exact), the next end past ``after`` (rad) on ``side`` or a bound of it.

        ``roll``: the nearest found end there, or the near side of a bracket that may hold a
        nearer one (``exact`` False); None if there is no end there.
        """
        key, index = self._nearest(side * after, side, inclusive)
        return (None if key is None else side * key), index < 0

    def following(self, after: float, side: float, inclusive: bool) -> Optional[float]:
        """Return the end nearest ``after`` (rad) on ``side`` of it, or None.

        Brackets are refined only while one might hold an end nearer than the nearest found.
        """
        mark = side * after
        while True:
            key, index = self._nearest(mark, side, inclusive)
            if index < 0:
                return None if key is None else side * key
            found, more = resolve(self._geometry, self._target, self._pending.pop(index))
            self._found.extend(found)
            self._pending.extend(more)

    def _nearest(self, mark: float, side: float, inclusive: bool):
        """Return (key, index) of the next end past ``mark`` (keys: ``side`` x roll).

        ``key``: the nearest found end's, or a bracket's near side (not before ``mark``) if it
        is nearer, ``index`` that bracket's (-1 if none); (None, -1) if there is no end.
        """
        nearest = None
        for end in self._found:
            key = side * end
            if (key > mark or inclusive and key == mark) and (nearest is None or key < nearest):
                nearest = key
        index = -1
        for i, (start, end, _, _) in enumerate(self._pending):
            near, far = sorted((side * start, side * end))
            if (far > mark or inclusive and far == mark) and \
                    (nearest is None or near < nearest):
                nearest, index = max(near, mark), i
        return nearest, index


def nearest_stretches(geometry: RollGeometry, target: RollTarget, low: float, high: float,
                      held: float, margin: float) -> Iterator[Iterator[float]]:
    """Yield, per stretch of [low, high] not holding ``held``, the rolls to solve (rad).

    Nearest ``held`` first, the rolls of each (an iterator, to be used up before the next
    stretch is asked for) as :func:`~two_bone_ik.solver.desktop_roll.trials` gives them. The
    sides are compared on bounds, refined only while the nearer is not yet exact; a stretch's
    far end is found only when it is needed (the margins that fit, the middle).
    """
    ends = _Ends(geometry, target, low, high)
    marks = {-1.0: (held, True), 1.0: (held, True)}  # where each side's next stretch starts
    while marks:
        nearest = {side: ends.bound(mark, side, inclusive)
                   for side, (mark, inclusive) in marks.items()}
        side = min(marks, key=lambda s: (math.inf if nearest[s][0] is None else
                                         abs(nearest[s][0] - held), s))  # (a tie: below)
        near, exact = nearest[side]
        if not exact:
            ends.following(marks[side][0], side, marks[side][1])  # refined: compared again
        elif near is None or ends.bound(near, side)[0] is None:
            del marks[side]  # no stretch beyond
        else:
            yield _rolls(ends, near, side, margin)
            marks[side] = (near, False)


def _rolls(ends: _Ends, near: float, side: float, margin: float) -> Iterator[float]:
    """Yield the rolls of the stretch from ``near`` (rad) on ``side``, as ``trials`` does.

    Its far end is refined only when the margins' fit or the middle needs it.
    """
    far = None
    width = abs(ends.bound(near, side)[0] - near)  # (at most the stretch's width)
    for d in END_MARGINS:
        if not margin * d < 0.5 * width and far is None:
            far = ends.following(near, side, False)
            width = abs(far - near)
        if margin * d < 0.5 * width:
            yield near + side * margin * d
    if far is None:
        far = ends.following(near, side, False)
    yield 0.5 * (near + far) if side > 0.0 else 0.5 * (far + near)
