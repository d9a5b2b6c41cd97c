"""The node-death phase of the Slurm test: in the middle of the batch, the node running shard KILLED_SHARD loses
its power (SIGKILL to every process in its namespaces: slurmd, slurmstepd, the shard's reel, as a power cut
would leave them). Slurm must mark the node down and requeue the task (`#SBATCH --requeue`); the task runs
again on another node and completes only what was missing: the jobs whose files were under their final names
when the node died are `skipped`, the rest (the one cut short included) `succeeded`. No file under a final
name is truncated, before the re-run or after it."""

import os
import time

from slurm_array import array_records, check_array_and_merge, check_outputs, sbatch, wait_array
from slurm_common import (KILLED_SHARD, check, final_files, fresh_outputs, log, partial_files, run, summary,
                          validate)
from slurm_jobs import shard_of

CUT_AFTER = 0.3   # seconds into the shard's heavy transcode (5-10 s here; a machine several times faster still has it running) when its node dies


def node_state(node):
    r = run(["sinfo", "-h", "-N", "-n", node, "-p", "reel", "-o", "%T"], check=False, capture_output=True)
    return r.stdout.strip()


def node_death_phase(work, jobs, expected, timeout, cluster_sh, cluster):
    fresh_outputs(work)
    out = os.path.join(work, "out")
    shard_jobs = [job["name"] for i, job in enumerate(jobs, 1) if shard_of(i) == KILLED_SHARD]
    shard_hidden = {os.path.join(os.path.dirname(rel), "." + os.path.basename(rel) + ".partial")[len("out/"):]
                    for name in shard_jobs for rel in expected[name]}

    # Each file of a job by its path under out/: (kind, seconds, job name).
    by_file = {rel[len("out/"):]: (kind, seconds, name)
               for name, files in expected.items() for rel, (kind, seconds) in files.items()}

    def done_jobs():
        return [name for name in shard_jobs if all(os.path.exists(os.path.join(work, rel)) for rel in expected[name])]

    heavy = next(name for name in shard_jobs if name.startswith("heavy"))
    heavy_rel = next(iter(expected[heavy]))[len("out/"):]
    heavy_hidden = os.path.join(os.path.dirname(heavy_rel), "." + os.path.basename(heavy_rel) + ".partial")
    log(f"phase 3: sbatch the array; {CUT_AFTER} s into shard {KILLED_SHARD}'s {heavy} (after the jobs before it), "
        "its node loses its power")
    job_id = sbatch(work)
    nodes = {}
    state = {"killed_at": None, "node": None, "down_after": None, "heavy_seen": None}
    t0 = time.monotonic()

    def on_poll(tasks):
        now = time.monotonic()
        if state["killed_at"] is not None:
            if state["down_after"] is None and "down" in node_state(state["node"]):
                state["down_after"] = now - state["killed_at"]
                log(f"phase 3: {state['node']} is down {state['down_after']:.1f} s after its power went "
                    f"(sinfo: {node_state(state['node'])})")
            return
        task = tasks.get(str(KILLED_SHARD))
        if not task or task[0] != "RUNNING" or not nodes.get(str(KILLED_SHARD)):
            return
        if heavy_hidden not in partial_files(out):
            return
        state["heavy_seen"] = state["heavy_seen"] or now
        if now - state["heavy_seen"] < CUT_AFTER:
            return
        node = nodes[str(KILLED_SHARD)][-1]
        killed = run(["bash", cluster_sh, "kill", cluster, node[len("node"):]], check=False, capture_output=True)
        state.update(killed_at=time.monotonic(), node=node, pids=killed.stdout.split(),
                     kill_exit=killed.returncode, after_submit=now - t0)
        # Every process of the node is dead now: what is under a final name, or half-written under a hidden
        # one, stays as it is until the re-run.
        state["done"] = done_jobs()
        state["writing"] = sorted(set(partial_files(out)) & shard_hidden)
        state["finals"] = {rel: validate(work, "out/" + rel, *by_file[rel][:2]) for rel in final_files(out)
                           if rel in by_file and by_file[rel][2] in shard_jobs}
        log(f"phase 3: {node} (shard {KILLED_SHARD}) powered off {now - t0:.1f} s after submit: SIGKILL to "
            f"{len(state['pids'])} processes; its shard had finished {state['done']}, was writing {state['writing']}")

    _, tasks = wait_array(job_id, timeout, on_poll, nodes)
    wall = time.monotonic() - t0
    log(f"phase 3: array {job_id} done in {wall:.1f} s: {tasks}; ran on {nodes}")
    records = array_records(job_id) or {}
    restarts = records.get(str(KILLED_SHARD), {}).get("Restarts")
    killed = state["killed_at"] is not None
    check(killed and state["kill_exit"] == 0 and state["pids"] and heavy_hidden in state["writing"]
          and heavy not in state["done"] and len(state["done"]) >= 2,
          f"phase 3: {state['node']} powered off while shard {KILLED_SHARD} was writing {state.get('writing')} "
          f"after finishing {state.get('done')} ({len(state.get('pids') or [])} processes killed)")
    if not killed:
        return
    check(state["down_after"] is not None,
          f"phase 3: Slurm marked {state['node']} down ({state['down_after'] and round(state['down_after'], 1)} s after)")
    bad_finals = {rel: why for rel, why in state["finals"].items() if why}
    check(not bad_finals, f"phase 3: right after the power cut, the {len(state['finals'])} files of shard "
          f"{KILLED_SHARD} under final names are complete" + (f"; {bad_finals}" if bad_finals else ""))
    ran_on = nodes.get(str(KILLED_SHARD), [])
    check(restarts == "1" and len(ran_on) == 2 and ran_on[0] == state["node"] and ran_on[1] != state["node"],
          f"phase 3: task {KILLED_SHARD} was requeued once (Restarts={restarts}) and ran again on another node "
          f"(nodes {ran_on})")
    expect = {name: ({"skipped"} if name in state["done"] else {"succeeded"}) for name in expected}
    merged = check_array_and_merge(work, jobs, tasks, "phase 3", expect)
    if merged is None:
        return
    redone = sorted(set(shard_jobs) - set(state["done"]))
    log(f"phase 3: shard {KILLED_SHARD}'s re-run skipped {len(state['done'])} jobs and did {redone}")
    check_outputs(work, expected, [job["name"] for job in jobs], "phase 3 (after the re-run)")
    left = partial_files(out)
    check(not left, "phase 3: no .*.partial file left under out/ (the dead run's were written over by the re-run)"
          + (f": {left}" if left else ""))
    summary["trials"]["phase3_node_death"] = {
        "array_job": job_id, "wall_seconds": wall, "tasks": tasks, "nodes": nodes, "node": state["node"],
        "killed_after_submit_seconds": state["after_submit"], "killed_pids": state["pids"],
        "down_seconds_after_kill": state["down_after"], "restarts": restarts,
        "done_before_kill": state["done"], "writing_at_kill": state["writing"], "redone": redone,
        "jobs": {j["name"]: j["status"] for j in merged}}
    summary["timings"]["phase3_node_death_seconds"] = wall
