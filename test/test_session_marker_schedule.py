"""The marker timer's decisions: run only while a picture is due and someone listens."""

from two_bone_ik.session.marker_schedule import MarkerSchedule, MarkerTick


def test_a_due_picture_starts_a_resting_timer_and_is_published_for_a_subscriber():
    schedule = MarkerSchedule()
    assert schedule.start(picture_due=True, timer_resting=True)
    assert not schedule.start(picture_due=True, timer_resting=False)  # already running
    assert not schedule.start(picture_due=False, timer_resting=True)  # nothing to draw
    assert schedule.tick(picture_due=True, subscribers=1) is MarkerTick.PUBLISH


def test_the_timer_rests_once_the_picture_is_published():
    schedule = MarkerSchedule()
    assert schedule.tick(picture_due=False, subscribers=1) is MarkerTick.REST
    assert not schedule.unwatched


def test_without_a_subscriber_the_picture_waits_and_targets_do_not_wake_the_timer():
    schedule = MarkerSchedule()
    assert schedule.tick(picture_due=True, subscribers=0) is MarkerTick.REST
    assert schedule.unwatched
    assert not schedule.start(picture_due=True, timer_resting=True)
    assert not schedule.subscriber_came(0)
    assert schedule.subscriber_came(2)  # the diagnostics timer wakes it
    assert not schedule.unwatched
    assert not schedule.subscriber_came(2)  # once
    assert schedule.start(picture_due=True, timer_resting=True)


def test_a_subscriber_alone_does_not_wake_the_timer_when_nothing_went_unwatched():
    assert not MarkerSchedule().subscriber_came(3)
