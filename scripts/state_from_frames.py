#!/usr/bin/env python3
"""Writes a world-state file (World::load_state's format) for frame K of a `concord run` output.

    scripts/state_from_frames.py OUT_DIR K STATE_FILE [--time-step H]

q is frame K's q; the velocity is (q_K - q_{K-1}) / h, which is how World computes it after a
step of h (one step per frame, no retry: the script refuses frames with substeps or retries);
the barrier stiffness is frame K's. So the state equals the one the run held after frame K,
bit for bit, and later steps from it repeat the run's (used by the dense-frame benchmark in
tests/world/test_world_frame_bench.cpp to time the same frames with two builds without
running the frames before them again).
"""

import argparse
import json
import struct
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("frame", type=int)
    ap.add_argument("state_file")
    ap.add_argument("--time-step", type=float, help="default: the scene.json's time_step")
    a = ap.parse_args()
    if a.frame < 1:
        sys.exit("state_from_frames: the frame must be >= 1 (the velocity needs frame K - 1)")
    h = a.time_step
    if h is None:
        with open(f"{a.out_dir}/scene.json") as f:
            h = json.load(f).get("time_step", 0.01)
    records = {}
    with open(f"{a.out_dir}/frames.jsonl") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            if r["frame"] in (a.frame - 1, a.frame):
                records[r["frame"]] = r
    if a.frame not in records or a.frame - 1 not in records:
        sys.exit(f"state_from_frames: {a.out_dir}/frames.jsonl lacks frame {a.frame - 1} or {a.frame}")
    cur, prev = records[a.frame], records[a.frame - 1]
    stats = cur["stats"]
    for s in (cur, prev):
        st = s.get("stats") or {}
        if st.get("substeps", 1) != 1 or st.get("retries", 0) != 0:
            sys.exit(f"state_from_frames: frame {s['frame']} took substeps or retries")
    q = [x for body in cur["q"] for x in body]
    q_prev = [x for body in prev["q"] for x in body]
    q_dot = [(x - y) / h for x, y in zip(q, q_prev)]
    bodies = len(cur["q"])
    with open(a.state_file, "wb") as out:
        out.write(b"CNCRDSTA")
        out.write(struct.pack("=II", 1, 0x01020304))          # format version, byte-order mark
        out.write(struct.pack("=Q", bodies))
        out.write(struct.pack("=d", cur["time"]))
        out.write(struct.pack("=q", a.frame))                 # steps
        out.write(struct.pack("=d", stats["barrier_stiffness"]))
        out.write(struct.pack("=ii", 0, 0))                   # time-step level, level successes
        out.write(struct.pack(f"={len(q)}d", *q))
        out.write(struct.pack(f"={len(q_dot)}d", *q_dot))
    print(f"{a.state_file}: {bodies} bodies at frame {a.frame} (t = {cur['time']})")


if __name__ == "__main__":
    main()
