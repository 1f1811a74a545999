#!/usr/bin/env python3
"""Summarises the per-frame solver statistics of `concord run` output directories.

    scripts/frame_stats.py DIR [DIR ...] [--from FRAME] [--to FRAME] [--markdown]

For each DIR it reads frames.jsonl (frame 0, the initial state, is skipped) and prints the mean
and the peak over frames of: wall time per frame split into collision detection (t_coll),
Newton solve (t_solve = assembly + linear solves + line search) and the rest, Newton
iterations per time step, contacts, broad-phase candidates and the smallest distance.

The collision and solve times are CPU seconds summed over islands, while t_frame is wall
clock. With --threads 1 they add up, so "other" (t_frame - t_coll - t_solve: integration,
friction lagging, building island systems) is meaningful (the work of island solves that a
step replaced after their motion bounds failed is counted in t_coll and t_solve); with more threads islands overlap and
"other" is not computed. Give the threads with --threads, or the run's stderr with --log (its
first line names them); otherwise the split is reported as shares of t_coll + t_solve.
"""

import argparse
import json
import math
import sys


def load_frames(directory, first, last):
    frames = []
    with open(f"{directory}/frames.jsonl") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"frame_stats: {directory}/frames.jsonl: line {number}: {e}")
            k = record["frame"]
            if k == 0 or k < first or (last is not None and k > last):
                continue
            frames.append(record["stats"])
    if not frames:
        sys.exit(f"frame_stats: {directory}: no frame after frame 0 in the range")
    return frames


def mean(values):
    return sum(values) / len(values)


def summarise(directory, stats, single_thread):
    n = len(stats)
    substeps = [s.get("substeps", 1) or 1 for s in stats]
    t_frame = [s["t_frame"] for s in stats]
    t_coll = [s["t_coll"] for s in stats]
    t_solve = [s["t_solve"] for s in stats]
    newton_per_step = [s["newton_iterations"] / k for s, k in zip(stats, substeps)]
    contacts = [s["contacts"] for s in stats]
    candidates = [s["candidates"] for s in stats]
    distances = [s["min_distance"] for s in stats if s["min_distance"] is not None]
    not_converged = sum(1 for s in stats if not s.get("converged", True))
    stop_reasons = {}
    for s in stats:
        if not s.get("converged", True):
            reason = s.get("stop_reason", "?")
            stop_reasons[reason] = stop_reasons.get(reason, 0) + 1

    row = {
        "dir": directory,
        "frames": n,
        "total_s": sum(t_frame),
        "t_frame": (mean(t_frame), max(t_frame)),
        "t_coll": (mean(t_coll), max(t_coll)),
        "t_solve": (mean(t_solve), max(t_solve)),
        "t_assembly": mean([s.get("t_assembly", 0.0) for s in stats]),
        "t_linear": mean([s.get("t_linear", 0.0) for s in stats]),
        "t_line_search": mean([s.get("t_line_search", 0.0) for s in stats]),
        "newton": (mean(newton_per_step), max(newton_per_step)),
        "contacts": (mean(contacts), max(contacts)),
        "candidates": (mean(candidates), max(candidates)),
        "min_distance": min(distances) if distances else math.inf,
        "not_converged": not_converged,
        "stop_reasons": stop_reasons,
        "single_thread": single_thread,
    }
    if single_thread:
        other = [f - c - s for f, c, s in zip(t_frame, t_coll, t_solve)]
        row["t_other"] = (mean(other), max(other))
        row["t_other_median"] = sorted(other)[len(other) // 2]
    return row


def print_plain(row):
    def pair(key, fmt="{:.4g}"):
        m, p = row[key]
        return f"mean {fmt.format(m)}, peak {fmt.format(p)}"

    coll, solve = row["t_coll"][0], row["t_solve"][0]
    print(f"{row['dir']}: {row['frames']} frames, {row['total_s']:.1f} s of frame wall time")
    print(f"  t_frame s      {pair('t_frame')}")
    if row["single_thread"]:
        frame = row["t_frame"][0]
        print(f"  t_coll s       {pair('t_coll')}  ({100 * coll / frame:.0f}% of t_frame)")
        print(f"  t_solve s      {pair('t_solve')}  ({100 * solve / frame:.0f}% of t_frame)")
        other = row["t_other"][0]
        print(
            f"  other s        {pair('t_other')}, median {row['t_other_median']:.4g}  "
            f"({100 * other / frame:.0f}% of t_frame)"
        )
    else:
        share = 100 * coll / (coll + solve) if coll + solve > 0 else 0.0
        print(f"  t_coll s       {pair('t_coll')}  (CPU; {share:.0f}% of coll + solve)")
        print(f"  t_solve s      {pair('t_solve')}  (CPU; {100 - share:.0f}% of coll + solve)")
    print(
        f"  solve parts s  assembly {row['t_assembly']:.4g}, linear {row['t_linear']:.4g}, "
        f"line search {row['t_line_search']:.4g} (means)"
    )
    print(f"  newton / step  {pair('newton', '{:.1f}')}")
    print(f"  contacts       {pair('contacts', '{:.0f}')}")
    print(f"  candidates     {pair('candidates', '{:.0f}')}")
    print(f"  min distance   {row['min_distance']:.3g} m")
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(row["stop_reasons"].items()))
    print(f"  not converged  {row['not_converged']} frames" + (f" ({reasons})" if reasons else ""))


def print_markdown_header():
    print(
        "| run | frames | t_frame s mean / peak | t_coll s mean / peak | t_solve s mean / peak "
        "| other s mean | Newton it./step mean / peak | contacts mean / peak | not converged |"
    )
    print("|---|---|---|---|---|---|---|---|---|")


def print_markdown(row):
    def pair(key, fmt="{:.3g}"):
        m, p = row[key]
        return f"{fmt.format(m)} / {fmt.format(p)}"

    other = f"{row['t_other'][0]:.3g}" if row["single_thread"] else "n/a"
    print(
        f"| {row['dir']} | {row['frames']} | {pair('t_frame')} | {pair('t_coll')} | "
        f"{pair('t_solve')} | {other} | {pair('newton', '{:.1f}')} | "
        f"{pair('contacts', '{:.0f}')} | {row['not_converged']} |"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", metavar="DIR", help="output directory of concord run")
    parser.add_argument("--from", dest="first", type=int, default=1, help="first frame counted")
    parser.add_argument("--to", dest="last", type=int, default=None, help="last frame counted")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="threads the runs used; 1 enables the 'other' column (default: read the log "
        "given with --log, else assume several)",
    )
    parser.add_argument("--log", default=None, help="stderr of the run (its header names the threads)")
    parser.add_argument("--markdown", action="store_true", help="one table row per DIR")
    args = parser.parse_args()

    threads = args.threads
    if threads is None and args.log:
        with open(args.log) as f:
            header = f.readline()
        for word, following in zip(header.split(), header.split()[1:]):
            if following.startswith("thread"):
                threads = int(word)
    single_thread = threads == 1

    if args.markdown:
        print_markdown_header()
    for directory in args.dirs:
        row = summarise(directory, load_frames(directory, args.first, args.last), single_thread)
        if args.markdown:
            print_markdown(row)
        else:
            print_plain(row)


if __name__ == "__main__":
    main()
