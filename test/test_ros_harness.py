"""The test harness itself: what the DDS tests rely on when they read a stream."""

import time

from ros_harness import RosProbe, WaitTimeout
from std_msgs.msg import Int32

BURST = 60


def test_a_collector_keeps_a_burst_that_arrived_while_the_probe_was_not_spinning(domain):
    # The streamed-command tests check the step between consecutive messages; a collector that
    # kept only the newest ten of a burst (rclpy's default depth) would show a gap of several
    # periods whenever the probe fell 100 ms behind a 100 Hz stream (CI on a loaded machine).
    with RosProbe(domain, 'harness_probe') as probe:
        collector = probe.collect(Int32, 'harness_burst')
        publisher = probe.publisher(Int32, 'harness_burst', BURST)
        probe.spin_until(lambda: publisher.get_subscription_count() >= 1, 15.0, 'a match')
        for i in range(BURST):
            publisher.publish(Int32(data=i))
        # The probe does not spin for a while, as in a test stalled on a busy machine.
        time.sleep(1.0)
        try:
            probe.spin_until(lambda: len(collector) >= BURST, 10.0, f'{BURST} messages')
        except WaitTimeout:
            pass  # the assertion below shows what arrived
        assert [m.data for m in collector.messages] == list(range(BURST))
