"""Replay buffer and trigger benchmarks (issue 28), run by bench.py.

- Save latency: a paced 720p30 camera (lavfi, real time) whose last 30 s are kept (`reel record --no-movie
  --replay-buffer 30 --control SOCK`); `save-replay FILE 30` over the control socket, from the request to the
  reply, which comes once the movie is finalized and renamed into place. The save waits for the pictures up to
  the request to come out of the encoder (its delay: x264's B-frames and frame threads hold about 12 pictures
  with the 720p preset, none with 720p-live) and their sound, then writes. Both presets; target ≤ 300 ms.
- Memory: RSS of a session keeping 60 s against one keeping 5 s, once both are full, per second of difference
  (720p and 1080p); and the 60 s one's RSS growth over a further 30 s once full (the buffer is bounded).
- Motion detection: the session thread's CPU (where each picture's 64 × 36 luma grid is compared with the last)
  on a paced 720p30 camera with `--trigger motion` against `--trigger sound` (the same encoder and outputs;
  sound alone measures no picture), as a share of one core. Target ≤ 2 %.
"""
import json
import os
import socket
import statistics
import subprocess
import time

from monitoring import threads_cpu

SOURCE = ["--video", "lavfi:testsrc2=size=1280x720:rate=30", "--audio", "lavfi:sine=frequency=440:sample_rate=48000"]


def wait_for(path, seconds=20):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)


def ask(socket_path, command):
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(socket_path)
        client.sendall((json.dumps({"command": command, "request_id": 1}) + "\n").encode())
        return json.loads(client.makefile("r").readline())


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0


def buffering(reel, cwd, preset, seconds, extra=()):
    socket_path = os.path.join(cwd, f"replay-{preset}-{seconds}.sock")
    if os.path.exists(socket_path):
        os.unlink(socket_path)
    process = subprocess.Popen([reel, "record", "--no-movie", "--replay-buffer", str(seconds), *SOURCE, "--preset", preset,
                                "--quiet", "--control", socket_path, *extra],
                               cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(socket_path)
    return process, socket_path


def save_latency(reel, cwd, quick, preset):
    kept, saves = (5, 1) if quick else (30, 5)
    process, socket_path = buffering(reel, cwd, preset, kept)
    try:
        time.sleep(kept + 3)
        round_trips, reported, spans, bytes_ = [], [], [], []
        for index in range(saves):
            name = os.path.join(cwd, f"replay-{preset}-{index}.mov")
            if os.path.exists(name):
                os.unlink(name)
            began = time.monotonic()
            reply = ask(socket_path, ["save-replay", name, str(kept)])
            round_trips.append(time.monotonic() - began)
            data = reply.get("data") or {}
            reported.append(data.get("milliseconds", 0) / 1000)
            spans.append(data.get("seconds", 0))
            bytes_.append(data.get("bytes", 0))
            os.unlink(name)
            time.sleep(1)
    finally:
        process.terminate()
        process.wait(timeout=30)
    return {"job": f"save-replay: last {kept} s of {preset} paced, request → finalized file", "preset": preset,
            "median": statistics.median(round_trips), "max": max(round_trips), "reportedMedian": statistics.median(reported),
            "seconds": statistics.median(spans), "bytes": statistics.median(bytes_), "saves": saves}


def memory(reel, cwd, quick, preset):
    long_, short, settle = (6, 2, 8) if quick else (60, 5, 65)
    sizes = {}
    growth = None
    for kept in (short, long_):
        process, socket_path = buffering(reel, cwd, preset, kept)
        try:
            time.sleep(settle)
            held = (ask(socket_path, ["status"]).get("data") or {}).get("replay") or {}
            sizes[kept] = (rss_mb(process.pid), held.get("seconds", 0), held.get("bytes", 0))
            if kept == long_ and not quick:
                time.sleep(30)
                growth = rss_mb(process.pid) - sizes[kept][0]
        finally:
            process.terminate()
            process.wait(timeout=30)
    (short_rss, short_held, short_bytes), (long_rss, long_held, long_bytes) = sizes[short], sizes[long_]
    return {"job": f"replay buffer memory: {preset} paced, {long_} s against {short} s kept", "preset": preset,
            "rssPerSecondMB": (long_rss - short_rss) / max(0.1, long_held - short_held),
            "heldPerSecondMB": (long_bytes - short_bytes) / 1e6 / max(0.1, long_held - short_held),
            "heldSeconds": long_held, "rss": long_rss, "growthAfterFullMB": growth}


def triggered_share(reel, cwd, trigger, seconds):
    command = [reel, "record", "event-{index}.mov", *SOURCE, "--preset", "720p", "--trigger", trigger, "--max-duration", str(seconds),
               "--quiet", "--overwrite", "--min-free", "0"]
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(2)
    first, began = threads_cpu(process.pid, ("reel.session",)), time.monotonic()
    time.sleep(seconds - 3)
    last, ended = threads_cpu(process.pid, ("reel.session",)), time.monotonic()
    process.wait(timeout=60)
    first, last = sum(first.values()), sum(last.values())
    for name in os.listdir(cwd):
        if name.startswith("event-"):
            os.unlink(os.path.join(cwd, name))
    return 100 * (last - first) / (ended - began)


def motion_cost(reel, cwd, quick):
    seconds, runs = (5, 1) if quick else (20, 3)
    # testsrc2 moves all along: motion is measured on every picture, and the movie records throughout.
    pairs = [(triggered_share(reel, cwd, "sound:0", seconds), triggered_share(reel, cwd, "motion", seconds)) for _ in range(runs)]
    return {"job": f"motion trigger: {seconds} s 720p30 paced, the session thread with --trigger motion vs --trigger sound",
            "soundPercent": statistics.median(s for s, _ in pairs), "motionPercent": statistics.median(m for _, m in pairs),
            "addedPercent": statistics.median(m - s for s, m in pairs), "runs": runs}


def run(reel, cwd, quick):
    return {"save": [save_latency(reel, cwd, quick, preset) for preset in ("720p", "720p-live")],
            "memory": [memory(reel, cwd, quick, preset) for preset in (("720p",) if quick else ("720p", "1080p"))],
            "motion": motion_cost(reel, cwd, quick)}


def targets(row):
    checks = []
    for save in row["save"]:
        note = "" if save["preset"] == "720p-live" else " (includes the encoder's delay: see benchmarks/README)"
        checks.append((f"{save['job']}: ≤ 300 ms{note}", save["median"] <= 0.3,
                       f"median {1000 * save['median']:.0f} ms, max {1000 * save['max']:.0f} ms ({1000 * save['reportedMedian']:.0f} ms "
                       f"measured by reel) for {save['seconds']:.2f} s, {save['bytes'] / 1e6:.1f} MB, {save['saves']} saves"))
    for held in row["memory"]:
        growth = held["growthAfterFullMB"]
        checks.append((f"{held['job']}: memory per second held (info)", True,
                       f"RSS {held['rssPerSecondMB']:.2f} MB per second kept (packets {held['heldPerSecondMB']:.2f} MB/s); "
                       f"{held['heldSeconds']:.1f} s held in {held['rss']:.0f} MB"
                       + ("" if growth is None else f"; {growth:+.1f} MB over 30 s once full")))
        if growth is not None:
            checks.append((f"{held['job']}: RSS flat once full (< 5 MB over 30 s)", growth < 5, f"{growth:+.1f} MB"))
    motion = row["motion"]
    checks.append((f"{motion['job']}: ≤ 2 % of one core", motion["addedPercent"] <= 2,
                   f"{motion['addedPercent']:+.2f} % ({motion['soundPercent']:.2f} → {motion['motionPercent']:.2f} % of one core, "
                   f"median of {motion['runs']} pairs)"))
    return checks
