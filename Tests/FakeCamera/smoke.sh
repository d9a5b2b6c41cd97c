#!/bin/sh
# Builds the emulated camera (make fake-camera) and proves it with the real libavdevice v4l2 path (the ffmpeg
# CLI) and, when installed, v4l2-ctl. Prints PASS/FAIL per check; exits non-zero if any check fails.
#   sh Tests/FakeCamera/smoke.sh        (from anywhere; about 30 seconds)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
make -s fake-camera
export FAKE_LIB="$ROOT/.build/fake-camera/libfakev4l2.so"
exec python3 - <<'EOF'
import json, os, re, resource, subprocess, sys, tempfile, time, shutil

lib = os.environ["FAKE_LIB"]
work = tempfile.mkdtemp(prefix="fakev4l2-smoke-")
failures = 0

def check(name, ok, detail=""):
    global failures
    print(("PASS" if ok else "FAIL") + ": " + name + (" -- " + detail if detail else ""), flush=True)
    if not ok:
        failures += 1

def config(name, **camera):
    cam = {"path": "/dev/video0", "card": "Fake UVC Camera",
           "modes": [{"format": "MJPG", "size": "1280x720", "fps": 30},
                     {"format": "YUYV", "size": "1280x720", "fps": 10},
                     {"format": "YUYV", "size": "640x480", "fps": 30},
                     {"format": "NV12", "size": "640x480", "fps": 30}]}
    cam.update(camera)
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump({"cameras": [cam]}, f)
    return path

def run(args, cfg, timeout=30, stats=True):
    env = dict(os.environ, FAKE_V4L2_CONFIG=cfg, LD_PRELOAD=lib, FAKE_V4L2_STATE=os.path.join(work, "state.json"))
    if stats:
        env["FAKE_V4L2_STATS"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)
        code, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = "timeout", (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace")
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return code, out, err, wall, cpu

def frame_numbers(path):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
                          "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "64x64", "-"], capture_output=True).stdout
    size = 64 * 64 * 3 // 2
    level = lambda y: max(0, min(15, round((y - 22) / 13)))
    return [level(raw[i * size + 32 * 64 + 16]) + 16 * level(raw[i * size + 32 * 64 + 48]) for i in range(len(raw) // size)]

def packet_times(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                          "-of", "csv=p=0", path], capture_output=True, text=True).stdout
    return [float(x) for x in out.split() if x.strip()]

def emulator_cpu(err):
    m = re.search(r"fakev4l2: \S+: (\d+) frames delivered, (\d+) dropped, emulator CPU ([\d.]+) ms", err)
    return (int(m.group(1)), int(m.group(2)), float(m.group(3))) if m else None

def capture(name, cfg, input_args, seconds, expected_fps, tolerance=2):
    out = os.path.join(work, name + ".mkv")
    code, _, err, wall, cpu = run(["ffmpeg", "-hide_banner", "-nostdin", "-y", "-f", "v4l2"] + input_args +
                                  ["-i", "/dev/video0", "-t", str(seconds), "-c", "copy", out], cfg)
    check(name + ": ffmpeg exits 0", code == 0, "exit %s%s" % (code, "" if code == 0 else "\n" + err[-1500:]))
    if code != 0:
        return
    numbers = frame_numbers(out)
    expected = round(seconds * expected_fps)
    check(name + ": frame count ~%d" % expected, abs(len(numbers) - expected) <= tolerance, "%d frames" % len(numbers))
    check(name + ": frame numbers 0,1,2,... none missing or repeated", numbers == [i % 256 for i in range(len(numbers))],
          "first %s" % numbers[:12] if numbers != [i % 256 for i in range(len(numbers))] else "%d..%d" % (numbers[0], numbers[-1]))
    times = packet_times(out)
    gaps = [b - a for a, b in zip(times, times[1:])]
    if gaps:
        mean = sum(gaps) / len(gaps)
        worst = max(abs(g - 1 / expected_fps) for g in gaps)
        check(name + ": timestamps %.1f ms apart" % (1000 / expected_fps), abs(mean - 1 / expected_fps) < 0.001 and worst < 0.006,
              "mean %.2f ms, worst deviation %.2f ms" % (mean * 1000, worst * 1000))
    stats = emulator_cpu(err)
    if stats:
        print("      %s: %d delivered, %d dropped; emulator CPU %.1f ms (%.1f ms/s); ffmpeg process CPU %.2f s in %.2f s wall"
              % (name, stats[0], stats[1], stats[2], stats[2] / wall, cpu, wall))

# 1. Formats, as ffmpeg lists them.
cfg = config("plain")
code, _, err, _, _ = run(["ffmpeg", "-hide_banner", "-f", "v4l2", "-list_formats", "all", "-i", "/dev/video0"], cfg, stats=False)
check("list_formats: MJPEG 1280x720", re.search(r"Compressed:\s+mjpeg\s+:\s+Motion-JPEG : 1280x720", err) is not None, err.strip()[-400:])
check("list_formats: YUYV 1280x720 640x480", re.search(r"Raw\s+:\s+yuyv422\s+:\s+YUYV 4:2:2 : 1280x720 640x480", err) is not None)

# 2. Captures.
capture("mjpeg-720p30", cfg, ["-input_format", "mjpeg", "-framerate", "30", "-video_size", "1280x720"], 3, 30)
capture("yuyv-480p30", cfg, ["-input_format", "yuyv422", "-framerate", "30", "-video_size", "640x480"], 3, 30)
capture("yuyv-720p10", cfg, ["-input_format", "yuyv422", "-framerate", "10", "-video_size", "1280x720"], 3, 10, tolerance=1)
capture("nv12-480p30", cfg, ["-input_format", "nv12", "-framerate", "30", "-video_size", "640x480"], 2, 30)
capture("mjpeg-fpsActual27", config("slow", fpsActual=27), ["-input_format", "mjpeg", "-framerate", "30", "-video_size", "1280x720"], 3, 27)
capture("mjpeg-jitter2ms", config("jitter", jitterMs=2), ["-input_format", "mjpeg", "-framerate", "30", "-video_size", "1280x720"], 3, 30)

# 3. Unplug: ffmpeg ends with an error instead of hanging.
out = os.path.join(work, "unplug.mkv")
code, _, err, wall, _ = run(["ffmpeg", "-hide_banner", "-nostdin", "-y", "-f", "v4l2", "-input_format", "mjpeg", "-framerate", "30",
                             "-video_size", "1280x720", "-i", "/dev/video0", "-t", "10", "-c", "copy", out], config("unplug", unplugAfter=1.5), timeout=20)
check("unplug after 1.5 s: ffmpeg ends (no hang)", code != "timeout" and wall < 6, "exit %s after %.1f s" % (code, wall))
check("unplug: ffmpeg reports No such device", "No such device" in err, err.strip().splitlines()[-1] if err.strip() else "")
if os.path.exists(out):
    n = frame_numbers(out)
    check("unplug: ~45 frames before the unplug, in order", abs(len(n) - 45) <= 2 and n == list(range(len(n))), "%d frames" % len(n))

# 4. Busy and non-capture nodes.
code, _, err, _, _ = run(["ffmpeg", "-hide_banner", "-f", "v4l2", "-i", "/dev/video0", "-t", "1", "-f", "null", "-"], config("busy", busy=True), stats=False)
check("busy: open fails with EBUSY", code != 0 and "Device or resource busy" in err, err.strip().splitlines()[-1] if err.strip() else "")
code, _, err, _, _ = run(["ffmpeg", "-hide_banner", "-f", "v4l2", "-i", "/dev/video0", "-t", "1", "-f", "null", "-"], config("meta", capture=False), stats=False)
check("capture:false: not a video capture device", code != 0 and "Not a video capture device" in err, err.strip().splitlines()[-1] if err.strip() else "")

# 5. Reel's own C enumeration (video4linux.c) and a readdir of /dev.
probe = os.path.join(work, "reel_probe")
built = subprocess.run(["gcc", "-O1", "-I", "Sources/CLinuxCapture/include", "-o", probe, "Tests/FakeCamera/reel_probe.c",
                        "Sources/CLinuxCapture/video4linux.c"], capture_output=True, text=True)
if built.returncode == 0:
    code, out, err, _, _ = run([probe], cfg, stats=False)
    check("Reel's enumeration: /dev/video0 listed, capture, 4 modes",
          code == 0 and "listed /dev/video0" in out and "card=Fake UVC Camera" in out and out.count("mode ") == 4, out.strip().replace("\n", "; "))
else:
    check("Reel's enumeration probe builds", False, built.stderr[-500:])

# 6. v4l2-ctl: enumeration, controls, streaming through select().
if shutil.which("v4l2-ctl"):
    code, out, err, _, _ = run(["v4l2-ctl", "--list-devices"], cfg, stats=False)
    check("v4l2-ctl --list-devices finds the camera", "Fake UVC Camera" in out and "/dev/video0" in out, (out + err).strip()[:200])
    code, out, err, _, _ = run(["v4l2-ctl", "-d", "/dev/video0", "--list-ctrls-menus"], cfg, stats=False)
    check("v4l2-ctl lists the controls", all(k in out for k in ["brightness", "auto_exposure", "focus_absolute", "torch_intensity", "power_line_frequency"]))
    check("focus_absolute inactive while autofocus is on", re.search(r"focus_absolute .*flags=inactive", out) is not None)
    code, out, err, _, _ = run(["v4l2-ctl", "-d", "/dev/video0", "-c", "focus_absolute=100"], cfg, stats=False)
    check("setting an inactive control fails with EACCES", code != 0 and "Permission denied" in err, err.strip())
    code, out, err, _, _ = run(["v4l2-ctl", "-d", "/dev/video0", "-c", "auto_exposure=2"], cfg, stats=False)
    check("auto_exposure=2 (not in the menu) fails with EINVAL", code != 0 and "Invalid argument" in err, err.strip())
    code, out, err, _, _ = run(["v4l2-ctl", "-d", "/dev/video0", "-c", "auto_exposure=7"], cfg, stats=False)
    check("auto_exposure=7 (out of range) fails with ERANGE", code != 0 and "out of range" in err, err.strip())
    code, out, err, _, _ = run(["v4l2-ctl", "-d", "/dev/video0", "-c", "focus_automatic_continuous=0,focus_absolute=103,brightness=999,torch_intensity=40"], cfg, stats=False)
    state = json.load(open(os.path.join(work, "state.json")))["cameras"][0]["controls"]
    check("controls set, rounded and clamped like uvcvideo; state file written",
          code == 0 and state["focus_absolute"] == 105 and state["brightness"] == 64 and state["torch_intensity"] == 40 and
          state["focus_automatic_continuous"] == 0, "exit %s, %s" % (code, {k: state[k] for k in ["focus_absolute", "brightness", "torch_intensity"]}))
    code, out, err, wall, _ = run(["v4l2-ctl", "-d", "/dev/video0", "--set-fmt-video=width=640,height=480,pixelformat=YUYV",
                                   "--stream-mmap", "--stream-count=60"], cfg, timeout=15)
    check("v4l2-ctl --stream-mmap (select on the fd): 60 frames in ~2 s", code == 0 and 1.7 < wall < 3.5, "exit %s, %.2f s" % (code, wall))
    code, out, err, wall, _ = run(["v4l2-ctl", "-d", "/dev/video0", "--stream-mmap", "--stream-count=60"], config("stall", stallAfter=20), timeout=4)
    check("stallAfter 20: no more frames, the device stays open (v4l2-ctl still waiting after 4 s)", code == "timeout")
else:
    print("SKIP: v4l2-ctl not installed (apt-get install v4l-utils)")

shutil.rmtree(work, ignore_errors=True)
print("smoke: %s" % ("all checks passed" if failures == 0 else "%d check(s) FAILED" % failures))
sys.exit(1 if failures else 0)
EOF
