"""A MuJoCo simulation of an arm: the generated two-link one, or the user's URDF (ROS-free).

The model is a URDF (by default the one :func:`two_bone_ik.arm.urdf_export.arm_urdf` generates
for the arm; or the user's robot description, prepared by
:func:`two_bone_ik.sim.mujoco_urdf.urdf_for_mujoco`: meshes dropped, joints not simulated held
fixed; see :mod:`two_bone_ik.sim.simulated_arm` for which are) loaded with MuJoCo's URDF
importer, then edited as an ``mujoco.MjSpec`` before compiling:

- one position actuator per simulated joint (the arm's 2 to 5, then any off the chain, such as
  a gripper), torque ``kp * (target - q) - kv * dq``, not force-limited; the gains come from a
  natural frequency and a damping ratio, scaled by the joint-space inertia at the zero pose, so
  one setting suits arms of any size;
- viscous joint damping, the integration time step and the implicit-in-velocity integrator;
- joint ranges: the URDF's, narrowed by the arm's limits (finite ones, see
  :func:`two_bone_ik.arm.urdf_export.urdf_joint_limits`), and targets clamped into them;
- optional gravity compensation (gravity is -z of the URDF's root link, MuJoCo's world frame);
- optionally the workspace: the floor, the keep-out boxes and the links' capsules, whose
  contacts are real and counted (:mod:`two_bone_ik.sim.workspace_geometry`);
- blocked joints (for tests and demos of an arm that does not follow): their actuators ignore
  every command and hold the position they started at, as a joint held by an obstacle would;
- what it is seen with, which changes no physics: cameras framing the reach, a light, a sky
  (:func:`two_bone_ik.sim.views.add_views`).

A joint unlimited on both sides is continuous: a target is reached the short way round from the
current angle (the target angle modulo a full turn), as a position controller with angle
wrap-around does.

Positions are radians (metres for a prismatic joint), velocities rad/s, efforts N m, lengths
metres, times seconds.
"""

import math
from typing import Iterable, Mapping, Optional, Sequence, Tuple, Union

import mujoco
import numpy as np

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_config import DesktopConfig
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.arm.urdf_export import urdf_joint_limits
from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.sim.defaults import DEFAULT_DAMPING_RATIO, DEFAULT_JOINT_DAMPING
from two_bone_ik.sim.defaults import DEFAULT_NATURAL_FREQUENCY, DEFAULT_TIMESTEP
from two_bone_ik.sim.simulated_arm import simulated_arm, SimulatedArm
from two_bone_ik.sim.views import add_views
from two_bone_ik.sim.workspace_geometry import add_workspace, SimWorkspace, TableContacts


class SimError(ConfigError):
    """An invalid simulation setting; the message names the bad value."""


def _positive(name: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and value > 0.0):
        raise SimError(f'{name}: expected a positive finite number, got {value!r}')
    return value


def _simulated(arm, urdf: Optional[str]) -> SimulatedArm:
    """Return ``arm`` (and ``urdf``) as the :class:`SimulatedArm` to build."""
    if isinstance(arm, SimulatedArm):
        if urdf is not None:
            raise SimError('urdf: a SimulatedArm brings its own URDF')
        return arm
    if isinstance(arm, DesktopConfig):
        if urdf is not None:
            raise SimError('urdf: a desktop arm from parameters is simulated from the URDF '
                           'written for it')
        return simulated_arm(arm)
    geometry = arm if isinstance(arm, ArmGeometry) else ArmGeometry.from_config(arm)
    return SimulatedArm.from_geometry(geometry, urdf or '')


def _imported_range(joint) -> Tuple[float, float]:
    """Return the range MuJoCo's URDF importer gave ``joint`` (an MjSpec joint), or infinite."""
    low, high = (float(v) for v in joint.range)
    if joint.limited == mujoco.mjtLimited.mjLIMITED_FALSE or low == high == 0.0:
        return -math.inf, math.inf
    return low, high


class ArmSim:
    """Position-controlled MuJoCo model of an arm.

    Parameters
    ----------
    arm : ArmConfig, DesktopConfig, ArmGeometry or SimulatedArm
        The arm: joint names, base frame, joint limits (the simulated hardware's, in readings,
        narrowing the URDF's) and the URDF to load (see
        :func:`two_bone_ik.sim.simulated_arm.simulated_arm`); an ``ArmConfig``, a
        ``DesktopConfig`` or an ``ArmGeometry`` without ``urdf`` is simulated from the URDF
        generated for it.
    natural_frequency : float
        Undamped natural frequency of each position loop, Hz: the position gain of joint i is
        ``kp_i = (2 pi f)^2 M_ii`` with ``M_ii`` the joint-space inertia at the zero pose, so
        arms of any size respond alike (about 0.4 s to settle a step at the default 3 Hz).
    damping_ratio : float
        Damping ratio of each position loop (1 = critical at the zero pose, more when folded):
        velocity gain ``kv_i = 2 zeta (2 pi f) M_ii``.
    joint_damping : float
        Viscous damping of every simulated joint, N m s / rad (>= 0).
    timestep : float
        Integration step, s.
    gravity_compensation : bool
        Cancel gravity on the links (as an arm whose servos hold it would); otherwise a vertical
        arm sags by ``torque / kp``.
    initial_positions : sequence of float, optional
        One angle per arm joint (``arm.joint_names``) at the start and after :meth:`reset`,
        rad; also the initial targets. Default zeros. Joints off the chain start at 0, or the
        end of their range nearest 0.
    urdf : str, optional
        The user's robot description to simulate instead of a generated one, when ``arm`` is
        the :class:`ArmGeometry` imported from it (its ``tip_frame`` is the tip).
    workspace : SimWorkspace, optional
        The floor, keep-out boxes and link radii to add (:attr:`contacts` counts the arm's
        contacts with them); None or no obstacle: none.
    blocked_joints : sequence of str, optional
        Simulated joints whose actuators hold their initial position whatever is commanded.

    Raises
    ------
    SimError
        If a setting is out of range or the model does not compile.
    """

    def __init__(self, arm: Union[ArmConfig, DesktopConfig, ArmGeometry, SimulatedArm],
                 natural_frequency: float = DEFAULT_NATURAL_FREQUENCY,
                 damping_ratio: float = DEFAULT_DAMPING_RATIO,
                 joint_damping: float = DEFAULT_JOINT_DAMPING,
                 timestep: float = DEFAULT_TIMESTEP, gravity_compensation: bool = True,
                 initial_positions: Optional[Sequence[float]] = None,
                 urdf: Optional[str] = None, workspace: Optional[SimWorkspace] = None,
                 blocked_joints: Sequence[str] = ()):
        natural_frequency = _positive('natural_frequency', natural_frequency)
        damping_ratio = _positive('damping_ratio', damping_ratio)
        timestep = _positive('timestep', timestep)
        joint_damping = float(joint_damping)
        if not (math.isfinite(joint_damping) and joint_damping >= 0.0):
            raise SimError(
                f'joint_damping: expected a non-negative finite number, got {joint_damping!r}')
        #: The simulated arm: its joints, frames and URDF.
        self.arm = _simulated(arm, urdf)
        count = len(self.arm.joint_names)
        initial = [0.0] * count if initial_positions is None else [
            float(v) for v in initial_positions]
        if len(initial) != count or not all(math.isfinite(v) for v in initial):
            raise SimError(f'initial_positions: expected {count} finite angles (one per joint: '
                           f"{', '.join(self.arm.joint_names)}), got {list(initial_positions)!r}")
        #: Every simulated joint: the arm's, then those off the chain.
        self.joint_names = self.arm.joint_names + self.arm.extra_joints
        unknown = [name for name in blocked_joints if name not in self.joint_names]
        if unknown:
            raise SimError(f"blocked_joints: no simulated joint named {', '.join(unknown)} "
                           f"(the joints: {', '.join(self.joint_names)})")
        #: Indices (in :attr:`joint_names`) of the joints that hold whatever is commanded.
        self.blocked = frozenset(self.joint_names.index(name) for name in blocked_joints)
        try:
            spec = mujoco.MjSpec.from_string(self.arm.urdf)
        except ValueError as exc:
            raise SimError(f'urdf: MuJoCo could not read the model: {exc}') from None
        spec.compiler.fusestatic = False
        spec.compiler.discardvisual = False
        spec.option.timestep = timestep
        spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
        #: Per simulated joint: finite (lower, upper) range, or None for a continuous joint.
        self.joint_ranges = self._set_up_joints(spec, joint_damping, timestep)
        for body in spec.bodies:
            body.gravcomp = 1.0 if gravity_compensation else 0.0
        self._add_actuators(spec, natural_frequency, damping_ratio)
        added = ([], [])
        if workspace is not None and workspace.obstacles.active:
            added = add_workspace(spec, self._compiled(spec), self.arm, workspace)
        try:
            #: The sphere the model's cameras frame (:mod:`two_bone_ik.sim.views`).
            self.reach = add_views(spec, self.arm.base_frame, self.arm.tip_frame)
        except ValueError as exc:
            raise SimError(str(exc)) from None
        self.model = self._compiled(spec)
        #: The arm's contacts with the floor and the keep-out boxes.
        self.contacts = TableContacts(self.model, *added)
        self.data = mujoco.MjData(self.model)
        self._qpos_adr = np.array(
            [self.model.jnt_qposadr[self.model.joint(n).id] for n in self.joint_names])
        self._dof_adr = np.array(
            [self.model.jnt_dofadr[self.model.joint(n).id] for n in self.joint_names])
        self._actuators = np.array(
            [self.model.actuator(f'{n}_position').id for n in self.joint_names])
        self._tool = self._body_id(self.arm.tip_frame, 'tip_frame')
        self._base = self._body_id(self.arm.base_frame, 'base_frame')
        # Off the chain: 0, or the nearest end of the range.
        self._initial = tuple(initial) + tuple(
            0.0 if r is None else min(max(0.0, r[0]), r[1]) for r in self.joint_ranges[count:])
        self.reset()

    def _set_up_joints(self, spec, joint_damping: float, timestep: float) -> tuple:
        """Damp and bound every simulated joint of ``spec``; return their ranges."""
        count = len(self.arm.joint_names)
        ranges = []
        for index, name in enumerate(self.joint_names):
            joint = spec.joint(name)
            if joint is None:
                raise SimError(f'urdf: no joint named {name!r}')
            low, high = _imported_range(joint)
            if index < count:  # the arm's own limits narrow the URDF's
                low = max(low, float(self.arm.lower_limits[index]))
                high = min(high, float(self.arm.upper_limits[index]))
            if low > high:
                raise SimError(f'{name}: the limits leave no range ({low:g} > {high:g})')
            joint_range = urdf_joint_limits(low, high)
            joint.damping = [joint_damping, 0.0, 0.0]  # linear term only
            # The URDF effort limit would become a force limit here; the gains decide instead.
            joint.actfrclimited = mujoco.mjtLimited.mjLIMITED_FALSE
            if joint_range is None:
                joint.limited = mujoco.mjtLimited.mjLIMITED_FALSE
            else:
                joint.limited = mujoco.mjtLimited.mjLIMITED_TRUE
                joint.range = joint_range
                # Stiffer than MuJoCo's default (0.02 s), as stiff as the step allows.
                joint.solref_limit = [2.0 * timestep, 1.0]
            ranges.append(joint_range)
        return tuple(ranges)

    def _add_actuators(self, spec, natural_frequency: float, damping_ratio: float) -> None:
        """Add a position actuator per simulated joint, its gains from the zero-pose inertia."""
        # Each joint alone is then a second-order system with the requested frequency and
        # damping (at the zero pose: for the generated arm, stretched along +u).
        inertia = self._zero_pose_inertia(spec)
        omega = 2.0 * math.pi * natural_frequency
        #: Position gains, N m / rad, and velocity gains, N m s / rad, per simulated joint.
        self.kp = tuple(omega ** 2 * m for m in inertia)
        self.kv = tuple(2.0 * damping_ratio * omega * m for m in inertia)
        for name, kp, kv in zip(self.joint_names, self.kp, self.kv):
            actuator = spec.add_actuator()
            actuator.name = f'{name}_position'
            actuator.trntype = mujoco.mjtTrn.mjTRN_JOINT
            actuator.target = name
            actuator.set_to_position(kp=kp, kv=kv)

    def _zero_pose_inertia(self, spec) -> Tuple[float, ...]:
        """Diagonal of the joint-space inertia matrix at the zero pose, kg m^2."""
        model = self._compiled(spec)
        data = mujoco.MjData(model)
        mujoco.mj_forward(model, data)
        full = np.zeros((model.nv, model.nv))
        mujoco.mj_fullM(model, data, full)
        return tuple(float(full[a, a]) for a in
                     (model.jnt_dofadr[model.joint(n).id] for n in self.joint_names))

    def _body_id(self, name: str, what: str) -> int:
        try:
            return self.model.body(name).id
        except KeyError:
            raise SimError(f'{what}: the simulated model has no link {name!r}') from None

    @staticmethod
    def _compiled(spec):
        try:
            return spec.compile()
        except ValueError as exc:
            raise SimError(f'urdf: MuJoCo could not compile the model: {exc}') from None

    # -- state -----------------------------------------------------------------------------

    def reset(self, positions: Optional[Sequence[float]] = None) -> None:
        """Put the arm at rest at ``positions`` (default: the initial positions), rad.

        ``positions`` gives the first joints of :attr:`joint_names` (the arm's, at least); the
        others go back to their initial positions. The targets are set to the same angles and
        the time to 0.
        """
        positions = () if positions is None else tuple(float(v) for v in positions)
        positions += self._initial[len(positions):]
        mujoco.mj_resetData(self.model, self.data)
        self.data.qpos[self._qpos_adr] = positions
        self.data.ctrl[self._actuators] = positions
        mujoco.mj_forward(self.model, self.data)

    @property
    def timestep(self) -> float:
        """Integration step, s."""
        return float(self.model.opt.timestep)

    @property
    def time(self) -> float:
        """Simulated time since the last reset, s."""
        return float(self.data.time)

    # The joint-indexed properties use integer-array (fancy) indexing, which already returns a
    # new array: no further copy. The tip and elbow ones index one row, a view: copied.

    @property
    def positions(self) -> np.ndarray:
        """Positions of the simulated joints (:attr:`joint_names`), rad, shape (joints,)."""
        return self.data.qpos[self._qpos_adr]

    @property
    def velocities(self) -> np.ndarray:
        """Velocities of the simulated joints, rad/s, shape (joints,)."""
        return self.data.qvel[self._dof_adr]

    @property
    def efforts(self) -> np.ndarray:
        """Actuator torques (forces) on the simulated joints, N m (N), shape (joints,)."""
        return self.data.qfrc_actuator[self._dof_adr]

    @property
    def targets(self) -> np.ndarray:
        """Current actuator targets of the simulated joints, rad, shape (joints,)."""
        return self.data.ctrl[self._actuators]

    @property
    def tip_position(self) -> np.ndarray:
        """Origin of the tip link in ``base_frame``, m, shape (3,)."""
        data, base = self.data, self._base
        return data.xmat[base].reshape(3, 3).T @ (data.xpos[self._tool] - data.xpos[base])

    @property
    def tip_quaternion(self) -> np.ndarray:
        """Orientation of the tip link in ``base_frame``, (w, x, y, z), shape (4,)."""
        data = self.data
        relative = np.empty(4)
        conjugate = np.empty(4)
        mujoco.mju_negQuat(conjugate, data.xquat[self._base])
        mujoco.mju_mulQuat(relative, conjugate, data.xquat[self._tool])
        return relative

    # -- commands and stepping -------------------------------------------------------------

    def clamp_target(self, index: int, position: float) -> float:
        """Return the actuator target for a commanded position of joint ``index``, rad.

        Limited joints: the position clamped into the joint range. Continuous joints: the angle
        modulo a full turn that is nearest to the current angle.

        Raises
        ------
        ValueError
            If ``position`` is not finite (a command, never a setting: callers check first).
        """
        position = float(position)
        if not math.isfinite(position):
            raise ValueError(f'position: expected a finite angle, got {position!r}')
        joint_range = self.joint_ranges[index]
        if joint_range is None:
            current = float(self.data.qpos[self._qpos_adr[index]])
            return current + math.remainder(position - current, math.tau)
        return min(max(position, joint_range[0]), joint_range[1])

    def set_targets(self, targets: Mapping[int, float]) -> None:
        """Set the actuator targets of some joints.

        Parameters
        ----------
        targets : mapping of int to float
            ``{joint index in joint_names: position}``, rad (as in
            ``match_command(...).targets``); joints not mentioned keep their target. Positions
            go through :meth:`clamp_target`; a non-finite one raises before any is set.
            Blocked joints keep their target.
        """
        clamped = {index: self.clamp_target(index, position)
                   for index, position in targets.items() if index not in self.blocked}
        for index, position in clamped.items():
            self.data.ctrl[self._actuators[index]] = position

    def command(self, positions: Iterable[float]) -> None:
        """Set the targets of the first joints of :attr:`joint_names`, rad, in that order.

        Shorthand for :meth:`set_targets`; the arm's joints come first.
        """
        self.set_targets(dict(enumerate(positions)))

    def step(self, steps: int = 1) -> None:
        """Advance the simulation by ``steps`` time steps."""
        steps = int(steps)
        if steps > 0 and self.contacts.active:
            for _ in range(steps):  # each step's contacts counted
                mujoco.mj_step(self.model, self.data)
                self.contacts.record(self.data)
        elif steps > 0:
            mujoco.mj_step(self.model, self.data, nstep=steps)
        if steps > 0:
            # mj_step leaves the frame positions at the pose before its last integration:
            # bring them up to date so the tip always belongs to ``positions``.
            mujoco.mj_kinematics(self.model, self.data)

    def advance(self, duration: float) -> int:
        """Advance by ``duration`` seconds (rounded to whole steps); returns the steps taken."""
        steps = int(round(float(duration) / self.timestep))
        self.step(steps)
        return max(steps, 0)

    def settle(self, tolerance: float = 1e-5, timeout: float = 10.0) -> bool:
        """Step until joints are within ``tolerance`` rad of their targets and at rest.

        Parameters
        ----------
        tolerance : float
            Largest joint error (rad) and velocity (rad/s) that count as settled.
        timeout : float
            Simulated seconds to give up after.

        Returns
        -------
        bool
            Whether the arm settled before the timeout.
        """
        chunk = max(1, int(round(0.01 / self.timestep)))
        deadline = self.time + timeout
        while self.time < deadline:
            error = np.abs(self.targets - self.positions).max()
            if error <= tolerance and np.abs(self.velocities).max() <= tolerance:
                return True
            self.step(chunk)
        return False
