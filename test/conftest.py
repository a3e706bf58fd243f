"""Fixtures shared by the test modules that talk to nodes over DDS."""

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
