"""An independent clearance oracle for the workspace tests, written without the package.

The distance from a segment to a box by a golden-section search of the distance from its
points (a convex function of the position along it, so the search finds its least value), and
to the floor by the lowest of many points along it.
"""

import math

import numpy as np

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def oracle_point_box(p, lower, upper):
    """Distance from points (..., 3) to boxes: the norm of what lies outside, per axis."""
    p = np.asarray(p, dtype=float)
    outside = np.maximum(np.maximum(np.asarray(lower) - p, 0.0), p - np.asarray(upper))
    return np.linalg.norm(outside, axis=-1)


def oracle_segment_box(a, b, lower, upper):
    """Least distance from segments a-b (..., 3) to boxes, by golden-section search in t."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)

    def f(t):
        return oracle_point_box(a + t[..., None] * (b - a), lower, upper)
    shape = np.broadcast_shapes(a.shape, np.shape(lower))[:-1]
    lo, hi = np.zeros(shape), np.ones(shape)
    x1, x2 = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(120):
        left = f1 <= f2
        hi = np.where(left, x2, hi)
        lo = np.where(left, lo, x1)
        x1, x2 = np.where(left, hi - _GOLDEN * (hi - lo), x2), np.where(
            left, x1, lo + _GOLDEN * (hi - lo))
        f1, f2 = np.where(left, f(x1), f2), np.where(left, f1, f(x2))
    return np.minimum.reduce([f(np.zeros(shape)), f(np.ones(shape)), f1, f2])


def oracle_segment_floor(a, b, height):
    """Height above the floor of the lowest of 1001 points along a-b (the ends among them)."""
    t = np.linspace(0.0, 1.0, 1001)[:, None]
    return float((np.asarray(a) + t * (np.asarray(b) - np.asarray(a)))[:, 2].min() - height)


def oracle_touches(points, radii, obstacles):
    """Whether any link of a pose is closer to the floor or a box than its radius."""
    points = np.asarray(points, dtype=float)
    for radius, a, b in zip(radii, points[:-1], points[1:]):
        if oracle_segment_floor(a, b, obstacles.floor_height) < radius:
            return True
    if not obstacles.boxes:
        return False
    lower = np.array([box.lower for box in obstacles.boxes])
    upper = np.array([box.upper for box in obstacles.boxes])
    distances = oracle_segment_box(points[:-1, None, :], points[1:, None, :], lower, upper)
    return bool((distances < np.asarray(radii)[:, None]).any())


def random_boxes(rng, count, centre=(0.0, 0.0, 0.15), spread=0.3):
    values = []
    for _ in range(count):
        middle = np.asarray(centre) + rng.uniform(-spread, spread, 3)
        half = rng.uniform(0.005, 0.08, 3)
        values += list(middle - half) + list(middle + half)
    return values
