"""Helpers for tests that run real ROS 2 nodes as subprocesses and talk to them over DDS.

Reusable by any test module (import it as ``ros_harness``; pytest puts ``test/`` on
``sys.path``). Typical use::

    domain = isolate_ros_domain()                 # this process: own domain, localhost only
    params = write_params(tmp_path / 'p.yaml', {'elbow': 'down'})
    with NodeProcess('two_bone_ik', params_file=params, domain_id=domain,
                     log_dir=tmp_path) as node, RosProbe(domain) as probe:
        pub = probe.publisher(PoseStamped, 'target_pose')
        joints = probe.collect(JointState, 'joint_commands')
        probe.wait_for_subscribers(pub)
        probe.wait_for_publishers(joints)
        pub.publish(...)
        joints.wait_for_count(1)

Everything waits on a monotonic deadline for something observable (a matched endpoint, a
message, a reply, an exit); nothing sleeps and hopes.
"""

import fcntl
import os
from pathlib import Path
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Iterable, List, Mapping, Optional, Sequence

from rcl_interfaces.msg import Parameter as ParameterMsg
from rcl_interfaces.srv import DescribeParameters, GetParameters, SetParameters
import rclpy
from rclpy.context import Context
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter, parameter_value_to_python
from rclpy.qos import QoSProfile
import yaml

#: Root of the source tree (the directory holding the ``two_bone_ik`` package).
REPO_ROOT = Path(__file__).resolve().parents[1]

#: Default seconds to wait for anything over DDS (generous: the machine is shared).
DEFAULT_TIMEOUT = 15.0
#: History depth of a collector's subscription: messages that arrive while the probe is not
#: spinning wait there, so this is how far (in messages) a stalled probe may fall behind a
#: stream without losing one (rclpy's usual 10 is 100 ms of a 100 Hz stream).
COLLECT_DEPTH = 1000


#: Lock files through which test processes on this machine claim domain ids.
DOMAIN_LOCK_DIR = Path(tempfile.gettempdir()) / 'ros_domain_id_locks'

_claimed_domains = {}  # domain id -> open lock file, held until this process exits
_default_domain: List[int] = []


def domain_id_for(pid: Optional[int] = None) -> int:
    """Return a ROS domain id in 1..100 derived from a process id (this one by default)."""
    return 1 + (os.getpid() if pid is None else pid) % 100


def claim_domain_id(start: Optional[int] = None) -> int:
    """Claim a ROS domain id (1..100) that no other process using this harness holds.

    Tries ``start`` (default: :func:`domain_id_for` this process) and the ids after it, taking
    an exclusive ``flock`` on ``DOMAIN_LOCK_DIR/<id>.lock``; the claim lasts until this process
    exits. Each call claims another id (e.g. for a second, independent graph). Processes that
    pick ids without the harness can still collide; the lock only orders harness users.
    """
    DOMAIN_LOCK_DIR.mkdir(parents=True, exist_ok=True)
    first = domain_id_for() if start is None else int(start)
    for offset in range(100):
        domain = 1 + (first - 1 + offset) % 100
        if domain in _claimed_domains:
            continue
        lock = open(DOMAIN_LOCK_DIR / f'{domain}.lock', 'a')
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        _claimed_domains[domain] = lock
        return domain
    raise RuntimeError(f'no free ROS domain id: all of 1..100 are locked in {DOMAIN_LOCK_DIR}')


def isolate_ros_domain(domain_id: Optional[int] = None) -> int:
    """Make this process use its own ROS domain on localhost only; return the domain id.

    Without ``domain_id``, the process's first :func:`claim_domain_id` (claimed on the first
    call, the same id afterwards). Sets ``ROS_DOMAIN_ID`` and
    ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` in ``os.environ``, which child processes inherit
    and rmw reads at ``rclpy.init``. Call it before creating a :class:`RosProbe`.
    """
    if domain_id is None:
        if not _default_domain:
            _default_domain.append(claim_domain_id())
        domain_id = _default_domain[0]
    domain_id = int(domain_id)
    os.environ['ROS_DOMAIN_ID'] = str(domain_id)
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.pop('ROS_LOCALHOST_ONLY', None)
    return domain_id


def ros_environment(domain_id: int, pythonpath: Optional[Path] = REPO_ROOT,
                    extra: Optional[Mapping[str, str]] = None) -> dict:
    """Return an environment for a ROS child process.

    Parameters
    ----------
    domain_id : int
        ``ROS_DOMAIN_ID`` for the child.
    pythonpath : Path or None
        Prepended to ``PYTHONPATH`` (the source tree by default); None leaves it alone, e.g.
        to run an installed package.
    extra : mapping, optional
        More variables to set.
    """
    env = dict(os.environ)
    env['ROS_DOMAIN_ID'] = str(domain_id)
    env['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    env.pop('ROS_LOCALHOST_ONLY', None)
    env['PYTHONUNBUFFERED'] = '1'
    env['PYTHONFAULTHANDLER'] = '1'  # SIGABRT dumps every thread's Python stack
    env['RCUTILS_COLORIZED_OUTPUT'] = '0'
    if pythonpath is not None:
        parts = [str(pythonpath)] + [p for p in env.get('PYTHONPATH', '').split(os.pathsep) if p]
        env['PYTHONPATH'] = os.pathsep.join(parts)
    if extra:
        env.update(extra)
    return env


#: A directory whose ``sitecustomize.py`` holds test hooks for node processes (see
#: :func:`signal_inside_publish` and :func:`without_modules`).
PROCESS_HOOKS_DIR = Path(__file__).resolve().parent / 'process_hooks'


def signal_inside_publish(topic: str, count: int, signum: int) -> dict:
    """Return the environment of a node that signals itself inside its ``count``-th publish.

    The publish is on a topic ending in ``topic``. The signal lands while a callback is
    publishing, and the publish goes on only once rclpy has shut the context down: the shutdown
    race of a busy node, made deterministic. Pass the result as ``env_extra`` of
    :class:`NodeProcess`.
    """
    return {'TWO_BONE_IK_TEST_SIGNAL_ON_PUBLISH': f'{topic}:{count}:{signum}',
            'PYTHONPATH': os.pathsep.join([str(PROCESS_HOOKS_DIR), str(REPO_ROOT)])}


def signal_while_stopping(stage: str, signum: int = signal.SIGINT) -> dict:
    """Return the environment of a node that gets ``signum`` again while it stops.

    ``stage`` is ``'teardown'`` (as its node is destroyed) or ``'exit'`` (while the interpreter
    exits): the second Ctrl-C of a terminal under ``ros2 launch``, made deterministic; or
    ``'building'``: a first one as its node is built (after rclpy is initialised). Pass the
    result as ``env_extra`` of :class:`NodeProcess`.
    """
    return {'TWO_BONE_IK_TEST_SIGNAL_WHILE_STOPPING': f'{stage}:{int(signum)}',
            'PYTHONPATH': os.pathsep.join([str(PROCESS_HOOKS_DIR), str(REPO_ROOT)])}


def without_modules(*modules: str) -> dict:
    """Return the environment of a node process in which importing ``modules`` fails.

    As on a small robot computer without them installed. Pass it as ``env_extra``.
    """
    return {'TWO_BONE_IK_TEST_BLOCK_IMPORTS': ','.join(modules),
            'PYTHONPATH': os.pathsep.join([str(PROCESS_HOOKS_DIR), str(REPO_ROOT)])}


def write_params(path, parameters: Mapping[str, Any], node_name: str = 'two_bone_ik') -> Path:
    """Write a ROS 2 params file for one node; return its path.

    The key is ``/**/<node_name>`` (the node in any namespace) unless ``node_name`` starts
    with ``/`` (used as given, e.g. ``'/**'`` or ``'/left_arm/two_bone_ik'``). Floats are
    written so that the ROS parser reads them as doubles (``inf`` as ``.inf``).
    """
    path = Path(path)
    key = node_name if node_name.startswith('/') else f'/**/{node_name}'
    path.write_text(yaml.safe_dump({key: {'ros__parameters': dict(parameters)}},
                                   default_flow_style=None, sort_keys=False))
    return path


class WaitTimeout(AssertionError):
    """Something awaited did not happen in time, or a watched process exited meanwhile."""


def run_bare_node(make_node: Callable[[], Node]) -> None:
    """Run one plain rclpy node until Ctrl-C or shutdown (the benches' floors): nothing else."""
    rclpy.init()
    node = make_node()
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


def wait_until(predicate: Callable[[], Any], timeout: float = DEFAULT_TIMEOUT, *,
               what: Optional[str], step: Optional[Callable[[float], None]] = None,
               processes: Optional[Mapping[str, Any]] = None) -> Any:
    """Wait until ``predicate()`` returns something truthy; return it.

    The one wait loop of the tests, demos and benches.

    Parameters
    ----------
    predicate : callable
        Checked before each step.
    timeout : float
        Seconds to wait on a monotonic clock.
    what : str or None
        What is awaited: a timeout raises :class:`WaitTimeout` naming it. Required, so that
        no caller forgets it; None returns the last (falsy) value on a timeout instead.
    step : callable, optional
        Called with the longest time it may take (s) between checks, e.g.
        ``executor.spin_once``-like; default: sleep 20 ms.
    processes : mapping of str to Popen or NodeProcess, optional
        If one of these exits meanwhile, :class:`WaitTimeout` says which (when ``what`` is
        given).
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        for name, process in (processes or {}).items():
            code = process.poll()
            if code is not None and what is not None:
                raise WaitTimeout(f'the {name} exited with {code} while waiting for {what}')
        remaining = deadline - time.monotonic()
        if remaining <= 0.0:
            if what is None:
                return value
            raise WaitTimeout(f'timed out after {timeout:g} s waiting for {what}')
        if step is None:
            time.sleep(min(0.02, remaining))
        else:
            step(min(0.05, remaining))


def spin_until(executor, predicate: Callable[[], Any], timeout: float = DEFAULT_TIMEOUT,
               what: str = 'condition', processes: Optional[Mapping[str, Any]] = None) -> Any:
    """Spin ``executor`` until ``predicate()`` is truthy (see :func:`wait_until`); return it."""
    return wait_until(predicate, timeout, what=what,
                      step=lambda seconds: executor.spin_once(timeout_sec=seconds),
                      processes=processes)


class NodeProcess:
    """A node run as ``python -m <module> [args] --ros-args [--params-file F] [ros_args]``.

    Output goes to files in ``log_dir`` (no pipe can fill up); read it with :attr:`stdout` and
    :attr:`stderr`. Use as a context manager: leaving stops it with SIGINT (then SIGKILL).

    Parameters
    ----------
    module : str
        Module to run with ``-m`` (e.g. ``'two_bone_ik'``), or None with ``command``.
    args : sequence of str
        Arguments before ``--ros-args``.
    params_file : path, optional
        Passed as ``--params-file``.
    ros_args : sequence of str
        More ROS arguments, e.g. ``['-r', '__ns:=/left_arm', '-p', 'elbow:=down']``.
    domain_id : int
        The child's ``ROS_DOMAIN_ID``.
    log_dir : path
        Where ``<name>.stdout`` / ``<name>.stderr`` go.
    name : str
        Label for the log files.
    command : sequence of str, optional
        Full command to run instead of ``python -m module``; ``args`` and the ROS arguments are
        appended.
    pythonpath, env_extra
        See :func:`ros_environment`.
    cwd : path, optional
        The directory to run it in (default: this process's).
    """

    def __init__(self, module: Optional[str] = 'two_bone_ik', args: Sequence[str] = (),
                 params_file=None, ros_args: Sequence[str] = (), *, domain_id: int, log_dir,
                 name: str = 'node', command: Optional[Sequence[str]] = None,
                 pythonpath: Optional[Path] = REPO_ROOT,
                 env_extra: Optional[Mapping[str, str]] = None, cwd=None):
        base = list(command) if command is not None else [sys.executable, '-m', module]
        ros = ['--params-file', str(params_file)] if params_file is not None else []
        ros += list(ros_args)
        self.command = base + list(args) + (['--ros-args'] + ros if ros else [])
        self.env = ros_environment(domain_id, pythonpath, env_extra)
        log_dir = Path(log_dir)
        log_dir.mkdir(parents=True, exist_ok=True)
        self._stdout_path = log_dir / f'{name}.stdout'
        self._stderr_path = log_dir / f'{name}.stderr'
        self.process: Optional[subprocess.Popen] = None
        self.cwd = cwd

    def start(self) -> 'NodeProcess':
        """Start the process; return self."""
        with open(self._stdout_path, 'wb') as out, open(self._stderr_path, 'wb') as err:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=err,
                                            stdin=subprocess.DEVNULL, env=self.env,
                                            cwd=self.cwd)
        return self

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> Optional[int]:
        """Exit code, or None while running."""
        return self.process.poll()

    def poll(self) -> Optional[int]:
        """Exit code, or None while running (as ``Popen.poll``)."""
        return self.process.poll()

    def wait(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Wait for the process to exit and return its exit code.

        Raises
        ------
        AssertionError
            If it is still running after ``timeout`` s; it is then aborted (SIGABRT, which
            makes a Python child print its threads' stacks) and the message holds its output.
        """
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGABRT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            raise AssertionError(f'{self.command} still running after {timeout:g} s; '
                                 f'aborted\n{self.output()}') from None

    def send_signal(self, signum: int = signal.SIGINT) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signum)

    def interrupt(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Send SIGINT (Ctrl-C) and return the exit code."""
        self.send_signal(signal.SIGINT)
        return self.wait(timeout)

    def assert_ctrl_c_exits_0(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Send SIGINT (Ctrl-C); fail with the exit code and the output unless it exits 0."""
        code = self.interrupt(timeout)
        assert code == 0, f'exit code {code} on SIGINT, not 0\n{self.output()}'

    def stop(self, timeout: float = DEFAULT_TIMEOUT) -> Optional[int]:
        """Stop it: SIGINT, then SIGKILL after ``timeout`` s. Return the exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    @property
    def stdout(self) -> str:
        return self._stdout_path.read_text(errors='replace')

    @property
    def stderr(self) -> str:
        return self._stderr_path.read_text(errors='replace')

    def output(self) -> str:
        """Both streams, labelled, for assertion messages."""
        return f'--- stdout ---\n{self.stdout}\n--- stderr ---\n{self.stderr}'

    def __enter__(self) -> 'NodeProcess':
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def stop_processes(processes: Mapping[str, 'NodeProcess']) -> List[str]:
    """Stop every process with SIGINT; return one failure line per process that did not exit 0.

    A failure line names the process by its key in ``processes``; its output follows on the
    next lines (for a demo's or benchmark's report).
    """
    failures = []
    for name, process in processes.items():
        code = process.stop()
        if code != 0:
            failures.append(f'the {name} exited with {code} on SIGINT')
    if failures:
        for name, process in processes.items():
            failures.append(f'{name} output:\n{process.output()}')
    return failures


class Collector:
    """Messages received on one topic, in arrival order (see :meth:`RosProbe.collect`)."""

    def __init__(self, probe: 'RosProbe', msg_type, topic: str, qos):
        self.probe = probe
        self.topic = topic
        self.messages: List[Any] = []
        #: When each message arrived (time.monotonic(), s).
        self.times: List[float] = []
        self.subscription = probe.node.create_subscription(msg_type, topic, self._on_msg, qos)

    def _on_msg(self, msg) -> None:
        self.messages.append(msg)
        self.times.append(time.monotonic())

    def __len__(self) -> int:
        return len(self.messages)

    @property
    def last(self):
        return self.messages[-1] if self.messages else None

    def wait_for_count(self, count: int, timeout: float = DEFAULT_TIMEOUT) -> List[Any]:
        """Spin until at least ``count`` messages arrived; return all (AssertionError if not)."""
        self.probe.spin_until(lambda: len(self.messages) >= count, timeout,
                              f'{count} messages on {self.topic} (got {len(self.messages)})')
        return self.messages

    def wait_for(self, predicate: Callable[[Any], bool], start: int = 0,
                 timeout: float = DEFAULT_TIMEOUT):
        """Spin until a message from index ``start`` on satisfies ``predicate``; return it."""
        found = []
        scanned = [start]

        def check_new():
            # Look only at messages not yet examined.
            for index in range(scanned[0], len(self.messages)):
                if predicate(self.messages[index]):
                    found.append(self.messages[index])
                    return True
            scanned[0] = len(self.messages)
            return False

        self.probe.spin_until(check_new, timeout, f'a matching message on {self.topic}')
        return found[0]


class RosProbe:
    """A test-side rclpy node in its own context and executor.

    Parameters
    ----------
    domain_id : int
        Domain to join (use the same as the nodes under test).
    name : str
        Node name of the probe.
    """

    def __init__(self, domain_id: int, name: str = 'test_probe'):
        self.context = Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = Node(name, context=self.context, start_parameter_services=False)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._clients = {}

    # -- endpoints ----------------------------------------------------------------------------

    def publisher(self, msg_type, topic: str, qos: Any = 10):
        """Return a new publisher; ``qos`` is a depth or a ``QoSProfile``."""
        return self.node.create_publisher(msg_type, topic, qos)

    def collect(self, msg_type, topic: str, qos: Any = COLLECT_DEPTH) -> Collector:
        """Subscribe and keep every message received (``qos``: a depth or a ``QoSProfile``)."""
        return Collector(self, msg_type, topic, qos)

    def spin_until(self, predicate: Callable[[], Any], timeout: float = DEFAULT_TIMEOUT,
                   what: str = 'condition') -> Any:
        """Spin the probe until ``predicate()`` is truthy; WaitTimeout after ``timeout`` s."""
        return spin_until(self.executor, predicate, timeout, what)

    def spin_for(self, seconds: float) -> None:
        """Spin the probe for ``seconds``: to pace what it publishes, not to wait for a result."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0.0:
                return
            self.executor.spin_once(timeout_sec=left)

    def publish_until(self, publisher, msg, condition: Callable[[], Any],
                      timeout: float = DEFAULT_TIMEOUT, what: str = 'an answer',
                      period: float = 0.5) -> Any:
        """Publish ``msg`` every ``period`` s until ``condition()`` holds; return its value.

        Matching is seen from one side first: a sample published the moment the publisher
        counts a subscription may still miss the subscriber (or its answer may miss us), so the
        first exchange with a node is retried until it gets through.
        """
        deadline = time.monotonic() + timeout
        while True:
            publisher.publish(msg)
            value = wait_until(condition, min(period, max(0.0, deadline - time.monotonic())),
                               what=None,
                               step=lambda seconds: self.executor.spin_once(timeout_sec=seconds))
            if value:
                return value
            if time.monotonic() >= deadline:
                raise WaitTimeout(f'timed out after {timeout:g} s waiting for {what}')

    def spin_for_messages(self, collectors: Iterable[Collector], counts: Iterable[int],
                          timeout: float = DEFAULT_TIMEOUT) -> None:
        """Spin until each collector holds at least its count of messages."""
        pairs = list(zip(collectors, counts))
        self.spin_until(lambda: all(len(c) >= n for c, n in pairs), timeout,
                        ', '.join(f'{n} on {c.topic} (got {len(c)})' for c, n in pairs))

    def wait_for_subscribers(self, publisher, count: int = 1,
                             timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until ``publisher`` is matched with at least ``count`` subscriptions."""
        self.spin_until(lambda: publisher.get_subscription_count() >= count, timeout,
                        f'{count} subscription(s) on {publisher.topic_name}')

    def wait_for_publishers(self, collector_or_subscription, count: int = 1,
                            timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until a subscription (or :class:`Collector`) matches ``count`` publishers."""
        sub = getattr(collector_or_subscription, 'subscription', collector_or_subscription)
        self.spin_until(lambda: sub.get_publisher_count() >= count, timeout,
                        f'{count} publisher(s) on {sub.topic_name}')

    def wait_for_node(self, fully_qualified_name: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until a node with this name (e.g. ``'/left_arm/two_bone_ik'``) is discovered."""
        def present():
            for name, namespace in self.node.get_node_names_and_namespaces():
                if (namespace.rstrip('/') + '/' + name) == fully_qualified_name:
                    return True
            return False
        self.spin_until(present, timeout, f'node {fully_qualified_name}')

    def topic_types(self) -> dict:
        """Return ``{topic name: [type names]}`` of the graph as seen now."""
        return dict(self.node.get_topic_names_and_types())

    # -- services -----------------------------------------------------------------------------

    def call(self, srv_type, service: str, request, timeout: float = DEFAULT_TIMEOUT):
        """Call a service (waiting for it first) and return the response."""
        key = (srv_type, service)
        client = self._clients.get(key)
        if client is None:
            client = self._clients[key] = self.node.create_client(srv_type, service)
        self.spin_until(client.service_is_ready, timeout, f'service {service}')
        future = client.call_async(request)
        self.spin_until(future.done, timeout, f'a reply from {service}')
        return future.result()

    def set_parameters(self, node_name: str, values: Mapping[str, Any],
                       timeout: float = DEFAULT_TIMEOUT) -> list:
        """Set parameters one by one through ``<node_name>/set_parameters``.

        Returns the list of ``rcl_interfaces/SetParametersResult`` (``successful``, ``reason``).
        Python values map to parameter types as in rclpy (a list of floats -> double array).
        """
        request = SetParameters.Request()
        request.parameters = [_parameter_msg(name, value) for name, value in values.items()]
        return list(self.call(SetParameters, f'{node_name}/set_parameters', request,
                              timeout).results)

    def get_parameters(self, node_name: str, names: Sequence[str],
                       timeout: float = DEFAULT_TIMEOUT) -> dict:
        """Return ``{name: python value}`` through ``<node_name>/get_parameters``."""
        request = GetParameters.Request(names=list(names))
        response = self.call(GetParameters, f'{node_name}/get_parameters', request, timeout)
        return {name: parameter_value_to_python(value)
                for name, value in zip(names, response.values)}

    def describe_parameters(self, node_name: str, names: Sequence[str],
                            timeout: float = DEFAULT_TIMEOUT) -> dict:
        """Return ``{name: rcl_interfaces/ParameterDescriptor}``."""
        request = DescribeParameters.Request(names=list(names))
        response = self.call(DescribeParameters, f'{node_name}/describe_parameters', request,
                             timeout)
        return {d.name: d for d in response.descriptors}

    # -- lifetime -----------------------------------------------------------------------------

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)

    def __enter__(self) -> 'RosProbe':
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def ik_and_sim(params, domain_id: int, log_dir, namespace: str, ik_ros_args: Sequence[str] = (),
               sim_ros_args: Sequence[str] = ()) -> dict:
    """Start the IK node and the MuJoCo sim of its arm, both from one params file.

    The IK node takes ``params`` as its params file, the sim as its ``arm_params_file``; both
    run in ``namespace``. Returns ``{'IK node': ..., 'sim': ...}`` (for :func:`drive_nodes`).
    """
    ns = ['-r', f'__ns:={namespace}']
    return {
        'IK node': NodeProcess('two_bone_ik', params_file=params, domain_id=domain_id,
                               log_dir=log_dir, ros_args=[*ns, *ik_ros_args],
                               name='ik_node').start(),
        'sim': NodeProcess('two_bone_ik.nodes.sim_node', domain_id=domain_id, log_dir=log_dir,
                           ros_args=[*ns, '-p', f'arm_params_file:={params}', *sim_ros_args],
                           name='sim').start(),
    }


def drive_nodes(processes: Mapping[str, NodeProcess], domain_id: int,
                drive: Callable[[RosProbe], Any], probe_name: str) -> tuple:
    """Run ``drive(probe)`` while ``processes`` run, then stop them all (a demo's body).

    Returns
    -------
    value
        What ``drive`` returned; None if it timed out waiting.
    failures : list of str
        The timeout, then a line (and the output) per process that did not exit cleanly.
    """
    failures: List[str] = []
    value = None
    probe = None
    try:
        probe = RosProbe(domain_id, probe_name)
        value = drive(probe)
    except WaitTimeout as error:
        failures.append(str(error))
    finally:
        if probe is not None:
            probe.close()
        failures += stop_processes(processes)
    return value, failures


def _parameter_msg(name: str, value: Any) -> ParameterMsg:
    if isinstance(value, tuple):
        value = list(value)
    return Parameter(name, value=value).to_parameter_msg()


def reliable_qos(depth: int = 10) -> QoSProfile:
    """Reliable, volatile, keep-last ``depth`` (rclpy's default profile)."""
    return QoSProfile(depth=depth)
