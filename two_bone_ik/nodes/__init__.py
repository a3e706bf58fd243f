"""The rclpy shells: one module per executable, the shared parameter schema and entry points."""

import sys

if sys.argv[:1] == ['-m']:
    # ``python -m two_bone_ik.nodes.<node>``: Python is still locating the node's module (it
    # sets argv[0] to its path once found), whose imports take a while. Make Ctrl-C quiet from
    # here on, as the console scripts do (see two_bone_ik.nodes.entry_points).
    from two_bone_ik.nodes import entry_points  # noqa: F401
