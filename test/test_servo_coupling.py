"""Tests of coupled joints (``plus_joint``): a servo that sets the sum of two joint angles."""

import numpy as np
import pytest

from two_bone_ik.servo.coupling import Coupling, CouplingError

MEARM = ('base', 'shoulder', 'elbow', 'gripper')


def test_no_coupling_passes_angles_through():
    coupling = Coupling(MEARM, {})
    assert not coupling.coupled
    assert coupling.servo_angles({0: 0.1, 2: -0.3}, {0, 2}) == {0: 0.1, 2: -0.3}
    assert coupling.joint_angles({1: 0.2, 3: 0.5}) == {1: 0.2, 3: 0.5}
    assert coupling.servos_moved({3}) == {3}


def test_a_parallel_linkage_forearm_converts_both_ways():
    # MeArm: the elbow servo sets the forearm's angle from the horizontal, shoulder + elbow.
    coupling = Coupling(MEARM, {'elbow': 'shoulder', 'base': ''})
    assert coupling.coupled and coupling.plus == (None, None, 1, None)
    targets = {0: 0.2, 1: 0.7, 2: -1.1, 3: 0.05}
    servos = coupling.servo_angles(targets, {0, 1, 2, 3})
    assert servos == pytest.approx({0: 0.2, 1: 0.7, 2: 0.7 - 1.1, 3: 0.05})
    assert coupling.joint_angles(servos) == pytest.approx(targets)
    rng = np.random.default_rng(0)
    for q in rng.uniform(-3.0, 3.0, (200, 4)):
        joints = dict(enumerate(q.tolist()))
        back = coupling.joint_angles(coupling.servo_angles(joints, {0, 1, 2, 3}))
        assert back == pytest.approx(joints, abs=1e-12)


def test_moving_the_other_joint_moves_the_coupled_servo():
    coupling = Coupling(MEARM, {'elbow': 'shoulder'})
    assert coupling.servos_moved({1}) == {1, 2}
    assert coupling.servos_moved({2}) == {2}
    assert coupling.servos_moved({0, 3}) == {0, 3}
    # The elbow keeps its target -0.4 while the shoulder goes to 0.9: its servo goes to 0.5.
    assert coupling.servo_angles({1: 0.9, 2: -0.4}, {1, 2}) == pytest.approx({1: 0.9, 2: 0.5})
    # A servo whose sum has an unknown term is left out.
    assert coupling.servo_angles({1: 0.9}, {1, 2}) == {1: 0.9}


def test_a_reading_without_the_other_joint_leaves_the_coupled_joint_unknown():
    coupling = Coupling(MEARM, {'elbow': 'shoulder'})
    assert coupling.joint_angles({0: 0.1, 2: 0.5}) == {0: 0.1}


def test_a_chain_is_read_back_in_order():
    # c's servo adds b, b's servo adds a: read back a, then b, then c, whatever the order given.
    coupling = Coupling(('c', 'b', 'a'), {'c': 'b', 'b': 'a'})
    joints = {0: 0.3, 1: -0.2, 2: 0.5}
    servos = coupling.servo_angles(joints, {0, 1, 2})
    assert servos == pytest.approx({0: 0.1, 1: 0.3, 2: 0.5})
    assert coupling.joint_angles(servos) == pytest.approx(joints)
    assert coupling.servos_moved({2}) == {1, 2}


@pytest.mark.parametrize('plus, message', [
    ({'elbow': 'elbow'}, 'servos.elbow.plus_joint: a joint cannot be coupled to itself'),
    ({'elbow': 'wrist'}, r"servos.elbow.plus_joint: 'wrist' is not one of joints \(base, "
                         r'shoulder, elbow, gripper\)'),
    ({'elbow': 'shoulder', 'shoulder': 'elbow'},
     r'plus_joint: the joints are coupled in a circle \((shoulder -> elbow -> shoulder|elbow '
     r'-> shoulder -> elbow)\)'),
    ({'base': 'shoulder', 'shoulder': 'elbow', 'elbow': 'base'}, 'coupled in a circle'),
])
def test_bad_couplings_name_the_parameter(plus, message):
    with pytest.raises(CouplingError, match=message):
        Coupling(MEARM, plus)
