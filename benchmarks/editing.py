"""Editing benchmarks (issue 30), run by bench.py: `reel trim --keyframes` against ffmpeg's stream copy of the
same span of the same movie (`ffmpeg -ss FROM -to TO -i IN -c copy OUT.mov`). Both copy packets from the
keyframe before FROM; ffmpeg then hides the pictures before FROM with an edit list (and keeps the pictures up
to TO), Reel starts the movie at that keyframe and keeps whole groups (the result says where). Full mode: 40 s
out of a 60 s 720p movie; quick: 8 s out of a 12 s 352x288 one. Target: wall ≤ 1.5 × ffmpeg's copy (the
issue's bound for a smart trim; a copy alone should be near 1).
"""
import os
import subprocess


def run(bench, cwd, quick, runs):
    name, seconds, start, end = ("352x288", 12, 2.5, 10.5) if quick else ("720p", 60, 10.5, 50.5)
    source = os.path.join(cwd, f"trim-source-{name}.mov")
    subprocess.run([bench.REEL, "record", source, "--video", "lavfi:testsrc2=size=1280x720:rate=30?realtime=0",
                    "--audio", "lavfi:sine?realtime=0", "--preset", name, "--max-duration", str(seconds), "--overwrite", "--quiet"],
                   check=True)
    reel = [bench.REEL, "trim", source, os.path.join(cwd, "trim-reel.mov"), "--from", str(start), "--to", str(end),
            "--keyframes", "--overwrite", "--quiet"]
    ffmpeg = [bench.FFMPEG, "-v", "error", "-y", "-ss", str(start), "-to", str(end), "-i", source, "-c", "copy",
              os.path.join(cwd, "trim-ffmpeg.mov")]
    return [bench.compare(f"trim: --keyframes {end - start:g} s of a {seconds} s {name} movie", reel, ffmpeg, cwd, runs,
                          notes="both copy packets; ffmpeg: -ss/-to -c copy (edit list over the keyframe before)")]


def targets(comparisons):
    return [(f"{row['job']}: wall ≤ 1.5 × ffmpeg's stream copy", row["wallRatio"] <= 1.5, f"{row['wallRatio']:.3f}")
            for row in comparisons if row["job"].startswith("trim:")]
