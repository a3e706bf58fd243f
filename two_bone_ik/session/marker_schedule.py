"""When the IK node builds its ``ik_markers`` picture (no ROS).

The node's marker timer wakes the executor every marker period, and every wake-up costs the node
CPU and its targets latency even with nothing to publish. So it runs only while a picture is due
(:attr:`two_bone_ik.session.ArmSession.picture_due`) and someone listens: it rests otherwise,
and the ``/diagnostics`` timer (once a second) starts it again when a subscriber comes for a
picture that was due while nobody listened.
"""

from enum import Enum


class MarkerTick(Enum):
    """What the marker timer does when it fires."""

    #: Build and publish the picture; keep running.
    PUBLISH = 'publish'
    #: Cancel the timer: no picture is due, or nobody listens.
    REST = 'rest'


class MarkerSchedule:
    """The marker timer's decisions: start, publish or rest, wake when a subscriber comes."""

    def __init__(self):
        #: A picture is due but was not built: nobody listened when the timer fired.
        self.unwatched = False

    def start(self, picture_due: bool, timer_resting: bool) -> bool:
        """Return whether a resting timer must start now that something changed.

        Not while nobody listens (then a new target costs nothing: :meth:`subscriber_came`
        starts it when someone does).
        """
        return not self.unwatched and picture_due and timer_resting

    def tick(self, picture_due: bool, subscribers: int) -> MarkerTick:
        """Return what the timer does when it fires; ``subscribers`` of ``ik_markers``."""
        if not picture_due:
            return MarkerTick.REST
        if not subscribers:
            self.unwatched = True  # the picture stays due
            return MarkerTick.REST
        return MarkerTick.PUBLISH

    def subscriber_came(self, subscribers: int) -> bool:
        """Return whether to start the timer: a picture went unwatched and now someone listens."""
        if self.unwatched and subscribers:
            self.unwatched = False
            return True
        return False
