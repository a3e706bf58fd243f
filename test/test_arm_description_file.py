"""Tests of two_bone_ik.arm.description_file: URDF and xacro files read into URDF text.

The xacro files are written here; xacro is the real one (PyPI ``xacro``, as the launch files use
it), and the URDF it writes goes to the IK node's session, which must take the arm from it.
"""

import math
import sys

import pytest

from two_bone_ik.arm.description_file import DescriptionFileError, parse_xacro_args
from two_bone_ik.arm.description_file import read_description_file
from two_bone_ik.ik.status import NodeStatus
from two_bone_ik.session import ArmSession

#: A planar arm written the way robot packages write theirs: a macro per link and joint, a
#: ``prefix`` argument for the names and an ``upper_length`` argument with a default.
ARM_XACRO = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="macro_arm">
  <xacro:arg name="prefix" default=""/>
  <xacro:arg name="upper_length" default="0.30"/>
  <xacro:property name="prefix" value="$(arg prefix)"/>
  <xacro:property name="upper" value="$(arg upper_length)"/>
  <xacro:property name="fore" value="0.25"/>
  <xacro:macro name="limb" params="name parent length">
    <link name="${prefix}${name}_link">
      <inertial>
        <mass value="0.2"/>
        <inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-4"/>
      </inertial>
    </link>
    <joint name="${prefix}${name}" type="revolute">
      <parent link="${parent}"/>
      <child link="${prefix}${name}_link"/>
      <origin xyz="${length} 0 0"/>
      <axis xyz="0 0 1"/>
      <limit lower="${-pi}" upper="${pi}" effort="5" velocity="2.0"/>
    </joint>
  </xacro:macro>
  <link name="base_link"/>
  <xacro:limb name="shoulder" parent="base_link" length="0"/>
  <xacro:limb name="elbow" parent="${prefix}shoulder_link" length="${upper}"/>
  <link name="${prefix}tool0"/>
  <joint name="${prefix}tool_joint" type="fixed">
    <parent link="${prefix}elbow_link"/>
    <child link="${prefix}tool0"/>
    <origin xyz="${fore} 0 0"/>
  </joint>
</robot>
"""


def write(folder, name, text):
    path = folder / name
    path.write_text(text)
    return str(path)


def test_a_xacro_with_a_macro_and_arguments_expands_to_a_urdf_the_ik_node_takes(tmp_path):
    path = write(tmp_path, 'arm.urdf.xacro', ARM_XACRO)
    urdf = read_description_file(path, 'prefix:=left_ upper_length:=0.4')
    assert 'xacro:' not in urdf.split('-->')[-1]
    session = ArmSession({'robot_description': urdf, 'base_frame': 'base_link',
                          'tip_frame': 'left_tool0'}, trajectories=True)
    assert session.joint_names == ('left_shoulder', 'left_elbow')
    geometry = session.solver.geometry
    assert geometry.link_lengths == pytest.approx((0.4, 0.25))
    assert geometry.lower_limits == pytest.approx((-math.pi, -math.pi))
    q1, q2 = 0.3, -1.1  # a target the arm reaches at these readings (elbow up: q2 < 0)
    x = 0.4 * math.cos(q1) + 0.25 * math.cos(q1 + q2)
    y = 0.4 * math.sin(q1) + 0.25 * math.sin(q1 + q2)
    answer = session.target('base_link', x, y, 0.0)
    assert answer.result.status is NodeStatus.REACHED
    assert answer.result.readings == pytest.approx((q1, q2))
    # Without arguments the defaults hold: no prefix, 0.30 m.
    session = ArmSession({'robot_description': read_description_file(path),
                          'base_frame': 'base_link', 'tip_frame': 'tool0'})
    assert session.joint_names == ('shoulder', 'elbow')
    assert session.solver.geometry.link_lengths == pytest.approx((0.30, 0.25))


def test_a_urdf_file_is_read_as_it_is(tmp_path):
    text = '<robot name="a"><link name="base_link"/></robot>\n'
    assert read_description_file(write(tmp_path, 'arm.urdf', text)) == text


BROKEN = {
    'unknown macro': (
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="a"><xacro:arm/></robot>',
        'xacro: unknown macro name: xacro:arm'),
    'undefined argument': (
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="a">'
        '<link name="$(arg side)"/></robot>',
        'xacro: Undefined substitution argument side'),
    'bad expression': (
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="a">'
        '<link name="${length *}"/></robot>',
        "xacro: invalid syntax (<expression>, line 1) when evaluating expression 'length *'"),
    'macro without its parameter': (
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="a">'
        '<xacro:macro name="m" params="size"><link name="${size}"/></xacro:macro><xacro:m/>'
        '</robot>',
        'xacro: Undefined parameters [size]'),
    'not XML': ('<robot name="a"><link name="b"></robot>',
                'not valid XML: mismatched tag: line 1, column 33'),
}


@pytest.mark.parametrize('kind', sorted(BROKEN))
def test_a_broken_xacro_gives_one_line_naming_the_file(tmp_path, kind):
    text, reason = BROKEN[kind]
    path = write(tmp_path, 'broken.urdf.xacro', text)
    with pytest.raises(DescriptionFileError) as error:
        read_description_file(path)
    assert str(error.value) == f'{path}: {reason}'


def test_an_included_file_that_is_missing_gives_one_line(tmp_path):
    path = write(tmp_path, 'arm.xacro', '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" '
                                        'name="a"><xacro:include filename="parts.xacro"/></robot>')
    with pytest.raises(DescriptionFileError) as error:
        read_description_file(path)
    message = str(error.value)
    assert message.startswith(f'{path}: xacro: No such file or directory: ')
    assert 'parts.xacro' in message and '\n' not in message


def test_a_missing_file_and_misplaced_xacro_args_give_one_line(tmp_path):
    with pytest.raises(DescriptionFileError, match=r'^/no/such/arm.urdf.xacro: no such file$'):
        read_description_file('/no/such/arm.urdf.xacro')
    urdf = write(tmp_path, 'arm.urdf', '<robot name="a"/>')
    with pytest.raises(DescriptionFileError) as error:
        read_description_file(urdf, 'prefix:=left_')
    assert str(error.value) == f'xacro_args is given but {urdf} is not a .xacro file'
    folder = tmp_path / 'folder.xacro'
    folder.mkdir()
    with pytest.raises(DescriptionFileError, match='folder.xacro: no such file$'):
        read_description_file(str(folder))


def test_without_xacro_a_xacro_file_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, 'xacro', None)  # import xacro raises ImportError
    path = write(tmp_path, 'arm.urdf.xacro', ARM_XACRO)
    with pytest.raises(DescriptionFileError) as error:
        read_description_file(path)
    assert str(error.value) == (f'{path}: expanding a .xacro file needs xacro (ROS: rosdep key '
                                'xacro; pip: xacro)')


def test_xacro_args_are_read_as_on_xacros_command_line():
    assert parse_xacro_args('') == {}
    assert parse_xacro_args('prefix:=left_ length:=0.3') == {'prefix': 'left_', 'length': '0.3'}
    assert parse_xacro_args("label:='a b' empty:=") == {'label': 'a b', 'empty': ''}
    assert parse_xacro_args('url:=a:=b') == {'url': 'a:=b'}


@pytest.mark.parametrize('text, message', [
    ('prefix', "xacro_args: 'prefix' is not name:=value (e.g. prefix:=left_)"),
    (':=left_', "xacro_args: ':=left_' is not name:=value (e.g. prefix:=left_)"),
    ('prefix=left_', "xacro_args: 'prefix=left_' is not name:=value (e.g. prefix:=left_)"),
    ('a:=1 a:=2', 'xacro_args: a is given twice'),
    ("label:='a b", "xacro_args \"label:='a b\": No closing quotation"),
])
def test_bad_xacro_args_give_one_line(text, message):
    with pytest.raises(DescriptionFileError) as error:
        parse_xacro_args(text)
    assert str(error.value) == message
