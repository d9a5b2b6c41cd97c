#!/usr/bin/env python3
"""Reel's hour-long reliability runs (make long-test): too slow for the test suite, run before a release.

1. An hour of media from lavfi (unpaced, 352x288): the file holds 108,000 frames, audio and video end within
   one video frame of each other, and peak RSS grows by less than 5 MB after the first minute of media
   (RSS sampled from /proc every 0.2 s; the first minute is the first 1/60 of the run, as media is produced
   at a steady rate).
2. The same hour in one-minute segments (--segment-duration 60): 60 files of exactly 60 s, 108,000 frames in
   all, each segment's audio within one AAC frame (21 ms) of its video, RSS as flat.
3. Ten minutes of paced recording with a microphone whose clock runs 0.1 % fast (an ALSA file PCM fed 48,048
   samples per second and declaring 48,000): the audio's lag behind the video at the end matches that of an
   exact clock within 45 ms (DRIFT_TARGET); uncorrected, the audio would run 0.6 s ahead. The lag is measured on the
   tone, not on the tracks' ends (a stop lines those up): its feeder plays 1000 cycles a second of real time,
   so the cycles the audio holds up to the video's end are the real time the audio reached there.
4. Ten minutes of a paced 720p30 camera kept in a 60 s replay buffer (`--no-movie --replay-buffer 60`), a
   30 s save every minute: RSS once the buffer is full (90 s in) and at the end differ by less than 5 MB (the
   buffer is bounded), and every save holds its 30 s and more.

Exits 1 when a check fails. Results: benchmarks/results/long.{json,md}.

    python3 benchmarks/long_runs.py [--minutes 60] [--drift-minutes 10]
"""
import argparse
import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REEL = os.path.join(ROOT, ".build", "release", "reel")


def probe_ends(path):
    """(video end, audio end, video frames) from ffprobe's packet table."""
    ends = {}
    frames = 0
    output = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "packet=codec_type,pts_time,duration_time",
                             "-of", "csv=p=0", path], check=True, capture_output=True, text=True).stdout
    for line in output.splitlines():
        fields = line.split(",")
        if len(fields) < 3:
            continue
        kind, pts, duration = fields[:3]
        ends[kind] = max(ends.get(kind, 0.0), float(pts) + float(duration))
        frames += kind == "video"
    return ends.get("video", 0.0), ends.get("audio", 0.0), frames


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def hour_of_media(minutes, folder, segment_seconds=None):
    output = os.path.join(folder, "hour-{index}.mov" if segment_seconds else "hour.mov")
    command = [REEL, "record", output, "--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0",
               "--preset", "352x288", "--max-duration", str(minutes * 60), "--json"]
    if segment_seconds:
        command += ["--segment-duration", str(segment_seconds)]
    samples = []
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def sample():
        while process.poll() is None:
            value = rss_kb(process.pid)
            if value:
                samples.append((time.monotonic() - start, value))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample)
    sampler.start()
    result = json.loads(process.stdout.read())
    process.wait()
    sampler.join()
    wall = time.monotonic() - start
    segment_report = None
    if segment_seconds:
        # Per segment: its own video and audio ends; the whole: the frames of all of them.
        ends = [probe_ends(segment["output"]) for segment in result["segments"]]
        frames = sum(end[2] for end in ends)
        video_end, audio_end = sum(end[0] for end in ends), sum(end[1] for end in ends)
        lengths = [round(end[0], 4) for end in ends]
        worst = max(abs(end[1] - end[0]) for end in ends)
        segment_report = {"segments": len(ends), "lengthsExact": all(abs(length - segment_seconds) < 1e-3 for length in lengths[:-1]),
                          "worstMismatchMs": round(1000 * worst, 2)}
        for segment in result["segments"]:
            os.unlink(segment["output"])
    else:
        video_end, audio_end, frames = probe_ends(output)
    first_minute = wall / minutes
    early = max((kb for t, kb in samples if t <= first_minute), default=0)
    peak = max(kb for _, kb in samples)
    report = {
        "mediaMinutes": minutes, "wallSeconds": round(wall, 1), "stopReason": result["stopReason"],
        "videoFrames": frames, "expectedFrames": minutes * 60 * 30, "videoEnd": video_end, "audioEnd": audio_end,
        "endGapSeconds": round(audio_end - video_end, 4), "rssFirstMinuteMB": round(early / 1024, 1),
        "rssPeakMB": round(peak / 1024, 1), "rssGrowthMB": round((peak - early) / 1024, 2),
        "fragments": result.get("fragments"), "finalizationBytes": result.get("finalizationBytes"),
        "bytes": result["bytes"],
    }
    report["passed"] = (frames == report["expectedFrames"] and abs(audio_end - video_end) <= 1 / 30
                        and report["rssGrowthMB"] < 5)
    if segment_report:
        report.update(segment_report)
        report["passed"] = report["passed"] and segment_report["lengthsExact"] and segment_report["worstMismatchMs"] <= 1024 / 48
    elif os.path.exists(output):
        os.unlink(output)
    return report


# The correction leaves up to 40 ms of drift alone (ClockDriftCorrection: a PulseAudio source's timestamps
# wander that much), so the audio may be that far off, plus the smoothing's lag: within 45 ms, the point from
# which audio ahead of the picture becomes detectable (ITU-R BT.1359).
DRIFT_TARGET = 0.045


def paced_with_clock(seconds, clock_rate, folder):
    """Records lavfi video and an ALSA device fed at `clock_rate` for `seconds`, stops with SIGINT, returns
    audio end - video end."""
    fifo = os.path.join(folder, f"tone-{clock_rate}.fifo")
    os.mkfifo(fifo)
    configuration = os.path.join(folder, "asound.conf")
    with open(configuration, "w") as handle:
        handle.write(f'pcm.reeltone {{ type file slave.pcm "null" file "/dev/null" infile "{fifo}" format "raw" }}\n')
    # The feeder is the device's clock: real-time scheduling (as root) keeps it on time under load.
    real_time = ["chrt", "-f", "10"] if os.getuid() == 0 else []
    feeder = subprocess.Popen(real_time + ["ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i",
                               f"sine=frequency=1000:sample_rate={clock_rate}", "-t", str(seconds + 30), "-ac", "2",
                               "-f", "s16le", "-y", fifo], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    output = os.path.join(folder, f"drift-{clock_rate}.mov")
    environment = dict(os.environ, ALSA_CONFIG_PATH=f"/usr/share/alsa/alsa.conf:{configuration}")
    recorder = subprocess.Popen([REEL, "record", output, "--video", "lavfi:testsrc2", "--audio", "alsa:reeltone",
                                 "--preset", "352x288", "--quiet", "--json"], env=environment,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    while not os.path.exists(output) and recorder.poll() is None:
        time.sleep(0.1)
    time.sleep(seconds)
    recorder.send_signal(signal.SIGINT)
    result = json.loads(recorder.stdout.read())
    recorder.wait()
    feeder.kill()
    feeder.wait()
    os.unlink(fifo)
    video_end, audio_end, _ = probe_ends(output)
    cycles = tone_cycles(output)
    os.unlink(output)
    return {"clockRate": clock_rate, "seconds": seconds, "videoEnd": video_end, "audioEnd": audio_end,
            "toneCycles": cycles, "lagSeconds": round(video_end - cycles / 1000, 4),
            "droppedFrames": result["droppedFrames"]}


def tone_cycles(path):
    """Cycles of the tone in the audio a movie plays (its edit list applied), from its zero crossings."""
    decoder = subprocess.Popen(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-f", "s16le", "-"],
                               stdout=subprocess.PIPE)
    crossings, previous, leftover = 0, None, b""
    while True:
        chunk = decoder.stdout.read(1 << 20)
        if not chunk:
            break
        chunk = leftover + chunk
        whole = len(chunk) - len(chunk) % 2
        leftover = chunk[whole:]
        samples = memoryview(chunk[:whole]).cast("h")
        for sample in samples:
            negative = sample < 0
            if previous is not None and negative != previous:
                crossings += 1
            previous = negative
    decoder.wait()
    return crossings / 2


def replay_buffer_run(minutes, folder):
    socket_path = os.path.join(folder, "replay.sock")
    process = subprocess.Popen([REEL, "record", "--no-movie", "--replay-buffer", "60", "--video", "lavfi:testsrc2=size=1280x720:rate=30",
                                "--audio", "lavfi:sine", "--preset", "720p", "--quiet", "--control", socket_path],
                               cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started = time.monotonic()
    saves, rss_full = [], None
    try:
        import socket as sockets
        for minute in range(1, int(minutes) + 1):
            while time.monotonic() - started < minute * 60:
                time.sleep(1)
                if rss_full is None and time.monotonic() - started >= 90:
                    rss_full = rss_kb(process.pid)
            name = os.path.join(folder, f"replay-{minute}.mov")
            with sockets.socket(sockets.AF_UNIX) as client:
                client.connect(socket_path)
                client.sendall((json.dumps({"command": ["save-replay", name, "30"], "request_id": minute}) + "\n").encode())
                reply = json.loads(client.makefile("r").readline())
            saves.append((reply.get("data") or {}).get("seconds", 0))
            if os.path.exists(name):
                os.unlink(name)
        rss_end = rss_kb(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=60)
    growth = round(((rss_end or 0) - (rss_full or 0)) / 1024, 1)
    return {"minutes": minutes, "rssFullMB": round((rss_full or 0) / 1024, 1), "rssEndMB": round((rss_end or 0) / 1024, 1),
            "rssGrowthMB": growth, "saves": len(saves), "shortestSave": min(saves) if saves else 0,
            "passed": growth < 5 and bool(saves) and min(saves) >= 30}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=int, default=60)
    parser.add_argument("--drift-minutes", type=float, default=10)
    parser.add_argument("--replay-minutes", type=float, default=10)
    arguments = parser.parse_args()
    report = {"date": datetime.datetime.now().isoformat(timespec="seconds")}
    with tempfile.TemporaryDirectory(prefix="reel-long-") as folder:
        print(f"recording {arguments.minutes} min of media ...", flush=True)
        report["hour"] = hour_of_media(arguments.minutes, folder)
        print(json.dumps(report["hour"], indent=1), flush=True)
        print(f"recording {arguments.minutes} min of media in one-minute segments ...", flush=True)
        report["segmented"] = hour_of_media(arguments.minutes, folder, segment_seconds=60)
        print(json.dumps(report["segmented"], indent=1), flush=True)
        print(f"paced recording, exact clock (15 s) and 0.1 % fast clock ({arguments.drift_minutes} min) ...", flush=True)
        exact = paced_with_clock(15, 48000, folder)
        fast = paced_with_clock(int(arguments.drift_minutes * 60), 48048, folder)
        drift = fast["lagSeconds"] - exact["lagSeconds"]
        report["drift"] = {"exact": exact, "fast": fast, "driftSeconds": round(drift, 4),
                           "uncorrectedDriftSeconds": round(fast["seconds"] * 48 / 48000, 3),
                           "passed": abs(drift) <= DRIFT_TARGET}
        print(json.dumps(report["drift"], indent=1), flush=True)
        print(f"{arguments.replay_minutes} min of 720p in a 60 s replay buffer, a save each minute ...", flush=True)
        report["replay"] = replay_buffer_run(arguments.replay_minutes, folder)
        print(json.dumps(report["replay"], indent=1), flush=True)
    results = os.path.join(ROOT, "benchmarks", "results")
    with open(os.path.join(results, "long.json"), "w") as handle:
        json.dump(report, handle, indent=1)
    hour, drift, segmented = report["hour"], report["drift"], report["segmented"]
    replay = report["replay"]
    with open(os.path.join(results, "long.md"), "w") as handle:
        handle.write(f"# Long runs ({report['date']})\n\n| check | measured | target | passed |\n| --- | --- | --- | --- |\n")
        handle.write(f"| {hour['mediaMinutes']} min of media: frames | {hour['videoFrames']} | {hour['expectedFrames']} | "
                     f"{hour['videoFrames'] == hour['expectedFrames']} |\n")
        handle.write(f"| audio end - video end | {hour['endGapSeconds'] * 1000:.1f} ms | within 33.3 ms | "
                     f"{abs(hour['endGapSeconds']) <= 1 / 30} |\n")
        handle.write(f"| peak RSS growth after the first minute | {hour['rssGrowthMB']} MB (first minute "
                     f"{hour['rssFirstMinuteMB']} MB, peak {hour['rssPeakMB']} MB) | < 5 MB | {hour['rssGrowthMB'] < 5} |\n")
        handle.write(f"| {segmented['mediaMinutes']} min in {segmented['segments']} one-minute segments: frames | "
                     f"{segmented['videoFrames']} | {segmented['expectedFrames']} | {segmented['videoFrames'] == segmented['expectedFrames']} |\n")
        handle.write(f"| segment lengths exactly 60 s; worst per-segment A/V mismatch | {segmented['lengthsExact']}; "
                     f"{segmented['worstMismatchMs']} ms | exact; ≤ 21.3 ms | {segmented['passed']} |\n")
        handle.write(f"| segmented: peak RSS growth after the first minute | {segmented['rssGrowthMB']} MB | < 5 MB | "
                     f"{segmented['rssGrowthMB'] < 5} |\n")
        handle.write(f"| {drift['fast']['seconds'] / 60:g} min with a 0.1 % fast audio clock: drift | "
                     f"{drift['driftSeconds'] * 1000:.1f} ms (uncorrected: {drift['uncorrectedDriftSeconds'] * 1000:.0f} ms) | "
                     f"within {DRIFT_TARGET * 1000:g} ms | {drift['passed']} |\n")
        replay = report["replay"]
        handle.write(f"| {replay['minutes']:g} min of 720p in a 60 s replay buffer: RSS growth once full | {replay['rssGrowthMB']} MB "
                     f"({replay['rssFullMB']} → {replay['rssEndMB']} MB); {replay['saves']} saves, the shortest {replay['shortestSave']:.2f} s "
                     f"| < 5 MB; ≥ 30 s | {replay['passed']} |\n")
        handle.write(f"\nWall time of the hour: {hour['wallSeconds']} s; {hour['fragments']} fragments; "
                     f"{hour['bytes']} bytes, of which {hour['finalizationBytes']} written at finalization.\n")
    passed = hour["passed"] and drift["passed"] and segmented["passed"] and replay["passed"]
    print("long runs:", "passed" if passed else "FAILED")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
