"""The examples run (short versions) and print what they promise."""

import os
import pathlib
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def run(script, *args, cwd):
    # The examples import the same concord as the tests, from any working directory.
    import concord
    env = dict(os.environ)
    package_parent = str(pathlib.Path(concord.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, str(EXAMPLES / script), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=True, timeout=300).stdout


def test_friction_sweep(tmp_path):
    out = run("friction_sweep.py", "--steps", "20", "--mu", "0.0", "0.5", cwd=tmp_path)
    rows = [line.split() for line in out.splitlines()[2:]]
    assert [r[0] for r in rows] == ["0.00", "0.50"]
    slide = {r[0]: float(r[1]) for r in rows}
    assert slide["0.00"] > 10 * abs(slide["0.50"])  # frictionless slides, mu 0.5 sticks


def test_contacts_plot_runs_with_or_without_matplotlib(tmp_path):
    out = run("contacts_plot.py", "--steps", "3", "--out", str(tmp_path), cwd=tmp_path)
    assert "total weight" in out
    assert ("skipping the plot" in out) or (tmp_path / "contacts.png").is_file()


def test_gripper_pick_lifts_the_cube(tmp_path):
    out = run("gripper_pick.py", cwd=tmp_path)
    assert "joints: gripper.lift, gripper.left, gripper.right" in out
    lifted = float(out.split("cube lifted by ")[1].split()[0])
    assert lifted > 0.1
