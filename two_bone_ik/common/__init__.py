"""What every concern of the package shares: config errors, warning throttle, number texts."""
