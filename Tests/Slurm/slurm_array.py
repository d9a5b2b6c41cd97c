"""The job array under Slurm: submitting the README's script, following its tasks, merging their reports, and
the checks every phase makes of them."""

import json
import os
import time

from slurm_common import SHARDS, check, load_json, run, validate
from slurm_jobs import shard_of


ARRAY_SCRIPT = """#!/bin/bash
#SBATCH --array=1-{n}
#SBATCH --cpus-per-task={cpus}
#SBATCH --requeue
#SBATCH --job-name=reel-batch
#SBATCH --output=logs/slurm-%A_%a.out
echo "host $(hostname)"
{reel} batch jobs.json --shard "$SLURM_ARRAY_TASK_ID/{n}" --report "reports/shard-$SLURM_ARRAY_TASK_ID.json"
"""

MERGE = """jq -s '[.[].jobs[] | select(.status != "notInShard")]' reports/shard-*.json > report.json"""

TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL",
            "DEADLINE", "PREEMPTED"}


def sbatch(work, partition=None):
    """Submits array.sh (to the default partition, every node, or to `partition`); returns the array's id."""
    r = run(["sbatch", "--parsable"] + (["--partition", partition] if partition else []) + ["array.sh"],
            cwd=work, capture_output=True)
    return r.stdout.strip().split(";")[0]


def array_records(job_id):
    """{task id or range string: scontrol's fields} from `scontrol show job -o` (pending tasks of an array
    are one record with a range as ArrayTaskId). None when slurmctld does not know the job (any more)."""
    r = run(["scontrol", "show", "job", "-o", job_id], check=False, capture_output=True)
    if r.returncode != 0:
        return None
    records = {}
    for line in r.stdout.splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        records[fields.get("ArrayTaskId", "?")] = fields
    return records


def array_tasks(job_id):
    """{task id or range string: (state, exit code)}, or None (see array_records)."""
    records = array_records(job_id)
    if records is None:
        return None
    return {task: (f.get("JobState", "?"), f.get("ExitCode", "?")) for task, f in records.items()}


def wait_array(job_id, timeout, on_poll=None, nodes=None):
    """Polls until every task of the array is in a terminal state. Returns (seconds, {task: (state, exit)}).
    `nodes`, a dict, gets each task's nodes in the order it was seen running on them (a requeued task: two)."""
    start = time.monotonic()
    last = {}
    while True:
        records = array_records(job_id)
        tasks = None if records is None else {
            task: (f.get("JobState", "?"), f.get("ExitCode", "?")) for task, f in records.items()}
        if nodes is not None and records is not None:
            for task, f in records.items():
                node = f.get("BatchHost") or f.get("NodeList")
                if f.get("JobState") in ("RUNNING", "COMPLETED") and node not in (None, "(null)") \
                        and node not in nodes.get(task, []):
                    nodes.setdefault(task, []).append(node)
        if tasks is not None:
            last.update(tasks)
            for k in [k for k in last if not k.isdigit() and k not in tasks]:
                del last[k]  # a pending range that has since been split into tasks
        # Done when every task slurmctld still knows (finished ones are forgotten MinJobAge after) is over.
        if last and all(state in TERMINAL for state, _ in last.values()) and all(k.isdigit() for k in last) \
                and (tasks is None or all(state in TERMINAL for state, _ in tasks.values())):
            return time.monotonic() - start, last
        if on_poll:
            on_poll(tasks or {})
        if time.monotonic() - start > timeout:
            raise TimeoutError(f"array {job_id} not done after {timeout} s: {tasks}")
        time.sleep(0.2)


def merge_reports(work):
    if os.path.exists(os.path.join(work, "report.json")):
        os.remove(os.path.join(work, "report.json"))
    r = run(["bash", "-c", MERGE], cwd=work, check=False, capture_output=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    with open(os.path.join(work, "report.json")) as f:
        return json.load(f), None



def processes_using(folder):
    """Processes other than this one (and its parent) whose command line names the folder or that run in it: daemons and
    job processes that `cluster.sh down` should have ended."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) in (os.getpid(), os.getppid()):
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if folder in cmdline or cwd == folder or cwd.startswith(folder + "/"):
            found.append(f"{pid} {cmdline.strip()[:80]}")
    return found



def check_reports_shape(work, jobs, label):
    """Each shard's report lists every job; its own jobs are not notInShard, the others are."""
    ok = True
    for shard in range(1, SHARDS + 1):
        report = load_json(os.path.join(work, "reports", f"shard-{shard}.json"))
        if report is None:
            ok = check(False, f"{label}: reports/shard-{shard}.json missing or unreadable") and ok
            continue
        names = [j.get("name") for j in report.get("jobs", [])]
        mine = {job["name"] for i, job in enumerate(jobs, 1) if shard_of(i) == shard}
        wrong = [j["name"] for j in report["jobs"] if (j["status"] == "notInShard") == (j["name"] in mine)]
        if sorted(names) != sorted(job["name"] for job in jobs) or wrong:
            ok = check(False, f"{label}: shard {shard} report lists {len(names)} jobs, wrong shard status for {wrong}") and ok
    if ok:
        check(True, f"{label}: each of the {SHARDS} shard reports lists all {len(jobs)} jobs, "
              f"{len(jobs) // SHARDS} in its shard (I, I+{SHARDS}, ...), the rest notInShard")
    return ok


def check_merged(merged, jobs, label, expect):
    """expect: {name: set of allowed statuses}. Every job exactly once."""
    names = [j.get("name") for j in merged]
    counts = {n: names.count(n) for n in set(names)}
    dupes = sorted(n for n, c in counts.items() if c > 1)
    missing = sorted(job["name"] for job in jobs if job["name"] not in counts)
    extra = sorted(n for n in counts if n not in {job["name"] for job in jobs})
    check(not dupes and not missing and not extra and len(merged) == len(jobs),
          f"{label}: merged report has every one of the {len(jobs)} jobs exactly once"
          + (f" (duplicates {dupes}, missing {missing}, unknown {extra})" if dupes or missing or extra else ""))
    bad = [(j["name"], j["status"], j.get("error")) for j in merged if j["status"] not in expect[j["name"]]]
    statuses = {}
    for j in merged:
        statuses[j["status"]] = statuses.get(j["status"], 0) + 1
    check(not bad, f"{label}: job statuses as expected {statuses}" + (f"; unexpected: {bad[:8]}" if bad else ""))


def check_outputs(work, expected, names, label, allow_missing=False):
    problems = []
    for name in names:
        for rel, (kind, seconds) in expected[name].items():
            why = validate(work, rel, kind, seconds)
            if why and not (allow_missing and why == "missing"):
                problems.append(f"{rel}: {why}")
    count = sum(len(expected[n]) for n in names)
    check(not problems, f"{label}: outputs valid ({count} files: movies have video and their full duration, "
          f"pictures decode)" + (f"; {len(problems)} bad: {problems[:8]}" if problems else ""))
    return problems



def check_array_and_merge(work, jobs, tasks, label, expect):
    """Every task COMPLETED with exit 0, the README's merge line runs, and the merged report holds every job
    exactly once with a status `expect` (name: allowed statuses) allows. Returns the merged jobs, or None."""
    check(all(s == "COMPLETED" and e == "0:0" for s, e in tasks.values()) and len(tasks) == SHARDS,
          f"{label}: all {SHARDS} array tasks COMPLETED with exit 0 ({tasks})")
    merged, err = merge_reports(work)
    if merged is None:
        check(False, f"{label}: README jq merge failed: {err}")
        return None
    check_merged(merged, jobs, label, expect)
    return merged
