"""The MuJoCo-simulated arm and what renders it (ROS-free); MuJoCo is imported only here.

The simulation itself never renders. Left to itself, importing mujoco loads GLFW, which starts a
second Python interpreter to check its version: start-up time (about 70 ms), and that child's
traceback when the node is stopped meanwhile. So ``MUJOCO_GL`` defaults to ``disable`` before
any module here imports mujoco; a value the user has set is kept. The camera
(:mod:`two_bone_ik.sim.camera`) makes its own headless context (:mod:`~two_bone_ik.sim.gl_backend`,
which reads the user's value from :data:`USER_MUJOCO_GL`), and the viewer
(:mod:`~two_bone_ik.sim.viewer`) its own window, only when asked for.
"""

import os

#: ``MUJOCO_GL`` as the user set it (None: not set), before the default below.
USER_MUJOCO_GL = os.environ.get('MUJOCO_GL')

os.environ.setdefault('MUJOCO_GL', 'disable')
