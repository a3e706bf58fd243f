"""``two_bone_ik_view``: look at an arm in MuJoCo — a window that follows it live, or one picture.

The rclpy shell over :mod:`two_bone_ik.client.view_arm` (which arm, which messages),
:class:`two_bone_ik.sim.viewer.ArmViewer` (the window) and
:class:`two_bone_ik.sim.camera.OffscreenCamera` (``--render``)::

    two_bone_ik_view --urdf demo/desktop_arm.urdf --base base_link --tip tool
    two_bone_ik_view --params-file config/two_bone_ik.yaml --render arm.png --joints 0.5 -0.8
    two_bone_ik_view                      # the running IK node's arm, following joint_states

``--render`` with ``--urdf`` or ``--params-file`` talks to no ROS graph. Exit status: 0 when the
window was closed or the picture written; 2 (one line) when something cannot be used.
"""

import math
import sys
import time
from typing import Optional, Sequence

from geometry_msgs.msg import PoseStamped
from rcl_interfaces.srv import GetParameters
from rclpy.parameter import parameter_value_to_python
from sensor_msgs.msg import JointState

from two_bone_ik.client.ik_answer import EXIT_NO_ANSWER
from two_bone_ik.client.view_arguments import parse_view_arguments, ViewArguments
from two_bone_ik.client.view_arm import arm_from_params_file, arm_from_urdf_file
from two_bone_ik.client.view_arm import FollowedJoints, fully_qualified_node, given_by_node
from two_bone_ik.client.view_arm import JOINT_COMMANDS, JOINT_STATES
from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.nodes.client_node import ClientError, ClientNode, run_client
from two_bone_ik.nodes.parameter_schema import ARM_PARAMETERS, names
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.camera import OffscreenCamera
from two_bone_ik.sim.gl_backend import RenderUnavailable
from two_bone_ik.sim.render_feed import RenderFeed, target_to_mark
from two_bone_ik.sim.simulated_arm import arm_from_parameters
from two_bone_ik.sim.viewer import ArmViewer

PROG = 'two_bone_ik_view'


def _say(line: str) -> None:
    print(f'{PROG}: {line}', file=sys.stderr, flush=True)


def arm_from_node(client: ClientNode, node: str, timeout: float):
    """Return the simulated arm of the running IK node ``node``, from its parameters.

    Raises
    ------
    ClientError
        If the node does not answer within ``timeout`` s.
    ConfigError
        If its arm cannot be simulated.
    """
    service = client.node.create_client(GetParameters, f'{node}/get_parameters')
    deadline = time.monotonic() + timeout
    if not client.spin_until(service.service_is_ready, deadline):
        raise ClientError(f'no node {node} answered within {timeout:g} s (is the IK node '
                          'running, in this namespace and ROS domain?)')
    arm_names = names(ARM_PARAMETERS)
    future = service.call_async(GetParameters.Request(names=list(arm_names)))
    if not client.spin_until(future.done, deadline) or future.result() is None:
        raise ClientError(f'{node} did not send its parameters within {timeout:g} s')
    values = {name: parameter_value_to_python(value)
              for name, value in zip(arm_names, future.result().values)}
    defaults = {spec.name: spec.default for spec in ARM_PARAMETERS}
    return arm_from_parameters(values, given_by_node(values, defaults))


def _simulation(arm, joints: Sequence[float]) -> ArmSim:
    sim = ArmSim(arm)
    if len(joints) > len(sim.joint_names):
        raise ConfigError(f'--joints: expected at most {len(sim.joint_names)} positions '
                          f"({', '.join(sim.joint_names)}), got {len(joints)}")
    sim.reset(joints)
    return sim


def render_picture(sim: ArmSim, args: ViewArguments) -> None:
    """Write the picture ``args.render`` asks for.

    Raises
    ------
    ConfigError
        If the camera, the size or the picture cannot be used.
    RenderUnavailable
        If no headless OpenGL works here.
    """
    try:
        import imageio.v3 as imageio
    except ImportError:
        raise ConfigError('--render needs imageio (pip install imageio)') from None
    try:
        camera = OffscreenCamera(sim.model, sim.arm.base_frame, args.size, args.camera)
    except ValueError as error:
        raise ConfigError(str(error).replace('camera_size:', '--size:', 1)) from None
    try:
        image = camera.render(sim.data.qpos, args.target)
    finally:
        camera.close()
    try:
        imageio.imwrite(args.render, image)
    except OSError as error:
        raise ConfigError(f'--render: cannot write {args.render}: {error.strerror}') from None


def follow(client: ClientNode, sim: ArmSim, args: ViewArguments) -> int:
    """Show the arm in a window following its joint topics until the window is closed."""
    addresses = {name: int(sim.model.joint(i).qposadr[0]) for i in range(sim.model.njnt)
                 for name in [sim.model.joint(i).name] if name}
    followed = FollowedJoints(sim.data.qpos, addresses, args.follow)
    feed = RenderFeed()
    feed.offer(followed.qpos, None)

    def on_joints(topic):
        def apply(msg: JointState) -> None:
            if followed.apply(topic, msg.name, msg.position):
                feed.offer(followed.qpos, msg.header.stamp)
        return apply

    def on_target(msg: PoseStamped) -> None:
        p = msg.pose.position
        target = target_to_mark(msg.header.frame_id, sim.arm.base_frame, (p.x, p.y, p.z))
        if target is not None:
            feed.set_target(target)
            feed.offer(followed.qpos, None)
    feed.set_target(args.target)
    for topic in (JOINT_STATES, JOINT_COMMANDS):
        client.node.create_subscription(JointState, topic, on_joints(topic), 10)
    client.node.create_subscription(PoseStamped, 'target_pose', on_target, 10)
    viewer = ArmViewer(sim.model, sim.arm.base_frame, feed, _say,
                       headless_note='use --render for a picture')
    try:
        client.spin_until(lambda: not viewer.running, math.inf)
    finally:
        viewer.close()
    return 0 if viewer.opened else EXIT_NO_ANSWER


def _run(args: ViewArguments, ros_args: Sequence[str]) -> int:
    offline = args.render is not None and (args.urdf or args.params_file)
    client = None if offline else ClientNode('two_bone_ik_view', args.namespace, ros_args)
    try:
        node = fully_qualified_node(args.namespace, args.node_name)
        if args.urdf is not None:
            arm = arm_from_urdf_file(args.urdf, args.base, args.tip)
        elif args.params_file is not None:
            arm = arm_from_params_file(args.params_file, node, names(ARM_PARAMETERS))
        else:
            arm = arm_from_node(client, node, args.timeout)
        sim = _simulation(arm, args.joints)
        if args.render is None:
            return follow(client, sim, args)
        render_picture(sim, args)
        _say(f'wrote {args.render} ({args.size[0]}x{args.size[1]}, camera {args.camera})')
        return 0
    finally:
        if client is not None:
            client.close()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``two_bone_ik_view``; return the exit status."""
    return run_client(PROG, argv, parse_view_arguments, _run,
                      errors=(ConfigError, RenderUnavailable))


if __name__ == '__main__':
    sys.exit(main())
