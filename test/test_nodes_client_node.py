"""Tests of two_bone_ik.nodes.client_node: what the two command-line clients share.

Its node and spinning are exercised by the tools' own tests over DDS
(test_nodes_target_command, test_nodes_teleop_command); here, the conversions and checks.
"""

import signal
import subprocess
import sys
import textwrap

from diagnostic_msgs.msg import DiagnosticStatus, KeyValue
import pytest
from sensor_msgs.msg import JointState

from two_bone_ik.nodes.client_node import answer_of, ClientError, ClientNode, interrupts_raise
from two_bone_ik.nodes.client_node import joint_positions, split_arguments


def test_answer_of_an_ik_status_message():
    msg = DiagnosticStatus(level=DiagnosticStatus.WARN, message='JOINT_LIMITED: closest pose',
                           values=[KeyValue(key='code', value='3'),
                                   KeyValue(key='status', value='JOINT_LIMITED'),
                                   KeyValue(key='tip_error', value='0.012000'),
                                   KeyValue(key='moving', value='true'),
                                   KeyValue(key='motion_remaining', value='0.400000')])
    answer = answer_of(msg)
    assert (answer.code, answer.name, answer.level, answer.tip_error) == (
        3, 'JOINT_LIMITED', 1, 0.012)
    assert answer.moving and answer.motion_remaining == 0.4


def test_joint_positions_of_a_command():
    msg = JointState(name=['a', 'b', 'c'], position=[0.5, -1.0, 2.0])
    names, positions = joint_positions(msg).names, joint_positions(msg).positions
    assert (names, positions) == (('a', 'b', 'c'), (0.5, -1.0, 2.0))


def test_ros_arguments_are_split_off():
    own, full = split_arguments(['0.4', '-0.2', '0', '--ros-args', '-r', 'a:=b'])
    assert own == ['0.4', '-0.2', '0']
    assert full[1:] == ['0.4', '-0.2', '0', '--ros-args', '-r', 'a:=b']
    with pytest.raises(ClientError, match="^Failed to parse ROS arguments: Couldn't parse "
                                          "remap rule: '-r nonsense'"):
        split_arguments(['1', '--ros-args', '-r', 'nonsense'])


@pytest.mark.parametrize('namespace', ['bad name', '/a//b', '1arm'])
def test_an_invalid_namespace_is_one_line_before_any_node(namespace):
    with pytest.raises(ClientError, match=f'^invalid namespace {namespace!r}: Invalid namespace'):
        ClientNode('tool', namespace, ['tool'])


def test_interrupts_raise_whatever_was_set_before():
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        interrupts_raise()
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        with pytest.raises(SystemExit) as leaving:
            signal.raise_signal(signal.SIGTERM)
        assert leaving.value.code == 128 + signal.SIGTERM
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


# A tool started with ``python -m`` holds Ctrl-C back from its package's first import
# (two_bone_ik.nodes.hold_interrupts). Either way the hold kept it, run_client must end the tool
# as interrupted: not run it, and not lose the interrupt.
HELD_INTERRUPT = textwrap.dedent("""
    import signal, sys
    from two_bone_ik.nodes import hold_interrupts
    from two_bone_ik.nodes.client_node import run_client
    hold_interrupts()
    if sys.argv[1] == 'noted':  # another thread took it: the hold's handler noted it
        signal.getsignal(signal.SIGINT)(signal.SIGINT, None)
    else:  # blocked, pending
        signal.raise_signal(signal.SIGINT)
    ran = []
    code = run_client('tool', [], lambda own: own, lambda args, ros: ran.append(1) or 0)
    print(code, ran)
""")


@pytest.mark.parametrize('how', ['noted', 'pending'])
def test_a_ctrl_c_held_back_at_start_interrupts_the_tool(how):
    done = subprocess.run([sys.executable, '-c', HELD_INTERRUPT, how], capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, '130 []\n', 'tool: interrupted\n')
