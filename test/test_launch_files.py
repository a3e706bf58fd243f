"""The launch files, the two-arm config and the RViz config, read without the launch system.

``launch`` and ``launch_ros`` are not installable here, so the launch files are read as source
(Python with ``ast``, XML with ElementTree) and everything they name is checked against what
exists: arguments (against the list the README documents), executables (console scripts of
setup.py, or robot_state_publisher and rviz2), node names, parameter names (against
two_bone_ik.nodes.parameter_schema), included launch files and the arguments passed to them
(all of them, so none leaks in from the command line), that every node of this package ends the
launch when it exits (with an error when it failed), params files (read the way rcl reads them,
section by section) and the RViz config. The checks collect problems into lists, and a launch
file written wrong on purpose shows that they find them. The launch files were run by hand with
the real launch system (see the README).
"""

import ast
from pathlib import Path
import xml.etree.ElementTree as ElementTree

import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_config import arm_config_from_mapping
from two_bone_ik.arm.params_file import parameters_for_node, read_params_file
from two_bone_ik.arm.urdf_export import TOOL_LINK
from two_bone_ik.arm.urdf_import import arm_geometry
from two_bone_ik.nodes import ik_node, servo_node, sim_node
from two_bone_ik.nodes.parameter_schema import ARM_PARAMETERS, ik_parameters, names
from two_bone_ik.nodes.parameter_schema import servo_joint_parameters, SERVO_PARAMETERS
from two_bone_ik.nodes.parameter_schema import SIM_PARAMETERS
from two_bone_ik.nodes.urdf_command import main as urdf_main
import yaml

REPO = Path(__file__).resolve().parents[1]
LAUNCH = REPO / 'launch'
CONFIG = REPO / 'config'
PACKAGE = 'two_bone_ik'

#: Every launch file and its arguments, as the README documents them.
ARGUMENTS = {
    'two_bone_ik.launch.py': ('params_file', 'namespace', 'elbow', 'urdf_file', 'output'),
    'two_bone_ik.launch.xml': ('params_file', 'namespace', 'elbow'),
    'sim.launch.py': ('params_file', 'urdf_file', 'namespace', 'elbow', 'output', 'rviz',
                      'rviz_config'),
    'view_arm.launch.py': ('params_file', 'urdf_file', 'namespace', 'elbow', 'rviz',
                           'rviz_config'),
    'display.launch.py': ('params_file', 'urdf_file', 'namespace', 'joint_states', 'rviz',
                          'rviz_config'),
    'servo_arm.launch.py': ('params_file', 'namespace', 'port', 'elbow'),
    'two_arms.launch.py': ('params_file', 'sim'),
    'two_arms.launch.xml': ('params_file', 'sim'),
    'so101.launch.py': ('params_file', 'namespace', 'port', 'calibration_file', 'sim', 'rviz',
                        'rviz_config', 'urdf_file', 'robot_description_topic', 'tip_frame',
                        'use_sim_time'),
}
PYTHON_FILES = sorted(name for name in ARGUMENTS if name.endswith('.py'))
XML_FILES = sorted(name for name in ARGUMENTS if name.endswith('.xml'))

#: Executables of other packages the launch files start (package, executable), and the
#: parameters given to them.
EXTERNAL = {('robot_state_publisher', 'robot_state_publisher'): {'robot_description'},
            ('rviz2', 'rviz2'): set()}

#: The node name each executable of this package gives itself; params file sections and the
#: sim's lookup of the IK node's section rely on the launch files keeping them.
NODE_NAMES = {'two_bone_ik_node': ik_node.NODE_NAME, 'two_bone_ik_sim': sim_node.NODE_NAME,
              'two_bone_ik_servo': servo_node.NODE_NAME}

TWO_ARMS = ('left_arm', 'right_arm')


def _console_scripts():
    """Return the console script names of setup.py, read from its source."""
    tree = ast.parse((REPO / 'setup.py').read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == 'console_scripts':
                    return {entry.split('=')[0].strip() for entry in ast.literal_eval(value)}
    raise AssertionError('setup.py has no console_scripts')


CONSOLE_SCRIPTS = _console_scripts()


def _schema(executable):
    """Return the parameter names a node of this package declares (servos.* as a pattern)."""
    if executable == 'two_bone_ik_node':
        return set(names(ik_parameters()))
    if executable == 'two_bone_ik_sim':
        return set(names(ARM_PARAMETERS + SIM_PARAMETERS))
    if executable == 'two_bone_ik_servo':
        return set(names(SERVO_PARAMETERS + servo_joint_parameters('*')))
    return next((known for (_, name), known in EXTERNAL.items() if name == executable), set())


#: Parameters rclpy declares on every node itself.
RCLPY_PARAMETERS = {'use_sim_time'}


def _known_parameter(executable, name):
    """Whether ``executable`` declares ``name`` (``servos.<joint>.x`` for any joint)."""
    if executable in NODE_NAMES and name in RCLPY_PARAMETERS:
        return True
    parts = name.split('.')
    if executable == 'two_bone_ik_servo' and parts[0] == 'servos' and len(parts) > 2:
        name = '.'.join(['servos', '*', *parts[2:]])
    return name in _schema(executable)


# -- reading Python launch files --------------------------------------------------------------

def _name(func):
    return func.id if isinstance(func, ast.Name) else getattr(func, 'attr', None)


def _calls(tree, name):
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)
            and _name(node.func) == name]


def _keyword(call, name):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _constant(node, constants=None):
    """Return the value of a literal, or of a module-level constant such as ``PACKAGE``."""
    if isinstance(node, ast.Name) and constants:
        return constants.get(node.id)
    return node.value if isinstance(node, ast.Constant) else None


def _module_constants(tree):
    return {node.targets[0].id: node.value.value for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)}


def declared_arguments(tree):
    """Return ``{name: (default or None, description, choices or None)}`` in declaration order."""
    declared = {}
    for call in _calls(tree, 'DeclareLaunchArgument'):
        choices = _keyword(call, 'choices')
        default = _keyword(call, 'default_value')
        declared[_constant(call.args[0])] = (
            _constant(default) if default is not None else None,
            _constant(_keyword(call, 'description')) or '',
            ast.literal_eval(choices) if isinstance(choices, ast.List)
            and all(isinstance(e, ast.Constant) for e in choices.elts) else choices)
    return declared


def _parameter_names(expression):
    """Return the parameter names in a Node's ``parameters=``: dict keys and _given keywords."""
    found = []
    for node in ast.walk(expression):
        if isinstance(node, ast.Dict):
            found += [_constant(key) for key in node.keys if key is not None]
        elif isinstance(node, ast.Call) and _name(node.func) == '_given':
            found += [k.arg for k in node.keywords]
    return found


def python_problems(source, file_name, declared_by_file):
    """Return what is wrong with a Python launch file, one line per problem.

    ``declared_by_file`` maps launch file names to their declared argument names (for includes).
    """
    tree = ast.parse(source, file_name)
    constants = _module_constants(tree)
    problems = []
    for call in _calls(tree, 'Node'):
        package, executable = (_constant(_keyword(call, k), constants)
                               for k in ('package', 'executable'))
        if package == PACKAGE:
            if executable not in CONSOLE_SCRIPTS:
                problems.append(f'{file_name}: {executable!r} is not a console script')
            elif _constant(_keyword(call, 'name')) != NODE_NAMES.get(executable):
                problems.append(f'{file_name}: {executable} is not named '
                                f'{NODE_NAMES.get(executable)!r}')
        elif (package, executable) not in EXTERNAL:
            problems.append(f'{file_name}: unknown executable {package}/{executable}')
        parameters = _keyword(call, 'parameters')
        for name in _parameter_names(parameters) if parameters is not None else ():
            if not _known_parameter(executable, name):
                problems.append(f'{file_name}: {executable} has no parameter {name!r}')
        on_exit = _keyword(call, 'on_exit')
        if package == PACKAGE and executable in CONSOLE_SCRIPTS and not (
                isinstance(on_exit, ast.Call) and _name(on_exit.func) == 'end_launch_on_exit'
                and _constant(on_exit.args[0], constants) == executable):
            problems.append(f'{file_name}: {executable} does not end the launch when it exits '
                            f'(on_exit=end_launch_on_exit({executable!r}))')
    for call in _calls(tree, 'ExecutableInPackage'):
        executable, package = (_constant(a, constants) for a in call.args)
        if package != PACKAGE or executable not in CONSOLE_SCRIPTS:
            problems.append(f'{file_name}: unknown executable {package}/{executable}')
    for call in _calls(tree, 'Command'):
        first = call.args[0].elts[0] if isinstance(call.args[0], ast.List) else call.args[0]
        if not (isinstance(first, ast.Call) and _name(first.func) == 'ExecutableInPackage'):
            problems.append(f'{file_name}: a Command runs a program looked up on PATH (a colcon '
                            'install puts ours in lib/two_bone_ik): use ExecutableInPackage')
    for call in _calls(tree, '_include'):
        included = _constant(call.args[0])
        if included not in declared_by_file:
            problems.append(f'{file_name}: includes {included!r}, which does not exist')
            continue
        given = [keyword.arg for keyword in call.keywords if keyword.arg != 'condition']
        problems += _include_problems(file_name, included, given, declared_by_file[included])
    for node in ast.walk(tree):
        value = _constant(node)
        if isinstance(value, str) and value.endswith(('.yaml', '.rviz')):
            folder = CONFIG if value.endswith('.yaml') else REPO / 'rviz'
            if not (folder / value).is_file():
                problems.append(f'{file_name}: {value} is not in {folder.name}/')
    return problems


def _include_problems(file_name, included, given, declared):
    """Arguments passed that ``included`` does not declare, and declared ones not passed."""
    problems = [f'{file_name}: passes {name!r} to {included}, which does not declare it'
                for name in given if name not in declared]
    missing = [name for name in declared if name not in given]
    if missing:
        problems.append(f"{file_name}: includes {included} without giving {', '.join(missing)} "
                        '(given on the command line, they would reach it unseen by --show-args)')
    return problems


def _tree(file_name):
    return ast.parse((LAUNCH / file_name).read_text(), file_name)


def _declared_by_file():
    return {name: tuple(declared_arguments(_tree(name))) for name in PYTHON_FILES}


# -- reading XML launch files -----------------------------------------------------------------

def xml_problems(text, file_name, declared_by_file):
    """Return what is wrong with an XML launch file, one line per problem."""
    root = ElementTree.fromstring(text)
    problems = []
    for arg in root.findall('arg'):
        choices = [c.get('value') for c in arg.findall('choice')]
        if not arg.get('description'):
            problems.append(f"{file_name}: argument {arg.get('name')} has no description")
        if choices and arg.get('default') not in choices:
            problems.append(f"{file_name}: default of {arg.get('name')} is not a choice")
    for node in root.iter('node'):
        package, executable = node.get('pkg'), node.get('exec')
        if package == PACKAGE and executable not in CONSOLE_SCRIPTS:
            problems.append(f'{file_name}: {executable!r} is not a console script')
        elif package == PACKAGE:
            problems.append(f'{file_name}: starts {executable} itself; XML can only say '
                            'on_exit="shutdown" (exit code 0 even when it could not start): '
                            'include the Python launch file')
        for param in node.findall('param'):
            if param.get('name') and not _known_parameter(executable, param.get('name')):
                problems.append(f"{file_name}: {executable} has no parameter {param.get('name')}")
    for element in root.iter():
        for value in element.attrib.values():
            if value.startswith('$(find-pkg-share two_bone_ik)/config/'):
                if not (CONFIG / value.rsplit('/', 1)[1]).is_file():
                    problems.append(f'{file_name}: {value} does not exist')
    for include in root.iter('include'):
        included = include.get('file').rsplit('/', 1)[1]
        if included not in declared_by_file:
            problems.append(f'{file_name}: includes {included!r}, which does not exist')
            continue
        given = [arg.get('name') for arg in include.findall('arg')]
        problems += _include_problems(file_name, included, given, declared_by_file[included])
    return problems


# -- the launch files -------------------------------------------------------------------------

def test_launch_folder_holds_exactly_the_documented_files():
    assert sorted(p.name for p in LAUNCH.iterdir()) == sorted(ARGUMENTS)


@pytest.mark.parametrize('file_name', PYTHON_FILES)
def test_python_launch_file_compiles_and_declares_the_documented_arguments(file_name):
    source = (LAUNCH / file_name).read_text()
    code = compile(source, file_name, 'exec')
    assert 'generate_launch_description' in code.co_names
    tree = ast.parse(source)
    assert any(isinstance(node, ast.FunctionDef) and node.name == 'generate_launch_description'
               for node in tree.body)
    declared = declared_arguments(tree)
    assert tuple(declared) == ARGUMENTS[file_name]
    docstring = ast.get_docstring(tree)
    for name, (default, description, choices) in declared.items():
        assert description.endswith('.') and len(description) > 20, (name, description)
        if isinstance(choices, list) and isinstance(default, str):
            assert default in choices, (name, default, choices)
        assert f'``{name}``' in docstring, f'{file_name} docstring does not explain {name}'


@pytest.mark.parametrize('file_name', XML_FILES)
def test_xml_launch_file_parses_and_declares_the_documented_arguments(file_name):
    root = ElementTree.parse(LAUNCH / file_name).getroot()
    assert root.tag == 'launch'
    assert tuple(arg.get('name') for arg in root.findall('arg')) == ARGUMENTS[file_name]


def test_xml_twins_have_the_python_files_defaults_and_choices():
    for xml_name in XML_FILES:
        python = declared_arguments(_tree(xml_name.replace('.xml', '.py')))
        for arg in ElementTree.parse(LAUNCH / xml_name).getroot().findall('arg'):
            default, _, choices = python[arg.get('name')]
            if default is not None:
                assert arg.get('default') == default
            assert [c.get('value') for c in arg.findall('choice')] == (choices or [])


@pytest.mark.parametrize('file_name', PYTHON_FILES)
def test_python_launch_file_names_only_what_exists(file_name):
    problems = python_problems((LAUNCH / file_name).read_text(), file_name, _declared_by_file())
    assert problems == []


@pytest.mark.parametrize('file_name', XML_FILES)
def test_xml_launch_file_names_only_what_exists(file_name):
    problems = xml_problems((LAUNCH / file_name).read_text(), file_name, _declared_by_file())
    assert problems == []


def test_every_node_and_include_is_found_by_the_checks():
    """The checks see every node the launch files start (nothing hides from them)."""
    started = {name: sorted(_constant(_keyword(call, 'executable'))
                            for call in _calls(_tree(name), 'Node')) for name in PYTHON_FILES}
    assert started == {
        'display.launch.py': ['robot_state_publisher', 'rviz2'],
        'servo_arm.launch.py': ['two_bone_ik_servo'],
        'sim.launch.py': ['two_bone_ik_sim'],
        'so101.launch.py': ['two_bone_ik_node', 'two_bone_ik_servo', 'two_bone_ik_sim'],
        'two_arms.launch.py': [],
        'two_bone_ik.launch.py': ['two_bone_ik_node'],
        'view_arm.launch.py': [],
    }
    included = {name: sorted(_constant(call.args[0]) for call in _calls(_tree(name), '_include'))
                for name in PYTHON_FILES}
    assert included == {
        'display.launch.py': [], 'two_bone_ik.launch.py': [],
        'servo_arm.launch.py': ['two_bone_ik.launch.py'],
        'sim.launch.py': ['display.launch.py', 'two_bone_ik.launch.py'],
        'so101.launch.py': ['display.launch.py'],
        'two_arms.launch.py': ['sim.launch.py', 'two_bone_ik.launch.py'],
        'view_arm.launch.py': ['display.launch.py', 'two_bone_ik.launch.py'],
    }
    parameters = {}
    for call in _calls(_tree('sim.launch.py'), 'Node'):
        parameters = set(_parameter_names(_keyword(call, 'parameters')))
    assert parameters == {'arm_params_file', 'robot_description', 'position_controller',
                          'trajectory_controller'}


BAD_LAUNCH_FILE = """
def _sim(context):
    return [Node(package='two_bone_ik', executable='two_bone_ik_sim', name='sim',
                 parameters=[{'arm_params': params_file}, _given(real_time=2.0)],
                 on_exit=end_launch_on_exit('two_bone_ik_node'))]

def _ik(context):
    return [Node(package='two_bone_ik', executable='two_bone_ik_node', name='two_bone_ik',
                 on_exit=Shutdown())]

def generate_launch_description():
    return LaunchDescription([
        Node(package='two_bone_ik', executable='two_bone_ik_nod', name='two_bone_ik'),
        Node(package='rviz', executable='rviz'),
        Command(['two_bone_ik_urdf --params-file ', params_file]),
        _include('two_bone_ik.launch.py', elbows='up', params_file='', namespace='',
                 urdf_file='', output=''),
        _include('missing.launch.py'),
        os.path.join(share, 'config', 'no_such_arm.yaml'),
    ])
"""

BAD_XML_LAUNCH_FILE = """
<launch>
  <arg name="sim" default="yes"><choice value="true"/><choice value="false"/></arg>
  <node pkg="two_bone_ik" exec="two_bone_ik_node" name="two_bone_ik">
    <param from="$(find-pkg-share two_bone_ik)/config/no_such_arm.yaml"/>
    <param name="elbows" value="up"/>
  </node>
  <include file="$(dirname)/two_bone_ik.launch.py"><arg name="port" value="x"/></include>
  <include file="$(dirname)/display.launch.py"><arg name="params_file" value="x"/></include>
</launch>
"""


def test_the_checks_find_what_is_wrong():
    problems = python_problems(BAD_LAUNCH_FILE, 'bad.launch.py', _declared_by_file())
    assert sorted(problems) == sorted([
        "bad.launch.py: two_bone_ik_sim is not named 'two_bone_ik_sim'",
        "bad.launch.py: two_bone_ik_sim has no parameter 'arm_params'",
        "bad.launch.py: two_bone_ik_sim has no parameter 'real_time'",
        'bad.launch.py: two_bone_ik_sim does not end the launch when it exits '
        "(on_exit=end_launch_on_exit('two_bone_ik_sim'))",
        'bad.launch.py: two_bone_ik_node does not end the launch when it exits '
        "(on_exit=end_launch_on_exit('two_bone_ik_node'))",
        'bad.launch.py: includes two_bone_ik.launch.py without giving elbow (given on the '
        'command line, they would reach it unseen by --show-args)',
        "bad.launch.py: 'two_bone_ik_nod' is not a console script",
        'bad.launch.py: unknown executable rviz/rviz',
        'bad.launch.py: a Command runs a program looked up on PATH (a colcon install puts ours '
        'in lib/two_bone_ik): use ExecutableInPackage',
        "bad.launch.py: passes 'elbows' to two_bone_ik.launch.py, which does not declare it",
        "bad.launch.py: includes 'missing.launch.py', which does not exist",
        'bad.launch.py: no_such_arm.yaml is not in config/',
    ])
    problems = xml_problems(BAD_XML_LAUNCH_FILE, 'bad.launch.xml', _declared_by_file())
    assert problems == [
        'bad.launch.xml: argument sim has no description',
        'bad.launch.xml: default of sim is not a choice',
        'bad.launch.xml: starts two_bone_ik_node itself; XML can only say on_exit="shutdown" '
        '(exit code 0 even when it could not start): include the Python launch file',
        'bad.launch.xml: two_bone_ik_node has no parameter elbows',
        'bad.launch.xml: $(find-pkg-share two_bone_ik)/config/no_such_arm.yaml does not exist',
        "bad.launch.xml: passes 'port' to two_bone_ik.launch.py, which does not declare it",
        'bad.launch.xml: includes two_bone_ik.launch.py without giving params_file, namespace, '
        'elbow, urdf_file, output (given on the command line, they would reach it unseen by '
        '--show-args)',
        'bad.launch.xml: includes display.launch.py without giving urdf_file, namespace, '
        'joint_states, rviz, rviz_config (given on the command line, they would reach it unseen '
        'by --show-args)',
    ]


def test_output_choices_wire_the_ik_node_and_the_sim_to_the_same_controllers():
    """two_bone_ik.launch.py and sim.launch.py name the same controllers for each output."""
    def table(file_name, name):
        for node in _tree(file_name).body:
            if isinstance(node, ast.Assign) and node.targets[0].id == name:
                return ast.literal_eval(node.value)
        raise AssertionError(f'{file_name} has no {name}')

    ik_outputs = table('two_bone_ik.launch.py', 'OUTPUTS')
    sim_controllers = table('sim.launch.py', 'SIM_CONTROLLERS')
    assert set(ik_outputs) == set(sim_controllers) == {'joint_commands', 'position',
                                                       'trajectory'}
    for output, (publish_joint_commands, position, trajectory) in ik_outputs.items():
        assert sim_controllers[output] == (position, trajectory)
        # Exactly one way out, so the sim never follows two streams of the same commands.
        assert [publish_joint_commands, bool(position), bool(trajectory)].count(True) == 1
    controllers = yaml.safe_load((CONFIG / 'ros2_controllers.yaml').read_text())
    declared = controllers['controller_manager']['ros__parameters']
    assert {ik_outputs['position'][1], ik_outputs['trajectory'][2]} <= set(declared)


# -- params files -----------------------------------------------------------------------------

def _section_problems(path, node_name, executable):
    found = parameters_for_node(path, node_name)
    if not found.matched_keys:
        return [f'{path.name}: no section for {node_name}']
    return [f'{path.name}: {node_name}: unknown parameter {name}' for name in found.values
            if not _known_parameter(executable, name)]


#: The default params file of each Python launch file.
DEFAULT_PARAMS = {
    'two_bone_ik.launch.py': 'two_bone_ik.yaml', 'sim.launch.py': 'two_bone_ik.yaml',
    'view_arm.launch.py': 'two_bone_ik.yaml', 'display.launch.py': 'two_bone_ik.yaml',
    'servo_arm.launch.py': 'servo_arm_maestro.yaml', 'two_arms.launch.py': 'two_arms.yaml',
    'so101.launch.py': 'so101.yaml',
}


def test_default_params_file_of_each_launch_file():
    assert set(DEFAULT_PARAMS) == set(PYTHON_FILES)
    for file_name, params in DEFAULT_PARAMS.items():
        tree = _tree(file_name)
        declared = next(call for call in _calls(tree, 'DeclareLaunchArgument')
                        if _constant(call.args[0]) == 'params_file')
        default = _keyword(declared, 'default_value')
        if isinstance(default, ast.Name):  # assigned just before
            default = next(node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                           and getattr(node.targets[0], 'id', None) == default.id)
        if isinstance(default, ast.Call) and isinstance(default.func, ast.Name):
            # returned by a function of the file
            function = next(node for node in tree.body if isinstance(node, ast.FunctionDef)
                            and node.name == default.func.id)
            default = next(node.value for node in ast.walk(function)
                           if isinstance(node, ast.Return))
        assert _name(default.func) == 'join' and _constant(default.args[-1]) == params


@pytest.mark.parametrize('namespace', ['', '/arm'])
def test_default_params_files_have_a_valid_section_for_every_node_started(namespace):
    """Each default params file, read section by section as rcl applies them."""
    nodes = {  # default params file -> the nodes of this package it configures
        'two_bone_ik.yaml': ['two_bone_ik_node'],
        'servo_arm_maestro.yaml': ['two_bone_ik_node', 'two_bone_ik_servo'],
    }
    for file_name, executables in nodes.items():
        path = CONFIG / file_name
        read_params_file(path)  # parses, as rcl would
        for executable in executables:
            name = f'{namespace}/{NODE_NAMES[executable]}'
            assert _section_problems(path, name, executable) == []
        ArmConfig.from_mapping(parameters_for_node(path, f'{namespace}/two_bone_ik').values)
        # sim.launch.py gives the file to the sim only when it has a section for it.
        assert not parameters_for_node(path, f'{namespace}/two_bone_ik_sim').matched_keys


def test_servo_arm_maestro_is_the_servo_arm_with_its_maestro_driver():
    """The combined file says what servo_arm.yaml and servo_driver_maestro.yaml say."""
    combined = dict(read_params_file(CONFIG / 'servo_arm_maestro.yaml'))
    assert combined == {**dict(read_params_file(CONFIG / 'servo_arm.yaml')),
                        **dict(read_params_file(CONFIG / 'servo_driver_maestro.yaml'))}
    arm, driver = combined['/**/two_bone_ik'], combined['/**/two_bone_ik_servo']
    assert driver['joints'] == arm['joint_names'] == ['shoulder_servo', 'elbow_servo']
    for joint in driver['joints']:
        assert {f'servos.{joint}.channel', f'servos.{joint}.angle_range'} <= set(driver)
    assert _section_problems(CONFIG / 'servo_arm_maestro.yaml', '/two_bone_ik_servo',
                             'two_bone_ik_servo') == []


@pytest.mark.parametrize('namespace', ['', '/so101'])
def test_so101_file_has_a_section_for_each_node_and_their_joints_agree(namespace):
    path = CONFIG / 'so101.yaml'
    read_params_file(path)  # parses, as rcl would
    for executable in ('two_bone_ik_node', 'two_bone_ik_servo', 'two_bone_ik_sim'):
        assert _section_problems(path, f'{namespace}/{NODE_NAMES[executable]}',
                                 executable) == []
    arm = arm_config_from_mapping(parameters_for_node(path, f'{namespace}/two_bone_ik').values)
    driver = parameters_for_node(path, f'{namespace}/two_bone_ik_servo').values
    # The arm's joints as LeRobot names the SO-101's motors, then the gripper off the chain.
    assert arm.joint_names == ('shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex',
                               'wrist_roll')
    assert driver['joints'] == [*arm.joint_names, arm.gripper_joint] and (
        arm.gripper_joint == 'gripper')
    assert driver['protocol'] == 'feetech'
    # Ids, ranges and mapping come from the calibration file given at launch: nothing here
    # replaces them (a servos.<joint>.channel, output_range or output_limits would).
    assert 'calibration_file' not in driver
    assert all(name.rsplit('.', 1)[1] in ('max_velocity', 'max_acceleration')
               for name in driver if name.startswith('servos.'))
    # The servos' own speed limits are above the IK node's planned motion.
    ik = parameters_for_node(path, f'{namespace}/two_bone_ik').values
    assert all(driver[f'servos.{joint}.max_velocity'] > max(ik['max_joint_velocity'])
               for joint in driver['joints'])


def _command_argument(file_name):
    (command,) = _calls(_tree(file_name), 'Command')
    return ast.dump(command.args[0])


def test_so101_sim_gets_the_description_robot_state_publisher_shows():
    # display.launch.py writes the URDF robot_state_publisher shows with the same command line.
    assert _command_argument('so101.launch.py') == _command_argument('display.launch.py')
    tree = _tree('so101.launch.py')
    tip = next(node.value.value for node in tree.body if isinstance(node, ast.Assign)
               and node.targets[0].id == 'GENERATED_TIP')
    assert tip == TOOL_LINK


def test_two_arms_file_gives_each_namespaced_arm_its_own_section(tmp_path):
    path = CONFIG / 'two_arms.yaml'
    assert [key for key, _ in read_params_file(path)] == [f'/{arm}/two_bone_ik'
                                                          for arm in TWO_ARMS]
    arms = {}
    for arm in TWO_ARMS:
        # The IK node and, with sim:=true, the sim (reading the IK node's section) of this arm.
        found = parameters_for_node(path, f'/{arm}/two_bone_ik')
        assert found.matched_keys == (f'/{arm}/two_bone_ik',)
        assert _section_problems(path, f'/{arm}/two_bone_ik', 'two_bone_ik_node') == []
        assert not parameters_for_node(path, f'/{arm}/two_bone_ik_sim').matched_keys
        arms[arm] = ArmConfig.from_mapping(found.values)
        # What display.launch.py's Command runs for this arm.
        urdf = tmp_path / f'{arm}.urdf'
        assert urdf_main(['--params-file', str(path), '--node-name', f'/{arm}/two_bone_ik',
                          '-o', str(urdf)]) == 0
        geometry = arm_geometry(arms[arm], urdf.read_text(), '')
        assert geometry.joint_names == arms[arm].joint_names
        assert all(name.startswith(arm.split('_')[0] + '_') for name in geometry.joint_names)
    # Neither section reaches a node outside the arms' namespaces.
    assert not parameters_for_node(path, '/two_bone_ik').matched_keys
    assert not parameters_for_node(path, '/other/two_bone_ik').matched_keys
    left, right = arms['left_arm'], arms['right_arm']
    assert left.link_lengths != right.link_lengths
    assert left.shoulder_position != right.shoulder_position
    assert not set(left.joint_names) & set(right.joint_names)


def test_two_arms_launch_files_start_the_arms_of_the_two_arms_file():
    for node in _tree('two_arms.launch.py').body:
        if isinstance(node, ast.Assign) and node.targets[0].id == 'ARMS':
            assert ast.literal_eval(node.value) == TWO_ARMS
            break
    else:
        raise AssertionError('two_arms.launch.py has no ARMS')
    root = ElementTree.parse(LAUNCH / 'two_arms.launch.xml').getroot()
    namespaces = [arg.get('value') for include in root.iter('include')
                  for arg in include.findall('arg') if arg.get('name') == 'namespace']
    assert namespaces == [arm for arm in TWO_ARMS for _ in range(2)]


# -- the RViz config --------------------------------------------------------------------------

def _rviz():
    return yaml.safe_load((REPO / 'rviz' / 'two_bone_ik.rviz').read_text())


def test_rviz_config_shows_the_model_tf_and_the_ik_markers():
    manager = _rviz()['Visualization Manager']
    displays = {d['Class']: d for d in manager['Displays']}
    assert set(displays) == {'rviz_default_plugins/Grid', 'rviz_default_plugins/RobotModel',
                             'rviz_default_plugins/TF', 'rviz_default_plugins/MarkerArray'}
    assert all(d['Enabled'] is True for d in displays.values())
    model = displays['rviz_default_plugins/RobotModel']
    assert model['Description Source'] == 'Topic'
    # robot_state_publisher publishes robot_description reliable + transient local, and
    # the IK node ik_markers likewise (depth 1): only a transient local subscriber gets the
    # message published before it started.
    for topic, display in (('robot_description', model),
                           ('ik_markers', displays['rviz_default_plugins/MarkerArray'])):
        qos = display.get('Description Topic') or display['Topic']
        assert qos['Value'] == topic  # relative: the namespace rviz2 runs in
        assert qos['Durability Policy'] == 'Transient Local'
        assert qos['Reliability Policy'] == 'Reliable'
    # The fixed frame is base_frame's default (display.launch.py passes the params file's).
    assert manager['Global Options']['Fixed Frame'] == ArmConfig().base_frame
    goal = next(t for t in manager['Tools'] if t['Class'] == 'rviz_default_plugins/SetGoal')
    assert goal['Topic']['Value'] == 'target_pose'


def test_rviz_config_uses_only_rviz_plugins_and_relative_topics():
    config = _rviz()
    classes, topics = [], []

    def walk(value):
        if isinstance(value, dict):
            classes.extend(v for k, v in value.items() if k == 'Class' and v)
            topics.extend(v['Value'] for k, v in value.items()
                          if k in ('Topic', 'Description Topic') and isinstance(v, dict))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(config)
    assert classes and all(c.startswith(('rviz_common/', 'rviz_default_plugins/'))
                           for c in classes), classes
    assert topics and not any(t.startswith('/') for t in topics), topics
    assert {'Panels', 'Visualization Manager', 'Window Geometry'} <= set(config)


# -- the README -------------------------------------------------------------------------------

def _distro_section():
    text = (REPO / 'README.md').read_text()
    start = text.index('## Using it from a ROS 2 distro')
    return text[start:text.index('\n## ', start + 1)]


def test_readme_has_one_ros2_launch_line_per_way_of_running_the_arm():
    section = _distro_section()
    for file_name in ('sim.launch.py', 'servo_arm.launch.py', 'view_arm.launch.py',
                      'two_arms.launch.py', 'two_bone_ik.launch.py', 'so101.launch.py'):
        assert f'ros2 launch two_bone_ik {file_name}' in section, file_name


def test_readme_documents_every_argument_of_every_launch_file():
    section = _distro_section()
    for file_name, arguments in ARGUMENTS.items():
        heading = f'#### `{file_name}`'
        assert heading in section, heading
        start = section.index(heading)
        end = section.find('\n#### ', start + 1)
        entry = section[start:end if end > 0 else None]
        for name in arguments:
            assert f'- `{name}`' in entry, f'README: {file_name} does not document {name}'
