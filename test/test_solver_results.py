"""Tests of the solver's result types and status codes: two_bone_ik.solver.results."""

from two_bone_ik.solver import IkInputError, IkSolution, IkStatus


def test_status_numbers_are_stable():
    # Published numbers: never renumber them.
    assert {status.name: int(status) for status in IkStatus} == {
        'REACHED': 0, 'OUT_OF_REACH': 1, 'INSIDE_INNER': 2, 'JOINT_LIMITED': 3,
        'ELBOW_FLIPPED': 4}


def test_input_error_is_a_value_error():
    assert issubclass(IkInputError, ValueError)


def test_solution_fields():
    assert IkSolution._fields == ('q1', 'q2', 'status', 'reachable', 'tip', 'error', 'elbow')
