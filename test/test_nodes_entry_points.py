"""Tests of two_bone_ik.nodes.entry_points: a Ctrl-C during start-up ends the process quietly.

Each way of starting a node is covered: the console scripts' path (``python -m two_bone_ik``
goes through the same entry point) and ``python -m two_bone_ik.nodes.<node>``, which the README
documents for the sim and the servo driver.
"""

from pathlib import Path
import signal

import pytest
from ros_harness import NodeProcess, signal_while_stopping, wait_until


def wait_for_library(pid, name, timeout=30.0):
    """Wait until the process has mapped a shared library whose path contains ``name``."""
    maps = Path(f'/proc/{pid}/maps')
    return wait_until(lambda: name in maps.read_text(), timeout, what=f'{name} in process {pid}')


@pytest.mark.parametrize('module, library', [
    ('two_bone_ik', 'diagnostic_msgs'),
    ('two_bone_ik', 'librcl.so'),
    ('two_bone_ik', 'numpy'),
    ('two_bone_ik', 'std_srvs_s__rosidl_typesupport_c'),
    ('two_bone_ik.nodes.ik_node', 'numpy'),
    ('two_bone_ik.nodes.sim_node', 'numpy'),
    ('two_bone_ik.nodes.servo_node', 'numpy'),
])
def test_ctrl_c_during_start_up_exits_quietly(domain, tmp_path, module, library):
    # SIGINT while the node is still importing (before rclpy is initialised) used to print a
    # KeyboardInterrupt traceback from inside an import. The libraries mark early, middle and
    # late stages of the node's imports; numpy comes with the first message package a node
    # module imports; std_srvs' type support is loaded as the IK node creates its ~/stop
    # service, while the node is built. (Before any of the package's code runs, while Python
    # itself starts, a Ctrl-C is Python's own: not tested.)
    process = NodeProcess(module, domain_id=domain, log_dir=tmp_path, name='early').start()
    try:
        wait_for_library(process.pid, library)
        process.send_signal(signal.SIGINT)
        assert process.wait() == 0, process.output()
    finally:
        process.stop()
    # Nothing but, if the node got that far, its "ready" line.
    noise = [line for line in (process.stdout + process.stderr).splitlines()
             if line.strip() and '[INFO]' not in line]
    assert noise == [], process.output()


@pytest.mark.parametrize('module', ['two_bone_ik', 'two_bone_ik.nodes.sim_node'])
def test_ctrl_c_while_the_node_is_built_exits_quietly(domain, tmp_path, module):
    # The SIGINT lands as the node's constructor starts, rclpy initialised. Let through to
    # rclpy just before spinning, it left the node waiting for good on Kilted (rclpy woke the
    # executor before it shut the context down): now the node is torn down without spinning.
    with NodeProcess(module, domain_id=domain, log_dir=tmp_path, name='building',
                     env_extra=signal_while_stopping('building')) as process:
        assert process.wait() == 0, process.output()
    assert 'Traceback' not in process.stderr + process.stdout, process.output()
    assert 'ready: ' in process.stderr, process.output()  # it was built, then torn down
