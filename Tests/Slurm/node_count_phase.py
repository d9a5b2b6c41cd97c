"""Throughput per node count: the same array on the partitions `upto1` and `upto2` (the first one and two
nodes; phase 1 ran it on all of them). Every node here shares this machine's cores, so the figures show what
Slurm's scheduling costs and what one more node gives while there are cores to spare, not a real cluster's
scaling: with one task per node at a time, one node runs one job at a time; two nodes two (the machine's
two cores); a third node adds a task that shares them."""

import time

from slurm_array import check_array_and_merge, check_outputs, sbatch, wait_array
from slurm_common import check, fresh_outputs, log, summary


def node_count_phase(work, jobs, expected, timeout, counts):
    """Runs the array on each partition `uptoK` for K in counts; returns {K: seconds from submit to done}."""
    walls = {}
    for k in counts:
        fresh_outputs(work)
        label = f"phase 4 ({k} node{'s' if k > 1 else ''})"
        t0 = time.monotonic()
        job_id = sbatch(work, partition=f"upto{k}")
        nodes = {}
        _, tasks = wait_array(job_id, timeout, nodes=nodes)
        walls[k] = time.monotonic() - t0
        used = sorted({node for seen in nodes.values() for node in seen})
        log(f"{label}: array {job_id} done in {walls[k]:.1f} s on {used}")
        check(used == [f"node{i}" for i in range(1, k + 1)], f"{label}: the tasks ran on {used}")
        if check_array_and_merge(work, jobs, tasks, label, {job["name"]: {"succeeded"} for job in jobs}) is None:
            continue
        check_outputs(work, expected, [job["name"] for job in jobs], label)
        summary["trials"][f"phase4_nodes_{k}"] = {"array_job": job_id, "wall_seconds": walls[k], "nodes": nodes}
    return walls
