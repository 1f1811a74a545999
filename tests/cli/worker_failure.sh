#!/usr/bin/env bash
# A distributed MPI run that loses a worker (issue 18): a worker stopped (SIGSTOP: it stops
# answering) makes the controller end the run within the --worker-timeout with exit code 3 and
# one line naming the rank and the last complete frame; a worker killed (SIGKILL) makes mpirun
# end the run at once, and the controller says which frames the directory holds. Either way the
# output audits clean up to that frame and resumes, with another number of workers.
# Skipped (exit 77) without mpirun.
set -uo pipefail
concord="$1"
src="$2"
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun not installed"; exit 77; }
tmp="$(mktemp -d)"
trap 'pkill -9 -f -- "--out $tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
scene="$src/scenes/spheres-in-box.json"
mpi=(mpirun --allow-run-as-root --oversubscribe)
lines() { [ -f "$1/frames.jsonl" ] && wc -l <"$1/frames.jsonl" || echo 0; }

# The pid of MPI rank R of the run writing into DIR.
rank_pid() {  # dir, rank
    local p
    for p in $(pgrep -f -- "--out $1 "); do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
            echo "$p"
            return
        fi
    done
}

# Starts a 2-worker run into DIR, waits for 8 frames, sends SIGNAL to worker rank RANK, and
# waits for the run to end. Sets rc and seconds (from the signal to the end).
lose_worker() {  # dir, signal, rank
    "${mpi[@]}" -np 3 "$concord" run "$scene" --out "$1" --frames 2000 --threads 1 --mpi \
        --worker-timeout 3 --checkpoint-every 4 >"$1.log" 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null && [ "$(lines "$1")" -lt 8 ]; do sleep 0.05; done
    local victim
    victim="$(rank_pid "$1" "$3")"
    [ -n "$victim" ] || fail "no rank $3 process found"
    local t0
    t0="$(date +%s.%N)"
    kill "-$2" "$victim"
    wait "$pid"
    rc=$?
    seconds="$(python3 -c "import time; print(round(time.time() - $t0, 1))")"
    kill -9 "$victim" 2>/dev/null
}

# 1. A worker that stops answering.
lose_worker "$tmp/stopped" STOP 2
msg="$(grep "^concord: worker rank 2" "$tmp/stopped.log")"
[ "$rc" -eq 3 ] || fail "stopped worker: exit code $rc, expected 3 ($(tail -3 "$tmp/stopped.log"))"
python3 -c "import sys; sys.exit(0 if $seconds < 10 else 1)" || fail "stopped worker: the run took $seconds s to stop"
grep -q "has not answered for [0-9]* s .*holds frames 0 to [0-9]*; continue with --resume" <<<"$msg" ||
    fail "stopped worker: message: $(tail -5 "$tmp/stopped.log")"
last="$(sed -n 's/.*holds frames 0 to \([0-9]*\).*/\1/p' <<<"$msg")"
[ "$(lines "$tmp/stopped")" -eq $((last + 1)) ] || fail "stopped worker: the message says frame $last, frames.jsonl has $(lines "$tmp/stopped") lines"
echo "stopped worker: exit 3 after $seconds s: $msg"
"$concord" audit "$tmp/stopped" >/dev/null 2>&1 || fail "stopped worker: the output does not audit clean"
# Resumed on one worker (mpirun -np 2).
"${mpi[@]}" -np 2 "$concord" run "$scene" --out "$tmp/stopped" --frames $((last + 6)) --threads 1 --mpi --resume \
    >"$tmp/resume1.log" 2>&1 || fail "resume on 1 worker: $(tail -3 "$tmp/resume1.log")"
[ "$(lines "$tmp/stopped")" -eq $((last + 7)) ] || fail "resume on 1 worker: $(lines "$tmp/stopped") frame lines"
"$concord" audit "$tmp/stopped" >/dev/null 2>&1 || fail "resumed run does not audit clean"

# 2. A worker that dies: mpirun ends the run at once; the controller says what DIR holds.
lose_worker "$tmp/killed" KILL 1
if ! grep -q "^concord: the run was stopped from outside" "$tmp/killed.log"; then
    # mpirun sends SIGKILL 1 s after its SIGTERM: on a loaded machine (ctest -j2, CI of 7 Dec
    # 2026) the controller was once not scheduled in that second to write its message. Once more.
    echo "killed worker: no message from the controller on the first try; once more"
    rm -rf "$tmp/killed"
    lose_worker "$tmp/killed" KILL 1
fi
[ "$rc" -ne 0 ] || fail "killed worker: exit code 0"
python3 -c "import sys; sys.exit(0 if $seconds < 10 else 1)" || fail "killed worker: the run took $seconds s to stop"
grep -q "rank 1 .*exited on signal 9" "$tmp/killed.log" || fail "killed worker: mpirun did not name rank 1: $(tail -5 "$tmp/killed.log")"
grep -q "^concord: the run was stopped from outside.*holds frames 0 to [0-9]*; continue with --resume" "$tmp/killed.log" ||
    fail "killed worker: no message from the controller: $(tail -5 "$tmp/killed.log")"
echo "killed worker: mpirun exit $rc after $seconds s: $(grep '^concord: the run was stopped' "$tmp/killed.log")"
"$concord" audit "$tmp/killed" >/dev/null 2>&1 || fail "killed worker: the output does not audit clean"
# Resumed with three in-process workers.
n="$(lines "$tmp/killed")"
"$concord" run "$scene" --out "$tmp/killed" --frames $((n + 5)) --threads 1 --workers 3 --resume \
    >"$tmp/resume3.log" 2>&1 || fail "resume on 3 workers: $(tail -3 "$tmp/resume3.log")"
"$concord" audit "$tmp/killed" >/dev/null 2>&1 || fail "resumed run does not audit clean"
echo PASS
