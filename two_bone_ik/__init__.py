"""Closed-form inverse kinematics for planar two-link arms, with a ROS 2 node around it."""
