"""Per target, without ROS: checks, the solver's answer as a status, markers' geometry."""
