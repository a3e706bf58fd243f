"""The desktop solver beside general numeric IK solvers, on FK-sampled targets (bench only).

Imported by ``bench/desktop_bench.py``. Targets: the tool points of poses drawn uniformly within
the URDF's limits (every one has an exact pose within them). Per target, in one process and
interleaved (each target is given to every solver in turn): ``DesktopSolver.solve`` (position
only, no last command: the roll held at 0), roboticstoolbox-python's ``ik_LM`` (tol 1e-14, from
the zero pose, position only, joint limits on) and ikpy (``least_squares``, gtol 1e-12, from the
zero pose). A solver's answer counts as reached when its readings are within the limits and
put the tool point (the URDF's own forward kinematics) within 1 um of the target.

The peers are benchmark dependencies only (see bench/README.md): without them their rows are
skipped, with a line saying so.
"""

import math
import statistics
import time
import warnings
import xml.etree.ElementTree as ElementTree

import numpy as np

from two_bone_ik.arm.desktop_geometry import arm_from_description
from two_bone_ik.solver.desktop import DesktopSolver

#: A peer's answer within this of the target (m) counts as reached.
REACHED = 1e-6


def chain_elements(urdf: str, base: str, tip: str):
    """Return [base, joint, link, ..., tip]: the chain's links and joints in order."""
    robot = ElementTree.fromstring(urdf)
    parent = {joint.find('child').get('link'): joint for joint in robot.findall('joint')}
    elements, link = [tip], tip
    while link != base:
        joint = parent[link]
        link = joint.find('parent').get('link')
        elements += [joint.get('name'), link]
    return elements[::-1]


def ik_lm_solver(path: str, base: str, tip: str):
    """Return ``solve(target) -> readings`` with roboticstoolbox's ik_LM, or None without it."""
    try:
        import roboticstoolbox
    except ImportError:
        return None
    ets = roboticstoolbox.Robot.URDF(path).ets(start=base, end=tip)
    zero = np.zeros(ets.n)
    mask = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    goal = np.eye(4)

    def solve(target):
        goal[:3, 3] = target
        return ets.ik_LM(goal, q0=zero, tol=1e-14, mask=mask, joint_limits=True)[0]
    return solve


def ikpy_solver(path: str, urdf: str, base: str, tip: str):
    """Return ``solve(target) -> readings`` with ikpy, or None without it."""
    try:
        from ikpy.chain import Chain
    except ImportError:
        return None
    elements = chain_elements(urdf, base, tip)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        probe = Chain.from_urdf_file(path, base_elements=elements, symbolic=False)
        mask = [link.joint_type != 'fixed' for link in probe.links]
        chain = Chain.from_urdf_file(path, base_elements=elements, symbolic=False,
                                     active_links_mask=mask)
    zero = np.zeros(len(chain.links))

    def solve(target):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            angles = chain.inverse_kinematics(target, initial_position=zero,
                                              optimizer_kwargs={'gtol': 1e-12})
        return [a for a, active in zip(angles, mask) if active]
    return solve


def fk_targets(geometry, rng, count):
    """Return ``count`` tool points of poses uniformly within the limits, shape (count, 3)."""
    lower, upper = geometry.lower_limits, geometry.upper_limits
    return np.array([geometry.tool_position([rng.uniform(max(lo, -math.pi), min(hi, math.pi))
                                             for lo, hi in zip(lower, upper)])
                     for _ in range(count)])


def _reached(geometry, readings, target) -> bool:
    if readings is None or len(readings) != len(geometry.joint_names):
        return False
    if not all(lo - 1e-9 <= r <= hi + 1e-9 for r, lo, hi in
               zip(readings, geometry.lower_limits, geometry.upper_limits)):
        return False
    return math.dist(geometry.tool_position(readings), target) < REACHED


def _timed(function, target):
    start = time.perf_counter()
    answer = function(target)
    return time.perf_counter() - start, answer


def compare(path: str, base: str, tip: str, wanted: float, count: int, ikpy_count: int,
            seed: int = 0):
    """Time every solver on the same FK-sampled targets; return rows of the table."""
    urdf = open(path).read()
    geometry = arm_from_description(urdf, base, tip)
    solver = DesktopSolver(geometry.model)
    targets = fk_targets(geometry, np.random.default_rng(seed), count)
    solvers = {'`DesktopSolver.solve`': lambda t: solver.solve(*t, None, wanted).readings}
    peers = {'roboticstoolbox `ik_LM`, tol 1e-14, from zero': ik_lm_solver(path, base, tip),
             'ikpy, gtol 1e-12, from zero': ikpy_solver(path, urdf, base, tip)}
    skipped = [name for name, peer in peers.items() if peer is None]
    solvers.update({name: peer for name, peer in peers.items() if peer is not None})
    times = {name: [] for name in solvers}
    reached = dict.fromkeys(solvers, 0)
    points = [tuple(map(float, target)) for target in targets]  # as the node passes them
    for index, target in enumerate(points):
        names = list(solvers)
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:  # the order turns target by target
            if name.startswith('ikpy') and index >= ikpy_count:
                continue
            seconds, readings = _timed(solvers[name], target)
            times[name].append(seconds)
            reached[name] += _reached(geometry, readings, target)
    rows = [_row(name, times[name], reached[name]) for name in solvers if times[name]]
    rows.insert(1, _batch_row(solver, geometry, targets, wanted))
    return rows, skipped


def _row(name, times, reached):
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(math.ceil(0.99 * len(times))) - 1)]
    return (name, reached, len(times), statistics.median(times), p99)


def _batch_row(solver, geometry, targets, wanted, rounds: int = 5):
    """Time ``solve_batch`` of every target at once: the median per target over rounds.

    Its rows' largest reading difference from ``solve`` goes into the row's name.
    """
    per_target = []
    for _ in range(rounds):
        start = time.perf_counter()
        batch = solver.solve_batch(targets, approach_pitch=wanted)
        per_target.append((time.perf_counter() - start) / len(targets))
    reached = sum(_reached(geometry, r, t) for r, t in zip(batch.readings, targets))
    single = np.array([solver.solve(*t, None, wanted).readings for t in targets])
    difference = float(np.max(np.abs(single - batch.readings)))
    median = statistics.median(per_target)
    return (f'`DesktopSolver.solve_batch`, {len(targets)} per call (rows differ from `solve` '
            f'by {difference:.1e} rad at most)', reached, len(targets), median, math.nan)


def print_table(title, rows, skipped):
    """Print one arm's and pitch's rows as a markdown table."""
    floor = next((row[3] for row in rows if 'ik_LM' in row[0]), math.nan)
    print(f'\n{title}\n')
    print('| solver | reached (< 1 um) | median per target | p99 | median / ik_LM median | '
          'p99 / own median |')
    print('| --- | ---: | ---: | ---: | ---: | ---: |')
    for name, reached, count, median, p99 in rows:
        p99_text = '—' if math.isnan(p99) else f'{p99 * 1e6:.1f} us'
        ratio = '—' if math.isnan(p99) else f'{p99 / median:.2f}'
        relative = '—' if math.isnan(floor) else f'{median / floor:.2f}'
        print(f'| {name} | {100.0 * reached / count:.1f} % of {count} | {median * 1e6:.2f} us | '
              f'{p99_text} | {relative} | {ratio} |')
    for name in skipped:
        print(f'\n{name}: not installed, its row skipped (see bench/README.md)')
