#!/usr/bin/env python3
"""Throughput and modelled distributed speed-up of the fluid (issue 16, docs/benchmarks.md).

Runs a fluid scene on one machine and with N in-process workers (each with --threads 1 unless
--threads says otherwise) and prints a Markdown table: particle-steps per second of the single
machine (stats.fluid: particles x fluid steps / t_fluid), the split of its fluid time, and per
worker count the modelled parallel time per frame (stats.t_parallel: the slowest worker between
every two exchanges, the bodies' consensus included) against the single machine's t_frame.

  scripts/bench_fluid.py bench/scenes/dam-break-100k.json --frames 10 --workers 2 4

The single machine and the workers run minutes apart here, and this machine's speed drifts
between them: for the speed-up, `scripts/bench_distributed.py paired` (both stepped in turn in
one process, on one CPU) gives steadier ratios (docs/benchmarks.md, "Fluids").
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run(concord, scene, frames, threads, workers, out):
    cmd = [concord, "run", scene, "--out", out, "--frames", str(frames), "--threads", str(threads), "--force"]
    if workers > 1:
        cmd += ["--workers", str(workers)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    lines = [json.loads(l) for l in open(os.path.join(out, "frames.jsonl"))][1:]
    return [l["stats"] for l in lines]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scene")
    p.add_argument("--frames", type=int, default=10)
    p.add_argument("--workers", type=int, nargs="+", default=[2, 4])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--concord", default=os.path.join(os.path.dirname(__file__), "..", "build", "apps", "concord", "concord"))
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        one = run(a.concord, a.scene, a.frames, a.threads, 1, os.path.join(tmp, "one"))
        f = [s["fluid"] for s in one]
        steps = sum(x["substeps"] for x in f)
        t_fluid = sum(x["t_fluid"] for x in f)
        t_frame = sum(s["t_frame"] for s in one) / len(one)
        # Frame 1 holds one-time work (first touch of every buffer: page faults; the boundary's
        # grid), 3-4 times a later frame on one machine: the ratios are also given without it.
        t_steady = sum(s["t_frame"] for s in one[1:]) / max(1, len(one) - 1)
        print("scene %s, %d frames, --threads %d" % (a.scene, a.frames, a.threads))
        print()
        print("| run | particle-steps/s | t per frame (s) | modelled speed-up | frames 2+: t per frame (s) | speed-up | neighbours | pressure | coupling | pressure it. / fluid step |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        print("| one machine | %.0f k | %.3f (t_frame) | 1 | %.3f | 1 | %.0f %% | %.0f %% | %.0f %% | %.2f |" % (
            f[0]["particles"] * steps / t_fluid / 1e3, t_frame, t_steady,
            100 * sum(x["t_neighbors"] for x in f) / t_fluid, 100 * sum(x["t_pressure"] for x in f) / t_fluid,
            100 * sum(x["t_coupling"] for x in f) / t_fluid, sum(x["pressure_iterations"] for x in f) / steps))
        for n in a.workers:
            many = run(a.concord, a.scene, a.frames, a.threads, n, os.path.join(tmp, "w%d" % n))
            t_par = sum(s["t_parallel"] for s in many) / len(many)
            t_par_steady = sum(s["t_parallel"] for s in many[1:]) / max(1, len(many) - 1)
            g = [s["fluid"] for s in many]
            assert sum(x["substeps"] for x in g) == steps, "the distributed run took other fluid steps"
            print("| %d workers | | %.3f (t_parallel) | %.2fx | %.3f | **%.2fx** | | | | %.2f |" % (
                n, t_par, t_frame / t_par, t_par_steady, t_steady / t_par_steady,
                sum(x["pressure_iterations"] for x in g) / steps))


if __name__ == "__main__":
    sys.exit(main())
