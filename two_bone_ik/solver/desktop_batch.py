"""The desktop solver over many targets at once: the batch twin of ``DesktopSolver.solve``.

Row ``i`` of :func:`solve_batch` equals ``solver.solve`` on target ``i`` (to rounding): the same
steps in the same order on numpy arrays. The roll, the orientation split and the yaw are
element-wise; the pair and the pitch check go through :func:`two_bone_ik.solver.solve_batch`
(the wanted pitch for every row first, then every boundary candidate of the rows that need the
search, on both elbow branches, in two calls); the Newton correction steps all rows that need it
together.
"""

import math
from typing import NamedTuple

import numpy as np

from two_bone_ik.solver import IkInputError, IkStatus, MAX_MAGNITUDE, solve_batch as pair_batch
from two_bone_ik.solver.chain_kinematics import chain_poses, rotations_about
from two_bone_ik.solver.desktop_pitch import ELBOW, PITCH, pitch_boundaries_array, SHOULDER
from two_bone_ik.solver.desktop_results import (
    DesktopBatchSolution, ON_TARGET, PITCH_TOLERANCE, SIDE_TOLERANCE, TIE_TOLERANCE)
from two_bone_ik.solver.reading_turns import fit_readings, remainders

_TAU = 2.0 * math.pi
_REACHED = int(IkStatus.REACHED)
_JOINT_LIMITED = int(IkStatus.JOINT_LIMITED)
_S_REACHED, _S_OUT, _S_INSIDE, _S_LIMITED, _S_FLIPPED, _S_OFF, _S_ADJUSTED = 0, 1, 2, 3, 4, 10, 14
_S_PROJECTED = 17


def _pitch_angles(values):
    """Approach pitches into (-pi, pi], rad."""
    wrapped = remainders(values)
    return np.where(wrapped == -math.pi, math.pi, wrapped)


def _checked(solver, targets, previous, approach_pitch, orientations):
    targets = np.asarray(targets, dtype=float)
    if targets.ndim != 2 or targets.shape[1] != 3:
        raise IkInputError(f'targets must have shape (n, 3), got {targets.shape}')
    count = targets.shape[0]
    if targets.size and not (np.abs(targets) <= MAX_MAGNITUDE).all():
        row, col = np.argwhere(~(np.abs(targets) <= MAX_MAGNITUDE))[0]
        raise IkInputError(f'targets[{row}, {col}] must be finite and within 1e100, got '
                           f'{float(targets[row, col])!r}')
    joints = solver.arm.joint_count
    if previous is not None:
        previous = np.asarray(previous, dtype=float)
        if previous.shape != (count, joints) or not np.isfinite(previous).all():
            raise IkInputError(f'previous must be finite readings of shape ({count}, {joints})')
    wanted = np.broadcast_to(np.asarray(approach_pitch, dtype=float), (count,)).copy()
    if not (np.abs(wanted) <= MAX_MAGNITUDE).all():
        raise IkInputError('approach_pitch must be finite')
    rotations = None
    if orientations is not None:
        q = np.asarray(orientations, dtype=float)
        norm = np.linalg.norm(q, axis=1) if q.ndim == 2 and q.shape == (count, 4) else None
        if norm is None or not (np.isfinite(norm) & (norm >= 1e-9)).all():
            raise IkInputError(f'orientations must be {count} rotation quaternions (x, y, z, w)')
        x, y, z, w = (q / norm[:, None]).T
        rotations = np.stack((
            1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
            2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
            2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)),
            axis=1).reshape(count, 3, 3)
    return targets, previous, wanted, rotations


def _tool(arm, roll):
    (a, b, c) = (np.asarray(v) for v in arm.tool)
    t = a + np.cos(roll)[:, None] * b + np.sin(roll)[:, None] * c
    z1, z2 = arm.zero_angles
    return np.hypot(t[:, 0], t[:, 1]), np.arctan2(t[:, 1], t[:, 0]) - z1 - z2, \
        arm.wrist_lateral + t[:, 2]


def _split(arm, rotations, yaw_hint):
    """Batch twin of :func:`two_bone_ik.solver.desktop_model.split_orientation`."""
    f, w, n, a = (np.asarray(v) for v in (arm.forward, arm.up, arm.normal, arm.roll_axis))
    m = rotations @ np.asarray(arm.tip_rotation).reshape(3, 3).T
    v = m @ a
    vf, vw, vn = v @ f, v @ w, v @ n
    horizontal = np.hypot(vf, vn)
    level = horizontal <= 1e-12
    yaw = np.where(level, yaw_hint, np.arctan2(-vn, vf))
    elevation = np.where(level, np.copysign(0.5 * math.pi, vw), np.arctan2(vw, horizontal))
    back = ~level & (np.abs(remainders(yaw - yaw_hint)) > 0.5 * math.pi)
    yaw = np.where(back, remainders(yaw + math.pi), yaw)
    elevation = np.where(back, remainders(math.pi - elevation), elevation)
    pitch_sum = elevation - math.atan2(float(a @ w), float(a @ f))
    rest = rotations_about(tuple(n), -pitch_sum) @ rotations_about(tuple(w), -yaw) @ m
    x = rest @ n
    return yaw, pitch_sum, np.arctan2(x @ np.cross(a, n), x @ n)


def _wrist(solver, targets, previous, wanted, rotations):
    """Return the rolls, whether a limit stopped each, wanted pitches and tool arrays."""
    arm = solver.arm
    count = targets.shape[0]
    index = arm.indices[4]
    roll = np.zeros(count)
    clamped = np.zeros(count, dtype=bool)
    if index is not None:
        held = np.zeros(count) if previous is None else previous[:, index]
        roll, _ = fit_readings(held, arm.lower_limits[index], arm.upper_limits[index], held)
    tool = _tool(arm, roll)
    if rotations is None or not arm.has_pitch:
        return roll, clamped, wanted, tool
    hint = _face(solver, targets, tool[2], previous)[1]
    yaw, pitch_sum, split_roll = _split(arm, rotations, hint)
    if index is not None:
        reference = None if previous is None else previous[:, index]
        roll, clamped = fit_readings(split_roll, arm.lower_limits[index],
                                     arm.upper_limits[index], reference)
        tool = _tool(arm, roll)
    wanted = remainders(pitch_sum + sum(arm.zero_angles) + tool[1])
    return roll, clamped, wanted, tool


def _face(solver, targets, lateral, previous):
    """(yaw reading, yaw, u, v, off, status or -1) per row: batch twin of ``_face``."""
    arm = solver.arm
    d = targets - np.asarray(arm.origin)
    hu, h, hn = d @ np.asarray(arm.forward), d @ np.asarray(arm.up), d @ np.asarray(arm.normal)
    count = targets.shape[0]
    status = np.full(count, -1, dtype=np.int8)
    if not arm.has_yaw:
        return None, np.zeros(count), hu, h, hn - lateral, status
    direction = arm.directions[0]
    lower, upper = arm.lower_limits[0], arm.upper_limits[0]
    near = 1e-3 * solver._on_target
    rho = np.hypot(hu, hn)
    theta = np.arctan2(hn, hu)
    on_axis = rho <= near
    faced = ~on_axis & (rho >= np.abs(lateral) - near)
    with np.errstate(divide='ignore', invalid='ignore'):
        yaw = np.where(faced, np.arcsin(np.clip(lateral / rho, -1.0, 1.0)) - theta,
                       np.copysign(0.5 * math.pi, lateral) - theta)
    kept = 0.0 if previous is None else direction * previous[:, 0]
    yaw = np.where(on_axis, kept, yaw)
    u = np.where(faced, np.sqrt(np.maximum(0.0, (rho - lateral) * (rho + lateral))), 0.0)
    off = np.where(faced, 0.0, np.copysign(rho, lateral) - lateral)
    if on_axis.any():
        c, s = np.cos(yaw), np.sin(yaw)
        u = np.where(on_axis, hu * c - hn * s, u)
        off = np.where(on_axis, hu * s + hn * c - lateral, off)
    status[np.abs(off) > solver._on_target] = _S_INSIDE
    reference = None if previous is None else previous[:, 0]
    reading, clamped = fit_readings(direction * yaw, lower, upper, reference)
    if clamped.any():
        yaw = np.where(clamped, direction * reading, yaw)
        c, s = np.cos(yaw), np.sin(yaw)
        u = np.where(clamped, hu * c - hn * s, u)
        off = np.where(clamped, hu * s + hn * c - lateral, off)
        status[clamped] = _S_LIMITED
    return reading, yaw, u, h, off, status


def _previous_pair(solver, previous):
    if previous is None:
        return None
    _, i1, i2, _, _ = solver.arm.indices
    (z1, z2), d = solver.arm.zero_angles, solver.arm.directions
    return np.stack((z1 + d[i1] * previous[:, i1], z2 + d[i2] * previous[:, i2]), axis=1)


def _pitch_readings(solver, phi, beta, q1, q2, previous, rows=None):
    """Pitch readings of poses at approach pitch phi (rad), and where they do not fit."""
    arm = solver.arm
    i3 = arm.indices[3]
    reference = None if previous is None else previous[rows, i3] if rows is not None else \
        previous[:, i3]
    return fit_readings(arm.directions[i3] * (phi - beta - q1 - q2), arm.lower_limits[i3],
                        arm.upper_limits[i3], reference)


def _preferred_up(solver, previous_q, count):
    """Return True where the preferred elbow branch is up (batch twin of ``_preferred``)."""
    if solver.elbow != 'nearest':
        return np.full(count, solver.elbow == 'up')
    if previous_q is None:
        return np.ones(count, dtype=bool)
    wrapped = remainders(previous_q[:, 1])
    return ~((0.0 < wrapped) & (wrapped < math.pi))


def _pose_up(q2, requested_up):
    """Return the elbow branch of poses: q2's side, the requested one when straight or folded."""
    wrapped = remainders(q2)
    bent = (wrapped != 0.0) & (np.abs(wrapped) < math.pi)
    return np.where(bent, wrapped < 0.0, requested_up)


class _Plane(NamedTuple):
    q1: np.ndarray
    q2: np.ndarray
    pitch: np.ndarray
    status: np.ndarray
    phi: np.ndarray
    tool_u: np.ndarray
    tool_v: np.ndarray
    up: np.ndarray  # the elbow branch of each pose
    preferred_up: np.ndarray
    fixed: np.ndarray  # what the pose's pitch boundary holds (0: the wanted pitch)


def _plane(solver, du, dv, tool, wanted, previous, oriented, closest=True) -> _Plane:
    """Batch twin of ``DesktopSolver._plane``.

    Without ``closest`` (for rows whose only use is an exact pose), a row nothing reaches
    is ``JOINT_LIMITED`` and the rest of its pose means nothing (no closest pose is made).
    """
    arm = solver.arm
    l1, l2 = arm.link_lengths
    previous_q = _previous_pair(solver, previous)
    count = du.shape[0]
    if not arm.has_pitch:
        sol = pair_batch(np.stack((du, dv), axis=1), l1, l2, solver.elbow, solver._pair_limits,
                         solver.allow_elbow_flip, previous_q)
        preferred_up = np.full(count, solver.elbow != 'down')
        return _Plane(sol.q[:, 0], sol.q[:, 1], np.full(count, np.nan), sol.status.copy(),
                      np.full(count, np.nan), sol.tip[:, 0], sol.tip[:, 1],
                      _pose_up(sol.q[:, 1], preferred_up), preferred_up,
                      np.zeros(count, dtype=np.int8))
    preferred_up = _preferred_up(solver, previous_q, count)
    rows = np.arange(count)
    poses = _candidate_poses(solver, du, dv, tool[0], tool[1], wanted[:, None], previous,
                             previous_q, rows)
    done = np.where(preferred_up, poses['up'][0][:, 0], poses['down'][0][:, 0])
    q1, q2, pitch = (np.where(preferred_up, poses['up'][k][:, 0], poses['down'][k][:, 0])
                     for k in (1, 2, 3))
    plane = _Plane(q1, q2, pitch, np.zeros(count, dtype=np.int8), _pitch_angles(wanted),
                   du.copy(), dv.copy(), preferred_up.copy(), preferred_up.copy(),
                   np.zeros(count, dtype=np.int8))
    rest = np.flatnonzero(~done)
    if rest.size:
        preferred_up = preferred_up[rest]
        at_wanted = {branch: tuple(a[rest] for a in poses[branch]) for branch in poses}
        found = _search(solver, du, dv, tool, wanted, previous, previous_q, rest, preferred_up,
                        oriented, plane, at_wanted)
        missing = rest[~found]
        if missing.size and not closest:
            plane.status[missing] = _S_LIMITED
        elif missing.size:
            _closest(solver, du, dv, tool, wanted, previous, previous_q, missing,
                     preferred_up[~found], plane)
    return plane


def _facing_plane(solver, du, dv, tool, wanted, previous, faced) -> _Plane:
    """:func:`_plane` of the rows ``faced`` (a mask), exact poses only; the rest JOINT_LIMITED.

    The other rows' poses mean nothing (zeros).
    """
    rows = np.flatnonzero(faced)
    if rows.size == faced.size:
        return _plane(solver, du, dv, tool, wanted, previous, False, False)
    sub = _plane(solver, du[rows], dv[rows], tuple(t[rows] for t in tool), wanted[rows],
                 None if previous is None else previous[rows], False, False)
    count = faced.size
    plane = _Plane(*(np.zeros(count, dtype=v.dtype) for v in sub))
    for whole, part in zip(plane, sub):
        whole[rows] = part
    plane.status[~faced] = _S_LIMITED
    return plane


def _candidate_poses(solver, du, dv, l3, beta, candidates, previous, previous_q, rows):
    """Per branch ('up', 'down'): (feasible, q1, q2, pitch), each of shape (m, K)."""
    arm = solver.arm
    l1, l2 = arm.link_lengths
    m, k = candidates.shape
    valid = np.isfinite(candidates)
    phi = np.where(valid, candidates, 0.0)
    wrists = np.stack((du[:, None] - l3[:, None] * np.cos(phi),
                       dv[:, None] - l3[:, None] * np.sin(phi)), axis=-1).reshape(-1, 2)
    repeated_q = None if previous_q is None else np.repeat(previous_q[rows], k, axis=0)
    repeated = None if previous is None else np.repeat(previous[rows], k, axis=0)
    poses = {}
    for branch in ('up', 'down'):  # (as DesktopSolver._pair_on: the branch, then the limits)
        sol = pair_batch(wrists, l1, l2, branch, None, False, repeated_q)
        if solver._pair_box is None:
            (q1, q2), outside = (sol.q[:, 0], sol.q[:, 1]), np.zeros(m * k, dtype=bool)
        else:
            (q1, q2), outside = _fit_pair(solver, sol.q[:, 0], sol.q[:, 1], previous_q, rows, k)
        pitch, misfit = _pitch_readings(solver, phi.ravel(), np.repeat(beta, k), q1, q2,
                                        repeated)
        feasible = ((sol.status == _REACHED) & ~misfit & ~outside).reshape(m, k) & valid
        poses[branch] = (feasible, q1.reshape(m, k), q2.reshape(m, k), pitch.reshape(m, k))
    return poses


def _boundary_poses(solver, du, dv, l3, beta, roots, held, preferred_up, previous, previous_q,
                    rows, row_of, column_of):
    """Batch twin of ``DesktopSolver._boundary_pose`` for the ``chosen`` roots, all at once.

    ``roots`` (m, K) rad, NaN where none; ``held`` what each column's boundary holds
    (:func:`_held_columns`);
    ``row_of``, ``column_of`` the finite roots to pose. Returns flat arrays over them:
    (up, fits, q1, q2, pitch); ``up`` the pose's branch (``preferred_up`` when the elbow is
    straight or folded: a pose on both branches), ``fits`` where the limits fit.
    """
    k = roots.shape[1]
    ends = np.searchsorted(column_of, np.arange(k + 1))
    phi = roots[row_of, column_of]
    wu, wv = du[row_of] - l3[row_of] * np.cos(phi), dv[row_of] - l3[row_of] * np.sin(phi)
    q1, q2 = np.empty(phi.size), np.empty(phi.size)
    l1, l2 = solver.arm.link_lengths
    for column, (joint, angle) in enumerate(held):
        if ends[column] == ends[column + 1]:
            continue
        at = slice(ends[column], ends[column + 1])
        u, v = wu[at], wv[at]
        if joint == ELBOW:
            q2[at] = angle
            offset = math.atan2(l2 * math.sin(angle), l1 + l2 * math.cos(angle))
            q1[at] = np.arctan2(v, u) - offset
        elif joint == SHOULDER:
            q1[at] = angle
            q2[at] = np.arctan2(v - l1 * math.sin(angle), u - l1 * math.cos(angle)) - angle
        else:
            link2 = phi[at] - beta[row_of[at]] - angle
            q1[at] = np.arctan2(v - l2 * np.sin(link2), u - l2 * np.cos(link2))
            q2[at] = link2 - q1[at]
    q2 = remainders(q2)
    bent = (np.abs(q2) > SIDE_TOLERANCE) & (math.pi - np.abs(q2) > SIDE_TOLERANCE)
    up = np.where(bent, q2 < 0.0, preferred_up[row_of])
    (q1, q2), misfit = _fit_pair(solver, q1, q2, previous_q, rows[row_of], 1)
    pitch, pitch_misfit = _pitch_readings(solver, phi, beta[row_of], q1, q2, previous,
                                          rows[row_of])
    return up, ~(misfit | pitch_misfit), q1, q2, pitch


def _fit_pair(solver, q1, q2, previous_q, rows, k):
    """Batch twin of ``DesktopSolver._fit_pair``: ((q1, q2), misfit) of flat arrays."""
    if solver._pair_box is None:
        return (remainders(q1), q2), np.zeros(q1.shape, dtype=bool)
    (lo1, hi1), (lo2, hi2) = solver._pair_box
    reference = None if previous_q is None else np.repeat(previous_q[rows], k, axis=0)
    q1, bad1 = fit_readings(q1, lo1, hi1, None if reference is None else reference[:, 0])
    q2, bad2 = fit_readings(q2, lo2, hi2, None if reference is None else reference[:, 1])
    return (q1, q2), bad1 | bad2


def _nearest_poses(solver, du, dv, l3, beta, roots, reach, held, preferred_up, previous,
                   previous_q, rows, farthest):
    """Return the poses of the roots the scalar search needs: (row, column, up, q1, q2, pitch).

    ``roots`` and ``reach`` (each root's distance from the wanted pitch, inf where there is
    no root) are (K, m). Only usable poses are returned (within the limits; on the preferred
    branch unless the elbow may flip). The scalar ``_search``'s rule, in two rounds: each
    row's roots nearest the wanted pitch first (all of them if several are as near), then
    the others no farther than ``farthest`` (rad, (m,), updated in place: the tie window
    past the nearest answer; inf where there is none). A root left out is farther than an
    answer's tie window: the choice is the same as if every root had been posed.
    """
    m = reach.shape[1]
    nearest = reach.min(axis=0) if reach.size else np.full(m, np.inf)
    chosen = (reach == nearest) & (nearest <= farthest) & (nearest < np.inf)
    flip = solver.allow_elbow_flip
    parts = []
    for last in (False, True):
        column_of, row_of = np.divmod(np.flatnonzero(chosen), m)  # (a slice per column)
        up, fits, q1, q2, pitch = _boundary_poses(solver, du, dv, l3, beta, roots.T, held,
                                                  preferred_up, previous, previous_q, rows,
                                                  row_of, column_of)
        usable = fits & (flip | (up == preferred_up[row_of]))
        parts.append(tuple(a[usable] for a in (row_of, column_of, up, q1, q2, pitch)))
        if last:
            break
        answered = parts[0][0]  # (the first answer sets the window: the wanted pitch's too)
        farthest[answered] = np.minimum(farthest[answered], nearest[answered] + TIE_TOLERANCE)
        chosen = (reach <= farthest) & (reach > nearest) & (reach < np.inf)
    return tuple(np.concatenate(both) for both in zip(*parts))


def _per_row_min(count, row, values):
    """Per row (count,) the least of ``values`` (flat, one per entry of ``row``); inf: none."""
    least = np.full(count, np.inf)
    np.minimum.at(least, row, values)
    return least


def _search(solver, du, dv, tool, wanted, previous, previous_q, rows, preferred_up, oriented,
            plane, at_wanted):
    """Batch twin of ``DesktopSolver._search``: fills ``plane`` where a pitch is found.

    ``at_wanted``: the rows' poses at the wanted pitch (:func:`_candidate_poses`, one column;
    none is on the preferred branch). The candidates are flat entries (a row, a root column
    or -1 for the wanted pitch on the other branch): the nearest, then among those within
    the tie window the nearest the last command (else the highest), the preferred branch,
    the first column.
    """
    arm = solver.arm
    m = rows.size
    l3, beta = tool[0][rows], tool[1][rows]
    w = wanted[rows]
    roots = np.ascontiguousarray(pitch_boundaries_array(
        du[rows], dv[rows], l3, beta, *arm.link_lengths, solver._circles,
        solver._pitch_angles).T)
    held = list(solver._circle_joints) + [(PITCH, c) for c in solver._pitch_angles]
    reach = np.where(np.isfinite(roots), np.abs(remainders(
        np.where(np.isfinite(roots), roots, 0.0) - w)), np.inf)
    other = 'down', 'up'
    at_other = np.where(preferred_up, at_wanted['down'][0][:, 0], at_wanted['up'][0][:, 0]) \
        & solver.allow_elbow_flip
    farthest = np.where(at_other, TIE_TOLERANCE, np.inf)
    row, column, up, q1, q2, pitch = _nearest_poses(
        solver, du[rows], dv[rows], l3, beta, roots, reach, [h for h in held for _ in (0, 1)],
        preferred_up, previous, previous_q, rows, farthest)
    wanted_rows = np.flatnonzero(at_other)
    pose_other = [np.where(preferred_up, at_wanted[other[0]][k][:, 0],
                           at_wanted[other[1]][k][:, 0])[wanted_rows] for k in (1, 2, 3)]
    row, up = np.concatenate((row, wanted_rows)), np.concatenate((up, ~preferred_up[wanted_rows]))
    column = np.concatenate((column, np.full(wanted_rows.size, -1)))
    q1, q2, pitch = (np.concatenate(pair) for pair in zip((q1, q2, pitch), pose_other))
    candidate = np.where(column >= 0, roots[column, row], w[row])
    distance = np.where(column >= 0, reach[column, row], 0.0)
    best = _per_row_min(m, row, distance)
    tie = distance <= best[row] + TIE_TOLERANCE
    if previous is not None:
        i3 = arm.indices[3]
        reference = (previous_q[rows, 0] + previous_q[rows, 1]
                     + arm.directions[i3] * previous[rows, i3] + beta)
        secondary = np.abs(remainders(candidate - reference[row]))
    else:
        secondary = -remainders(candidate - w[row])
    secondary = np.where(tie, secondary, np.inf)
    tie &= secondary == _per_row_min(m, row, secondary)[row]
    preferred = up == preferred_up[row]
    key = np.where(tie, np.where(preferred, 0, roots.shape[0] + 1) + column + 1, np.inf)
    pick = np.flatnonzero(tie & (key == _per_row_min(m, row, key)[row]))
    found = np.isfinite(best)
    take, candidate, pick_preferred = rows[row[pick]], candidate[pick], preferred[pick]
    plane.q1[take], plane.q2[take], plane.pitch[take] = q1[pick], q2[pick], pitch[pick]
    phi = _pitch_angles(candidate)
    kinds = np.array([0] + [joint for joint, _ in held for _ in (0, 1)], dtype=np.int8)
    plane.fixed[take] = np.where(remainders(candidate - w[row[pick]]) == 0.0, 0,
                                 kinds[column[pick] + 1])
    status = np.where(pick_preferred, _S_REACHED, _S_FLIPPED)
    if oriented:
        status = np.where(np.abs(remainders(phi - w[row[pick]])) > PITCH_TOLERANCE,
                          _S_ADJUSTED, status)
    plane.status[take] = status
    plane.phi[take] = phi
    plane.up[take] = up[pick]
    return found


def _closest(solver, du, dv, tool, wanted, previous, previous_q, rows, preferred_up, plane):
    """Batch twin of ``DesktopSolver._closest``: fills ``plane`` for rows nothing reaches."""
    arm = solver.arm
    l1, l2 = arm.link_lengths
    l3, beta = tool[0][rows], tool[1][rows]
    u, v = du[rows], dv[rows]
    distance = np.hypot(u, v)
    toward = np.arctan2(v, u)
    status = np.full(rows.size, _S_LIMITED, dtype=np.int8)
    phi = wanted[rows].copy()
    out = distance > l1 + l2 + l3
    hole = ~out & (distance < abs(l1 - l2) - l3)
    long_tool = ~out & ~hole & (distance < l3 - l1 - l2)
    status[out | hole | long_tool] = _S_INSIDE
    status[out] = _S_OUT
    phi = np.where(out | long_tool, toward, np.where(hole, toward + math.pi, phi))
    wrists = np.stack((u - l3 * np.cos(phi), v - l3 * np.sin(phi)), axis=1)
    q = np.empty((rows.size, 2))
    pair_status = np.empty(rows.size, dtype=np.int8)
    for up in (True, False):
        sub = np.flatnonzero(preferred_up == up)
        if sub.size:
            sol = pair_batch(wrists[sub], l1, l2, 'up' if up else 'down', solver._pair_limits,
                             solver.allow_elbow_flip,
                             None if previous_q is None else previous_q[rows][sub])
            q[sub], pair_status[sub] = sol.q, sol.status
    pitch, clamped = _pitch_readings(solver, phi, beta, q[:, 0], q[:, 1], previous, rows)
    status[clamped | (pair_status == _JOINT_LIMITED)] = _S_LIMITED
    phi = q[:, 0] + q[:, 1] + arm.directions[arm.indices[3]] * pitch + beta
    link2 = q[:, 0] + q[:, 1]
    plane.q1[rows], plane.q2[rows], plane.pitch[rows] = q[:, 0], q[:, 1], pitch
    plane.up[rows] = _pose_up(q[:, 1], preferred_up)
    plane.status[rows] = status
    plane.phi[rows] = _pitch_angles(phi)
    plane.tool_u[rows] = l1 * np.cos(q[:, 0]) + l2 * np.cos(link2) + l3 * np.cos(phi)
    plane.tool_v[rows] = l1 * np.sin(q[:, 0]) + l2 * np.sin(link2) + l3 * np.sin(phi)


def _reaching_back(solver, facing, plane, tool, wanted, previous, oriented):
    """Batch twin of ``_reaches_back``: JOINT_LIMITED where only the other yaw reaches."""
    arm = solver.arm
    rows = np.flatnonzero(np.isin(plane.status, [_S_OUT, _S_INSIDE]) & (facing[5] < 0))
    if not arm.has_yaw or not rows.size:
        return
    lateral, u = tool[2][rows], facing[2][rows]
    back = facing[1][rows] + math.pi - 2.0 * np.arctan2(lateral, u)
    _, clamped = fit_readings(arm.directions[0] * back, arm.lower_limits[0],
                              arm.upper_limits[0])
    su, sv = arm.shoulder
    behind = _plane(solver, -u - su, facing[3][rows] - sv, tuple(t[rows] for t in tool),
                    wanted[rows], None if previous is None else previous[rows], oriented,
                    False)
    reached = np.isin(behind.status, [int(s) for s in ON_TARGET]) & ~clamped
    plane.status[rows[reached]] = _S_LIMITED


def _readings(solver, facing, plane, roll, previous):
    arm = solver.arm
    yaw_index, i1, i2, i3, i4 = arm.indices
    (z1, z2), d = arm.zero_angles, arm.directions
    readings = np.empty((plane.q1.shape[0], arm.joint_count))
    if yaw_index is not None:
        readings[:, yaw_index] = facing[0]
    for index, zero, q in ((i1, z1, plane.q1), (i2, z2, plane.q2)):
        reading = d[index] * (q - zero)
        if previous is not None and solver._continuous[index]:
            reading = previous[:, index] + remainders(reading - previous[:, index])
        readings[:, index] = reading
    if i3 is not None:
        readings[:, i3] = plane.pitch
    if i4 is not None:
        readings[:, i4] = roll
    return readings


def _to_world(arm, yaw, u, v, n):
    """Batch twin of ``DesktopArm.to_world``: points (n, 3), m."""
    c, s = np.cos(yaw), np.sin(yaw)
    fu, fn = c * u + s * n, c * n - s * u
    return (np.asarray(arm.origin) + fu[:, None] * np.asarray(arm.forward)
            + v[:, None] * np.asarray(arm.up) + fn[:, None] * np.asarray(arm.normal))


def solve_batch(solver, targets, previous=None, approach_pitch=0.0,
                orientations=None) -> DesktopBatchSolution:
    """Solve many targets with a :class:`~two_bone_ik.solver.desktop.DesktopSolver`.

    Parameters
    ----------
    solver : DesktopSolver
    targets : array-like, shape (n, 3)
        Tool point targets in the arm's base frame, m.
    previous : array-like, shape (n, N), optional
        Per row, the last commanded readings, rad.
    approach_pitch : float or array-like, shape (n,)
        Preferred approach pitch, rad.
    orientations : array-like, shape (n, 4), optional
        Quaternions (x, y, z, w) of the tip frame.

    Returns
    -------
    DesktopBatchSolution

    Raises
    ------
    IkInputError
        As :meth:`DesktopSolver.solve`, naming the row.
    """
    arm = solver.arm
    targets, previous, wanted, rotations = _checked(solver, targets, previous, approach_pitch,
                                                    orientations)
    asked_pitch = wanted.copy()
    roll, roll_clamped, wanted, tool = _wrist(solver, targets, previous, wanted, rotations)
    facing = _face(solver, targets, tool[2], previous)
    su, sv = arm.shoulder
    du, dv = facing[2] - su, facing[3] - sv
    if rotations is None and arm.has_yaw:
        # Position only, a row not reached exactly facing the target is the later classes'
        # or the scalar solve's: no closest pose, and no plane where the yaw does not face it.
        plane = _facing_plane(solver, du, dv, tool, wanted, previous, facing[5] < 0)
    else:
        plane = _plane(solver, du, dv, tool, wanted, previous, rotations is not None)
    if rotations is not None:  # (position only, a row facing misses is the later classes')
        _reaching_back(solver, facing, plane, tool, wanted, previous, rotations is not None)
    readings = _readings(solver, facing, plane, roll, previous)
    status = plane.status
    off = facing[4]
    in_plane = np.hypot(plane.tool_u - du, plane.tool_v - dv)
    error = np.hypot(in_plane, off)
    on_target = np.isin(status, [int(s) for s in ON_TARGET])
    reachable = on_target & (error <= solver._on_target)
    facing_status = facing[5]
    override = (facing_status >= 0) & (on_target | (facing_status == _S_LIMITED))
    status = np.where(override, facing_status, status).astype(np.int8)
    if not arm.has_yaw:
        # Off the plane: a reached projection within the tolerance is PROJECTED, anything
        # beyond the tolerance OFF_PLANE (as DesktopSolver._status).
        tolerance = max(solver.out_of_plane_tolerance, solver._on_target)
        off_plane = np.abs(off) > solver._on_target
        within = np.abs(off) <= tolerance
        status[off_plane & within & on_target] = _S_PROJECTED
        status[off_plane & ~within] = _S_OFF
    status[roll_clamped & np.isin(status, [int(s) for s in ON_TARGET])] = _S_LIMITED
    tool_point = _to_world(arm, facing[1], plane.tool_u + su, plane.tool_v + sv, tool[2])
    exact = error == 0.0
    tool_point[exact] = targets[exact]
    handled = _vectorised_rows(solver, readings, targets, plane, facing, tool, rotations,
                               tool_point, error)
    back = np.zeros(targets.shape[0], dtype=bool)
    moved = np.zeros(targets.shape[0], dtype=bool)
    out = (readings, status, reachable, tool_point, error, plane.phi, off, back)
    if rotations is None and arm.has_yaw and arm.has_pitch and solver.allow_reach_back:
        _back_rows(solver, targets, previous, wanted, roll, tool, facing, handled, out)
    if rotations is None and arm.has_yaw and arm.has_pitch and solver._roll_free and (
            solver._ideal or solver._quick is not None):
        _moved_rows(solver, targets, previous, wanted, roll, facing, handled, out + (moved,))
    orientation_error = np.full(targets.shape[0], np.nan)
    if rotations is not None:
        _, rotation, _, _ = chain_poses(arm.segments, arm.tail, readings)
        relative = np.einsum('nji,njk->nik', rotations, rotation)
        sine = 0.5 * np.sqrt((relative[:, 2, 1] - relative[:, 1, 2]) ** 2
                             + (relative[:, 0, 2] - relative[:, 2, 0]) ** 2
                             + (relative[:, 1, 0] - relative[:, 0, 1]) ** 2)
        cosine = 0.5 * (np.trace(relative, axis1=1, axis2=2) - 1.0)
        orientation_error = np.arctan2(sine, cosine)
    asked = _pitch_angles(wanted) if arm.has_pitch else np.full(targets.shape[0], np.nan)
    solution = DesktopBatchSolution(readings, status, reachable, tool_point, error, plane.phi,
                                    asked, off, orientation_error, back, moved)
    _scalar_rows(solver, solution, targets, previous, asked_pitch, orientations, ~handled)
    return solution


def _roll_may_move(solver, targets, tool, facing):
    """Return where a moved roll (class (b)) might face a target the held one does not.

    Nowhere without a roll that moves; else everywhere but where the yaw does not fit at the
    held roll and no roll brings it to a limit (the scalar solve's test).
    """
    if not solver._roll_free:
        return np.zeros(targets.shape[0], dtype=bool)
    arm = solver.arm
    a, b, c = arm.tool
    swing, lateral = math.hypot(b[2], c[2]), arm.wrist_lateral + a[2]
    d = targets - np.asarray(arm.origin)
    hu, hn = d @ np.asarray(arm.forward), d @ np.asarray(arm.normal)
    may = facing[5] != _S_LIMITED
    for limit in solver._yaw_limits_inside():
        yaw = arm.directions[0] * limit
        needed = hu * math.sin(yaw) + hn * math.cos(yaw)
        ahead = hu * math.cos(yaw) - hn * math.sin(yaw) > 0.0
        may |= ahead & (np.abs(needed - lateral) <= swing) & (swing > 0.0)
    return may


def _roll_may_reach(solver, targets, back, side=1.0):
    """Batch twin of ``MovedRoll._roll_may_reach``: where some roll might reach, (n,) bool.

    The same bound (the solver's ``_reach_bounds``), but false only where it fails by more
    than rounding could change (a thousandth of the on-target tolerance, or a NaN): a row it
    cannot tell goes on as if a moved roll might reach, and the scalar solve decides it. With
    ``side`` -1 the other way round: false wherever the bound might fail.
    """
    if not solver._roll_free:
        return np.zeros(targets.shape[0], dtype=bool)
    arm = solver.arm
    lat2_low, lat2_high, su, farthest_reach, inner, hole = solver._reach_bounds
    d = targets - np.asarray(arm.origin)
    hu, dv, hn = (d @ np.asarray(v) for v in (arm.forward, arm.up, arm.normal))
    dv = dv - arm.shoulder[1]
    rho2 = hu * hu + hn * hn
    margin = side * 1e-3 * solver._on_target
    with np.errstate(invalid='ignore'):
        u_low, u_high = np.sqrt(np.maximum(0.0, rho2 - lat2_high)), np.sqrt(rho2 - lat2_low)
        ends = (-u_high - su, -u_low - su) if back else (u_low - su, u_high - su)
        nearest = np.where((ends[0] <= 0.0) & (0.0 <= ends[1]), 0.0,
                           np.minimum(np.abs(ends[0]), np.abs(ends[1])))
        far = np.hypot(np.maximum(np.abs(ends[0]), np.abs(ends[1])), dv)
        out = ((np.hypot(nearest, dv) > farthest_reach + margin)
               | (far < max(inner, hole) - margin) | (rho2 < lat2_low * (1.0 - side * 1e-9)))
    return ~out


def _back_rows(solver, targets, previous, wanted, roll, tool, facing, handled, out):
    """Batch twin of class (c), reaching back with the roll held, in place.

    For the rows not yet answered where a moved roll cannot face the target; ``out``: the
    arrays to fill (readings, status, reachable, tool point, error, pitch, off plane, back).
    The rows it does not reach stay for the scalar solve (class (d)).
    """
    arm = solver.arm
    rows = np.flatnonzero(~handled)
    if not rows.size:
        return
    rows = rows[~(_roll_may_move(solver, targets[rows], tuple(t[rows] for t in tool),
                                 tuple(f[rows] for f in facing))
                  & _roll_may_reach(solver, targets[rows], False))]
    lateral = tool[2][rows]
    d = targets[rows] - np.asarray(arm.origin)
    hu, h, hn = (d @ np.asarray(v) for v in (arm.forward, arm.up, arm.normal))
    rho = np.hypot(hu, hn)
    near = 1e-3 * solver._on_target
    u = np.sqrt(np.maximum(0.0, (rho - lateral) * (rho + lateral)))
    yaw = np.arctan2(lateral * hu + u * hn, lateral * hn - u * hu)
    reading, clamped = fit_readings(arm.directions[0] * yaw, arm.lower_limits[0],
                                    arm.upper_limits[0],
                                    None if previous is None else previous[rows, 0])
    keep = (rho > near) & (rho >= np.abs(lateral) - near) & ~clamped
    rows, reading, yaw, u, h = rows[keep], reading[keep], yaw[keep], u[keep], h[keep]
    su, sv = arm.shoulder
    sub_tool = tuple(t[rows] for t in tool)
    sub_previous = None if previous is None else previous[rows]
    plane = _plane(solver, -u - su, h - sv, sub_tool, wanted[rows], sub_previous, False,
                   False)
    exact = np.isin(plane.status, [int(s) for s in ON_TARGET])
    facing = (reading, yaw, -u, h, np.zeros(rows.size), np.full(rows.size, -1))
    values = _readings(solver, facing, plane, roll[rows], sub_previous)
    points, errors = targets[rows].copy(), np.zeros(rows.size)
    if not solver._ideal:
        values, points, errors, done = solver._quick.correct_rows(
            values, targets[rows], yaw, plane.q1, plane.q2, plane.phi, sub_tool[0],
            sub_tool[2], plane.fixed)
        exact &= done
    rows, values, points, errors = rows[exact], values[exact], points[exact], errors[exact]
    readings, status, reachable, tool_point, error, phi, off, back = out
    readings[rows], tool_point[rows], error[rows] = values, points, errors
    status[rows], phi[rows] = plane.status[exact], plane.phi[exact]
    reachable[rows], off[rows], back[rows], handled[rows] = True, 0.0, True, True


def _moved_rows(solver, targets, previous, wanted, roll, facing, handled, out):
    """Batch twin of class (b)'s shortcut past the yaw's entry into its limits, in place.

    ``MovedRoll._past_yaw_entry`` for the rows not yet answered whose yaw does not fit its
    limits at the held roll: each row's trial roll from the scalar solver's own checks (they
    decide which rows try it, exactly as the scalar solve does), then the yaw, the plane and
    the quick correction at those rolls for all of them at once. A row the shortcut does
    not answer (the scalar one gives None: the walk decides) stays for the scalar solve.
    ``out``: the arrays to fill (as :func:`_back_rows`'s, then the roll moved).
    """
    rows = np.flatnonzero(~handled & (facing[5] == _S_LIMITED))
    trials, unsure = _entry_trials(solver, targets[rows], roll[rows])
    for at in np.flatnonzero(unsure).tolist():  # (within rounding of another answer)
        x, y, z = (float(v) for v in targets[rows[at]])
        held = float(roll[rows[at]])
        window = solver._moved_roll_window(x, y, z, held, False, False)
        trial = None if window is None else solver._entry_trial(*window, held)
        trials[at] = math.nan if trial is None else trial
    rows, trials = rows[np.isfinite(trials)], trials[np.isfinite(trials)]
    if not rows.size:
        return
    tool = _tool(solver.arm, trials)
    sub_previous = None if previous is None else previous[rows]
    facing = _face(solver, targets[rows], tool[2], sub_previous)
    su, sv = solver.arm.shoulder
    plane = _plane(solver, facing[2] - su, facing[3] - sv, tool, wanted[rows], sub_previous,
                   False, False)
    exact = (facing[5] < 0) & (plane.status == _S_REACHED)  # (not the other elbow)
    values = _readings(solver, facing, plane, trials, sub_previous)
    points, errors = targets[rows].copy(), np.zeros(rows.size)
    if not solver._ideal:
        values, points, errors, done = solver._quick.correct_rows(
            values, targets[rows], facing[1], plane.q1, plane.q2, plane.phi, tool[0], tool[2],
            plane.fixed)
        exact &= done
    rows, values, points, errors = rows[exact], values[exact], points[exact], errors[exact]
    readings, status, reachable, tool_point, error, phi, off, back, moved = out
    readings[rows], tool_point[rows], error[rows] = values, points, errors
    status[rows], phi[rows] = _S_REACHED, plane.phi[exact]
    reachable[rows], off[rows], back[rows], moved[rows], handled[rows] = True, 0.0, False, \
        True, True


def _windowed(rolls, low, high, near):
    """``_in_window`` of one column of rolls (NaN: none): (the two turns, whether near an edge)."""
    base = rolls + _TAU * np.ceil((low - rolls) / _TAU)
    turns = np.stack((base, base + _TAU), axis=1)
    inside = (low[:, None] <= turns) & (turns <= high[:, None])
    edge = (np.abs(turns - low[:, None]) <= near) | (np.abs(turns - high[:, None]) <= near)
    return np.where(inside, turns, np.nan), edge.any(axis=1)


def _closed_form_ends(geometry, hu, hn, needed, ahead, near):
    """Batch twin of ``RollGeometry.closed_form_ends``' rolls of some ``needed`` laterals.

    Returns the rolls (a list of (n,) arrays, NaN where none) and where a decision is near.
    """
    ends, unsure = [], np.zeros(hu.shape, dtype=bool)
    for value, kept in zip(needed, ahead):
        ratio = (value - geometry.lateral) / geometry.swing
        has = kept & (np.abs(ratio) <= 1.0)
        unsure |= np.abs(np.abs(ratio) - 1.0) <= near
        spread = np.arccos(np.clip(ratio, -1.0, 1.0))
        ends += [np.where(has, geometry.centre + spread, np.nan),
                 np.where(has, geometry.centre - spread, np.nan)]
    return ends, unsure


def _entry_trials(solver, targets, held):
    """Batch twin of ``_moved_roll_window`` then ``_entry_trial`` (facing, the yaw not fitting).

    Returns (trial rolls, rad, NaN where none; unsure): ``unsure`` where rounding could
    change a decision (a tie, an edge, the reach bound's): the scalar checks decide those.
    """
    geometry, arm = solver._roll_geometry, solver.arm
    count, near = targets.shape[0], 1e-9
    index = arm.indices[4]
    low = np.maximum(arm.lower_limits[index], held - math.pi)
    high = np.minimum(arm.upper_limits[index], held + math.pi)
    sure_in = _roll_may_reach(solver, targets, False, -1.0)
    maybe = _roll_may_reach(solver, targets, False)
    unsure = maybe & ~sure_in
    if geometry.swing == 0.0:
        return np.full(count, np.nan), unsure
    d = targets - np.asarray(arm.origin)
    hu, hn = d @ np.asarray(arm.forward), d @ np.asarray(arm.normal)
    ahead = [hu * math.cos(yaw) - hn * math.sin(yaw) for yaw in geometry.yaw_angles]
    unsure |= np.any([np.abs(a) <= near for a in ahead], axis=0) if ahead else False
    limits, odd = _closed_form_ends(
        geometry, hu, hn, [hu * math.sin(yaw) + hn * math.cos(yaw)
                           for yaw in geometry.yaw_angles], [a > 0.0 for a in ahead], near)
    unsure |= odd
    rho = np.hypot(hu, hn)
    facing, odd = _closed_form_ends(geometry, hu, hn, (rho, -rho), (True, True), near)
    unsure |= odd
    columns = []
    for group in (limits, facing):
        turns = []
        for rolls in group:
            both, edge = _windowed(rolls, low, high, near)
            turns.append(both)
            unsure |= edge
        columns.append(np.concatenate(turns, axis=1) if turns else np.full((count, 1), np.nan))
    limits, facing = columns
    distance = np.abs(limits - held[:, None])
    nearest_distance = np.nanmin(np.where(np.isnan(distance), np.inf, distance), axis=1)
    column = np.argmin(np.where(np.isnan(distance), np.inf, distance), axis=1)
    nearest = limits[np.arange(count), column]
    ties = np.sum(np.abs(distance - nearest_distance[:, None]) <= near, axis=1)
    unsure |= (ties > 1) | (nearest_distance <= near)
    to_facing = np.abs(facing - held[:, None])
    blocked = np.any(to_facing <= nearest_distance[:, None], axis=1)
    unsure |= np.any(np.abs(to_facing - nearest_distance[:, None]) <= near, axis=1)
    margin = solver._roll_margin
    trial = nearest + np.copysign(margin, nearest - held)
    fits = (low + margin < trial) & (trial < high - margin)
    unsure |= (np.abs(trial - low - margin) <= near) | (np.abs(high - margin - trial) <= near)
    ok = maybe & np.isfinite(nearest) & ~blocked & fits
    return np.where(ok & ~unsure, trial, np.nan), unsure


def _vectorised_rows(solver, readings, targets, plane, facing, tool, rotations, tool_point,
                     error):
    """Return the rows whose answer is the scalar ``solve``'s as computed (the rest: not yet).

    An ideal arm's rows, but, position only with a yaw, just those the facing plane reaches at
    the held roll (the others: the preference order's later classes); an arm whose axes are
    off: those the quick correction puts on the target (in place), position only with a yaw
    and a pitch.
    """
    count = targets.shape[0]
    arm = solver.arm
    if rotations is not None or not arm.has_yaw:
        return np.full(count, solver._ideal)
    faced = np.isin(plane.status, [int(s) for s in ON_TARGET]) & (facing[5] < 0)
    if solver._ideal or solver._quick is None:
        return faced & solver._ideal
    rows = np.flatnonzero(faced)
    values, tools, sizes, done = solver._quick.correct_rows(
        readings[rows], targets[rows], facing[1][rows], plane.q1[rows], plane.q2[rows],
        plane.phi[rows], tool[0][rows], tool[2][rows], plane.fixed[rows])
    readings[rows[done]], tool_point[rows[done]], error[rows[done]] = (
        values[done], tools[done], sizes[done])
    handled = np.zeros(count, dtype=bool)
    handled[rows[done]] = True
    return handled


def _scalar_rows(solver, solution, targets, previous, asked_pitch, orientations, rows):
    """Solve the ``rows`` (a mask) with the scalar ``solve``, in place.

    What is not vectorised (see :func:`_vectorised_rows`): so that every row is the scalar
    ``solve``'s.
    """
    for row in np.flatnonzero(rows):
        sol = solver.solve_general(
            *map(float, targets[row]),
            None if previous is None else tuple(map(float, previous[row])),
            float(asked_pitch[row]),
            None if orientations is None else tuple(map(float, orientations[row])))
        solution.orientation_error[row] = sol.orientation_error
        solution.readings[row] = sol.readings
        solution.status[row] = int(sol.status)
        solution.reachable[row] = sol.reachable
        solution.tool[row] = sol.tool
        solution.error[row] = sol.error
        solution.approach_pitch[row] = sol.approach_pitch
        solution.off_plane[row] = sol.off_plane
        solution.back[row] = sol.yaw_branch == 'back'
        solution.roll_moved[row] = sol.roll_moved
