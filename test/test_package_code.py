"""Rules over the whole package's code: no function longer than a screen."""

import ast
from pathlib import Path

import two_bone_ik

#: Longest function allowed, lines (its docstring aside).
LONGEST = 80


def function_lengths(path):
    """(name, lines) of every function in a module: its lines, its docstring's aside."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                lines -= first.end_lineno - first.lineno + 1
            yield node.name, lines


def test_no_function_in_the_package_is_longer_than_80_lines():
    root = Path(two_bone_ik.__file__).parent
    modules = sorted(root.rglob('*.py'))
    assert len(modules) > 50  # the whole package, subpackages included
    long = [(str(path.relative_to(root)), name, lines) for path in modules
            for name, lines in function_lengths(path) if lines > LONGEST]
    assert long == []


def test_the_measure_counts_a_function_without_its_docstring(tmp_path):
    module = tmp_path / 'sample.py'
    body = '\n'.join(f'    x{i} = {i}' for i in range(81))
    module.write_text(f'def long():\n    """Doc.\n\n    More.\n    """\n{body}\n')
    assert dict(function_lengths(module)) == {'long': 82}
