#!/usr/bin/env python3
"""Slurm end to end (`make slurm-test`): `reel batch JOBS.json --shard I/N --report FILE` on a real one-node
Slurm cluster (Tests/Slurm/cluster.sh: slurmctld + slurmd + munged, all state in a temporary folder).

    python3 Tests/Slurm/slurm_test.py --reel PATH_TO_REEL [--keep DIR]

1. Makes two source movies (4 s 352x288, 20 s 640x480) and a job file of 48 transcode, grab and record jobs;
   each shard's first job is a heavy transcode (the 20 s movie at 640x480 or larger), so a task can be
   cancelled in the middle of one.
2. Phase 1: the README's job-array script (`#SBATCH --array=1-4`, `reel batch jobs.json --shard
   "$SLURM_ARRAY_TASK_ID/4" --report "reports/shard-$SLURM_ARRAY_TASK_ID.json"`) through sbatch; the shard
   reports merged with the README's jq line; every job exactly once, succeeded, its output valid (ffprobe:
   a movie has video and the duration it should have, a picture decodes); no `.*.partial` left.
   `--cpus-per-task=2` (as in the README) on a node of 4 slots: two tasks run at once, each `reel batch`
   one job at a time (its default on 2 cores), so two jobs run at once, as with `--parallel 2`.
3. The same jobs with `reel batch jobs.json --parallel 2` on the same machine, for the throughput figures
   (jobs/minute, submit to all done for the cluster).
4. Phase 2: the array again on a clean out/; once shard 2 is in the middle of its heavy transcode, `scancel
   JOBID_2`; the rest finish. Every file under a final name must be complete (valid, full duration: an
   interrupted transcode must not be kept under its final name). Then the same array is submitted again:
   what finished before is `skipped`, what did not (the interrupted transcode included) is `succeeded` with
   its full duration, and the merged report has every job exactly once, none failed.

Prints PASS/FAIL lines, a closing `N passed, N failed` line, the path of a JSON summary (trials, timings,
what each job ended as), and the daemons' log tails on failure; exits 1 on any failure. The cluster is
taken down in any case (and on SIGTERM/Ctrl-C). About 70 s on 2 cores, plus ~10 s to install slurm-wlm
and munge the first time. Standard library only; uses jq, ffprobe, sbatch, sinfo, scontrol and scancel.
"""

import argparse
import glob
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER_SH = os.path.join(HERE, "cluster.sh")

SHARDS = 4              # array size (N >= 4); the node has 4 CPU slots
CPUS_PER_TASK = 2       # as in the README: two tasks run at once on the 4 slots, like `--parallel 2`
KILLED_SHARD = 2        # the array index cancelled in phase 2
SOURCE_SECONDS = 4.0
HEAVY_SECONDS = 20.0
DURATION_TOLERANCE = 0.15  # seconds; outputs measured ~4.01 for a 4 s source

LAVFI_VIDEO = "lavfi:testsrc2?realtime=0"
LAVFI_AUDIO = "lavfi:sine?realtime=0"

results = []            # (ok, message)
summary = {"trials": {}, "checks": [], "timings": {}}


def check(ok, message):
    results.append((bool(ok), message))
    summary["checks"].append({"ok": bool(ok), "message": message})
    print(("PASS: " if ok else "FAIL: ") + message, flush=True)
    return ok


def log(message):
    print("slurm-test: " + message, flush=True)


def run(args, **kwargs):
    kwargs.setdefault("check", True)
    kwargs.setdefault("text", True)
    return subprocess.run(args, **kwargs)


# ---------------------------------------------------------------------------------------------------------
# Jobs

def make_jobs(src, big):
    """48 jobs, in shard order: job i (1-based) runs in shard ((i - 1) % SHARDS) + 1. Returns the job file's
    `jobs` list and, per job, what its outputs must be: {path: ("movie", seconds) or ("jpg"|"png", None)}."""
    jobs = []
    # Shard 2's (the one cancelled in phase 2) is the heaviest: 720p from 640x480, ~5 s alone on one core.
    heavy = ["640x480", "720p", "960x540", "640x480"]
    for k, preset in enumerate(heavy, 1):
        jobs.append({"name": f"heavy{k}", "type": "transcode", "input": big, "preset": preset,
                     "output": "out/{name}-{preset}.mov"})
    small_presets = ["low", "352x288", "medium", "low", "352x288", "640x480"]
    grabs = [(0, "jpg"), (0.5, "png"), (1.5, "jpg"), (2.5, "png"), (3.9, "jpg"), (1, "png"), (2, "jpg"),
             (3, "png"), (0.25, "jpg"), (3.5, "png"), (1.25, "jpg"), (2.75, "png")]
    records = [("low", 1), ("352x288", 2), ("low", 2), ("352x288", 1), ("low", 1.5), ("medium", 1),
               ("low", 2), ("352x288", 1.5), ("low", 1), ("352x288", 2), ("low", 1.5), ("352x288", 1),
               ("low", 2), ("low", 1)]
    transcodes = []
    for k in range(18):
        job = {"name": f"t{k + 1}", "type": "transcode", "input": src,
               "preset": small_presets[k % len(small_presets)], "output": "out/{name}-{preset}.mov"}
        if k % 6 == 0:
            job["still"] = "out/stills/{name}.jpg"
        transcodes.append(job)
    grab_jobs = []
    for k, (at, ext) in enumerate(grabs):
        job = {"name": f"g{k + 1}", "type": "grab", "input": src, "at": at, "output": "out/grabs/{name}." + ext}
        if ext == "jpg" and k % 2 == 0:
            job["stillQuality"] = 60
        grab_jobs.append(job)
    record_jobs = []
    for k, (preset, seconds) in enumerate(records):
        job = {"name": f"r{k + 1}", "type": "record", "video": LAVFI_VIDEO,
               "audio": LAVFI_AUDIO if k % 5 != 4 else "none", "preset": preset, "maxDuration": seconds,
               "output": "out/rec/{name}-{index}.mov"}
        if k % 4 == 0:
            job["still"] = "out/stills/{name}.png"
        record_jobs.append(job)
    # Interleave so every shard gets a mix.
    rest = []
    while transcodes or grab_jobs or record_jobs:
        for pool in (transcodes, grab_jobs, record_jobs):
            if pool:
                rest.append(pool.pop(0))
    jobs += rest
    return jobs


def expected_outputs(jobs):
    """{job name: {relative path: (kind, seconds)}} with the templates filled in ({date} is not used)."""
    out = {}
    for index, job in enumerate(jobs, 1):
        def fill(template):
            return (template.replace("{name}", job["name"]).replace("{preset}", job.get("preset", "720p"))
                    .replace("{index}", str(index)))
        files = {}
        path = fill(job["output"])
        if job["type"] == "grab":
            files[path] = (path.rsplit(".", 1)[1], None)
        elif job["type"] == "transcode":
            seconds = HEAVY_SECONDS if job["name"].startswith("heavy") else SOURCE_SECONDS
            files[path] = ("movie", seconds)
        else:
            files[path] = ("movie", float(job["maxDuration"]))
        if "still" in job:
            still = fill(job["still"])
            files[still] = (still.rsplit(".", 1)[1], None)
        out[job["name"]] = files
    return out


def shard_of(index):
    return (index - 1) % SHARDS + 1


# ---------------------------------------------------------------------------------------------------------
# Output checks

def probe(path):
    r = run(["ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_type,codec_name,width,height",
             "-of", "json", path], check=False, capture_output=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    return json.loads(r.stdout), None


def validate(work, rel, kind, seconds):
    """None if the file is what it should be, else what is wrong."""
    path = os.path.join(work, rel)
    if not os.path.isfile(path):
        return "missing"
    if os.path.getsize(path) == 0:
        return "empty"
    if kind == "movie":
        info, err = probe(path)
        if info is None:
            return f"ffprobe cannot read it: {err}"
        videos = [s for s in info.get("streams", []) if s.get("codec_type") == "video"]
        if not videos:
            return "no video stream"
        duration = float(info.get("format", {}).get("duration", 0) or 0)
        if duration <= 0:
            return "duration 0"
        if seconds is not None and abs(duration - seconds) > DURATION_TOLERANCE:
            return f"duration {duration:.2f} s, expected {seconds:.2f} s"
        return None
    # A picture: ffprobe decodes it (-count_frames) and it must be the right format.
    r = run(["ffprobe", "-v", "error", "-count_frames", "-show_entries",
             "stream=codec_name,width,height,nb_read_frames", "-of", "json", path], check=False, capture_output=True)
    if r.returncode != 0:
        return f"does not open: {r.stderr.strip()}"
    streams = json.loads(r.stdout).get("streams", [])
    if not streams or int(streams[0].get("width", 0)) <= 0 or str(streams[0].get("nb_read_frames")) != "1":
        return f"not a decodable picture: {streams}"
    want = {"jpg": "mjpeg", "png": "png"}[kind]
    if streams[0].get("codec_name") != want:
        return f"{streams[0].get('codec_name')} data, expected {want}"
    return None


def movie_duration(path):
    info, _ = probe(path)
    if info is None:
        return None
    try:
        return float(info["format"]["duration"])
    except (KeyError, ValueError):
        return None


def partial_files(root):
    found = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.startswith(".") and f.endswith(".partial"):
                found.append(os.path.relpath(os.path.join(dirpath, f), root))
    return sorted(found)


def final_files(root):
    found = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            if not f.startswith("."):
                found.append(os.path.relpath(os.path.join(dirpath, f), root))
    return sorted(found)


# ---------------------------------------------------------------------------------------------------------
# Slurm

ARRAY_SCRIPT = """#!/bin/bash
#SBATCH --array=1-{n}
#SBATCH --cpus-per-task={cpus}
#SBATCH --job-name=reel-batch
#SBATCH --output=logs/slurm-%A_%a.out
{reel} batch jobs.json --shard "$SLURM_ARRAY_TASK_ID/{n}" --report "reports/shard-$SLURM_ARRAY_TASK_ID.json"
"""

MERGE = """jq -s '[.[].jobs[] | select(.status != "notInShard")]' reports/shard-*.json > report.json"""

TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL",
            "DEADLINE", "PREEMPTED"}


def sbatch(work):
    r = run(["sbatch", "--parsable", "array.sh"], cwd=work, capture_output=True)
    return r.stdout.strip().split(";")[0]


def array_tasks(job_id):
    """{task id or range string: (state, exit code)} from `scontrol show job -o` (pending tasks of an array
    are one record with a range as ArrayTaskId). None when slurmctld does not know the job (any more)."""
    r = run(["scontrol", "show", "job", "-o", job_id], check=False, capture_output=True)
    if r.returncode != 0:
        return None
    tasks = {}
    for line in r.stdout.splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        tasks[fields.get("ArrayTaskId", "?")] = (fields.get("JobState", "?"), fields.get("ExitCode", "?"))
    return tasks


def wait_array(job_id, timeout, on_poll=None):
    """Polls until every task of the array is in a terminal state. Returns (seconds, {task: (state, exit)})."""
    start = time.monotonic()
    last = {}
    while True:
        tasks = array_tasks(job_id)
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


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def processes_using(folder):
    """Processes other than this one whose command line names the folder or that run in it: daemons and
    job processes that `cluster.sh down` should have ended."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
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


def tail(path, lines=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return f"({e})\n"


# ---------------------------------------------------------------------------------------------------------
# The phases

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


def phase1(work, jobs, expected, timeout):
    log(f"phase 1: sbatch the {SHARDS}-task array ({len(jobs)} jobs)")
    t0 = time.monotonic()
    job_id = sbatch(work)
    seconds, tasks = wait_array(job_id, timeout)
    wall = time.monotonic() - t0
    summary["timings"]["phase1_cluster_seconds"] = wall
    log(f"phase 1: array {job_id} done in {wall:.1f} s: {tasks}")
    check(all(s == "COMPLETED" and e == "0:0" for s, e in tasks.values()) and len(tasks) == SHARDS,
          f"phase 1: all {SHARDS} array tasks COMPLETED with exit 0")
    check_reports_shape(work, jobs, "phase 1")
    merged, err = merge_reports(work)
    if merged is None:
        check(False, f"phase 1: README jq merge failed: {err}")
        return wall, None
    check_merged(merged, jobs, "phase 1", {job["name"]: {"succeeded"} for job in jobs})
    check_outputs(work, expected, [job["name"] for job in jobs], "phase 1")
    left = partial_files(os.path.join(work, "out"))
    check(not left, "phase 1: no .*.partial file left under out/" + (f": {left}" if left else ""))
    summary["trials"]["phase1_cluster"] = {
        "array_job": job_id, "wall_seconds": wall, "tasks": tasks,
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


def phase2(work, jobs, expected, timeout):
    for d in ("out", "reports"):
        shutil.rmtree(os.path.join(work, d), ignore_errors=True)
    os.makedirs(os.path.join(work, "reports"))
    for f in glob.glob(os.path.join(work, "logs", "*")):
        os.remove(f)
    out = os.path.join(work, "out")
    killed_jobs = [job for i, job in enumerate(jobs, 1) if shard_of(i) == KILLED_SHARD]
    heavy = killed_jobs[0]
    heavy_partial = "." + os.path.basename(next(iter(expected[heavy["name"]]))) + ".partial"
    heavy_partial_path = os.path.join(out, os.path.dirname(next(iter(expected[heavy["name"]])))[len("out/"):],
                                      heavy_partial)

    log(f"phase 2: sbatch the array again; scancel task {KILLED_SHARD} in the middle of {heavy['name']}")
    job_id = sbatch(work)
    state = {"seen_at": None, "cancelled_at": None, "partials_at_cancel": None, "task_state_at_cancel": None}
    t0 = time.monotonic()

    def on_poll(tasks):
        if state["cancelled_at"] is not None:
            return
        now = time.monotonic()
        task = tasks.get(str(KILLED_SHARD))
        report_written = os.path.exists(os.path.join(work, "reports", f"shard-{KILLED_SHARD}.json"))
        if task and task[0] == "RUNNING" and os.path.exists(heavy_partial_path) and not report_written:
            if state["seen_at"] is None:
                state["seen_at"] = now
            # 1.5 s in: a good part of the 20 s source is encoded, and the job (5-10 s with another running
            # beside it on 2 cores) is far from done.
            if now - state["seen_at"] >= 1.5:
                state["partials_at_cancel"] = partial_files(out)
                state["partial_bytes"] = os.path.getsize(heavy_partial_path) if os.path.exists(heavy_partial_path) else None
                state["task_state_at_cancel"] = task
                run(["scancel", f"{job_id}_{KILLED_SHARD}"])
                state["cancelled_at"] = now
                log(f"phase 2: scancel {job_id}_{KILLED_SHARD} {now - t0:.1f} s after submit; "
                    f"partial files then: {state['partials_at_cancel']}")

    _, tasks = wait_array(job_id, timeout, on_poll)
    wall = time.monotonic() - t0
    log(f"phase 2: array {job_id} done in {wall:.1f} s: {tasks}")
    interrupted_caught = state["cancelled_at"] is not None
    check(interrupted_caught, f"phase 2: task {KILLED_SHARD} cancelled while {heavy['name']} was being written")
    others = {k: v for k, v in tasks.items() if k != str(KILLED_SHARD)}
    check(tasks.get(str(KILLED_SHARD), ("?",))[0] == "CANCELLED" and
          all(s == "COMPLETED" and e == "0:0" for s, e in others.values()),
          f"phase 2: task {KILLED_SHARD} CANCELLED, the other {SHARDS - 1} COMPLETED with exit 0 ({tasks})")

    killed_report = load_json(os.path.join(work, "reports", f"shard-{KILLED_SHARD}.json"))
    heavy_entry = None
    if killed_report:
        heavy_entry = next((j for j in killed_report["jobs"] if j["name"] == heavy["name"]), None)
    heavy_rel = next(iter(expected[heavy["name"]]))
    after_kill = {
        "array_job": job_id, "wall_seconds": wall, "tasks": tasks,
        "cancel_seconds_after_submit": (state["cancelled_at"] - t0) if interrupted_caught else None,
        "partials_at_cancel": state["partials_at_cancel"], "partial_bytes_at_cancel": state.get("partial_bytes"),
        "killed_shard_report_written": killed_report is not None,
        "killed_shard_report": ({j["name"]: j["status"] for j in killed_report["jobs"] if j["status"] != "notInShard"}
                                if killed_report else None),
        "interrupted_job": heavy["name"],
        "interrupted_job_entry": ({k: heavy_entry.get(k) for k in ("status", "error")} |
                                  {"stopReason": (heavy_entry.get("result") or {}).get("stopReason"),
                                   "duration": (heavy_entry.get("result") or {}).get("duration")}
                                  if heavy_entry else None),
        "interrupted_output_under_final_name": os.path.exists(os.path.join(work, heavy_rel)),
        "interrupted_output_duration": movie_duration(os.path.join(work, heavy_rel))
                                       if os.path.exists(os.path.join(work, heavy_rel)) else None,
        "partials_left": partial_files(out),
        "finals": final_files(out),
    }
    summary["trials"]["phase2_cancelled"] = after_kill
    log(f"phase 2: killed shard's report written: {killed_report is not None}; {heavy['name']} in it: "
        f"{after_kill['interrupted_job_entry']}; under its final name: {after_kill['interrupted_output_under_final_name']}"
        f" (duration {after_kill['interrupted_output_duration']}); partial files left: {after_kill['partials_left']}")

    # Was the transcode really cut short? Not if the killed shard's report calls it a plain success with its
    # full duration (it finished before the signal landed: a machine much faster than this test expects).
    finished_anyway = (heavy_entry is not None and heavy_entry["status"] == "succeeded"
                       and (heavy_entry.get("result") or {}).get("stopReason") != "stopped")
    check(interrupted_caught and not finished_anyway,
          f"phase 2: {heavy['name']} was interrupted by the cancel (not finished before it)")

    # Everything under a final name must be complete: an interrupted transcode is not kept under its final
    # name (and a finished job's file is the whole thing).
    finals = set(final_files(out))
    by_file = {rel: (name, kind, seconds) for name, files in expected.items() for rel, (kind, seconds) in files.items()}
    problems = []
    for rel in sorted(finals):
        key = "out/" + rel
        if key not in by_file:
            problems.append(f"{key}: not an output of any job")
            continue
        name, kind, seconds = by_file[key]
        why = validate(work, key, kind, seconds)
        if why:
            problems.append(f"{key} ({name}): {why}")
    check(not problems, f"phase 2: after the cancel, all {len(finals)} files under final names are complete "
          "(valid, full duration)" + (f"; {problems}" if problems else ""))
    check(not after_kill["interrupted_output_under_final_name"],
          f"phase 2: the interrupted transcode {heavy['name']} is not under its final name after the cancel"
          + (f" (it is, {after_kill['interrupted_output_duration']} s of {HEAVY_SECONDS})"
             if after_kill["interrupted_output_under_final_name"] else ""))
    if heavy_entry is not None:
        check(heavy_entry["status"] != "succeeded",
              f"phase 2: the killed shard's report does not call the interrupted {heavy['name']} succeeded "
              f"(status {heavy_entry['status']}, stopReason {after_kill['interrupted_job_entry']['stopReason']})")

    # What finished in the cancelled run: every output of the job is there under its final name.
    done_before = {name for name, files in expected.items()
                   if all(os.path.exists(os.path.join(work, rel)) for rel in files)}
    missing_before = sorted(set(expected) - done_before)
    log(f"phase 2: {len(done_before)} jobs finished before the re-run; not finished: {missing_before}")
    after_kill["finished_jobs"] = len(done_before)
    after_kill["unfinished_jobs"] = missing_before

    # The re-run: the same array again.
    log("phase 2: sbatch the same array again (re-run)")
    t1 = time.monotonic()
    job_id2 = sbatch(work)
    _, tasks2 = wait_array(job_id2, timeout)
    wall2 = time.monotonic() - t1
    log(f"phase 2: re-run array {job_id2} done in {wall2:.1f} s: {tasks2}")
    check(all(s == "COMPLETED" and e == "0:0" for s, e in tasks2.values()) and len(tasks2) == SHARDS,
          f"phase 2 re-run: all {SHARDS} array tasks COMPLETED with exit 0")
    merged, err = merge_reports(work)
    if merged is None:
        check(False, f"phase 2 re-run: README jq merge failed: {err}")
        return
    expect = {name: ({"skipped"} if name in done_before and name != heavy["name"] else {"succeeded"})
              for name in expected}
    check_merged(merged, jobs, "phase 2 re-run", expect)
    entry = next((j for j in merged if j["name"] == heavy["name"]), {})
    heavy_duration = movie_duration(os.path.join(work, heavy_rel)) if os.path.exists(os.path.join(work, heavy_rel)) else None
    check(entry.get("status") == "succeeded" and heavy_duration is not None
          and abs(heavy_duration - HEAVY_SECONDS) <= DURATION_TOLERANCE,
          f"phase 2 re-run: the interrupted transcode {heavy['name']} was done again in full "
          f"(status {entry.get('status')}, {heavy_duration} s of {HEAVY_SECONDS})")
    check_outputs(work, expected, [job["name"] for job in jobs], "phase 2 re-run")
    left = partial_files(out)
    check(not left, "phase 2 re-run: no .*.partial file left under out/" + (f": {left}" if left else ""))
    summary["trials"]["phase2_rerun"] = {
        "array_job": job_id2, "wall_seconds": wall2, "tasks": tasks2,
        "jobs": {j["name"]: j["status"] for j in merged},
        "interrupted_job_status": entry.get("status"), "interrupted_job_duration": heavy_duration}
    summary["timings"]["phase2_cancelled_run_seconds"] = wall
    summary["timings"]["phase2_rerun_seconds"] = wall2


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
        up = run(["bash", CLUSTER_SH, "up", cluster], check=False, capture_output=True)
        sys.stderr.write(up.stderr)
        if up.returncode != 0:
            check(False, f"cluster.sh up failed (exit {up.returncode})")
            raise RuntimeError("no cluster")
        os.environ["SLURM_CONF"] = os.path.join(cluster, "slurm.conf")
        summary["timings"]["cluster_up_seconds"] = time.monotonic() - t
        check(True, f"cluster up in {summary['timings']['cluster_up_seconds']:.1f} s "
              f"({run(['sinfo', '-h', '-o', '%N %c CPUs %T'], capture_output=True).stdout.strip()})")

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
        phase2(work, jobs, expected, args.timeout)

        n = len(jobs)
        cluster_rate = n / cluster_wall * 60
        local_rate = n / local_wall * 60
        summary["throughput"] = {"cluster_jobs_per_minute": cluster_rate, "local_parallel2_jobs_per_minute": local_rate,
                                 "cluster_seconds": cluster_wall, "local_seconds": local_wall}
        log(f"throughput: Slurm array ({SHARDS} tasks x {CPUS_PER_TASK} CPUs on {os.cpu_count()} cores), "
            f"submit to all done: {cluster_wall:.1f} s = {cluster_rate:.0f} jobs/min; "
            f"reel batch --parallel 2: {local_wall:.1f} s = {local_rate:.0f} jobs/min ({n} jobs)")
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - any error is a test failure, reported below
        crashed = e
        if not isinstance(e, RuntimeError) or str(e) != "no cluster":
            check(False, f"test aborted: {type(e).__name__}: {e}")
    finally:
        failed = [m for ok, m in results if not ok]
        if failed and os.path.isdir(cluster):
            for name in ("log/slurmctld.log", "log/slurmd.log", "munge/log/munged.log"):
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
