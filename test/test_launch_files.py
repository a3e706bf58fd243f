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
import shlex
import xml.etree.ElementTree as ElementTree

import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_config import arm_config_from_mapping
from two_bone_ik.arm.params_file import parameters_for_node, read_params_file
from two_bone_ik.arm.urdf_export import TOOL_LINK
from two_bone_ik.arm.urdf_import import arm_geometry
from two_bone_ik.nodes import ik_node, servo_node, sim_node
from two_bone_ik.nodes.launch_support import OUTPUTS, SHARED_ARGUMENTS
from two_bone_ik.nodes.parameter_schema import ARM_PARAMETERS, ik_parameters, names
from two_bone_ik.nodes.parameter_schema import servo_joint_parameters, SERVO_PARAMETERS
from two_bone_ik.nodes.parameter_schema import SIM_PARAMETERS
from two_bone_ik.nodes.urdf_command import main as urdf_main
import yaml

REPO = Path(__file__).resolve().parents[1]
LAUNCH = REPO / 'launch'
CONFIG = REPO / 'config'
PACKAGE = 'two_bone_ik'

#: Every launch file and its arguments, as docs/launch.md documents them.
ARGUMENTS = {
    'two_bone_ik.launch.py': ('params_file', 'namespace', 'elbow', 'urdf_file', 'xacro_args',
                              'robot_description_topic', 'base_frame', 'tip_frame', 'output',
                              'position_controller', 'trajectory_controller', 'use_sim_time'),
    'two_bone_ik.launch.xml': ('params_file', 'namespace', 'elbow', 'urdf_file', 'xacro_args',
                               'robot_description_topic', 'base_frame', 'tip_frame', 'output',
                               'position_controller', 'trajectory_controller', 'use_sim_time'),
    'sim.launch.py': ('params_file', 'urdf_file', 'xacro_args', 'robot_description_topic',
                      'namespace', 'elbow', 'base_frame', 'tip_frame', 'output',
                      'position_controller', 'trajectory_controller', 'rviz', 'rviz_config',
                      'use_sim_time'),
    'view_arm.launch.py': ('params_file', 'urdf_file', 'xacro_args', 'robot_description_topic',
                           'namespace', 'elbow', 'base_frame', 'tip_frame', 'rviz',
                           'rviz_config', 'use_sim_time'),
    'display.launch.py': ('params_file', 'urdf_file', 'xacro_args', 'robot_description_topic',
                          'namespace', 'joint_states', 'base_frame', 'rviz', 'rviz_config',
                          'use_sim_time'),
    'servo_arm.launch.py': ('params_file', 'namespace', 'port', 'elbow',
                            'robot_description_topic', 'base_frame', 'tip_frame',
                            'use_sim_time'),
    'two_arms.launch.py': ('params_file', 'sim', 'robot_description_topic', 'use_sim_time'),
    'two_arms.launch.xml': ('params_file', 'sim', 'robot_description_topic', 'use_sim_time'),
    'so101.launch.py': ('params_file', 'namespace', 'port', 'calibration_file', 'sim', 'rviz',
                        'rviz_config', 'urdf_file', 'xacro_args', 'robot_description_topic',
                        'tip_frame', 'use_sim_time'),
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


def _known_parameter(executable, name):
    """Whether ``executable`` declares ``name`` (``servos.<joint>.x`` for any joint)."""
    if name == 'use_sim_time':  # every ROS node declares it (rclpy and rclcpp alike)
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


def _module_tuples(tree):
    """Return the module-level tuples of literals, e.g. ``ARMS``, by name."""
    return {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Tuple)}


def _choices(node):
    """Return the ``choices=`` list: literals, and ``*OUTPUTS`` (launch_support's table)."""
    if node is None:
        return None
    choices = []
    for element in node.elts:
        if isinstance(element, ast.Starred):
            choices += list({'OUTPUTS': OUTPUTS}[element.value.id])
        else:
            choices.append(ast.literal_eval(element))
    return choices


def _declarations(tree):
    """Return ``[(name, (default or None, description, choices or None))]`` in source order.

    ``DeclareLaunchArgument`` calls, and ``declare_arguments('a', ...)`` calls, whose arguments
    are launch_support's SHARED_ARGUMENTS.
    """
    found = []
    for call in _calls(tree, 'DeclareLaunchArgument'):
        choices = _keyword(call, 'choices')
        default = _keyword(call, 'default_value')
        found.append(((call.lineno, call.col_offset), _constant(call.args[0]), (
            _constant(default) if default is not None else None,
            _constant(_keyword(call, 'description')) or '',
            _choices(choices))))
    for call in _calls(tree, 'declare_arguments'):
        for node in call.args:
            shared = SHARED_ARGUMENTS[_constant(node)]
            found.append(((node.lineno, node.col_offset), _constant(node), (
                shared.default, shared.description,
                list(shared.choices) if shared.choices else None)))
    return [(name, value) for _, name, value in sorted(found)]


def declared_arguments(tree):
    """Return ``{name: (default or None, description, choices or None)}`` in declaration order."""
    return dict(_declarations(tree))


#: What included_arguments says of an argument the including file forwards.
FORWARDED = '$(forwarded)'

#: The launch files that start the IK node, directly or by including one that does.
IK_NODE_FILES = ('two_bone_ik.launch.py', 'sim.launch.py')


def included_arguments(call, tree):
    """Return ``{argument: value}`` an ``include_launch_file`` call gives the included file.

    The value is ``FORWARDED`` for the including file's own argument of that name
    (``**forward_arguments('a', ...)``), the constant given, or None for another expression.
    """
    given = {}
    for keyword in call.keywords:
        if keyword.arg == 'condition':
            continue
        if keyword.arg is not None:
            given[keyword.arg] = _constant(keyword.value)
        elif _name(keyword.value.func) == 'forward_arguments':
            given.update((_constant(node), FORWARDED) for node in keyword.value.args)
        elif _name(keyword.value.func) == 'fromkeys':  # **dict.fromkeys(NAMES, value)
            names, value = keyword.value.args
            names = (_module_tuples(tree)[names.id] if isinstance(names, ast.Name)
                     else ast.literal_eval(names))
            given.update((name, _constant(value)) for name in names)
        else:
            raise AssertionError(f'cannot read **{ast.unparse(keyword.value)}')
    return given


def _parameter_names(expression):
    """Return the parameter names in a Node's ``parameters=``: dict keys, given_parameters'."""
    found = []
    for node in ast.walk(expression):
        if isinstance(node, ast.Dict):
            found += [_constant(key) for key in node.keys if key is not None]
        elif isinstance(node, ast.Call) and _name(node.func) == 'given_parameters':
            found += [k.arg for k in node.keywords]
    return found


def _node_problems(call, file_name, constants):
    """Return what is wrong with one ``Node(...)`` of a Python launch file."""
    package, executable = (_constant(_keyword(call, k), constants)
                           for k in ('package', 'executable'))
    problems = []
    if package == PACKAGE:
        if executable not in CONSOLE_SCRIPTS:
            problems.append(f'{file_name}: {executable!r} is not a console script')
        elif _constant(_keyword(call, 'name')) != NODE_NAMES.get(executable):
            problems.append(f'{file_name}: {executable} is not named '
                            f'{NODE_NAMES.get(executable)!r}')
    elif (package, executable) not in EXTERNAL:
        problems.append(f'{file_name}: unknown executable {package}/{executable}')
    parameters = _keyword(call, 'parameters')
    names = _parameter_names(parameters) if parameters is not None else []
    for name in names:
        if not _known_parameter(executable, name):
            problems.append(f'{file_name}: {executable} has no parameter {name!r}')
    if 'use_sim_time' not in names:
        problems.append(f'{file_name}: {executable} is not given use_sim_time')
    if executable == 'two_bone_ik_node' and 'robot_description_topic' not in names:
        problems.append(f'{file_name}: two_bone_ik_node is not given robot_description_topic')
    on_exit = _keyword(call, 'on_exit')
    if package == PACKAGE and executable in CONSOLE_SCRIPTS and not (
            isinstance(on_exit, ast.Call) and _name(on_exit.func) == 'end_launch_on_exit'
            and _constant(on_exit.args[0], constants) == executable):
        problems.append(f'{file_name}: {executable} does not end the launch when it exits '
                        f'(on_exit=end_launch_on_exit({executable!r}))')
    return problems


def python_problems(source, file_name, declared_by_file):
    """Return what is wrong with a Python launch file, one line per problem.

    ``declared_by_file`` maps launch file names to their declared argument names (for includes).
    """
    tree = ast.parse(source, file_name)
    constants = _module_constants(tree)
    declared = [name for name, _ in _declarations(tree)]
    problems = [f'{file_name}: declares {name} twice' for name in sorted(set(declared))
                if declared.count(name) > 1]
    if 'use_sim_time' not in declared:
        problems.append(f'{file_name}: does not declare use_sim_time')
    starts_ik_node = False
    for call in _calls(tree, 'Node'):
        problems += _node_problems(call, file_name, constants)
        starts_ik_node |= _constant(_keyword(call, 'executable')) == 'two_bone_ik_node'
    for call in _calls(tree, 'ExecutableInPackage'):
        executable, package = (_constant(a, constants) for a in call.args)
        if package != PACKAGE or executable not in CONSOLE_SCRIPTS:
            problems.append(f'{file_name}: unknown executable {package}/{executable}')
    for call in _calls(tree, 'Command'):
        first = call.args[0].elts[0] if isinstance(call.args[0], ast.List) else call.args[0]
        if not (isinstance(first, ast.Call) and _name(first.func) == 'ExecutableInPackage'):
            problems.append(f'{file_name}: a Command runs a program looked up on PATH (a colcon '
                            'install puts ours in lib/two_bone_ik): use ExecutableInPackage')
    for call in _calls(tree, 'include_launch_file'):
        included = _constant(call.args[0])
        if included not in declared_by_file:
            problems.append(f'{file_name}: includes {included!r}, which does not exist')
            continue
        given = included_arguments(call, tree)
        problems += _include_problems(file_name, included, given, declared_by_file[included])
        starts_ik_node |= included in IK_NODE_FILES
    if starts_ik_node and 'robot_description_topic' not in declared:
        problems.append(f'{file_name}: starts the IK node but does not declare '
                        'robot_description_topic')
    for node in ast.walk(tree):
        value = _constant(node)
        if isinstance(value, str) and value.endswith(('.yaml', '.rviz')):
            folder = CONFIG if value.endswith('.yaml') else REPO / 'rviz'
            if not (folder / value).is_file():
                problems.append(f'{file_name}: {value} is not in {folder.name}/')
    return problems


def _include_problems(file_name, included, given, declared):
    """Arguments passed that ``included`` does not declare, and declared ones not passed.

    ``given`` maps the arguments passed to their value (``FORWARDED``: the including file's
    own). ``use_sim_time`` must be forwarded, so the including file's choice reaches every
    node, and so must ``robot_description_topic`` to a file that starts the IK node (sim.launch.py
    gives display.launch.py none: the robot_state_publisher it starts is the simulated arm's).
    """
    problems = [f'{file_name}: passes {name!r} to {included}, which does not declare it'
                for name in given if name not in declared]
    missing = [name for name in declared if name not in given]
    if missing:
        problems.append(f"{file_name}: includes {included} without giving {', '.join(missing)} "
                        '(given on the command line, they would reach it unseen by --show-args)')
    forwarded = ('use_sim_time', 'robot_description_topic') if included in IK_NODE_FILES else (
        'use_sim_time',)
    for name in forwarded:
        if name in declared and name in given and given[name] != FORWARDED:
            problems.append(f'{file_name}: gives {included} a {name} of its own instead of '
                            'forwarding its argument')
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
        if not any(param.get('name') == 'use_sim_time' for param in node.findall('param')):
            problems.append(f'{file_name}: {executable} is not given use_sim_time')
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
        given = {arg.get('name'): FORWARDED if arg.get('value') == f"$(var {arg.get('name')})"
                 else arg.get('value') for arg in include.findall('arg')}
        problems += _include_problems(file_name, included, given, declared_by_file[included])
    declared = [arg.get('name') for arg in root.findall('arg')]
    if 'use_sim_time' not in declared:
        problems.append(f'{file_name}: does not declare use_sim_time')
    if any(include.get('file').rsplit('/', 1)[1] in IK_NODE_FILES
           for include in root.iter('include')) and 'robot_description_topic' not in declared:
        problems.append(f'{file_name}: starts the IK node but does not declare '
                        'robot_description_topic')
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


@pytest.mark.parametrize('xml_name', XML_FILES)
def test_xml_twins_declare_what_the_python_files_declare(xml_name):
    """The same arguments, in the same order, with the same defaults, choices and texts."""
    python = declared_arguments(_tree(xml_name.replace('.xml', '.py')))
    arguments = ElementTree.parse(LAUNCH / xml_name).getroot().findall('arg')
    assert [arg.get('name') for arg in arguments] == list(python)
    for arg in arguments:
        default, description, choices = python[arg.get('name')]
        if default is not None:  # else a path in the installed share folder
            assert arg.get('default') == default, arg.get('name')
        assert arg.get('description') == description, arg.get('name')
        assert [c.get('value') for c in arg.findall('choice')] == (choices or [])


def test_xml_twins_give_their_includes_what_the_python_files_give():
    """two_bone_ik.launch.xml hands every argument on; two_arms.launch.xml does as the .py."""
    include = ElementTree.parse(LAUNCH / 'two_bone_ik.launch.xml').getroot().find('include')
    assert include.get('file') == '$(dirname)/two_bone_ik.launch.py'
    assert {arg.get('name'): arg.get('value') for arg in include.findall('arg')} == {
        name: f'$(var {name})' for name in ARGUMENTS['two_bone_ik.launch.py']}

    tree = _tree('two_arms.launch.py')
    python = {_constant(call.args[0]): included_arguments(call, tree)
              for call in _calls(tree, 'include_launch_file')}
    groups = ElementTree.parse(LAUNCH / 'two_arms.launch.xml').getroot().findall('group')
    assert len(groups) == len(TWO_ARMS)
    for arm, group in zip(TWO_ARMS, groups):
        xml = {include.get('file').rsplit('/', 1)[1]: {
            arg.get('name'): FORWARDED if arg.get('value') == f"$(var {arg.get('name')})"
            else arg.get('value') for arg in include.findall('arg')}
            for include in group.findall('include')}
        # The Python file's namespace is the loop's arm.
        assert xml == {name: {**given, 'namespace': arm} for name, given in python.items()}


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
    included = {name: sorted(_constant(call.args[0])
                             for call in _calls(_tree(name), 'include_launch_file'))
                for name in PYTHON_FILES}
    assert included == {
        'display.launch.py': [], 'two_bone_ik.launch.py': [],
        'servo_arm.launch.py': ['two_bone_ik.launch.py'],
        'sim.launch.py': ['display.launch.py', 'two_bone_ik.launch.py'],
        'so101.launch.py': ['display.launch.py'],
        'two_arms.launch.py': ['sim.launch.py', 'two_bone_ik.launch.py'],
        'view_arm.launch.py': ['display.launch.py', 'two_bone_ik.launch.py'],
    }
    parameters = {name: {executable: set(_parameter_names(_keyword(call, 'parameters')))
                         for call in _calls(_tree(name), 'Node')
                         for executable in [_constant(_keyword(call, 'executable'))]}
                  for name in ('sim.launch.py', 'two_bone_ik.launch.py')}
    assert parameters == {
        'sim.launch.py': {'two_bone_ik_sim': {
            'arm_params_file', 'robot_description', 'base_frame', 'tip_frame',
            'position_controller', 'trajectory_controller', 'use_sim_time'}},
        'two_bone_ik.launch.py': {'two_bone_ik_node': {
            'elbow', 'robot_description', 'robot_description_topic', 'base_frame', 'tip_frame',
            'publish_joint_commands', 'position_controller', 'trajectory_controller',
            'use_sim_time'}},
    }


BAD_LAUNCH_FILE = """
def _sim(context):
    return [Node(package='two_bone_ik', executable='two_bone_ik_sim', name='sim',
                 parameters=[{'arm_params': params_file}, given_parameters(real_time=2.0)],
                 on_exit=end_launch_on_exit('two_bone_ik_node'))]

def _ik(context):
    return [Node(package='two_bone_ik', executable='two_bone_ik_node', name='two_bone_ik',
                 on_exit=Shutdown())]

def generate_launch_description():
    return LaunchDescription([
        Node(package='two_bone_ik', executable='two_bone_ik_nod', name='two_bone_ik'),
        Node(package='rviz', executable='rviz'),
        Command(['two_bone_ik_urdf --params-file ', params_file]),
        include_launch_file('two_bone_ik.launch.py', elbows='up', params_file='', namespace='',
                 urdf_file='', output=''),
        include_launch_file('missing.launch.py'),
        os.path.join(share, 'config', 'no_such_arm.yaml'),
        DeclareLaunchArgument('namespace', default_value='', description='Twice.'),
        *declare_arguments('namespace', 'elbow'),
        include_launch_file('sim.launch.py', **forward_arguments(
            'params_file', 'urdf_file', 'xacro_args', 'namespace', 'elbow', 'base_frame',
            'tip_frame', 'output', 'position_controller', 'trajectory_controller', 'rviz',
            'rviz_config'), robot_description_topic='', use_sim_time='true'),
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
        'bad.launch.py: includes two_bone_ik.launch.py without giving elbow, xacro_args, '
        'robot_description_topic, base_frame, tip_frame, position_controller, '
        'trajectory_controller, use_sim_time (given on the command line, they would reach it '
        'unseen by --show-args)',
        "bad.launch.py: 'two_bone_ik_nod' is not a console script",
        'bad.launch.py: unknown executable rviz/rviz',
        'bad.launch.py: a Command runs a program looked up on PATH (a colcon install puts ours '
        'in lib/two_bone_ik): use ExecutableInPackage',
        "bad.launch.py: passes 'elbows' to two_bone_ik.launch.py, which does not declare it",
        "bad.launch.py: includes 'missing.launch.py', which does not exist",
        'bad.launch.py: no_such_arm.yaml is not in config/',
        'bad.launch.py: declares namespace twice',
        'bad.launch.py: does not declare use_sim_time',
        'bad.launch.py: starts the IK node but does not declare robot_description_topic',
        'bad.launch.py: two_bone_ik_sim is not given use_sim_time',
        'bad.launch.py: two_bone_ik_node is not given use_sim_time',
        'bad.launch.py: two_bone_ik_nod is not given use_sim_time',
        'bad.launch.py: rviz is not given use_sim_time',
        'bad.launch.py: two_bone_ik_node is not given robot_description_topic',
        'bad.launch.py: gives sim.launch.py a robot_description_topic of its own instead of '
        'forwarding its argument',
        'bad.launch.py: gives sim.launch.py a use_sim_time of its own instead of forwarding its '
        'argument',
    ])
    problems = xml_problems(BAD_XML_LAUNCH_FILE, 'bad.launch.xml', _declared_by_file())
    assert problems == [
        'bad.launch.xml: argument sim has no description',
        'bad.launch.xml: default of sim is not a choice',
        'bad.launch.xml: starts two_bone_ik_node itself; XML can only say on_exit="shutdown" '
        '(exit code 0 even when it could not start): include the Python launch file',
        'bad.launch.xml: two_bone_ik_node has no parameter elbows',
        'bad.launch.xml: two_bone_ik_node is not given use_sim_time',
        'bad.launch.xml: $(find-pkg-share two_bone_ik)/config/no_such_arm.yaml does not exist',
        "bad.launch.xml: passes 'port' to two_bone_ik.launch.py, which does not declare it",
        'bad.launch.xml: includes two_bone_ik.launch.py without giving params_file, namespace, '
        'elbow, urdf_file, xacro_args, robot_description_topic, base_frame, tip_frame, output, '
        'position_controller, trajectory_controller, use_sim_time (given on the command line, '
        'they would reach it unseen by --show-args)',
        'bad.launch.xml: includes display.launch.py without giving urdf_file, xacro_args, '
        'robot_description_topic, namespace, joint_states, base_frame, rviz, rviz_config, '
        'use_sim_time (given on the command line, they would reach it unseen by --show-args)',
        'bad.launch.xml: does not declare use_sim_time',
        'bad.launch.xml: starts the IK node but does not declare robot_description_topic',
    ]


def test_output_names_controllers_of_the_shipped_controllers_file():
    """The controller names output:=position / trajectory use are ros2_controllers.yaml's."""
    assert set(OUTPUTS) == {'joint_commands', 'position', 'trajectory'}
    controllers = yaml.safe_load((CONFIG / 'ros2_controllers.yaml').read_text())
    declared = controllers['controller_manager']['ros__parameters']
    assert {OUTPUTS['position'].position_controller,
            OUTPUTS['trajectory'].trajectory_controller} <= set(declared)


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
    ik = parameters_for_node(path, f'{namespace}/two_bone_ik').values
    arm = arm_config_from_mapping(ik)
    driver = parameters_for_node(path, f'{namespace}/two_bone_ik_servo').values
    # The arm's joints as LeRobot names the SO-101's motors, then the gripper off the chain.
    assert arm.joint_names == ('shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex',
                               'wrist_roll')
    assert arm.gripper_joint == 'gripper'
    assert driver['joints'] == [*arm.joint_names, arm.gripper_joint]
    assert driver['protocol'] == 'feetech'
    # Ids, ranges and mapping come from the calibration file given at launch: nothing here
    # replaces them (a servos.<joint>.channel, output_range or output_limits would).
    assert 'calibration_file' not in driver
    assert all(name.rsplit('.', 1)[1] in ('max_velocity', 'max_acceleration')
               for name in driver if name.startswith('servos.'))
    # The servos' own speed limits are above the IK node's planned motion.
    assert all(driver[f'servos.{joint}.max_velocity'] > max(ik['max_joint_velocity'])
               for joint in driver['joints'])


def test_so101_sim_gets_the_written_description_and_its_tip():
    tree = _tree('so101.launch.py')
    tip = next(node.value.value for node in tree.body if isinstance(node, ast.Assign)
               and node.targets[0].id == 'WRITTEN_TIP')
    assert tip == TOOL_LINK
    # The sim's and robot_state_publisher's (display.launch.py's) description come from the
    # one helper, and no launch file runs two_bone_ik_urdf itself.
    for file_name in ('so101.launch.py', 'display.launch.py'):
        assert len(_calls(_tree(file_name), 'written_description')) == 1, file_name
    assert not any(_calls(_tree(name), 'Command') for name in PYTHON_FILES)


@pytest.mark.parametrize('file_name', ['so101.launch.py', 'servo_arm.launch.py'])
def test_the_servo_driver_gets_the_port_and_calibration_arguments(file_name):
    # port:= and calibration_file:= are the driver's parameters: declared and not handed to
    # the driver, they would do nothing (the params file's values would drive the servos).
    tree = _tree(file_name)
    declared = {_constant(call.args[0]) for call in _calls(tree, 'DeclareLaunchArgument')}
    drivers = [call for call in _calls(tree, 'Node')
               if _constant(_keyword(call, 'executable')) == 'two_bone_ik_servo']
    assert len(drivers) == 1
    given = _parameter_names(_keyword(drivers[0], 'parameters'))
    wanted = {'port', 'calibration_file'} & declared
    assert 'port' in wanted
    assert wanted <= set(given), given


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
    """Return the README's quick start for a ROS 2 distro (test_readme.py checks its lines)."""
    text = (REPO / 'README.md').read_text()
    start = text.index('## Quick start 2: a ROS 2 distro')
    return text[start:text.index('\n## ', start + 1)]


#: The README's line for a URDF arm whose robot_state_publisher and controller run (issue 19).
URDF_ARM_LINE = ('ros2 launch two_bone_ik two_bone_ik.launch.py '
                 'robot_description_topic:=robot_description base_frame:=base_link '
                 'tip_frame:=tool0 trajectory_controller:=joint_trajectory_controller')


def test_readme_gives_the_line_for_a_urdf_arm_with_its_controllers_running():
    assert URDF_ARM_LINE in _distro_section().splitlines()
    assert URDF_ARM_LINE in (REPO / 'docs' / 'launch.md').read_text().splitlines()


def test_readme_has_one_line_per_launch_file_linking_its_arguments():
    text = (REPO / 'README.md').read_text()
    start = text.index('## Launch files\n')
    section = text[start:text.index('\n## ', start + 1)]
    for file_name in ARGUMENTS:
        anchor = file_name.replace('.', '')
        assert f'- `{file_name}` — ' in section, file_name
        assert f'(docs/launch.md#{anchor})' in section, file_name


def _docs_sections():
    """Return docs/launch.md's ``## `<file>` `` sections, by file name."""
    text = (REPO / 'docs' / 'launch.md').read_text()
    sections = {}
    for part in text.split('\n## ')[1:]:
        heading, _, body = part.partition('\n')
        if heading.startswith('`') and heading.endswith('`'):
            sections[heading.strip('`')] = body
    return sections


def test_docs_document_every_argument_of_every_launch_file_with_an_example():
    sections = _docs_sections()
    assert sorted(sections) == sorted(ARGUMENTS)
    for file_name, arguments in ARGUMENTS.items():
        entry = sections[file_name]
        # "- `base_frame`, `tip_frame` — ..." documents both.
        documented = [name for line in entry.splitlines() if line.startswith('- `')
                      for name in line[2:].split(' — ')[0].replace('`', '').split(', ')]
        for name in arguments:
            assert name in documented, f'docs/launch.md: {file_name} does not document {name}'
        assert set(documented) <= set(arguments), (file_name, set(documented) - set(arguments))
        assert f'ros2 launch two_bone_ik {file_name}' in entry, f'no example for {file_name}'


def ros2_launch_lines(text):
    """Return the ``ros2 launch two_bone_ik ...`` commands of a Markdown text, as token lists.

    Lines continued with a backslash are joined; a ``#`` comment ends a command.
    """
    commands = []
    for line in text.replace('\\\n', ' ').splitlines():
        line = line.strip().strip('`')
        if line.startswith('ros2 launch two_bone_ik '):
            commands.append(shlex.split(line.split(' #')[0])[3:])
    return commands


def launch_line_problems(tokens):
    """Return what is wrong with ``ros2 launch two_bone_ik <file> <name:=value>...``."""
    file_name, *arguments = tokens
    if file_name not in ARGUMENTS:
        return [f'{file_name}: no such launch file']
    if file_name.endswith('.py'):
        declared = declared_arguments(_tree(file_name))
    else:
        python = declared_arguments(_tree(file_name.replace('.xml', '.py')))
        declared = {arg.get('name'): python[arg.get('name')] for arg in
                    ElementTree.parse(LAUNCH / file_name).getroot().findall('arg')}
    problems = []
    for argument in arguments:
        name, separator, value = argument.partition(':=')
        if not separator or name not in declared:
            problems.append(f'{file_name}: {argument!r} is not an argument it declares')
        elif declared[name][2] and value not in declared[name][2]:
            problems.append(f'{file_name}: {name}:={value} is not one of {declared[name][2]}')
    return problems


def test_every_ros2_launch_line_of_the_docs_names_declared_arguments():
    lines = [tokens for path in ('README.md', 'docs/launch.md')
             for tokens in ros2_launch_lines((REPO / path).read_text())]
    assert {tokens[0] for tokens in lines} == set(ARGUMENTS)  # an example of every file
    assert [problem for tokens in lines for problem in launch_line_problems(tokens)] == []
    # The check finds what is wrong.
    assert launch_line_problems(['sim.launch.py', 'rviz:=yes', 'robot_description:=x']) == [
        "sim.launch.py: rviz:=yes is not one of ['true', 'false']",
        "sim.launch.py: 'robot_description:=x' is not an argument it declares"]
    assert launch_line_problems(['arm.launch.py']) == ['arm.launch.py: no such launch file']


def test_every_node_that_uses_tf_gets_the_namespaced_tf_topics():
    # robot_state_publisher publishes the tree and the IK node's tf2 listener reads it: in a
    # namespace both must use the same (relative) tf topics, or targets from other frames never
    # find their transform.
    users = {'robot_state_publisher', 'two_bone_ik_node'}
    found = []
    for file_name in PYTHON_FILES:
        for call in _calls(_tree(file_name), 'Node'):
            if _constant(_keyword(call, 'executable')) in users:
                remappings = _keyword(call, 'remappings')
                names = {n.id for n in ast.walk(remappings) if isinstance(n, ast.Name)} if (
                    remappings is not None) else set()
                found.append((file_name, _constant(_keyword(call, 'executable')),
                              'TF_REMAPPINGS' in names))
    assert {(f, e) for f, e, _ in found} >= {('display.launch.py', 'robot_state_publisher'),
                                             ('two_bone_ik.launch.py', 'two_bone_ik_node'),
                                             ('so101.launch.py', 'two_bone_ik_node')}
    assert all(remapped for _, _, remapped in found), found
