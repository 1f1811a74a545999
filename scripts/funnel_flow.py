#!/usr/bin/env python3
"""How far the funnel example (scenes/funnel.json) has drained, from `concord run` output.

    scripts/funnel_flow.py DIR [DIR ...] [--frames 60,70,80,90,100]

For each DIR prints, at each of the given frames, the dynamic bodies in the bin and those
still above the funnel ("bin / above"), then the steps that stopped unconverged, the median
Newton iterations per dense step (more than 100 contacts) and the solves handed over to the
augmented Lagrangian (contact.model "hybrid"). docs/benchmarks.md compares contact models and
solver settings by these numbers ("Thirteenth pass", "Fourteenth pass").
"""

import argparse
import json
import statistics

# The scene's geometry: the bin is a 2.6 x 1.0 x 2.6 m container on the ground (rim at y = 1.05);
# the funnel's upper rim is at y = 2.65.
BIN_RIM_Y = 1.05
BIN_HALF_WIDTH = 1.3
FUNNEL_RIM_Y = 2.65
DENSE_CONTACTS = 100


def load(directory):
    bodies = json.load(open(f"{directory}/bodies.json"))
    records = [json.loads(line) for line in open(f"{directory}/frames.jsonl") if line.strip()]
    dynamic = [i for i, b in enumerate(bodies) if b["motion"] == "dynamic"]
    return dynamic, records


def bin_and_above(q, dynamic):
    """(bodies in the bin, bodies above the funnel) for one frame's states q."""
    in_bin = sum(1 for i in dynamic if q[i][1] < BIN_RIM_Y and abs(q[i][0]) < BIN_HALF_WIDTH
                 and abs(q[i][2]) < BIN_HALF_WIDTH)
    above = sum(1 for i in dynamic if q[i][1] > FUNNEL_RIM_Y)
    return in_bin, above


def summary(directory, frames):
    dynamic, records = load(directory)
    parts = []
    for f in frames:
        if f < len(records):
            in_bin, above = bin_and_above(records[f]["q"], dynamic)
            parts.append(f"{f}: {in_bin} / {above}")
    steps = [r["stats"] for r in records[1:]]
    stopped = sum(1 for s in steps if s["status"] != "converged")
    dense = [s["newton_iterations"] for s in steps if s["contacts"] > DENSE_CONTACTS]
    median = statistics.median(dense) if dense else None
    handed = sum(s.get("al_switches", 0) for s in steps)
    return (f"{directory}: bin / above at {', '.join(parts)}; {stopped} of {len(steps)} steps "
            f"stopped; median Newton per dense step {median}; {handed} hand-overs")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", help="concord run output directories")
    parser.add_argument("--frames", default="60,70,80,90,100",
                        help="comma-separated frames to count at (default 60,70,80,90,100)")
    args = parser.parse_args()
    frames = [int(f) for f in args.frames.split(",") if f]
    for d in args.dirs:
        print(summary(d, frames))


if __name__ == "__main__":
    main()
