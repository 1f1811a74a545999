#!/usr/bin/env python3
"""Mutation campaign over the example scenes through the CLI (issue 18).

Each mutant is an example scene with 1-3 random, seeded changes (a number scaled, negated,
zeroed or made huge, a key deleted or added, a string or a type swapped, an array emptied or
an element duplicated), run as `concord run MUTANT --frames F --threads 1`. Every outcome must
be exit 0, or exit 2 with one line on stderr that starts with "concord:", within the time limit.
Anything else (a crash, another exit code, several error lines, a run over the limit) is listed
and the mutant kept in the artifacts folder to reproduce it.

  scripts/mutate_scenes.py --concord build/apps/concord/concord --count 300 --seed 1
"""
import argparse
import copy
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NUMBERS = [0, -1, 1, 0.5, -0.0, 1e-300, 1e308, -1e308, 1e9, 2**31, 2**53, 7]
STRINGS = ["", "x" * 300, "auto", "none", "box", "sphere", "mesh", "../../etc/passwd",
           "/dev/zero", "meshes/chair.obj", "robots/pendulum.urdf", "ü"]


def paths(node, prefix=()):
    """Every (path, value) in the JSON tree."""
    yield prefix, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, prefix + (i,))


def get_parent(root, path):
    node = root
    for p in path[:-1]:
        node = node[p]
    return node


def mutate_once(rng, scene):
    candidates = [p for p, _ in paths(scene) if p]
    path = rng.choice(candidates)
    parent = get_parent(scene, path)
    key = path[-1]
    value = parent[key]
    r = rng.random()
    if isinstance(value, bool):
        parent[key] = (not value) if r < 0.7 else rng.choice(NUMBERS)
    elif isinstance(value, (int, float)):
        if r < 0.3:
            parent[key] = rng.choice(NUMBERS)
        elif r < 0.6:
            parent[key] = value * rng.choice([-1, 10, 1e3, 1e6, 1e-3, 1e-6])
        elif r < 0.8:
            parent[key] = int(value) if isinstance(value, float) else value + rng.choice([-1, 1])
        else:
            parent[key] = rng.choice([None, "1", [value], {}])
    elif isinstance(value, str):
        parent[key] = rng.choice(STRINGS) if r < 0.8 else rng.choice(NUMBERS)
    elif isinstance(value, list):
        if r < 0.25 or not value:
            parent[key] = []
        elif r < 0.5:
            value.append(copy.deepcopy(rng.choice(value)))
        elif r < 0.75:
            del value[rng.randrange(len(value))]
        else:
            parent[key] = value * rng.choice([2, 50])
    elif isinstance(value, dict):
        if r < 0.4 and value:
            del value[rng.choice(list(value))]
        elif r < 0.6:
            value["unknown_key"] = 1
        else:
            parent[key] = rng.choice([None, [], 3, "x"])
    else:  # null
        parent[key] = rng.choice(NUMBERS)
    if isinstance(parent, dict) and rng.random() < 0.1:
        del parent[key]
    return "/".join(str(p) for p in path)


def classify(rc, stderr, seconds, limit):
    errors = [l for l in stderr.splitlines() if l.startswith("concord:")]
    if seconds > limit or rc in (-9, 124, 137):
        return "timeout"
    if rc == 0:
        return "ok"
    if rc == 2 and len(errors) == 1:
        return "error"
    return "FAIL"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--concord", default=os.path.join(ROOT, "build/apps/concord/concord"))
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--frames", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds a run may take")
    ap.add_argument("--artifacts", default=os.path.join(ROOT, "build", "mutants"))
    args = ap.parse_args()

    scenes = sorted(os.path.join(ROOT, "scenes", f) for f in os.listdir(os.path.join(ROOT, "scenes"))
                    if f.endswith(".json"))
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="concord_mutants_")
    for d in ("meshes", "robots"):  # relative paths of the scenes resolve as in scenes/
        os.symlink(os.path.join(ROOT, "scenes", d), os.path.join(work, d))
    counts = {"ok": 0, "error": 0, "timeout": 0, "FAIL": 0}
    slowest = (0.0, "")
    failures = []
    try:
        for i in range(args.count):
            source = scenes[i % len(scenes)]
            with open(source) as f:
                scene = json.load(f)
            changes = [mutate_once(rng, scene) for _ in range(rng.randint(1, 3))]
            mutant = os.path.join(work, f"mutant-{i:04d}.json")
            with open(mutant, "w") as f:
                json.dump(scene, f)
            cmd = [args.concord, "run", mutant, "--out", os.path.join(work, "out"), "--force",
                   "--frames", str(args.frames), "--threads", "1"]
            t0 = time.monotonic()
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout + 5)
                rc, err = p.returncode, p.stderr
            except subprocess.TimeoutExpired as e:
                rc, err = 124, (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            seconds = time.monotonic() - t0
            outcome = classify(rc, err, seconds, args.timeout)
            counts[outcome] += 1
            name = f"{os.path.basename(source)} #{i} ({', '.join(changes)})"
            if seconds > slowest[0]:
                slowest = (seconds, name)
            if outcome in ("timeout", "FAIL"):
                os.makedirs(args.artifacts, exist_ok=True)
                keep = os.path.join(args.artifacts, os.path.basename(mutant))
                shutil.copy(mutant, keep)
                last = [l for l in err.splitlines() if l.strip()][-3:]
                failures.append(f"{outcome}: {name}: exit {rc} after {seconds:.1f} s: {' | '.join(last)} -> {keep}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"mutate_scenes: {args.count} mutants of {len(scenes)} scenes (seed {args.seed}, "
          f"--frames {args.frames}): {counts['ok']} ran, {counts['error']} one-line exit 2, "
          f"{counts['timeout']} over {args.timeout:g} s, {counts['FAIL']} other; "
          f"slowest {slowest[0]:.1f} s ({slowest[1]})")
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
