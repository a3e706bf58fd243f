# two_bone_ik developer entry points.
#
#   make test [ROS_DISTRO=jazzy|kilted]   create the virtualenv if needed, run every test in test/
#   make demo [ROS_DISTRO=jazzy|kilted]   create the virtualenv if needed, run the demos
#
# The ROS 2 distro comes from PyPI wheels (ros-jazzy-* for Jazzy, ros-* for Kilted); each distro gets
# its own virtualenv, .venv-$(ROS_DISTRO), which is also the ROS prefix (AMENT_PREFIX_PATH).
# Default distro: jazzy (the LTS release).

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
.DEFAULT_GOAL := help

ROS_DISTRO ?= jazzy
SUPPORTED_DISTROS := jazzy kilted
ifeq ($(filter $(ROS_DISTRO),$(SUPPORTED_DISTROS)),)
$(error ROS_DISTRO=$(ROS_DISTRO) is not supported here; use one of: $(SUPPORTED_DISTROS))
endif

PYTHON ?= python3
VENV ?= .venv-$(ROS_DISTRO)
VENV_ABS := $(abspath $(VENV))
VPY := $(VENV_ABS)/bin/python

# ROS 2 client libraries and messages, per distro.
ROS_PKGS_jazzy := ros-jazzy-rclpy[fastrtps] ros-jazzy-std-msgs ros-jazzy-geometry-msgs \
	ros-jazzy-sensor-msgs ros-jazzy-diagnostic-msgs ros-jazzy-std-srvs ros-jazzy-trajectory-msgs \
	ros-jazzy-visualization-msgs
ROS_PKGS_kilted := ros-rclpy ros-std-msgs ros-geometry-msgs ros-sensor-msgs \
	ros-diagnostic-msgs ros-rcl-interfaces ros-rmw-fastrtps-cpp ros-std-srvs ros-trajectory-msgs \
	ros-visualization-msgs
# flake8 and the plugins ament_flake8 uses (its settings are in setup.cfg).
LINT_PKGS := flake8 flake8-blind-except flake8-builtins flake8-class-newline \
	flake8-comprehensions flake8-deprecated flake8-docstrings flake8-import-order flake8-quotes
# Everything else: run, test, demo, the servo driver and the colcon (ROS distro) path; imageio
# writes the rendered pictures and animations, python-xlib lets the tests see and close the
# viewer's window in a virtual display (Xvfb).
PY_PKGS := numpy pyyaml ruckig urdfdom-py xacro pytest hypothesis mujoco matplotlib pyserial \
	dynamixel-sdk imageio python-xlib \
	colcon-common-extensions colcon-ros wheel $(LINT_PKGS)
DEPS := $(ROS_PKGS_$(ROS_DISTRO)) $(PY_PKGS)

# The dependency stamp's name carries a hash of the list, so editing the list reinstalls.
DEPS_STAMP := $(VENV)/.stamp-deps-$(shell echo '$(DEPS)' | md5sum | cut -c1-12)
PKG_STAMP := $(VENV)/.stamp-package
PKG_SOURCES := setup.py setup.cfg package.xml resource/two_bone_ik \
	$(shell find two_bone_ik config launch rviz -type f \( -name '*.py' -o -name '*.yaml' \
	-o -name '*.xml' -o -name '*.rviz' \) 2>/dev/null)

# pip here prints one harmless "Location ... is ignored" warning per package for the machine's
# extra local indexes; drop those lines.
PIP := $(VPY) -m pip --disable-pip-version-check
PIP_QUIET := sed -u "/^WARNING: Location '.*' is ignored/d"

# Every ROS process started from here stays on this machine, in a domain of its own
# (tests and demos pick their own domain per process on top of this).
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST
ifndef ROS_DOMAIN_ID
ROS_DOMAIN_ID := $(shell echo $$(( 1 + $$$$ % 100 )))
endif
export ROS_DOMAIN_ID
# The virtualenv is the ROS prefix; a ROS distro sourced in the calling shell must not leak in.
export AMENT_PREFIX_PATH := $(VENV_ABS)
unexport PYTHONPATH LD_LIBRARY_PATH CMAKE_PREFIX_PATH COLCON_PREFIX_PATH RMW_IMPLEMENTATION
unexport ROS_LOCALHOST_ONLY ROS_STATIC_PEERS _ROS_WHEELS_BOOTSTRAP_COMPLETE
# No display here: matplotlib draws to files.
export MPLBACKEND := Agg

PYTEST_ARGS ?=

.PHONY: help venv test lint demo demo-table demo-closed-loop demo-urdf demo-desktop clean distclean

help:
	@echo 'make test [ROS_DISTRO=jazzy|kilted]   run all tests (default distro: jazzy)'
	@echo 'make demo [ROS_DISTRO=jazzy|kilted]   run the demo (default distro: jazzy)'
	@echo 'make lint                             flake8 with the ament settings (setup.cfg)'
	@echo 'make venv                             only create/update $(VENV)'
	@echo 'make clean | distclean                remove caches | also the virtualenvs'

venv: $(PKG_STAMP)

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(DEPS_STAMP): | $(VENV)/bin/python
	@echo '== installing ROS 2 $(ROS_DISTRO) wheels and Python dependencies into $(VENV)'
	rm -f $(VENV)/.stamp-deps-*
	$(PIP) install -q --upgrade pip 2>&1 | $(PIP_QUIET)
	$(PIP) install -q $(foreach p,$(DEPS),'$(p)') 2>&1 | $(PIP_QUIET)
	touch $@

# A plain (non-editable) install: puts the package into site-packages, the console scripts
# into $(VENV)/bin, and package.xml, launch/ and config/ into $(VENV)/share/two_bone_ik with the
# ament index marker, so get_package_share_directory('two_bone_ik') works. The stamp depends on
# every source file, so `make` reinstalls after any edit.
$(PKG_STAMP): $(DEPS_STAMP) $(PKG_SOURCES)
	@echo '== installing two_bone_ik into $(VENV)'
	rm -rf build/lib build/bdist.* two_bone_ik.egg-info
	$(PIP) install -q --no-deps --no-build-isolation . 2>&1 | $(PIP_QUIET)
	rm -rf build/lib build/bdist.* two_bone_ik.egg-info
	rmdir build 2>/dev/null || true
	touch $@

test: $(PKG_STAMP)
	@echo '== ROS 2 $(ROS_DISTRO), ROS_DOMAIN_ID=$(ROS_DOMAIN_ID), discovery LOCALHOST'
	$(VPY) -m pytest test $(PYTEST_ARGS)

lint: $(DEPS_STAMP)
	$(VPY) -m flake8 two_bone_ik test demo launch bench setup.py

# Each demo is its own target; add more to the list below.
DEMOS := demo-table demo-closed-loop demo-urdf demo-desktop
demo: $(DEMOS)

demo-table: $(PKG_STAMP)
	$(VPY) demo/ik_table_demo.py

# The IK node drives the MuJoCo-simulated arm along a path: prints a table, writes demo.png.
demo-closed-loop: $(PKG_STAMP)
	$(VPY) demo/closed_loop_demo.py

# An arm from its URDF (raised shoulder, zero pose up, reversed axes) driven through a
# ros2_control-style position controller topic with motion limits: a table, demo_urdf.png.
demo-urdf: $(PKG_STAMP)
	$(VPY) demo/urdf_arm_demo.py

# A desktop arm (base yaw, the pair, wrist pitch and roll) picking points on a table in MuJoCo,
# through the position controller topic with motion limits: a table, demo_desktop.png.
demo-desktop: $(PKG_STAMP)
	$(VPY) demo/desktop_pick_demo.py

clean:
	rm -rf build/lib build/bdist.* two_bone_ik.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -not -path './.venv*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf .venv-jazzy .venv-kilted
