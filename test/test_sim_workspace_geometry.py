"""Tests of two_bone_ik.sim.workspace_geometry: the table and boxes in MuJoCo, contacts counted."""

from pathlib import Path

import numpy as np
import pytest

from two_bone_ik.arm.config import ArmConfig
from two_bone_ik.arm.desktop_geometry import arm_from_description
from two_bone_ik.arm.geometry import ArmGeometry
from two_bone_ik.sim.arm_sim import ArmSim
from two_bone_ik.sim.session import SimSession
from two_bone_ik.sim.simulated_arm import urdf_simulated_arm
from two_bone_ik.sim.workspace_geometry import SimWorkspace
from two_bone_ik.workspace.links import ArmLinks
from two_bone_ik.workspace.obstacles import obstacles_from_values

URDF = (Path(__file__).resolve().parents[1] / 'demo' / 'desktop_arm.urdf').read_text()
TABLE = obstacles_from_values({'floor_height': 0.0,
                               'keep_out_boxes': [0.2, -0.05, 0.0, 0.3, 0.05, 0.08]})


def _desktop_sim(radii=(0.02,) * 5, obstacles=TABLE):
    return ArmSim(urdf_simulated_arm(URDF, 'base_link', 'tool'), natural_frequency=6.0,
                  workspace=SimWorkspace(obstacles, tuple(radii)))


def _capsule_ends(sim, index):
    """World ends of link ``index``'s capsule (or its sphere's centre twice)."""
    model, data = sim.model, sim.data
    gid = model.geom(f'workspace_link_{index + 1}').id
    centre, axis = data.geom_xpos[gid], data.geom_xmat[gid].reshape(3, 3)[:, 2]
    half = model.geom_size[gid][1] if model.geom_type[gid] == 3 else 0.0  # 3: capsule
    return centre - half * axis, centre + half * axis


def test_each_capsule_is_the_ik_nodes_link_at_any_pose():
    sim = _desktop_sim()
    links = ArmLinks(arm_from_description(URDF, 'base_link', 'tool'), (0.02,) * 5)
    rng = np.random.default_rng(3)
    for _ in range(10):
        readings = rng.uniform(-1.0, 1.0, 5)
        sim.reset(readings)
        points = links.points(readings)
        for index in range(5):
            ends = _capsule_ends(sim, index)
            expected = (points[index], points[index + 1])
            gap = min(max(np.linalg.norm(ends[0] - expected[0]),
                          np.linalg.norm(ends[1] - expected[1])),
                      max(np.linalg.norm(ends[0] - expected[1]),
                          np.linalg.norm(ends[1] - expected[0])))
            assert gap <= 1e-9
            assert sim.model.geom_size[sim.model.geom(f'workspace_link_{index + 1}').id][
                0] == pytest.approx(0.02)


def test_a_planar_arm_from_parameters_gets_its_capsules_too():
    geometry = ArmGeometry.from_config(ArmConfig(link_lengths=(0.3, 0.25), plane='xz',
                                                 shoulder_position=(0.0, 0.0, 0.2)))
    sim = ArmSim(geometry, workspace=SimWorkspace(obstacles_from_values({'floor_height': 0.0}),
                                                  (0.02, 0.01)))
    links = ArmLinks(geometry, (0.02, 0.01))
    sim.reset((0.4, -0.9))
    points = links.points((0.4, -0.9))
    for index in range(2):
        ends = sorted(_capsule_ends(sim, index), key=lambda p: tuple(p))
        expected = sorted((np.array(points[index]), np.array(points[index + 1])),
                          key=lambda p: tuple(p))
        np.testing.assert_allclose(ends, expected, atol=1e-9)


def test_an_arm_pushed_into_a_box_touches_it_and_the_touch_is_counted():
    sim = _desktop_sim()
    session = SimSession(sim)
    assert sim.contacts.active and sim.model.npair == 5 * 2
    sim.command([0.0, -0.4, 0.2, 0.2, 0.0])
    sim.advance(1.0)
    assert sim.contacts.contacts == 0  # clear of everything
    sim.command([0.0, 1.2, 0.5, 0.8, 0.0])  # down into the box
    sim.advance(2.0)
    contacts = sim.contacts
    assert contacts.contacts >= 1 and contacts.steps > 100 and contacts.deepest > 0.0
    assert contacts.last.startswith('workspace_link_') and 'workspace_box_1' in contacts.last
    assert sim.tip_position[2] > 0.08  # the box held the arm up: the contact is real
    report = session.diagnostics()
    values = dict(report.values)
    assert report.level == 1 and 'contact(s) of the arm with the floor or a box' in report.message
    assert values['table_contacts'] == str(contacts.contacts)
    assert session.diagnostics().level == 0  # reported once


def test_a_link_of_no_radius_has_no_capsule_and_without_obstacles_nothing_is_added():
    sim = _desktop_sim(radii=(0.0, 0.02, 0.02, 0.02, 0.01))
    names = [sim.model.geom(i).name for i in range(sim.model.ngeom)]
    assert 'workspace_link_1' not in names and 'workspace_link_2' in names
    assert 'workspace_floor' in names and 'workspace_box_1' in names
    plain = ArmSim(urdf_simulated_arm(URDF, 'base_link', 'tool'))
    empty = _desktop_sim(obstacles=obstacles_from_values({}))
    assert (empty.model.ngeom, empty.model.npair) == (plain.model.ngeom, 0)
    assert not empty.contacts.active and not plain.contacts.active
    assert 'table_contacts' not in dict(SimSession(plain).diagnostics().values)
