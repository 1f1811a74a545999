"""Contacts over time: the number of active pairs and the total normal force per step.

Simulates scenes/box-stack.json (ten crates) and prints one line per step; with matplotlib
installed it also writes contacts.png, otherwise it says so and skips the plot.

    PYTHONPATH=build/python python3 python/examples/contacts_plot.py [--steps 40] [--out DIR]
"""

import argparse
import pathlib

import concord

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default=str(ROOT / "scenes" / "box-stack.json"))
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--out", default=".", help="folder for contacts.png")
    args = parser.parse_args()

    world = concord.World(args.scene)
    weight = sum(world.body_info(b)["mass"] for b in range(world.num_bodies)) * 9.81
    times, counts, plane_forces = [], [], []
    print(f"{'t [s]':>7} {'contacts':>9} {'min d [m]':>10} {'plane force [N]':>16}")
    for _ in range(args.steps):
        world.step()
        r = world.contacts()
        on_plane = [c.force for c in r if c.kind == concord.ContactKind.point_plane]
        times.append(world.time)
        counts.append(len(r))
        plane_forces.append(sum(on_plane))
        d = f"{r.distances.min():.3g}" if len(r) else "-"
        print(f"{world.time:7.3f} {len(r):9d} {d:>10} {plane_forces[-1]:16.2f}")
    print(f"total weight {weight:.2f} N")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: skipping the plot")
        return
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(6, 5))
    ax1.plot(times, counts)
    ax1.set_ylabel("active contact pairs")
    ax2.plot(times, plane_forces, label="on the ground plane")
    ax2.axhline(weight, color="gray", linestyle="--", label="total weight")
    ax2.set_xlabel("time [s]")
    ax2.set_ylabel("normal force [N]")
    ax2.legend()
    path = pathlib.Path(args.out) / "contacts.png"
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
