#!/usr/bin/env python3
"""Reads an HLS stream the way a viewer's player does, over HTTP, and prints one JSON object.

The folder holding the playlist is served on 127.0.0.1 (a free port) by a thread of this script for as long
as the reading lasts (Chromium and GStreamer's hlsdemux2 fetch HLS over HTTP).

- chromium: headless Chromium's own <video> (Chromium 142+ plays HLS natively; no hls.js), muted, at 4x:
  what the element says at `ended` (duration, currentTime, getVideoPlaybackQuality's totalVideoFrames and
  droppedVideoFrames), or its media error, or that nothing ended within the timeout.
- gstreamer: uridecodebin3 (hlsdemux2, qtdemux, avdec_h264) decoding every picture to a counting sink:
  videoFrames, the first picture's time, and the ERROR/WARNING lines.

    hls_probe.py chromium|gstreamer FOLDER/index.m3u8 [--timeout 60]
"""
import argparse
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

PAGE = """<!doctype html><html><body><script>
window.report = null;
const v = document.createElement('video');
v.muted = true; v.autoplay = true;
const done = (what) => {
  if (window.report) return;
  const q = v.getVideoPlaybackQuality();
  window.report = {end: what, duration: v.duration, currentTime: v.currentTime, width: v.videoWidth,
                   height: v.videoHeight, totalVideoFrames: q.totalVideoFrames, droppedVideoFrames: q.droppedVideoFrames,
                   canPlay: v.canPlayType('application/vnd.apple.mpegurl'),
                   error: v.error ? v.error.code + ' ' + v.error.message : null};
};
v.onerror = () => done('error');
v.onended = () => done('ended');
v.onloadedmetadata = () => { v.playbackRate = 4; };
v.src = %s; document.body.appendChild(v);
v.play().catch(e => { window.playError = String(e); });
</script></body></html>"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reader", choices=["chromium", "gstreamer"])
    parser.add_argument("playlist")
    parser.add_argument("--timeout", type=float, default=60)
    arguments = parser.parse_args()
    folder = os.path.dirname(os.path.abspath(arguments.playlist))
    name = os.path.basename(arguments.playlist)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=folder))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/" % server.server_address[1]
    try:
        report = (chromium if arguments.reader == "chromium" else gstreamer)(folder, name, url, arguments.timeout)
    finally:
        server.shutdown()
    print(json.dumps(report), flush=True)


def gstreamer(folder, name, url, timeout):
    command = ["gst-launch-1.0", "-v", "uridecodebin3", "uri=" + url + name, "!", "video/x-raw", "!",
               "identity", "silent=false", "!", "fakesink", "sync=false"]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"videoFrames": -1, "problems": "gst-launch did not finish within %g s" % timeout}
    lines = (run.stdout + run.stderr).splitlines()
    chains = [line for line in lines if "identity0: last-message = chain" in line]
    first = re.search(r"pts: (\d+):(\d+):([\d.]+)", chains[0]) if chains else None
    problems = [line for line in lines if "ERROR" in line or "WARNING" in line]
    if run.returncode != 0 and not problems:
        problems = ["gst-launch exit %d" % run.returncode]
    return {"videoFrames": len(chains), "problems": " | ".join(problems[:5]),
            "firstPictureTime": int(first[1]) * 3600 + int(first[2]) * 60 + float(first[3]) if first else None}


def chromium(folder, name, url, timeout):
    with open(os.path.join(folder, ".chromium-hls-probe.html"), "w") as page:
        page.write(PAGE % json.dumps(name))
    profile = tempfile.mkdtemp(prefix="reel-chromium-hls-")
    report = {"end": "none", "error": "no report"}
    driver = None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.remote.remote_connection import RemoteConnection
        RemoteConnection.set_timeout(45)
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--mute-audio",
                         "--autoplay-policy=no-user-gesture-required", "--no-first-run", "--disable-extensions",
                         "--disable-background-networking", "--user-data-dir=" + profile):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        driver.set_page_load_timeout(20)
        driver.get(url + ".chromium-hls-probe.html")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = driver.execute_script("return window.report")
            if found:
                report = found
                break
            time.sleep(0.2)
        else:
            report = driver.execute_script(
                "const v = document.querySelector('video'); return {end: 'timeout', currentTime: v.currentTime,"
                " duration: v.duration, playError: window.playError || null, readyState: v.readyState,"
                " error: v.error ? v.error.code + ' ' + v.error.message : 'no ended event'}")
    except Exception as error:  # the browser or its driver failed: reported, not raised
        report = {"end": "none", "error": "%s: %s" % (type(error).__name__, error)}
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:
                pass
        os.remove(os.path.join(folder, ".chromium-hls-probe.html"))
        shutil.rmtree(profile, ignore_errors=True)
    return report


if __name__ == "__main__":
    sys.exit(main())
