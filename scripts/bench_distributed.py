#!/usr/bin/env python3
"""Benchmarks of the distributed solver (consensus ADMM), printed as markdown tables.

Runs the concord CLI on scene variants, reads each output's frames.jsonl and prints one table
per subcommand. The numbers in docs/benchmarks.md ("Distributed solver") come from
(C=build/apps/concord/concord):

    scripts/bench_distributed.py --concord $C --jobs 2 penalty      # Fig. 11-12: adapt on grid, beta = 1 ablations
    scripts/bench_distributed.py --concord $C --jobs 2 penalty --modes fixed-rho --all-betas
    scripts/bench_distributed.py --concord $C rules                 # mass / stiffness / fixed
    scripts/bench_distributed.py --concord $C scaling               # 1, 2, 4, 8 workers (+ MPI 1-worker ADMM)
    scripts/bench_distributed.py --concord $C mpi                   # mpirun -np 2 vs -np 3

Every run writes into --work (one directory per run, plus the variant scene and the log), so a
table can be re-printed from existing outputs with --reuse. Python 3 standard library only.

Why the variants are written as files: the CLI reads one scene; density, beta, adapt and
rescale_dual are scene keys, so each grid point is the base scene with those keys replaced.
Relative mesh paths are made absolute so the variant can live in --work.
"""

import argparse
import concurrent.futures
import copy
import json
import os
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUNNEL = os.path.join(ROOT, "bench", "scenes", "funnel-small.json")
SPHERES = os.path.join(ROOT, "scenes", "spheres-in-box.json")


def absolutise_files(node, base_dir):
    """Rewrites every "file" string (mesh paths) to an absolute path."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "file" and isinstance(value, str) and not os.path.isabs(value):
                node[key] = os.path.normpath(os.path.join(base_dir, value))
            else:
                absolutise_files(value, base_dir)
    elif isinstance(node, list):
        for value in node:
            absolutise_files(value, base_dir)


def deep_merge(dst, src):
    for key, value in src.items():
        if isinstance(value, dict) and isinstance(dst.get(key), dict):
            deep_merge(dst[key], value)
        else:
            dst[key] = value


EXTRA = {}  # --extra: JSON object merged into every variant scene


def write_variant(base, name, work, density=None, distributed=None, drop_distributed=False):
    with open(base) as f:
        scene = json.load(f)
    absolutise_files(scene, os.path.dirname(os.path.abspath(base)))
    deep_merge(scene, copy.deepcopy(EXTRA))
    if density is not None:
        # Every dynamic body's material gets the density; static bodies' mass plays no role.
        used = {b.get("material") for b in scene["bodies"] if b.get("motion", "dynamic") == "dynamic"}
        for m in used:
            scene["materials"][m]["density"] = density
    if drop_distributed:
        scene.pop("distributed", None)
    elif distributed:
        d = copy.deepcopy(scene.get("distributed", {}))
        for key, value in distributed.items():
            if isinstance(value, dict):
                d.setdefault(key, {}).update(value)
            else:
                d[key] = value
        scene["distributed"] = d
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(scene, f, indent=1)
    return path


def read_frames(out_dir):
    frames = []
    with open(os.path.join(out_dir, "frames.jsonl")) as f:
        for line in f:
            d = json.loads(line)
            if d.get("frame", 0) > 0 and "stats" in d:
                frames.append(d["stats"])
    return frames


def run_cli(args, cmd, name, reuse):
    """Runs one command (list) with a timeout; returns (out_dir, wall seconds, error or None)."""
    out_dir = os.path.join(args.work, name)
    log = os.path.join(args.work, name + ".log")
    done = os.path.join(args.work, name + ".done")
    if reuse and os.path.exists(done):
        with open(done) as f:
            info = json.load(f)
        return out_dir, info["wall"], info["error"]
    start = time.monotonic()
    error = None
    with open(log, "w") as lf:
        lf.write(" ".join(shlex.quote(c) for c in cmd) + "\n")
        lf.flush()
        try:
            p = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, timeout=args.timeout,
                               start_new_session=True)
            if p.returncode != 0:
                error = "exit %d" % p.returncode
        except subprocess.TimeoutExpired:
            error = "timeout %gs" % args.timeout
    wall = time.monotonic() - start
    with open(done, "w") as f:
        json.dump({"wall": wall, "error": error, "cmd": cmd}, f)
    return out_dir, wall, error


def concord_run(args, scene, name, workers=None, extra=()):
    cmd = [args.concord, "run", scene, "--out", os.path.join(args.work, name), "--force"]
    if args.frames is not None:
        cmd += ["--frames", str(args.frames)]
    if args.threads is not None:
        cmd += ["--threads", str(args.threads)]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    cmd += list(extra)
    return cmd


def summarise(out_dir, wall, error):
    """Per-run numbers; averages are per frame (one step of h, every retried attempt counted)."""
    s = {"error": error, "wall": wall}
    try:
        frames = read_frames(out_dir)
    except (OSError, ValueError) as e:
        s["error"] = error or ("no frames.jsonl: %s" % e)
        return s
    n = len(frames)
    s["frames"] = n
    if n == 0:
        return s
    s["admm"] = sum(f.get("admm_iterations", 0) for f in frames)
    s["admm_per_frame"] = s["admm"] / n
    s["admm_max"] = max(f.get("admm_iterations", 0) for f in frames)
    s["retries"] = sum(f.get("retries", 0) for f in frames)
    s["not_converged"] = sum(1 for f in frames if f.get("status") != "converged")
    s["merge_blocked"] = sum(f.get("merge_blocked", 0) for f in frames)
    s["contacts"] = sum(f.get("contacts", 0) for f in frames) / n
    s["newton"] = sum(f.get("newton_iterations", 0) for f in frames) / n
    s["t_frame"] = sum(f.get("t_frame", 0.0) for f in frames) / n
    if all("t_parallel" in f for f in frames):
        s["t_parallel"] = sum(f["t_parallel"] for f in frames) / n
        s["t_sync"] = sum(f.get("t_sync", 0.0) for f in frames) / n
    else:
        # workers = 1 is the single-machine solver: no ADMM, its modelled time is t_frame.
        s["t_parallel"] = s["t_frame"]
        s["t_sync"] = 0.0
    workers = [f.get("per_worker", []) for f in frames]
    if workers and workers[0]:
        nw = len(workers[0])
        s["t_compute"] = [sum(pw[w]["t_compute"] for pw in workers) / n for w in range(nw)]
        s["shared"] = [sum(pw[w]["shared"] for pw in workers) / n for w in range(nw)]
        s["bodies"] = [sum(pw[w]["bodies"] for pw in workers) / n for w in range(nw)]
    return s


def flag(s):
    notes = []
    if s.get("error"):
        notes.append(s["error"])
    if s.get("retries"):
        notes.append("%d retries" % s["retries"])
    if s.get("not_converged"):
        notes.append("%d frames not converged" % s["not_converged"])
    return notes


def cell(s):
    if "admm_per_frame" not in s:
        return "— (%s)" % (s.get("error") or "no output")
    text = "%.1f" % s["admm_per_frame"]
    if s.get("retries") or s.get("error") or s.get("not_converged"):
        text += "*"
    return text


def run_many(args, jobs):
    """jobs: list of (key, cmd, name). Returns {key: summary}. Runs --jobs at a time."""
    results = {}

    def one(job):
        key, cmd, name = job
        out_dir, wall, error = run_cli(args, cmd, name, args.reuse)
        s = summarise(out_dir, wall, error)
        print("  %-40s %6.1fs  admm/frame %s %s" % (name, wall, cell(s), " ".join(flag(s))),
              file=sys.stderr, flush=True)
        return key, s

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for key, s in pool.map(one, jobs):
            results[key] = s
    return results


MODE_TEXT = {
    "adapt": "residual-driven adaptation of ρ, dual rescaled",
    "fixed-rho": "ρ = β m_b throughout, `adapt: false`",
    "no-rescale": "adaptation on, `rescale_dual: false`",
}


def cmd_penalty(args):
    densities = [float(x) for x in args.densities.split(",")]
    betas = [float(x) for x in args.betas.split(",")]
    modes = {
        "adapt": {"adapt": True, "rescale_dual": True},
        "fixed-rho": {"adapt": False},
        "no-rescale": {"adapt": True, "rescale_dual": False},
    }
    chosen = args.modes.split(",")
    jobs = []
    for mode in chosen:
        mode_betas = betas if mode == "adapt" or args.all_betas else [args.ablation_beta]
        for rho in densities:
            for beta in mode_betas:
                name = "penalty-%s-d%g-b%g" % (mode, rho, beta)
                dist = dict(modes[mode], workers=2, penalty="mass", beta=beta)
                scene = write_variant(args.scene, name, args.work, density=rho, distributed=dist)
                jobs.append(((mode, rho, beta), concord_run(args, scene, name), name))
    res = run_many(args, jobs)
    print("Scene `%s`, %s frames, 2 workers, penalty `mass` (ρ⁰ = β m_b), θ and K as in the scene."
          % (os.path.relpath(args.scene, ROOT), args.frames if args.frames else "scene's"))
    print("Average ADMM iterations per frame (* = retries, failed frames or errors; see log).\n")
    for mode in chosen:
        mode_betas = betas if mode == "adapt" or args.all_betas else [args.ablation_beta]
        if len(mode_betas) == 1 and len(chosen) > 1:
            continue  # only in the side-by-side table below
        print("**%s** (%s)\n" % (mode, MODE_TEXT[mode]))
        print("| density (kg/m³) | " + " | ".join("β = %g" % b for b in mode_betas) + " |")
        print("|---|" + "---|" * len(mode_betas))
        for rho in densities:
            print("| %g | " % rho + " | ".join(cell(res[(mode, rho, b)]) for b in mode_betas) + " |")
        print()
    if len(chosen) > 1:
        b = args.ablation_beta
        print("**β = %g: %s**\n" % (b, "; ".join("%s = %s" % (m, MODE_TEXT[m]) for m in chosen)))
        print("| density | " + " | ".join(chosen) + " |")
        print("|---|" + "---|" * len(chosen))
        for rho in densities:
            print("| %g | " % rho + " | ".join(cell(res[(m, rho, b)]) if (m, rho, b) in res else "—"
                                            for m in chosen) + " |")
        print()
    print_notes(res)


def cmd_rules(args):
    jobs = []
    rules = [("mass", 1.0), ("stiffness", 1.0), ("fixed", 1.0)]
    if args.fixed_beta is not None:
        rules.append(("fixed", args.fixed_beta))
    for adapt in (True, False):
        for rule, beta in rules:
            name = "rules-%s-b%g-%s" % (rule, beta, "adapt" if adapt else "noadapt")
            dist = {"workers": 2, "penalty": rule, "beta": beta, "adapt": adapt}
            scene = write_variant(args.scene, name, args.work, density=args.density, distributed=dist)
            jobs.append(((rule, beta, adapt), concord_run(args, scene, name), name))
    res = run_many(args, jobs)
    print("Scene `%s`, density %g kg/m³, %s frames, 2 workers.\n"
          % (os.path.relpath(args.scene, ROOT), args.density, args.frames))
    print("| penalty | β | ADMM iterations / frame, adapt on | max | adapt off | max |")
    print("|---|---|---|---|---|---|")
    for rule, beta in rules:
        a, f = res[(rule, beta, True)], res[(rule, beta, False)]
        print("| %s | %g | %s | %s | %s | %s |" % (rule, beta, cell(a), a.get("admm_max", "—"),
                                                 cell(f), f.get("admm_max", "—")))
    print()
    print_notes(res)


def scaling_layouts(spec):
    """'1,2,4,8' or '8:2x2x2' entries -> list of (label, workers, distributed overrides)."""
    out = []
    for item in spec.split(","):
        if ":" in item:
            n, grid = item.split(":")
            g = [int(x) for x in grid.split("x")]
            out.append(("%s (grid %s)" % (n, grid), int(n), {"grid": g}))
        else:
            out.append((item + " (x slabs)" if item != "1" else "1", int(item), {"axis": "x"}))
    return out


def cmd_scaling(args):
    jobs = []
    single = write_variant(args.scene, "scaling-single", args.work, drop_distributed=True)
    jobs.append(("single", concord_run(args, single, "scaling-single"), "scaling-single"))
    layouts = scaling_layouts(args.workers)
    for label, n, over in layouts:
        name = "scaling-w%d-%s" % (n, "grid" if "grid" in over else "x")
        scene = write_variant(args.scene, name, args.work, distributed=dict(over, workers=n))
        jobs.append((label, concord_run(args, scene, name, workers=n), name))
    if args.mpi_baseline:
        # In-process, workers = 1 means the single-machine solver; a 1-worker ADMM run (one
        # worker holding every body, still iterating until dq < theta) is only reachable as
        # mpirun -np 2.
        scene = write_variant(args.scene, "scaling-mpi-w1", args.work, distributed={"workers": 1})
        jobs.append(("mpi1", mpi_cmd(args, scene, "scaling-mpi-w1", 1), "scaling-mpi-w1"))
    res = run_many(args, jobs)
    print("Scene `%s`, %s frames, in-process transport (workers take turns, so each worker's "
          "compute time is measured alone), --threads %s.\n"
          % (os.path.relpath(args.scene, ROOT), args.frames, args.threads))
    sm = res["single"]
    print("Workers = 1 is the single-machine solver (no ADMM); its t_parallel column is its t_frame. "
          "A second single-machine run (scene without `distributed`): t_frame %.3f s, Newton "
          "iterations %.1f, contacts %.1f per frame; the gap between the two is timing noise.\n" % (sm.get("t_frame", float("nan")), sm.get("newton", float("nan")),
                            sm.get("contacts", float("nan"))))
    print("| workers | ADMM it. / frame | max | shared bodies / worker | t_compute / worker (s/frame) "
          "| t_sync (s/frame) | t_parallel (s/frame) | speedup vs single machine | vs 1-worker ADMM |")
    print("|---|---|---|---|---|---|---|---|---|")
    if "mpi1" in res:
        layouts = [layouts[0], ("1 (ADMM, mpirun -np 2)", 1, {})] + layouts[1:]
        res["1 (ADMM, mpirun -np 2)"] = res.pop("mpi1")
    base = res.get("1", {}).get("t_parallel")
    base_admm = res.get("1 (ADMM, mpirun -np 2)", {}).get("t_parallel")
    for label, n, _ in layouts:
        s = res[label]
        if "t_parallel" not in s:
            print("| %s | %s | | | | | | | |" % (label, cell(s)))
            continue
        tc = s.get("t_compute", [])
        sh = s.get("shared", [])
        print("| %s | %s | %d | %s | %s | %.3f | %.3f | %s | %s |" % (
            label, cell(s) if label != "1" else "— (single machine)", s["admm_max"],
            "%.1f" % (sum(sh) / len(sh)) if sh else "—",
            "min %.3f / max %.3f" % (min(tc), max(tc)) if tc else "—",
            s["t_sync"], s["t_parallel"],
            "%.2f" % (base / s["t_parallel"]) if base else "—",
            "%.2f" % (base_admm / s["t_parallel"]) if base_admm and label != "1" else "—"))
    print()
    print_notes(res)


def mpi_cmd(args, scene, name, workers):
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(workers + 1),
           args.concord, "run", scene, "--out", os.path.join(args.work, name), "--force", "--mpi"]
    if args.frames is not None:
        cmd += ["--frames", str(args.frames)]
    if args.threads is not None:
        cmd += ["--threads", str(args.threads)]
    return cmd


def cmd_mpi(args):
    jobs = []
    scene = write_variant(args.scene, "mpi-scene", args.work)
    for n in (1, 2):
        name = "mpi-w%d" % n
        jobs.append((("mpi", n), mpi_cmd(args, scene, name, n), name))
        name = "inproc-w%d" % n
        jobs.append((("inproc", n), concord_run(args, scene, name, workers=n), name))
    args.jobs = 1  # wall times: one run at a time
    res = run_many(args, jobs)
    print("Scene `%s`, %s frames, --threads %s; wall time of the whole command (mpirun start-up "
          "included), one run at a time.\n" % (os.path.relpath(args.scene, ROOT), args.frames, args.threads))
    print("| run | workers | processes | wall (s) | t_frame (s/frame) | t_parallel (s/frame) | ADMM it. / frame |")
    print("|---|---|---|---|---|---|---|")
    for kind in ("mpi", "inproc"):
        for n in (1, 2):
            s = res[(kind, n)]
            print("| %s | %d | %s | %.1f | %s | %s | %s |" % (
                "mpirun -np %d" % (n + 1) if kind == "mpi"
                else "--workers 1 (= single machine)" if n == 1 else "--workers %d (in-process)" % n,
                n, n + 1 if kind == "mpi" else 1, s["wall"],
                "%.3f" % s["t_frame"] if "t_frame" in s else "—",
                "%.3f" % s["t_parallel"] if "t_parallel" in s else "—", cell(s)))
    print()
    same = compare_q(os.path.join(args.work, "mpi-w2"), os.path.join(args.work, "inproc-w2"))
    print("MPI and in-process q identical (2 workers): %s\n" % same)
    print_notes(res)


def compare_q(a, b):
    try:
        with open(os.path.join(a, "frames.jsonl")) as fa, open(os.path.join(b, "frames.jsonl")) as fb:
            qa = [json.loads(l)["q"] for l in fa]
            qb = [json.loads(l)["q"] for l in fb]
        return "yes" if qa == qb else "NO"
    except (OSError, ValueError, KeyError) as e:
        return "could not compare (%s)" % e


def print_notes(res):
    bad = [(k, s) for k, s in res.items() if flag(s)]
    for k, s in bad:
        print("- %s: %s" % (k, ", ".join(flag(s))))
    if bad:
        print()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--concord", default=os.environ.get("CONCORD", os.path.join(ROOT, "build", "apps", "concord", "concord")),
                   help="concord binary (default $CONCORD or build/apps/concord/concord)")
    p.add_argument("--work", default="/tmp/concord-bench-distributed", help="output directories")
    p.add_argument("--threads", type=int, default=1, help="--threads of every run (default 1)")
    p.add_argument("--jobs", type=int, default=1, help="runs at a time (iteration tables only)")
    p.add_argument("--timeout", type=float, default=900, help="seconds per run")
    p.add_argument("--reuse", action="store_true", help="re-print from finished runs in --work")
    p.add_argument("--extra", default="{}",
                   help='JSON merged into every variant scene, e.g. \'{"solver": {"step_tol": 1e-4}}\'')
    sub = p.add_subparsers(dest="cmd", required=True)

    q = sub.add_parser("penalty", help="Fig. 11-12: density x beta, adaptation and dual rescaling")
    q.add_argument("--scene", default=FUNNEL)
    q.add_argument("--frames", type=int, default=6)
    q.add_argument("--densities", default="10,100,1000,10000,100000")
    q.add_argument("--betas", default="0.01,0.1,1,10,100")
    q.add_argument("--modes", default="adapt,fixed-rho,no-rescale")
    q.add_argument("--ablation-beta", type=float, default=1.0,
                   help="beta of the fixed-rho and no-rescale rows (the paper's Fig. 12 uses 1)")
    q.add_argument("--all-betas", action="store_true", help="run every beta for every mode")
    q.set_defaults(func=cmd_penalty)

    q = sub.add_parser("rules", help="penalty mass vs stiffness vs fixed")
    q.add_argument("--scene", default=FUNNEL)
    q.add_argument("--frames", type=int, default=6)
    q.add_argument("--density", type=float, default=1000)
    q.add_argument("--fixed-beta", type=float, default=None, help="also run fixed with this beta")
    q.set_defaults(func=cmd_rules)

    q = sub.add_parser("scaling", help="strong scaling, in-process transport")
    q.add_argument("--scene", default=SPHERES)
    q.add_argument("--frames", type=int, default=20)
    q.add_argument("--workers", default="1,2,4,8,4:2x2x1,8:2x2x2",
                   help="1 = single machine; N = N slabs along x; N:AxBxC = grid")
    q.add_argument("--no-mpi-baseline", dest="mpi_baseline", action="store_false",
                   help="skip the 1-worker ADMM run (it needs mpirun)")
    q.set_defaults(func=cmd_scaling)

    q = sub.add_parser("mpi", help="mpirun wall time, 1 vs 2 workers")
    q.add_argument("--scene", default=SPHERES)
    q.add_argument("--frames", type=int, default=20)
    q.set_defaults(func=cmd_mpi)

    args = p.parse_args()
    EXTRA.update(json.loads(args.extra))
    if EXTRA:
        print("Every scene variant has %s merged in.\n" % json.dumps(EXTRA))
    args.concord = os.path.abspath(args.concord)
    args.work = os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    args.func(args)


if __name__ == "__main__":
    main()
