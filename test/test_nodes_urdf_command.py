"""Tests of two_bone_ik.nodes.urdf_command: the ``two_bone_ik_urdf`` command line tool."""

import os
from pathlib import Path
import subprocess
import sys

import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.params_file import load_arm_config
from two_bone_ik.arm.urdf_export import arm_urdf
from two_bone_ik.nodes.urdf_command import default_controllers_file, main

REPO = Path(__file__).resolve().parents[1]


def test_cli_prints_urdf_for_params_file(capsys):
    path = REPO / 'config' / 'servo_arm.yaml'
    assert main(['--params-file', str(path)]) == 0
    assert capsys.readouterr().out == arm_urdf(load_arm_config(path))


def test_cli_output_file_and_options(tmp_path, capsys):
    out = tmp_path / 'arm.urdf'
    assert main(['--robot-name', 'r2', '--link-radius', '0.01', '--output', str(out)]) == 0
    assert capsys.readouterr().out == ''
    assert out.read_text() == arm_urdf(ArmConfig(), robot_name='r2', link_radius=0.01)


def test_cli_reads_wildcard_section(tmp_path, capsys):
    params = tmp_path / 'arm.yaml'
    params.write_text('/**:\n  ros__parameters:\n    link_lengths: [0.5, 0.5]\n    plane: yz\n')
    assert main(['--params-file', str(params)]) == 0
    expected = arm_urdf(ArmConfig(link_lengths=(0.5, 0.5), plane='yz'))
    assert capsys.readouterr().out == expected


def test_cli_bad_config_is_one_readable_line(tmp_path, capsys):
    params = tmp_path / 'bad.yaml'
    params.write_text('two_bone_ik:\n  ros__parameters:\n    link_lengths: [0.3, -0.1]\n')
    assert main(['--params-file', str(params)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ''
    assert captured.err.startswith('two_bone_ik_urdf: error: link_lengths')
    assert captured.err.count('\n') == 1
    assert main(['--params-file', str(tmp_path / 'missing.yaml')]) == 1
    assert 'missing.yaml' in capsys.readouterr().err


def test_cli_text_that_is_not_utf8_is_one_line(tmp_path, capsys):
    # A params file that is not UTF-8 was a one-line codec message naming no file; an argument
    # that is not (Python holds its bytes as lone surrogates) a UnicodeEncodeError traceback
    # once the URDF was written.
    params = tmp_path / 'latin1.yaml'
    params.write_bytes(b'/**:\n  ros__parameters:\n    joint_names: [caf\xe9, b]\n')
    assert main(['--params-file', str(params)]) == 1
    assert capsys.readouterr() == ('', f"two_bone_ik_urdf: error: params file '{params}': not "
                                       'UTF-8: byte 0xe9 at line 3, column 22\n')
    out = tmp_path / 'arm.urdf'
    assert main(['--robot-name', os.fsdecode(b'caf\xe9'), '-o', str(out)]) == 1
    assert capsys.readouterr() == ('', 'two_bone_ik_urdf: error: command line argument 1: not '
                                       'UTF-8: byte 0xe9 at line 1, column 4\n')
    assert not out.exists()


def test_cli_as_a_process(tmp_path):
    # What `two_bone_ik_urdf --params-file config/two_bone_ik.yaml > arm.urdf` runs.
    params = REPO / 'config' / 'two_bone_ik.yaml'
    command = [sys.executable, '-m', 'two_bone_ik.nodes.urdf_command', '--params-file',
               str(params)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path,
                            env={**os.environ, 'PYTHONPATH': str(REPO)})
    assert result.returncode == 0, result.stderr
    assert result.stdout == arm_urdf(load_arm_config(params))


def test_cli_picks_the_named_nodes_section(tmp_path, capsys):
    params = tmp_path / 'two_arms.yaml'
    params.write_text(
        '/left_arm/two_bone_ik:\n  ros__parameters:\n    link_lengths: [0.5, 0.5]\n'
        '/right_arm/two_bone_ik:\n  ros__parameters:\n    link_lengths: [0.2, 0.1]\n')
    assert main(['--params-file', str(params), '--node-name', '/right_arm/two_bone_ik']) == 0
    assert capsys.readouterr().out == arm_urdf(ArmConfig(link_lengths=(0.2, 0.1)))
    # No section for the default /two_bone_ik: the default arm, and a warning naming the keys.
    assert main(['--params-file', str(params)]) == 0
    captured = capsys.readouterr()
    assert captured.out == arm_urdf(ArmConfig())
    assert captured.err.startswith('two_bone_ik_urdf: warning: params file')
    assert '/left_arm/two_bone_ik, /right_arm/two_bone_ik' in captured.err


def test_cli_ros2_control_mock(capsys):
    assert main(['--ros2-control', 'mock']) == 0
    captured = capsys.readouterr()
    assert captured.out == arm_urdf(ArmConfig(), ros2_control='mock')
    assert captured.err == ''


def test_cli_ros2_control_gazebo_with_a_controllers_file(tmp_path, capsys, monkeypatch):
    # A relative path is made absolute: Gazebo's plugin does not run in the caller's directory.
    controllers = tmp_path / 'controllers.yaml'
    controllers.write_text('c:\n  ros__parameters:\n    joints: [shoulder_joint, elbow_joint]\n')
    monkeypatch.chdir(tmp_path)
    assert main(['--ros2-control', 'gazebo', '--controllers-file', 'controllers.yaml']) == 0
    captured = capsys.readouterr()
    expected = arm_urdf(ArmConfig(), ros2_control='gazebo', controllers_file=str(controllers))
    assert captured.out == expected
    assert captured.err == ''


def test_cli_gazebo_defaults_to_the_shipped_controllers_file(capsys):
    assert default_controllers_file().endswith('config/ros2_controllers.yaml')
    assert Path(default_controllers_file()).is_file()
    assert main(['--ros2-control', 'gazebo']) == 0
    captured = capsys.readouterr()
    expected = arm_urdf(ArmConfig(), ros2_control='gazebo',
                        controllers_file=default_controllers_file())
    assert captured.out == expected
    assert captured.err == ''  # the shipped file is for the default arm's joints


def test_cli_warns_when_the_controllers_are_for_other_joints(capsys):
    # The servo arm's joints are shoulder_servo, elbow_servo; the shipped controllers name the
    # default arm's.
    params = REPO / 'config' / 'servo_arm.yaml'
    assert main(['--params-file', str(params), '--ros2-control', 'gazebo']) == 0
    captured = capsys.readouterr()
    assert '<ros2_control' in captured.out
    lines = captured.err.splitlines()
    assert lines == [
        f'two_bone_ik_urdf: warning: {default_controllers_file()}: {controller} controls '
        "shoulder_joint, elbow_joint, but the arm's joints are shoulder_servo, elbow_servo"
        for controller in ('forward_position_controller', 'joint_trajectory_controller')]


def test_cli_ros2_control_mistakes(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(['--ros2-control', 'gz'])
    assert exited.value.code == 2
    assert "invalid choice: 'gz' (choose from" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(['--ros2-control', 'mock', '--controllers-file', 'c.yaml'])
    assert exited.value.code == 2
    assert ('--controllers-file is only used with --ros2-control gazebo'
            in capsys.readouterr().err)
    missing = tmp_path / 'missing.yaml'
    assert main(['--ros2-control', 'gazebo', '--controllers-file', str(missing)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ''
    assert captured.err.startswith(f"two_bone_ik_urdf: error: params file '{missing}'")
