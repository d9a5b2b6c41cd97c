"""Confidence monitoring benchmarks (issue 27), run by bench.py.

- Cost: a paced 720p30 recording (camera and microphone: lavfi, real time) with the sound metered and all four
  alarms watched (`--alarm silence --alarm clipping --alarm black --alarm frozen`) against the same recording
  with neither (`--quiet`: nothing shows levels, so none are measured). What monitoring adds runs on the
  session's thread (the alarms' picture measure) and the sound reader's thread (the meter): the CPU of those
  threads, read from /proc over the same window of each run, as a share of one core. Target ≤ 1 %.
- Latency: the levels events a control socket subscriber receives, each set against the moment its block of
  samples ended on the session's timeline; the timeline is tied to this client's clock by `status` requests
  (their round trip halved). Target ≤ 100 ms median. A paced test source hands over each frame of samples
  (1024, 21 ms) at its start time, so a block can end up to one frame after the event that measured it
  arrives: values down to -21 ms are that, not a clock error (a microphone hands samples over after them).
"""
import json
import os
import socket
import statistics
import subprocess
import time

SOURCE = ["--video", "lavfi:testsrc2=size=1280x720:rate=30", "--audio", "lavfi:sine=frequency=440:sample_rate=48000"]
ALARMS = ["--alarm", "silence", "--alarm", "clipping", "--alarm", "black", "--alarm", "frozen"]
WATCHED = ("reel.session", "reel.reader.lav")


def threads_cpu(pid, watched=WATCHED):
    """CPU seconds of the threads named in `watched` (the session thread and the readers), by thread id."""
    ticks = os.sysconf("SC_CLK_TCK")
    found = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as handle:
                name = handle.read().strip()
            if name not in watched:
                continue
            with open(f"/proc/{pid}/task/{tid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            found[tid] = (int(fields[11]) + int(fields[12])) / ticks
        except OSError:
            continue
    return found


def monitored_share(reel, cwd, extra, seconds):
    """% of one core the watched threads use between 2 s in and 1 s before the end."""
    command = [reel, "record", "monitoring.mov", *SOURCE, "--preset", "720p", "--max-duration", str(seconds),
               "--overwrite", "--quiet", "--min-free", "0", *extra]
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(2)
    first, began = threads_cpu(process.pid), time.monotonic()
    time.sleep(seconds - 3)
    last, ended = threads_cpu(process.pid), time.monotonic()
    process.wait(timeout=60)
    used = sum(last[tid] - first.get(tid, 0) for tid in last)
    return 100 * used / (ended - began), " ".join(command)


def cost(reel, cwd, quick):
    seconds, runs = (5, 1) if quick else (20, 3)
    pairs = [(monitored_share(reel, cwd, [], seconds)[0], monitored_share(reel, cwd, ALARMS, seconds)[0]) for _ in range(runs)]
    differences = [watched - plain for plain, watched in pairs]
    return {"job": f"monitoring: record {seconds} s 720p30 paced, levels + four alarms vs neither",
            "plainPercent": statistics.median(p for p, _ in pairs), "monitoredPercent": statistics.median(w for _, w in pairs),
            "addedPercent": statistics.median(differences), "runs": runs,
            "command": " ".join(["reel record … --preset 720p"] + ALARMS)}


def latency(reel, cwd, quick):
    seconds = 5 if quick else 20
    socket_path = os.path.join(cwd, "monitoring.sock")
    process = subprocess.Popen([reel, "record", "latency.mov", *SOURCE, "--preset", "352x288", "--max-duration", str(seconds + 2),
                                "--overwrite", "--quiet", "--min-free", "0", "--control", socket_path],
                               cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not os.path.exists(socket_path) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1)
        # The timeline against this clock: the smallest round trip's middle is the best estimate.
        offsets = []
        with socket.socket(socket.AF_UNIX) as asker:
            asker.connect(socket_path)
            reader = asker.makefile("r")
            for index in range(20):
                sent = time.monotonic()
                asker.sendall((json.dumps({"command": ["status"], "request_id": index}) + "\n").encode())
                reply = json.loads(reader.readline())
                received = time.monotonic()
                timeline = (reply.get("data") or {}).get("timeline")
                if timeline is not None:
                    offsets.append((received - sent, timeline - (sent + received) / 2))
                time.sleep(0.02)
        offset = min(offsets)[1]
        latencies = []
        with socket.socket(socket.AF_UNIX) as subscriber:
            subscriber.connect(socket_path)
            subscriber.sendall(b'{"command": ["subscribe"], "request_id": 1}\n')
            reader = subscriber.makefile("r")
            end = time.monotonic() + seconds - 2
            while time.monotonic() < end:
                line = reader.readline()
                arrived = time.monotonic()
                if not line:
                    break
                message = json.loads(line)
                if message.get("event") == "levels":
                    latencies.append(arrived + offset - message["time"])
    finally:
        process.terminate()
        process.wait(timeout=30)
    latencies.sort()
    return {"job": "levels latency: 352x288 paced, block's end → levels event on the control socket",
            "updates": len(latencies), "median": statistics.median(latencies),
            "p95": latencies[int(0.95 * (len(latencies) - 1))], "max": latencies[-1]}


def run(reel, cwd, quick):
    return {"cost": cost(reel, cwd, quick), "latency": latency(reel, cwd, quick)}


def targets(row):
    spent, late = row["cost"], row["latency"]
    return [
        (f"{spent['job']}: ≤ 1 % of one core more", spent["addedPercent"] <= 1,
         f"{spent['addedPercent']:+.2f} % ({spent['plainPercent']:.2f} → {spent['monitoredPercent']:.2f} % of one core on the session "
         f"and reader threads, median of {spent['runs']} pairs)"),
        (f"{late['job']}: median ≤ 100 ms", late["median"] <= 0.1,
         f"median {1000 * late['median']:.1f} ms, p95 {1000 * late['p95']:.1f} ms, max {1000 * late['max']:.1f} ms over {late['updates']} updates"),
    ]
