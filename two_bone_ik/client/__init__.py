"""The command-line clients of the IK node, without ROS: what they send and how they report.

``two_bone_ik_target`` (:mod:`two_bone_ik.nodes.target_command`) and ``two_bone_ik_teleop``
(:mod:`two_bone_ik.nodes.teleop_command`) are thin rclpy shells over these modules:

- :mod:`~two_bone_ik.client.arguments`: both tools' command lines;
- :mod:`~two_bone_ik.client.approach`: a target's orientation from an approach pitch and roll;
- :mod:`~two_bone_ik.client.target_path`: the CSV of timed targets (``--path``);
- :mod:`~two_bone_ik.client.ik_answer`: the node's answer to a target, and the exit codes;
- :mod:`~two_bone_ik.client.target_report`: the printed answer and the path's summary table;
- :mod:`~two_bone_ik.client.teleop_keys`: keys to twists, with the hold after a key;
- :mod:`~two_bone_ik.client.teleop_screen`: the teleop's terminal screen (curses).

They talk to the node only through its published interface (topics and messages).
"""
