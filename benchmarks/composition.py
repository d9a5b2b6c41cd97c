"""Composition benchmarks (issue 29), run by bench.py, Reel against the ffmpeg filter graph doing the same work;
every source is unpaced lavfi (ffmpeg runs as fast as it can, so must Reel):
- pip: a 1080p30 screen with a 640x360 camera as a picture-in-picture window (Reel's `pip` layout: a quarter of
  the width, 2.5 % in from the bottom right) encoded at the 1080p preset, against `scale` + `overlay`, video only.
  Reel re-codes the window from BT.601 (an untagged SD input) to the picture's BT.709, so ffmpeg's scale is asked
  to as well (the same pictures); a second row keeps ffmpeg's graph without it. Target: Reel's CPU ≤ 0.9 × ffmpeg's.
- side by side: two 1280x720 inputs fitted into the halves of a 720p picture, against `scale` + `pad` + `hstack`.
- mix: two tones mixed into one AAC track (one at -6 dB) beside a 352x288 picture, against `amix` (normalize=0,
  the second input's `volume` first).
- tracks: the same two tones as two AAC tracks (`--audio-tracks separate`), against ffmpeg mapping each input to
  a track of its own.
- overlay: a clock (date, time of day, the recording's timecode, in a shaded box) and a logo with alpha on a 720p
  recording, against ffmpeg's drawtext + movie + overlay drawing the same.
- filters: deinterlace (bwdif), stabilize (deshake) and denoise (hqdn3d) on a 720p recording, each against
  ffmpeg running the same filter before the same encode: what each costs is the row's CPU against the 720p
  record row's.
- live: the pip on paced sources (a 1080p30 screen and a 640x360 camera, lavfi as devices deliver), the layout
  changed to side-by-side halfway through over the control socket. Targets: 0 pictures dropped, and no hole or
  repeat at the switch: the movie holds every frame of its duration, none of them a repeat (≤ 1 frame of gap).
"""
import json
import os
import subprocess
import sys
import time


def run(bench, cwd, quick, runs):
    rows = []
    seconds = 3 if quick else 10
    # pip at 1080p
    p = bench.preset("1080p")
    width, height = bench.size_of(p)
    fps = p["video"]["fps"]
    screen, camera = f"testsrc2=size={width}x{height}:rate={fps}", f"testsrc2=size=640x360:rate={fps}"
    x, y = int(round(0.725 * width)) & ~1, int(round(0.725 * height)) & ~1
    reel = reel_record(bench, cwd, "pip", "1080p", seconds, ["--video", f"lavfi:{screen}?realtime=0", "--video", f"lavfi:{camera}?realtime=0",
                                                               "--audio", "none"])
    # The same work: Reel shows each input as a player would (an untagged 640x360 input is BT.601, a 1080p
    # picture BT.709), so the window is re-coded; ffmpeg's scale is asked to do that too.
    graph = (f"[1:v]scale={width // 4}:{height // 4}:flags=bicubic:in_color_matrix=bt601:out_color_matrix=bt709[window];"
             f"[0:v][window]overlay={x}:{y},format=yuv420p")
    ffmpeg = ffmpeg_record(bench, cwd, "pip", p, seconds, ["-f", "lavfi", "-i", screen, "-f", "lavfi", "-i", camera], graph, audio=False)
    rows.append(bench.compare(f"composition: pip {seconds} s 1080p30 + 640x360 to 1080p", reel, ffmpeg, cwd, runs,
                              notes="Reel's pip layout against ffmpeg's scale (BT.601 to BT.709, as Reel) + overlay graph, video only"))
    # ffmpeg's graph without the window's colour conversion (less work, the camera's colours shifted): for the record.
    graph = f"[1:v]scale={width // 4}:{height // 4}:flags=bicubic[window];[0:v][window]overlay={x}:{y},format=yuv420p"
    ffmpeg = ffmpeg_record(bench, cwd, "pip-plain", p, seconds, ["-f", "lavfi", "-i", screen, "-f", "lavfi", "-i", camera], graph, audio=False)
    rows.append(bench.compare(f"composition: pip {seconds} s 1080p30 + 640x360 to 1080p, ffmpeg not converting colours", reel, ffmpeg, cwd, runs,
                              notes="the same Reel run against scale + overlay leaving the window's BT.601 code values in the BT.709 picture"))
    # side by side at 720p
    p = bench.preset("720p")
    width, height = bench.size_of(p)
    source = f"testsrc2=size=1280x720:rate={p['video']['fps']}"
    reel = reel_record(bench, cwd, "sides", "720p", seconds, ["--video", f"lavfi:{source}?realtime=0", "--video", f"lavfi:{source}?realtime=0",
                                                               "--layout", "side-by-side", "--audio", "none"])
    half = f"scale={width // 2}:-2:flags=bicubic,pad={width // 2}:{height}:0:(oh-ih)/2"
    graph = f"[0:v]{half}[left];[1:v]{half}[right];[left][right]hstack,format=yuv420p"
    ffmpeg = ffmpeg_record(bench, cwd, "sides", p, seconds, ["-f", "lavfi", "-i", source, "-f", "lavfi", "-i", source], graph, audio=False)
    rows.append(bench.compare(f"composition: side by side {seconds} s two 720p to 720p", reel, ffmpeg, cwd, runs,
                              notes="Reel's side-by-side layout against scale + pad + hstack, video only"))
    # two sound inputs mixed
    p = bench.preset("352x288")
    picture = f"testsrc2=size=352x288:rate={p['video']['fps']}"
    tones = ["aevalsrc=0.125*sin(2*PI*440*t):sample_rate=48000", "aevalsrc=0.125*sin(2*PI*1000*t):sample_rate=48000"]
    reel = reel_record(bench, cwd, "mix", "352x288", seconds, ["--video", f"lavfi:{picture}?realtime=0", "--audio", f"lavfi:{tones[0]}?realtime=0",
                                                                "--audio", f"lavfi:{tones[1]}?realtime=0&gain=-6dB"])
    graph = "[2:a]volume=-6dB[quiet];[1:a][quiet]amix=inputs=2:normalize=0"
    ffmpeg = ffmpeg_record(bench, cwd, "mix", p, seconds, ["-f", "lavfi", "-i", picture, "-f", "lavfi", "-i", tones[0], "-f", "lavfi", "-i", tones[1]],
                           graph, audio=True)
    rows.append(bench.compare(f"mix: two sound inputs {seconds} s beside 352x288", reel, ffmpeg, cwd, runs,
                              notes="Reel's mix (one at -6 dB, the limiter) against volume + amix"))
    # the same two sound inputs as separate tracks
    reel = reel_record(bench, cwd, "tracks", "352x288", seconds, ["--video", f"lavfi:{picture}?realtime=0", "--audio", f"lavfi:{tones[0]}?realtime=0",
                                                                   "--audio", f"lavfi:{tones[1]}?realtime=0", "--audio-tracks", "separate"])
    ffmpeg = [bench.FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", picture, "-f", "lavfi", "-i", tones[0], "-f", "lavfi", "-i", tones[1],
              "-t", str(seconds), "-map", "0:v", "-map", "1:a", "-map", "2:a", *bench.ffmpeg_encoding(p), "-f", "mov",
              os.path.join(cwd, "tracks.ffmpeg.mov")]
    rows.append(bench.compare(f"tracks: two sound inputs {seconds} s as two AAC tracks beside 352x288", reel, ffmpeg, cwd, runs,
                              notes="--audio-tracks separate against -map 1:a -map 2:a"))
    # overlays at 720p: a clock with the timecode in a box, and a logo with its alpha
    p = bench.preset("720p")
    width, height = bench.size_of(p)
    source = f"testsrc2=size={width}x{height}:rate={p['video']['fps']}"
    logo = os.path.join(cwd, "logo.png")
    subprocess.run([bench.FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i", "color=white@0.6:size=256x128,format=rgba", "-frames:v", "1", logo], check=True)
    reel = reel_record(bench, cwd, "overlays", "720p", seconds, ["--video", f"lavfi:{source}?realtime=0", "--audio", "none",
                                                                  "--overlay", "text:%{localtime} %{timecode}?at=top-left",
                                                                  "--overlay", f"image:{logo}?at=top-right"])
    margin, size, logo_width = int(height * 0.03), round(height * 0.05), round(width * 0.2) & ~1
    # The text as Reel hands it to drawtext (in a file, so nothing is escaped into the graph).
    text = os.path.join(cwd, "clock.txt")
    with open(text, "w") as handle:
        handle.write(r"%{localtime:%Y-%m-%d %H\:%M\:%S} %{pts:gmtime:0:%H\:%M\:%S}.%{eif:mod(t*1000,1000):d:3}")
    clock = (f"drawtext=textfile={text}:font=DejaVu Sans:fontsize={size}:fontcolor=0xffffff:box=1:boxcolor=black@0.5:"
             f"boxborderw={max(2, size // 5)}:x={margin}:y={margin}")
    graph = (f"[0:v]{clock}[base];movie={logo},scale={logo_width}:-2,format=rgba[logo];"
             f"[base][logo]overlay=x=W-w-{margin}:y={margin}:format=auto:eof_action=repeat,format=yuv420p")
    ffmpeg = ffmpeg_record(bench, cwd, "overlays", p, seconds, ["-f", "lavfi", "-i", source], graph, audio=False)
    rows.append(bench.compare(f"overlay: clock and logo {seconds} s 720p", reel, ffmpeg, cwd, runs,
                              notes="--overlay text (date, time, timecode) and image (alpha) against drawtext + movie + overlay"))
    # picture filters at 720p
    p = bench.preset("720p")
    source = f"testsrc2=size=1280x720:rate={p['video']['fps']}"
    for name, chain in [("deinterlace", "bwdif=mode=send_frame:parity=auto:deint=all"), ("stabilize", "deshake=edge=mirror"), ("denoise", "hqdn3d")]:
        reel = reel_record(bench, cwd, name, "720p", seconds, ["--video", f"lavfi:{source}?realtime=0", "--audio", "none", "--filter", name])
        ffmpeg = ffmpeg_record(bench, cwd, name, p, seconds, ["-f", "lavfi", "-i", source], f"[0:v]{chain},format=yuv420p", audio=False)
        rows.append(bench.compare(f"filter: {name} {seconds} s 720p", reel, ffmpeg, cwd, runs, notes=f"--filter {name} against -vf {chain}"))
    return rows


def reel_record(bench, cwd, name, preset, seconds, inputs):
    return [bench.REEL, "record", os.path.join(cwd, f"{name}.reel.mov"), *inputs, "--preset", preset, "--max-duration", str(seconds),
            "--overwrite", "--json", "--quiet", "--min-free", "0"] + bench.SAME_WORK


def ffmpeg_record(bench, cwd, name, p, seconds, inputs, graph, audio):
    encoding = bench.ffmpeg_encoding(p)
    if not audio:
        encoding = encoding[:encoding.index("-c:a")] + ["-an"]
    return [bench.FFMPEG, "-v", "error", "-y", *inputs, "-t", str(seconds), "-filter_complex", graph, *encoding,
            "-f", "mov", os.path.join(cwd, f"{name}.ffmpeg.mov")]


def live(bench, cwd, quick):
    """The pip recorded live with a layout switch halfway: frames, drops, repeats, CPU, the switch's reply."""
    seconds = 6 if quick else 20
    print(f"  live pip 1080p30 for {seconds} s, layout switched at {seconds / 2:g} s ...", flush=True, file=sys.stderr)
    socket = os.path.join(cwd, "pip-live.sock")
    command = [bench.REEL, "record", os.path.join(cwd, "pip-live.mov"), "--video", "lavfi:testsrc2=size=1920x1080:rate=30",
               "--video", "lavfi:testsrc2=size=640x360:rate=30", "--audio", "lavfi:sine", "--preset", "1080p",
               "--max-duration", str(seconds), "--control", socket, "--overwrite", "--json", "--quiet", "--min-free", "0"]
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while not os.path.exists(socket) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(seconds / 2)
    asked = time.perf_counter()
    switch = subprocess.run([bench.REEL, "ctl", socket, "layout", "side-by-side"], capture_output=True, text=True)
    reply = time.perf_counter() - asked
    output = process.stdout.read()
    process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    result = json.loads(output)
    expected = int(round(seconds * 30))
    return {"job": f"pip 1080p30 + 640x360 live, {seconds} s, layout switched at {seconds / 2:g} s",
            "switched": switch.returncode == 0, "switchReplyMs": 1000 * reply, "videoFrames": result["videoFrames"],
            "expectedFrames": expected, "droppedFrames": result["droppedFrames"], "duplicatedFrames": result.get("duplicatedFrames", 0),
            "cpuPercentOfOneCore": 100 * (usage.ru_utime + usage.ru_stime) / wall, "exit": os.waitstatus_to_exitcode(status)}


def live_text(row):
    return (f"Live {row['job']}: {row['videoFrames']} of {row['expectedFrames']} frames, {row['droppedFrames']} dropped, "
            f"{row['duplicatedFrames']} repeated; the switch answered in {row['switchReplyMs']:.0f} ms; "
            f"{row['cpuPercentOfOneCore']:.0f} % of one core.")

