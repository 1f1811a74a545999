#!/usr/bin/env python3
"""Writes scenes/robot-arm.json: the paper's "industrial parts and robotic arm" scene at CPU scale.

A 6-joint arm (scenes/robots/arm6.urdf, z up, a hook as its tool) stands beside a container
whose crossbar carries a pull ring. Industrial parts (L-brackets, bolts as capsules, nuts as hex
prisms) fall into the container first; then the arm swings over, lowers its hook beside the
ring, pushes it through the ring, and lifts the container with everything in it.

The arm's motion is a list of tool waypoints (hook position and a horizontal hook), turned into
joint targets by closed-form planar inverse kinematics (pan = 0: the arm moves in the xz plane)
and written as piecewise-linear schedules of stiff position drives, one keyframe per waypoint
so that the hook moves along straight lines through the ring.

    python3 scripts/make_robot_arm_scene.py [--parts 4 1 4] [--out FILE]

6 kinds (3 parts x 2 sides) x NX x NY x NZ parts: 96 by default (--parts 4 2 4, 192 parts,
runs about 4x longer: ~12 s per frame once they have landed, on 2 cores).
"""

import argparse
import json
import math
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]

# arm6.urdf (pan = 0, all in the xz plane): shoulder axis height, link lengths, and the
# distance from the wrist_1 axis to the hook's reference point (wrist1 0.08 + wrist2 0.06 +
# the stem 0.14, its far end).
SHOULDER_Z = 0.22
UPPER, FORE = 0.40, 0.35
WRIST_TO_HOOK = 0.08 + 0.06 + 0.14

# The container (its body frame at its centre; inner size 0.3 x 0.3 x 0.15 m, z up).
CONTAINER_X = 0.62
INNER = (0.30, 0.30, 0.15)
WALL = 0.01
BOTTOM_GAP = 0.0005


def ik(x, z):
    """Joint angles (shoulder_lift, elbow, wrist_1) that put the hook's far end at (x, z) with
    the hook horizontal, pointing +x (the stem along +x, its tip up)."""
    wx, wz = x - WRIST_TO_HOOK, z  # the wrist_1 axis
    dx, dz = wx, wz - SHOULDER_Z
    d = math.hypot(dx, dz)
    if d > UPPER + FORE - 1e-6:
        raise ValueError(f"({x}, {z}) is out of reach")
    # Elbow up: the upper arm leans less than the line to the wrist.
    cos_e = (d * d - UPPER * UPPER - FORE * FORE) / (2 * UPPER * FORE)
    elbow = math.acos(max(-1.0, min(1.0, cos_e)))
    # Angles from +z towards +x (a positive rotation about y).
    line = math.atan2(dx, dz)
    lift = line - math.atan2(FORE * math.sin(elbow), UPPER + FORE * math.cos(elbow))
    wrist = math.pi / 2 - lift - elbow
    return lift, elbow, wrist


def fk(lift, elbow, wrist):
    ex, ez = UPPER * math.sin(lift), SHOULDER_Z + UPPER * math.cos(lift)
    a2 = lift + elbow
    wx, wz = ex + FORE * math.sin(a2), ez + FORE * math.cos(a2)
    a3 = a2 + wrist
    return wx + WRIST_TO_HOOK * math.sin(a3), wz + WRIST_TO_HOOK * math.cos(a3)


def container_body():
    ix, iy, iz = INNER
    height = iz + WALL  # outer height (floor thickness + cavity)
    z_center = BOTTOM_GAP + height / 2
    top = height / 2  # wall tops, body frame
    bar = {"shape": {"box": {"size": [0.02, iy + 2 * WALL, 0.02]}}, "position": [0, 0, top + 0.01]}
    post = {"shape": {"box": {"size": [0.02, 0.02, 0.03]}}, "position": [0, 0, top + 0.035]}
    ring_z = top + 0.05 + 0.06 - 0.005  # the ring's lowest point dips into the post
    ring = {"shape": {"torus": {"major_radius": 0.05, "minor_radius": 0.01, "segments": 24,
                                "rings": 8}},
            "position": [0, 0, ring_z],
            # The torus's axis is y; turned about z its hole looks along x.
            "rotation": {"axis": [0, 0, 1], "angle_deg": 90}}
    box = {"shape": {"container": {"size": [ix, iz, iy], "wall_thickness": WALL}},
           # Concord's container opens towards +y; turned about x it opens upwards.
           "rotation": {"axis": [1, 0, 0], "angle_deg": 90}}
    return {"name": "container", "shape": {"compound": {"parts": [box, bar, post, ring]}},
            "material": "plastic", "friction": 0.6,
            "position": [CONTAINER_X, 0, z_center]}, z_center + ring_z


def parts(counts):
    """L-brackets, bolts and nuts in arrays above the two halves of the container (clear of
    the crossbar and the ring at its middle)."""
    nx, ny, nz = counts
    out = []
    kinds = [
        # An L-bracket (scenes/meshes/l_bracket.obj, 24 x 24 x 12 mm at this scale).
        ("bracket", {"mesh": {"file": "meshes/l_bracket.obj", "scale": 0.12}}, [0, 0, 1], 0),
        # An M12 bolt, 44 mm long, standing up.
        ("bolt", {"capsule": {"radius": 0.006, "height": 0.032, "segments": 8, "rings": 2}},
         [1, 0, 0], 90),
        # A nut: a hexagonal prism, 24 mm across the corners, 10 mm thick, lying flat.
        ("nut", {"cylinder": {"radius": 0.012, "height": 0.01, "segments": 6}}, [1, 0, 0], 90),
    ]
    for side, sx in (("a", -1), ("b", 1)):
        for k, (name, shape, axis, angle) in enumerate(kinds):
            out.append({
                "name": f"{name}_{side}",
                "shape": shape,
                "material": "steel",
                # The first copy; the others follow at +x, +y, +z (side a ends and side b
                # starts 4 cm from the middle, clear of the crossbar and the ring).
                "position": [CONTAINER_X + (-0.13 if sx < 0 else 0.04), -0.11 + 0.085 * k, 0.21],
                "rotation": {"axis": axis, "angle_deg": angle},
                "array": {"count": [nx, ny, nz], "spacing": [0.03, 0.035, 0.05],
                          "jitter": {"position": 0.002, "rotation_deg": 12,
                                     "seed": 7 + k + 3 * (sx > 0)}},
            })
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "scenes" / "robot-arm.json"))
    parser.add_argument("--parts", type=int, nargs=3, default=[4, 1, 4], metavar=("NX", "NY", "NZ"),
                        help="copies of each part kind on each side of the ring (x, y, z)")
    args = parser.parse_args()

    container, ring_z = container_body()
    hook_z = ring_z - 0.01  # the stem's axis 1 cm below the ring's centre
    ring_x = CONTAINER_X
    # Waypoints: (time s, hook x, hook z); the first keeps the arm straight up.
    waypoints = [
        (0.6, ring_x - 0.08, hook_z + 0.25),  # swing over, above and before the ring
        (1.2, ring_x - 0.08, hook_z),         # lower beside it
        (2.0, ring_x + 0.09, hook_z),         # push the hook through
        (3.2, ring_x + 0.09, hook_z + 0.2),   # lift the container by 0.2 m
    ]
    steps_per_segment = 8
    keys = {"shoulder_lift": [[0.0, 0.0]], "elbow": [[0.0, 0.0]], "wrist_1": [[0.0, 0.0]]}
    t_prev, x_prev, z_prev = None, None, None
    for t, x, z in waypoints:
        if t_prev is None:
            samples = [(t, x, z)]
        else:
            samples = [(t_prev + (t - t_prev) * i / steps_per_segment,
                        x_prev + (x - x_prev) * i / steps_per_segment,
                        z_prev + (z - z_prev) * i / steps_per_segment)
                       for i in range(1, steps_per_segment + 1)]
        for ts, xs, zs in samples:
            angles = ik(xs, zs)
            fx, fz = fk(*angles)
            assert abs(fx - xs) < 1e-9 and abs(fz - zs) < 1e-9
            for name, a in zip(("shoulder_lift", "elbow", "wrist_1"), angles):
                keys[name].append([round(ts, 6), round(a, 6)])
        t_prev, x_prev, z_prev = t, x, z

    stiff = {"mode": "position", "ke": 2e4, "kd": 400}
    wrist = {"mode": "position", "ke": 1e4, "kd": 100}
    targets = {
        "shoulder_pan": dict(stiff, target=0.0),
        "shoulder_lift": dict(stiff, schedule={"keyframes": keys["shoulder_lift"]}),
        "elbow": dict(stiff, schedule={"keyframes": keys["elbow"]}),
        "wrist_1": dict(wrist, schedule={"keyframes": keys["wrist_1"]}),
        "wrist_2": dict(wrist, target=0.0),
        "wrist_3": dict(wrist, target=0.0),
    }
    scene = {
        "$schema": "../schema/scene.schema.json",
        "name": "robot-arm",
        "time_step": 0.01,
        "frames": 80,
        "substeps": 5,
        "gravity": [0, 0, -9.81],
        "contact": {"dhat": 0.001, "friction": 0.5},
        # As the other dense scenes (docs/solver.md): steps end on the step norm, and a pile's
        # rare slow step stops at 40 iterations (still intersection-free).
        "solver": {"convergence_mode": "step_norm", "max_iterations": 40},
        "materials": {"steel": {"density": 7800, "youngs_modulus": 2e11},
                      "plastic": {"density": 1000, "youngs_modulus": 2e9},
                      "aluminium": {"density": 2700, "youngs_modulus": 7e10}},
        "planes": [{"point": [0, 0, 0], "normal": [0, 0, 1], "friction": 0.5}],
        "bodies": [container] + parts(args.parts),
        "robots": [{"name": "arm", "urdf": "robots/arm6.urdf", "position": [0, 0, 0.0005],
                    "material": "aluminium", "joint_targets": targets}],
    }
    pathlib.Path(args.out).write_text(json.dumps(scene, indent=1) + "\n")
    print(f"wrote {args.out}: hook through the ring at z = {hook_z:.4f} m, "
          f"{len(keys['elbow'])} keyframes per joint")


if __name__ == "__main__":
    main()
