"""Phase 1 of the Slurm test: the README's array across the cluster's nodes (every job exactly once, the merged
report), and the same jobs with `reel batch --parallel 2` on this machine for comparison."""

import os
import shutil
import time

from slurm_array import check_array_and_merge, check_merged, check_outputs, check_reports_shape, sbatch, wait_array
from slurm_common import NODES, SHARDS, check, load_json, log, partial_files, run, summary, tail


def phase1(work, jobs, expected, timeout):
    log(f"phase 1: sbatch the {SHARDS}-task array ({len(jobs)} jobs) across the {NODES} nodes")
    t0 = time.monotonic()
    job_id = sbatch(work)
    nodes = {}
    seconds, tasks = wait_array(job_id, timeout, nodes=nodes)
    wall = time.monotonic() - t0
    summary["timings"]["phase1_cluster_seconds"] = wall
    log(f"phase 1: array {job_id} done in {wall:.1f} s: {tasks}; ran on {nodes}")
    used = {node for seen in nodes.values() for node in seen}
    check(len(used) == NODES, f"phase 1: the tasks ran on all {NODES} nodes ({nodes})")
    # Each task's batch ran on the node Slurm gave it: the host name its reel saw is in the task's log.
    hosts = {}
    for task in tasks:
        log_text = tail(os.path.join(work, "logs", f"slurm-{job_id}_{task}.out"), 200)
        hosts[task] = next((line.split()[-1] for line in log_text.splitlines() if line.startswith("host ")), None)
    check(all(hosts[t] == nodes.get(t, [None])[-1] for t in tasks),
          f"phase 1: each task's script saw its node's own host name ({hosts})")
    check_reports_shape(work, jobs, "phase 1")
    merged = check_array_and_merge(work, jobs, tasks, "phase 1", {job["name"]: {"succeeded"} for job in jobs})
    if merged is None:
        return wall, None
    check_outputs(work, expected, [job["name"] for job in jobs], "phase 1")
    left = partial_files(os.path.join(work, "out"))
    check(not left, "phase 1: no .*.partial file left under out/" + (f": {left}" if left else ""))
    summary["trials"]["phase1_cluster"] = {
        "array_job": job_id, "wall_seconds": wall, "tasks": tasks, "nodes": nodes,
        "jobs": {j["name"]: j["status"] for j in merged}}
    return wall, merged


def local_run(work, reel, jobs, expected):
    local = os.path.join(work, "local")
    os.makedirs(local, exist_ok=True)
    shutil.copy(os.path.join(work, "jobs.json"), os.path.join(local, "jobs.json"))
    log("local: reel batch jobs.json --parallel 2 (same jobs, fresh out/)")
    t0 = time.monotonic()
    r = run([reel, "batch", "jobs.json", "--parallel", "2", "--report", "report.json", "--quiet"], cwd=local,
            check=False, capture_output=True)
    wall = time.monotonic() - t0
    summary["timings"]["local_parallel2_seconds"] = wall
    check(r.returncode == 0, f"local --parallel 2: exit {r.returncode}" + (f": {r.stderr.strip()[-500:]}" if r.returncode else ""))
    report = load_json(os.path.join(local, "report.json")) or {"jobs": []}
    check_merged(report["jobs"], jobs, "local --parallel 2", {job["name"]: {"succeeded"} for job in jobs})
    check_outputs(local, expected, [job["name"] for job in jobs], "local --parallel 2")
    summary["trials"]["local_parallel2"] = {"wall_seconds": wall,
                                           "jobs": {j["name"]: j["status"] for j in report["jobs"]}}
    shutil.rmtree(os.path.join(local, "out"), ignore_errors=True)
    return wall
