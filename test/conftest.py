"""Fixtures shared by the test modules that talk to nodes over DDS; the hypothesis profile."""

from hypothesis import settings
import pytest
from ros_harness import isolate_ros_domain, RosProbe


@pytest.fixture(scope='module')
def domain():
    """Return this test process's own ROS domain id (discovery stays on localhost)."""
    return isolate_ros_domain()


@pytest.fixture(scope='module')
def probe(domain):
    """Yield a test-side node in ``domain``, shared by the tests of one module."""
    with RosProbe(domain) as probe:
        yield probe


# Property tests draw the same examples on every run (and write no example database): a test
# run, in CI or here, checks what the last one checked; new examples come from changing the
# seed of exploration on purpose, not from chance.
settings.register_profile('repeatable', derandomize=True, database=None)
settings.load_profile('repeatable')
