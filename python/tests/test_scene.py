"""Scenes from files, dicts, JSON text and code give the same simulation, bit for bit."""

import json

import numpy as np
import pytest

import concord


def incline_in_code():
    """scenes/incline.json, written with the builder API."""
    s = concord.Scene(name="incline", time_step=0.01, frames=100)
    s.contact.dhat = 1e-3
    s.contact.friction = 0.0
    s.add_material("block", density=1000, youngs_modulus=1e9)
    s.add_plane(point=(0, 0, 0), normal=(0.3420201433256687, 0.9396926207859084, 0))
    tilt = concord.axis_angle((0, 0, 1), -20)
    for name, mu, z in (("sticky", 0.5, -0.3), ("slippery", 0.1, 0.3)):
        s.add_body(concord.Shape.box((0.2, 0.2, 0.2)), name=name, material="block", friction=mu,
                   rotation=tilt, position=(0.0343730244, 0.0944391084, z))
    return s


def test_built_scene_resolves_to_the_file_scene(root):
    loaded = concord.load_scene(str(root / "scenes/incline.json"))
    assert loaded.source_path.endswith("incline.json")
    assert incline_in_code().resolved().to_dict() == loaded.to_dict()


def test_built_scene_steps_bit_exactly_like_the_json_file(root):
    from_file = concord.World(str(root / "scenes/incline.json"))
    from_code = concord.World(incline_in_code())
    for _ in range(4):
        from_file.step(3)
        from_code.step(3)
        # Exact equality, not a tolerance: the same scene must give the same bits.
        assert np.array_equal(from_file.q, from_code.q)
        assert np.array_equal(from_file.q_dot, from_code.q_dot)
    assert from_file.time == from_code.time
    # The steps did something: the slippery block has slid.
    assert not np.array_equal(from_file.q[1], concord.World(incline_in_code()).q[1])
    assert from_file.last_stats.contacts > 0


def test_dict_and_json_text_load_like_the_file(root):
    path = root / "scenes/incline.json"
    text = path.read_text()
    worlds = [concord.World(str(path)), concord.World(json.loads(text)),
              concord.World(concord.scene_from_dict(json.loads(text))),
              concord.World(concord.scene_from_json(text)), concord.World(path)]
    for w in worlds:
        w.step(5)
    for w in worlds[1:]:
        assert np.array_equal(w.q, worlds[0].q)


def test_dict_accepts_numpy_vectors():
    d = {"bodies": [{"shape": {"box": {"size": np.array([1.0, 2.0, 3.0])}},
                     "position": np.array([0, 5, 0], dtype=np.int64)}]}
    s = concord.scene_from_dict(d)
    assert s.body(0).shape.size.tolist() == [1, 2, 3]
    assert s.body(0).position.tolist() == [0, 5, 0]
    assert s.body(0).name == "body_0"


def test_scene_round_trips_through_to_dict_and_pickle(root):
    import pickle
    s = concord.load_scene(str(root / "scenes/box-stack.json"))
    again = concord.scene_from_dict(s.to_dict())
    assert again.to_dict() == s.to_dict()
    assert pickle.loads(pickle.dumps(s)).to_dict() == s.to_dict()


def test_builder_details():
    s = concord.Scene()
    s.add_body(concord.Shape.sphere(0.1), position=(0, 1, 0), velocity=(1, 0, 0))
    s.add_body(concord.Shape.box(), motion="static", position=(0, -1, 0))
    s.add_body(concord.Shape.box((0.1, 0.1, 0.1)), motion=concord.MotionType.kinematic,
               position=(3, 0, 0), kinematic={"linear_velocity": (0, 0, 1)})
    assert [b.name for b in s.bodies] == ["body_0", "body_1", "body_2"]
    assert s.body("body_2").kinematic.pivot.tolist() == [3, 0, 0]
    assert s.body(-1).motion == concord.MotionType.kinematic
    s.solver.max_iterations = 7          # edited in place
    assert s.solver.max_iterations == 7
    s.gravity = (0, 0, -9.81)
    assert s.gravity.tolist() == [0, 0, -9.81]
    w = concord.World(s)
    assert w.body_names == ["body_0", "body_1", "body_2"]
    assert w.solver_params.max_iterations == 7
    info = w.body_info("body_0")
    assert info["motion"] == concord.MotionType.dynamic
    assert info["mass"] > 0
    with pytest.raises(concord.InputError, match=r"bodies\[3\]\.velocity: only dynamic"):
        s.add_body(concord.Shape.box(), motion="static", velocity=(1, 0, 0))
    with pytest.raises(concord.InputError, match=r'duplicate body name "body_0"'):
        s.add_body(concord.Shape.box(), name="body_0")
    with pytest.raises(concord.InputError, match=r'unknown material "steel"'):
        s.add_body(concord.Shape.box(), material="steel")
