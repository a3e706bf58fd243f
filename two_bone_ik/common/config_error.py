"""The one exception type for a configuration a node cannot start with (ROS-free).

Every module that validates configuration (the arm, a params file, the simulation, the servo
driver) raises a subclass, so the nodes' entry point catches one type and exits with code 2 and
one readable line. The message starts with the name of the parameter (or the file) at fault.
"""


class ConfigError(ValueError):
    """A configuration value or file is invalid; the message names it first."""
