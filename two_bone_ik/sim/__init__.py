"""The MuJoCo-simulated arm (ROS-free); MuJoCo is imported only here.

The simulated arm never renders. Left to itself, importing mujoco loads GLFW, which starts a
second Python interpreter to check its version: start-up time (about 70 ms), and that child's
traceback when the node is stopped meanwhile. So ``MUJOCO_GL`` defaults to ``disable`` before
any module here imports mujoco; a value the user has set is kept.
"""

import os

os.environ.setdefault('MUJOCO_GL', 'disable')
