"""``tf2_ros`` for node processes under test: the stand-in of test/tf2_stand_in.py.

A node started with this folder and test/ first on its ``PYTHONPATH`` imports it as tf2_ros
(see test_nodes_transforms.py); its listener knows the transforms of the environment variable
``TWO_BONE_IK_TEST_TRANSFORMS``.
"""

from tf2_stand_in import Buffer, ConnectivityException, ExtrapolationException  # noqa: F401
from tf2_stand_in import InvalidArgumentException, LookupException  # noqa: F401
from tf2_stand_in import TimeoutException, TransformException, TransformListener  # noqa: F401
