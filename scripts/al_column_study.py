#!/usr/bin/env python3
"""Do dropped, offset columns of crates come to rest? (issue 17 item 5)

    scripts/al_column_study.py [--concord build/apps/concord/concord] [--work DIR] [--jobs 2]
                               [--heights 10,20] [--seeds 0,1,2,3,4,5] [--frames 400]
                               [--spacing 0.209] [--jitter 0.004] [--set contact.key=VALUE ...]
                               [--env NAME=VALUE ...]

Builds columns from scenes/box-stack.json (0.2 m crates, friction 0.3, h = 0.01 s): every crate
is moved by `array.jitter.position` (default 4 mm, seed per column) and the crates start
`spacing - 0.2` apart (default 9 mm), so that they fall onto each other. The contact model is
`augmented_lagrangian` unless --set says otherwise (--set contact.model=barrier). Each column
runs with one thread (two columns at a time with --jobs 2) and is classified by the largest body
speed over its last 50 frames (a body's speed: |dp| + 0.1 |dA|_F, per frame time):

    rest   below 1e-6 m/s        creep  below 1 mm/s
    cycle  below 5 cm/s          ROCK   above            fell  the top crate below 20 % of its height

It also prints the mean Newton iterations per step after frame 50. Columns of 10 crates with seed
0 are the eleventh pass's "10 offset, 9 mm drops" (docs/benchmarks.md). Python standard library
only; outputs stay in --work (default /tmp/concord-al-columns).
"""
import argparse
import concurrent.futures
import json
import math
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent


def int_list(text):
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers separated by commas, got {text!r}")
    if any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected non-negative integers, got {text!r}")
    return values


def parse_value(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def column_scene(height, seed, args):
    scene = json.loads((REPO / "scenes" / "box-stack.json").read_text())
    scene["frames"] = args.frames
    scene["contact"]["model"] = "augmented_lagrangian"
    array = scene["bodies"][0]["array"]
    array["count"] = [1, height, 1]
    array["spacing"] = [0, args.spacing, 0]
    array["jitter"] = {"position": args.jitter, "seed": seed}
    for section, name, value in args.overrides:
        scene.setdefault(section, {})[name] = value
    return scene


def body_speeds(frames):
    speeds = []
    for a, b in zip(frames, frames[1:]):
        dt = b["time"] - a["time"]
        v = 0.0
        for qa, qb in zip(a["q"], b["q"]):
            dp = math.dist(qa[:3], qb[:3])
            da = math.dist(qa[3:12], qb[3:12]) * 0.1
            v = max(v, (dp + da) / dt)
        speeds.append(v)
    return speeds


def classify(frames):
    speeds = body_speeds(frames)
    last = max(speeds[-50:])
    top_start = frames[0]["q"][-1][1]
    top_end = frames[-1]["q"][-1][1]
    if top_end < 0.2 * top_start:
        label = "fell"
    elif last < 1e-6:
        label = "rest"
    elif last < 1e-3:
        label = "creep"
    elif last < 5e-2:
        label = "cycle"
    else:
        label = "ROCK"
    newton = [f["stats"]["newton_iterations"] for f in frames[51:]]
    return label, last, sum(newton) / max(1, len(newton))


def run_column(height, seed, args, env):
    name = f"col{height}-seed{seed}"
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    scene_path = work / f"{name}.json"
    scene_path.write_text(json.dumps(column_scene(height, seed, args), indent=1))
    out = work / name
    cmd = [args.concord, "run", str(scene_path), "--out", str(out), "--force", "--threads", "1"]
    with open(work / f"{name}.log", "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env).returncode
    if rc != 0:
        return name, f"exit {rc}", float("nan"), float("nan")
    frames = [json.loads(line) for line in (out / "frames.jsonl").read_text().splitlines()]
    return (name, *classify(frames))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--concord", default=str(REPO / "build" / "apps" / "concord" / "concord"))
    p.add_argument("--work", default="/tmp/concord-al-columns")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--heights", type=int_list, default=[10, 20])
    p.add_argument("--seeds", type=int_list, default=[0, 1, 2, 3, 4, 5])
    p.add_argument("--frames", type=int, default=400)
    p.add_argument("--spacing", type=float, default=0.209)
    p.add_argument("--jitter", type=float, default=0.004)
    p.add_argument("--set", action="append", default=[], help="section.key=JSON value, e.g. contact.friction_velocity=0.01")
    p.add_argument("--env", action="append", default=[], help="NAME=VALUE for the concord processes")
    args = p.parse_args()
    args.overrides = []
    for assignment in args.set:
        key, _, value = assignment.partition("=")
        section, _, name = key.partition(".")
        if not name or not value:
            sys.exit(f"--set {assignment}: expected section.key=value")
        args.overrides.append((section, name, parse_value(value)))
    if args.frames < 60:
        sys.exit("--frames: at least 60 (the classification reads the last 50 frames)")
    env = dict(os.environ)
    for assignment in args.env:
        name, _, value = assignment.partition("=")
        env[name] = value
    columns = [(h, s) for h in args.heights for s in args.seeds]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda c: run_column(c[0], c[1], args, env), columns))
    settled = 0
    for name, label, speed, newton in results:
        print(f"{name:16s} {label:6s} largest speed over the last 50 frames {speed:.2e} m/s, "
              f"Newton per step after frame 50 {newton:.1f}")
        settled += label in ("rest", "creep")
    print(f"at rest or creeping: {settled} of {len(results)}")


if __name__ == "__main__":
    main()
