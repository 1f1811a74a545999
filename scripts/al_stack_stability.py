#!/usr/bin/env python3
"""Linear stability of augmented-Lagrangian contact with multipliers carried between steps.

    scripts/al_stack_stability.py [--heights 1,5,10,20,40] [--ratios 10,100,1000] [--updates 1,3,6]
                                  [--allowance BETA] [--load-compression ETA [--dhat D]]

A column of n equal masses m resting on the ground, each contact a penalty mu with a multiplier
lambda (the h^2-scaled units of the incremental potential, where inertia has stiffness m; the
engine's default penalty mu = al_penalty m h^2 is mu/m = 10 at h = 0.01). One time step, as
solver/al_newton_solver.cpp does it when the cumulative step is covered at once (a resting pile):
starting from the carried multipliers, `updates` times: x = argmin 1/2 m |x - x~|^2 +
1/2 mu |G x - lambda/mu|^2 (one Newton step: the problem is quadratic), then
lambda <- lambda - mu G x (all contacts active). The step maps (x, v, lambda) linearly (gravity
only shifts the fixed point); it is stable when its spectral radius is below 1.

With every step's multipliers converged the scheme is implicit Euler with hard contacts (stable
for any n); with a fixed number of updates the carried multipliers act as an integral of past
violations and the column oscillates with growing amplitude once n is large against mu/m. The
table prints the spectral radius; values above 1 are unstable. docs/benchmarks.md ("Augmented
Lagrangian at rest") compares it with the engine's box stacks.

--load-compression ETA gives each contact the engine's load floor (contact.al_load_compression):
a penalty of at least its resting load over ETA dhat, the load being the weight above it (in the
same h^2-scaled units, (n - c) m g h^2 for contact c counted from the ground). Around the
resting state the floor's dependence on lambda drops out to first order (the gap is zero there),
so each contact keeps a fixed penalty. docs/benchmarks.md ("Eleventh pass") prints its table.
"""

import argparse

import numpy as np


def step_matrix(n, ratio, updates, h, allowance=None, load_compression=None, dhat=1e-3,
                gravity=9.81):
    m = 1.0
    mu = np.full(n, ratio * m)  # one penalty per contact
    if load_compression is not None:
        load = (n - np.arange(n)) * m * gravity * h * h
        mu = np.maximum(mu, load / (load_compression * dhat))
    G = np.eye(n) - np.eye(n, k=-1)  # contact c: x_c - x_{c-1} (x_{-1}: the ground)
    H_inv = np.linalg.inv(m * np.eye(n) + G.T @ (mu[:, None] * G))
    T = np.zeros((3 * n, 3 * n))
    for j in range(3 * n):
        s = np.zeros(3 * n)
        s[j] = 1.0
        x, v, lam = s[:n], s[n:2 * n], s[2 * n:]
        x_tilde = x + h * v
        # --allowance beta: each step asks only g >= (1 - beta) g(start of step), i.e. corrects
        # a share beta of the violation it starts with (Baumgarte-like), not all of it.
        t = (1.0 - allowance) * (G @ x) if allowance is not None else np.zeros(n)
        xk, lk = x, lam.copy()
        for _ in range(updates):
            xk = H_inv @ (m * x_tilde + G.T @ (lk + mu * t))
            lk = lk - mu * (G @ xk - t)
        T[:, j] = np.concatenate([xk, (xk - x) / h, lk])
    return T


def spectral_radius(n, ratio, updates, h=0.01, allowance=None, load_compression=None, dhat=1e-3):
    T = step_matrix(n, ratio, updates, h, allowance, load_compression, dhat)
    return float(max(abs(np.linalg.eigvals(T))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--heights", default="1,5,10,20,40")
    ap.add_argument("--ratios", default="10,100,1000,10000")
    ap.add_argument("--updates", default="1,3,6")
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--allowance", type=float, default=None,
                    help="share beta of the start-of-step violation each step corrects")
    ap.add_argument("--load-compression", type=float, default=None,
                    help="eta of the penalty's load floor (contact.al_load_compression)")
    ap.add_argument("--dhat", type=float, default=1e-3)
    a = ap.parse_args()
    heights = [int(s) for s in a.heights.split(",")]
    ratios = [float(s) for s in a.ratios.split(",")]
    for u in [int(s) for s in a.updates.split(",")]:
        print(f"multiplier updates per step: {u}")
        print("| n | " + " | ".join(f"mu/m = {r:g}" for r in ratios) + " |")
        print("|---|" + "---|" * len(ratios))
        for n in heights:
            cells = []
            for r in ratios:
                rho = spectral_radius(n, r, u, a.dt, a.allowance, a.load_compression, a.dhat)
                cells.append(f"**{rho:.3f}**" if rho > 1.0 else f"{rho:.3f}")
            print(f"| {n} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
