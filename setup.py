"""Setuptools script for the two_bone_ik ament_python package."""

from glob import glob
import os

from setuptools import find_packages
from setuptools import setup

package_name = 'two_bone_ik'
share_dir = os.path.join('share', package_name)

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        (share_dir, ['package.xml']),
        (os.path.join(share_dir, 'launch'), sorted(glob('launch/*launch.[pxy][yma]*'))),
        (os.path.join(share_dir, 'config'), sorted(glob('config/*.yaml'))),
        (os.path.join(share_dir, 'rviz'), sorted(glob('rviz/*.rviz'))),
    ],
    # What each executable (and the launch files) needs beyond rclpy and the message packages
    # (which come from a ROS distro or the ros-* wheels), for `pip install .[ik]`, `.[sim]`,
    # `.[servo]`, `.[launch]`; from a ROS distro, rosdep installs the same through package.xml
    # (except the Python ruckig: pip).
    install_requires=['setuptools'],
    extras_require={
        'ik': ['numpy', 'pyyaml', 'ruckig', 'urdfdom-py'],  # two_bone_ik_node (URDF arms)
        # two_bone_ik_sim and two_bone_ik_view (imageio: the picture of --render)
        'sim': ['numpy', 'pyyaml', 'urdfdom-py', 'mujoco', 'imageio'],
        'servo': ['numpy', 'pyyaml', 'pyserial', 'dynamixel-sdk'],  # two_bone_ik_servo
        # What the launch files import (launch and launch_ros come from a ROS distro): the
        # params-file reader, and xacro for a urdf_file:=<...>.xacro.
        'launch': ['pyyaml', 'xacro'],
        'demo': ['matplotlib', 'imageio'],  # make demo's pictures and animations
    },
    zip_safe=True,
    maintainer='two_bone_ik maintainers',
    maintainer_email='two_bone_ik@example.com',
    description=('Closed-form two-link inverse kinematics: solver, ROS 2 node, URDF, MuJoCo sim, '
                 'serial servo driver.'),
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'two_bone_ik_node = two_bone_ik.nodes.entry_points:ik_node',
            'two_bone_ik_urdf = two_bone_ik.nodes.entry_points:urdf_command',
            'two_bone_ik_sim = two_bone_ik.nodes.entry_points:sim_node',
            'two_bone_ik_servo = two_bone_ik.nodes.entry_points:servo_node',
            'two_bone_ik_target = two_bone_ik.nodes.client_entry_points:target_command',
            'two_bone_ik_teleop = two_bone_ik.nodes.client_entry_points:teleop_command',
            'two_bone_ik_view = two_bone_ik.nodes.client_entry_points:view_command',
        ],
    },
)
