"""Low-Latency HLS glass-to-glass benchmark (issue 26), run by bench.py.

A paced recording writes LL-HLS (`reel record --live DIR --low-latency`, the default parts of 0.5 s) and
`reel serve --live-folder DIR` serves it on loopback. A client here follows the live edge as LL-HLS players
do: it asks for the next part with a blocking playlist reload (_HLS_msn, _HLS_part), then fetches that part;
each picture's latency is the part's arrival (its last byte) minus the picture's capture time. Capture times
come from Reel's own playlist: EXT-X-PROGRAM-DATE-TIME dates each segment's first picture on the wall clock
of the capture, and a part's pictures follow at the frame rate. Target: median ≤ 1.5 s (Apple's figure for
LL-HLS: ≤ 2 s).
"""
import datetime
import os
import re
import shutil
import socket
import statistics
import subprocess
import time
import urllib.request


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def parts_with_capture_times(playlist):
    """{part URI: (capture time of its first picture, duration)} from a playlist's dates and parts."""
    found, date, offset = {}, None, 0.0
    for line in playlist.splitlines():
        if line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            date = datetime.datetime.fromisoformat(line.split(":", 1)[1].replace("Z", "+00:00")).timestamp()
            offset = 0.0
        elif line.startswith("#EXT-X-PART:") and date is not None:
            duration = float(re.search(r"DURATION=([0-9.]+)", line).group(1))
            uri = re.search(r'URI="([^"]+)"', line).group(1)
            found[uri] = (date + offset, duration)
            offset += duration
    return found


def next_part(playlist):
    """(_HLS_msn, _HLS_part) of the part after the last one listed."""
    hint = re.search(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part(\d+)\.(\d+)\.m4s"', playlist)
    return (int(hint.group(1)), int(hint.group(2))) if hint else None


def follow(base, until, fps):
    """A client at the live edge: a blocking reload for the next part, then the part; per picture, its
    arrival minus its capture time. Stops when the playlist ends or at `until` (time.time())."""
    latencies, parts, playlist = [], 0, None
    deadline = time.time() + 30
    while playlist is None and time.time() < deadline:
        try:
            playlist = urllib.request.urlopen(base + "index.m3u8", timeout=5).read().decode()
        except Exception:
            time.sleep(0.05)
    while playlist and "#EXT-X-ENDLIST" not in playlist and time.time() < until:
        wanted = next_part(playlist)
        if wanted is None:
            break
        try:
            playlist = urllib.request.urlopen(f"{base}index.m3u8?_HLS_msn={wanted[0]}&_HLS_part={wanted[1]}", timeout=10).read().decode()
        except Exception:
            break
        uri = f"part{wanted[0]}.{wanted[1]}.m4s"
        timing = parts_with_capture_times(playlist).get(uri)
        if timing is None:
            continue
        urllib.request.urlopen(base + uri, timeout=10).read()
        arrival = time.time()
        parts += 1
        start, duration = timing
        latencies += [arrival - (start + k / fps) for k in range(round(duration * fps))]
    return sorted(latencies), parts


def summary(job, latencies, parts, command):
    """A latency row: the pictures' latencies (sorted) summed up."""
    return {"job": job, "kind": "llhlsLatency", "parts": parts, "pictures": len(latencies),
            "median": statistics.median(latencies), "p95": latencies[int(0.95 * (len(latencies) - 1))],
            "max": latencies[-1], "min": latencies[0], "command": command}


def camera_row(bench, cwd, name, seconds):
    """`reel serve --live`: the camera's own stream (its preset with latency low), followed the same way."""
    port = free_port()
    command = [bench.REEL, "serve", "--listen", f"127.0.0.1:{port}", "--live", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine",
               "--preset", name, "--recordings", os.path.join(cwd, "llhls-recordings")]
    server = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        latencies, parts = follow(f"http://127.0.0.1:{port}/live/", time.time() + seconds + 2, bench.preset(name)["video"]["fps"])
    finally:
        server.terminate()
        server.wait(timeout=30)
    return summary(f"LL-HLS latency: reel serve --live, camera at {name} (latency low), capture to arrival",
                   latencies, parts, bench.shown(command, cwd))


def latency_row(bench, cwd, name, seconds):
    fps = bench.preset(name)["video"]["fps"]
    folder = os.path.join(cwd, "llhls-latency")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    port = free_port()
    server = subprocess.Popen([bench.REEL, "serve", "--no-camera", "--listen", f"127.0.0.1:{port}", "--live-folder", folder,
                               "--recordings", os.path.join(cwd, "llhls-recordings")],
                              cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    command = [bench.REEL, "record", "llhls-latency.mov", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", name,
               "--max-duration", str(seconds), "--overwrite", "--quiet", "--min-free", "0", "--live", folder, "--low-latency"]
    recorder = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        latencies, parts = follow(f"http://127.0.0.1:{port}/live/", time.time() + seconds + 60, fps)
    finally:
        recorder.wait(timeout=seconds + 60)
        server.terminate()
        server.wait(timeout=30)
    return summary(f"LL-HLS latency: {name} paced, 0.5 s parts from reel serve, capture to arrival",
                   latencies, parts, bench.shown(command, cwd))


def latency(bench, cwd, quick):
    """The target is met with the preset made for live (720p-live); the default 720p preset beside it."""
    seconds = 8 if quick else 20
    row = latency_row(bench, cwd, "720p-live", seconds)
    row["normalPreset"] = latency_row(bench, cwd, "352x288" if quick else "720p", seconds)
    row["camera"] = camera_row(bench, cwd, "352x288" if quick else "720p", seconds)
    return row


def latency_targets(row):
    return [(f"{r['job']}: median ≤ 1.5 s", r["median"] <= 1.5,
             f"median {1000 * r['median']:.0f} ms, p95 {1000 * r['p95']:.0f} ms, max {1000 * r['max']:.0f} ms "
             f"({r['parts']} parts, {r['pictures']} pictures)") for r in (row, row["camera"])]


def latency_text(row):
    def one(r):
        return (f"{r['job']}: median {1000 * r['median']:.0f} ms, p95 {1000 * r['p95']:.0f} ms, "
                f"min {1000 * r['min']:.0f} ms, max {1000 * r['max']:.0f} ms over {r['parts']} parts")
    return (one(row) + "; beside it, a preset that does not ask for low latency, " + one(row["normalPreset"])
            + "; and the camera of " + one(row["camera"]) + ".")
