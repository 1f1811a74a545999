"""Parameter sweep: how far a block slides down the incline for each friction coefficient.

Uses scenes/incline.json (a 20 degree slope), keeps its "slippery" block, sets that block's
friction to each value and simulates 0.5 s. Below tan(20 deg) = 0.364 the block sticks; above,
implicit Euler gives the distance a h^2 n (n + 1) / 2 with a = g (sin - mu cos).

    PYTHONPATH=build/python python3 python/examples/friction_sweep.py [--steps 50]
"""

import argparse
import math
import pathlib

import numpy as np

import concord

ROOT = pathlib.Path(__file__).resolve().parents[2]


def slide_distance(scene_dict, mu, steps):
    d = dict(scene_dict)
    block = next(b for b in d["bodies"] if b["name"] == "slippery")
    d["bodies"] = [dict(block, friction=mu)]
    world = concord.World(d)
    n = np.array(d["planes"][0]["normal"], dtype=float)
    g = np.array(d.get("gravity", [0, -9.81, 0]), dtype=float)
    downhill = g - g.dot(n) * n
    downhill /= np.linalg.norm(downhill)
    start = world.q[0, :3].copy()   # q is a live view: keep a copy of the start
    world.step(steps)
    return float((world.q[0, :3] - start).dot(downhill)), world


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default=str(ROOT / "scenes" / "incline.json"))
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--mu", type=float, nargs="*",
                        default=[0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    args = parser.parse_args()

    scene = concord.load_scene(args.scene).to_dict()  # resolved: rotations as matrices
    h = scene["time_step"]
    n = scene["planes"][0]["normal"]
    theta = math.atan2(abs(n[0]), n[1])
    print(f"incline {math.degrees(theta):.1f} deg, {args.steps} steps of {h} s")
    print(f"{'mu':>6} {'slide [m]':>12} {'analytic [m]':>13} {'contacts':>9}")
    for mu in args.mu:
        distance, world = slide_distance(scene, mu, args.steps)
        a = 9.81 * (math.sin(theta) - mu * math.cos(theta))
        expected = max(a, 0.0) * h * h * args.steps * (args.steps + 1) / 2
        print(f"{mu:6.2f} {distance:12.5f} {expected:13.5f} {len(world.contacts()):9d}")


if __name__ == "__main__":
    main()
