"""Editing benchmarks (issue 30), run by bench.py, on a Reel movie (full mode: 40 s out of a 60 s 720p movie;
quick: 8 s out of a 12 s 352x288 one), the span starting and ending mid-group:
- `reel trim` (smart: the two end groups encoded again, the rest copied; frame-exact) against ffmpeg's stream
  copy of the same span (`-ss FROM -to TO -c copy`: inexact, an edit list over the keyframe before) and against
  ffmpeg's full re-encode of it at the movie's preset (exact). Targets: ≤ 1.5 × the copy, ≤ 0.1 × the re-encode.
- `reel trim --keyframes` (copy only, inexact) against the same stream copy: ≤ 1.5 ×.
- `reel join` of 6 segments of one recording (10 s each; quick: 2 s) against ffmpeg's concat demuxer
  (`-f concat -c copy`). Both copy the pictures; Reel encodes the sound again across the joins (sample-exact in
  every reader), ffmpeg copies it (each segment's priming and overlap stay in: on four 1 s Reel segments its
  output decodes to 7,680 samples too many, with a jump of 1.4 × the tone's amplitude at the joins). No target:
  the row shows what the exact sound costs (ffmpeg's own AAC encoder takes about as long for the same sound).
The smart trim misses its copy target on 2 cores: the two re-encoded part-groups (45 + 15 pictures at 720p,
decoded from their keyframes) cost about 0.4 s of x264 and decoding however they are scheduled, while the copy
of 40 s costs 0.12 s.
"""
import os
import subprocess



def run(bench, cwd, quick, runs):
    name, seconds, start, end = ("352x288", 12, 2.5, 10.5) if quick else ("720p", 60, 10.5, 50.5)
    source = os.path.join(cwd, f"trim-source-{name}.mov")
    video = "lavfi:testsrc2=size=1280x720:rate=30?realtime=0"
    subprocess.run([bench.REEL, "record", source, "--video", video, "--audio", "lavfi:sine?realtime=0", "--preset", name,
                    "--max-duration", str(seconds), "--overwrite", "--quiet"], check=True)
    span = ["-ss", str(start), "-to", str(end)]
    copy = [bench.FFMPEG, "-v", "error", "-y", *span, "-i", source, "-c", "copy", os.path.join(cwd, "trim-ffmpeg.mov")]
    reencode = [bench.FFMPEG, "-v", "error", "-y", *span, "-i", source, *bench.ffmpeg_encoding(bench.preset(name)),
                os.path.join(cwd, "trim-ffmpeg-exact.mov")]
    def trim(*mode):
        return [bench.REEL, "trim", source, os.path.join(cwd, "trim-reel.mov"), "--from", str(start), "--to", str(end),
                *mode, "--overwrite", "--quiet"]
    length = f"{end - start:g} s of a {seconds} s {name} movie"
    rows = [
        bench.compare(f"trim: smart {length}, against a stream copy", trim(), copy, cwd, runs,
                      notes="Reel frame-exact (the end groups encoded again); ffmpeg -ss/-to -c copy (inexact)"),
        bench.compare(f"trim: smart {length}, against a full re-encode", trim(), reencode, cwd, runs,
                      notes="both frame-exact; ffmpeg encodes every picture at the preset"),
        bench.compare(f"trim: --keyframes {length}", trim("--keyframes"), copy, cwd, runs,
                      notes="both copy packets; ffmpeg: -ss/-to -c copy (edit list over the keyframe before)"),
    ]
    segment = 2 if quick else 10
    pattern = os.path.join(cwd, f"join-{name}-{{index}}.mov")
    subprocess.run([bench.REEL, "record", pattern, "--video", video, "--audio", "lavfi:sine?realtime=0", "--preset", name,
                    "--max-duration", str(6 * segment), "--segment-duration", str(segment), "--overwrite", "--quiet"], check=True)
    segments = [pattern.replace("{index}", f"{index:03d}") for index in range(1, 7)]
    listing = os.path.join(cwd, "join-list.txt")
    with open(listing, "w") as handle:
        handle.writelines(f"file '{path}'\n" for path in segments)
    joined = os.path.join(cwd, "join-reel.mov")
    rows.append(bench.compare(f"join: 6 × {segment} s {name} segments", [bench.REEL, "join", joined, *segments, "--overwrite", "--quiet"],
                              [bench.FFMPEG, "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", listing, "-c", "copy",
                               os.path.join(cwd, "join-ffmpeg.mov")], cwd, runs,
                              notes="pictures copied by both; Reel encodes the sound once across the joins, ffmpeg copies it"))
    return rows


def targets(comparisons):
    checks = []
    for row in comparisons:
        job, ratio = row["job"], row["wallRatio"]
        if job.startswith("trim:") and "full re-encode" in job:
            checks.append((f"{job}: wall ≤ 0.1 × ffmpeg's", ratio <= 0.1, f"{ratio:.3f}"))
        elif job.startswith("trim:"):
            checks.append((f"{job}: wall ≤ 1.5 × ffmpeg's stream copy", ratio <= 1.5, f"{ratio:.3f}"))
    return checks
