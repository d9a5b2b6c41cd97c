"""Live push benchmarks (issue 26), run by bench.py: the movie's packets pushed to an SRT listener.

- CPU: `reel record --live srt://…` against the same movie alone (the push should cost its muxing only: the
  packets are the movie's), and against ffmpeg writing a .mov and pushing MPEG-TS over SRT from one encode
  with the tee muxer, the same encoder settings. The listener is srt-live-transmit writing to /dev/null.
- Latency, capture to arrival (720p-live; the default preset beside it): a paced recording pushes over SRT (libsrt's default 120 ms latency) to
  srt-live-transmit, whose output is read here as it comes; each picture's arrival (its PES header, by PTS)
  is set against its capture time. Capture times come from Reel itself: the HLS stream written beside it
  dates its first segment (EXT-X-PROGRAM-DATE-TIME: the wall clock of the movie's first picture), and picture
  N of the movie was captured N frame durations later.
"""
import datetime
import os
import socket
import statistics
import subprocess
import threading
import time

LISTENER = "/usr/bin/srt-live-transmit"


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listener(port, output):
    """srt-live-transmit as a listener on `port` until its caller leaves (stdout to `output`: a file object or PIPE)."""
    return subprocess.Popen([LISTENER, "-q", "-a", "no", f"srt://127.0.0.1:{port}?mode=listener", "file://con"],
                            stdout=output, stderr=subprocess.DEVNULL)


def run(bench, cwd, quick, runs):
    if not os.path.exists(LISTENER):
        raise SystemExit("push benchmarks need srt-live-transmit (Debian's srt-tools): `make bench` installs it")
    return [cpu_row(bench, cwd, "352x288" if quick else "720p", 12 if quick else 30, runs, quick)]


def latency(bench, cwd, quick):
    """The target is met with a preset made for live (720p-live: latency low, the encoder holds no picture
    back); the default 720p preset's latency is measured beside it: x264's lookahead, B-frames and frame
    threads hold about half a second of pictures, which a movie does not mind and a viewer does."""
    seconds = 6 if quick else 20
    row = latency_row(bench, cwd, "720p-live", seconds)
    row["normalPreset"] = latency_row(bench, cwd, "352x288" if quick else "720p", seconds)
    return row


def cpu_row(bench, cwd, name, seconds, runs, quick):
    p = bench.preset(name)
    width, height = bench.size_of(p)
    common = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0", "--preset", name,
              "--max-duration", str(seconds), "--overwrite", "--json", "--quiet", "--min-free", "0"] + bench.SAME_WORK
    alone_command = [bench.REEL, "record", "push-alone.mov"] + common
    port = free_udp_port()
    reel = [bench.REEL, "record", "push-movie.mov", "--live", f"srt://127.0.0.1:{port}"] + common
    ffmpeg = [bench.FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={width}x{height}:rate={p['video']['fps']}",
              "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={p['audio']['sampleRate']}", "-t", str(seconds),
              "-map", "0:v", "-map", "1:a"] + bench.ffmpeg_encoding(p) + ["-flags", "+global_header", "-f", "tee",
              f"[f=mov]push-ffmpeg.mov|[f=mpegts]srt://127.0.0.1:{port}?linger=2"]
    # One listener for the whole row, outside what is measured; it takes each run's caller in turn (-a yes).
    serving = subprocess.Popen([LISTENER, "-q", "-a", "yes", f"srt://127.0.0.1:{port}?mode=listener", "file://con"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    try:
        result = bench.compare(f"push: record {seconds} s {name} + SRT", reel, ffmpeg, cwd, runs,
                               notes="one encode for the movie and its push; ffmpeg: the tee muxer writing mov and mpegts "
                                     "over srt; both to a listener (srt-live-transmit to /dev/null) outside the measure")
        # The movie alone and the movie with its push, in pairs one after the other, so that a drift of the
        # machine's speed over the row (a CPU's boost, another process) falls on both alike.
        pairs = [(bench.measure(alone_command, cwd), bench.measure(reel, cwd)) for _ in range(1 if quick else runs)]
    finally:
        serving.terminate()
        serving.wait()
    result["movieAlone"] = {key: bench.summary([alone[key] for alone, _ in pairs]) for key in ("wall", "cpu", "rss")}
    result["movieAlone"]["command"] = bench.shown(alone_command, cwd)
    result["pushedInPairs"] = {key: bench.summary([pushed[key] for _, pushed in pairs]) for key in ("wall", "cpu", "rss")}
    result["pairs"] = len(pairs)
    result["overMovieAlone"] = {key: statistics.median(pushed[key] / alone[key] for alone, pushed in pairs) for key in ("wall", "cpu")}
    return result


def pes_arrivals(stream, arrivals):
    """Reads MPEG-TS from `stream` as it comes: (arrival time, video PTS in 90 kHz ticks) per PES start."""
    pending = b""
    while True:
        chunk = os.read(stream.fileno(), 65536)
        if not chunk:
            return
        now = time.time()
        pending += chunk
        usable = len(pending) - len(pending) % 188
        for start in range(0, usable, 188):
            packet = pending[start:start + 188]
            if packet[0] != 0x47 or not packet[1] & 0x40:
                continue
            offset = 4
            if (packet[3] >> 4) & 2:
                offset += 1 + packet[4]
            body = packet[offset:]
            if len(body) >= 14 and body[:3] == b"\x00\x00\x01" and 0xE0 <= body[3] <= 0xEF and body[7] & 0x80:
                b = body[9:14]
                pts = ((b[0] >> 1) & 7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1
                arrivals.append((now, pts))
        pending = pending[usable:]


def latency_row(bench, cwd, name, seconds):
    port = free_udp_port()
    receiver = listener(port, subprocess.PIPE)
    arrivals = []
    reader = threading.Thread(target=pes_arrivals, args=(receiver.stdout, arrivals), daemon=True)
    reader.start()
    time.sleep(0.3)
    folder = os.path.join(cwd, "push-latency-hls")
    command = [bench.REEL, "record", "push-latency.mov", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", name,
               "--max-duration", str(seconds), "--overwrite", "--json", "--quiet", "--min-free", "0",
               "--live", f"srt://127.0.0.1:{port}", "--live", folder, "--live-segment", "1", "--live-keep", "all"]
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    receiver.wait(timeout=30)
    reader.join(timeout=5)
    playlist = open(os.path.join(folder, "index.m3u8")).read().splitlines()
    first_date = next(line.split(":", 1)[1] for line in playlist if line.startswith("#EXT-X-PROGRAM-DATE-TIME:"))
    zero = datetime.datetime.fromisoformat(first_date.replace("Z", "+00:00")).timestamp()
    first_pts = min(pts for _, pts in arrivals)
    latencies = sorted(arrival - (zero + (pts - first_pts) / 90000) for arrival, pts in arrivals)
    return {"job": f"push latency: {name} paced, SRT (120 ms), capture to arrival", "kind": "pushLatency",
            "pictures": len(latencies), "expectedPictures": int(seconds * bench.preset(name)["video"]["fps"]),
            "median": statistics.median(latencies), "p95": latencies[int(0.95 * (len(latencies) - 1))],
            "max": latencies[-1], "min": latencies[0], "command": bench.shown(command, cwd)}


def latency_target(row):
    return (f"{row['job']}: median ≤ 0.5 s", row["median"] <= 0.5,
            f"median {1000 * row['median']:.0f} ms, p95 {1000 * row['p95']:.0f} ms, max {1000 * row['max']:.0f} ms "
            f"({row['pictures']} of {row['expectedPictures']} pictures)")


def latency_text(row):
    def one(r):
        return (f"{r['job']}: median {1000 * r['median']:.0f} ms, p95 {1000 * r['p95']:.0f} ms, "
                f"min {1000 * r['min']:.0f} ms, max {1000 * r['max']:.0f} ms over {r['pictures']} pictures")
    text = "Push latency, " + one(row)
    if "normalPreset" in row:
        text += "; beside it, a preset that does not ask for low latency, " + one(row["normalPreset"])
    return text + "."


def targets(row):
    """(name, met, measured) checks of a push row."""
    return [
        (f"{row['job']}: CPU ≤ 1.03 × the movie alone (muxing only, no second encode)", row["overMovieAlone"]["cpu"] <= 1.03,
         f"{row['overMovieAlone']['cpu']:.3f}, the median ratio of {row['pairs']} pairs run one after the other "
         f"({row['pushedInPairs']['cpu']['median']:.2f} vs {row['movieAlone']['cpu']['median']:.2f} s)"),
        (f"{row['job']}: CPU ≤ ffmpeg's tee (mov + mpegts over srt)", row["reel"]["cpu"]["median"] <= row["ffmpeg"]["cpu"]["median"],
         f"{row['reel']['cpu']['median']:.2f} vs {row['ffmpeg']['cpu']['median']:.2f} s (paired ratio {row['cpuRatio']:.3f})"),
    ]
