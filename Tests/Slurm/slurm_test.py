#!/usr/bin/env python3
"""Slurm end to end (`make slurm-test`): `reel batch JOBS.json --shard I/N --report FILE` on a real Slurm cluster
of three nodes on this one machine (Tests/Slurm/cluster.sh: one slurmctld and munged; node1..node3, each a
slurmd in a network and UTS namespace of its own, with its own address on a bridge and its own host name; the
file system shared as a cluster's NFS folder would be; all state in a temporary folder).

    python3 Tests/Slurm/slurm_test.py --reel PATH_TO_REEL [--keep DIR]

1. Makes two source movies (4 s 352x288, 20 s 640x480) and a job file of 48 transcode, grab and record jobs
   (slurm_jobs.py); each shard's first job is a heavy transcode (the 20 s movie at 640x480 or larger), so a
   task can be interrupted in the middle of one.
2. Phase 1 (array_phase.py): the README's job-array script (`#SBATCH --array=1-4`, `--requeue`, `reel batch
   jobs.json --shard "$SLURM_ARRAY_TASK_ID/4" --report "reports/shard-$SLURM_ARRAY_TASK_ID.json"`) through
   sbatch; `--cpus-per-task=2` on nodes of 2 slots: one task per node at a time, the fourth waits for a free
   node. The tasks ran on all three nodes, each saw its node's host name; the shard reports merged with the
   README's jq line; every job exactly once, succeeded, its output valid (ffprobe: a movie has video and the
   duration it should have, a picture decodes); no `.*.partial` left. Then the same jobs with `reel batch
   jobs.json --parallel 2` on this machine, for comparison.
3. Phase 4 (node_count_phase.py): the array on the first one and two nodes, for throughput per node count.
4. Phase 2 (cancel_phase.py): once shard 2 is in the middle of its heavy transcode, `scancel JOBID_2`
   (SIGTERM); nothing truncated under a final name; the array submitted again does only what was missing.
5. Phase 3 (node_death_phase.py): in the middle of the batch the node running shard 2 loses its power (SIGKILL
   to everything in its namespaces); Slurm marks it down, requeues the task, which runs again on another node
   and does only what was missing; nothing truncated under a final name, before or after.

Prints PASS/FAIL lines, a closing `N passed, N failed` line, the path of a JSON summary (trials, timings,
what each job ended as, which node ran what), and the daemons' log tails on failure; exits 1 on any failure.
The cluster is taken down in any case (and on SIGTERM/Ctrl-C). About 3 minutes on 2 cores, plus ~10 s to
install slurm-wlm and munge the first time. Needs root (namespaces, a bridge). Standard library only; uses
jq, ffprobe, ip, nsenter, sbatch, sinfo, scontrol and scancel."""

import argparse
import glob
import json
import os
import shlex
import shutil
import signal
import sys
import tempfile
import time

from array_phase import local_run, phase1
from cancel_phase import cancel_phase
from node_count_phase import node_count_phase
from node_death_phase import node_death_phase
from slurm_array import ARRAY_SCRIPT, processes_using
from slurm_common import CPUS_PER_TASK, NODES, SHARDS, SOURCE_SECONDS, HEAVY_SECONDS, LAVFI_AUDIO, LAVFI_VIDEO
from slurm_common import check, log, results, run, summary, tail
from slurm_jobs import expected_outputs, make_jobs

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER_SH = os.path.join(HERE, "cluster.sh")

# ---------------------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reel", required=True, help="the reel binary to test")
    parser.add_argument("--keep", help="work in this folder and keep it (default: a temporary folder, removed on success)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait for one array run (default 300)")
    args = parser.parse_args()

    reel = os.path.abspath(args.reel)
    if not (os.path.isfile(reel) and os.access(reel, os.X_OK)):
        sys.exit(f"slurm-test: {reel} is not an executable")
    started = time.monotonic()
    if args.keep:
        work = os.path.abspath(args.keep)
        if os.path.isdir(os.path.join(work, "cluster")):
            run(["bash", CLUSTER_SH, "down", os.path.join(work, "cluster")], check=False)
        if os.path.isdir(work) and os.listdir(work):
            if not os.path.exists(os.path.join(work, "jobs.json")) and not os.path.exists(os.path.join(work, "summary.json")):
                sys.exit(f"slurm-test: {work} is not empty and not an earlier run's folder; give an empty or new folder")
            shutil.rmtree(work)  # an earlier run's folder: start afresh
        os.makedirs(work, exist_ok=True)
    else:
        work = tempfile.mkdtemp(prefix="reel-slurm-")
    # munged wants every folder above its socket searchable by all; mkdtemp makes 0700.
    os.chmod(work, 0o755)
    cluster = os.path.join(work, "cluster")
    for d in ("out", "reports", "logs"):
        os.makedirs(os.path.join(work, d), exist_ok=True)
    summary.update({"work": work, "reel": reel, "shards": SHARDS, "cpus_per_task": CPUS_PER_TASK,
                    "cpus": os.cpu_count()})

    # SIGTERM/SIGINT to the test still tears the cluster down (the finally below).
    def interrupted(signum, _):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, interrupted)

    crashed = None
    try:
        t = time.monotonic()
        up = run(["bash", CLUSTER_SH, "up", cluster, str(NODES)], check=False, capture_output=True)
        sys.stderr.write(up.stderr)
        if up.returncode != 0:
            check(False, f"cluster.sh up failed (exit {up.returncode})")
            raise RuntimeError("no cluster")
        os.environ["SLURM_CONF"] = os.path.join(cluster, "slurm.conf")
        summary["timings"]["cluster_up_seconds"] = time.monotonic() - t
        shown = run(["scontrol", "show", "node", "-o"], capture_output=True).stdout.splitlines()
        nodes = [dict(f.split("=", 1) for f in line.split() if "=" in f) for line in shown]
        described = ", ".join(f"{n.get('NodeName')} {n.get('NodeAddr')} {n.get('State')}" for n in nodes)
        print(f"cluster: {len(nodes)} nodes ({described})", flush=True)
        summary["nodes"] = described
        check(len(nodes) == NODES and len({n.get("NodeAddr") for n in nodes}) == NODES
              and all(n.get("State", "").startswith("IDLE") for n in nodes),
              f"cluster up in {summary['timings']['cluster_up_seconds']:.1f} s: {NODES} idle nodes, each at an "
              f"address of its own ({described})")

        t = time.monotonic()
        src = os.path.join(work, "src.mov")
        big = os.path.join(work, "big.mov")
        run([reel, "record", src, "--video", LAVFI_VIDEO, "--audio", LAVFI_AUDIO, "--preset", "352x288",
             "--max-duration", str(int(SOURCE_SECONDS)), "--quiet"])
        run([reel, "record", big, "--video", LAVFI_VIDEO, "--audio", LAVFI_AUDIO, "--preset", "640x480",
             "--max-duration", str(int(HEAVY_SECONDS)), "--quiet"])
        summary["timings"]["sources_seconds"] = time.monotonic() - t
        jobs = make_jobs(src, big)
        expected = expected_outputs(jobs)
        with open(os.path.join(work, "jobs.json"), "w") as f:
            json.dump({"defaults": {"minFree": "100M"}, "jobs": jobs}, f, indent=1)
        with open(os.path.join(work, "array.sh"), "w") as f:
            f.write(ARRAY_SCRIPT.format(n=SHARDS, cpus=CPUS_PER_TASK, reel=shlex.quote(reel)))
        chk = run([reel, "batch", "jobs.json", "--check"], cwd=work, check=False, capture_output=True)
        check(chk.returncode == 0, f"job file of {len(jobs)} jobs validates: {chk.stdout.strip().splitlines()[:1]}"
              + (chk.stderr.strip() if chk.returncode else ""))
        summary["jobs"] = len(jobs)

        cluster_wall, _ = phase1(work, jobs, expected, args.timeout)
        local_wall = local_run(work, reel, jobs, expected)
        walls = node_count_phase(work, jobs, expected, args.timeout, range(1, NODES))
        walls[NODES] = cluster_wall
        cancel_phase(work, jobs, expected, args.timeout)
        node_death_phase(work, jobs, expected, args.timeout, CLUSTER_SH, cluster)

        n = len(jobs)
        summary["throughput"] = {"jobs": n, "cores": os.cpu_count(),
                                 "seconds_by_nodes": {k: walls[k] for k in sorted(walls)},
                                 "jobs_per_minute_by_nodes": {k: n / walls[k] * 60 for k in sorted(walls)},
                                 "local_parallel2_seconds": local_wall,
                                 "local_parallel2_jobs_per_minute": n / local_wall * 60}
        figures = "; ".join(f"{k} node{'s' if k > 1 else ''} {walls[k]:.1f} s = {n / walls[k] * 60:.0f} jobs/min"
                            for k in sorted(walls))
        log(f"throughput, submit to all done ({SHARDS} tasks x {CPUS_PER_TASK} CPUs, nodes of {CPUS_PER_TASK} "
            f"slots on {os.cpu_count()} cores): {figures}; reel batch --parallel 2 on the machine: "
            f"{local_wall:.1f} s = {n / local_wall * 60:.0f} jobs/min ({n} jobs)")
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - any error is a test failure, reported below
        crashed = e
        if not isinstance(e, RuntimeError) or str(e) != "no cluster":
            check(False, f"test aborted: {type(e).__name__}: {e}")
    finally:
        failed = [m for ok, m in results if not ok]
        if failed and os.path.isdir(cluster):
            logs = ["log/slurmctld.log", "munge/log/munged.log"] + sorted(
                os.path.relpath(f, cluster) for f in glob.glob(os.path.join(cluster, "log", "slurmd-*.log")))
            for name in logs:
                print(f"----- tail of {os.path.join(cluster, name)}")
                print(tail(os.path.join(cluster, name)), end="")
            for f in sorted(glob.glob(os.path.join(work, "logs", "*.out"))):
                print(f"----- {f}")
                print(tail(f, 10), end="")
        down = run(["bash", CLUSTER_SH, "down", cluster], check=False, capture_output=True)
        sys.stderr.write(down.stderr)
        leftovers = processes_using(work)
        check(down.returncode == 0 and not leftovers,
              "cluster down, no daemon left running" + (f" (left: pids {leftovers})" if leftovers else ""))

    total = time.monotonic() - started
    summary["timings"]["total_seconds"] = total
    failed = [m for ok, m in results if not ok]
    if args.keep:
        summary_path = os.path.join(work, "summary.json")
    else:
        fd, summary_path = tempfile.mkstemp(prefix="reel-slurm-summary-", suffix=".json")
        os.close(fd)
    with open(summary_path, "w") as f:
        json.dump(summary, f, indent=1, default=str)
    if not args.keep:
        if failed:
            log(f"work folder kept for inspection: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    log(f"summary: {summary_path}; total {total:.0f} s")
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or crashed else 0


if __name__ == "__main__":
    sys.exit(main())
