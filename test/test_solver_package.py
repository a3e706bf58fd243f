"""Tests of the solver package as a whole: two_bone_ik.solver and its re-exports."""

import ast
from pathlib import Path

import two_bone_ik
import two_bone_ik.solver as solver

ALLOWED = {'math', 'enum', 'typing', 'numpy'}


def test_package_and_top_level_export_every_public_name():
    for name in solver.__all__:
        assert hasattr(solver, name)
    assert sorted(two_bone_ik.__all__) == sorted(solver.__all__)
    assert sorted(set(dir(two_bone_ik)) & set(solver.__all__)) == sorted(solver.__all__)
    for name in solver.__all__:
        assert getattr(two_bone_ik, name) is getattr(solver, name)
    assert solver.solve.__module__ == 'two_bone_ik.solver.closed_form'


def test_the_solver_imports_only_math_enum_typing_and_numpy():
    for path in Path(solver.__file__).parent.glob('*.py'):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module]
            else:
                continue
            for name in names:
                # Its own modules, or its own public API (the desktop solver calls solve).
                assert (name.split('.')[0] in ALLOWED or name == 'two_bone_ik.solver'
                        or name.startswith('two_bone_ik.solver.')), (path.name, name)


def test_the_solver_modules_import_no_private_names_from_each_other():
    for path in Path(solver.__file__).parent.glob('*.py'):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module.startswith('two_bone_ik'):
                private = [alias.name for alias in node.names if alias.name.startswith('_')]
                assert not private, (path.name, node.module, private)
