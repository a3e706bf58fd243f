"""What every concern of the package shares: the configuration error, the warning throttle."""
