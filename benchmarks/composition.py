"""Composition benchmarks (issue 29), run by bench.py: a 1080p30 screen with a 640x360 camera as a
picture-in-picture window (Reel's `pip` layout: a quarter of the width, 2.5 % in from the bottom right corner)
encoded at the 1080p preset, against ffmpeg's filter graph doing the same (`scale` the camera to the window,
`overlay` it). Both read unpaced lavfi sources (ffmpeg runs as fast as it can, so must Reel) and write video only.
Target: Reel's CPU ≤ 0.9 × ffmpeg's. The live rows (0 dropped with paced sources), side-by-side, the audio mix and
the layout switch's gap are not built yet.
"""
import os


def run(bench, cwd, quick, runs):
    name, seconds = "1080p", 3 if quick else 10
    p = bench.preset(name)
    width, height = bench.size_of(p)
    fps = p["video"]["fps"]
    screen = f"testsrc2=size={width}x{height}:rate={fps}"
    camera = f"testsrc2=size=640x360:rate={fps}"
    window_width, window_height = width // 4, height // 4
    x, y = int(round(0.725 * width)) & ~1, int(round(0.725 * height)) & ~1
    reel = [bench.REEL, "record", os.path.join(cwd, "pip.reel.mov"), "--video", f"lavfi:{screen}?realtime=0",
            "--video", f"lavfi:{camera}?realtime=0", "--audio", "none", "--preset", name, "--max-duration", str(seconds),
            "--overwrite", "--json", "--quiet", "--min-free", "0"] + bench.SAME_WORK
    graph = f"[1:v]scale={window_width}:{window_height}:flags=bicubic[window];[0:v][window]overlay={x}:{y},format=yuv420p"
    ffmpeg = [bench.FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", screen, "-f", "lavfi", "-i", camera, "-t", str(seconds),
              "-filter_complex", graph] + bench.ffmpeg_encoding(p) + ["-an", "-f", "mov", os.path.join(cwd, "pip.ffmpeg.mov")]
    return [bench.compare(f"composition: pip {seconds} s 1080p30 + 640x360 to {name}", reel, ffmpeg, cwd, runs,
                          notes="Reel's pip layout against ffmpeg's scale + overlay graph, video only")]
