"""Throttled warnings about the parts of a ``joint_commands`` message a node ignores.

Shared by the nodes that take ``sensor_msgs/JointState`` commands (the simulated arm, the servo
driver), so both word and throttle them alike: one line per kind of problem at most every
``throttle`` seconds (rclpy throttles per call site, so each kind has its own window).
"""

from typing import Sequence

from two_bone_ik.arm.joint_commands import command_problems, CommandMatch


def warn_about_command(logger, match: CommandMatch, msg, joint_names: Sequence[str],
                       throttle: float) -> None:
    """Log what :func:`~two_bone_ik.arm.joint_commands.match_command` found wrong in ``msg``.

    Parameters
    ----------
    logger : rclpy logger
    match : CommandMatch
        The match of ``msg`` to ``joint_names``.
    msg : sensor_msgs.msg.JointState
    joint_names : sequence of str
        The node's joints.
    throttle : float
        Minimum seconds between two lines of the same kind.
    """
    lines = dict(command_problems(match, joint_names, not msg.name and len(msg.position) > 0))
    # rclpy throttles per call site: one call per kind gives each kind its own window.
    if 'unknown' in lines:
        logger.warning(lines['unknown'], throttle_duration_sec=throttle)
    if 'invalid' in lines:
        logger.warning(lines['invalid'], throttle_duration_sec=throttle)
    if 'unnamed' in lines:
        logger.warning(lines['unnamed'], throttle_duration_sec=throttle)
