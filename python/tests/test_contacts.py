"""Contact reports: pairs, distances and normal forces at the current state."""

import numpy as np

import concord
from conftest import box_on_plane


def test_resting_box_contacts_carry_its_weight():
    w = concord.World(box_on_plane())
    w.step(60)
    r = w.contacts()
    assert len(r) == 4
    assert all(k == concord.ContactKind.point_plane for k in r.kinds)
    assert r.pairs.shape == (4, 2) and (r.pairs == [0, 0]).all()
    assert (r.distances > 0).all() and (r.distances < r.dhat).all()
    # Static balance: the normal forces add up to m g (1%, see contact_report_test.cpp).
    m = w.body_info(0)["mass"]
    assert abs(r.forces.sum() - m * 9.81) < 0.01 * m * 9.81
    np.testing.assert_allclose(r.barrier_forces, r.forces * r.time_step ** 2, rtol=1e-15)
    c = r[0]
    assert c.kind == concord.ContactKind.point_plane and c.distance == r.distances[0]
    assert [x.distance for x in r] == list(r.distances)


def test_no_contacts_in_free_flight():
    w = concord.World(box_on_plane(height=3.0))
    w.step(2)
    r = w.contacts()
    assert len(r) == 0 and r.forces.shape == (0,) and r.pairs.shape == (0, 2)
