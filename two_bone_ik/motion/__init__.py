"""Limit-respecting motion toward each IK solution, streamed in plan time (no ROS; Ruckig)."""
