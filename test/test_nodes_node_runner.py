"""Tests of two_bone_ik.nodes.node_runner: input a node cannot use is one line and exit code 2.

Each case starts a real node process with a hostile description or file (built here, never a
committed file) and checks that its whole output is the one promised line: no traceback, no
warnings before it, no hang.
"""

import os

import pytest
from ros_harness import NodeProcess, wait_until, write_params

from two_bone_ik.arm.urdf_import import MAX_LINKS
from two_bone_ik.nodes.node_runner import EXIT_BAD_CONFIG
from urdf_arms import joint_xml, SCARA, with_elements, with_fixed_links

IK, SIM = 'two_bone_ik', 'two_bone_ik.nodes.sim_node'

#: Where the arm is in SCARA (test/urdf_arms.py).
CHAIN = {'base_frame': 'base_link', 'tip_frame': 'tool0'}

NOT_UTF8 = b'<robot name="caf\xe9"/>'


def _description(text):
    return {'robot_description': text, **CHAIN}


def _not_utf8_file(tmp_path):
    path = tmp_path / 'latin1.yaml'
    path.write_bytes(b"/**:\n  ros__parameters:\n    robot_description: '" + NOT_UTF8 + b"'\n")
    return path


#: (module, parameters or a function writing the params file, extra ROS arguments, the line).
REFUSED = {
    'cycle': (IK, _description(with_elements(SCARA, joint_xml('back', 'fixed', 'tool0',
                                                              'base_link'))), [],
              'two_bone_ik: invalid parameter robot_description: the joints form a cycle: '
              'link1 -> link2 -> flange -> tool0 -> base_link -> link1 (joints joint2, '
              'flange_joint, tool_joint, back, joint1); a URDF is a tree'),
    'velocity_nan': (IK, _description(SCARA.replace('velocity="3.0"', 'velocity="nan"', 1)), [],
                     "two_bone_ik: invalid parameter robot_description: joint 'joint1': <limit "
                     'velocity> is nan; expected a speed >= 0 (rad/s; 0 for none)'),
    'origin_inf': (IK, _description(SCARA.replace('0.425 0 0', 'inf 0 0')), [],
                   "two_bone_ik: invalid parameter robot_description: joint 'joint2': <origin "
                   'xyz> is [inf, 0.0, 0.0]; expected finite values within +-1e+100'),
    'origin_1e308': (IK, _description(SCARA.replace('0.345 0 0', '1e308 1e308 0')), [],
                     "two_bone_ik: invalid parameter robot_description: joint 'flange_joint': "
                     '<origin xyz> is [1e+308, 1e+308, 0.0]; expected finite values within '
                     '+-1e+100'),
    'too_many_links': (IK, _description(with_fixed_links(SCARA, MAX_LINKS)), [],
                       f'two_bone_ik: invalid parameter robot_description: {MAX_LINKS + 5} '
                       f'<link> elements; at most {MAX_LINKS} are read'),
    'params_file_not_utf8': (IK, _not_utf8_file, [],
                             "two_bone_ik: cannot start: params file '{params}': not UTF-8: "
                             'byte 0xe9 at line 3, column 41'),
    'argument_not_utf8': (IK, None, ['-p', os.fsdecode(b'robot_description:=' + NOT_UTF8)],
                          'two_bone_ik: cannot start: command line argument 3: not UTF-8: '
                          'byte 0xe9 at line 1, column 36'),
    'sim_argument_not_utf8': (SIM, None, ['-p', os.fsdecode(b'robot_description:=' + NOT_UTF8)],
                              'two_bone_ik_sim: cannot start: command line argument 3: not '
                              'UTF-8: byte 0xe9 at line 1, column 36'),
    'sim_arm_params_file_not_utf8': (
        SIM, None, ['-p', 'arm_params_file:={tmp}/latin1.yaml'],
        "two_bone_ik_sim: invalid parameter arm_params_file: params file '{tmp}/latin1.yaml': "
        'not UTF-8: byte 0xe9 at line 3, column 41'),
}


@pytest.mark.parametrize('case', sorted(REFUSED))
def test_input_a_node_cannot_use_is_one_line_and_exit_2(domain, tmp_path, case):
    # Before: a cycle hung the node (no output, its memory growing); velocity nan started an
    # arm without a velocity limit; inf and 1e308 origins printed numpy RuntimeWarnings before
    # the line; 1005 links were parsed however long it took; text that is not UTF-8 was a
    # 29-line UnicodeDecodeError or UnicodeEncodeError traceback and exit code 1.
    module, parameters, ros_args, expected = REFUSED[case]
    params = None
    if callable(parameters):
        params = parameters(tmp_path)
    elif parameters is not None:
        params = write_params(tmp_path / 'hostile.yaml', parameters)
    if case.startswith('sim_arm_params_file'):
        _not_utf8_file(tmp_path)
    ros_args = [arg.replace('{tmp}', str(tmp_path)) for arg in ros_args]
    process = NodeProcess(module, params_file=params, ros_args=ros_args, domain_id=domain,
                          log_dir=tmp_path, name=case).start()
    assert process.wait() == EXIT_BAD_CONFIG, process.output()
    assert process.stdout == '', process.output()
    assert process.stderr.splitlines() == [
        expected.format(params=params, tmp=tmp_path)], process.output()


def test_a_padded_20_mb_description_from_a_params_file_starts(domain, tmp_path):
    # PyYAML's pure-Python scanner read this file in 22-66 s before rcl did, so the node took
    # over a minute to start; with libyaml it is ready in seconds.
    padding = '<!--' + 'padding ' * (20 * 1024 * 1024 // 8) + '-->'
    params = write_params(tmp_path / 'padded.yaml', _description(with_elements(SCARA, padding)))
    assert params.stat().st_size > 20e6
    with NodeProcess(IK, params_file=params, domain_id=domain, log_dir=tmp_path,
                     name='padded') as process:
        wait_until(lambda: 'ready: arm from its URDF' in process.stderr, what='the ready line',
                   processes={'node': process})
