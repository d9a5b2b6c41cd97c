#!/usr/bin/env python3
"""Reel's benchmark harness: Reel and the ffmpeg CLI doing the same work, side by side, in one run.

Each comparison runs one warm-up of each, then alternates Reel, ffmpeg, Reel, ffmpeg ... and reports the
median and min-max of wall time, CPU time (user + sys, from wait4's rusage) and peak RSS, and the median of
the paired wall-time ratios Reel/ffmpeg. The ffmpeg command lines are generated from the same preset JSON
Reel reads (size, fps, x264 preset/CRF/profile/GOP, VBV, AAC rate/bitrate) and printed in the report.

    python3 benchmarks/bench.py            # the full set (make bench)
    python3 benchmarks/bench.py --quick    # a seconds-long subset (make bench-quick; CI runs it)

Results: benchmarks/results/latest.{json,md} (quick: quick.{json,md}). See benchmarks/README.md.
"""
import argparse
import datetime
import glob
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import composition
import control
import editing
import hls
import llhls
import monitoring
import replay
import push
import serve

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REEL = os.path.join(ROOT, ".build", "release", "reel")
PHOTO_LATENCY = os.path.join(ROOT, ".build", "release", "reel-photo-latency")
FFMPEG = shutil.which("ffmpeg") or "/usr/bin/ffmpeg"


# ---------------------------------------------------------------- measuring one process

def measure(command, cwd, env=None):
    """Runs a command to completion; returns wall seconds, CPU seconds (user+sys of it and the children it
    waited for), peak RSS in MB, exit code and stdout. `env` adds variables (the emulated camera's)."""
    start = time.perf_counter()
    environment = dict(os.environ, **env) if env else None
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
    output = process.stdout.read()
    error = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} exited {process.returncode}: {error.decode(errors='replace')[-500:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024,
            "stdout": output.decode(errors="replace")}


def shown(command, work):
    """A command as the report prints it: the repository's and the job folder's paths left out (jobs run in
    the job folder), so reports carry no paths of the machine they ran on."""
    text = shlex.join(command)
    for prefix, replacement in ((work + os.sep, ""), (ROOT + os.sep, ""), (FFMPEG, "ffmpeg")):
        text = text.replace(prefix, replacement)
    return text


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


# ---------------------------------------------------------------- commands from presets

def preset(name):
    with open(os.path.join(ROOT, "presets", f"{name}.json")) as handle:
        return json.load(handle)


def ffmpeg_encoding(p):
    """The encoder settings of a Reel preset, as ffmpeg CLI options."""
    video, audio = p["video"], p["audio"]
    options = ["-c:v", "libx264", "-preset", video["x264Preset"], "-profile:v", video["profile"],
               "-g", str(video["keyframeInterval"]), "-pix_fmt", "yuv420p"]
    options += ["-crf", str(video["crf"])] if "crf" in video else ["-b:v", str(video["bitrate"])]
    if "maxrate" in video:
        options += ["-maxrate", str(video["maxrate"]), "-bufsize", str(video["bufsize"])]
    parameters = ["scenecut=0"] + ([f"bframes={video['bFrames']}"] if "bFrames" in video else [])
    options += ["-x264-params", ":".join(parameters)]
    options += ["-c:a", "aac", "-b:a", str(audio["bitrate"]), "-ar", str(audio["sampleRate"]), "-ac", str(audio["channels"])]
    return options


def size_of(p):
    width, height = p["video"]["size"].split("x")
    return int(width), int(height)


# The ffmpeg CLI writes a plain movie; for the same work Reel's crash-safe fragments (its default) are off in
# the comparisons, and one extra row shows what they cost.
SAME_WORK = ["--fragment-interval", "0"]


def record_commands(name, seconds, output, fragments=False):
    p = preset(name)
    width, height = size_of(p)
    reel = [REEL, "record", output + ".reel.mov", "--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0",
            "--preset", name, "--max-duration", str(seconds), "--overwrite", "--json", "--quiet", "--min-free", "0"]
    reel += [] if fragments else SAME_WORK
    ffmpeg = [FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={width}x{height}:rate={p['video']['fps']}",
              "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={p['audio']['sampleRate']}", "-t", str(seconds)]
    ffmpeg += ffmpeg_encoding(p) + ["-f", "mov", output + ".ffmpeg.mov"]
    return reel, ffmpeg


def fit_filter(p):
    """The same fit-inside-and-pad geometry Reel uses, as an ffmpeg filter chain."""
    width, height = size_of(p)
    return (f"scale={width}:{height}:force_original_aspect_ratio=decrease:flags=bicubic,"
            f"pad={width}:{height}:(ow-iw)/2:(oh-ih)/2,setsar=1,fps={p['video']['fps']}")


def transcode_commands(name, source, output):
    p = preset(name)
    reel = [REEL, "transcode", source, output + ".reel.mov", "--preset", name, "--overwrite", "--json", "--quiet",
            "--min-free", "0"] + SAME_WORK
    ffmpeg = [FFMPEG, "-v", "error", "-y", "-i", source, "-vf", fit_filter(p)] + ffmpeg_encoding(p) + ["-f", "mov", output + ".ffmpeg.mov"]
    return reel, ffmpeg


def shared_encoder(main, tier, seconds, cwd, runs):
    """Two movies of one preset and a third at another from one capture: Reel encodes the main preset once
    (the copy takes its packets) against ffmpeg's one-encode equivalent, the tee muxer writing one encode to
    two files; and against Reel's own two-movie run (the main movie and the tier), which the copy should cost
    only its muxing over."""
    p = preset(main)
    width, height = size_of(p)
    out = os.path.join(cwd, "shared")
    common = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0", "--preset", main,
              "--max-duration", str(seconds), "--overwrite", "--json", "--quiet", "--min-free", "0"] + SAME_WORK
    reel = [REEL, "record", out + ".reel.mov"] + common + ["--tier", f"{main}:{out}.reel-copy.mov", "--tier", f"{tier}:{out}.reel-{tier}.mov"]
    two = [REEL, "record", out + ".reel2.mov"] + common + ["--tier", f"{tier}:{out}.reel2-{tier}.mov"]
    graph = f"[0:v]split=2[main][b];[b]{fit_filter(preset(tier))}[tier]"
    ffmpeg = [FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={width}x{height}:rate={p['video']['fps']}",
              "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={p['audio']['sampleRate']}", "-t", str(seconds),
              "-filter_complex", graph,
              "-map", "[main]", "-map", "1:a"] + ffmpeg_encoding(p) + ["-flags", "+global_header", "-t", str(seconds), "-f", "tee",
              f"[f=mov]{out}.ffmpeg.mov|[f=mov]{out}.ffmpeg-copy.mov",
              "-map", "[tier]", "-map", "1:a"] + ffmpeg_encoding(preset(tier)) + ["-t", str(seconds), "-f", "mov", f"{out}.ffmpeg-{tier}.mov"]
    row = compare(f"shared: record {seconds} s {main} twice + {tier}", reel, ffmpeg, cwd, runs,
                  notes="two movies of one preset encode once; ffmpeg: split filter, the tee muxer for the two copies")
    # Reel's two-movie run and its three-movie run in pairs, one after the other, so that a drift of the
    # machine's speed over the row falls on both alike (measured after the comparison, it once made 1.18).
    pairs = [(measure(two, cwd), measure(reel, cwd)) for _ in range(runs)]
    row["twoMovies"] = {key: summary([alone[key] for alone, _ in pairs]) for key in ("wall", "cpu", "rss")}
    row["twoMovies"]["command"] = shown(two, cwd)
    row["copyInPairs"] = {key: summary([copy[key] for _, copy in pairs]) for key in ("wall", "cpu", "rss")}
    row["overTwoMovies"] = {key: statistics.median(copy[key] / alone[key] for alone, copy in pairs) for key in ("wall", "cpu")}
    return row


def tier_transcode_commands(main, tier, source, output):
    """One decode, two movies: Reel's --tier against one ffmpeg command with a split filter and two outputs."""
    reel = [REEL, "transcode", source, output + ".reel.mov", "--preset", main, "--tier", f"{tier}:{output}.reel-{tier}.mov",
            "--overwrite", "--json", "--quiet", "--min-free", "0"] + SAME_WORK
    graph = f"[0:v]split=2[a][b];[a]{fit_filter(preset(main))}[main];[b]{fit_filter(preset(tier))}[tier]"
    ffmpeg = [FFMPEG, "-v", "error", "-y", "-i", source, "-filter_complex", graph,
              "-map", "[main]", "-map", "0:a"] + ffmpeg_encoding(preset(main)) + ["-f", "mov", output + ".ffmpeg.mov",
              "-map", "[tier]", "-map", "0:a"] + ffmpeg_encoding(preset(tier)) + ["-f", "mov", f"{output}.ffmpeg-{tier}.mov"]
    return reel, ffmpeg


def tier_record_commands(main, tier, seconds, output):
    """One capture, two movies: Reel's --tier against one ffmpeg command with a split filter and two outputs."""
    p = preset(main)
    width, height = size_of(p)
    reel = [REEL, "record", output + ".reel.mov", "--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0",
            "--preset", main, "--tier", f"{tier}:{output}.reel-{tier}.mov", "--max-duration", str(seconds), "--overwrite",
            "--json", "--quiet", "--min-free", "0"] + SAME_WORK
    graph = f"[0:v]split=2[main][b];[b]{fit_filter(preset(tier))}[tier]"
    ffmpeg = [FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={width}x{height}:rate={p['video']['fps']}",
              "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={p['audio']['sampleRate']}", "-t", str(seconds),
              "-filter_complex", graph,
              "-map", "[main]", "-map", "1:a"] + ffmpeg_encoding(p) + ["-t", str(seconds), "-f", "mov", output + ".ffmpeg.mov",
              "-map", "[tier]", "-map", "1:a"] + ffmpeg_encoding(preset(tier)) + ["-t", str(seconds), "-f", "mov", f"{output}.ffmpeg-{tier}.mov"]
    return reel, ffmpeg


def segment_commands(name, seconds, segment, output):
    """Recording in segments: Reel's --segment-duration against ffmpeg's segment muxer, same encoder settings,
    plain (unfragmented) movies on both sides."""
    p = preset(name)
    width, height = size_of(p)
    reel = [REEL, "record", output + "-reel-{index}.mov", "--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0",
            "--preset", name, "--max-duration", str(seconds), "--segment-duration", str(segment), "--overwrite", "--json",
            "--quiet", "--min-free", "0"] + SAME_WORK
    ffmpeg = [FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={width}x{height}:rate={p['video']['fps']}",
              "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={p['audio']['sampleRate']}", "-t", str(seconds)]
    ffmpeg += ffmpeg_encoding(p) + ["-f", "segment", "-segment_time", str(segment), "-segment_format", "mov",
                                    "-reset_timestamps", "1", output + "-ffmpeg-%03d.mov"]
    return reel, ffmpeg


def segment_files(pattern):
    """Per segment of one side: video seconds and frames, audio seconds, and their mismatch in ms."""
    rows = []
    for path in sorted(glob.glob(pattern)):
        probe = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type,duration,nb_frames",
                                           "-of", "json", path], capture_output=True, text=True, check=True).stdout)
        streams = {stream["codec_type"]: stream for stream in probe["streams"]}
        video, audio = float(streams["video"]["duration"]), float(streams["audio"]["duration"])
        rows.append({"video": video, "frames": int(streams["video"]["nb_frames"]), "audio": audio,
                     "mismatchMs": 1000 * abs(audio - video)})
    return rows


def segments(name, seconds, segment, cwd, runs):
    output = os.path.join(cwd, f"seg-{name}")
    reel, ffmpeg = segment_commands(name, seconds, segment, output)
    row = compare(f"segments: record {seconds} s {name} in {segment} s segments", reel, ffmpeg, cwd, runs,
                  notes="ffmpeg: -f segment -segment_time (it can cut only at the encoder's keyframes)")
    fps = preset(name)["video"]["fps"]
    for side in ("reel", "ffmpeg"):
        files = segment_files(f"{output}-{side}-*.mov")
        row[side]["segments"] = files
        row[side]["segmentSeconds"] = [round(f["video"], 3) for f in files]
        row[side]["totalFrames"] = sum(f["frames"] for f in files)
        row[side]["worstMismatchMs"] = max(f["mismatchMs"] for f in files)
    row["expectedFrames"] = int(seconds * fps)
    return row


def photo_latency(cwd, count):
    """Request to photo on disk, from a session recording 720p30 (benchmarks/PhotoLatency)."""
    print(f"  photo from a running 720p30 session x{count} ...", file=sys.stderr, flush=True)
    result = subprocess.run([PHOTO_LATENCY, cwd, str(count)], capture_output=True, text=True, check=True)
    report = json.loads(result.stdout)
    latencies = report["latencies"]
    return {"job": "photo from a running 720p30 session", "count": count, "latency": summary(latencies),
            "movieDroppedFrames": report["droppedFrames"], "movieRecorded": report["recordedSuccessfully"]}


def wait_for_file(command, path, cwd, timeout=10):
    """Seconds from launch until `path` exists (polled every millisecond); the process is then waited for."""
    if os.path.exists(path):
        os.unlink(path)
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = None
    while seen is None and time.monotonic() - started < timeout:
        if os.path.exists(path):
            seen = time.monotonic() - started
        elif process.poll() is not None and not os.path.exists(path):
            break
        else:
            time.sleep(0.001)
    process.wait()
    return seen


def cold_tap(cwd, runs):
    """A 0.1 s tap with `reel capture` from launch until the photo is on disk, against `ffmpeg -frames:v 1`'s whole run."""
    print("  cold tap: reel capture vs ffmpeg -frames:v 1 ...", file=sys.stderr, flush=True)
    reel = [REEL, "capture", "tap", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", "720p",
            "--max-duration", "0.1", "--overwrite", "--quiet", "--min-free", "0"]
    ffmpeg = [FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-frames:v", "1", "tap-ffmpeg.jpg"]
    wait_for_file(reel, os.path.join(cwd, "tap.jpg"), cwd)
    measure(ffmpeg, cwd)
    reel_times, ffmpeg_times = [], []
    for _ in range(runs):
        reel_times.append(wait_for_file(reel, os.path.join(cwd, "tap.jpg"), cwd))
        ffmpeg_times.append(measure(ffmpeg, cwd)["wall"])
    ratio = statistics.median(r / f for r, f in zip(reel_times, ffmpeg_times))
    return {"job": "cold tap: launch to photo on disk", "reel": summary(reel_times), "ffmpeg": summary(ffmpeg_times),
            "ratio": ratio, "commands": {"reel": shown(reel, cwd), "ffmpeg": shown(ffmpeg, cwd)}}


def ffmpeg_scaling_cost(name, source, cwd, runs):
    """CPU seconds the ffmpeg CLI spends scaling and padding the source's pictures to a preset: decoding with
    the filters minus decoding without, both into the null muxer (medians of alternating runs). This is the
    conversion the job itself requires, to compare with Reel's `convert` stage."""
    decode = [FFMPEG, "-v", "error", "-i", source, "-an", "-f", "null", "-"]
    scaled = [FFMPEG, "-v", "error", "-i", source, "-an", "-vf", fit_filter(preset(name)), "-f", "null", "-"]
    plain, filtered = [], []
    for _ in range(runs):
        plain.append(measure(decode, cwd)["cpu"])
        filtered.append(measure(scaled, cwd)["cpu"])
    return statistics.median(filtered) - statistics.median(plain)


# ---------------------------------------------------------------- comparisons

def compare(title, reel, ffmpeg, cwd, runs, notes="", env=None, warm_up=True):
    print(f"  {title} ...", file=sys.stderr, flush=True)
    # One run checks that the harness works (CI's --runs 1); its number is not a measurement to warm up for.
    if warm_up and runs > 1:
        measure(reel, cwd, env)
        measure(ffmpeg, cwd, env)
    samples = {"reel": [], "ffmpeg": []}
    for _ in range(runs):
        samples["reel"].append(measure(reel, cwd, env))
        samples["ffmpeg"].append(measure(ffmpeg, cwd, env))
    row = {"job": title, "runs": runs, "notes": notes,
           "commands": {"reel": shown(reel, cwd), "ffmpeg": shown(ffmpeg, cwd)}}
    for side, results in samples.items():
        row[side] = {key: summary([result[key] for result in results]) for key in ("wall", "cpu", "rss")}
    row["wallRatio"] = statistics.median(r["wall"] / f["wall"] for r, f in zip(samples["reel"], samples["ffmpeg"]))
    row["cpuRatio"] = statistics.median(r["cpu"] / f["cpu"] for r, f in zip(samples["reel"], samples["ffmpeg"]))
    reports = [json.loads(result["stdout"]) for result in samples["reel"] if result["stdout"].startswith("{")]
    if reports:
        row["droppedFrames"] = max(report.get("droppedFrames", 0) for report in reports)
    stages = [report.get("stages") for report in reports]
    stages = [stage for stage in stages if stage]
    if stages:
        overhead = [(s["convert"] + s["mux"] + s["engineOther"]) / s["total"] for s in stages if s["total"] > 0]
        row["engineOverhead"] = statistics.median(overhead)
        row["stages"] = {key: statistics.median(s[key] for s in stages) for key in stages[0]}
    return row


def live(seconds, cwd):
    print(f"  live 720p30 for {seconds} s ...", file=sys.stderr, flush=True)
    result = measure([REEL, "record", "live.mov", "--video", "lavfi:testsrc2", "--audio", "lavfi:sine", "--preset", "720p",
                      "--max-duration", str(seconds), "--overwrite", "--json", "--quiet", "--min-free", "0"], cwd)
    report = json.loads(result["stdout"])
    return {"job": f"720p30, {seconds} s, paced lavfi", "seconds": seconds, "droppedFrames": report["droppedFrames"],
            "videoFrames": report["videoFrames"], "cpuPercentOfOneCore": 100 * result["cpu"] / result["wall"],
            "wall": result["wall"], "rss": result["rss"]}


# The emulated UVC camera (Tests/FakeCamera, built by `make fake-camera`): MJPEG 1280x720 at 30 fps, YUYV modes
# besides, as a typical webcam. Both programs read it through libavdevice's v4l2 demuxer.
FAKE_CAMERA = os.path.join(ROOT, ".build", "fake-camera", "libfakev4l2.so")
CAMERA_MODES = [{"format": "MJPG", "size": "1280x720", "fps": 30}, {"format": "YUYV", "size": "1280x720", "fps": 10},
                {"format": "YUYV", "size": "640x480", "fps": 30}]


def camera(seconds, cwd, pairs):
    """Live capture from the emulated camera, Reel against the ffmpeg CLI on the same work (MJPEG 720p30 into
    the 720p preset, video only), and a snapshot of its first frame. Real time, no warm-up: `pairs` pairs of
    the recording (a real-time encode's CPU varies by a tenth from run to run: one pair decides nothing)."""
    if not os.path.exists(FAKE_CAMERA):
        subprocess.run(["make", "-C", ROOT, "fake-camera"], check=True, stdout=subprocess.DEVNULL)
    config = os.path.join(cwd, "cameras.json")
    with open(config, "w") as handle:
        json.dump({"cameras": [{"path": "/dev/video0", "card": "Bench Camera", "modes": CAMERA_MODES}]}, handle)
    env = {"LD_PRELOAD": FAKE_CAMERA, "FAKE_V4L2_CONFIG": config}
    p = preset("720p")
    v4l2 = ["-f", "v4l2", "-input_format", "mjpeg", "-framerate", "30", "-video_size", "1280x720", "-i", "/dev/video0"]
    reel = [REEL, "record", os.path.join(cwd, "cam.reel.mov"), "--video", "v4l2:/dev/video0", "--audio", "none",
            "--preset", "720p", "--max-duration", str(seconds), "--overwrite", "--json", "--quiet", "--min-free", "0"] + SAME_WORK
    encoding = ffmpeg_encoding(p)
    video_only = encoding[:encoding.index("-c:a")] + ["-an"]
    ffmpeg = [FFMPEG, "-v", "error", "-y"] + v4l2 + ["-t", str(seconds)] + video_only + ["-f", "mov", os.path.join(cwd, "cam.ffmpeg.mov")]
    record = compare(f"camera: record {seconds} s MJPEG 720p30", reel, ffmpeg, cwd, pairs, env=env, warm_up=False,
                     notes="emulated UVC camera (Tests/FakeCamera) through libavdevice's v4l2 demuxer")
    snap = compare("camera: snap the first frame",
                   [REEL, "snap", os.path.join(cwd, "snap.jpg"), "--video", "v4l2:/dev/video0", "--preset", "720p",
                    "--skip-frames", "0", "--overwrite"],
                   [FFMPEG, "-v", "error", "-y"] + v4l2 + ["-frames:v", "1", os.path.join(cwd, "snap-ffmpeg.jpg")],
                   cwd, 3, env=env)
    return record, snap


def batch(count, source, cwd, runs):
    jobs = [{"name": f"b{index}", "type": "transcode", "input": source, "preset": "352x288", "minFree": 0,
             "output": "batch/{name}.mov"} for index in range(count)]
    with open(os.path.join(cwd, "jobs.json"), "w") as handle:
        json.dump({"jobs": jobs}, handle)
    reel = [REEL, "batch", "jobs.json", "--force", "--quiet"]
    one = transcode_commands("352x288", source, os.path.join(cwd, "batch", "ffmpeg"))[1]
    script = "; ".join(shlex.join(one[:-1] + [os.path.join(cwd, "batch", f"f{index}.mov")]) + " || exit 1"
                       for index in range(count))
    os.makedirs(os.path.join(cwd, "batch"), exist_ok=True)
    row = compare(f"batch of {count} transcodes to 352x288", reel, ["/bin/sh", "-c", script], cwd, runs,
                  notes="reel batch at its default parallelism vs the same jobs run one by one with ffmpeg")
    row["commands"]["ffmpeg"] = f"{count} × (one by one) " + shown(one[:-1] + ["batch/fN.mov"], cwd)
    return row


def growth(durations, cwd, runs):
    rows = []
    for seconds in durations:
        print(f"  growth: record {seconds} s of 352x288 ...", file=sys.stderr, flush=True)
        reel = record_commands("352x288", seconds, os.path.join(cwd, f"growth{seconds}"))[0]
        results = [measure(reel, cwd) for _ in range(runs)]
        rows.append({"seconds": seconds, "wall": summary([r["wall"] for r in results]),
                     "rss": summary([r["rss"] for r in results])})
    base = rows[0]
    for row in rows:
        row["wallPerMediaSecond"] = row["wall"]["median"] / row["seconds"]
        row["rssGrowth"] = row["rss"]["median"] - base["rss"]["median"]
    return rows


def validation(cwd):
    jobs = [{"name": f"j{index}", "type": "transcode", "input": "in.mp4", "output": "out/{name}.mov", "preset": "352x288"}
            for index in range(10_000)]
    with open(os.path.join(cwd, "big.json"), "w") as handle:
        json.dump({"defaults": {"minFree": "1G"}, "jobs": jobs}, handle)
    results = [measure([REEL, "batch", "big.json", "--check"], cwd) for _ in range(5)]
    return {"jobs": 10_000, "wall": summary([r["wall"] for r in results])}


# ---------------------------------------------------------------- targets and report

def targets(report):
    checks = []
    composed = report.get("liveComposition")
    if composed:
        checks.append((f"{composed['job']}: 0 pictures dropped", composed["droppedFrames"] == 0, f"{composed['droppedFrames']} dropped"))
        gap = abs(composed["expectedFrames"] - composed["videoFrames"]) + composed["duplicatedFrames"]
        checks.append((f"{composed['job']}: the switch leaves a gap of ≤ 1 frame (every frame there, none repeated)",
                       composed["switched"] and gap <= 1,
                       f"{composed['videoFrames']} of {composed['expectedFrames']} frames, {composed['duplicatedFrames']} repeated, "
                       f"switch answered in {composed['switchReplyMs']:.0f} ms"))
    for row in report["comparisons"]:
        kind = row["job"].split()[0]
        if kind in ("record", "transcode"):
            checks.append((f"{row['job']}: wall ratio ≤ 1.00", row["wallRatio"] <= 1.0, f"{row['wallRatio']:.3f}"))
            checks.append((f"{row['job']}: peak RSS ≤ ffmpeg", row["reel"]["rss"]["median"] <= row["ffmpeg"]["rss"]["median"],
                           f"{row['reel']['rss']['median']:.0f} vs {row['ffmpeg']['rss']['median']:.0f} MB"))
            if "engineOverhead" in row:
                checks.append((f"{row['job']}: engine overhead ≤ 5 %", row["engineOverhead"] <= 0.05,
                               f"{100 * row['engineOverhead']:.1f} %"))
            if "ffmpegScalingCPU" in row:
                # Scaling to the preset is part of the job: Reel's conversion stage against ffmpeg's filters.
                convert = row["stages"]["convert"]
                checks.append((f"{row['job']}: Reel's scaling CPU ≤ ffmpeg's scale filters", convert <= row["ffmpegScalingCPU"],
                               f"{convert:.2f} vs {row['ffmpegScalingCPU']:.2f} s"))
                outside = (row["stages"]["mux"] + row["stages"]["engineOther"]) / row["stages"]["total"]
                checks.append((f"{row['job']}: engine overhead besides scaling and resampling ≤ 5 %", outside <= 0.05,
                               f"{100 * outside:.1f} %"))
        elif kind == "grab":
            checks.append(("grab: latency ≤ ffmpeg", row["wallRatio"] <= 1.0,
                           f"{1000 * row['reel']['wall']['median']:.0f} vs {1000 * row['ffmpeg']['wall']['median']:.0f} ms"))
        elif kind == "camera:" and "record" in row["job"]:
            checks.append((f"{row['job']}: 0 dropped frames", row.get("droppedFrames", 1) == 0, f"{row.get('droppedFrames')} dropped"))
            checks.append((f"{row['job']}: CPU ≤ ffmpeg (the pairs' median ratio)", row["cpuRatio"] <= 1.0,
                           f"{row['reel']['cpu']['median']:.2f} vs {row['ffmpeg']['cpu']['median']:.2f} s "
                           f"(paired ratio {row['cpuRatio']:.3f})"))
            checks.append((f"{row['job']}: peak RSS ≤ ffmpeg", row["reel"]["rss"]["median"] <= row["ffmpeg"]["rss"]["median"],
                           f"{row['reel']['rss']['median']:.0f} vs {row['ffmpeg']['rss']['median']:.0f} MB"))
        elif kind == "camera:":
            checks.append((f"{row['job']}: wall ≤ 0.8 × ffmpeg", row["wallRatio"] <= 0.8, f"{row['wallRatio']:.3f}"))
        elif kind == "tiers:":
            checks.append((f"{row['job']}: wall ≤ 0.95 × ffmpeg's one command", row["wallRatio"] <= 0.95, f"{row['wallRatio']:.3f}"))
            checks.append((f"{row['job']}: peak RSS ≤ ffmpeg", row["reel"]["rss"]["median"] <= row["ffmpeg"]["rss"]["median"],
                           f"{row['reel']['rss']['median']:.0f} vs {row['ffmpeg']['rss']['median']:.0f} MB"))
        elif kind == "composition:" and " pip " in row["job"] and "not converting" not in row["job"]:
            checks.append((f"{row['job']}: CPU ≤ 0.9 × ffmpeg's overlay graph", row["cpuRatio"] <= 0.9, f"{row['cpuRatio']:.3f}"))
        elif kind == "shared:":
            checks.append((f"{row['job']}: wall ≤ ffmpeg's tee", row["wallRatio"] <= 1.0, f"{row['wallRatio']:.3f}"))
            for key in ("wall", "cpu"):
                checks.append((f"{row['job']}: {key} ≤ 1.05 × two movies (the copy costs its muxing only)",
                               row["overTwoMovies"][key] <= 1.05, f"{row['overTwoMovies'][key]:.3f}"))
        elif kind == "segments:":
            checks.append((f"{row['job']}: wall ratio ≤ 1.00", row["wallRatio"] <= 1.0, f"{row['wallRatio']:.3f}"))
            reel, ffmpeg = row["reel"], row["ffmpeg"]
            checks.append((f"{row['job']}: per-segment A/V mismatch ≤ 21 ms (ffmpeg's measured beside)",
                           reel["worstMismatchMs"] <= 21, f"{reel['worstMismatchMs']:.1f} vs {ffmpeg['worstMismatchMs']:.1f} ms worst"))
            segment = float(row["job"].split(" in ")[1].split()[0])
            exact = all(abs(seconds - segment) < 1e-3 for seconds in reel["segmentSeconds"][:-1])
            checks.append((f"{row['job']}: segment lengths exact, every frame once", exact and reel["totalFrames"] == row["expectedFrames"],
                           f"Reel {reel['segmentSeconds']} ({reel['totalFrames']} frames), ffmpeg {ffmpeg['segmentSeconds']} "
                           f"({ffmpeg['totalFrames']} frames)"))
        elif kind == "live:":
            checks.extend(hls.targets(row))
        elif kind == "push:":
            checks.extend(push.targets(row))
        elif kind == "batch":
            checks.append((f"{row['job']}: ≤ ffmpeg one by one", row["wallRatio"] <= 1.0, f"{row['wallRatio']:.3f}"))
    photo = report["photo"]
    checks.append(("photo from a running 720p30 session: ≤ 100 ms", photo["latency"]["median"] <= 0.1,
                   f"{1000 * photo['latency']['median']:.0f} ms median, {1000 * photo['latency']['max']:.0f} ms max; "
                   f"movie {photo['movieDroppedFrames']} dropped"))
    tap = report["coldTap"]
    checks.append(("cold tap: photo on disk ≤ 1.2 × ffmpeg's whole run", tap["ratio"] <= 1.2,
                   f"{1000 * tap['reel']['median']:.0f} vs {1000 * tap['ffmpeg']['median']:.0f} ms"))
    live_row = report["live"]
    checks.append(("live 720p30: 0 dropped frames", live_row["droppedFrames"] == 0, f"{live_row['droppedFrames']} dropped"))
    growth_rows = report["growth"]
    first, last = growth_rows[0], growth_rows[-1]
    linear = last["wallPerMediaSecond"] <= 1.25 * first["wallPerMediaSecond"]
    checks.append((f"growth {first['seconds']}→{last['seconds']} s: time linear", linear,
                   f"{1000 * first['wallPerMediaSecond']:.0f} → {1000 * last['wallPerMediaSecond']:.0f} ms per media second"))
    checks.append((f"growth {first['seconds']}→{last['seconds']} s: RSS flat (< 5 MB)", last["rssGrowth"] < 5,
                   f"{last['rssGrowth']:+.1f} MB"))
    checks.append(("10,000-job validation < 1 s", report["validation"]["wall"]["median"] < 1,
                   f"{report['validation']['wall']['median']:.3f} s"))
    checks.append(push.latency_target(report["pushLatency"]))
    checks.extend(llhls.latency_targets(report["llhlsLatency"]))
    checks.extend(monitoring.targets(report["monitoring"]))
    checks.extend(replay.targets(report["replay"]))
    checks.extend(editing.targets(report["comparisons"]))
    live_control = report["control"]
    for row in live_control["switching"]:
        checks.append((f"switch to {row['source']}: latency ≤ 150 ms", row["latencyMs"]["median"] <= 150,
                       f"{row['latencyMs']['median']:.0f} ms median, {row['latencyMs']['max']:.0f} ms max over {row['switches']} switches"))
        checks.append((f"switch to {row['source']}: gap ≤ 1 frame interval", row["longestGapFrames"] <= 1,
                       f"{row['longestGapFrames']} pictures repeated at most; {row['droppedFrames']} dropped"))
    trip = live_control["statusRoundTrip"]
    checks.append(("control socket status round trip under 720p30: p99 ≤ 5 ms", trip["p99Ms"] <= 5,
                   f"p50 {trip['p50Ms']:.2f} ms, p99 {trip['p99Ms']:.2f} ms, max {trip['maxMs']:.2f} ms over {trip['requests']}"))
    preview, load = report["serve"]["preview"], report["serve"]["load"]
    checks.append(("serve: preview latency at 720p30 (capture → JPEG received) ≤ 150 ms", preview["latencyMs"]["median"] <= 150,
                   f"median {preview['latencyMs']['median']:.1f} ms, p95 {preview['latencyMs']['p95']:.1f} ms, max {preview['latencyMs']['max']:.1f} ms over {preview['pictures']} pictures"))
    checks.append(("serve: preview CPU ≤ 15 % of one core", preview["previewCpuPercent"] + preview["sendingCpuPercent"] <= 15,
                   f"{preview['previewCpuPercent']:.1f} % encoding + {preview['sendingCpuPercent']:.1f} % serving"))
    checks.append((f"serve: {load['viewers']} viewers + {load['requestsPerSecond']:.0f} API requests/s while recording 720p30: 0 dropped",
                   load["droppedFrames"] == 0 and load["failures"] == 0,
                   f"{load['droppedFrames']} dropped of {load['videoFrames']}; {load['failures']} failed requests"))
    checks.append(("serve: API p99 under that load ≤ 50 ms", load["apiMs"]["p99"] <= 50,
                   f"p50 {load['apiMs']['p50']:.1f} ms, p99 {load['apiMs']['p99']:.1f} ms, max {load['apiMs']['max']:.1f} ms over {load['requests']}"))
    held = report["serve"]["held"]
    checks.append((f"serve: {held['reloads']} held LL-HLS reloads + {held['streams']} idle streams wait without a thread each "
                   "(server threads grow by ≤ 5), all answered ≤ 250 ms after the playlist changes",
                   held["threads"]["held"] - held["threads"]["idle"] <= 5 and held["answeredBeforeChange"] == 0
                   and held["answered"] == held["reloads"] and held["lastAnswerMs"] is not None and held["lastAnswerMs"] <= 250,
                   f"threads {held['threads']['idle']} idle → {held['threads']['held']} with {held['reloads'] + held['streams']} waiting; "
                   f"RSS {held['rssMB']['idle']} → {held['rssMB']['held']} MB; {held['answered']} of {held['reloads']} answered, "
                   f"the last {held['lastAnswerMs']} ms after the change"))
    rounds = report["serve"]["takes"]
    first, total = str(rounds["first"]), str(rounds["total"])
    checks.append((f"serve: memory flat over takes {first}→{total} (< 20 MB), no descriptor left open",
                   rounds["rssGrowthMB"] < 20 and rounds["descriptors"][first] == rounds["descriptors"][total],
                   f"RSS {rounds['rssMB'][first]} → {rounds['rssMB'][total]} MB; descriptors {rounds['descriptors'][first]} → {rounds['descriptors'][total]}"))
    return [{"target": name, "met": met, "measured": value} for name, met, value in checks]


def markdown(report):
    lines = [f"Reel benchmark ({report['mode']}), {report['date']}", "",
             f"Machine: {report['machine']['cpu']}, {report['machine']['cores']} cores, {report['machine']['memory']}; "
             f"{report['machine']['ffmpeg']}; {report['machine']['reel']}", "",
             "| job | Reel wall (s) | ffmpeg wall (s) | wall ratio | Reel CPU (s) | ffmpeg CPU (s) | Reel RSS (MB) | ffmpeg RSS (MB) | engine overhead |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in report["comparisons"]:
        def cell(side, key, scale=1.0, digits=2):
            s = row[side][key]
            return f"{s['median'] * scale:.{digits}f} ({s['min'] * scale:.{digits}f}–{s['max'] * scale:.{digits}f})"
        overhead = f"{100 * row['engineOverhead']:.1f} %" if "engineOverhead" in row else "–"
        lines.append(f"| {row['job']} | {cell('reel', 'wall')} | {cell('ffmpeg', 'wall')} | {row['wallRatio']:.3f} | "
                     f"{cell('reel', 'cpu')} | {cell('ffmpeg', 'cpu')} | {cell('reel', 'rss', digits=0)} | "
                     f"{cell('ffmpeg', 'rss', digits=0)} | {overhead} |")
    photo, tap = report["photo"], report["coldTap"]
    lines += ["", f"Photo from a running 720p30 session (request to file on disk, {photo['count']} photos): "
              f"{1000 * photo['latency']['median']:.0f} ms median ({1000 * photo['latency']['min']:.0f}–{1000 * photo['latency']['max']:.0f}); "
              f"the movie dropped {photo['movieDroppedFrames']} frames.",
              "", f"Cold tap (launch to photo on disk): Reel {1000 * tap['reel']['median']:.0f} ms, "
              f"ffmpeg -frames:v 1 whole run {1000 * tap['ffmpeg']['median']:.0f} ms (ratio {tap['ratio']:.2f})."]
    live_row = report["live"]
    lines += ["", f"Live {live_row['job']}: {live_row['droppedFrames']} dropped of {live_row['videoFrames'] + live_row['droppedFrames']} "
              f"frames, {live_row['cpuPercentOfOneCore']:.0f} % of one core, {live_row['rss']:.0f} MB peak RSS.", "",
              composition.live_text(report["liveComposition"]), "",
              "Cost growth (record 352x288, Reel): " + ", ".join(
                  f"{g['seconds']} s → {g['wall']['median']:.2f} s wall, {g['rss']['median']:.0f} MB" for g in report["growth"]),
              "", f"Validating a 10,000-job file: {report['validation']['wall']['median']:.3f} s (whole process).", "",
              push.latency_text(report["pushLatency"]), "", llhls.latency_text(report["llhlsLatency"]), "",
              "| target | met | measured |", "| --- | --- | --- |"]
    lines += [f"| {t['target']} | {'yes' if t['met'] else '**no**'} | {t['measured']} |" for t in report["targets"]]
    lines += ["", "Commands (Reel, then ffmpeg):", ""]
    for row in report["comparisons"]:
        lines += [f"- {row['job']}:", f"  - `{row['commands']['reel']}`", f"  - `{row['commands']['ffmpeg']}`"]
    return "\n".join(lines) + "\n"


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.processor())
    memory = next((line.split(":", 1)[1].strip() for line in open("/proc/meminfo") if line.startswith("MemTotal")), "?")
    ffmpeg = subprocess.run([FFMPEG, "-version"], capture_output=True, text=True).stdout.splitlines()[0]
    reel = subprocess.run([REEL, "--version"], capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cores": os.cpu_count(), "memory": memory, "ffmpeg": " ".join(ffmpeg.split()[:3]), "reel": reel}


def section(name, run):
    """A section of live measurements, announced (and timed) on stderr as the comparisons are."""
    start = time.perf_counter()
    print(f"  {name} ...", flush=True, file=sys.stderr)
    result = run()
    print(f"  {name}: {time.perf_counter() - start:.0f} s", flush=True, file=sys.stderr)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a seconds-long subset (CI)")
    parser.add_argument("--runs", type=int, help="paired runs per comparison (default 5; quick 2)")
    arguments = parser.parse_args()
    if not os.access(REEL, os.X_OK):
        sys.exit(f"bench: {REEL} is missing: build it with `swift build -c release` (make bench does)")
    quick = arguments.quick
    runs = arguments.runs or (2 if quick else 5)
    work = tempfile.mkdtemp(prefix="reel-bench-")
    try:
        print(f"Reel benchmark ({'quick' if quick else 'full'}), {runs} paired runs per job", file=sys.stderr)
        source = os.path.join(work, "source1080.mp4")
        source_seconds = 4 if quick else 20
        subprocess.run([FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-f", "lavfi",
                        "-i", "sine=frequency=1000:sample_rate=48000", "-t", str(source_seconds), "-c:v", "libx264",
                        "-preset", "veryfast", "-c:a", "aac", "-shortest", source], check=True)
        movie720 = os.path.join(work, "movie720.mov")
        subprocess.run([REEL, "record", movie720, "--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0",
                        "--preset", "720p", "--max-duration", "5", "--quiet", "--min-free", "0"], check=True)
        comparisons = []
        record_tiers = ["352x288"] if quick else ["352x288", "720p", "1080p"]
        record_seconds = 2 if quick else 10
        for tier in record_tiers:
            reel, ffmpeg = record_commands(tier, record_seconds, os.path.join(work, f"rec-{tier}"))
            comparisons.append(compare(f"record {record_seconds} s {tier}", reel, ffmpeg, work, runs))
        if not quick:
            reel, ffmpeg = record_commands("1080p", record_seconds, os.path.join(work, "frag-1080p"), fragments=True)
            comparisons.append(compare(f"with fragments: record {record_seconds} s 1080p", reel, ffmpeg, work, runs,
                                       notes="Reel's default crash-safe fragments (10 s) vs ffmpeg's plain movie"))
        for tier in (["352x288"] if quick else ["720p", "352x288"]):
            reel, ffmpeg = transcode_commands(tier, source, os.path.join(work, f"tc-{tier}"))
            row = compare(f"transcode {source_seconds} s 1080p30 to {tier}", reel, ffmpeg, work, runs)
            row["ffmpegScalingCPU"] = ffmpeg_scaling_cost(tier, source, work, runs)
            comparisons.append(row)
        comparisons.append(compare(
            "grab first frame of a 720p movie", [REEL, "grab", movie720, os.path.join(work, "grab.jpg"), "--overwrite"],
            [FFMPEG, "-y", "-v", "error", "-i", movie720, "-frames:v", "1", os.path.join(work, "grab-ffmpeg.jpg")],
            work, max(runs, 5)))
        small = os.path.join(work, "small.mp4")
        subprocess.run([FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi",
                        "-i", "sine", "-t", "3", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "-shortest", small],
                       check=True)
        comparisons.append(batch(4 if quick else 20, small, work, 1 if quick else 3))
        main_tier = "352x288" if quick else "720p"
        reel, ffmpeg = tier_transcode_commands(main_tier, "low" if quick else "352x288", source, os.path.join(work, "tier-tc"))
        comparisons.append(compare(f"tiers: transcode {source_seconds} s 1080p30 to {main_tier} + {'low' if quick else '352x288'}",
                                   reel, ffmpeg, work, runs, notes="one decode; ffmpeg: one command, split filter, two outputs"))
        reel, ffmpeg = tier_record_commands("352x288" if quick else "1080p", "low" if quick else "352x288", record_seconds,
                                            os.path.join(work, "tier-rec"))
        comparisons.append(compare(f"tiers: record {record_seconds} s {'352x288 + low' if quick else '1080p + 352x288'}",
                                   reel, ffmpeg, work, runs, notes="one capture; ffmpeg: one command, split filter, two outputs"))
        comparisons.append(shared_encoder("352x288" if quick else "720p", "low" if quick else "352x288", record_seconds, work, runs))
        comparisons.append(segments("352x288", 12, 5, work, runs) if quick else segments("720p", 60, 10, work, runs))
        comparisons.extend(hls.run(sys.modules[__name__], work, quick, runs))
        comparisons.extend(push.run(sys.modules[__name__], work, quick, runs))
        comparisons.extend(editing.run(sys.modules[__name__], work, quick, runs))
        comparisons.extend(composition.run(sys.modules[__name__], work, quick, runs))
        if not quick:
            comparisons.append(segments("352x288", 60, 5, work, runs))
        comparisons.extend(camera(3 if quick else 30, work, 1 if quick else 3))
        report = {
            "mode": "quick" if quick else "full", "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "machine": machine(), "comparisons": comparisons,
            "live": live(3 if quick else 30, work),
            "photo": photo_latency(work, 5 if quick else 20),
            "coldTap": cold_tap(work, 3 if quick else 10),
            "growth": growth([2, 6] if quick else [10, 60, 300], work, 1 if quick else 3),
            "validation": validation(work),
            "control": section("control socket", lambda: control.run(REEL, work, quick)),
            "serve": section("reel serve", lambda: serve.run(REEL, work, quick)),
            "pushLatency": section("push latency", lambda: push.latency(sys.modules[__name__], work, quick)),
            "llhlsLatency": section("LL-HLS latency", lambda: llhls.latency(sys.modules[__name__], work, quick)),
            "monitoring": section("monitoring", lambda: monitoring.run(REEL, work, quick)),
            "replay": section("replay", lambda: replay.run(REEL, work, quick)),
            "liveComposition": composition.live(sys.modules[__name__], work, quick),
        }
        report["targets"] = targets(report)
        results = os.path.join(ROOT, "benchmarks", "results")
        os.makedirs(results, exist_ok=True)
        name = "quick" if quick else "latest"
        with open(os.path.join(results, f"{name}.json"), "w") as handle:
            json.dump(report, handle, indent=2)
        text = markdown(report)
        with open(os.path.join(results, f"{name}.md"), "w") as handle:
            handle.write(text)
        print(text)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
