"""The README's quick starts run (or, where they need a ROS 2 distro, checked) as written.

Each quick start is a marked code block (see ``readme_quick_starts``). Without a distro:

- ``make demo`` and ``make test`` are make targets (``make test`` cannot recurse into itself;
  ``test_demo_scripts.py`` runs the scripts ``make demo`` runs);
- the no-distro block runs for real, from the repository root, in this module's ROS domain
  (the block's ``ROS_DOMAIN_ID`` is replaced by it): the IK node and the sim start as written
  in the background, ``two_bone_ik_target`` must exit 0 and print the joints and that the
  arm arrived (as the README's sample shows), the sim's tip must then settle on the target,
  the teleop's ``-h`` must work (its keys are tested in a real terminal in
  ``test_nodes_teleop_command.py``) and ``kill -INT`` must end both nodes with 0;
- the servo block without a distro runs the same way from a directory holding the README's
  ``my_arm.yaml``, its port replaced by an emulated Maestro: the Maestro must get the pulses of
  the YAML's calibration for the joints the tool printed.

The ROS 2 distro blocks are checked line by line (launch files and their arguments,
executables and their arguments, rosdep keys, the colcon line, params files). The interface
tables are compared with the node's parameter schema, its status codes and, while the
quick start's node runs, the topics and services it really has. A broken command in a copy of
the README is found (``test_the_checks_find_a_broken_command``).
"""

import json
import math
import re
import signal
import subprocess
import sys

from bus_servo_emulators import FeetechEmulator
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from ik_client import values
import pytest
from readme_quick_starts import commands, demo_scripts, make_targets, plan
from readme_quick_starts import quick_starts, readme_problems, REPO, save_files
from ros_harness import NodeProcess, ros_environment, WaitTimeout
from sensor_msgs.msg import JointState
from servo_emulators import MaestroEmulator
from test_nodes_so101_chain import _mid as so101_mid, raw_goal as so101_raw_goal
from test_servo_lerobot_calibration import SO101_LIKE

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_config import arm_config_from_mapping, desktop_geometry
from two_bone_ik.arm.params_file import load_arm_config, parameters_for_node
from two_bone_ik.ik.status import LEVELS, NodeStatus
from two_bone_ik.nodes.diagnostics import level_byte
from two_bone_ik.nodes.parameter_schema import ik_parameters
from two_bone_ik.solver.desktop import DesktopSolver
from two_bone_ik.solver.desktop_results import DesktopStatus
import yaml

README = (REPO / 'README.md').read_text()
BLOCKS = quick_starts(README)
#: The README's sample output of two_bone_ik_target (the text block after the no-distro one).
BLOCKS_SAMPLE = README.split('answers like this', 1)[1].split('```text\n', 1)[1].split('```')[0]
#: Seconds for a quick start's command to finish (generous: the machine is shared).
TIMEOUT = 60.0
#: How close the sim's measured tip must come to the target, m.
SETTLED = 1e-3


# -- the whole README, checked ------------------------------------------------------------------

def test_every_quick_start_checks_out(tmp_path):
    assert readme_problems(README, tmp_path) == []


#: Broken commands in a copy of the README, and what the checks must say.
BROKEN = [
    ('.venv-jazzy/bin/two_bone_ik_target 0.4 0.2 0', '.venv-jazzy/bin/two_bone_ik_targt 0.4 0.2 0',
     'two_bone_ik_targt: not an executable'),
    ('.venv-jazzy/bin/two_bone_ik_target 0.4 0.2 0', '.venv-jazzy/bin/two_bone_ik_target 0.4 0.2',
     'expected the target X Y Z'),
    ('--params-file config/two_bone_ik.yaml &', '--params-file config/two_bone.yaml &',
     'params file config/two_bone.yaml'),
    ('-p arm_params_file:=config', '-p arm_params:=config', 'not a parameter it declares'),
    ('kill -INT %1 %2', 'kill -INT %1 %3', 'only 2 job(s) were started'),
    ('make demo\nexport', 'make demos\nexport', 'no such make target'),
    ('.venv-jazzy/bin/two_bone_ik_sim', '.venv-humble/bin/two_bone_ik_sim', '.venv-humble'),
    ('tip_frame:=tool0 trajectory', 'tip_link:=tool0 trajectory', "'tip_link:=tool0'"),
    ('two_bone_ik.launch.py robot', 'two_bone_ik_launch.py robot', 'no such launch file'),
    ('colcon build --packages-select two_bone_ik', 'colcon build --symlink-install',
     'test_package_install.py builds with'),
    ('pip install ruckig ', 'pip install ruckig numpy ', 'package.xml has a rosdep key'),
    ('rosdep install --from-paths src --ignore-src -y', 'rosdep install --from-path src -y',
     '--from-path is not an option'),
    ('source /opt/ros/jazzy/setup.bash', 'source /opt/ros/humble/setup.bash',
     'humble is not one of'),
    ('params_file:=$PWD/my_arm.yaml', 'params_file:=$PWD/arm.yaml', 'params file $PWD/arm.yaml'),
    ('ros2 run two_bone_ik two_bone_ik_teleop', 'ros2 run two_bone_ik two_bone_ik_teleop -x',
     'unrecognized arguments: -x'),
    ('    plane: xz\n', '    plane: xz\n  oops\n', 'my_arm.yaml'),
    ('    joint_names: [shoulder, elbow]\n', '    joint_nmes: [shoulder, elbow]\n',
     'unknown parameter joint_nmes'),
    ('<!-- quick start: no-distro -->', '<!-- no-distro -->', "no quick start 'no-distro'"),
    ('so101.launch.py port:=/dev/ttyACM0 calibration_file:=',
     'so101.launch.py port:=/dev/ttyACM0 calibration:=', "'calibration:="),
    ('so101.launch.py sim:=true', 'so101.launch.py sim:=yes', 'sim:=yes'),
]


@pytest.mark.parametrize('old, new, complaint', BROKEN, ids=[b[2] for b in BROKEN])
def test_the_checks_find_a_broken_command(tmp_path, old, new, complaint):
    assert README.count(old) >= 1, old
    problems = readme_problems(README.replace(old, new, 1), tmp_path)
    assert any(complaint in problem for problem in problems), problems


def test_an_unknown_command_is_a_problem(tmp_path):
    assert plan(commands('ros2 topic pub /x std_msgs/msg/Empty\nwget x\n'), REPO)[1] == [
        'ros2 topic pub /x std_msgs/msg/Empty: not a command this check knows (without a ROS '
        'distro)', 'wget x: not a command this check knows (without a ROS distro)']
    assert plan(commands('ros2 topic echo /x'), REPO, distro=True)[1] == [
        'ros2 topic echo /x: only ros2 launch|run two_bone_ik ... is known']


def test_commands_are_split_as_a_shell_reads_them():
    cmds = commands('a b \\\n  c  # comment\nx && y &\n# only a comment\nz "q r" &\n')
    assert [(c.words, c.background) for c in cmds] == [
        (('a', 'b', 'c'), False), (('x',), False), (('y',), True), (('z', 'q r'), True)]


def test_the_readme_leads():
    lines = README.splitlines()
    assert len(lines) <= 260, 'the README is a guide to docs/, not a reference'
    first_screen = '\n'.join(lines[:45])
    for needed in ('make demo', 'make test', 'SO-101', 'OpenManipulator-X', 'PX100', 'PhantomX',
                   'MeArm', 'robot_description_topic:=', 'docs/desktop_demo.gif'):
        assert needed in first_screen, needed


def test_the_so101_quick_start_target_is_one_the_arm_reaches_as_the_readme_says():
    # Checked, not run (it needs the arm or ros2 launch): its two_bone_ik_target point is
    # reached exactly by config/so101.yaml's arm, the gripper pointing down (approach_pitch).
    config = load_arm_config(REPO / 'config' / 'so101.yaml', build=arm_config_from_mapping)
    target = next(c.words for c in commands(BLOCKS['so101'][0].body)
                  if c.words[:4] == ('ros2', 'run', 'two_bone_ik', 'two_bone_ik_target'))
    point = [float(word) for word in target[4:7]]
    solver = DesktopSolver(desktop_geometry(config).model, elbow=config.elbow,
                           allow_elbow_flip=config.allow_elbow_flip)
    solution = solver.solve(*point, previous=None, approach_pitch=config.approach_pitch)
    assert config.approach_pitch == -math.pi / 2
    assert solution.status is DesktopStatus.REACHED, solution.status


# -- make -----------------------------------------------------------------------------------

def test_make_demo_and_make_test_are_what_the_readme_says():
    assert [c.words for c in commands(BLOCKS['make'][0].body)] == [('make', 'demo'),
                                                                   ('make', 'test')]
    targets = make_targets()
    assert any('-m pytest test' in line for line in targets['test'])
    scripts = demo_scripts()
    assert len(scripts) >= 3
    for script in scripts:
        assert (REPO / script).is_file(), script


# -- the interface tables -------------------------------------------------------------------

#: docs/node.md: the node in full (the README's parameter table moved there, issue 27).
NODE_DOCS = (REPO / 'docs' / 'node.md').read_text()


def table(heading_start, text=README):
    """Return the rows (lists of cell texts) of the first table after a line starting so."""
    start = text.index('\n' + heading_start)
    lines = text[start:].splitlines()[1:]
    first = next(i for i, line in enumerate(lines) if line.startswith('|'))
    rows = []
    for line in lines[first + 2:]:
        if not line.startswith('|'):
            break
        rows.append([cell.strip() for cell in line.strip('|').split(' | ')])
    return rows


def _type_name(spec):
    base = {1: 'bool', 3: 'double', 4: 'string', 7: 'int', 8: 'double', 9: 'string'}[spec.type_]
    if spec.length is None:
        return base + ('[]' if spec.type_ in (7, 8, 9) else '')  # an array of any length
    return f'{base}[N]' if isinstance(spec.length, tuple) else f'{base}[{spec.length}]'


def test_the_parameter_table_is_the_nodes_schema():
    rows = {row[0].strip('`'): row for row in table('Parameters (', NODE_DOCS)}
    specs = {spec.name: spec for spec in ik_parameters()}
    # The README names groups of them and links the table: every name it gives is one.
    start = README.index('\nParameters: ')
    named = re.findall(r'`(\w+)`', README[start:README.index('\n\n', start + 1)])
    assert named and set(named) <= set(specs), set(named) - set(specs)
    assert sorted(rows) == sorted(specs)
    for name, (_, kind, default, when, meaning) in rows.items():
        spec = specs[name]
        assert kind == _type_name(spec), name
        assert yaml.safe_load(default.strip('`')) == spec.default, name
        assert when == ('read-only' if spec.read_only else 'runtime'), name
        assert meaning, name


def test_the_status_table_is_the_nodes_statuses():
    rows = table('Statuses (')
    assert [(int(code), name.strip('`')) for code, name, _, _ in rows] == [
        (int(status), status.name) for status in NodeStatus]
    levels = {'OK': DiagnosticStatus.OK, 'WARN': DiagnosticStatus.WARN,
              'ERROR': DiagnosticStatus.ERROR}
    for code, _, level, meaning in rows:
        assert levels[level] == level_byte(LEVELS[NodeStatus(int(code))]), code
        assert meaning


def readme_endpoints():
    """Return ``{name: (direction, pkg/Type)}`` of the README's table of topics and services."""
    start = README.index('\n## The IK node')
    section = README[start:README.index('\nStatuses (', start)]  # its table of endpoints
    found = re.findall(r'^\| `([~/\w<>]+)` \| (\w+) \| `(\w+/\w+)`', section, re.M)
    return {name: (direction, kind) for name, direction, kind in found}


# -- the no-distro quick start, for real ----------------------------------------------------

class QuickStartRun:
    """The steps of a quick start, run in ``cwd`` in the test's ROS domain.

    ``substitutions`` replace text in every word (a device path, say). Background commands
    become :class:`NodeProcess` es; the others run to completion with a timeout.
    """

    def __init__(self, steps, cwd, domain, log_dir, substitutions=None):
        self.steps = steps
        self.cwd = cwd
        self.domain = domain
        self.log_dir = log_dir
        self.substitutions = dict(substitutions or {})
        self.exports = {}
        self.processes = []
        self.results = {}  # executable name -> CompletedProcess (its last run)
        self.runs = []  # every run's CompletedProcess, in order
        self.stop_codes = None
        self.left_running = None

    def _argv(self, step):
        words = list(step.argv)
        for old, new in self.substitutions.items():
            words = [word.replace(old, new) for word in words]
        return words

    def _env(self):
        extra = {k: v for k, v in self.exports.items() if k != 'ROS_DOMAIN_ID'}
        env = ros_environment(self.domain, None, extra)
        env.pop('AMENT_PREFIX_PATH', None)  # a user's shell has none; the console scripts
        return env                          # need none

    def _do(self, step):
        """Carry out one ``env``, ``start``, ``run`` or ``interactive`` step."""
        if step.kind == 'env':
            self.exports.update(step.values)
        elif step.kind == 'start':
            process = NodeProcess(None, command=self._argv(step), domain_id=self.domain,
                                  log_dir=self.log_dir, name=f'job{len(self.processes) + 1}',
                                  pythonpath=None, cwd=self.cwd)
            process.env = self._env()
            self.processes.append(process.start())
        elif step.kind in ('run', 'interactive'):
            argv = self._argv(step) + (['-h'] if step.kind == 'interactive' else [])
            result = subprocess.run(argv, cwd=self.cwd, env=self._env(), capture_output=True,
                                    text=True, timeout=TIMEOUT)
            self.results[step.argv[0].rsplit('/', 1)[1]] = result
            self.runs.append(result)

    def run_until_stop(self, ready):
        """Run every step before the first ``stop``; call ``ready()`` before the first run."""
        waited = False
        for step in self.steps:
            if step.kind == 'stop':
                break
            if step.kind in ('run', 'interactive') and not waited:
                ready()
                waited = True
            self._do(step)

    def run_all(self, ready):
        """Run every step in order, its stops too; call ``ready(step)`` before each run and stop.

        The stops' exit codes go to ``stop_codes`` as they come; :meth:`stop` then ends only
        what is left running.
        """
        self.stop_codes = []
        for step in self.steps:
            if step.kind == 'stop':
                ready(step)
                for job in step.values:
                    self.processes[job - 1].send_signal(signal.SIGINT)
                self.stop_codes += [self.processes[job - 1].wait(TIMEOUT)
                                    for job in step.values]
                continue
            if step.kind in ('run', 'interactive'):
                ready(step)
            self._do(step)

    def stop(self):
        """Run the ``stop`` steps (SIGINT to the jobs named), then stop what is left (once).

        Returns every process's exit code, in the order the stops ended them;
        ``left_running`` then names the jobs (1, 2, ...) no ``stop`` step ended.
        """
        if self.stop_codes is None or self.left_running is None:
            done = self.stop_codes is not None  # run_all ran the stop steps
            self.stop_codes = self.stop_codes or []
            for step in (s for s in self.steps if s.kind == 'stop' and not done):
                for job in step.values:
                    self.processes[job - 1].send_signal(signal.SIGINT)
                self.stop_codes += [self.processes[job - 1].wait(TIMEOUT)
                                    for job in step.values]
            self.left_running = [job for job, process in enumerate(self.processes, 1)
                                 if process.returncode is None]
            self.stop_codes += [self.processes[job - 1].stop() for job in self.left_running]
        return self.stop_codes

    def output(self):
        return '\n'.join(p.output() for p in self.processes)


def _node_endpoints(probe, name):
    """Return ``{topic or service: (direction, [types])}`` of a node, without rcl's standard ones.

    The direction is the README's: ``out`` (published), ``in`` (subscribed), ``service``.
    """
    node = probe.node
    found = {}
    for direction, getter in (('out', node.get_publisher_names_and_types_by_node),
                              ('in', node.get_subscriber_names_and_types_by_node),
                              ('service', node.get_service_names_and_types_by_node)):
        for topic, types in getter(name, '/'):
            found[topic] = (direction, types)
    standard = ('/rosout', '/parameter_events', f'/{name}/describe_parameters',
                f'/{name}/get_parameters', f'/{name}/get_parameter_types',
                f'/{name}/list_parameters', f'/{name}/set_parameters',
                f'/{name}/set_parameters_atomically', f'/{name}/get_type_description')
    return {topic: types for topic, types in found.items() if topic not in standard}


def wait_until_commands_are_heard(probe, diagnostics, measured=True):
    """Wait until the IK node reports a subscriber of its ``joint_commands`` (and a measurement).

    Its own count of matched subscriptions (/diagnostics), so a command it publishes from then
    on arrives; with ``measured``, the measured position it has taken from ``joint_states`` too,
    so it can tell whether the arm gets there (a sim still starting up would make it
    ``NOT_MONITORED``: the user of the README types the next line seconds later). A Maestro's
    channels report nothing before their first command.
    """
    def heard(array):
        return any(status.name.endswith('two_bone_ik: motion') and
                   re.search(r'joint_commands: [1-9]', {
                       kv.key: kv.value for kv in status.values}.get('subscribers', ''))
                   and (values(status)['measured_position'] != 'none' or not measured)
                   for status in array.status)
    diagnostics.wait_for(heard, timeout=TIMEOUT)
    probe.node.destroy_subscription(diagnostics.subscription)


@pytest.fixture(scope='module')
def no_distro(domain, probe, tmp_path_factory):
    """Run the no-distro quick start; yield (run, target argv, tips, endpoints, stop codes)."""
    steps, problems = plan(commands(BLOCKS['no-distro'][0].body), REPO)
    assert problems == []
    assert [step.kind for step in steps] == ['make', 'env', 'start', 'start', 'run',
                                             'interactive', 'stop']
    tips = probe.collect(PoseStamped, 'tip_pose')
    diagnostics = probe.collect(DiagnosticArray, '/diagnostics')

    def ready():  # the sim subscribes to the IK node's commands and publishes its tip
        wait_until_commands_are_heard(probe, diagnostics)
        probe.wait_for_publishers(tips, timeout=TIMEOUT)

    run = QuickStartRun(steps, REPO, domain, tmp_path_factory.mktemp('no_distro'))
    try:
        run.run_until_stop(ready)
        endpoints = _node_endpoints(probe, 'two_bone_ik')
        target = next(step for step in steps if step.kind == 'run')
        goal = [float(word) for word in target.command.words[1:4]]
        try:
            probe.spin_until(lambda: tips.messages and _distance(tips.last, goal) < SETTLED,
                             TIMEOUT, 'the sim tip on the target')
        except WaitTimeout:
            pass  # test_the_sim_follows says how far it got
        yield run, goal, list(tips.messages), endpoints
    finally:
        run.stop()


def _distance(pose, goal):
    p = pose.pose.position
    return math.dist((p.x, p.y, p.z), goal)


def test_no_distro_exports_what_the_makefile_sets(no_distro):
    run = no_distro[0]
    assert run.exports['ROS_AUTOMATIC_DISCOVERY_RANGE'] == 'LOCALHOST'
    assert run.exports['ROS_DOMAIN_ID'].isdigit()


#: The arrival line two_bone_ik_target prints (the README's sample has one).
ARRIVED_LINE = r'^arrived: tool point (\d+\.\d) mm from the target \(measured\)$'


def test_no_distro_target_is_reached_arrives_and_prints_the_joints(no_distro):
    run = no_distro[0]
    result = run.results['two_bone_ik_target']
    assert result.returncode == 0, f'{result.stdout}\n{result.stderr}\n{run.output()}'
    assert re.search(r'^status: +0 REACHED', result.stdout, re.M), result.stdout
    joints = re.findall(r'^  (\w+) +([-+]\d+\.\d+)$', result.stdout, re.M)
    config = load_arm_config(REPO / 'config' / 'two_bone_ik.yaml')
    assert [name for name, _ in joints] == list(config.joint_names)
    # The sim measured the arm there, within the shipped goal_tolerance (the tool point then
    # within that many radians times the reach), as the README's sample says.
    arrived = re.search(ARRIVED_LINE, result.stdout, re.M)
    assert arrived, result.stdout
    reach = sum(config.link_lengths)
    tolerance = parameters_for_node(REPO / 'config' / 'two_bone_ik.yaml',
                                    '/two_bone_ik').values['goal_tolerance']
    assert float(arrived.group(1)) <= 1000 * sum(tolerance) * reach
    assert re.search(ARRIVED_LINE, BLOCKS_SAMPLE, re.M), 'the README shows no arrival line'


def test_no_distro_sim_follows_to_the_target(no_distro):
    _, goal, tips, _ = no_distro
    assert tips, 'the sim published no tip_pose'
    assert _distance(tips[-1], goal) < SETTLED, tips[-1].pose.position


def test_no_distro_teleop_is_there_and_explains_its_keys(no_distro):
    result = no_distro[0].results['two_bone_ik_teleop']
    assert result.returncode == 0, result.stderr
    assert 'keys:' in result.stdout and 'target_twist' in result.stdout


def test_no_distro_kill_ends_both_nodes_cleanly(no_distro):
    run = no_distro[0]
    codes = run.stop()
    assert run.left_running == [], 'the README leaves them running'
    assert codes == [0, 0], run.output()


#: Rows of the README's table the quick start's node has no reason to have (none: it reads
#: joint_states whether motion is planned or not: a desktop arm's held roll, and whether the arm
#: got there).
ONLY_WITH_MOTION_LIMITS = set()


def test_the_readme_names_every_topic_and_service_of_the_node(no_distro):
    endpoints = {topic: (direction, [kind.replace('/msg/', '/').replace('/srv/', '/')
                                     for kind in types])
                 for topic, (direction, types) in no_distro[3].items()}
    documented = {}
    for name, (direction, kind) in readme_endpoints().items():
        if '<' in name:
            continue  # a topic named by a parameter the quick start does not set
        full = name if name.startswith('/') else '/' + name.replace('~/', 'two_bone_ik/')
        documented[full] = (direction, [kind])
    assert endpoints and '/target_pose' in endpoints
    # Both ways: the node has what the README says, as it says (direction, type), and no more.
    assert sorted(endpoints) == sorted(set(documented) - ONLY_WITH_MOTION_LIMITS)
    for topic, (direction, types) in endpoints.items():
        assert (direction, types) == documented[topic], topic


# -- the servo quick start without a distro, on an emulated Maestro ---------------------------

def test_servo_quick_start_drives_the_servos_of_its_yaml(domain, probe, tmp_path):
    saved = save_files(BLOCKS, tmp_path)
    yaml_path = saved[BLOCKS['servo-yaml'][0].file]
    steps, problems = plan(commands(BLOCKS['servo-no-distro'][0].body), tmp_path,
                           saved)
    assert problems == []
    arm = ArmConfig.from_mapping(parameters_for_node(yaml_path, '/two_bone_ik').values)
    driver = parameters_for_node(yaml_path, '/two_bone_ik_servo').values
    assert driver['joints'] == list(arm.joint_names)
    # The launch line starts the same two nodes from the same file (servo_arm.launch.py).
    launch = commands(BLOCKS['servo'][0].body)[0].words
    assert f'params_file:=$PWD/{BLOCKS["servo-yaml"][0].file}' in launch
    port = next(word.split(':=')[1] for word in launch if word.startswith('port:='))
    assert port == driver['port']

    diagnostics = probe.collect(DiagnosticArray, '/diagnostics')
    with MaestroEmulator(tmp_path / 'ttyACM0') as device:
        run = QuickStartRun(steps, tmp_path, domain, tmp_path / 'logs', {port: str(device.path)})
        try:
            run.run_until_stop(lambda: wait_until_commands_are_heard(probe, diagnostics,
                                                                     measured=False))
            result = run.results['two_bone_ik_target']
            assert result.returncode == 0, f'{result.stdout}\n{result.stderr}\n{run.output()}'
            printed = dict(re.findall(r'^  (\w+) +([-+]\d+\.\d+)$', result.stdout, re.M))
            expected = {}
            for joint in driver['joints']:
                angle0, angle1 = driver[f'servos.{joint}.angle_range']
                out0, out1 = driver[f'servos.{joint}.output_range']
                pulse = out0 + (float(printed[joint]) - angle0) * (out1 - out0) / (angle1 - angle0)
                expected[driver[f'servos.{joint}.channel']] = 4 * pulse  # quarter-µs
            device.wait_for(lambda: all(abs(device.targets[c] - v) <= 2
                                        for c, v in expected.items()),
                            what=f'the Maestro targets {expected}')
        finally:
            codes = run.stop()
    # The block leaves both nodes running for the next target (no kill line): stopped here.
    assert run.left_running == [1, 2]
    assert codes == [0, 0], run.output()


# -- the Python example, for real -------------------------------------------------------------

def test_the_python_example_solves_a_target_and_checks_it_by_forward_kinematics():
    body = BLOCKS['python'][0].body
    result = subprocess.run([sys.executable, '-c', body], cwd=REPO, capture_output=True,
                            text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    # It prints what its comment says: the status, and the tool point by the package's own
    # forward kinematics (the URDF's chain), which is the target solved for.
    said = re.search(r'# (.+)$', body.strip().splitlines()[-1]).group(1)
    assert result.stdout.strip() == said
    target = [float(v) for v in re.search(r'\.solve\(([-\d.]+), ([-\d.]+), ([-\d.]+),',
                                          body).groups()]
    status, point = result.stdout.strip().split(' ', 1)
    assert status == 'REACHED'
    assert [float(v) for v in point.strip('[]').split(',')] == target
    assert 'tool_position' in body and 'open(' in body  # checked by FK, from a URDF file


# -- the SO-101 without a distro: the sim, then the servos on an emulated bus ------------------

def _word_after(steps, prefix):
    """Return the value of the first ``prefix...`` word of the steps' commands."""
    return next(word[len(prefix):] for step in steps for word in step.command.words
                if word.startswith(prefix))


def test_so101_quick_start_drives_the_sim_then_the_servos(domain, probe, tmp_path):
    steps, problems = plan(commands(BLOCKS['so101-no-distro'][0].body), REPO)
    assert problems == []
    assert [step.kind for step in steps] == ['env', 'start', 'start', 'run', 'stop', 'start',
                                             'run']
    port = _word_after(steps, 'port:=')
    calibration = _word_after(steps, 'calibration_file:=')
    assert port == '/dev/ttyACM0' and calibration.endswith('.json')
    written = tmp_path / 'my_arm.json'  # as lerobot-calibrate writes one
    written.write_text(json.dumps(SO101_LIKE, indent=4))
    ids = {motor: entry['id'] for motor, entry in SO101_LIKE.items()}
    middles = {ids[motor]: round(so101_mid(motor)) for motor in SO101_LIKE}
    goal = [float(word) for word in steps[3].command.words[1:4]]
    assert [float(word) for word in steps[6].command.words[1:4]] == goal
    tips = probe.collect(PoseStamped, 'tip_pose')
    states = probe.collect(JointState, 'joint_states')
    first = probe.collect(DiagnosticArray, '/diagnostics')

    def ready(step):
        if step.kind == 'stop':  # before the sim goes: its tip settled on the target
            probe.spin_until(lambda: tips.messages and _distance(tips.last, goal) < SETTLED,
                             TIMEOUT, 'the sim tip on the target')
        elif not run.runs:  # the sim: it subscribes to the commands and publishes its tip
            wait_until_commands_are_heard(probe, first)
            probe.wait_for_publishers(tips, timeout=TIMEOUT)
        else:
            # The servos: the driver reads the arm where the bus has it (every joint
            # mid-range; the sim, gone, left its at the target), then the IK node counts its
            # subscription (a fresh look at /diagnostics).
            states.wait_for(lambda m: 'gripper' in m.name and all(
                abs(p) < 1e-2 for n, p in zip(m.name, m.position) if n != 'gripper'),
                start=len(states), timeout=TIMEOUT)
            wait_until_commands_are_heard(probe, probe.collect(DiagnosticArray, '/diagnostics'))

    with FeetechEmulator(tmp_path / 'ttyACM0', dict(middles)) as device:
        run = QuickStartRun(steps, REPO, domain, tmp_path / 'logs',
                            {port: str(device.path), calibration: str(written)})
        try:
            run.run_all(ready)
            sim_run, servo_run = run.runs
            for result in (sim_run, servo_run):
                assert result.returncode == 0, f'{result.stdout}\n{result.stderr}\n{run.output()}'
                assert re.search(r'^status: +0 REACHED', result.stdout, re.M), result.stdout
            # The simulated arm went there (ready() waited for it before the stop); the servos
            # got the raw goals of the joints printed (LeRobot's formula; printed to 6
            # decimals: within a tick).
            printed = dict(re.findall(r'^  (\w+) +([-+]\d+\.\d+)$', servo_run.stdout, re.M))
            assert sorted(printed) == sorted(m for m in SO101_LIKE if m != 'gripper')
            goals = {ids[m]: so101_raw_goal(m, float(q)) for m, q in printed.items()}
            device.wait_for(lambda: all(abs(device.get(i, 'goal') - g) <= 1
                                        for i, g in goals.items()),
                            timeout=TIMEOUT, what=f'the raw goals {goals}')
        finally:
            codes = run.stop()
    # kill -INT %2 ended the sim cleanly; the IK node and the driver are left for more targets.
    assert codes[0] == 0 and run.left_running == [1, 3], run.output()
    assert codes[1:] == [0, 0], run.output()
