"""``python -m two_bone_ik``: run the IK node (same as the ``two_bone_ik_node`` script)."""

import sys

from two_bone_ik.nodes.entry_points import ik_node

if __name__ == '__main__':
    sys.exit(ik_node())
