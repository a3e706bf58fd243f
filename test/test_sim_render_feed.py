"""Tests of two_bone_ik.sim.render_feed: the newest state, handed to the renderers."""

import math

import numpy as np

from two_bone_ik.sim.render_feed import RenderFeed, target_to_mark


def test_each_offer_is_a_copy_with_the_target_then():
    feed = RenderFeed()
    assert feed.latest() is None
    qpos = np.array([0.1, 0.2])
    feed.offer(qpos, 'stamp 1')
    qpos[0] = 9.0  # the physics steps on: the snapshot keeps what was offered
    first = feed.latest()
    assert first.qpos.tolist() == [0.1, 0.2] and first.stamp == 'stamp 1'
    assert first.target is None and first.sequence == 1
    feed.set_target((0.3, 0, -0.1))
    assert feed.latest().target is None  # from the next snapshot on
    feed.offer(qpos, 'stamp 2')
    second = feed.latest()
    assert second.target == (0.3, 0.0, -0.1) and second.sequence == 2
    assert second.qpos.tolist() == [9.0, 0.2]
    feed.set_target(None)
    feed.offer(qpos, 'stamp 3')
    assert feed.latest().target is None


def test_only_targets_the_ik_node_takes_are_marked():
    assert target_to_mark('base_link', 'base_link', (1, 2, 3)) == (1.0, 2.0, 3.0)
    assert target_to_mark('', 'base_link', (1, 2, 3)) == (1.0, 2.0, 3.0)
    assert target_to_mark('map', 'base_link', (1, 2, 3)) is None
    assert target_to_mark('base_link', 'base_link', (1, math.nan, 3)) is None
    assert target_to_mark('base_link', 'base_link', (math.inf, 2, 3)) is None
