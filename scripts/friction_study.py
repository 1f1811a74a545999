#!/usr/bin/env python3
"""Friction's smoothing velocity eps_v against creep, Coulomb sliding and solver cost.

For each eps_v (contact.friction_velocity) it runs scenes/incline.json (a 20 degree incline
with a block at mu = 0.5 > tan 20 = 0.364, which must stick, and one at mu = 0.1, which must
slide with a = g (sin 20 - mu cos 20)) and reports:

  creep      the sticking block's mean speed along the slope over the second half of the run,
             mm/s (issue 17: below 1 mm/s);
  slide      the sliding block's acceleration fitted over t in [0.2 s, end] against Coulomb's,
             relative error (issue 17: within 5 %);

and, with --dense, the dense example scenes (turntable, drum) with the same eps_v: wall time,
Newton iterations per frame and frames at the iteration cap.

  python3 scripts/friction_study.py --concord build/apps/concord/concord --eps 1e-3,1e-2 --dense
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(concord, scene, eps, work, threads):
    with open(os.path.join(ROOT, "scenes", scene + ".json")) as f:
        spec = json.load(f)
    spec.setdefault("contact", {})["friction_velocity"] = eps
    # Meshes and other paths in the scene are relative to the scenes folder.
    path = os.path.join(ROOT, "scenes", f".friction-study-{scene}-{eps:g}.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    out = os.path.join(work, f"{scene}-{eps:g}")
    try:
        t0 = time.time()
        subprocess.run([concord, "run", path, "--out", out, "--force", "--threads", str(threads)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.time() - t0
    finally:
        os.remove(path)
    with open(os.path.join(out, "frames.jsonl")) as f:
        frames = [json.loads(line) for line in f]
    return spec, frames, wall


def fit_quadratic(ts, ss):
    """Least squares s = c0 + c1 t + c2 t^2 / 2; returns c2 (the acceleration)."""
    n = len(ts)
    # Normal equations of [1, t, t^2/2].
    cols = [[1.0] * n, ts, [t * t / 2 for t in ts]]
    A = [[sum(a * b for a, b in zip(ci, cj)) for cj in cols] for ci in cols]
    y = [sum(c * s for c, s in zip(ci, ss)) for ci in cols]
    # Gaussian elimination on the 3x3 system.
    for i in range(3):
        p = max(range(i, 3), key=lambda r: abs(A[r][i]))
        A[i], A[p], y[i], y[p] = A[p], A[i], y[p], y[i]
        for r in range(i + 1, 3):
            f = A[r][i] / A[i][i]
            A[r] = [a - f * b for a, b in zip(A[r], A[i])]
            y[r] -= f * y[i]
    x = [0.0] * 3
    for i in reversed(range(3)):
        x[i] = (y[i] - sum(A[i][j] * x[j] for j in range(i + 1, 3))) / A[i][i]
    return x[2]


def incline(concord, eps, work, threads):
    spec, frames, wall = run(concord, "incline", eps, work, threads)
    n = spec["planes"][0]["normal"]
    down = (n[1], -n[0], 0.0)  # in the slope, pointing down (the normal has no z part)
    g = -spec.get("gravity", [0, -9.81, 0])[1]
    theta = math.atan2(n[0], n[1])
    h = spec["time_step"]
    t = [f["time"] for f in frames]

    def along(body):
        p0 = frames[0]["q"][body][:3]
        return [sum((f["q"][body][k] - p0[k]) * down[k] for k in range(3)) for f in frames]

    names = [b["name"] for b in spec["bodies"]]
    stick, slide = names.index("sticky"), names.index("slippery")
    s = along(stick)
    half = len(frames) // 2
    creep = (s[-1] - s[half]) / (t[-1] - t[half]) * 1e3  # mm/s
    mu = spec["bodies"][slide]["friction"]
    exact = g * (math.sin(theta) - mu * math.cos(theta))
    first = next(i for i, ti in enumerate(t) if ti >= 0.2 - 1e-9)
    a = fit_quadratic(t[first:], along(slide)[first:])
    newton = [f["stats"]["newton_iterations"] for f in frames[1:]]
    return {"creep_mm_s": creep, "slide_a": a, "coulomb_a": exact,
            "slide_error": (a - exact) / exact, "newton_per_frame": sum(newton) / len(newton),
            "wall_s": wall, "h": h}


def dense(concord, scene, eps, work, threads):
    spec, frames, wall = run(concord, scene, eps, work, threads)
    cap = spec.get("solver", {}).get("max_iterations", 100)
    newton = [f["stats"]["newton_iterations"] for f in frames[1:]]
    return {"wall_s": wall, "newton_mean": sum(newton) / len(newton),
            "newton_median": statistics.median(newton),
            "at_cap": sum(1 for f in frames[1:] if f["stats"].get("stop_reason") == "max_iterations"),
            "cap": cap}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--concord", default=os.path.join(ROOT, "build/apps/concord/concord"))
    ap.add_argument("--eps", default="1e-4,1e-3,1e-2,1e-1", help="comma-separated eps_v values, m/s")
    ap.add_argument("--work", default="/tmp/friction-study")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dense", action="store_true", help="also run scenes/turntable.json and scenes/drum.json")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    values = [float(v) for v in args.eps.split(",")]

    print("| eps_v (m/s) | creep of the mu = 0.5 block (mm/s) | sliding a (m/s^2) | Coulomb a | error | incline Newton / frame |")
    print("|---|---|---|---|---|---|")
    for eps in values:
        r = incline(args.concord, eps, args.work, args.threads)
        print(f"| {eps:g} | {r['creep_mm_s']:.3g} | {r['slide_a']:.4f} | {r['coulomb_a']:.4f} | "
              f"{100 * r['slide_error']:+.2f} % | {r['newton_per_frame']:.1f} |", flush=True)
    if not args.dense:
        return 0
    print()
    print("| scene | eps_v (m/s) | wall s | Newton / frame (mean, median) | frames at the cap |")
    print("|---|---|---|---|---|")
    for scene in ("turntable", "drum"):
        for eps in values:
            r = dense(args.concord, scene, eps, args.work, args.threads)
            print(f"| {scene} | {eps:g} | {r['wall_s']:.1f} | {r['newton_mean']:.1f}, {r['newton_median']:g} | "
                  f"{r['at_cap']} (cap {r['cap']}) |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
