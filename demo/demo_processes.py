"""Process plumbing shared by the demos: a ROS domain on localhost, start, watch, stop nodes."""

import os
from pathlib import Path
import signal
import subprocess
import sys
import time

REPO = Path(__file__).resolve().parent.parent

#: Seconds a node may take to stop on SIGINT before it is killed.
STOP_TIMEOUT = 20.0


class DemoError(RuntimeError):
    """A step got no answer, not the expected one, or a node died."""


def use_own_localhost_domain() -> int:
    """Keep this process's ROS traffic on this machine, in a domain of its own; return it."""
    domain_id = 1 + os.getpid() % 100
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ['ROS_DOMAIN_ID'] = str(domain_id)
    return domain_id


def start_node(module, ros_args, log):
    """Start ``python -m module --ros-args ...`` with this checkout importable; output to log."""
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join([str(REPO)] + [p for p in env.get(
        'PYTHONPATH', '').split(os.pathsep) if p])
    command = [sys.executable, '-m', module, '--ros-args'] + list(ros_args)
    return subprocess.Popen(command, env=env, cwd=REPO, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT)


def stop_node(process):
    """Stop a node with SIGINT (kill it if it hangs); return its exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def spin_until(executor, condition, what, processes, timeout, step=0.02):
    """Spin ``executor`` until ``condition()`` holds.

    Raises
    ------
    DemoError
        If ``timeout`` seconds pass first, or one of ``processes`` (name -> Popen) exits.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        for name, process in processes.items():
            if process.poll() is not None:
                raise DemoError(f'the {name} exited with {process.returncode} while waiting '
                                f'for {what}')
        if time.monotonic() > deadline:
            raise DemoError(f'no {what} within {timeout:g} s')
        executor.spin_once(timeout_sec=step)
