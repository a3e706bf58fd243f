"""Tests of two_bone_ik.nodes.node_runner: bad input, one line; the spin loop.

Input a node cannot use is one line and exit code 2: each case starts a real node process with
a hostile description or file (built here, never a committed file) and checks that its whole
output is the one promised line: no traceback, no warnings before it, no hang. The spin loop
(in this process) notices a shutdown nobody woke it for, and builds no timer per wake-up.
"""

import os
import signal
import threading
import time

import pytest
import rclpy
from rclpy import executors as executors_module
from rclpy.context import Context
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions
from ros_harness import NodeProcess, wait_until, write_params
from std_msgs.msg import Empty

from two_bone_ik.arm.urdf_import import MAX_LINKS
from two_bone_ik.nodes import node_runner
from two_bone_ik.nodes.node_runner import EXIT_BAD_CONFIG
from urdf_arms import joint_xml, SCARA, with_elements, with_fixed_links

IK, SIM = 'two_bone_ik', 'two_bone_ik.nodes.sim_node'

#: Where the arm is in SCARA (test/urdf_arms.py).
CHAIN = {'base_frame': 'base_link', 'tip_frame': 'tool0'}

NOT_UTF8 = b'<robot name="caf\xe9"/>'


def _description(text):
    return {'robot_description': text, **CHAIN}


def _not_utf8_file(tmp_path):
    path = tmp_path / 'latin1.yaml'
    path.write_bytes(b"/**:\n  ros__parameters:\n    robot_description: '" + NOT_UTF8 + b"'\n")
    return path


#: (module, parameters or a function writing the params file, extra ROS arguments, the line).
REFUSED = {
    'cycle': (IK, _description(with_elements(SCARA, joint_xml('back', 'fixed', 'tool0',
                                                              'base_link'))), [],
              'two_bone_ik: invalid parameter robot_description: the joints form a cycle: '
              'link1 -> link2 -> flange -> tool0 -> base_link -> link1 (joints joint2, '
              'flange_joint, tool_joint, back, joint1); a URDF is a tree'),
    'velocity_nan': (IK, _description(SCARA.replace('velocity="3.0"', 'velocity="nan"', 1)), [],
                     "two_bone_ik: invalid parameter robot_description: joint 'joint1': <limit "
                     'velocity> is nan; expected a speed >= 0 (rad/s; 0 for none)'),
    'origin_inf': (IK, _description(SCARA.replace('0.425 0 0', 'inf 0 0')), [],
                   "two_bone_ik: invalid parameter robot_description: joint 'joint2': <origin "
                   'xyz> is [inf, 0.0, 0.0]; expected finite values within +-1e+100'),
    'origin_1e308': (IK, _description(SCARA.replace('0.345 0 0', '1e308 1e308 0')), [],
                     "two_bone_ik: invalid parameter robot_description: joint 'flange_joint': "
                     '<origin xyz> is [1e+308, 1e+308, 0.0]; expected finite values within '
                     '+-1e+100'),
    'too_many_links': (IK, _description(with_fixed_links(SCARA, MAX_LINKS)), [],
                       f'two_bone_ik: invalid parameter robot_description: {MAX_LINKS + 5} '
                       f'<link> elements; at most {MAX_LINKS} are read'),
    'params_file_not_utf8': (IK, _not_utf8_file, [],
                             "two_bone_ik: cannot start: params file '{params}': not UTF-8: "
                             'byte 0xe9 at line 3, column 41'),
    'argument_not_utf8': (IK, None, ['-p', os.fsdecode(b'robot_description:=' + NOT_UTF8)],
                          'two_bone_ik: cannot start: command line argument 3: not UTF-8: '
                          'byte 0xe9 at line 1, column 36'),
    'sim_argument_not_utf8': (SIM, None, ['-p', os.fsdecode(b'robot_description:=' + NOT_UTF8)],
                              'two_bone_ik_sim: cannot start: command line argument 3: not '
                              'UTF-8: byte 0xe9 at line 1, column 36'),
    'sim_arm_params_file_not_utf8': (
        SIM, None, ['-p', 'arm_params_file:={tmp}/latin1.yaml'],
        "two_bone_ik_sim: invalid parameter arm_params_file: params file '{tmp}/latin1.yaml': "
        'not UTF-8: byte 0xe9 at line 3, column 41'),
}


@pytest.mark.parametrize('case', sorted(REFUSED))
def test_input_a_node_cannot_use_is_one_line_and_exit_2(domain, tmp_path, case):
    # Before: a cycle hung the node (no output, its memory growing); velocity nan started an
    # arm without a velocity limit; inf and 1e308 origins printed numpy RuntimeWarnings before
    # the line; 1005 links were parsed however long it took; text that is not UTF-8 was a
    # 29-line UnicodeDecodeError or UnicodeEncodeError traceback and exit code 1.
    module, parameters, ros_args, expected = REFUSED[case]
    params = None
    if callable(parameters):
        params = parameters(tmp_path)
    elif parameters is not None:
        params = write_params(tmp_path / 'hostile.yaml', parameters)
    if case.startswith('sim_arm_params_file'):
        _not_utf8_file(tmp_path)
    ros_args = [arg.replace('{tmp}', str(tmp_path)) for arg in ros_args]
    process = NodeProcess(module, params_file=params, ros_args=ros_args, domain_id=domain,
                          log_dir=tmp_path, name=case).start()
    assert process.wait() == EXIT_BAD_CONFIG, process.output()
    assert process.stdout == '', process.output()
    assert process.stderr.splitlines() == [
        expected.format(params=params, tmp=tmp_path)], process.output()


def test_a_padded_20_mb_description_from_a_params_file_starts(domain, tmp_path):
    # PyYAML's pure-Python scanner read this file in 22-66 s before rcl did, so the node took
    # over a minute to start; with libyaml it is ready in seconds.
    padding = '<!--' + 'padding ' * (20 * 1024 * 1024 // 8) + '-->'
    params = write_params(tmp_path / 'padded.yaml', _description(with_elements(SCARA, padding)))
    assert params.stat().st_size > 20e6
    with NodeProcess(IK, params_file=params, domain_id=domain, log_dir=tmp_path,
                     name='padded') as process:
        wait_until(lambda: 'ready: arm from its URDF' in process.stderr, what='the ready line',
                   processes={'node': process})


# -- the spin loop, in this process -----------------------------------------------------------

def _in_new_context(node_name):
    """Return (context, executor, node): a node in a new context, no rclpy signal handler."""
    context = Context()
    rclpy.init(context=context, signal_handler_options=SignalHandlerOptions.NO)
    node = Node(node_name, context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    return context, executor, node


def _tear_down(context, executor, node):
    executor.shutdown(timeout_sec=0)
    node.destroy_node()
    rclpy.try_shutdown(context=context)


def _spinning(node_name):
    """Return (context, executor, node, thread running node_runner's spin) in a new context."""
    context, executor, node = _in_new_context(node_name)
    errors = []

    def spin():
        try:
            node_runner._spin(executor)
        except ExternalShutdownException:
            pass
        except Exception as error:  # noqa: B902 - reported by the test
            errors.append(error)
    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    return context, executor, node, thread, errors


def test_spin_ends_when_the_context_shuts_down_without_waking_it(domain):
    # The race seen on Kilted: rclpy wakes the executor, then shuts the context down; a spin
    # that went back to waiting must still notice. Shutting rcl's context down directly wakes
    # nobody (no Python shutdown callbacks), and the node has no timer to wake it either.
    context, executor, node, thread, errors = _spinning('spin_shutdown_race')
    try:
        thread.join(0.3)
        assert thread.is_alive()  # spinning, waiting for work
        with context.handle:
            context.handle.shutdown()
        thread.join(5.0)
        assert not thread.is_alive(), 'the spin missed the shutdown'
        assert errors == []
    finally:
        _tear_down(context, executor, node)


def _spin_through_a_ctrl_c(executor, on_sigint, rescue, send=True) -> bool:
    """Run node_runner's spin here while a helper thread sends a SIGINT after 0.3 s.

    Here is the main thread, as run_node spins. ``on_sigint`` is Python's handler meanwhile.
    ``rescue`` is called if the spin has not ended 10 s after the signal (``send`` False: the
    test sends it, 10.3 s after the spin began), so that a spin that missed it fails its test
    instead of hanging it. Return whether the rescue was needed.
    """
    stopped, rescued = threading.Event(), threading.Event()

    def interrupt_then_rescue():
        time.sleep(0.3)
        if send:
            os.kill(os.getpid(), signal.SIGINT)
        if not stopped.wait(10.0):
            rescued.set()
            rescue()
    previous = signal.signal(signal.SIGINT, on_sigint)
    helper = threading.Thread(target=interrupt_then_rescue, daemon=True)
    helper.start()
    try:
        try:
            node_runner._spin(executor)
        except ExternalShutdownException:
            pass
        return rescued.is_set()
    finally:
        stopped.set()
        helper.join(15.0)
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_that_rclpy_does_not_act_on_still_ends_the_spin(domain):
    # One Ctrl-C in a dozen left a Kilted sim node spinning with its context running. Here no
    # rclpy handler at all: only Python's, which notes the signal; the spin must end by itself.
    context, executor, node = _in_new_context('spin_sigint')
    noted = []
    try:
        rescued = _spin_through_a_ctrl_c(
            executor, lambda signum, frame: noted.append(signum), context.try_shutdown)
        assert noted == [signal.SIGINT] and not rescued
        assert not context.ok()
    finally:
        _tear_down(context, executor, node)


def test_a_ctrl_c_shutting_the_context_down_meanwhile_is_no_error(domain, monkeypatch):
    # Seen once in CI on Jazzy: rclpy's own SIGINT handler shut rcl's context down between
    # the watcher's look at the context and its shutdown, and the watcher thread died with
    # "rcl_shutdown already called" printed as a traceback. Here the context's try_shutdown
    # meets exactly that: rcl's context is shut down under it, then it shuts down again, as
    # rclpy's check-then-act does.
    context, executor, node = _in_new_context('spin_sigint_race')
    raised = []
    monkeypatch.setattr(threading, 'excepthook', lambda hook_args: raised.append(hook_args))

    def shut_down_twice():
        with context.handle:
            context.handle.shutdown()  # rclpy's handler, in its own thread
            context.handle.shutdown()  # the watcher's, after it saw the context still ok
    monkeypatch.setattr(context, 'try_shutdown', shut_down_twice)
    try:
        # The error would end the spin here (the shutdown is the spin's task now), or, in a
        # watcher that died, leave the spin to the rescue: either fails the test.
        _spin_through_a_ctrl_c(executor, lambda signum, frame: None, executor.wake)
        assert not context.ok()
        assert [hook_args.exc_value for hook_args in raised] == []
    finally:
        monkeypatch.undo()
        _tear_down(context, executor, node)


def test_a_ctrl_c_in_a_callback_shuts_down_after_it_in_the_spin(domain, monkeypatch):
    # Seen on Kilted, whose Context.try_shutdown destroys the context's nodes: the watcher
    # thread's shutdown on a Ctrl-C closed the servo node's port while its state timer was
    # writing to it, in the spinning thread (a TypeError from pyserial, exit code 1). Here a
    # callback takes a Ctrl-C and waits until the watcher has acted on it: shutting the
    # context down, or handing that to the spinning thread.
    context, executor, node = _in_new_context('spin_sigint_callback')
    acted, in_callback, shutdowns = threading.Event(), threading.Event(), []
    shut_down, create_task = context.try_shutdown, executor.create_task

    def recorded_shutdown():
        shutdowns.append((threading.current_thread().name, in_callback.is_set()))
        acted.set()
        shut_down()

    def recorded_task(*args, **kwargs):
        task = create_task(*args, **kwargs)
        acted.set()
        return task
    monkeypatch.setattr(context, 'try_shutdown', recorded_shutdown)
    monkeypatch.setattr(executor, 'create_task', recorded_task)

    def callback():
        timer.cancel()
        in_callback.set()
        os.kill(os.getpid(), signal.SIGINT)
        acted.wait(10.0)
        in_callback.clear()
    timer = node.create_timer(0.01, callback)
    try:
        rescued = _spin_through_a_ctrl_c(executor, lambda signum, frame: None, shut_down,
                                         send=False)
        assert acted.is_set() and not rescued
        assert shutdowns == [(threading.main_thread().name, False)]
        assert not context.ok()
    finally:
        monkeypatch.undo()
        _tear_down(context, executor, node)


def test_spin_creates_no_timer_per_wake_up(domain, monkeypatch):
    # A spin_once with a timeout makes rclpy build (and later collect) an rcl timer on every
    # wake-up, work the bare rclpy.spin of the latency floor never does.
    created = []
    original = executors_module.Timer

    def counting_timer(*args, **kwargs):
        created.append(args)
        return original(*args, **kwargs)
    monkeypatch.setattr(executors_module, 'Timer', counting_timer)
    context, executor, node, thread, errors = _spinning('spin_timer_count')
    try:
        heard = []
        node.create_subscription(Empty, 'spin_wake', heard.append, 10)
        publisher = node.create_publisher(Empty, 'spin_wake', 10)
        executor.wake()
        wait_until(lambda: publisher.get_subscription_count() == 1, what='the subscription')
        for count in range(1, 21):
            publisher.publish(Empty())
            wait_until(lambda: len(heard) >= count, what=f'message {count}')
        assert len(created) <= 1, f'{len(created)} timers for 20 messages'
    finally:
        with context.handle:
            context.handle.shutdown()
        thread.join(5.0)
        _tear_down(context, executor, node)
