"""Whether a pose's link capsules are clear of the floor and the keep-out boxes (no ROS).

A capsule touches an obstacle when the distance from its axis segment to the obstacle is less
than its radius (touching exactly counts as clear), and a box also when its segment meets the
box, whatever its radius: a link of radius 0 is its segment and may not pass through a box (as
below the floor it may not go either). The distances are exact:

- to the floor (the plane z = ``floor_height``): the height of the segment's lower end above it
  (negative below it);
- to a box: the least distance from the segment to the box, found exactly: the squared distance
  from a point of the segment to the box is convex and quadratic between the points where the
  segment crosses a face's plane, so its least value is at one of those points, at a segment
  end, or at the minimum of one of those quadratics.

Each pose is first tested cheaply: a link whose bounding box (grown by its radius) misses a
box's cannot touch it. :func:`first_contact` checks one pose, :func:`first_contact_batch` many
(numpy); both name the first link that touches and what it touches (:class:`Contact`).
"""

import math
from typing import NamedTuple, Optional, Sequence, Tuple

import numpy as np

from two_bone_ik.workspace.obstacles import Box, Obstacles

Point = Tuple[float, float, float]

_UP = (0.0, 0.0, 1.0)


class Contact(NamedTuple):
    """A link that touches the floor or a box.

    Attributes
    ----------
    link : int
        The link's index (0 for link 1).
    link_name : str
        ``"link 3 ('elbow' to 'wrist')"``.
    obstacle : str
        ``'the floor (z = 0 m)'`` or a box's description.
    distance : float
        From the link's axis segment to the obstacle, m (0 when it goes through it; negative
        below the floor).
    radius : float
        The link's radius, m.
    point : tuple of 3 float
        The point of the link's axis segment nearest the obstacle, m in ``base_frame``.
    normal : tuple of 3 float
        Unit vector away from the obstacle there (up, for the floor).
    """

    link: int
    link_name: str
    obstacle: str
    distance: float
    radius: float
    point: Point
    normal: Point

    def describe(self) -> str:
        """``"link 3 ('elbow' to 'wrist') would touch the floor (z = 0 m) at (...) m"``."""
        x, y, z = self.point
        if self.distance <= 0.0:
            depth = (f'its axis {-self.distance:.3f} m below it' if self.distance < 0.0
                     else 'its axis through it')
        else:
            depth = f'its axis {self.distance:.3f} m from it, radius {self.radius:.3f} m'
        return (f'{self.link_name} would touch {self.obstacle} at ({x:.3f}, {y:.3f}, {z:.3f}) '
                f'm ({depth})')


def _floor_name(height: float) -> str:
    return f'the floor (z = {height:g} m)'


def _point_box(p: Sequence[float], lower, upper) -> float:
    """Squared distance from a point to a box."""
    total = 0.0
    for value, lo, hi in zip(p, lower, upper):
        if value < lo:
            total += (lo - value) ** 2
        elif value > hi:
            total += (value - hi) ** 2
    return total


def _breaks(a, d, lower, upper):
    """Parameters in (0, 1) where the segment a + t d crosses a face's plane, with 0 and 1."""
    ts = [0.0, 1.0]
    for k in range(3):
        if d[k] != 0.0:
            for edge in (lower[k], upper[k]):
                t = (edge - a[k]) / d[k]
                if 0.0 < t < 1.0:
                    ts.append(t)
    ts.sort()
    return ts


def segment_box(a: Sequence[float], b: Sequence[float], lower: Sequence[float],
                upper: Sequence[float]) -> Tuple[float, float]:
    """Least distance from the segment a-b to a box, m, and where on the segment (t in [0, 1]).

    Exact (see the module docstring); 0 when the segment meets the box.
    """
    d = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    ts = _breaks(a, d, lower, upper)
    candidates = list(ts)
    for t0, t1 in zip(ts, ts[1:]):
        middle = 0.5 * (t0 + t1)
        num = den = 0.0
        for k in range(3):
            p = a[k] + middle * d[k]
            edge = lower[k] if p < lower[k] else upper[k] if p > upper[k] else None
            if edge is not None:
                num += (a[k] - edge) * d[k]
                den += d[k] * d[k]
        if den > 0.0 and t0 < -num / den < t1:
            candidates.append(-num / den)
    best, where = math.inf, 0.0
    for t in candidates:
        value = _point_box((a[0] + t * d[0], a[1] + t * d[1], a[2] + t * d[2]), lower, upper)
        if value < best:
            best, where = value, t
    return math.sqrt(best), where


def _touches_box(distance: float, radius: float) -> bool:
    """Whether a link at ``distance`` from a box touches it: nearer than its radius, or in it."""
    return distance < radius or distance <= 0.0


def _box_normal(point: Sequence[float], box: Box) -> Point:
    """Return the unit vector away from ``box`` at a point nearest it (inside: nearest face's)."""
    nearest = tuple(min(max(p, lo), hi) for p, lo, hi in zip(point, box.lower, box.upper))
    away = tuple(p - q for p, q in zip(point, nearest))
    norm = math.sqrt(sum(c * c for c in away))
    if norm > 0.0:
        return tuple(c / norm for c in away)
    depth, axis, sign = min((min(p - lo, hi - p), k, -1.0 if p - lo < hi - p else 1.0)
                            for k, (p, lo, hi) in enumerate(zip(point, box.lower, box.upper)))
    normal = [0.0, 0.0, 0.0]
    normal[axis] = sign
    return tuple(normal)


def _box_contact(links, index, a, b, box: Box) -> Optional[Contact]:
    radius = links.radii[index]
    lo, hi = box.lower, box.upper
    # Cheap first: the link's bounding box, grown by its radius, must meet the box's.
    if (min(a[0], b[0]) - radius > hi[0] or max(a[0], b[0]) + radius < lo[0]
            or min(a[1], b[1]) - radius > hi[1] or max(a[1], b[1]) + radius < lo[1]
            or min(a[2], b[2]) - radius > hi[2] or max(a[2], b[2]) + radius < lo[2]):
        return None
    distance, t = segment_box(a, b, lo, hi)
    if not _touches_box(distance, radius):
        return None
    point = tuple(p + t * (q - p) for p, q in zip(a, b))
    return Contact(index, links.names[index], box.describe(), distance, radius, point,
                   _box_normal(point, box))


def first_contact(links, points: Sequence[Point], obstacles: Obstacles) -> Optional[Contact]:
    """Return the first link (from the base) of a pose that touches the floor or a box, or None.

    Parameters
    ----------
    links : ArmLinks
        The arm's links (names, radii).
    points : sequence of N + 1 points
        The pose's points (:meth:`ArmLinks.points`), m in ``base_frame``.
    obstacles : Obstacles
    """
    floor = obstacles.floor_height
    radii = links.radii
    for index in range(len(radii)):
        a, b = points[index], points[index + 1]
        lower = a if a[2] <= b[2] else b
        if lower[2] - floor < radii[index]:
            return Contact(index, links.names[index], _floor_name(floor), lower[2] - floor,
                           radii[index], tuple(lower), _UP)
        for box in obstacles.boxes:
            contact = _box_contact(links, index, a, b, box)
            if contact is not None:
                return contact
    return None


def point_contact(links, point: Sequence[float], obstacles: Obstacles) -> Optional[Contact]:
    """Return the last link's contact when the tool point itself is below the floor or in a box.

    ``distance`` is then its height above the floor (negative) or 0 inside a box.
    """
    last = len(links.radii) - 1
    point = tuple(float(c) for c in point)
    if point[2] < obstacles.floor_height:
        return Contact(last, links.names[last], _floor_name(obstacles.floor_height),
                       point[2] - obstacles.floor_height, links.radii[last], point, _UP)
    for box in obstacles.boxes:
        if box.contains(point):
            return Contact(last, links.names[last], box.describe(), 0.0, links.radii[last],
                           point, _box_normal(point, box))
    return None


def _crosses_slabs(a, b, lx, ly, lz, hx, hy, hz) -> bool:
    """Whether the segment a-b meets the box [l, h] (slabs, Liang-Barsky; a cheap first test).

    The box grown by a link's radius, with square edges, holds the rounded one: a segment that
    misses it is farther than the radius from the box.
    """
    t0, t1 = 0.0, 1.0
    for p, q, lo, hi in ((a[0], b[0], lx, hx), (a[1], b[1], ly, hy), (a[2], b[2], lz, hz)):
        d = q - p
        if d == 0.0:
            if p < lo or p > hi:
                return False
            continue
        u, v = (lo - p) / d, (hi - p) / d
        if u > v:
            u, v = v, u
        t0, t1 = max(t0, u), min(t1, v)
        if t0 > t1:
            return False
    return True


class Clearance:
    """One arm's links against one workspace: is a pose clear? (the per-target fast path).

    Parameters
    ----------
    links : ArmLinks
    obstacles : Obstacles

    :meth:`contact` answers as :func:`first_contact` does, after two cheap tests that clear
    most poses: every point of the pose higher above the floor than the radii of its links, and
    the bounding box of the whole arm (grown by its largest radius) against each box's.
    """

    def __init__(self, links, obstacles: Obstacles):
        self.links = links
        self.obstacles = obstacles
        self._floor = obstacles.floor_height if obstacles.floor_height > -math.inf else None
        self._lifted = tuple(r + (self._floor or 0.0) for r in links.point_radii)
        self._boxes = tuple(box.lower + box.upper for box in obstacles.boxes)
        grow = max(links.radii)
        self._grown = tuple((box.lower[0] - grow, box.lower[1] - grow, box.lower[2] - grow,
                             box.upper[0] + grow, box.upper[1] + grow, box.upper[2] + grow)
                            for box in obstacles.boxes)
        #: The highest of the grown boxes' tops: an arm wholly above it touches none.
        self._top = max((box[5] for box in self._grown), default=-math.inf)
        self._box_pairs = tuple(zip(self._boxes, self._grown))

    def _near_boxes(self, points) -> list:
        """Return the boxes (as :attr:`_boxes` rows) whose grown box meets the arm's."""
        # The arm's bounding box in one pass over its points (cheaper than min and max of each
        # coordinate: this runs for every target).
        (x0, y0, z0), rest = points[0], points[1:]
        x1, y1, z1 = x0, y0, z0
        for x, y, z in rest:
            if x < x0:
                x0 = x
            elif x > x1:
                x1 = x
            if y < y0:
                y0 = y
            elif y > y1:
                y1 = y
            if z < z0:
                z0 = z
            elif z > z1:
                z1 = z
        if z0 > self._top:
            return []
        return [box for box, (lx, ly, lz, hx, hy, hz) in self._box_pairs
                if z0 <= hz and x0 <= hx and x1 >= lx and y0 <= hy and y1 >= ly and z1 >= lz]

    def _touches_a_box(self, points, near) -> bool:
        """Whether a link touches one of the ``near`` boxes (exactly, after a bounding test)."""
        for index, radius in enumerate(self.links.radii):
            (ax, ay, az), (bx, by, bz) = points[index], points[index + 1]
            x0, x1 = (ax, bx) if ax <= bx else (bx, ax)
            y0, y1 = (ay, by) if ay <= by else (by, ay)
            z0, z1 = (az, bz) if az <= bz else (bz, az)
            for lx, ly, lz, hx, hy, hz in near:
                if (x0 - radius <= hx and x1 + radius >= lx and y0 - radius <= hy
                        and y1 + radius >= ly and z0 - radius <= hz and z1 + radius >= lz
                        and _crosses_slabs(points[index], points[index + 1], lx - radius,
                                           ly - radius, lz - radius, hx + radius,
                                           hy + radius, hz + radius)):
                    lower, upper = (lx, ly, lz), (hx, hy, hz)
                    distance = segment_box(points[index], points[index + 1], lower, upper)[0]
                    if _touches_box(distance, radius):
                        return True
        return False

    def point_contact(self, point: Sequence[float]) -> Optional[Contact]:
        """Return :func:`point_contact` of the tool point ``point`` (the fast path)."""
        x, y, z = point
        inside = self._floor is not None and z < self._floor
        for lx, ly, lz, hx, hy, hz in self._boxes:
            inside = inside or (lx <= x <= hx and ly <= y <= hy and lz <= z <= hz)
        return point_contact(self.links, point, self.obstacles) if inside else None

    def contact(self, points: Sequence[Point]) -> Optional[Contact]:
        """Return the first link of a pose (:meth:`ArmLinks.points`) that touches, or None."""
        if self._floor is not None:
            for point, lifted in zip(points, self._lifted):
                if point[2] < lifted:
                    return first_contact(self.links, points, self.obstacles)
        if self._grown:
            near = self._near_boxes(points)
            if near and self._touches_a_box(points, near):
                return first_contact(self.links, points, self.obstacles)
        return None


# -- many poses at once ------------------------------------------------------------------------


def segment_box_distances(a: np.ndarray, b: np.ndarray, lower: np.ndarray,
                          upper: np.ndarray) -> np.ndarray:
    """Batch twin of :func:`segment_box`: arrays (M, 3) -> distances (M,), m."""
    d = b - a
    with np.errstate(divide='ignore', invalid='ignore'):
        crossings = np.concatenate(((lower - a) / d, (upper - a) / d), axis=1)
    ends = np.zeros((len(a), 2))
    ends[:, 1] = 1.0
    ts = np.sort(np.clip(np.nan_to_num(np.concatenate((ends, crossings), axis=1), nan=0.0),
                         0.0, 1.0), axis=1)
    middle = 0.5 * (ts[:, :-1] + ts[:, 1:])
    p = a[:, None, :] + middle[..., None] * d[:, None, :]
    lo, hi = lower[:, None, :], upper[:, None, :]
    edge = np.where(p < lo, lo, np.where(p > hi, hi, np.nan))
    active = ~np.isnan(edge)
    num = np.where(active, (a[:, None, :] - edge) * d[:, None, :], 0.0).sum(axis=2)
    den = np.where(active, d[:, None, :] ** 2, 0.0).sum(axis=2)
    with np.errstate(divide='ignore', invalid='ignore'):
        stationary = np.where(den > 0.0, -num / den, middle)
    stationary = np.clip(stationary, ts[:, :-1], ts[:, 1:])
    candidates = np.concatenate((ts, stationary), axis=1)
    p = a[:, None, :] + candidates[..., None] * d[:, None, :]
    gap = p - np.clip(p, lo, hi)
    return np.sqrt((gap * gap).sum(axis=2).min(axis=1))


def _floor_hits(points: np.ndarray, radii: np.ndarray, floor: float) -> np.ndarray:
    z = points[..., 2]
    return (np.minimum(z[:, :-1], z[:, 1:]) - floor < radii).any(axis=1)


def _box_hits(points: np.ndarray, radii: np.ndarray, boxes) -> np.ndarray:
    a, b = points[:, :-1], points[:, 1:]
    grow = radii[None, :, None]
    link_lo, link_hi = np.minimum(a, b) - grow, np.maximum(a, b) + grow
    lower = np.array([box.lower for box in boxes])
    upper = np.array([box.upper for box in boxes])
    near = ((link_lo[:, :, None, :] <= upper) & (link_hi[:, :, None, :] >= lower)).all(axis=3)
    hits = np.zeros(len(points), dtype=bool)
    sample, link, box = np.nonzero(near)
    if len(sample):
        distance = segment_box_distances(a[sample, link], b[sample, link], lower[box],
                                         upper[box])
        hits[sample[(distance < radii[link]) | (distance <= 0.0)]] = True  # (_touches_box)
    return hits


def touching(links, points: np.ndarray, obstacles: Obstacles) -> np.ndarray:
    """Per pose of ``points`` (n, N + 1, 3): whether any link touches the floor or a box."""
    points = np.asarray(points, dtype=float)
    radii = np.asarray(links.radii)
    hits = np.zeros(len(points), dtype=bool)
    if obstacles.floor_height > -math.inf:
        hits |= _floor_hits(points, radii, obstacles.floor_height)
    if obstacles.boxes:
        hits |= _box_hits(points, radii, obstacles.boxes)
    return hits


def first_contact_batch(links, points: np.ndarray,
                        obstacles: Obstacles) -> Optional[Tuple[int, Contact]]:
    """Return the first pose of ``points`` (n, N + 1, 3) where a link touches, and the contact."""
    for index in np.flatnonzero(touching(links, points, obstacles)):
        pose = tuple(tuple(float(c) for c in point) for point in points[index])
        contact = first_contact(links, pose, obstacles)
        if contact is not None:  # (None: rounding between the twins, at a radius exactly)
            return int(index), contact
    return None
