"""Tests of two_bone_ik.client.target_path: the CSV of timed targets of ``--path``."""

import pytest

from two_bone_ik.client.target_path import parse_target_path, PathTarget, read_target_path
from two_bone_ik.client.target_path import TargetPathError


def parse(text, source='p.csv'):
    return parse_target_path(text.splitlines(keepends=True), source)


def test_lines_with_and_without_orientation_header_optional():
    expected = [PathTarget(0.0, 0.4, 0.2, 0.0), PathTarget(0.5, -0.3, 0.1, 0.05),
                PathTarget(0.5, 0.3, 0.0, 0.0, 0.25, -0.5)]
    body = '0,0.4,0.2,0\n0.5, -0.3, 0.1, 0.05\n0.5,0.3,0,0,0.25,-0.5\n'
    assert parse(body) == expected
    assert parse('t,x,y,z,pitch,roll\n' + '0,0.4,0.2,0,0,0\n') == [
        PathTarget(0.0, 0.4, 0.2, 0.0, 0.0, 0.0)]
    assert parse(' T , X , Y , Z \n' + '1,0.4,0.2,0\n') == [PathTarget(1.0, 0.4, 0.2, 0.0)]


def test_comments_blank_lines_and_crlf_are_fine():
    text = '# a square\r\n\r\nt,x,y,z\r\n# corner 1\r\n0,0.4,0.2,0\r\n  \r\n1,0.4,-0.2,0\r\n'
    assert parse(text) == [PathTarget(0.0, 0.4, 0.2, 0.0), PathTarget(1.0, 0.4, -0.2, 0.0)]


@pytest.mark.parametrize('text, message', [
    ('0,0.4,0.2\n', 'p.csv line 1: expected 4 or 6 values (t,x,y,z[,pitch,roll]), got 3'),
    ('0,0.4,0.2,0\n1,0.4,0.2,0,0.1\n', 'p.csv line 2: expected 4 or 6 values'),
    ('t,x,y,z\n0,0.4,0.2,0,0,0\n', 'p.csv line 2: expected 4 values'),
    ('t,x,y,z,pitch,roll\n0,0.4,0.2,0\n', 'p.csv line 2: expected 6 values'),
    ('0,0.4,0.2,0\n1,0.4,abc,0\n', "p.csv line 2: y 'abc' is not a number"),
    ('0,0.4,0.2,nan\n', 'p.csv line 1: z is nan, not a finite number'),
    ('0,0.4,0.2,0,inf,0\n', 'p.csv line 1: pitch is inf, not a finite number'),
    ('-1,0.4,0.2,0\n', 'p.csv line 1: t is -1 s, before the start of the path'),
    ('0,0.4,0.2,0\n\n2,0.4,0.2,0\n1,0.4,0.2,0\n',
     "p.csv line 4: t is 1 s, before the previous target's 2 s"),
    ('time,x,y,z\n', "p.csv line 1: 'time,x,y,z' is neither a header naming the columns "
                     't,x,y,z[,pitch,roll] nor a line of numbers'),
    ('t,x,y,z\nt,x,y,z\n', "p.csv line 2: t 't' is not a number"),
    ('# nothing\n\n', 'p.csv: no targets'),
    ('t,x,y,z\n', 'p.csv: no targets'),
])
def test_errors_name_the_file_and_line(text, message):
    with pytest.raises(TargetPathError) as error:
        parse(text)
    assert str(error.value).startswith(message)
    assert '\n' not in str(error.value)


def test_read_from_a_file(tmp_path):
    path = tmp_path / 'path.csv'
    path.write_text('t,x,y,z\n0,0.4,0.2,0\n1.5,0.3,0.2,0.1\n')
    assert read_target_path(path) == [PathTarget(0.0, 0.4, 0.2, 0.0),
                                      PathTarget(1.5, 0.3, 0.2, 0.1)]
    path.write_text('0,0.4,0.2,0\n0,x,0.2,0\n')
    with pytest.raises(TargetPathError, match=f"^{path} line 2: x 'x' is not a number$"):
        read_target_path(path)


def test_unreadable_files_are_one_line(tmp_path):
    missing = tmp_path / 'missing.csv'
    with pytest.raises(TargetPathError, match=f'^{missing}: No such file or directory$'):
        read_target_path(missing)
    binary = tmp_path / 'binary.csv'
    binary.write_bytes(b'0,0.4,0.2,0\n\xff\xfe\n')
    with pytest.raises(TargetPathError, match=f'^{binary}: not UTF-8 text'):
        read_target_path(binary)
    with pytest.raises(TargetPathError, match=f'^{tmp_path}: Is a directory$'):
        read_target_path(tmp_path)
