#!/usr/bin/env bash
# The augmented Lagrangian's iterate must not run away from the admissible state (issue 17;
# docs/solver.md, "Augmented-Lagrangian contact", step 4): robot-arm under
# `augmented_lagrangian` with gravity changed by 1e-9 and 1e-7 (trajectories on which, before the
# iterate restarted at the admissible state, frame 4's active set grew to hundreds of thousands
# of pairs: 1-24 GB and a failed run). Each variant must run its first 6 frames (the parts land
# in the container at frame ~4), converge every step, stay under 1 GB and audit clean.
set -euo pipefail
source "$2/tests/cli/data/checks.sh" "$@"
command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 1; }
# The scene's meshes and robots are found next to it.
ln -s "$src/scenes/meshes" "$tmp/meshes"
ln -s "$src/scenes/robots" "$tmp/robots"

for g in -9.81000001 -9.809999; do
    python3 - "$src/scenes/robot-arm.json" "$tmp/arm.json" "$g" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.setdefault("contact", {})["model"] = "augmented_lagrangian"
d["gravity"][2] = float(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
    out="$tmp/out$g"
    # The child's peak resident memory, read by the parent (no GNU time needed).
    if python3 - "$concord" "$tmp/arm.json" "$out" "$g" <<'PY'; then
import resource, subprocess, sys
concord, scene, out, g = sys.argv[1:]
r = subprocess.run([concord, "run", scene, "--out", out, "--frames", "6", "--force"],
                   capture_output=True, text=True, timeout=600)
if r.returncode != 0:
    sys.exit(f"gravity {g}: concord run exited with {r.returncode}: {r.stderr.strip().splitlines()[-1:]}")
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"gravity {g}: 6 frames, peak {peak_mb:.0f} MB")
if peak_mb > 1024:
    sys.exit(f"gravity {g}: peak memory {peak_mb:.0f} MB (at most 1024 expected)")
PY
        ok "gravity $g: 6 frames under 1 GB"
    else
        fail "gravity $g: see above"
        continue
    fi
    if python3 - "$out" "$g" <<'PY'; then ok "gravity $g: every step converged"; else fail "gravity $g: a step did not converge"; fi
import json, sys
for line in open(sys.argv[1] + "/frames.jsonl"):
    f = json.loads(line)
    if f["frame"] > 0 and not f["stats"]["converged"]:
        sys.exit(f"gravity {sys.argv[2]}: frame {f['frame']} not converged: {f['stats']}")
PY
    if "$concord" audit "$out" --quiet >"$tmp/audit" 2>&1 &&
        grep -q "^audit: clean: no intersection in 7 frames" "$tmp/audit"; then
        ok "gravity $g: audit clean"
    else
        fail "gravity $g: audit: $(cat "$tmp/audit")"
    fi
done
finish
