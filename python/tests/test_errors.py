"""Bad input raises concord.InputError (a ValueError) with the CLI's one-line messages."""

import pytest

import concord
from conftest import box_on_plane


def test_input_error_is_a_value_error():
    assert issubclass(concord.InputError, ValueError)


def test_unknown_key_in_a_dict_names_the_key_path():
    with pytest.raises(concord.InputError) as e:
        concord.World({"time_stp": 0.01})
    assert str(e.value).startswith("<dict>: time_stp: unknown key")


def test_bad_value_in_a_file_names_file_and_key(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"bodies": [{"shape": {"box": {"size": [1, -1, 1]}}}]}')
    with pytest.raises(concord.InputError) as e:
        concord.load_scene(str(path))
    assert str(e.value) == (f"{path}: bodies[0].shape.box.size: expected an array of 3 "
                            "positive numbers, got [1,-1,1]")


def test_invalid_json_text_reports_the_position():
    with pytest.raises(concord.InputError, match=r"^<json>: invalid JSON at column 10"):
        concord.scene_from_json('{"name": }')


def test_missing_file():
    with pytest.raises(concord.InputError, match="nope.json: cannot read file"):
        concord.World("nope.json")


def test_built_scene_is_checked_by_the_parser():
    s = concord.Scene()
    s.add_body(concord.Shape.box((1, -1, 1)))
    with pytest.raises(concord.InputError,
                       match=r"^<python scene>: bodies\[0\]\.shape\.box\.size: expected"):
        concord.World(s)
    s = box_on_plane()
    s.contact.dhat = -1
    with pytest.raises(concord.InputError, match=r"contact\.dhat"):
        s.validate()


def test_touching_bodies_are_named():
    s = box_on_plane(height=0.5)  # exactly on the plane
    with pytest.raises(concord.InputError, match="box"):
        concord.World(s)


def test_solver_params_out_of_range():
    w = concord.World(box_on_plane())
    p = w.solver_params
    p.max_iterations = -1
    with pytest.raises(concord.InputError, match=r"^solver\.max_iterations"):
        w.solver_params = p
    with pytest.raises(concord.InputError, match=r"solver\.line_search"):
        concord.SolverParams.from_dict({"line_search": "wolfe"})
    with pytest.raises(AttributeError, match="max_iteration"):
        concord.SolverParams(max_iteration=3)


def test_bad_state_and_shapes():
    w = concord.World(box_on_plane())
    s = w.capture_state()
    s.q[0, 0] = float("nan")
    with pytest.raises(concord.InputError, match="world state is not finite"):
        w.restore_state(s)
    with pytest.raises(ValueError, match=r"expected shape \(1, 12\)"):
        w.set_q([[1.0, 2.0]])
    with pytest.raises(IndexError):
        w.world_vertices(3)
    with pytest.raises(KeyError):
        w.world_vertices("nobody")


def test_set_joint_targets_checks_every_entry_before_changing_any():
    import pathlib
    scene = pathlib.Path(__file__).resolve().parents[2] / "scenes" / "robot-gripper.json"
    w = concord.World(str(scene))
    with pytest.raises(KeyError, match="no joint named"):
        w.set_joint_targets({"gripper.left": 0.05, "gripper.thumb": 0.0})
    with pytest.raises(concord.InputError, match="the target must be finite"):
        w.set_joint_targets({"gripper.left": 0.05, "gripper.right": float("nan")})
    w.step(60)  # the schedules still drive: nothing was replaced
    assert w.joint_positions[1] == pytest.approx(0.0, abs=1e-3)   # still open at t = 0.3 s
    assert w.joint_positions[0] < -0.05                          # lowering by its schedule
