"""The standard output directory, the distributed placeholder, and the GIL during steps."""

import json
import sys
import threading

import numpy as np
import pytest

import concord
from conftest import box_on_plane


def test_run_writes_the_output_directory(tmp_path):
    w = concord.World(box_on_plane(height=0.6, frames=50))
    out = tmp_path / "run"
    assert w.run(str(out), frames=3) == 3
    for name in ("scene.json", "bodies.json", "frames.jsonl", "meshes/box.obj"):
        assert (out / name).is_file()
    lines = [json.loads(line) for line in (out / "frames.jsonl").read_text().splitlines()]
    assert [f["frame"] for f in lines] == [0, 1, 2, 3]
    assert np.array_equal(np.array(lines[-1]["q"]), w.q)
    assert json.loads((out / "scene.json").read_text())["frames"] == 3
    with pytest.raises(concord.InputError):
        w.run(str(out), frames=1)  # not empty
    assert w.run(str(out), frames=1, force=True) == 1


def test_output_writer_frame_by_frame(tmp_path):
    w = concord.World(box_on_plane(height=0.6))
    writer = concord.OutputWriter(str(tmp_path / "o"))
    writer.write_header(w)
    writer.write_frame(w)
    writer.write_frame(w, w.step())
    assert writer.frames_written == 2
    assert len((tmp_path / "o" / "frames.jsonl").read_text().splitlines()) == 2


def test_distributed_run_writes_the_output_directory_with_admm_stats(root, tmp_path):
    w = concord.World(root / "scenes/box-stack.json")
    assert w.run(str(tmp_path / "d"), frames=2, workers=2) == 2
    lines = [json.loads(l) for l in (tmp_path / "d" / "frames.jsonl").read_text().splitlines()]
    assert len(lines) == 3
    assert lines[2]["stats"]["workers"] == 2 and lines[2]["stats"]["admm_iterations"] >= 1
    # The world takes the distributed run's end state.
    assert w.time == pytest.approx(lines[2]["time"])
    assert np.array_equal(w.q, np.array(lines[2]["q"]))
    with pytest.raises(concord.InputError, match="workers"):
        w.run(str(tmp_path / "e"), frames=1, workers=0)


def test_distributed_run_of_elastic_bodies_and_joints_keeps_the_modes(root, tmp_path):
    # gripper: elastic pads fixed to kinematic carriers; the world takes the end state, modes
    # included, and the rows of frames.jsonl carry them.
    w = concord.World(root / "scenes/gripper.json")
    assert w.run(str(tmp_path / "g"), frames=2, workers=2) == 2
    lines = [json.loads(l) for l in (tmp_path / "g" / "frames.jsonl").read_text().splitlines()]
    assert lines[2]["stats"]["workers"] == 2 and "joints" in lines[2]["stats"]
    pad = lines[2]["q"][1]
    assert len(pad) > 12
    assert np.array_equal(w.modal_coordinates(1), np.array(pad[12:]))
    assert np.array_equal(w.q[1], np.array(pad[:12]))


def test_the_gil_is_released_while_stepping(root):
    # With a 1 s switch interval a thread waiting for the GIL cannot get it from a thread that
    # holds it for less than that: the counter advances during step() only if step() releases
    # the GIL. The crate stack takes tens of milliseconds per step once the crates touch.
    w = concord.World(root / "scenes/box-stack.json")
    w.step(3)
    count = [0]
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            count[0] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    try:
        t = threading.Thread(target=counter)
        t.start()
        stop.wait(0.01)  # let the counter run; returns once the GIL comes back to us
        before = count[0]
        w.step(1)
        after = count[0]
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(old)
    assert after > before


def test_busy_world_refuses_a_second_thread(root):
    w = concord.World(root / "scenes/box-stack.json")
    errors = []
    started = threading.Event()

    def stepper():
        started.set()
        w.step(5)

    t = threading.Thread(target=stepper)
    t.start()
    started.wait()
    while t.is_alive():
        try:
            w.capture_state()
        except RuntimeError as e:
            errors.append(str(e))
            break
    t.join()
    assert errors and "busy" in errors[0]
