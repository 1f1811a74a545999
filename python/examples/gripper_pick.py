"""A gripper from URDF picks up a cube, driven from Python one step at a time.

Loads scenes/robot-gripper.json (scenes/robots/gripper.urdf: a fixed mount, a carriage on a
vertical slide "lift", two fingers that slide towards each other, "left" and "right"; z up)
and replaces its scheduled targets with a small controller: lower the open gripper, close
the fingers on the cube, lift, each phase a ramp of targets sent with
world.set_joint_targets before every step. Prints the joint positions read back as numpy
arrays and the cube's height, and exits with an error if the cube is not lifted.

    PYTHONPATH=build/python python3 python/examples/gripper_pick.py [--out DIR]

With --out the same run is also written as an output directory (`concord view DIR`).
"""

import argparse
import pathlib
import sys

import numpy as np

import concord

ROOT = pathlib.Path(__file__).resolve().parents[2]

# (seconds, {joint: target at the end of the phase}); targets move linearly within a phase.
PHASES = [
    (0.6, {"gripper.lift": -0.12, "gripper.left": 0.0, "gripper.right": 0.0}),   # lower, open
    (0.5, {"gripper.left": 0.08, "gripper.right": 0.08}),                        # close
    (0.6, {"gripper.lift": 0.0}),                                               # lift 0.12 m
    (0.4, {}),                                                                   # hold
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default=str(ROOT / "scenes" / "robot-gripper.json"))
    parser.add_argument("--out", help="also write an output directory here")
    args = parser.parse_args()

    world = concord.World(args.scene)
    h = world.scene.time_step
    names = world.joint_names
    cube = world.body_index("cube")
    z0 = float(world.q[cube, 2])
    target = dict(zip(names, world.joint_positions))   # start from where the joints are

    print(f"joints: {', '.join(names)}")
    print(f"{'t (s)':>6} {'lift':>8} {'left':>8} {'right':>8} {'cube z':>8}")
    for seconds, goal in PHASES:
        start = dict(target)
        steps = int(round(seconds / h))
        for n in range(1, steps + 1):
            for joint, end in goal.items():
                target[joint] = start[joint] + (end - start[joint]) * n / steps
            world.set_joint_targets({j: target[j] for j in goal})
            world.step()
        pos = world.joint_positions   # numpy array, one entry per joint
        print(f"{world.time:6.2f} {pos[0]:8.4f} {pos[1]:8.4f} {pos[2]:8.4f} "
              f"{world.q[cube, 2]:8.4f}")

    lifted = float(world.q[cube, 2]) - z0
    print(f"cube lifted by {lifted:.4f} m; joint velocities now {np.round(world.joint_velocities, 4)}")
    if args.out:
        world.run(args.out, frames=0, force=True)
        print(f"wrote the final state to {args.out}")
    if lifted < 0.1:
        print("the cube was not lifted", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
