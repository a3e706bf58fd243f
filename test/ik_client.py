"""A test-side client of the IK node: send a target, get everything the node answered.

Shared by the node's tests over DDS (``Arm`` drives one node instance in a namespace).
"""

import math

from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.ik.status import NodeStatus, REJECTED

LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
DEFAULT = ArmConfig()


def unsupervised(joints):
    """Return the IK node's parameters that turn its lag supervision off for ``joints`` joints.

    For closed loops that test where the arm settles: a sim starved of CPU (a loaded machine)
    lags its streamed command, and the node rightly stops the motion (NOT_FOLLOWING) short of
    the target. test_closed_loop_arrival tests the supervision itself.
    """
    return {'path_tolerance': [math.inf] * joints, 'state_timeout': 60.0}


def pose(x, y, z=0.0, frame='base_link'):
    msg = PoseStamped()
    msg.header.frame_id = frame
    msg.pose.position.x = float(x)
    msg.pose.position.y = float(y)
    msg.pose.position.z = float(z)
    msg.pose.orientation.w = 1.0
    return msg


def values(status):
    return {kv.key: kv.value for kv in status.values}


class Reply:
    """What the node published for one target.

    ``joints_before`` is how many joint commands the probe held when the target was published.
    """

    def __init__(self, joints, reachable, status, joints_before):
        self.joints = joints
        self.joints_before = joints_before
        self.reachable = reachable.data
        self.status = status
        self.values = values(status)
        self.code = int(self.values['code'])
        self.name = self.values['status']

    @property
    def q(self):
        return tuple(self.joints.position)


class Arm:
    """Probe-side endpoints for one node instance (namespace ``ns``)."""

    def __init__(self, probe, process, ns='', config=DEFAULT, geometry=None):
        self.probe = probe
        self.process = process
        self.ns = ns
        self.node_name = f'{ns}/two_bone_ik'
        self.config = config
        #: The arm the node drives (from its parameters unless given, e.g. from a URDF).
        self.geometry = geometry if geometry is not None else ArmGeometry.from_config(config)
        self.target = probe.publisher(PoseStamped, f'{ns}/target_pose')
        self.joints = probe.collect(JointState, f'{ns}/joint_commands')
        self.reachable = probe.collect(Bool, f'{ns}/reachable', LATCHED)
        self.status = probe.collect(DiagnosticStatus, f'{ns}/ik_status')
        self._sync = 0

    def connect(self):
        """Wait until targets reach the node and all three outputs reach the probe."""
        self.probe.wait_for_subscribers(self.target)
        for collector in (self.joints, self.reachable, self.status):
            self.probe.wait_for_publishers(collector)
        # Matching is seen from our side first; retry a reachable target until every output
        # writer has delivered to us (so each has matched our reader), then flush.
        start = [len(self.joints), len(self.reachable), len(self.status)]
        target = pose(*self.geometry.from_plane(*self.reachable_uv()),
                      frame=self.geometry.base_frame)
        self.probe.publish_until(
            self.target, target, lambda: (len(self.joints) > start[0]
                                          and len(self.reachable) > start[1]
                                          and len(self.status) > start[2]),
            30.0, f'the node to answer\n{self.process.output()}')
        self.flush()

    def reachable_uv(self):
        """Return a target (u, v) every arm here reaches exactly, elbow up, within its limits."""
        reach = sum(self.geometry.link_lengths)
        return 0.85 * reach * math.cos(0.3), 0.85 * reach * math.sin(0.3)

    def flush(self):
        """Send a marker target (rejected, so it commands nothing) and wait for its status."""
        self._sync += 1
        marker = f'sync_{self._sync}'
        start = len(self.status)
        self.target.publish(pose(0.0, 0.0, frame=marker))
        self.status.wait_for(lambda s: f"'{marker}'" in s.message, start=start)

    def send(self, msg):
        """Publish one target and return the node's :class:`Reply` (joints None if rejected)."""
        counts = len(self.joints), len(self.reachable), len(self.status)
        self.target.publish(msg)
        status = self.status.wait_for(lambda s: True, start=counts[2])
        code = int(values(status)['code'])
        rejected = NodeStatus(code) in REJECTED
        self.probe.spin_for_messages([self.reachable, self.joints],
                                     [counts[1] + 1, counts[0] + (0 if rejected else 1)])
        assert len(self.status) == counts[2] + 1
        joints = None if rejected else self.joints.messages[counts[0]]
        if not rejected and values(status).get('moving') == 'true':
            # A planned motion streams toward the goal: the reply is its last command (at
            # rest: zero velocities).
            joints = self.joints.wait_for(
                lambda m: len(m.velocity) == 2 and not any(m.velocity), start=counts[0])
        return Reply(joints, self.reachable.messages[counts[1]], status, counts[0])

    def wait_at_rest(self, timeout: float = 30.0):
        """Wait until the last joint command is at rest (a streamed motion has ended)."""
        def at_rest():
            messages = self.joints.messages
            return bool(messages) and not any(messages[-1].velocity)
        self.probe.spin_until(at_rest, timeout, 'the streamed motion to end')

    def set_params(self, **params):
        return self.probe.set_parameters(self.node_name, params)

    def get_params(self, *names):
        return self.probe.get_parameters(self.node_name, names)
