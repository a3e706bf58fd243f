#!/usr/bin/env python3
"""Demo: drive a real two_bone_ik node over DDS and print target -> joint angles -> status.

Starts ``python -m two_bone_ik`` with the default arm (``config/two_bone_ik.yaml``: 0.30 m +
0.25 m links in the xy plane of ``base_link``, each joint turning +-2.8 rad) as a subprocess, on
this machine only (``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``) and in a ROS domain of its own.
Then it sends a built-in sequence of targets: reachable ones in all four quadrants, one the
requested elbow cannot reach within the limits (the other elbow does), one beyond reach, one
closer than the elbow can fold, one off the arm plane, one in a wrong frame, one with NaN, and it
switches the elbow through the node's parameter service (once accepted, once rejected). After
each target it waits for the node's answer (``ik_status``, ``reachable`` and, unless rejected,
the ``joint_commands``), then prints one table row. The tip column is the forward kinematics of the
published angles.

Exits 0 when every step got its answer with the expected status, 1 otherwise; the node is always
stopped before exiting.

Run it with ``make demo`` (which builds the virtualenv), or ``python demo/ik_table_demo.py`` in it.
"""

import argparse
import itertools
import math
from pathlib import Path
import sys
import tempfile
import time

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / 'test')]  # this checkout, and the process harness

from ros_harness import isolate_ros_domain, NodeProcess  # noqa: E402,I100
from ros_harness import spin_until, WaitTimeout  # noqa: E402

from two_bone_ik.arm.params_file import load_arm_config  # noqa: E402
from two_bone_ik.solver import forward  # noqa: E402

DEFAULT_PARAMS = REPO / 'config' / 'two_bone_ik.yaml'
NODE_NAME = 'two_bone_ik'
#: Seconds to wait for any one answer; an upper bound only, never a sleep.
TIMEOUT = 20.0
#: Seconds before a first target nobody answered is sent again (see NodeClient._handshake).
HANDSHAKE_RETRY = 1.0
NAN = float('nan')

# (what, frame_id, (x, y, z) metres, expected status name) or
# ('set', parameter name, value, True if the node should accept it).
STEPS = (
    ('reachable, quadrant I', 'base_link', (0.40, 0.20, 0.0), 'REACHED'),
    ('reachable, quadrant II', 'base_link', (-0.25, 0.35, 0.0), 'REACHED'),
    ('elbow up breaks a limit', 'base_link', (-0.30, 0.25, 0.0), 'ELBOW_FLIPPED'),
    ('reachable, quadrant III', 'base_link', (-0.25, -0.30, 0.0), 'REACHED'),
    ('reachable, quadrant IV', 'base_link', (0.35, -0.25, 0.0), 'REACHED'),
    ('empty frame_id = base_frame', '', (0.0, 0.45, 0.0), 'REACHED'),
    ('full stretch', 'base_link', (0.55, 0.0, 0.0), 'REACHED'),
    ('beyond reach', 'base_link', (0.70, 0.10, 0.0), 'OUT_OF_REACH'),
    ('closer than it folds', 'base_link', (0.02, 0.01, 0.0), 'JOINT_LIMITED'),
    ('off the xy plane', 'base_link', (0.30, 0.20, 0.05), 'OFF_PLANE'),
    ('wrong frame', 'world', (0.30, 0.20, 0.0), 'WRONG_FRAME'),
    ('NaN coordinate', 'base_link', (NAN, 0.20, 0.0), 'INVALID_TARGET'),
    ('set', 'elbow', 'down', True),
    ('reachable, elbow down', 'base_link', (0.40, 0.20, 0.0), 'REACHED'),
    ('reachable, elbow down', 'base_link', (-0.20, -0.35, 0.0), 'REACHED'),
    ('set', 'elbow', 'sideways', False),
    ('still elbow down', 'base_link', (0.35, -0.25, 0.0), 'REACHED'),
    ('set', 'elbow', 'up', True),
    ('back to elbow up', 'base_link', (0.35, -0.25, 0.0), 'REACHED'),
)

#: Statuses for which the node publishes no joint command.
REJECTED = ('WRONG_FRAME', 'INVALID_TARGET')


def _parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--params-file', type=Path, default=DEFAULT_PARAMS,
                        help='ROS parameters YAML for the node (default: %(default)s)')
    return parser.parse_args(argv)


def _fmt(value, width=7, digits=3):
    return f'{value:{width}.{digits}f}' if math.isfinite(value) else f'{value!s:>{width}}'


class NodeClient:
    """Talks to the node under test: targets out, answers in, parameter service calls."""

    def __init__(self, domain_id):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import DurabilityPolicy
        from rclpy.qos import QoSProfile
        from rclpy.qos import ReliabilityPolicy

        from diagnostic_msgs.msg import DiagnosticStatus
        from geometry_msgs.msg import PoseStamped
        from rcl_interfaces.srv import SetParameters
        from sensor_msgs.msg import JointState
        from std_msgs.msg import Bool

        self._rclpy = rclpy
        self._PoseStamped = PoseStamped
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = rclpy.create_node('ik_table_demo', context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.commands, self.reachable, self.statuses = [], [], []
        reliable = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.node.create_subscription(JointState, 'joint_commands', self.commands.append,
                                      reliable)
        self.node.create_subscription(Bool, 'reachable', self.reachable.append, latched)
        self.node.create_subscription(DiagnosticStatus, 'ik_status', self.statuses.append,
                                      reliable)
        self.publisher = self.node.create_publisher(PoseStamped, 'target_pose', reliable)
        self._SetParameters = SetParameters
        self.parameters = self.node.create_client(SetParameters, f'/{NODE_NAME}/set_parameters')

    def spin_until(self, condition, what, process, timeout=TIMEOUT):
        """Spin until ``condition()`` holds; WaitTimeout on timeout or if the node died."""
        spin_until(self.executor, condition, timeout, what, {'node': process})

    def wait_for_node(self, process):
        node = self.node

        def connected():
            return (self.publisher.get_subscription_count() > 0
                    and node.count_publishers('/ik_status') > 0
                    and node.count_publishers('/joint_commands') > 0
                    and node.count_publishers('/reachable') > 0
                    and self.parameters.service_is_ready())

        self.spin_until(connected, 'connection to the node', process)
        self._handshake(process)

    def _handshake(self, process):
        """Send targets in made-up frames (WRONG_FRAME, nothing commanded) until one is answered.

        Seeing the node's publishers is not the node's publishers seeing us: it publishes
        ``ik_status`` only to subscribers it has matched, and the first answer was once lost
        (CI, Jazzy). Each try names its own frame, and a publisher's messages arrive in order:
        once the last try's answer is here, no earlier one is still on its way.
        """
        deadline = time.monotonic() + TIMEOUT
        for attempt in itertools.count():
            frame_id = f'demo_handshake_{attempt}'
            n_reachable = len(self.reachable)
            self._publish(frame_id, (0.3, 0.2, 0.0))
            try:
                self.spin_until(
                    lambda: len(self.reachable) > n_reachable and any(
                        f"'{frame_id}'" in status.message for status in self.statuses),
                    'the answer to a first target', process,
                    timeout=min(HANDSHAKE_RETRY, max(0.0, deadline - time.monotonic())))
                break
            except WaitTimeout:
                if time.monotonic() >= deadline:
                    raise
        if self.commands:
            raise WaitTimeout(f'the node commanded {len(self.commands)} times for a target '
                              'in a frame it cannot use')
        self.statuses.clear()
        self.reachable.clear()

    def _publish(self, frame_id, xyz):
        msg = self._PoseStamped()
        msg.header.frame_id = frame_id
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = xyz
        msg.pose.orientation.w = 1.0
        self.publisher.publish(msg)

    def send(self, frame_id, xyz, process):
        """Publish one target and wait for all of its answers; return them."""
        n_status, n_reachable, n_commands = (
            len(self.statuses), len(self.reachable), len(self.commands))
        self._publish(frame_id, xyz)
        self.spin_until(lambda: len(self.statuses) > n_status and
                        len(self.reachable) > n_reachable, 'ik_status and reachable', process)
        status = self.statuses[n_status]
        values = {kv.key: kv.value for kv in status.values}
        command = None
        if values.get('status') not in REJECTED:
            self.spin_until(lambda: len(self.commands) > n_commands, 'joint_commands', process)
            command = self.commands[n_commands]
        return status, values, self.reachable[n_reachable].data, command

    def set_parameter(self, name, value, process):
        """Set a string parameter through the node's parameter service; return the result."""
        from rcl_interfaces.msg import Parameter
        from rcl_interfaces.msg import ParameterType
        from rcl_interfaces.msg import ParameterValue

        request = self._SetParameters.Request()
        request.parameters = [Parameter(name=name, value=ParameterValue(
            type=ParameterType.PARAMETER_STRING, string_value=value))]
        future = self.parameters.call_async(request)
        self.spin_until(future.done, f'the answer to setting {name}', process)
        return future.result().results[0]

    def close(self):
        self.node.destroy_node()
        self._rclpy.shutdown(context=self.context)


def run(params_file):
    """Run the demo; return the process exit code."""
    domain_id = isolate_ros_domain()
    l1, l2 = load_arm_config(params_file).link_lengths
    shown = params_file.relative_to(REPO) if params_file.is_relative_to(REPO) else params_file
    print(f'two_bone_ik demo: node with {shown} (links {l1:g} m + {l2:g} m), '
          f'ROS_DOMAIN_ID={domain_id}, localhost only')
    header = (f"{'#':>2}  {'target x, y, z [m]':<23} {'frame':<9} {'q1 [rad]':>8} "
              f"{'q2 [rad]':>8}  {'tip x, y [m]':<15} {'reach':<5}  status")
    failures = []
    with tempfile.TemporaryDirectory() as log_dir:
        process = NodeProcess('two_bone_ik', params_file=params_file, domain_id=domain_id,
                              log_dir=log_dir, name='ik_node').start()
        client = None
        try:
            client = NodeClient(domain_id)
            client.wait_for_node(process)
            print(header)
            print('-' * len(header))
            for number, step in enumerate(STEPS, start=1):
                if step[0] == 'set':
                    _, name, value, should_accept = step
                    result = client.set_parameter(name, value, process)
                    verdict = 'accepted' if result.successful else f'rejected: {result.reason}'
                    print(f'{number:>2}  set parameter {name} := {value!r} -> {verdict}')
                    if result.successful != should_accept:
                        failures.append(f'step {number}: parameter {name}={value!r} {verdict}')
                    continue
                what, frame_id, xyz, expected = step
                status, values, reachable, command = client.send(frame_id, xyz, process)
                target = ', '.join(_fmt(c, 6, 3) for c in xyz)
                if command is not None:
                    q1, q2 = command.position
                    tip = ', '.join(_fmt(c, 6, 3) for c in forward(q1, q2, l1, l2))
                    angles = f'{_fmt(q1, 8)} {_fmt(q2, 8)}'
                else:
                    tip, angles = '(no command)', f"{'-':>8} {'-':>8}"
                print(f'{number:>2}  {target:<23} {frame_id or "(empty)":<9} {angles}  '
                      f'{tip:<15} {str(reachable):<5}  {status.message}')
                if values.get('status') != expected:
                    failures.append(f'step {number} ({what}): expected {expected}, got '
                                    f'{values.get("status")}')
            n_commands = sum(1 for s in STEPS if s[0] != 'set' and s[3] not in REJECTED)
            if len(client.commands) != n_commands:
                failures.append(f'{len(client.commands)} joint commands for {n_commands} '
                                'accepted targets')
        except WaitTimeout as error:
            failures.append(str(error))
        finally:
            if client is not None:
                client.close()
            returncode = process.stop()
        if returncode != 0:
            failures.append(f'the node exited with {returncode} on SIGINT')
        if failures:
            print('\nnode output:\n' + process.output(), file=sys.stderr)
    print()
    if failures:
        print('demo FAILED:\n  ' + '\n  '.join(failures), file=sys.stderr)
        return 1
    print(f'demo OK: {sum(1 for s in STEPS if s[0] != "set")} targets and '
          f'{sum(1 for s in STEPS if s[0] == "set")} parameter changes answered as expected; '
          'node stopped cleanly.')
    return 0


def main(argv=None):
    args = _parse_args(argv)
    return run(args.params_file.resolve())


if __name__ == '__main__':
    sys.exit(main())
