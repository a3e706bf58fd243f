"""Test hooks for node processes, switched on by environment variables (tests only).

- ``TWO_BONE_IK_TEST_SIGNAL_ON_PUBLISH=<topic suffix>:<count>:<signal>``: signal this process
  from inside its ``count``-th publish on a topic ending in the suffix, then let the publish go
  on once rclpy has shut the context down (the shutdown race of a busy node, made
  deterministic).
- ``TWO_BONE_IK_TEST_BLOCK_IMPORTS=<module>,<module>,...``: make importing these top-level
  modules fail, as on a computer that does not have them installed.
"""

import os
import sys

_BLOCKED = {name for name in os.environ.get('TWO_BONE_IK_TEST_BLOCK_IMPORTS', '').split(',')
            if name}
if _BLOCKED:
    class _Blocker:
        """A meta path finder that refuses the blocked modules."""

        @staticmethod
        def find_spec(fullname, path=None, target=None):
            if fullname.split('.')[0] in _BLOCKED:
                raise ModuleNotFoundError(f'No module named {fullname!r} (blocked by the test)',
                                          name=fullname)
            return None

    sys.meta_path.insert(0, _Blocker())

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
