"""What every part of the Slurm test shares (Tests/Slurm/slurm_test.py): the shape of the batch, the PASS/FAIL
record and its summary, and the checks of what a job wrote."""

import glob
import json
import os
import shutil
import subprocess

SHARDS = 4              # array size (N >= 4): more tasks than nodes, so a task waits for a free node
CPUS_PER_TASK = 2       # as in the README; each node has 2 CPU slots, so one task runs per node at a time
NODES = 3               # namespaced nodes of the cluster
KILLED_SHARD = 2        # the array index cancelled in the cancel phase, and whose node dies in the node-death phase
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


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def tail(path, lines=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return f"({e})\n"



def fresh_outputs(work):
    """Empties out/, reports/ and logs/ for the next run of the array."""
    for d in ("out", "reports"):
        shutil.rmtree(os.path.join(work, d), ignore_errors=True)
    os.makedirs(os.path.join(work, "reports"))
    for f in glob.glob(os.path.join(work, "logs", "*")):
        os.remove(f)
