"""Serial servo controllers (ROS-free): calibration, one module per protocol, the link.

- :mod:`~two_bone_ik.servo.driver`: the driver node's decisions (commands, read-back,
  diagnostics), on an injected clock;
- :mod:`~two_bone_ik.servo.calibration`: the angle <-> device-unit map and output limits;
- :mod:`~two_bone_ik.servo.lerobot_calibration`: LeRobot calibration files, its degrees mode;
- :mod:`~two_bone_ik.servo.servo_settings`: each servo's settings from parameters and a file;
- :mod:`~two_bone_ik.servo.coupling`: servos that set the sum of two joint angles;
- :mod:`~two_bone_ik.servo.controller`: what every protocol module provides, and the errors;
- :mod:`~two_bone_ik.servo.maestro`, :mod:`~two_bone_ik.servo.ssc32u`,
  :mod:`~two_bone_ik.servo.dynamixel`, :mod:`~two_bone_ik.servo.dynamixel1`,
  :mod:`~two_bone_ik.servo.feetech` (packets in :mod:`~two_bone_ik.servo.feetech_packets`):
  the protocols; :mod:`~two_bone_ik.servo.bus_roll`: what the bus protocols share;
- :mod:`~two_bone_ik.servo.servo_link`: connecting, reconnecting, counting; the protocol table.

pyserial and dynamixel-sdk are imported only by the protocol modules that need them (and only
when the driver is asked for that protocol); importing this package imports neither.
"""

from two_bone_ik.servo.calibration import Calibration, CalibrationError, Output

__all__ = ['Calibration', 'CalibrationError', 'Output']
