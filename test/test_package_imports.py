"""The package's modules import one another without a circle.

Every import statement of every module counts, at module level or inside a function (a lazy
import closes a circle as surely, only later): ``from a import b`` is an import of the module
``a.b`` when there is one, else of ``a``. Parent packages imported implicitly do not count.
"""

import ast
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1] / 'two_bone_ik'


def module_name(path: Path) -> str:
    """``.../two_bone_ik/nodes/__init__.py`` -> ``two_bone_ik.nodes``."""
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE_DIR.rglob('*.py'))}


def imports_of(name: str) -> set:
    """Return the package's modules that module ``name`` imports."""
    found = set()
    package = name if MODULES[name].name == '__init__.py' else name.rpartition('.')[0]
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:  # relative: from the package, up level - 1
                base = '.'.join(package.split('.')[:len(package.split('.')) - node.level + 1]
                                + ([base] if base else []))
            for alias in node.names:
                found.add(f'{base}.{alias.name}' if f'{base}.{alias.name}' in MODULES else base)
    return found & set(MODULES)


def circles(graph: dict) -> list:
    """Return the groups of modules that import one another, directly or not (sorted)."""
    reach = {}
    for start in graph:
        seen, stack = set(), list(graph[start])
        while stack:
            module = stack.pop()
            if module not in seen:
                seen.add(module)
                stack.extend(graph[module])
        reach[start] = seen
    groups = {tuple(sorted(m for m in reach[start] if start in reach[m]))
              for start in graph if start in reach[start]}
    return sorted(groups)


def test_the_import_scan_sees_every_kind_of_import():
    assert 'two_bone_ik.nodes.node_runner' in imports_of('two_bone_ik.nodes.ik_node')
    assert 'two_bone_ik.nodes.ik_node' in imports_of('two_bone_ik.nodes.entry_points')  # lazy
    assert 'two_bone_ik.solver' in imports_of('two_bone_ik')  # lazily, inside __getattr__
    assert circles({'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'d'}, 'e': {'a'}}) == [
        ('a', 'b', 'c'), ('d',)]


def test_no_module_imports_itself_through_others():
    assert circles({name: imports_of(name) for name in MODULES}) == []
