"""The rclpy shells: one module per executable, the shared parameter schema and entry points."""
