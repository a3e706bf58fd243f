"""Tests for two_bone_ik.session.target_frames (look up, hold, retry; a simulated clock)."""

import math

import numpy as np
import pytest

from two_bone_ik.common.config_error import ConfigError
from two_bone_ik.ik.target_frame import FrameTransform
from two_bone_ik.session.target_frames import check_transform_timeout, Held, Moved, NO_LOOKUP
from two_bone_ik.session.target_frames import TargetFrames

CAMERA = FrameTransform((0.1, 0.0, 0.0), (0.0, 0.0, math.sin(math.pi / 4),
                                          math.cos(math.pi / 4)))


class Clock:

    def __init__(self):
        self.now = 50.0

    def __call__(self):
        return self.now


class Lookup:
    """A lookup that knows ``known`` frames; records every call."""

    def __init__(self, known=None):
        self.known = dict(known or {})
        self.calls = []

    def __call__(self, frame, stamp, timeout):
        self.calls.append((frame, stamp, timeout))
        if frame in self.known:
            return self.known[frame]
        return f'LookupException: "{frame}" passed to lookupTransform does not exist.'


def test_a_known_frame_is_moved_at_once_without_waiting():
    lookup = Lookup({'camera_link': CAMERA})
    frames = TargetFrames(lookup, 0.1, Clock())
    moved = frames.take('camera_link', (0.2, 0.0, 0.0), None, stamp=1_500_000_000)
    assert isinstance(moved, Moved)
    np.testing.assert_allclose(moved.position, (0.1, 0.2, 0.0), atol=1e-15)
    assert moved.orientation is None
    assert lookup.calls == [('camera_link', 1_500_000_000, 0.0)]  # its stamp; never a wait
    assert frames.held is None


def test_a_frame_not_there_yet_is_held_until_its_transform_comes():
    clock, lookup = Clock(), Lookup()
    frames = TargetFrames(lookup, 0.1, clock)
    assert frames.take('camera_link', (0.2, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), 7) is None
    assert frames.held == Held('camera_link', (0.2, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), 7, 50.1,
                               'LookupException: "camera_link" passed to lookupTransform does '
                               'not exist.')
    clock.now += 0.05
    assert frames.retry() is None  # not yet, still held
    lookup.known['camera_link'] = CAMERA
    held, moved = frames.retry()
    assert held.frame_id == 'camera_link' and frames.held is None
    np.testing.assert_allclose(moved.position, (0.1, 0.2, 0.0), atol=1e-15)
    np.testing.assert_allclose(moved.orientation, CAMERA.rotation, atol=1e-15)
    assert all(call[1:] == (7, 0.0) for call in lookup.calls)
    assert frames.retry() is None


def test_a_frame_that_never_comes_is_refused_with_the_last_reason_when_time_is_up():
    clock, lookup = Clock(), Lookup()
    frames = TargetFrames(lookup, 0.1, clock)
    assert frames.take('nowhere', (0.2, 0.0, 0.0), None) is None
    clock.now += 0.0999
    assert frames.retry() is None
    clock.now += 0.0001
    held, reason = frames.retry()
    assert held.frame_id == 'nowhere' and frames.held is None
    assert reason.startswith('LookupException: "nowhere" passed to lookupTransform')
    assert 'waited 0.1 s: transform_timeout' in reason


def test_zero_timeout_or_no_lookup_refuse_at_once():
    frames = TargetFrames(Lookup(), 0.0, Clock())
    assert frames.take('nowhere', (0.0, 0.0, 0.0), None).startswith('LookupException')
    assert frames.held is None
    frames = TargetFrames(None, 0.1, Clock())
    assert frames.take('camera_link', (0.0, 0.0, 0.0), None) == NO_LOOKUP
    assert frames.held is None


def test_a_newer_target_replaces_the_held_one_and_drop_hands_it_back():
    frames = TargetFrames(Lookup(), 0.1, Clock())
    frames.take('a', (1.0, 0.0, 0.0), None)
    assert frames.drop().frame_id == 'a'
    assert frames.drop() is None


@pytest.mark.parametrize('answer, words', [
    (RuntimeError('boom'), 'the transform lookup failed: RuntimeError: boom'),
    (FrameTransform((math.inf, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)), 'not 7 finite'),
    (42, 'returned int'),
])
def test_a_lookup_that_raises_or_returns_garbage_is_a_reason_not_a_crash(answer, words):
    def lookup(frame, stamp, timeout):
        if isinstance(answer, Exception):
            raise answer
        return answer

    frames = TargetFrames(lookup, 0.0, Clock())
    assert words in frames.take('camera_link', (0.0, 0.0, 0.0), None)


@pytest.mark.parametrize('value', [-0.1, 10.5, math.nan, True, '0.1', None])
def test_bad_transform_timeouts_are_refused_naming_the_parameter(value):
    with pytest.raises(ConfigError, match='^transform_timeout: expected 0 to 10 s'):
        check_transform_timeout(value)


def test_good_transform_timeouts():
    assert check_transform_timeout(0) == 0.0
    assert check_transform_timeout(10.0) == 10.0
