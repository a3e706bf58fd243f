"""Defaults of the simulated arm's settings, shared by :mod:`two_bone_ik.sim.arm_sim` and the node.

Kept apart from the simulation so that reading them does not import MuJoCo.
"""

#: Natural frequency of each joint's position loop, Hz.
DEFAULT_NATURAL_FREQUENCY = 3.0
#: Damping ratio of each joint's position loop.
DEFAULT_DAMPING_RATIO = 1.0
#: Viscous joint damping, N m s / rad.
DEFAULT_JOINT_DAMPING = 0.01
#: Physics integration step, s.
DEFAULT_TIMESTEP = 0.002
#: The camera the sim's pictures are taken with: the view it adds in front of the arm, to its
#: right and above (see two_bone_ik.sim.views).
DEFAULT_CAMERA = 'front_side'
