"""Tests of two_bone_ik.client.teleop_screen: the key names and the screen's text.

The curses terminal itself is tested in a real terminal, in test_nodes_teleop_command.
"""

import curses

from two_bone_ik.client.ik_answer import answer_from_status
from two_bone_ik.client.teleop_keys import Jog, key_help
from two_bone_ik.client.teleop_screen import key_name, screen_lines, ToolPoints


def test_key_names():
    assert [key_name(code) for code in (curses.KEY_UP, curses.KEY_DOWN, curses.KEY_LEFT,
                                        curses.KEY_RIGHT, curses.KEY_PPAGE, curses.KEY_NPAGE,
                                        27)] == ['up', 'down', 'left', 'right', 'page_up',
                                                 'page_down', 'escape']
    assert [key_name(ord(c)) for c in 'w +-q'] == ['w', ' ', '+', '-', 'q']
    assert key_name(curses.KEY_F1) is None and key_name(3) is None and key_name(200) is None


def test_before_any_status():
    lines = screen_lines(Jog(0.02, 0.2), '/arm/target_twist', '/arm/ik_status', None, None)
    assert lines[:5] == ['two_bone_ik_teleop: twists on /arm/target_twist',
                         'speed: 0.020 m/s, 0.200 rad/s',
                         'sending: nothing',
                         'status: none yet on /arm/ik_status',
                         'reachable: unknown']
    assert lines[5] == 'tool point (m): commanded unknown, measured unknown'
    assert lines[6:8] == ['', 'keys:']
    assert '\n'.join(lines[8:]) + '\n' == key_help()


def test_moving_with_a_status():
    jog = Jog(0.02, 0.2)
    jog.key('k', 0.0)
    answer = answer_from_status(1, 'OUT_OF_REACH: target 0.157 m beyond reach (0.550 m), arm '
                                'stretched toward it', {'code': '1', 'status': 'OUT_OF_REACH'})
    lines = screen_lines(jog, '/target_twist', '/ik_status', answer, False,
                         (0, 0, 0, 0, -0.2, 0), width=200)
    assert lines[2] == 'sending: pitch: angular.y - (angular.y -0.200)'
    assert lines[3] == ('status: OUT_OF_REACH: target 0.157 m beyond reach (0.550 m), arm '
                        'stretched toward it [code 1, WARN]')
    assert lines[4] == 'reachable: no'
    narrow = screen_lines(jog, '/target_twist', '/ik_status', answer, True, width=40)
    status = narrow[3:narrow.index('reachable: yes')]
    assert len(status) > 1 and all(len(line) <= 39 for line in status)
    assert ' '.join(line.strip() for line in status) == lines[3]


def test_the_measured_tool_point_beside_the_commanded_one():
    jog = Jog(0.02, 0.2)
    answer = answer_from_status(0, 'REACHED: tip on the target', {
        'code': '0', 'status': 'REACHED', 'tool_point': '[0.400000, 0.200000, 0.000000]',
        'measured_tool_point': '[0.398123, 0.201456, 0.000000]', 'arrival': 'MOVING'})
    lines = screen_lines(jog, '/target_twist', '/ik_status', answer, True)
    assert lines[5] == ('tool point (m): commanded (0.400, 0.200, 0.000), measured '
                        '(0.398, 0.201, 0.000) [MOVING]')
    # A later motion_status's points (the teleop passes whichever came last).
    later = ToolPoints((0.4, 0.2, 0.0), (0.4001, 0.2, 0.0), 'ARRIVED')
    assert screen_lines(jog, '/t', '/s', answer, True, points=later)[5] == (
        'tool point (m): commanded (0.400, 0.200, 0.000), measured (0.400, 0.200, 0.000) '
        '[ARRIVED]')
    unmeasured = answer_from_status(0, 'REACHED: x', {
        'code': '0', 'tool_point': '[0.4, 0.2, 0.0]', 'measured_tool_point': 'unknown',
        'arrival': 'none'})
    assert screen_lines(jog, '/t', '/s', unmeasured, True)[5] == (
        'tool point (m): commanded (0.400, 0.200, 0.000), measured unknown')
