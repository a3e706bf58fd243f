"""The stretches of a moved roll, nearest the held roll first, found lazily (math only).

:func:`~two_bone_ik.solver.desktop_roll.roll_ends` cuts the roll's range where reachability
may change; the moved roll wants only the stretch nearest the held roll that reaches, so it
needs only the ends between the held roll and that stretch. :func:`nearest_stretches` walks
outward from the held roll on both sides, merged by distance, and refines a bracket of
:func:`~two_bone_ik.solver.desktop_roll.roll_brackets` only when its zero might be the next
end on the side walked: a bracket farther than a stretch that reaches is never refined. The
stretches come in the order (and with the rolls) of
:func:`~two_bone_ik.solver.desktop_roll.stretch_trials` of the whole set.
"""

from typing import Iterator, Optional, Tuple

from two_bone_ik.solver.desktop_roll import (resolve, roll_brackets, RollGeometry, RollTarget,
                                             trials)


class _Ends:
    """The ends found so far (exact) and the brackets still to refine, of one target."""

    def __init__(self, geometry: RollGeometry, target: RollTarget, low: float, high: float):
        self._geometry, self._target = geometry, target
        self._found, self._pending = roll_brackets(geometry, target, low, high)

    def next(self, after: float, side: float, inclusive: bool) -> Optional[float]:
        """Return the end nearest ``after`` (rad) on ``side`` of it (+1 above, -1 below), or None.

        ``inclusive``: an end at ``after`` counts. Brackets are refined only while one might
        hold an end nearer than the nearest found.
        """
        mark = side * after
        while True:
            best = None
            for end in self._found:
                key = side * end
                if (key > mark or inclusive and key == mark) and (best is None or key < best):
                    best = key
            nearest, index = None, -1
            for i, (start, end, _, _) in enumerate(self._pending):
                near, far = sorted((side * start, side * end))
                if (far > mark or inclusive and far == mark) and \
                        (best is None or near < best) and (nearest is None or near < nearest):
                    nearest, index = near, i
            if index < 0:
                return None if best is None else side * best
            found, more = resolve(self._geometry, self._target, self._pending.pop(index))
            self._found.extend(found)
            self._pending.extend(more)


def nearest_stretches(geometry: RollGeometry, target: RollTarget, low: float, high: float,
                      held: float, margin: float) -> Iterator[Tuple[float, ...]]:
    """Yield the rolls to solve (rad) of each stretch of [low, high] not holding ``held``.

    Nearest ``held`` first, each as :func:`~two_bone_ik.solver.desktop_roll.trials` gives
    them; a stretch's ends are found only when it is its turn.
    """
    ends = _Ends(geometry, target, low, high)
    near = {-1.0: ends.next(held, -1.0, True), 1.0: ends.next(held, 1.0, True)}
    while True:
        sides = [side for side in (-1.0, 1.0) if near[side] is not None]
        if not sides:
            return
        side = min(sides, key=lambda s: abs(near[s] - held))  # (a tie: below first)
        far = ends.next(near[side], side, False)
        if far is not None:
            start, end = (near[side], far) if side > 0.0 else (far, near[side])
            yield trials(start, end, held, margin)
        near[side] = far
