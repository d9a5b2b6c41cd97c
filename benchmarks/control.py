"""Live control benchmarks (issue 16), run by bench.py: how fast a running recording switches its input and
answers its control socket.

- Switch latency: `switch-video` sent over the socket → the first picture of the new source in the movie,
  on the movie's timeline (the socket's `status` gives the timeline's "now" just before the command). The
  sources carry their frame number (luma) and tell themselves apart by chroma, so the decoded movie shows
  where each switch landed and whether a picture had to be repeated to bridge it (the gap).
- Status round trip under a live 720p30 recording: request written → reply read, many in a row.
"""
import json
import os
import socket
import statistics
import subprocess
import time

NUMBERED = "color=gray:size=64x64:rate=30,geq=lum='22+13*if(lt(X,W/2),mod(N,16),mod(floor(N/16),16))':cb={cb}:cr={cr}"
SOURCES = {"A": NUMBERED.format(cb=128, cr=128), "B": NUMBERED.format(cb=64, cr=192)}


class Client:
    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX)
        self.socket.connect(path)
        self.socket.settimeout(30)
        self.lines = self.socket.makefile("rb")
        self.next_id = 0

    def ask(self, *command):
        self.next_id += 1
        self.socket.sendall(json.dumps({"command": list(command), "request_id": self.next_id}).encode() + b"\n")
        while True:
            reply = json.loads(self.lines.readline())
            if reply.get("request_id") == self.next_id:
                return reply


def start(reel, arguments, folder, socket_name):
    process = subprocess.Popen([reel, "record"] + arguments + ["--control", socket_name, "--json", "--quiet"], cwd=folder,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    path = os.path.join(folder, socket_name)
    for _ in range(200):
        if os.path.exists(path):
            return process, Client(path)
        time.sleep(0.05)
    process.kill()
    raise RuntimeError("the recording's control socket did not appear: " + process.stderr.read().decode(errors="replace"))


def frames(path):
    """(number, chroma U mean) of every picture of a 64x64 movie, in presentation order."""
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo",
                          "-pix_fmt", "yuv420p", "-s", "64x64", "-"], capture_output=True, check=True).stdout
    size = 64 * 64 * 3 // 2
    level = lambda y: max(0, min(15, round((y - 22) / 13)))
    result = []
    for start in range(0, len(raw) - size + 1, size):
        row = start + 32 * 64
        number = level(raw[row + 16]) + 16 * level(raw[row + 48])
        u = raw[start + 64 * 64:start + 64 * 64 + 32 * 32]
        result.append((number, sum(u) / len(u)))
    return result


def source_of(u, screen):
    """A is grey (U 128); B's chroma is 64; the X screen is green (U about 44, 65 with the letterbox bars)."""
    if screen:
        return "A" if u > 100 else "screen"
    return "A" if u > 96 else "B"


def switching(reel, folder, kind, count, screen_display=None):
    """`count` switches between numbered source A and B (or the X screen), 0.7 s apart."""
    name = f"switch-{kind}"
    process, client = start(reel, [f"{name}.mov", "--video", "lavfi:" + SOURCES["A"], "--audio", "none", "--preset", "352x288",
                                   "--size", "64x64", "--fragment-interval", "0"], folder, f"{name}.sock")
    other = f"x11grab::{screen_display}" if kind == "x11grab" else "lavfi:" + SOURCES["B"]
    time.sleep(1.0)
    sent = []
    for index in range(count):
        target, spec = ("other", other) if index % 2 == 0 else ("A", "lavfi:" + SOURCES["A"])
        now = client.ask("status")["data"]["timeline"]
        reply = client.ask("switch-video", spec)
        if reply["error"] != "success":
            raise RuntimeError(f"switch-video {spec}: {reply['error']}")
        sent.append((now, target))
        time.sleep(0.7)
    client.ask("stop")
    result = json.loads(process.stdout.read())
    process.wait()
    pictures = frames(os.path.join(folder, f"{name}.mov"))
    sources = [source_of(u, kind == "x11grab") for _, u in pictures]
    latencies, gaps = [], []
    for now, target in sent:
        wanted = "A" if target == "A" else ("screen" if kind == "x11grab" else "B")
        first = next(i for i in range(int(now * 30), len(sources)) if sources[i] == wanted)
        latencies.append(first / 30 - now)
        # The gap: pictures repeated just before the switch (the old source's last number shown again; the
        # X screen is a still picture, so only numbered sources tell).
        if sources[first - 1] == "screen":
            continue
        previous = pictures[first - 1][0]
        repeats = 0
        while first - 2 - repeats >= 0 and pictures[first - 2 - repeats][0] == previous and sources[first - 2 - repeats] == sources[first - 1]:
            repeats += 1
        gaps.append(repeats)
    os.unlink(os.path.join(folder, f"{name}.mov"))
    return {"source": kind, "switches": count, "latencyMs": {"median": 1000 * statistics.median(latencies),
                                                             "max": 1000 * max(latencies), "min": 1000 * min(latencies)},
            "longestGapFrames": max(gaps), "droppedFrames": result["droppedFrames"], "videoFrames": result["videoFrames"]}


def status_round_trip(reel, folder, requests):
    process, client = start(reel, ["rt.mov", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", "720p"],
                            folder, "rt.sock")
    time.sleep(1.0)
    times = []
    for _ in range(requests):
        began = time.perf_counter()
        client.ask("status")
        times.append(time.perf_counter() - began)
        time.sleep(0.005)
    client.ask("stop")
    result = json.loads(process.stdout.read())
    process.wait()
    os.unlink(os.path.join(folder, "rt.mov"))
    times.sort()
    return {"requests": requests, "p50Ms": 1000 * times[len(times) // 2], "p99Ms": 1000 * times[int(len(times) * 0.99) - 1],
            "maxMs": 1000 * times[-1], "droppedFrames": result["droppedFrames"]}


class Display:
    """An Xvfb screen filled with green, for x11grab."""
    def __enter__(self):
        self.process = subprocess.Popen(["Xvfb", "-displayfd", "1", "-screen", "0", "640x480x24", "-nolisten", "tcp", "-noreset"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.number = int(self.process.stdout.readline())
        subprocess.run(["xsetroot", "-solid", "#00ff00"], env=dict(os.environ, DISPLAY=f":{self.number}"), check=True)
        return self

    def __exit__(self, *_):
        self.process.kill()
        self.process.wait()


def run(reel, folder, quick):
    count = 4 if quick else 10
    report = {"switching": [switching(reel, folder, "lavfi", count)]}
    if os.path.exists("/usr/bin/Xvfb"):
        with Display() as display:
            report["switching"].append(switching(reel, folder, "x11grab", count, display.number))
    report["statusRoundTrip"] = status_round_trip(reel, folder, 100 if quick else 500)
    return report
