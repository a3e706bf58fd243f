"""Test hook: signal this process from inside a publish, then let the publish go on."""

import os

_SPEC = os.environ.get('TWO_BONE_IK_TEST_SIGNAL_ON_PUBLISH')
if _SPEC:
    import time

    import rclpy
    import rclpy.publisher

    _topic, _count, _signum = _SPEC.rsplit(':', 2)
    _seen = [0]
    _publish = rclpy.publisher.Publisher.publish

    def _publish_and_signal(self, msg):
        if self.topic_name.endswith(_topic):
            _seen[0] += 1
            if _seen[0] == int(_count):
                os.kill(os.getpid(), int(_signum))
                deadline = time.monotonic() + 5.0
                while rclpy.ok() and time.monotonic() < deadline:
                    time.sleep(0.001)
        return _publish(self, msg)

    rclpy.publisher.Publisher.publish = _publish_and_signal
