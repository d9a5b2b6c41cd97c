"""Live HLS benchmarks (issue 26), run by bench.py: a movie and its HLS stream from one encode.

- CPU: `reel record --live DIR` against the same movie alone (the stream should cost its muxing only: the
  packets are the movie's), and against ffmpeg writing a .mov and HLS (fMP4) from one encode with the tee
  muxer, the same encoder settings.
- Segments: every segment's length and its A/V offset (first audio sample against first picture, each
  segment read alone with the init segment), Reel's `--live-segment 5` against ffmpeg's `-hls_time 5` with
  the preset's 2 s GOP, where ffmpeg's hls muxer can only end a segment at the next keyframe.
"""
import os
import statistics
import subprocess


def probe_start(path, kind):
    output = subprocess.run(["ffprobe", "-v", "error", "-select_streams", kind + ":0", "-show_entries",
                             "stream=start_time", "-of", "csv=p=0", path], capture_output=True, text=True).stdout.strip()
    return float(output) if output and output != "N/A" else None


def segments(folder, playlist="index.m3u8"):
    """Per media segment: its EXTINF, its pictures, and |first audio - first picture| in ms."""
    lines = open(os.path.join(folder, playlist)).read().splitlines()
    init_name = next(line.split('URI="')[1].split('"')[0] for line in lines if line.startswith("#EXT-X-MAP"))
    init = open(os.path.join(folder, init_name), "rb").read()
    rows, duration = [], None
    for line in lines:
        if line.startswith("#EXTINF:"):
            duration = float(line[len("#EXTINF:"):].split(",")[0])
        elif line and not line.startswith("#"):
            alone = os.path.join(folder, ".alone.mp4")
            with open(alone, "wb") as out:
                out.write(init + open(os.path.join(folder, line), "rb").read())
            frames = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries",
                                     "stream=nb_read_packets", "-of", "csv=p=0", alone], capture_output=True, text=True).stdout.strip()
            video, audio = probe_start(alone, "v"), probe_start(alone, "a")
            rows.append({"seconds": duration, "frames": int(frames or 0),
                         "avOffsetMs": 1000 * abs(audio - video) if audio is not None and video is not None else None})
            os.remove(alone)
    return rows


def run(bench, cwd, quick, runs):
    """Two rows: the default 6 s segments (a multiple of the presets' 2 s GOP, so both sides encode the same
    keyframes) for CPU, and 5 s segments (not a multiple: Reel forces keyframes at 5, 10 ... s, ffmpeg can
    only cut at its GOP's) for what the segments hold."""
    name = "352x288" if quick else "720p"
    seconds = 12 if quick else 30
    return [row(bench, cwd, name, seconds, 6, runs, alone=True), row(bench, cwd, name, seconds, 5, 1 if quick else 2, alone=False)]


def row(bench, cwd, name, seconds, segment, runs, alone):
    p = bench.preset(name)
    width, height = bench.size_of(p)
    folder = os.path.join(cwd, f"hls-{segment}")
    common = ["--video", "lavfi:testsrc2?realtime=0", "--audio", "lavfi:sine?realtime=0", "--preset", name,
              "--max-duration", str(seconds), "--overwrite", "--json", "--quiet", "--min-free", "0"] + bench.SAME_WORK
    alone_command = [bench.REEL, "record", "hls-alone.mov"] + common
    reel = [bench.REEL, "record", "hls-movie.mov", "--live", folder + "/reel", "--live-segment", str(segment), "--live-keep", "all"] + common
    ffmpeg = [bench.FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={width}x{height}:rate={p['video']['fps']}",
              "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={p['audio']['sampleRate']}", "-t", str(seconds),
              "-map", "0:v", "-map", "1:a"] + bench.ffmpeg_encoding(p) + ["-flags", "+global_header", "-f", "tee",
              f"[f=mov]hls-ffmpeg.mov|[f=hls:hls_time={segment}:hls_segment_type=fmp4:hls_playlist_type=event:"
              f"hls_segment_filename={folder}/ffmpeg/seg%d.m4s]{folder}/ffmpeg/index.m3u8"]
    for side in ("reel", "ffmpeg"):
        os.makedirs(os.path.join(folder, side), exist_ok=True)
    result = bench.compare(f"live: record {seconds} s {name} + HLS in {segment} s segments", reel, ffmpeg, cwd, runs,
                           notes=f"one encode for the movie and its stream; ffmpeg: the tee muxer writing mov and hls (fmp4, -hls_time {segment})")
    if alone:
        # The movie alone and the movie with its stream, in pairs one after the other (as push.py does), so that a
        # drift of the machine's speed over the row falls on both alike.
        pairs = [(bench.measure(alone_command, cwd), bench.measure(reel, cwd)) for _ in range(runs)]
        result["movieAlone"] = {key: bench.summary([alone[key] for alone, _ in pairs]) for key in ("wall", "cpu", "rss")}
        result["movieAlone"]["command"] = bench.shown(alone_command, cwd)
        result["streamedInPairs"] = {key: bench.summary([streamed[key] for _, streamed in pairs]) for key in ("wall", "cpu", "rss")}
        result["pairs"] = len(pairs)
        result["overMovieAlone"] = {key: statistics.median(streamed[key] / alone[key] for alone, streamed in pairs) for key in ("wall", "cpu")}
    result["expectedFrames"] = int(seconds * p["video"]["fps"])
    result["segmentTarget"] = segment
    for side in ("reel", "ffmpeg"):
        files = segments(os.path.join(folder, side))
        result[side]["segmentSeconds"] = [round(f["seconds"], 3) for f in files]
        result[side]["totalFrames"] = sum(f["frames"] for f in files)
        # The first segment's sound starts with AAC's priming frame, played before the first picture (the
        # stream's first real sample is the picture's instant): the offsets that matter are where a viewer joins.
        offsets = [f["avOffsetMs"] for f in files[1:] if f["avOffsetMs"] is not None]
        result[side]["worstAVOffsetMs"] = max(offsets) if offsets else None
    return result


def targets(row):
    """(name, met, measured) checks of a live row."""
    reel, ffmpeg = row["reel"], row["ffmpeg"]
    exact = all(abs(s - row["segmentTarget"]) < 1e-3 for s in reel["segmentSeconds"][:-1])
    checks = []
    if "overMovieAlone" in row:
        checks += [
            (f"{row['job']}: CPU ≤ 1.03 × the movie alone (muxing only, no second encode)", row["overMovieAlone"]["cpu"] <= 1.03,
             f"{row['overMovieAlone']['cpu']:.3f}, the median ratio of {row['pairs']} pairs run one after the other "
             f"({row['streamedInPairs']['cpu']['median']:.2f} vs {row['movieAlone']['cpu']['median']:.2f} s)"),
            (f"{row['job']}: CPU ≤ ffmpeg's tee (mov + hls)", row["reel"]["cpu"]["median"] <= row["ffmpeg"]["cpu"]["median"],
             f"{row['reel']['cpu']['median']:.2f} vs {row['ffmpeg']['cpu']['median']:.2f} s (paired ratio {row['cpuRatio']:.3f})"),
        ]
    return checks + [
        (f"{row['job']}: segments exact to {row['segmentTarget']} s, every frame once", exact and reel["totalFrames"] == row["expectedFrames"],
         f"Reel {reel['segmentSeconds']} ({reel['totalFrames']} frames), ffmpeg {ffmpeg['segmentSeconds']} ({ffmpeg['totalFrames']} frames)"),
        (f"{row['job']}: per-segment A/V offset < one AAC frame (21.3 ms; ffmpeg's beside)",
         reel["worstAVOffsetMs"] is not None and reel["worstAVOffsetMs"] < 1024 / 48 + 0.01,
         f"{reel['worstAVOffsetMs']:.1f} vs {ffmpeg['worstAVOffsetMs']:.1f} ms worst, from the second segment on"),
    ]
