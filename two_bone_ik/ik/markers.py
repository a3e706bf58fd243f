"""What the IK looks like in RViz: marker geometry for one arm and its last target (no ROS).

Every shape is in ``base_frame``, in the arm's real plane around its real shoulder:

- ``workspace``: the outer (``l1 + l2``) and inner (``|l1 - l2|``) reach circles;
- ``limits``: when joint limits are set, a sampled outline of the region the tip can reach
  within them: the tip's paths along the edges of the box of limits (one joint at a limit, the
  other swept), and along the stretched and folded poses inside it (the outer and inner
  boundaries of the reachable set lie on these curves);
- ``target``: a sphere at the target, green when reached, amber when the closest pose is
  commanded, red when rejected;
- ``arm``: the commanded arm, shoulder -> elbow -> tip (a desktop arm: base -> shoulder ->
  elbow -> wrist -> tool point);
- ``closest``: where the tip goes when the target is out of reach (the closest reachable
  point), with a line to the target;
- ``floor`` and ``keep_out``: the workspace's floor (a thin translucent slab under the arm, its
  top at ``floor_height``, :data:`FLOOR_SIZE` times the reach across) and each keep-out box.

The node turns each :class:`Shape` into a ``visualization_msgs/Marker`` (namespace and id from
the shape, so each kind replaces its own marker).
"""

import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.ik.status import CLAMPED, NodeStatus, REJECTED

Point = Tuple[float, float, float]
Color = Tuple[float, float, float, float]

#: Colours, RGBA in 0..1.
REACHED_GREEN: Color = (0.15, 0.75, 0.25, 0.9)
CLAMPED_AMBER: Color = (0.95, 0.65, 0.10, 0.9)
REJECTED_RED: Color = (0.90, 0.15, 0.15, 0.9)
WORKSPACE_GREY: Color = (0.55, 0.55, 0.60, 0.8)
LIMITS_BLUE: Color = (0.25, 0.50, 0.95, 0.8)
FLOOR_TAN: Color = (0.80, 0.70, 0.50, 0.5)
KEEP_OUT_RED: Color = (0.85, 0.20, 0.20, 0.35)
ARM_DARK: Color = (0.15, 0.15, 0.20, 1.0)

#: Points per reach circle and per sampled curve of the limit outline.
CIRCLE_SAMPLES = 120
CURVE_SAMPLES = 48

#: The floor slab's side, relative to the arm's reach (centred under its first joint), and its
#: thickness, m.
FLOOR_SIZE = 2.5
FLOOR_THICKNESS = 0.002

#: Marker line width and sphere diameter, relative to the arm's reach.
LINE_WIDTH = 0.008
SPHERE_SIZE = 0.04


class Shape(NamedTuple):
    """One marker's geometry.

    Attributes
    ----------
    namespace : str
        Marker namespace (the kind: workspace, limits, target, arm, closest).
    marker_id : int
        Id within the namespace.
    kind : {'line_strip', 'line_list', 'sphere', 'cube'}
    points : tuple of (x, y, z)
        In ``base_frame``, m. A sphere or a cube has one point, its centre.
    color : tuple of 4 float
        RGBA, 0..1.
    scale : float
        Line width or sphere diameter, m.
    size : tuple of 3 float or None
        A cube's sides along x, y, z, m.
    """

    namespace: str
    marker_id: int
    kind: str
    points: Tuple[Point, ...]
    color: Color
    scale: float
    size: Optional[Tuple[float, float, float]] = None


def _scale(geometry: ArmGeometry, factor: float) -> float:
    return max(1e-4, factor * max(geometry.reach[1], 1e-3))


def circle(geometry: ArmGeometry, radius: float, samples: int = CIRCLE_SAMPLES) -> List[Point]:
    """Return a closed circle of ``radius`` (m) around the shoulder, in the arm's plane."""
    return [geometry.from_plane(radius * math.cos(a), radius * math.sin(a))
            for a in (2.0 * math.pi * i / samples for i in range(samples + 1))]


def workspace_shapes(geometry: ArmGeometry) -> List[Shape]:
    """Return the outer and inner reach circles (the inner one only when it has a size)."""
    inner, outer = geometry.reach
    width = _scale(geometry, LINE_WIDTH / 2)
    shapes = [Shape('workspace', 0, 'line_strip', tuple(circle(geometry, outer)),
                    WORKSPACE_GREY, width)]
    if inner > 0.0:
        shapes.append(Shape('workspace', 1, 'line_strip', tuple(circle(geometry, inner)),
                            WORKSPACE_GREY, width))
    return shapes


def _sweep(lo: float, hi: float, samples: int) -> List[float]:
    return [lo + (hi - lo) * i / samples for i in range(samples + 1)]


def _finite_span(lo: float, hi: float) -> Tuple[float, float]:
    """Return a joint's range to sweep: a range of a whole turn or more becomes one turn."""
    if hi - lo < 2.0 * math.pi:
        return lo, hi
    if math.isfinite(lo):
        return lo, lo + 2.0 * math.pi
    if math.isfinite(hi):
        return hi - 2.0 * math.pi, hi
    return -math.pi, math.pi


def limit_curves(geometry: ArmGeometry,
                 samples: int = CURVE_SAMPLES) -> List[List[Tuple[float, float]]]:
    """Return the curves (as joint readings) whose tip paths outline the limited workspace.

    Each curve is a list of (reading1, reading2): the four edges of the box of limits, and the
    stretched and folded poses (solver angle q2 = 0 or pi, modulo whole turns) within it.
    Empty when no joint is limited.
    """
    if not geometry.limited:
        return []
    (lo1, hi1), (lo2, hi2) = (_finite_span(lo, hi) for lo, hi in
                              zip(geometry.lower_limits, geometry.upper_limits))
    sweep1, sweep2 = _sweep(lo1, hi1, samples), _sweep(lo2, hi2, samples)
    curves = [[(lo1, r2) for r2 in sweep2], [(hi1, r2) for r2 in sweep2],
              [(r1, lo2) for r1 in sweep1], [(r1, hi2) for r1 in sweep1]]
    z2, d2 = geometry.zero_angles[1], geometry.directions[1]
    for q2 in (0.0, math.pi):
        # Readings of the elbow at which link 2 is in line with link 1, within its limits.
        base = d2 * (q2 - z2)
        first = math.ceil((lo2 - base) / (2.0 * math.pi))
        last = math.floor((hi2 - base) / (2.0 * math.pi))
        for turn in range(first, last + 1):
            reading2 = base + 2.0 * math.pi * turn
            curves.append([(r1, reading2) for r1 in sweep1])
    return curves


def limit_shapes(geometry: ArmGeometry, samples: int = CURVE_SAMPLES) -> List[Shape]:
    """Return the sampled outline of the region the tip reaches within the joint limits."""
    width = _scale(geometry, LINE_WIDTH / 2)
    return [Shape('limits', index, 'line_strip',
                  tuple(geometry.tip_position(readings) for readings in curve),
                  LIMITS_BLUE, width)
            for index, curve in enumerate(limit_curves(geometry, samples))]


def arm_shapes(geometry) -> List[Shape]:
    """Return the shapes that stay while the arm is the same: a planar arm's workspace.

    A desktop arm's workspace turns with its yaw: see :func:`turning_shapes`.
    """
    if isinstance(geometry, ArmGeometry):
        return workspace_shapes(geometry) + limit_shapes(geometry)
    return []


def turning_shapes(geometry, readings: Sequence[float]) -> List[Shape]:
    """Return a desktop arm's workspace in the plane its yaw turns it into (none for a pair).

    The reach circles and limit outline of the two-bone pair (where the wrist pitch axis can
    go) in the wrist's plane at ``readings``.
    """
    if isinstance(geometry, ArmGeometry):
        return []
    plane = geometry.pair_plane(readings)
    return workspace_shapes(plane) + limit_shapes(plane)


def obstacle_shapes(geometry, obstacles, first_joint: Point) -> List[Shape]:
    """Return the floor (when there is one) and each keep-out box, as translucent cubes.

    Parameters
    ----------
    geometry : ArmGeometry or DesktopGeometry
        The arm (its reach sizes the floor).
    obstacles : two_bone_ik.workspace.obstacles.Obstacles
    first_joint : tuple of 3 float
        Where the floor slab is centred (x, y), m.
    """
    shapes = []
    if math.isfinite(obstacles.floor_height):
        side = FLOOR_SIZE * 2.0 * max(geometry.reach[1], 1e-3)
        centre = (first_joint[0], first_joint[1], obstacles.floor_height - FLOOR_THICKNESS / 2)
        shapes.append(Shape('floor', 0, 'cube', (centre,), FLOOR_TAN, 0.0,
                            (side, side, FLOOR_THICKNESS)))
    for box in obstacles.boxes:
        centre = tuple(0.5 * (lo + hi) for lo, hi in zip(box.lower, box.upper))
        size = tuple(max(hi - lo, 1e-4) for lo, hi in zip(box.lower, box.upper))
        shapes.append(Shape('keep_out', box.number, 'cube', (centre,), KEEP_OUT_RED, 0.0, size))
    return shapes


def status_color(status: NodeStatus) -> Color:
    """Return green for a reached target, amber for a clamped one, red for a rejected one."""
    if status in REJECTED:
        return REJECTED_RED
    if status in CLAMPED:
        return CLAMPED_AMBER
    return REACHED_GREEN


def target_shapes(geometry, target: Point, status: NodeStatus,
                  readings: Optional[Sequence[float]]) -> List[Shape]:
    """Return the target, the commanded arm and, when not reached, the closest point.

    Parameters
    ----------
    geometry : ArmGeometry or DesktopGeometry
    target : tuple of 3 float
        The target in ``base_frame``, m (not drawn if not finite).
    status : NodeStatus
        What the node said about it.
    readings : sequence of float or None
        The commanded joint readings (None when rejected: no arm drawn).
    """
    size = _scale(geometry, SPHERE_SIZE)
    width = _scale(geometry, LINE_WIDTH)
    shapes = []
    if all(math.isfinite(c) for c in target):
        shapes.append(Shape('target', 0, 'sphere', (tuple(target),), status_color(status),
                            size))
    if readings is not None:
        points = geometry.arm_points(readings)
        tip = points[-1]
        shapes.append(Shape('arm', 0, 'line_strip', tuple(points), ARM_DARK, width))
        if status in CLAMPED and all(math.isfinite(c) for c in target):
            shapes.append(Shape('closest', 0, 'sphere', (tip,), CLAMPED_AMBER, 0.6 * size))
            shapes.append(Shape('closest', 1, 'line_list', (tip, tuple(target)),
                                CLAMPED_AMBER, width / 2))
    return shapes
