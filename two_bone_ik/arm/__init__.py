"""The arm description: configuration and validation, params files, plane geometry, URDF."""
