"""Tests of two_bone_ik.nodes.teleop_command: ``two_bone_ik_teleop`` in a real terminal.

The tool runs in a tmux pane (a terminal of its own, on a tmux server of its own); keys go in
with ``tmux send-keys``, the screen comes out with ``tmux capture-pane``. The probe plays the
IK node: it publishes ``ik_status`` and ``reachable`` and collects the twists the tool sends.
A wrapper script around the tool records the terminal's settings before and after, and the
exit code, so that restoring the terminal is checked too.
"""

from pathlib import Path
import shlex
import shutil
import subprocess
import sys

from diagnostic_msgs.msg import DiagnosticStatus, KeyValue
from geometry_msgs.msg import TwistStamped
from ik_client import LATCHED
import pytest
from ros_harness import REPO_ROOT, ros_environment
from std_msgs.msg import Bool

NS = '/arm'
SPEED, ANGULAR = 0.02, 0.2


def twist_tuple(msg):
    t = msg.twist
    return (t.linear.x, t.linear.y, t.linear.z, t.angular.x, t.angular.y, t.angular.z)


def status_msg(level, code, name, text):
    return DiagnosticStatus(level=level, name='two_bone_ik: target', message=f'{name}: {text}',
                            values=[KeyValue(key='code', value=str(code)),
                                    KeyValue(key='status', value=name),
                                    KeyValue(key='tip_error', value='0.000000')])


class Pane:
    """``two_bone_ik_teleop`` running in a tmux pane, with a wrapper that records its end."""

    def __init__(self, tmp_path, domain, args, command=None):
        tmux = shutil.which('tmux')
        assert tmux, ('tmux is not installed: the teleop terminal test needs it (.ci/run '
                      'installs it; here: apt-get install -y tmux)')
        self.dir = Path(tmp_path)
        # A server of its own, its socket in the test's directory (tmux leaves it behind).
        self.tmux = [tmux, '-S', str(self.dir / 'tmux.socket'), '-f', '/dev/null']
        tool = list(command or [sys.executable, '-m', 'two_bone_ik.nodes.teleop_command'])
        tool += list(args)
        (self.dir / 'run.sh').write_text(
            'stty -g > stty.before\n'
            f'{shlex.join(tool)} 2> tool.stderr\n'
            'echo $? > exit.code\n'
            'stty -g > stty.after\n'
            'exec sleep 600\n')
        # The tmux server, started here, passes this environment to the pane (an installed
        # console script runs the installed package).
        self.env = ros_environment(domain, None if command else REPO_ROOT)
        self.env.pop('TMUX', None)
        self._tmux('new-session', '-d', '-x', '100', '-y', '40', '-c', str(self.dir),
                   f'bash {self.dir / "run.sh"}')

    def _tmux(self, *args):
        return subprocess.run(self.tmux + list(args), env=self.env, capture_output=True,
                              text=True, timeout=30, check=True).stdout

    def screen(self):
        return self._tmux('capture-pane', '-p')

    def keys(self, *keys, literal=False):
        self._tmux('send-keys', *(['-l'] if literal else []), *keys)

    def file(self, name):
        path = self.dir / name
        return path.read_text() if path.exists() else None

    def close(self):
        subprocess.run(self.tmux + ['kill-server'], env=self.env, capture_output=True,
                       timeout=30)


@pytest.fixture
def fake_node(probe):
    """Play the IK node in ``NS`` with the probe: ik_status and reachable out, twists in."""
    status = probe.publisher(DiagnosticStatus, f'{NS}/ik_status')
    reachable = probe.publisher(Bool, f'{NS}/reachable', LATCHED)
    twists = probe.collect(TwistStamped, f'{NS}/target_twist')
    yield status, reachable, twists
    probe.node.destroy_subscription(twists.subscription)
    probe.node.destroy_publisher(status)
    probe.node.destroy_publisher(reachable)


@pytest.fixture(params=['module'])
def teleop(request, tmp_path, domain, probe, fake_node):
    """Start the tool on the fake node; yield its pane once it shows and is matched.

    Parametrised by how it runs: ``'module'`` (``python -m``, the source tree) or ``'script'``
    (the console script installed in the virtualenv).
    """
    script = Path(sys.executable).parent / 'two_bone_ik_teleop'
    if request.param == 'script':
        assert script.is_file(), f'{script} missing: run `make venv`'
    pane = Pane(tmp_path, domain, ['--namespace', NS.strip('/'), '--frame', 'base_link',
                                   '--speed', str(SPEED), '--angular-speed', str(ANGULAR)],
                command=[str(script)] if request.param == 'script' else None)
    try:
        status, _, twists = fake_node
        probe.spin_until(lambda: f'two_bone_ik_teleop: twists on {NS}/target_twist'
                         in pane.screen(), 60.0, f'the teleop screen; the pane:\n{pane.screen()}'
                         f'\n{pane.file("tool.stderr")}')
        probe.wait_for_publishers(twists, timeout=30.0)
        probe.wait_for_subscribers(status, timeout=30.0)
        yield pane
    finally:
        pane.close()


def ended(probe, pane):
    """Wait for the tool to exit; return its exit code."""
    probe.spin_until(lambda: pane.file('stty.after'), 30.0,
                     f'the tool to exit; the pane:\n{pane.screen()}')
    return int(pane.file('exit.code'))


def motion_of(probe, pane, twists, key, literal=False):
    """Press ``key`` once; return the twists it sent (the last is the zero that ends it)."""
    start = len(twists)
    pane.keys(key, literal=literal)
    twists.wait_for(lambda m: any(twist_tuple(m)), start=start, timeout=30.0)
    twists.wait_for(lambda m: not any(twist_tuple(m)), start=start, timeout=30.0)
    sent = twists.messages[start:]
    assert all(m.header.frame_id == 'base_link' for m in sent)
    return [twist_tuple(m) for m in sent]


def test_keys_make_twists_and_the_screen_shows_the_status(teleop, probe, fake_node):
    status, reachable, twists = fake_node
    # The node's status and reachable, as the screen shows them.
    reachable.publish(Bool(data=False))
    text = 'target 0.157 m beyond reach (0.550 m), arm stretched toward it'
    probe.publish_until(status, status_msg(DiagnosticStatus.WARN, 1, 'OUT_OF_REACH', text),
                        lambda: f'status: OUT_OF_REACH: {text} [code 1, WARN]' in teleop.screen()
                        and 'reachable: no' in teleop.screen(), 30.0, 'the status on screen')
    reachable.publish(Bool(data=True))
    status.publish(status_msg(DiagnosticStatus.OK, 0, 'REACHED', 'tip on the target'))
    probe.spin_until(lambda: 'status: REACHED: tip on the target [code 0, OK]' in teleop.screen()
                     and 'reachable: yes' in teleop.screen(), 30.0, 'the new status on screen')
    # The node's motion_status: the measured tool point beside the commanded one.
    motion = probe.publisher(DiagnosticStatus, f'{NS}/motion_status')
    arrived = DiagnosticStatus(level=DiagnosticStatus.OK, name='two_bone_ik', message='ARRIVED: x',
                               values=[KeyValue(key=k, value=v) for k, v in (
                                   ('code', '21'), ('status', 'ARRIVED'), ('target_id', 'twist'),
                                   ('tool_point', '[0.400000, 0.200000, 0.000000]'),
                                   ('measured_tool_point', '[0.399200, 0.200300, 0.000000]'))])
    probe.publish_until(motion, arrived, lambda: 'tool point (m): commanded (0.400, 0.200, '
                        '0.000), measured (0.399, 0.200, 0.000) [ARRIVED]' in teleop.screen(),
                        30.0, 'the tool points on screen')
    probe.node.destroy_publisher(motion)
    # Each key: its twist, repeated while held, then one zero twist.
    expected = {'Up': (SPEED, 0, 0, 0, 0, 0), 'Left': (0, SPEED, 0, 0, 0, 0),
                'PPage': (0, 0, SPEED, 0, 0, 0), 'NPage': (0, 0, -SPEED, 0, 0, 0),
                'i': (0, 0, 0, 0, ANGULAR, 0), 'l': (0, 0, 0, -ANGULAR, 0, 0)}
    for key, twist in expected.items():
        sent = motion_of(probe, teleop, twists, key, literal=len(key) == 1)
        assert sent[-1] == (0.0,) * 6, key
        moving = sent[:-1]
        assert len(moving) >= 2 and all(t == pytest.approx(twist) for t in moving), (key, sent)
    # Faster: both speeds x 1.5.
    teleop.keys('+', literal=True)
    probe.spin_until(lambda: 'speed: 0.030 m/s, 0.300 rad/s' in teleop.screen(), 30.0,
                     'the new speed on screen')
    sent = motion_of(probe, teleop, twists, 's', literal=True)
    assert sent[0] == pytest.approx((0, 0, -1.5 * SPEED, 0, 0, 0))
    # Space stops a motion with a zero twist.
    start = len(twists)
    teleop.keys('Down')
    twists.wait_for(lambda m: any(twist_tuple(m)), start=start, timeout=30.0)
    teleop.keys('Space')
    twists.wait_for(lambda m: not any(twist_tuple(m)), start=start, timeout=30.0)
    # q quits: a zero twist, the terminal as it was, exit 0.
    teleop.keys('q', literal=True)
    assert ended(probe, teleop) == 0
    assert teleop.file('stty.after') == teleop.file('stty.before')
    assert f'two_bone_ik_teleop: stopped (zero twist sent on {NS}/target_twist)' in (
        teleop.screen())
    assert twist_tuple(twists.last) == (0.0,) * 6
    assert teleop.file('tool.stderr') == ''


@pytest.mark.parametrize('teleop', ['script'], indirect=True)
def test_ctrl_c_while_moving_stops_the_arm_and_restores_the_terminal(teleop, probe, fake_node):
    _, _, twists = fake_node
    start = len(twists)
    teleop.keys('Up')
    twists.wait_for(lambda m: any(twist_tuple(m)), start=start, timeout=30.0)
    teleop.keys('C-c')
    assert ended(probe, teleop) == 0
    probe.spin_until(lambda: not any(twist_tuple(twists.last)), 10.0, 'the zero twist')
    assert teleop.file('stty.after') == teleop.file('stty.before')
    assert 'Traceback' not in teleop.screen()
    assert teleop.file('tool.stderr') == ''


def test_without_a_terminal_one_line_and_exit_2(domain):
    result = subprocess.run([sys.executable, '-m', 'two_bone_ik.nodes.teleop_command'],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=60, env=ros_environment(domain, REPO_ROOT))
    assert (result.returncode, result.stdout, result.stderr) == (
        2, '', 'two_bone_ik_teleop: needs a terminal (standard input and output are not '
               'one)\n')
