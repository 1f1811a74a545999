"""numpy views of the state, world vertices, capture/restore."""

import pickle

import numpy as np
import pytest

import concord
from conftest import box_on_plane


def test_q_is_a_live_read_only_view():
    w = concord.World(box_on_plane(height=0.7))
    q = w.q
    assert q.shape == (1, 12) and q.dtype == np.float64
    assert not q.flags.writeable and not q.flags.owndata
    start = q.copy()
    np.testing.assert_array_equal(start[0], [0, 0.7, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1])
    w.step(3)
    # The same array object now shows the new state (no copy was taken).
    assert q[0, 1] < start[0, 1]
    np.testing.assert_array_equal(q, w.q)
    assert q.ctypes.data == w.q.ctypes.data
    assert w.q_dot[0, 1] < 0  # falling
    with pytest.raises(ValueError):
        q[0, 0] = 1.0
    del w  # the view keeps the world alive
    assert q[0, 1] < start[0, 1]


def test_world_vertices_are_p_plus_A_X():
    w = concord.World(box_on_plane(height=0.7))
    w.step(2)
    X, faces = w.mesh(0)
    assert X.shape == (8, 3) and faces.shape == (12, 3)
    x = w.world_vertices("box")
    assert x.shape == (8, 3) and x.flags.owndata is False  # handed over, not copied
    p, A = w.q[0, :3], w.q[0, 3:].reshape(3, 3)
    np.testing.assert_allclose(x, p + X @ A.T, rtol=0, atol=1e-15)


def test_capture_restore_repeats_steps_bit_for_bit():
    w = concord.World(box_on_plane(height=0.52))
    w.step(2)
    saved = w.capture_state()
    w.step(10)
    after = w.q.copy(), w.q_dot.copy(), w.time
    w.restore_state(saved)
    assert w.time == saved.time and np.array_equal(w.q, saved.q)
    w.step(10)
    assert np.array_equal(w.q, after[0]) and np.array_equal(w.q_dot, after[1])
    assert w.time == after[2]
    assert w.capture_state() == w.capture_state()
    assert not (w.capture_state() == saved)


def test_state_views_are_writeable_and_restore_moves_the_world():
    w = concord.World(box_on_plane(height=0.7))
    s = w.capture_state()
    view = s.q
    assert view.flags.writeable
    view[0, 1] = 2.0                      # writes into the WorldState itself
    assert s.q[0, 1] == 2.0
    s.q_dot = np.zeros((1, 12))
    w.restore_state(s)
    assert w.q[0, 1] == 2.0
    copy = pickle.loads(pickle.dumps(s))
    assert copy == s and copy is not s
    c2 = s.copy()
    c2.q[0, 1] = 3.0
    assert s.q[0, 1] == 2.0


def test_set_q_and_set_q_dot():
    w = concord.World(box_on_plane(height=0.7))
    q = w.q.copy()
    q[0, 1] = 1.5
    w.set_q(q)
    assert w.q[0, 1] == 1.5
    v = np.zeros((1, 12))
    v[0, 0] = 2.0
    w.set_q_dot(v)
    w.step()
    assert w.q[0, 0] > 0.019


def test_save_and_load_state(tmp_path):
    w = concord.World(box_on_plane(height=0.7))
    w.step(2)
    w.save_state(str(tmp_path / "s.bin"))
    q = w.q.copy()
    w.step(2)
    w.load_state(str(tmp_path / "s.bin"))
    assert np.array_equal(w.q, q)


def test_checkpoints_resume_bit_for_bit_and_match_the_cli(tmp_path, root):
    scene = str(root / "scenes" / "box-stack.json")
    w = concord.World(scene)
    w.step(6)
    w.save_checkpoint(str(tmp_path / "c.ckpt"))
    w.step(6)
    fresh = concord.World(scene)
    assert fresh.load_checkpoint(str(tmp_path / "c.ckpt")) == 6  # the frame (1 step a frame)
    fresh.step(6)
    assert np.array_equal(fresh.q, w.q) and np.array_equal(fresh.q_dot, w.q_dot)
    # A world of another scene refuses it; a damaged file is an InputError naming it.
    with pytest.raises(concord.InputError, match="another scene"):
        concord.World(box_on_plane(height=0.7)).load_checkpoint(str(tmp_path / "c.ckpt"))
    (tmp_path / "bad.ckpt").write_bytes((tmp_path / "c.ckpt").read_bytes()[:-3])
    with pytest.raises(concord.InputError, match="bad.ckpt"):
        fresh.load_checkpoint(str(tmp_path / "bad.ckpt"))


def test_elastic_body_views_and_modal_coordinates(root):
    # q shows the 12 affine numbers of every body; an elastic body's modes come separately,
    # and its vertices follow x = p + A (X + Phi eta).
    w = concord.World(str(root / "scenes" / "elastic-beams.json"))
    assert w.q.shape == (2, 12)
    eta = w.modal_coordinates("lower")
    assert eta.shape == (3,)
    w.step(5)
    eta = w.modal_coordinates("lower")
    assert np.abs(eta).max() > 0  # the clamped beam sags under its weight
    x = w.world_vertices("lower")
    X, _ = w.mesh("lower")
    p, A = w.q[0, :3], w.q[0, 3:].reshape(3, 3)
    assert np.abs(x - (p + X @ A.T)).max() > 0  # deformed, not just moved


def test_elastic_state_views_keep_the_modal_coordinates(root):
    # vertical-bar.json: a bar with 20 axial modes, more than 12, so a view that guessed the
    # bodies from the vector's length would show a row of modal coordinates as a body.
    w = concord.World(str(root / "scenes" / "vertical-bar.json"))
    w.step(3)
    B = w.q.shape[0]
    s = w.capture_state()
    assert s.num_bodies == B
    assert s.q.shape == (B, 12) and s.q_dot.shape == (B, 12)
    elastic = [b for b in range(B) if w.modal_coordinates(b).size > 0]
    eta = np.concatenate([w.modal_coordinates(b) for b in elastic])
    assert eta.size >= 12
    assert np.array_equal(s.modal_q, eta)
    assert s.modal_q_dot.shape == eta.shape

    # set_q with a (B, 12) array keeps the modal coordinates; a flat array sets everything.
    q = w.q.copy()
    w.set_q(q)
    assert np.array_equal(w.modal_coordinates(elastic[0]), eta[: w.modal_coordinates(elastic[0]).size])
    flat = np.concatenate([q.ravel(), eta + 1e-4])
    w.set_q(flat)
    assert np.allclose(w.modal_coordinates(elastic[0]), eta[: w.modal_coordinates(elastic[0]).size] + 1e-4)
    with pytest.raises(ValueError, match=r"expected shape \(%d, 12\) or" % B):
        w.set_q(np.zeros((B + 1, 12)))

    # The modal views write through, and the layout survives pickling.
    s.modal_q[0] += 1e-3
    w.restore_state(s)
    assert w.modal_coordinates(elastic[0])[0] == eta[0] + 1e-3
    copy = pickle.loads(pickle.dumps(s))
    assert copy.num_bodies == B and copy.bitwise_equal(s)


def test_fluid_particles_are_live_read_only_views(tmp_path):
    import json
    scene = {
        "time_step": 0.0025,
        "bodies": [{"name": "tank", "motion": "static", "position": [0, 0.09, 0],
                    "shape": {"container": {"size": [0.2, 0.2, 0.2], "wall_thickness": 0.02}}}],
        "fluids": [{"name": "water", "block": {"min": [-0.1, 0, -0.1], "max": [0.1, 0.1, 0.1]},
                    "particle_radius": 0.01}],
    }
    path = tmp_path / "fluid.json"
    path.write_text(json.dumps(scene))
    w = concord.World(str(path))
    n = w.num_fluid_particles
    assert n > 100
    x, v, p = w.fluid_x, w.fluid_v, w.fluid_pressure
    assert x.shape == (n, 3) and v.shape == (n, 3) and p.shape == (n,)
    assert not x.flags.writeable
    start = x.copy()
    w.step(60)  # the fluid falls onto the tank's floor (blocks start 1.6 r clear of it)
    assert np.abs(x - start).max() > 0  # the same arrays show the new state
    assert p.max() > 0 and v[:, 1].min() < 0
    s = w.capture_state()
    w.step(2)
    later = x.copy()
    w.restore_state(s)
    w.step(2)
    np.testing.assert_array_equal(x, later)
    assert pickle.loads(pickle.dumps(s)) == s  # the particles travel with the state
    assert concord.World(box_on_plane()).fluid_x.shape == (0, 3)


def test_a_distributed_run_of_a_fluid_scene_ends_where_one_machine_does(tmp_path):
    # World.run(workers=2): the fluid split over two in-process workers (docs/fluids.md
    # "Distributed"); the world takes the end state, particles included.
    import json
    scene = {
        "time_step": 0.0025,
        "bodies": [{"name": "tank", "motion": "static", "position": [0, 0.09, 0],
                    "shape": {"container": {"size": [0.2, 0.2, 0.2], "wall_thickness": 0.02}}},
                   {"name": "cork", "shape": {"box": {"size": [0.05, 0.05, 0.05]}},
                    "position": [0, 0.15, 0]}],
        "fluids": [{"name": "water", "block": {"min": [-0.1, 0, -0.1], "max": [0.1, 0.1, 0.1]},
                    "particle_radius": 0.01}],
    }
    path = tmp_path / "fluid.json"
    path.write_text(json.dumps(scene))
    one, two = concord.World(str(path)), concord.World(str(path))
    one.run(str(tmp_path / "one"), frames=4)
    two.run(str(tmp_path / "two"), frames=4, workers=2)
    assert two.time == one.time
    np.testing.assert_allclose(two.fluid_x, one.fluid_x, rtol=0, atol=1e-9)
    np.testing.assert_allclose(two.fluid_pressure, one.fluid_pressure, rtol=0, atol=1e-6)
    np.testing.assert_allclose(two.q[1], one.q[1], rtol=0, atol=1e-9)
