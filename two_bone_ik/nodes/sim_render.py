"""The sim node's pictures: the viewer window, the camera topics, the target they mark (rclpy).

A thin shell over :mod:`two_bone_ik.sim.render_feed`, :mod:`~two_bone_ik.sim.camera_loop` and
:mod:`~two_bone_ik.sim.viewer`, which do the work in threads of their own: the node's executor
only hands over a copy of the joint positions after each ``joint_states`` (never waiting for a
renderer), and this module turns what the renderers give back into messages:

- ``camera/image_raw`` (sensor_msgs/Image, ``rgb8``) and ``camera/camera_info``
  (sensor_msgs/CameraInfo: the pinhole intrinsics of the camera's field of view, no
  distortion), stamped as the ``joint_states`` of the state they show, ``frame_id``
  ``<camera>_optical_frame``;
- ``camera/pose`` (geometry_msgs/PoseStamped, latched): that optical frame (REP 103: z forward,
  x right, y down) in ``base_frame``, again whenever it moves; and the same transform on
  ``/tf_static`` where ``tf2_msgs`` is installed (it is not among the PyPI wheels);
- ``target_pose`` (geometry_msgs/PoseStamped), subscribed only while something renders: the
  target marked in the pictures and the window.

Nothing here exists when ``viewer`` is false and ``camera_rate`` is 0 (no subscription, no
publisher, no thread), so the sim then behaves as without it.
"""

from typing import Optional

from geometry_msgs.msg import PoseStamped, TransformStamped
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import CameraInfo, Image

from two_bone_ik.nodes.parameters import ParameterError
from two_bone_ik.sim.camera import check_camera, check_size, OffscreenCamera
from two_bone_ik.sim.camera_loop import CameraLoop
from two_bone_ik.sim.gl_backend import choose_backend
from two_bone_ik.sim.render_feed import RenderFeed, target_to_mark
from two_bone_ik.sim.viewer import ArmViewer

#: Seconds the node waits at start for the camera to be made and the window to open.
START_TIMEOUT = 20.0

_IMAGES = QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE)
_LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL)


def optical_frame(camera: str) -> str:
    """Return the frame id of ``camera``'s optical frame (images, camera_info, the pose)."""
    return f'{camera}_optical_frame'


def image_message(image, stamp, frame_id: str) -> Image:
    """Return an RGB ``uint8`` array of shape (height, width, 3) as an ``rgb8`` Image."""
    height, width, _ = image.shape
    msg = Image(height=height, width=width, encoding='rgb8', is_bigendian=0, step=width * 3)
    msg.header.stamp, msg.header.frame_id = stamp, frame_id
    msg.data = image.tobytes()
    return msg


def camera_info_message(intrinsics, stamp, frame_id: str) -> CameraInfo:
    """Return the CameraInfo of a :class:`~two_bone_ik.sim.camera.CameraIntrinsics`."""
    msg = CameraInfo(height=intrinsics.height, width=intrinsics.width,
                     distortion_model='plumb_bob', d=[0.0] * 5, k=list(intrinsics.k),
                     r=[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], p=list(intrinsics.p))
    msg.header.stamp, msg.header.frame_id = stamp, frame_id
    return msg


def pose_message(pose, stamp, base_frame: str) -> PoseStamped:
    """Return a :class:`~two_bone_ik.sim.camera.CameraPose` as a PoseStamped in ``base_frame``."""
    msg = PoseStamped()
    msg.header.stamp, msg.header.frame_id = stamp, base_frame
    position, orientation = msg.pose.position, msg.pose.orientation
    position.x, position.y, position.z = pose.position
    orientation.w, orientation.x, orientation.y, orientation.z = pose.quaternion
    return msg


def transform_message(pose, stamp, base_frame: str, child: str) -> TransformStamped:
    """Return the same pose as a TransformStamped ``base_frame`` -> ``child``."""
    msg = TransformStamped()
    msg.header.stamp, msg.header.frame_id, msg.child_frame_id = stamp, base_frame, child
    translation, rotation = msg.transform.translation, msg.transform.rotation
    translation.x, translation.y, translation.z = pose.position
    rotation.w, rotation.x, rotation.y, rotation.z = pose.quaternion
    return msg


def _tf_static_publisher(node):
    """Return a latched publisher on ``/tf_static``, or None without ``tf2_msgs``."""
    try:
        from tf2_msgs.msg import TFMessage
    except ImportError:
        return None
    return node.create_publisher(TFMessage, '/tf_static', _LATCHED)


class SimRendering:
    """The viewer and the camera of a sim node (see the module docstring).

    Parameters
    ----------
    node : rclpy.node.Node
        The sim node (for topics and its logger).
    sim : ArmSim
        The simulated arm.
    settings : dict
        The node's parameters ``viewer``, ``camera_rate``, ``camera_size``, ``camera``.

    Raises
    ------
    ParameterError
        If ``camera_size`` or ``camera`` is invalid (checked even when nothing renders).
    """

    def __init__(self, node, sim, settings):
        try:
            self._size = check_size(settings['camera_size'])
            check_camera(sim.model, settings['camera'])
        except ValueError as error:
            raise ParameterError(str(error)) from None
        self._node, self._sim = node, sim
        self._logger = node.get_logger()
        self._camera_name = settings['camera']
        self._frame = optical_frame(self._camera_name)
        self._feed = RenderFeed()
        self._camera: Optional[CameraLoop] = None
        self._viewer: Optional[ArmViewer] = None
        self._last_pose = None
        rate = settings['camera_rate']
        #: Whether anything renders (the viewer or the camera).
        self.active = bool(settings['viewer']) or rate > 0.0
        if not self.active:
            return
        if rate > 0.0:
            self._image_pub = node.create_publisher(Image, 'camera/image_raw', _IMAGES)
            self._info_pub = node.create_publisher(CameraInfo, 'camera/camera_info', _IMAGES)
            self._pose_pub = node.create_publisher(PoseStamped, 'camera/pose', _LATCHED)
            self._tf_pub = _tf_static_publisher(node)
            self._camera = CameraLoop(lambda: self._make_camera(rate), self._feed, rate,
                                      self._publish_frame, self._camera_failed)
        if settings['viewer']:
            self._viewer = ArmViewer(sim.model, sim.arm.base_frame, self._feed,
                                     self._logger.info,
                                     headless_note='the simulation runs on without it',
                                     on_problem=self._logger.warning)
        # Making the camera and opening the window hold Python's lock for moments: before the
        # node spins, so that they never hold up the physics or joint_states.
        if self._camera is not None:
            self._camera.ready.wait(START_TIMEOUT)
        if self._viewer is not None:
            self._viewer.settled.wait(START_TIMEOUT)
        node.create_subscription(PoseStamped, 'target_pose', self._on_target, _IMAGES)

    def _make_camera(self, rate: float) -> OffscreenCamera:
        backend = choose_backend()
        camera = OffscreenCamera(self._sim.model, self._sim.arm.base_frame, self._size,
                                 self._camera_name, backend=backend)
        width, height = self._size
        self._logger.info(
            f"camera: '{self._camera_name}' {width}x{height} at {rate:g} Hz ({backend}) on "
            f'camera/image_raw, frame {self._frame}'
            + ('' if self._tf_pub is not None else '; no /tf_static (tf2_msgs not installed)'))
        return camera

    def _camera_failed(self, reason: str) -> None:
        self._logger.warning(f'camera: {reason}; no pictures, the simulation goes on')

    def _publish_frame(self, image, snapshot, camera) -> None:
        if not self._node.context.ok():
            return
        stamp = snapshot.stamp
        try:
            self._image_pub.publish(image_message(image, stamp, self._frame))
            self._info_pub.publish(camera_info_message(camera.intrinsics, stamp, self._frame))
            pose = camera.pose()
            if pose != self._last_pose:
                self._last_pose = pose
                base = self._sim.arm.base_frame
                self._pose_pub.publish(pose_message(pose, stamp, base))
                if self._tf_pub is not None:
                    self._tf_pub.publish(self._tf_pub.msg_type(
                        transforms=[transform_message(pose, stamp, base, self._frame)]))
        except RuntimeError:
            if self._node.context.ok():
                raise  # a real failure; after a shutdown, publishing fails: nothing to say

    def _on_target(self, msg: PoseStamped) -> None:
        p = msg.pose.position
        target = target_to_mark(msg.header.frame_id, self._sim.arm.base_frame, (p.x, p.y, p.z))
        if target is not None:
            self._feed.set_target(target)

    def offer(self, stamp) -> None:
        """Hand the renderers the simulated state just published with ``stamp``."""
        if self.active:
            self._feed.offer(self._sim.data.qpos, stamp)

    def close(self) -> None:
        """Stop the camera and close the window (each waited for a few seconds at most)."""
        if self._camera is not None:
            self._camera.stop()
        if self._viewer is not None:
            self._viewer.close()
