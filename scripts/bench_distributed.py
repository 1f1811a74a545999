#!/usr/bin/env python3
"""Benchmarks of the distributed solver (consensus ADMM), printed as markdown tables.

Runs the concord CLI on scene variants, reads each output's frames.jsonl and prints one table
per subcommand. The numbers in docs/benchmarks.md ("Distributed solver") come from
(C=build/apps/concord/concord):

    scripts/bench_distributed.py --concord $C --jobs 2 penalty      # Fig. 11-12: adapt on grid, beta = 1 ablations
    scripts/bench_distributed.py --concord $C --jobs 2 penalty --modes fixed-rho --all-betas
    scripts/bench_distributed.py --concord $C rules                 # mass / stiffness / fixed
    scripts/bench_distributed.py --concord $C scaling               # 1, 2, 4, 8 workers (+ MPI 1-worker ADMM)
    scripts/bench_distributed.py --concord $C --work /tmp/bench-s1000 --timeout 7200 scaling --scene bench/scenes/spheres-1000.json --frames 30
    scripts/bench_distributed.py --concord $C --work /tmp/bench-s4000 --timeout 36000 scaling --scene bench/scenes/spheres-4000.json --frames 30
    scripts/bench_distributed.py --concord $C mpi                   # mpirun -np 2 vs -np 3
    scripts/bench_distributed.py paired --scene bench/scenes/spheres-4000.json   # speed-ups in pairs (bench_paired)
    scripts/bench_distributed.py paired --layouts grid4x1x2 --repeat 1 --seeds 21,22,23,24,25,26   # per trajectory
    scripts/bench_distributed.py paired --scene bench/scenes/dam-break-100k.json --frames 20 --layouts 2,4

Every run writes into --work (one directory per run, plus the variant scene and the log), so a
table can be re-printed from existing outputs with --reuse (a run whose command line or variant
scene changed since is run again). Python 3 standard library only.

The scaling table (paper Fig. 6, at CPU scale) is meant for bench/scenes/spheres-1000.json
(1,024 icospheres of radius 0.1, 4 layers of 16 x 16) and bench/scenes/spheres-4000.json
(4,096 = 4 x 32 x 32): equal spheres released on a close lattice (spacing 0.22) just above the
floor of a square open container, falling at 0.5 m/s, so that contacts start in frame 1-2 and
the lattice compresses layer by layer. `--layouts` picks the rows (1 = single machine, mpi1 =
1-worker ADMM over mpirun -np 2, N = N slabs along x, grid2x2 = 2 x 2 cells across gravity,
gridAxBxC = that grid), `--dense-from` the first frame of the averages (default: the first frame
with contacts), `--extra` keys merged into every variant, e.g.
`--extra '{"distributed": {"local_iterations": 3}}'`, `--repeat R` R rounds of every layout in
alternating order (speed-ups paired by round, medians). Every run uses --threads 1 unless told.
Single machine, --threads 1: spheres-1000 about 1-6 s per frame, spheres-4000 about 8-12 s
per frame in its first frames; distributed runs take several times longer in all, so raise
--timeout (seconds per run, default 900) as above.

Why the variants are written as files: the CLI reads one scene; density, beta, adapt and
rescale_dual are scene keys, so each grid point is the base scene with those keys replaced.
Relative mesh paths are made absolute so the variant can live in --work.
"""

import argparse
import concurrent.futures
import copy
import hashlib
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import statistics
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


def write_variant(base, name, work, density=None, distributed=None, drop_distributed=False,
                  jitter_seed=None):
    with open(base) as f:
        scene = json.load(f)
    absolutise_files(scene, os.path.dirname(os.path.abspath(base)))
    deep_merge(scene, copy.deepcopy(EXTRA))
    if jitter_seed is not None:
        # Another trajectory of the same scene: every jittered array draws from this seed.
        jittered = [b["array"]["jitter"] for b in scene["bodies"]
                    if isinstance(b.get("array"), dict) and "jitter" in b["array"]]
        if not jittered:
            raise SystemExit("--seeds: %s has no jittered body array" % base)
        for j in jittered:
            j["seed"] = jitter_seed
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


def read_frames(out_dir, first=1, last=None):
    """The stats of the saved frames first..last (frame numbers, inclusive; frame 0 is the
    initial state and has no step)."""
    return [stats for _, stats in read_numbered_frames(out_dir, first, last)]


def read_numbered_frames(out_dir, first=1, last=None):
    frames = []
    with open(os.path.join(out_dir, "frames.jsonl")) as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            k = d.get("frame", 0)
            if k >= max(first, 1) and (last is None or k <= last) and "stats" in d:
                frames.append((k, d["stats"]))
    return frames


def first_contact_frame(out_dir):
    """Number of the first saved frame with contacts > 0, or None."""
    try:
        for k, stats in read_numbered_frames(out_dir):
            if stats.get("contacts", 0) > 0:
                return k
    except (OSError, ValueError):
        pass
    return None


def fingerprint(cmd):
    """The command line plus a hash of every scene file it names, so that --reuse notices a
    changed variant scene (--extra, another base scene) behind the same file name."""
    files = {}
    for c in cmd:
        if c.endswith(".json") and os.path.isfile(c):
            with open(c, "rb") as f:
                files[c] = hashlib.sha256(f.read()).hexdigest()
    return {"cmd": list(cmd), "scenes": files}


def run_cli(args, cmd, name, reuse):
    """Runs one command (list) with a timeout; returns (out_dir, wall seconds, error or None)."""
    out_dir = os.path.join(args.work, name)
    log = os.path.join(args.work, name + ".log")
    done = os.path.join(args.work, name + ".done")
    if reuse and os.path.exists(done):
        with open(done) as f:
            info = json.load(f)
        # Outputs written before fingerprints were stored are reused as they are.
        if "fingerprint" not in info or info["fingerprint"] == fingerprint(cmd):
            return out_dir, info["wall"], info["error"]
        print("  %s: command or scene changed since the stored run; running it again" % name,
              file=sys.stderr, flush=True)
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
        json.dump({"wall": wall, "error": error, "cmd": cmd, "fingerprint": fingerprint(cmd)}, f)
    return out_dir, wall, error


def audit(args, name, reuse):
    """`concord audit` of a run's output directory: 'clean', 'NOT clean (...)' or 'error (...)'.
    Cached next to the run (NAME.audit) and reused with --reuse while the run is unchanged."""
    out_dir = os.path.join(args.work, name)
    done = os.path.join(args.work, name + ".done")
    cache = os.path.join(args.work, name + ".audit")
    if (reuse and os.path.exists(cache) and os.path.exists(done)
            and os.path.getmtime(cache) >= os.path.getmtime(done)):
        with open(cache) as f:
            return json.load(f)["result"]
    if not os.path.exists(os.path.join(out_dir, "frames.jsonl")):
        return "— (no output)"
    cmd = [args.concord, "audit", out_dir, "--quiet"]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=args.timeout, start_new_session=True)
        line = (p.stdout.strip().splitlines() or [""])[-1]
        if p.returncode == 0:
            result = "clean"
        elif p.returncode == 1:
            result = "NOT clean (%s)" % line.replace("audit: ", "")
        else:
            result = "error (exit %d: %s)" % (p.returncode, (p.stderr.strip() or line)[:200])
    except subprocess.TimeoutExpired:
        result = "error (timeout %gs)" % args.timeout
    with open(cache, "w") as f:
        json.dump({"result": result, "cmd": cmd}, f)
    return result


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


def summarise(out_dir, wall, error, first=1, last=None):
    """Per-run numbers; averages are per frame (one step of h, every retried attempt counted),
    over the saved frames first..last."""
    s = {"error": error, "wall": wall, "out_dir": out_dir}
    try:
        frames = read_frames(out_dir, first, last)
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
    s["newton_max"] = max(f.get("newton_iterations", 0) for f in frames)
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
    "adapt": "the default adaptation: normalised residual balancing, s = (ρ/ρ⁰) |Δz|, dual rescaled",
    "paper": "the paper's Eq. 12 literally (`adapt_rule: paper`), s = |Δz|, dual rescaled",
    "spectral": "per-replica spectral penalty of adaptive consensus ADMM (`adapt_rule: spectral`)",
    "fixed-rho": "ρ = β m_b throughout, `adapt: false`",
    "no-rescale": "adaptation on, `rescale_dual: false`",
    "anderson": "the default adaptation with Anderson acceleration, `anderson_window: 3`",
    "fixed-anderson": "ρ = β m_b throughout with Anderson acceleration, `anderson_window: 3`",
}


# Modes run at every beta by default; the others at --ablation-beta.
SWEPT_MODES = ("adapt", "paper", "spectral", "anderson")


def cmd_penalty(args):
    densities = [float(x) for x in args.densities.split(",")]
    betas = [float(x) for x in args.betas.split(",")]
    modes = {
        "adapt": {"adapt": True, "rescale_dual": True},
        "paper": {"adapt": True, "rescale_dual": True, "adapt_rule": "paper"},
        "spectral": {"adapt": True, "rescale_dual": True, "adapt_rule": "spectral"},
        "fixed-rho": {"adapt": False},
        "no-rescale": {"adapt": True, "rescale_dual": False},
        "anderson": {"adapt": True, "rescale_dual": True, "anderson_window": 3},
        "fixed-anderson": {"adapt": False, "anderson_window": 3},
    }
    chosen = args.modes.split(",")
    jobs = []
    for mode in chosen:
        mode_betas = betas if mode in SWEPT_MODES or args.all_betas else [args.ablation_beta]
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
        mode_betas = betas if mode in SWEPT_MODES or args.all_betas else [args.ablation_beta]
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


DEFAULT_LAYOUTS = "1,mpi1,2,4,8,grid2x2,grid2x2x2"


def gravity_axis(scene_path):
    """0, 1 or 2: the axis along which the scene's gravity mostly points (default y)."""
    try:
        with open(scene_path) as f:
            g = json.load(f).get("gravity", [0, -9.81, 0])
    except (OSError, ValueError):
        g = [0, -9.81, 0]
    a = max(range(3), key=lambda i: abs(g[i]))
    return a if g[a] != 0 else 1


def scaling_layouts(spec, up_axis=1):
    """Comma-separated layouts -> list of dicts (kind, label, tag, workers, distributed overrides).

    1 or single     the single-machine solver (`--workers 1`)
    mpi1            1-worker ADMM over MPI (mpirun -np 2 ... --mpi)
    N, Nx, Ny, Nz   N slabs along x (default), y or z
    grid2x2         4 cells, 2 x 2 across gravity (y up: grid [2, 1, 2])
    gridAxBxC       the grid [A, B, C] along x, y, z (e.g. grid2x2x1, grid2x2x2)
    N:AxBxC         same as gridAxBxC (the earlier --workers syntax)
    """
    out = []
    for item in [x.strip() for x in spec.split(",") if x.strip()]:
        m_slab = re.fullmatch(r"(\d+)([xyz]?)", item)
        m_grid = re.fullmatch(r"(?:grid|(\d+):)(\d+)x(\d+)(?:x(\d+))?", item)
        if item in ("1", "single"):
            out.append({"kind": "single", "label": "1 (single machine)", "tag": "single",
                        "workers": 1, "over": {}})
        elif item == "mpi1":
            out.append({"kind": "mpi1", "label": "1 (ADMM, mpirun -np 2)", "tag": "mpi-w1",
                        "workers": 1, "over": {"workers": 1, "grid": [1, 1, 1]}})
        elif m_slab:
            n, axis = int(m_slab.group(1)), m_slab.group(2) or "x"
            out.append({"kind": "dist", "label": "%d (%s slabs)" % (n, axis),
                        "tag": "w%d-%s" % (n, axis), "workers": n,
                        "over": {"workers": n, "axis": axis, "grid": [1, 1, 1]}})
        elif m_grid:
            a, b, c = int(m_grid.group(2)), int(m_grid.group(3)), m_grid.group(4)
            if c is None:  # two counts: the cells across gravity
                g = [1, 1, 1]
                across = [i for i in range(3) if i != up_axis]
                g[across[0]], g[across[1]] = a, b
            else:
                g = [a, b, int(c)]
            n = g[0] * g[1] * g[2]
            if m_grid.group(1) and int(m_grid.group(1)) != n:
                raise SystemExit("layout %s: the grid has %d cells" % (item, n))
            text = "x".join(str(x) for x in g)
            out.append({"kind": "dist", "label": "%d (grid %s)" % (n, text),
                        "tag": "w%d-grid%s" % (n, text), "workers": n,
                        "over": {"workers": n, "grid": g}})
        else:
            raise SystemExit("unknown layout %r (expected 1, mpi1, N, Nx/Ny/Nz, grid2x2, "
                             "gridAxBxC or N:AxBxC)" % item)
    return out


def cmd_scaling(args):
    stem = os.path.splitext(os.path.basename(args.scene))[0]
    layouts = scaling_layouts(args.layouts or DEFAULT_LAYOUTS, gravity_axis(args.scene))
    if not any(l["kind"] == "single" for l in layouts):
        # The reference of the speed-up and of the dense range; always run.
        layouts.insert(0, scaling_layouts("1")[0])
    want_mpi = args.mpi_baseline
    if want_mpi is None:
        want_mpi = any(l["kind"] == "mpi1" for l in layouts)
        if want_mpi and not args.layouts and shutil.which("mpirun") is None:
            print("mpirun not found: no 1-worker ADMM row (install Open MPI or pass "
                  "--no-mpi-baseline)\n", file=sys.stderr)
            want_mpi = False
    if want_mpi and not any(l["kind"] == "mpi1" for l in layouts):
        layouts.insert(1, scaling_layouts("mpi1")[0])
    if not want_mpi:
        layouts = [l for l in layouts if l["kind"] != "mpi1"]
    seen = set()
    layouts = [l for l in layouts if not (l["tag"] in seen or seen.add(l["tag"]))]

    # --repeat R: R rounds of every layout, the order reversed every other round, so that each
    # distributed run has a single-machine run of its own round beside it in time (this machine's
    # speed drifts by a third within minutes). Round 0 keeps the plain names (--reuse).
    jobs = []
    rounds = max(1, args.repeat)
    if rounds > 1 and args.jobs > 1:
        print("--repeat: one run at a time (--jobs %d ignored), so that each round's runs are "
              "timed side by side" % args.jobs, file=sys.stderr)
        args.jobs = 1
    for r in range(rounds):
        for l in (layouts if r % 2 == 0 else list(reversed(layouts))):
            name = "scaling-%s-%s" % (stem, l["tag"])
            if r == 0:
                l["name"] = name
            else:
                name += "-r%d" % r
            if l["kind"] == "single":
                scene = write_variant(args.scene, name, args.work, drop_distributed=True)
                cmd = concord_run(args, scene, name, workers=1)
            elif l["kind"] == "mpi1":
                # In-process, workers = 1 means the single-machine solver; a 1-worker ADMM run
                # (one worker holding every body, still iterating until dq < theta) is only
                # reachable as mpirun -np 2.
                scene = write_variant(args.scene, name, args.work, distributed=l["over"])
                cmd = mpi_cmd(args, scene, name, 1)
            else:
                scene = write_variant(args.scene, name, args.work, distributed=l["over"])
                cmd = concord_run(args, scene, name, workers=l["workers"])
            jobs.append(((l["tag"], r), cmd, name))
    res_all = run_many(args, jobs)
    res = {tag: s for (tag, r), s in res_all.items() if r == 0}

    # The dense frames: from --dense-from, else from the single machine's first frame with
    # contacts (else the earliest over the runs), to --dense-to or the end.
    single = next(l for l in layouts if l["kind"] == "single")
    first, how = args.dense_from, "--dense-from"
    if first is None:
        first = first_contact_frame(os.path.join(args.work, single["name"]))
        how = "the single-machine run's first frame with contacts"
        if first is None:
            found = [k for k in (first_contact_frame(os.path.join(args.work, l["name"]))
                                 for l in layouts) if k is not None]
            first = min(found) if found else 1
            how = ("the earliest first frame with contacts over the runs" if found
                   else "no run has contacts: every frame")
    dense = {}
    for l in layouts:
        s0 = res[l["tag"]]
        s = summarise(s0["out_dir"], s0["wall"], s0["error"], first, args.dense_to)
        s["audit"] = audit(args, l["name"], args.reuse) if not args.no_audit else "— (skipped)"
        dense[l["tag"]] = s

    print("Scene `%s`, %s frames, averages over frames %d-%s (%s), --threads %s. "
          "In-process transport: the workers take turns, so each worker's compute time is "
          "measured alone; t_parallel models N machines (sum over ADMM iterations of the "
          "slowest worker, plus the slowest worker's set-up and end of step, plus t_sync). "
          "The single machine's t_parallel is its t_frame.\n"
          % (os.path.relpath(args.scene, ROOT),
             args.frames if args.frames is not None else "scene's", first,
             args.dense_to if args.dense_to is not None else "end", how, args.threads))
    # Per round, t_parallel over the dense frames (the counts are the same in every round).
    timings = {}
    for (tag, r), s0 in sorted(res_all.items(), key=lambda kv: kv[0][1]):
        s = summarise(s0["out_dir"], s0["wall"], s0["error"], first, args.dense_to)
        timings.setdefault(tag, []).append(s.get("t_parallel"))
    if rounds > 1:
        for l in layouts:
            ts = [t for t in timings[l["tag"]] if t is not None]
            if ts and "t_parallel" in dense[l["tag"]]:
                dense[l["tag"]]["t_parallel"] = statistics.median(ts)
        print("--repeat %d: t_parallel is the median over the rounds; the speed-up is the median "
              "over the rounds of the single machine's t_parallel over the layout's in the same "
              "round (min-max in brackets).\n" % rounds)

    def paired_speedup(tag):
        if tag == single["tag"]:
            return "1.00"
        pairs = [a / b for a, b in zip(timings[single["tag"]], timings[tag]) if a and b]
        if not pairs:
            return "—"
        if len(pairs) == 1:
            return "%.2f" % pairs[0]
        return "%.2f (%.2f-%.2f)" % (statistics.median(pairs), min(pairs), max(pairs))

    base = dense[single["tag"]].get("t_parallel")
    mpi = next((dense[l["tag"]] for l in layouts if l["kind"] == "mpi1"), None)
    base_admm = mpi.get("t_parallel") if mpi else None
    head = ["layout", "t_parallel (s/frame)", "speed-up vs single machine"]
    if mpi:
        head.append("vs 1-worker ADMM")
    head += ["ADMM it. / frame", "ADMM max", "Newton it. / frame", "shared bodies / worker",
             "held bodies / worker", "contacts / frame", "t_compute / worker (s/frame)",
             "t_sync (s/frame)", "audit"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    nref = dense[single["tag"]].get("frames")
    for l in layouts:
        s = dense[l["tag"]]
        label = l["label"]
        if s.get("frames") is not None and nref is not None and s["frames"] != nref:
            label += " (%d frames)" % s["frames"]
        if "t_parallel" not in s:
            row = [label, "— (%s)" % (s.get("error") or "no output")] + [""] * (len(head) - 3)
            row.append(s["audit"])
            print("| " + " | ".join(row) + " |")
            continue
        sh, held, tc = s.get("shared", []), s.get("bodies", []), s.get("t_compute", [])
        row = [label, "%.3f" % s["t_parallel"], paired_speedup(l["tag"]) if base else "—"]
        if mpi:
            row.append("%.2f" % (base_admm / s["t_parallel"])
                       if base_admm and l["kind"] != "single" else "—")
        single_row = l["kind"] == "single"
        row += ["—" if single_row else cell(s),
                "—" if single_row else "%d" % s["admm_max"],
                "%.1f" % s["newton"],
                "%.1f" % (sum(sh) / len(sh)) if sh else "—",
                "%.1f" % (sum(held) / len(held)) if held else "—",
                "%.0f" % s["contacts"],
                "%.3f-%.3f" % (min(tc), max(tc)) if tc else "—",
                "%.3f" % s["t_sync"], s["audit"]]
        print("| " + " | ".join(row) + " |")
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


def cmd_paired(args):
    """The modelled speed-up measured in pairs (build/bench/bench_paired): one process steps the
    single machine and the workers of a layout one time step each in turn, on one CPU with one
    thread, so that the drift of a shared machine between two separate runs does not enter the
    ratio. Per layout --repeat runs; per run the ratio of the single machine's summed t_frame to
    the summed t_parallel over the steps of frames --dense-from..end, and the median. With
    --seeds, the same per jitter seed of the scene's body arrays (each seed another trajectory
    of the same scene; a pile's impact frames are chaotic, so one trajectory says little about
    a change), and the geometric mean over the seeds."""
    with open(args.scene) as f:
        scene = json.load(f)
    frames = args.frames if args.frames else scene.get("frames", 100)
    per_frame = scene.get("substeps", 1)
    steps = frames * per_frame
    first_step = (args.dense_from - 1) * per_frame + 1
    layouts = [l for l in scaling_layouts(args.layouts, gravity_axis(args.scene)) if l["kind"] == "dist"]
    seeds = [int(x) for x in args.seeds.split(",")] if args.seeds else None
    print("Scene %s, %d frames (%d steps), averages over frames %d-%d; --threads %d%s; %d runs per %s "
          "(`bench_paired`: the single machine and the workers one step each in turn)\n"
          % (os.path.relpath(args.scene, ROOT), frames, steps, args.dense_from, frames, args.threads,
             ", the process on one CPU" if args.threads == 1 and not args.no_pin else "", args.repeat,
             "layout and jitter seed" if seeds else "layout"))
    fluid = bool(scene.get("fluids"))

    def ratios(path, lay):
        """Per run: (single t_frame sum, t_parallel sum, rows)."""
        out_runs = []
        for _ in range(args.repeat):
            cmd = [args.bench, path, str(lay["workers"]), str(steps), "--threads", str(args.threads),
                   "--skip", "0", "--pin", "0" if args.no_pin else "1"]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=args.timeout).stdout
            rows = [json.loads(l) for l in out.splitlines() if l.strip()][:-1]
            rows = [r for r in rows if r["step"] >= first_step]
            if fluid and any(r["iterations"][0] != r["iterations"][1] for r in rows):
                print("note: %s: the pressure iterations differ from the single machine's" % lay["label"])
            out_runs.append((sum(r["t_frame"] for r in rows), sum(r["t_parallel"] for r in rows), rows))
        return out_runs

    n_frames = frames - args.dense_from + 1
    if seeds:
        print("| workers | %s | median | geometric mean |" % " | ".join("seed %d" % s for s in seeds))
        print("|---|" + "---|" * (len(seeds) + 2))
        for lay in layouts:
            per_seed = []
            for seed in seeds:
                path = write_variant(args.scene, "paired-%s-seed%d" % (lay["tag"], seed), args.work,
                                     distributed=lay["over"], jitter_seed=seed)
                per_seed.append(statistics.median(a / b for a, b, _ in ratios(path, lay)))
            geo = math.exp(sum(math.log(x) for x in per_seed) / len(per_seed))
            print("| %s | %s | %.2fx | **%.2fx** |" % (
                lay["label"], " | ".join("%.2fx" % x for x in per_seed),
                statistics.median(per_seed), geo))
        return
    print("| workers | single machine t_frame (s/frame) | t_parallel (s/frame) | speed-up per run | median | iterations per step (single, distributed) |")
    print("|---|---|---|---|---|---|")
    for lay in layouts:
        path = write_variant(args.scene, "paired-" + lay["tag"], args.work, distributed=lay["over"])
        runs = ratios(path, lay)
        t1 = [a for a, _, _ in runs]
        tp = [b for _, b, _ in runs]
        first_rows = runs[0][2]
        it1 = sum(r["iterations"][0] for r in first_rows) / len(first_rows)
        itp = sum(r["iterations"][1] for r in first_rows) / len(first_rows)
        print("| %s | %s | %s | %s | **%.2fx** | %.1f, %.1f |" % (
            lay["label"], ", ".join("%.3f" % (t / n_frames) for t in t1),
            ", ".join("%.3f" % (t / n_frames) for t in tp),
            ", ".join("%.2fx" % (a / b) for a, b in zip(t1, tp)),
            statistics.median(a / b for a, b in zip(t1, tp)), it1, itp))


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

    q = sub.add_parser("scaling", help="strong scaling (paper Fig. 6), in-process transport",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Layouts (--layouts, comma-separated):\n" + scaling_layouts.__doc__.split("\n", 2)[2])
    q.add_argument("--scene", default=SPHERES,
                   help="base scene (default scenes/spheres-in-box.json; the Fig. 6 scenes are "
                        "bench/scenes/spheres-1000.json and spheres-4000.json)")
    q.add_argument("--frames", type=int, default=20,
                   help="frames per run (default 20; 0 or negative: the scene's own)")
    q.add_argument("--layouts", "--workers", dest="layouts", default=None,
                   help="rows to run, default %s; the single machine always runs "
                        "(it is the reference)" % DEFAULT_LAYOUTS)
    q.add_argument("--dense-from", type=int, default=None,
                   help="first frame of the averages (default: the single-machine run's first "
                        "frame with contacts)")
    q.add_argument("--dense-to", type=int, default=None, help="last frame of the averages (default: the last)")
    q.add_argument("--repeat", type=int, default=1,
                   help="rounds of every layout, in alternating order; speed-ups paired by round")
    q.add_argument("--mpi-baseline", dest="mpi_baseline", action="store_const", const=True, default=None,
                   help="add the 1-worker ADMM run over MPI (mpirun -np 2); default: when the "
                        "layouts name mpi1 (the default layouts do, if mpirun is found)")
    q.add_argument("--no-mpi-baseline", dest="mpi_baseline", action="store_const", const=False,
                   help="skip the 1-worker ADMM run (it needs mpirun)")
    q.add_argument("--no-audit", action="store_true", help="skip `concord audit` of each run")
    q.set_defaults(func=cmd_scaling)

    q = sub.add_parser("paired", help="modelled speed-up, single machine and workers stepped in turn (bench_paired)",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description=cmd_paired.__doc__ + "\n\nLayouts (--layouts, comma-separated):\n" +
                       scaling_layouts.__doc__.split("\n", 2)[2])
    q.add_argument("--scene", default=os.path.join(ROOT, "bench", "scenes", "spheres-4000.json"))
    q.add_argument("--frames", type=int, default=24, help="frames (default 24; 0: the scene's own)")
    q.add_argument("--layouts", default="2,grid2x1x2,grid4x1x2", help="distributed rows (default %(default)s)")
    q.add_argument("--dense-from", type=int, default=1, help="first frame of the averages (default 1)")
    q.add_argument("--repeat", type=int, default=3, help="runs per layout (default 3)")
    q.add_argument("--seeds", default=None,
                   help="comma-separated jitter seeds: one row per layout, a column per seed and "
                        "the geometric mean (use with --repeat 1)")
    q.add_argument("--no-pin", action="store_true", help="let the system move the process between CPUs")
    q.add_argument("--bench", default=os.path.join(ROOT, "build", "bench", "bench_paired"),
                   help="bench_paired binary (default build/bench/bench_paired)")
    q.set_defaults(func=cmd_paired)

    q = sub.add_parser("mpi", help="mpirun wall time, 1 vs 2 workers")
    q.add_argument("--scene", default=SPHERES)
    q.add_argument("--frames", type=int, default=20)
    q.set_defaults(func=cmd_mpi)

    for q in sub.choices.values():
        q.add_argument("--extra", dest="extra_sub", default=None,
                       help="JSON merged into every variant scene (after the global --extra)")
    args = p.parse_args()
    if args.cmd == "scaling" and args.frames is not None and args.frames <= 0:
        args.frames = None
    EXTRA.update(json.loads(args.extra))
    if args.extra_sub:
        deep_merge(EXTRA, json.loads(args.extra_sub))
    if EXTRA:
        print("Every scene variant has %s merged in.\n" % json.dumps(EXTRA))
    args.concord = os.path.abspath(args.concord)
    args.work = os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    args.func(args)


if __name__ == "__main__":
    main()
