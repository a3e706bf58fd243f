"""Test hooks for node processes, switched on by environment variables (tests only).

- ``TWO_BONE_IK_TEST_SIGNAL_ON_PUBLISH=<topic suffix>:<count>:<signal>``: signal this process
  from inside its ``count``-th publish on a topic ending in the suffix, then let the publish go
  on once rclpy has shut the context down (the shutdown race of a busy node, made
  deterministic).
- ``TWO_BONE_IK_TEST_BLOCK_IMPORTS=<module>,<module>,...``: make importing these top-level
  modules fail, as on a computer that does not have them installed.
- ``TWO_BONE_IK_TEST_SIGNAL_WHILE_STOPPING=<building|teardown|exit>:<signal>``: signal this
  process as its node is built (a Ctrl-C during start-up), or again while it stops: as its node
  is destroyed, or while the interpreter exits (a second Ctrl-C).
"""

import os
import sys
import time

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

_SPEC = os.environ.pop('TWO_BONE_IK_TEST_SIGNAL_ON_PUBLISH', None)
if _SPEC:
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

# Popped: only this process is hooked, not the Python subprocesses it starts (glfw runs one).
_AGAIN = os.environ.pop('TWO_BONE_IK_TEST_SIGNAL_WHILE_STOPPING', None)
if _AGAIN:
    import rclpy.node

    _stage, _signum_again = _AGAIN.split(':')

    if _stage in ('building', 'teardown'):
        _method = '__init__' if _stage == 'building' else 'destroy_node'
        _original = getattr(rclpy.node.Node, _method)

        def _signalled(self, *args, **kwargs):
            os.kill(os.getpid(), int(_signum_again))
            time.sleep(0.05)  # let a Python-level handler run, if there is one
            return _original(self, *args, **kwargs)

        setattr(rclpy.node.Node, _method, _signalled)
    else:
        import atexit
        import subprocess

        def _signal_until_gone():
            # From the moment run_node has returned until the process is gone, a SIGINT every
            # 2 ms from outside: some land after Python has stopped handling signals.
            subprocess.Popen(['/bin/sh', '-c', f'while kill -{_signum_again} {os.getpid()} '
                              '2>/dev/null; do sleep 0.002; done'],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)

        atexit.register(_signal_until_gone)
