"""The arm's workspace: the floor, keep-out boxes, link capsules, straight-line paths (no ROS).

- :mod:`~two_bone_ik.workspace.obstacles`: the parameters (``floor_height``,
  ``keep_out_boxes``, ``link_radius``, ``motion_path``), validated;
- :mod:`~two_bone_ik.workspace.links`: the capsules of a pose, from the arm's own kinematics;
- :mod:`~two_bone_ik.workspace.clearance`: whether a pose (or many) is clear, and which link
  touches what;
"""
