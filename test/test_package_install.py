"""The ROS-distro path: colcon-build the package, then use it the way a sourced install does.

One colcon build (into pytest's tmp dir, so the repository stays clean) is shared by the tests
here. The environment for the installed package is the one `. install/setup.sh` gives, captured
from a real shell. The node is started from `install/two_bone_ik/lib/two_bone_ik/two_bone_ik_node`,
the executable `ros2 run two_bone_ik two_bone_ik_node` would start, and driven over DDS on
localhost in a domain of its own.
"""

import math
import os
from pathlib import Path
import subprocess
import sys

from geometry_msgs.msg import PoseStamped
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from readme_quick_starts import COLCON_BUILD
from ros_harness import claim_domain_id, NodeProcess, RosProbe
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool

PACKAGE = 'two_bone_ik'
REPO = Path(__file__).resolve().parent.parent
EXECUTABLES = ('two_bone_ik_node', 'two_bone_ik_urdf', 'two_bone_ik_sim', 'two_bone_ik_servo',
               'two_bone_ik_target', 'two_bone_ik_teleop', 'two_bone_ik_view')
# The default arm of config/two_bone_ik.yaml.
LINK_LENGTHS = (0.30, 0.25)
JOINT_NAMES = ('shoulder_joint', 'elbow_joint')
BASE_FRAME = 'base_link'
# share/two_bone_ik folders: (folder, glob of the repository's files, files that must be there).
INSTALLED_DATA = (
    ('launch', '*launch.[pxy][yma]*', {
        'two_bone_ik.launch.py', 'two_bone_ik.launch.xml', 'sim.launch.py', 'view_arm.launch.py',
        'display.launch.py', 'servo_arm.launch.py', 'two_arms.launch.py',
        'two_arms.launch.xml'}),
    ('config', '*.yaml', {'two_bone_ik.yaml', 'servo_arm.yaml', 'servo_driver_maestro.yaml',
                          'servo_arm_maestro.yaml', 'two_arms.yaml'}),
    ('rviz', '*.rviz', {'two_bone_ik.rviz'}),
)
# Seconds; generous because the machine is shared, and only ever an upper bound.
TIMEOUT = 30.0


def _colcon_executable():
    colcon = Path(sys.executable).parent / 'colcon'
    assert colcon.is_file(), f'colcon is not installed next to {sys.executable}: run `make test`'
    return str(colcon)


def _sourced_environment(install, base_env):
    """Return the environment a shell has after `. install/setup.sh`, as a dict."""
    command = f'. "{install}/setup.sh" && env -0'
    out = subprocess.run(['bash', '-c', command], env=base_env, cwd=install.parent,
                         capture_output=True, check=True, timeout=TIMEOUT).stdout
    env = {}
    for entry in out.decode().split('\0'):
        if '=' in entry:
            key, value = entry.split('=', 1)
            env[key] = value
    return env


@pytest.fixture(scope='module')
def workspace(tmp_path_factory):
    """colcon-build the repository into a tmp workspace; return (install dir, sourced env).

    The workspace is the README's: ``src/two_bone_ik`` (a link to this checkout), built from
    the workspace with the README's command (``COLCON_BUILD``).
    """
    root = tmp_path_factory.mktemp('colcon_ws')
    (root / 'src').mkdir()
    (root / 'src' / PACKAGE).symlink_to(REPO, target_is_directory=True)
    base_env = dict(os.environ)
    # The repository itself must not be importable by accident: only the install tree counts.
    base_env.pop('PYTHONPATH', None)
    result = subprocess.run(
        [_colcon_executable(), *COLCON_BUILD[1:]],
        cwd=root, env=base_env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f'colcon build failed:\n{result.stdout}\n{result.stderr}'
    assert 'Summary: 1 package finished' in result.stdout, result.stdout
    install = root / 'install'
    return install, _sourced_environment(install, base_env)


def _repo_files(folder, pattern):
    return sorted(p.name for p in (REPO / folder).glob(pattern))


def test_install_tree_layout(workspace):
    install, _ = workspace
    prefix = install / PACKAGE
    for name in EXECUTABLES:
        executable = prefix / 'lib' / PACKAGE / name
        assert executable.is_file(), f'{executable} missing'
        assert os.access(executable, os.X_OK), f'{executable} is not executable'
    share = prefix / 'share' / PACKAGE
    assert (share / 'package.xml').read_text() == (REPO / 'package.xml').read_text()
    assert (prefix / 'share' / 'ament_index' / 'resource_index' / 'packages' / PACKAGE).is_file()
    # Every launch, config and RViz file of the repository is installed, and nothing else.
    for folder, pattern, expected in INSTALLED_DATA:
        files = _repo_files(folder, pattern)
        assert expected <= set(files), (folder, files)
        assert sorted(p.name for p in (share / folder).iterdir()) == files
        for name in files:
            assert (share / folder / name).read_bytes() == (REPO / folder / name).read_bytes()


def test_sourced_environment_finds_the_install_tree(workspace):
    """ament_index_python and the import system resolve to the install tree, not the repo."""
    install, env = workspace
    prefix = install / PACKAGE
    assert str(prefix) in env['AMENT_PREFIX_PATH'].split(os.pathsep)
    probe = (
        'import os, two_bone_ik\n'
        'from ament_index_python.packages import get_package_prefix\n'
        'from ament_index_python.packages import get_package_share_directory\n'
        'share = get_package_share_directory("two_bone_ik")\n'
        'print(get_package_prefix("two_bone_ik"))\n'
        'print(share)\n'
        'print(os.path.dirname(two_bone_ik.__file__))\n'
        'print(" ".join(sorted(os.listdir(os.path.join(share, "launch")))))\n'
        'print(" ".join(sorted(os.listdir(os.path.join(share, "config")))))\n'
        'print(" ".join(sorted(os.listdir(os.path.join(share, "rviz")))))\n'
    )
    result = subprocess.run([sys.executable, '-c', probe], env=env, cwd=install.parent,
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    pkg_prefix, share, module_dir, launch, config, rviz = result.stdout.splitlines()
    assert Path(pkg_prefix) == prefix
    assert Path(share) == prefix / 'share' / PACKAGE
    assert Path(module_dir).is_relative_to(prefix / 'lib'), module_dir
    assert launch.split() == _repo_files('launch', '*launch.[pxy][yma]*')
    assert config.split() == _repo_files('config', '*.yaml')
    assert rviz.split() == _repo_files('rviz', '*.rviz')


def _installed_ik_node(workspace, config, domain, log_dir, name, ros_args=()):
    """Return a NodeProcess of the installed two_bone_ik_node with an installed config file."""
    install, env = workspace
    prefix = install / PACKAGE
    sourced = {k: v for k, v in env.items() if not k.startswith('ROS_')}
    return NodeProcess(None, command=[str(prefix / 'lib' / PACKAGE / 'two_bone_ik_node')],
                       params_file=prefix / 'share' / PACKAGE / 'config' / config,
                       ros_args=ros_args, domain_id=domain, log_dir=log_dir, name=name,
                       pythonpath=None, env_extra=sourced)


@pytest.fixture
def installed_node(workspace, tmp_path):
    """Start two_bone_ik_node from the install tree with the installed default config."""
    domain = claim_domain_id()
    with _installed_ik_node(workspace, 'two_bone_ik.yaml', domain, tmp_path,
                            'installed') as process:
        yield process, domain


def test_installed_node_answers_over_dds(installed_node):
    process, domain = installed_node
    with RosProbe(domain, 'test_package_install_client') as probe:
        commands = probe.collect(JointState, 'joint_commands')
        reachable = probe.collect(Bool, 'reachable', QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL))
        publisher = probe.publisher(PoseStamped, 'target_pose')
        probe.wait_for_subscribers(publisher, timeout=TIMEOUT)
        probe.wait_for_publishers(commands, timeout=TIMEOUT)
        probe.wait_for_publishers(reachable, timeout=TIMEOUT)
        target = PoseStamped()
        target.header.frame_id = BASE_FRAME
        target.pose.position.x, target.pose.position.y = 0.20, 0.33
        target.pose.orientation.w = 1.0
        probe.publish_until(publisher, target, lambda: len(commands) and len(reachable),
                            TIMEOUT, 'joint_commands and reachable from the installed node')

        command = commands.last
        assert tuple(command.name) == JOINT_NAMES
        q1, q2 = command.position
        l1, l2 = LINK_LENGTHS
        tip = (l1 * math.cos(q1) + l2 * math.cos(q1 + q2),
               l1 * math.sin(q1) + l2 * math.sin(q1 + q2))
        assert tip == pytest.approx((0.20, 0.33), abs=1e-9)
        assert q2 <= 0.0  # the default config asks for elbow 'up'
        assert reachable.last.data is True
    assert process.interrupt(TIMEOUT) == 0, process.output()
    assert 'Traceback' not in process.stderr, process.output()
    # It ran from the install tree, not from this checkout.
    assert str(REPO / 'two_bone_ik') not in process.stderr


def _run_installed(env, install, *args):
    """Run a command in the sourced environment; return its stdout (it must succeed)."""
    result = subprocess.run(list(args), env=env, cwd=install.parent, capture_output=True,
                            text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_urdf_command_of_the_launch_files_runs_from_the_install_tree(workspace):
    """display.launch.py's Command: ExecutableInPackage('two_bone_ik_urdf', 'two_bone_ik')."""
    install, env = workspace
    # Where ExecutableInPackage looks: <package prefix>/lib/<package>/<executable>.
    executable = _run_installed(env, install, sys.executable, '-c', (
        'import os\n'
        'from ament_index_python.packages import get_package_prefix\n'
        'print(os.path.join(get_package_prefix("two_bone_ik"), "lib", "two_bone_ik", '
        '"two_bone_ik_urdf"))\n')).strip()
    assert Path(executable) == install / PACKAGE / 'lib' / PACKAGE / 'two_bone_ik_urdf'
    share = install / PACKAGE / 'share' / PACKAGE
    for arm, joint in (('left_arm', 'left_shoulder_joint'), ('right_arm', 'right_shoulder_joint')):
        urdf = _run_installed(env, install, executable, '--params-file',
                              str(share / 'config' / 'two_arms.yaml'), '--node-name',
                              f'/{arm}/two_bone_ik')
        assert urdf.startswith('<?xml') and f'<joint name="{joint}"' in urdf, urdf[:300]


#: The arms of config/two_arms.yaml: (link lengths, shoulder (x, y), joint names, elbow sign).
TWO_ARMS = {
    'left_arm': ((0.30, 0.25), (0.0, 0.20), ('left_shoulder_joint', 'left_elbow_joint'), -1),
    'right_arm': ((0.25, 0.20), (0.0, -0.20), ('right_shoulder_joint', 'right_elbow_joint'), 1),
}


def test_installed_nodes_of_two_arms_take_their_own_sections(workspace, tmp_path):
    """The two IK nodes of two_arms.launch.py, started as launch_ros starts them."""
    domain = claim_domain_id()
    processes = [
        _installed_ik_node(workspace, 'two_arms.yaml', domain, tmp_path, arm,
                           ['-r', '__node:=two_bone_ik', '-r', f'__ns:=/{arm}']).start()
        for arm in TWO_ARMS]
    try:
        with RosProbe(domain, 'test_two_arms_client') as probe:
            for arm, (lengths, shoulder, joint_names, elbow_sign) in TWO_ARMS.items():
                commands = probe.collect(JointState, f'{arm}/joint_commands')
                publisher = probe.publisher(PoseStamped, f'{arm}/target_pose')
                probe.wait_for_subscribers(publisher, timeout=TIMEOUT)
                probe.wait_for_publishers(commands, timeout=TIMEOUT)
                target = PoseStamped()
                target.header.frame_id = BASE_FRAME
                # 0.3 m ahead of the shoulder and 0.3 m outwards: reachable by both arms.
                goal = (shoulder[0] + 0.3, shoulder[1] + 0.3 * (1 if shoulder[1] > 0 else -1))
                target.pose.position.x, target.pose.position.y = goal
                target.pose.orientation.w = 1.0
                probe.publish_until(publisher, target, lambda: len(commands), TIMEOUT,
                                    f'joint_commands of /{arm}/two_bone_ik')
                command = commands.last
                assert tuple(command.name) == joint_names
                q1, q2 = command.position
                (l1, l2), (sx, sy) = lengths, shoulder
                tip = (sx + l1 * math.cos(q1) + l2 * math.cos(q1 + q2),
                       sy + l1 * math.sin(q1) + l2 * math.sin(q1 + q2))
                assert tip == pytest.approx(goal, abs=1e-9), arm
                assert q2 * elbow_sign > 0, (arm, q2)  # left elbow up, right elbow down
    finally:
        for process in processes:
            assert process.interrupt(TIMEOUT) == 0, process.output()
            assert 'Traceback' not in process.stderr, process.output()
