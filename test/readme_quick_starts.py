"""The README's quick starts, read as commands, and the checks that need no ROS distro.

A quick start is the fenced code block right after a marker comment in the README::

    <!-- quick start: no-distro -->
    ```sh
    ...
    ```

``<!-- quick start: servo-yaml my_arm.yaml -->`` marks a file the reader saves (its name after
the quick start's name). :func:`quick_starts` collects the blocks, :func:`commands` splits a
shell block into commands (backslash continuations joined, ``#`` comments dropped, ``a && b``
split, a trailing ``&`` kept as "in the background"), and :func:`plan` turns each command into
a :class:`Step` that says what running it means here, or into a problem: a command this module
does not know is a problem, so a quick start cannot gain a line nobody checks. Everything here
is pure (files are read, nothing is run); ``test_readme.py`` runs the steps it can run for real.
"""

import ast
import contextlib
import io
from pathlib import Path
import re
import shlex
import sys
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple
import xml.etree.ElementTree as ElementTree

from test_launch_files import _known_parameter, _section_problems, launch_line_problems
from two_bone_ik.arm.params_file import ParamsFileError, read_params_file
from two_bone_ik.client.arguments import parse_target_arguments, parse_teleop_arguments

REPO = Path(__file__).resolve().parents[1]
PACKAGE = 'two_bone_ik'

#: What the README's ROS 2 quick start builds with; test_package_install.py runs exactly this
#: in a workspace whose src/two_bone_ik is this checkout.
COLCON_BUILD = ('colcon', 'build', '--packages-select', PACKAGE)

#: The rosdep options a quick start may use (with a value: True).
ROSDEP_INSTALL_OPTIONS = {'--from-paths': True, '--ignore-src': False, '-y': False,
                          '-r': False, '--rosdistro': True, '--skip-keys': True}

#: The executables that are ROS nodes of this package (their ROS arguments are checked).
NODE_EXECUTABLES = ('two_bone_ik_node', 'two_bone_ik_sim', 'two_bone_ik_servo')
#: The node name each of them gives itself (its params file section).
NODE_NAMES = {'two_bone_ik_node': 'two_bone_ik', 'two_bone_ik_sim': 'two_bone_ik_sim',
              'two_bone_ik_servo': 'two_bone_ik_servo'}

_MARK = re.compile(r'^<!-- quick start: (?P<name>[\w-]+)(?: (?P<file>\S+))? -->\n'
                   r'```(?P<lang>\w*)\n(?P<body>.*?)^```$', re.M | re.S)
_VENV_BIN = re.compile(r'^\.venv-(?P<distro>[\w]+)/bin/(?P<exe>[\w]+)$')


class QuickStart(NamedTuple):
    """One marked code block: its name, the file it is saved as ('' if none), its text."""

    name: str
    file: str
    lang: str
    body: str


class Command(NamedTuple):
    """One shell command of a quick start: its words, and whether it runs in the background."""

    words: Tuple[str, ...]
    background: bool

    def __str__(self):
        return ' '.join(self.words) + (' &' if self.background else '')


class Step(NamedTuple):
    """What a command means here.

    Attributes
    ----------
    kind : str
        ``make`` (a make target, run by ``make`` itself, not here), ``env`` (variables to
        export), ``start`` (a process in the background), ``run`` (a command that must exit 0),
        ``interactive`` (needs a terminal: its ``-h`` is run instead), ``stop`` (SIGINT to
        background jobs), ``checked`` (a distro command, checked but not runnable here).
    command : Command
    argv : tuple of str
        What to execute for ``start``, ``run`` and ``interactive`` (the virtualenv's console
        script for ``.venv-<distro>/bin/<exe>``).
    values : tuple
        ``env``: (name, value) pairs; ``stop``: the job numbers; ``make``: the targets.
    """

    kind: str
    command: Command
    argv: Tuple[str, ...] = ()
    values: tuple = ()


def quick_starts(text: str) -> Dict[str, List[QuickStart]]:
    """Return the marked code blocks of a Markdown text, by quick start name, in order."""
    found: Dict[str, List[QuickStart]] = {}
    for match in _MARK.finditer(text):
        found.setdefault(match['name'], []).append(
            QuickStart(match['name'], match['file'] or '', match['lang'], match['body']))
    return found


def commands(body: str) -> List[Command]:
    """Return the commands of a shell block, in order (see the module docstring)."""
    result = []
    for line in body.replace('\\\n', ' ').splitlines():
        words = shlex.split(line, comments=True)
        background = bool(words) and words[-1] == '&'
        if background:
            words = words[:-1]
        parts: List[List[str]] = [[]]
        for word in words:
            if word == '&&':
                parts.append([])
            else:
                parts[-1].append(word)
        for index, part in enumerate(parts):
            if part:
                result.append(Command(tuple(part), background and index == len(parts) - 1))
    return result


# -- the repository's facts --------------------------------------------------------------------

def console_scripts() -> List[str]:
    """Return the console script names of setup.py, read from its source."""
    tree = ast.parse((REPO / 'setup.py').read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == 'console_scripts':
                    return [entry.split('=')[0].strip() for entry in ast.literal_eval(value)]
    raise AssertionError('setup.py has no console_scripts')


def pip_extras() -> Dict[str, List[str]]:
    """Return setup.py's ``extras_require``, read from its source."""
    tree = ast.parse((REPO / 'setup.py').read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == 'extras_require':
            return ast.literal_eval(node.value)
    raise AssertionError('setup.py has no extras_require')


def rosdep_keys() -> List[str]:
    """Return every dependency key of package.xml."""
    root = ElementTree.parse(REPO / 'package.xml').getroot()
    return [element.text.strip() for element in root if element.tag.endswith('depend')]


def make_variable(name: str, makefile: Optional[str] = None) -> List[str]:
    """Return the words of a ``NAME := ...`` line of the Makefile."""
    text = (REPO / 'Makefile').read_text() if makefile is None else makefile
    match = re.search(rf'^{name} :?= (.*)$', text, re.M)
    assert match, f'the Makefile has no {name}'
    return match.group(1).split()


def make_targets(makefile: Optional[str] = None) -> Dict[str, List[str]]:
    """Return the Makefile's explicit targets and their recipe lines."""
    text = (REPO / 'Makefile').read_text() if makefile is None else makefile
    targets: Dict[str, List[str]] = {}
    current = None
    for line in text.splitlines():
        match = re.match(r'^([\w-]+):(?!=)', line)
        if match:
            current = targets.setdefault(match.group(1), [])
        elif line.startswith('\t') and current is not None:
            current.append(line.strip())
        elif not line.startswith('#'):
            current = None
    return targets


def demo_scripts(makefile: Optional[str] = None) -> List[str]:
    """Return the scripts ``make demo`` runs (repository-relative), in order."""
    targets = make_targets(makefile)
    scripts = []
    for target in make_variable('DEMOS', makefile):
        for line in targets.get(target, []):
            scripts += [word for word in line.split() if word.startswith('demo/')]
    return scripts


# -- checking commands -------------------------------------------------------------------------

def _argument_problem(parse, args: Sequence[str]) -> Optional[str]:
    """Return argparse's complaint about ``args`` (None when they parse)."""
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            parse(list(args))
        except SystemExit:
            return stderr.getvalue().strip().splitlines()[-1]
    return None


def _params_file(value: str, cwd: Path, saved: Mapping[str, str]) -> Tuple[Optional[Path], str]:
    """Return (path, problem) for a params file named in a quick start."""
    name = value.replace('$PWD/', '')
    if name in saved:
        return Path(saved[name]), ''
    path = cwd / name
    if path.is_file():
        return path, ''
    return None, f'params file {value} is neither a file of {cwd} nor saved by a quick start'


def ros_argument_problems(executable: str, args: Sequence[str], cwd: Path,
                          saved: Mapping[str, str]) -> List[str]:
    """Return what is wrong with a node's command line (``--ros-args`` and after).

    ``saved`` maps the file names quick starts save to where the check finds them.
    """
    if '--ros-args' not in args:
        return [] if not args else [f'{executable}: arguments without --ros-args: {args}']
    ros = list(args[args.index('--ros-args') + 1:])
    problems = []
    while ros:
        option = ros.pop(0)
        value = ros.pop(0) if ros else ''
        if option == '--params-file':
            path, problem = _params_file(value, cwd, saved)
            if problem:
                problems.append(f'{executable}: {problem}')
                continue
            try:
                read_params_file(path)  # parses as rcl would
            except ParamsFileError as error:
                problems.append(f'{executable}: {error}')
                continue
            problems += _section_problems(path, '/' + NODE_NAMES[executable], executable)
        elif option == '-p':
            name = value.split(':=')[0]
            if ':=' not in value or not _known_parameter(executable, name):
                problems.append(f'{executable}: -p {value}: not a parameter it declares')
        elif option != '-r':
            problems.append(f'{executable}: {option}: not a ROS argument this check knows')
    return problems


def executable_problems(executable: str, args: Sequence[str], cwd: Path,
                        saved: Mapping[str, str]) -> List[str]:
    """Return what is wrong with running ``executable args`` (one of this package's)."""
    if executable not in console_scripts():
        return [f'{executable}: not an executable of {PACKAGE} ({", ".join(console_scripts())})']
    own = list(args[:args.index('--ros-args')] if '--ros-args' in args else args)
    if executable == 'two_bone_ik_target':
        problem = _argument_problem(parse_target_arguments, own)
    elif executable == 'two_bone_ik_teleop':
        problem = _argument_problem(parse_teleop_arguments, own)
    elif executable in NODE_EXECUTABLES:
        return ros_argument_problems(executable, args, cwd, saved)
    else:
        problem = None
    return [f'{executable}: {problem}'] if problem else []


def _make_step(command: Command) -> Tuple[Optional[Step], List[str]]:
    targets = command.words[1:]
    missing = [t for t in targets if t not in make_targets()]
    if missing or not targets:
        return None, [f'{command}: no such make target {missing}']
    return Step('make', command, values=targets), []


def _venv_step(command: Command, match, cwd: Path,
               saved: Mapping[str, str]) -> Tuple[Optional[Step], List[str]]:
    """Plan a ``.venv-<distro>/bin/<exe>`` command: this virtualenv's console script."""
    distro, executable = match['distro'], match['exe']
    problems = executable_problems(executable, command.words[1:], cwd, saved)
    if distro not in make_variable('SUPPORTED_DISTROS'):
        problems.append(f'{command}: .venv-{distro} is no virtualenv the Makefile makes')
    argv = (str(Path(sys.executable).parent / executable),) + command.words[1:]
    if not Path(argv[0]).is_file():
        problems.append(f'{command}: {argv[0]} is not installed')
    if command.background:
        kind = 'start'
    else:
        kind = 'interactive' if executable == 'two_bone_ik_teleop' else 'run'
    return Step(kind, command, argv), problems


def _stop_step(command: Command, started: int) -> Tuple[Optional[Step], List[str]]:
    words = command.words
    jobs = [int(word[1:]) for word in words[2:] if re.fullmatch(r'%\d+', word)]
    if words[:2] != ('kill', '-INT') or len(jobs) != len(words) - 2 or not jobs:
        return None, [f'{command}: only "kill -INT %N ..." (Ctrl-C to background jobs) is known']
    if any(job < 1 or job > started for job in jobs):
        return None, [f'{command}: only {started} job(s) were started']
    return Step('stop', command, values=tuple(jobs)), []


def _shell_step(command: Command) -> Optional[Step]:
    """``export``, ``cd`` and ``source``: what the runner applies or the reader's shell does."""
    words = command.words
    if words[0] == 'export' and all('=' in word for word in words[1:]):
        return Step('env', command, values=tuple(tuple(w.split('=', 1)) for w in words[1:]))
    if words[0] == 'cd' and len(words) == 2:
        return Step('checked', command)
    return None


def _source_problems(words: Sequence[str], built: bool) -> List[str]:
    if len(words) != 2:
        return [f'{" ".join(words)}: source takes one file']
    match = re.fullmatch(r'/opt/ros/(\w+)/setup\.(bash|sh|zsh)', words[1])
    if match:
        supported = make_variable('SUPPORTED_DISTROS')
        return [] if match.group(1) in supported else [
            f'source {words[1]}: {match.group(1)} is not one of {supported}']
    if re.fullmatch(r'install/setup\.(bash|sh|zsh)', words[1]):
        return [] if built else [f'source {words[1]} before colcon build']
    return [f'source {words[1]}: not a ROS or colcon setup file']


def _rosdep_problems(words: Sequence[str]) -> List[str]:
    if list(words) == ['rosdep', 'update']:
        return []
    if list(words[:2]) != ['rosdep', 'install']:
        return [f'{" ".join(words)}: only rosdep update and rosdep install are known']
    problems, rest = [], list(words[2:])
    while rest:
        option = rest.pop(0)
        if option not in ROSDEP_INSTALL_OPTIONS:
            problems.append(f'rosdep install: {option} is not an option this check knows')
        elif ROSDEP_INSTALL_OPTIONS[option]:
            value = rest.pop(0) if rest else ''
            if option == '--skip-keys':
                problems += [f'rosdep install --skip-keys: {key} is not a key of package.xml'
                             for key in value.split() if key not in rosdep_keys()]
            if option == '--from-paths' and value != 'src':
                problems.append(f'rosdep install --from-paths {value}: expected src')
    return problems


def _pip_problems(words: Sequence[str]) -> List[str]:
    if list(words[:2]) != ['pip', 'install'] or len(words) < 3:
        return [f'{" ".join(words)}: only pip install PACKAGE... is known']
    wanted = {name for names in pip_extras().values() for name in names}
    problems = []
    for name in words[2:]:
        if name not in wanted:
            problems.append(f'pip install {name}: not a dependency of setup.py')
        elif {name, f'python3-{name}'} & set(rosdep_keys()):
            problems.append(f'pip install {name}: package.xml has a rosdep key for it')
    return problems


def _ros2_problems(words: Sequence[str], cwd: Path, saved: Mapping[str, str]) -> List[str]:
    if len(words) < 4 or words[1] not in ('launch', 'run') or words[2] != PACKAGE:
        return [f'{" ".join(words)}: only ros2 launch|run {PACKAGE} ... is known']
    if words[1] == 'run':
        return executable_problems(words[3], words[4:], cwd, saved)
    problems = launch_line_problems(list(words[3:]))
    for argument in words[4:]:
        name, _, value = argument.partition(':=')
        if name == 'params_file':
            problems += [f'{words[3]}: {p}' for p in
                         filter(None, [_params_file(value, cwd, saved)[1]])]
    return problems


def _distro_problems(command: Command, built: bool, cwd: Path,
                     saved: Mapping[str, str]) -> List[str]:
    """Return what is wrong with a command of a ROS 2 distro quick start."""
    words = command.words
    tool = words[0]
    if tool == 'source':
        return _source_problems(words, built)
    if tool == 'rosdep':
        return _rosdep_problems(words)
    if tool == 'pip':
        return _pip_problems(words)
    if tool == 'colcon':
        return [] if words == COLCON_BUILD else [
            f'{command}: test_package_install.py builds with {" ".join(COLCON_BUILD)}']
    if tool == 'ros2':
        return _ros2_problems(words, cwd, saved)
    return [f'{command}: not a command this check knows']


def plan(cmds: Sequence[Command], cwd: Path, saved: Mapping[str, str] = None,
         distro: bool = False) -> Tuple[List[Step], List[str]]:
    """Return the steps of a quick start's commands and every problem found.

    Parameters
    ----------
    cmds : sequence of Command
    cwd : Path
        The directory the commands run in (relative files are looked up there).
    saved : mapping, optional
        ``{file name: path}`` of the files other quick starts save (e.g. a params file).
    distro : bool
        The commands need a ROS 2 distro: ``ros2``, ``rosdep``, ``colcon``, ``pip`` and
        ``source`` are checked (``checked`` steps), not run.
    """
    saved = saved or {}
    steps: List[Step] = []
    problems: List[str] = []
    for command in cmds:
        step, found = _step(command, cwd, saved, distro, steps)
        problems += found
        if step is not None:
            steps.append(step)
    return steps, problems


def _step(command: Command, cwd: Path, saved: Mapping[str, str], distro: bool,
          steps: Sequence[Step]) -> Tuple[Optional[Step], List[str]]:
    """Return one command's step (None when it has problems) and its problems."""
    words = command.words
    shell = _shell_step(command)
    if shell is not None:
        return shell, []
    if words[0] == 'make':
        return _make_step(command)
    match = _VENV_BIN.match(words[0])
    if match:
        return _venv_step(command, match, cwd, saved)
    if words[0] == 'kill':
        return _stop_step(command, sum(1 for step in steps if step.kind == 'start'))
    if distro:
        built = any(step.command.words[0] == 'colcon' for step in steps)
        problems = _distro_problems(command, built, cwd, saved)
        return (None if problems else Step('checked', command)), problems
    return None, [f'{command}: not a command this check knows (without a ROS distro)']


# -- the README as a whole ---------------------------------------------------------------------

#: The quick starts the README has; those that need a ROS 2 distro are checked, not run.
QUICK_STARTS = ('make', 'urdf-arm', 'no-distro', 'python', 'distro', 'servo-yaml', 'servo',
                'servo-no-distro', 'so101', 'so101-no-distro')
DISTRO_QUICK_STARTS = ('urdf-arm', 'distro', 'servo', 'so101')


def save_files(blocks: Mapping[str, List[QuickStart]], directory: Path) -> Dict[str, str]:
    """Write the blocks that name a file into ``directory``; return ``{name: path}``."""
    saved = {}
    for block in (b for found in blocks.values() for b in found if b.file):
        path = directory / block.file
        path.write_text(block.body)
        saved[block.file] = str(path)
    return saved


def readme_problems(text: str, directory: Path) -> List[str]:
    """Return every problem the checks find in the README's quick starts.

    Files the quick starts save are written into ``directory``; commands are planned as run
    from the repository root.
    """
    blocks = quick_starts(text)
    problems = [f'no quick start {name!r}' for name in QUICK_STARTS if name not in blocks]
    problems += [f'unexpected quick start {name!r}' for name in blocks if name not in QUICK_STARTS]
    saved = save_files(blocks, directory)
    for name, found in blocks.items():
        for block in found:
            if block.lang == 'python':
                continue  # not commands: test_readme.py runs it
            if block.lang == 'yaml':
                if not block.file:
                    problems.append(f'{name}: a YAML quick start names the file it is saved as')
                    continue
                try:
                    read_params_file(saved[block.file])
                except Exception as error:  # noqa: B902 - any failure to load is the finding
                    problems.append(f'{block.file}: {error}')
                continue
            _, found_problems = plan(commands(block.body), REPO, saved,
                                     distro=name in DISTRO_QUICK_STARTS)
            problems += [f'{name}: {problem}' for problem in found_problems]
    return problems
