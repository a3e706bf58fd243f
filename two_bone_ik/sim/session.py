"""What the simulated arm's node decides, below the node (ROS-free; the clock is passed in).

A :class:`SimSession` owns an :class:`~two_bone_ik.sim.arm_sim.ArmSim` and takes the node's
inputs as plain values:

- stepping: the physics follows the clock times ``real_time_factor``; it catches up before
  each publication and before applying each command, so a command acts from the moment it
  arrives; when it falls further behind than ``max_lag`` the rest is skipped (with a warning);
- which command is in force: the latest accepted one, whatever its input. A ``joint_commands``
  message naming an arm joint, or a ``commands`` message, ends a trajectory being followed
  (joints not named keep their targets); a ``joint_commands`` message naming only joints off
  the chain (a gripper) leaves it running;
- refusals: ``joint_commands`` entries are matched by name
  (:func:`~two_bone_ik.arm.joint_commands.match_command`); ``commands`` and ``joint_trajectory``
  messages are checked as ros2_controllers' controllers check them
  (:mod:`~two_bone_ik.sim.controller_commands`), and a trajectory whose splines overflow is
  refused too. A refused message changes nothing;
- trajectory following: while a trajectory runs, each physics step heads for its sample at the
  end of the step (:class:`~two_bone_ik.sim.trajectory_follower.TrajectoryFollower`);
- warnings: each method returns the lines to log, at most one per ``warning_period`` per kind
  (topic and rule);
- diagnostics: :meth:`SimSession.diagnostics` says what is in force and what went wrong.

Times are seconds: the clock's (wall) and the simulation's, ``real_time_factor`` apart.
"""

import time
from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple

from two_bone_ik.arm.joint_commands import command_problems, CommandMatch, match_command
from two_bone_ik.common.warning_throttle import WarningThrottle
from two_bone_ik.ik.status import OK, WARN
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.controller_commands import CommandRejected, position_command
from two_bone_ik.sim.controller_commands import trajectory_command
from two_bone_ik.sim.trajectory_follower import TrajectoryFollower, TrajectoryOverflow
from two_bone_ik.sim.trajectory_follower import TrajectoryPoint

#: When the physics falls further behind the clock than this (clock seconds), the rest is
#: skipped.
MAX_LAG = 0.25

#: Minimum seconds between two warnings of the same kind.
WARNING_PERIOD = 5.0

#: Name of the ``sensor_msgs/JointState`` command input.
JOINT_COMMANDS = 'joint_commands'


class SimDiagnostics(NamedTuple):
    """One report of the simulation: a level (0 OK, 1 WARN), a line, and (key, value) pairs."""

    level: int
    message: str
    values: Tuple[Tuple[str, str], ...]


class SimSession:
    """The simulated arm's inputs, stepping, refusals and reports (see the module docstring).

    Parameters
    ----------
    sim : ArmSim
        The simulated arm, at its initial state.
    real_time_factor : float
        Simulated seconds per clock second.
    clock : callable
        Returns the time, s (default ``time.monotonic``); the simulation starts at its first
        reading.
    max_lag : float
        Clock seconds the physics may fall behind before the rest is skipped.
    warning_period : float
        Minimum clock seconds between two warnings of the same kind.
    """

    def __init__(self, sim: ArmSim, real_time_factor: float = 1.0,
                 clock: Callable[[], float] = time.monotonic, max_lag: float = MAX_LAG,
                 warning_period: float = WARNING_PERIOD):
        self._sim = sim
        self._rate_factor = float(real_time_factor)
        self._clock = clock
        self._max_lag = float(max_lag)
        self._arm_joints = tuple(sim.arm.joint_names)
        self._follower = TrajectoryFollower(
            [r is None for r in sim.joint_ranges[:len(self._arm_joints)]])
        self._throttle = WarningThrottle(warning_period, clock)
        self._clock_start = clock()
        self._input: Optional[str] = None  # the input whose command is in force
        self._accepted = 0
        self._refused = 0
        self._last_refusal = ''
        self._skipped = 0.0  # simulated seconds skipped to keep up
        self._reported = (0, 0.0)  # refusals and skipped time at the last diagnostics
        self._reported_contacts = 0  # the arm's contacts with the workspace, likewise

    @property
    def sim(self) -> ArmSim:
        """The simulated arm (read its state; command it through the session)."""
        return self._sim

    @property
    def following(self) -> bool:
        """Whether a trajectory is being followed (before its last point)."""
        return self._follower.active and self._sim.time < self._follower.end_time

    def _warn(self, kind, line: str, warnings: List[str]) -> None:
        if self._throttle.allow(kind):
            warnings.append(line)

    # -- stepping -----------------------------------------------------------------------------

    def catch_up(self) -> List[str]:
        """Step the physics up to the clock times the real-time factor; return warnings."""
        sim = self._sim
        warnings: List[str] = []
        due = (self._clock() - self._clock_start) * self._rate_factor
        steps = int((due - sim.time) / sim.timestep)
        max_steps = int(self._max_lag * self._rate_factor / sim.timestep) + 1
        if steps > max_steps:
            # Too slow to keep up (a busy machine): skip the backlog rather than spiral.
            skipped = (steps - max_steps) * sim.timestep
            self._clock_start += skipped / self._rate_factor
            self._skipped += skipped
            steps = max_steps
            self._warn('lag', f'the simulation fell {skipped:.3f} s behind; skipping ahead '
                       '(lower real_time_factor or raise timestep)', warnings)
        follower = self._follower
        while steps > 0 and follower.active:
            # Each step heads for the trajectory's sample at its end, until the last point.
            end = sim.time + sim.timestep
            sim.command(follower.sample(end).positions)
            sim.step(1)
            steps -= 1
            if end >= follower.end_time:
                follower.clear()  # the last point's targets stay
        sim.step(steps)
        return warnings

    # -- inputs -------------------------------------------------------------------------------

    def joint_command(self, names: Sequence[str], positions: Sequence[float]) -> List[str]:
        """Apply a ``joint_commands`` message (names and positions); return warnings.

        Every simulated joint can be named, the arm's and those off the chain.
        """
        warnings = self.catch_up()  # the old targets hold until now
        joints = self._sim.joint_names
        match: CommandMatch = match_command(names, positions, joints)
        unnamed = not len(names) and len(positions) > 0
        for kind, line in command_problems(match, joints, unnamed):
            self._warn((JOINT_COMMANDS, kind), line, warnings)
        if match.targets:
            if any(index < len(self._arm_joints) for index in match.targets):
                self._follower.clear()
                self._input = JOINT_COMMANDS
            self._sim.set_targets(match.targets)
            self._accepted += 1
        return warnings

    def position_command(self, topic: str, data: Sequence[float]) -> List[str]:
        """Apply a ``<position_controller>/commands`` message's ``data``; return warnings."""
        warnings = self.catch_up()
        try:
            positions = position_command(data, self._arm_joints)
        except CommandRejected as rejected:
            self._refuse(topic, rejected, warnings)
            return warnings
        self._follower.clear()
        self._sim.command(positions)
        self._input = topic
        self._accepted += 1
        return warnings

    def trajectory(self, topic: str, names: Sequence[str], points: Sequence[TrajectoryPoint],
                   stamp_delay: Optional[float]) -> List[str]:
        """Follow a ``<trajectory_controller>/joint_trajectory`` message; return warnings.

        Parameters
        ----------
        topic : str
            The topic, for the warnings.
        names : sequence of str
            The message's ``joint_names``.
        points : sequence of TrajectoryPoint
            Its points, ``time_from_start`` in simulated seconds.
        stamp_delay : float or None
            Clock seconds from now until ``header.stamp``; None for a zero stamp (start now).
        """
        warnings = self.catch_up()
        sim = self._sim
        start_delay = None if stamp_delay is None else stamp_delay * self._rate_factor
        count = len(self._arm_joints)
        try:
            trajectory = trajectory_command(names, points, start_delay, self._arm_joints)
            self._follower.start(
                trajectory.points, sim.time, sim.positions[:count], sim.velocities[:count],
                start_time=None if start_delay is None else sim.time + start_delay)
        except CommandRejected as rejected:
            self._refuse(topic, rejected, warnings)
            return warnings
        except TrajectoryOverflow as overflow:
            start = ('the state at reception' if overflow.from_state
                     else f'point {overflow.point - 1}')
            self._refuse(topic, CommandRejected(
                'overflow', f'point {overflow.point}: the spline to it overflows for '
                f'{self._arm_joints[overflow.joint]} (from {start}); positions, velocities and '
                'accelerations must keep it within the range of a double'), warnings)
            return warnings
        self._input = topic
        self._accepted += 1
        return warnings

    def _refuse(self, topic: str, rejected: CommandRejected, warnings: List[str]) -> None:
        """Count a refused message and warn, once per ``warning_period`` per topic and rule."""
        self._refused += 1
        self._last_refusal = f'{topic}: rejected: {rejected}'
        self._warn((topic, rejected.rule), self._last_refusal, warnings)

    # -- reports ------------------------------------------------------------------------------

    def diagnostics(self) -> SimDiagnostics:
        """Report what is in force; WARN if messages were refused or time skipped since the last.

        Each call starts a new reporting period.
        """
        refused, skipped = self._refused - self._reported[0], self._skipped - self._reported[1]
        self._reported = (self._refused, self._skipped)
        remaining = self._follower.end_time - self._sim.time if self.following else 0.0
        if self.following:
            doing = f'following {self._input} ({remaining:.3f} s to its last point)'
        elif self._input is not None:
            doing = f'holding the last command from {self._input}'
        else:
            doing = 'holding the initial positions'
        problems = []
        if refused:
            problems.append(f'{refused} message(s) refused since the last report, the last: '
                            f'{self._last_refusal}')
        if skipped > 0.0:
            problems.append(f'{skipped:.3f} s of simulation skipped to keep up with the clock')
        values = (
            ('input', self._input or 'none'),
            ('following_trajectory', 'true' if self.following else 'false'),
            ('trajectory_remaining', f'{remaining:.6g}'),
            ('simulated_time', f'{self._sim.time:.6f}'),
            ('real_time_factor', f'{self._rate_factor:g}'),
            ('joints', ', '.join(self._sim.joint_names)),
            ('commands_accepted', str(self._accepted)),
            ('messages_refused', str(self._refused)),
            ('last_refusal', self._last_refusal),
            ('time_skipped', f'{self._skipped:.6g}'))
        contacts = self._sim.contacts
        if contacts.active:
            values += (('table_contacts', str(contacts.contacts)),
                       ('table_contact_steps', str(contacts.steps)),
                       ('deepest_contact', f'{contacts.deepest:.6f}'),
                       ('last_contact', contacts.last))
            if contacts.contacts > self._reported_contacts:
                problems.append(f'{contacts.contacts - self._reported_contacts} contact(s) of '
                                f'the arm with the floor or a box, the last: {contacts.last}')
            self._reported_contacts = contacts.contacts
        if problems:
            return SimDiagnostics(WARN, f"{doing}; {'; '.join(problems)}", values)
        return SimDiagnostics(OK, doing, values)
