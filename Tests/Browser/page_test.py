#!/usr/bin/python3
"""End-to-end test of the `reel serve` camera page in a real headless Chromium, driven by WebDriver.

    /usr/bin/python3 Tests/Browser/page_test.py --reel PATH [--screenshots DIR]

It starts `reel serve` on a free loopback port with a temporary recordings folder and the built-in test
sources, opens the page and goes through what a person does with it: watch the preview, tap the shutter
for a photo, hold it for a movie, retake, use, switch the camera, stop and start it, read an error, use the
keyboard, and look at it on a phone-sized screen. Each step saves a screenshot and prints PASS or FAIL;
the exit status is non-zero when any check failed. Every wait is bounded, so it cannot hang.

Needs Debian's chromium, chromium-driver, python3-selenium and ffmpeg (for ffprobe): missing ones are
installed with apt-get (CI runs it as root on a fresh Debian 12). Run it with /usr/bin/python3: a python3
from pyenv or a virtualenv does not see Debian's python3-selenium (the script re-runs itself with
/usr/bin/python3 when it is started with another python that lacks selenium).
"""

import argparse
import hashlib
import http.client
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

# Debian packages this test needs, and what it uses them for.
PACKAGES = {
    "chromium": "the browser",
    "chromium-driver": "WebDriver for it (chromedriver)",
    "python3-selenium": "the WebDriver client",
    "ffmpeg": "ffprobe, to measure the movie on disk",
}
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
HOLD_SECONDS = 3.0
PHONE = (390, 844)
# The whole test, once the packages are there, must end within this (it takes about 20 s).
BUDGET_SECONDS = 140


# ---------------------------------------------------------------------------------------------------------
# Setup: packages, the server, results


def missing_packages():
    missing = []
    for package in PACKAGES:
        probe = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", package],
                               capture_output=True, text=True)
        if probe.returncode != 0 or not probe.stdout.startswith("ii"):
            missing.append(package)
    return missing


def ensure_packages():
    """Installs the Debian packages that are missing (apt-get, non-interactive, bounded)."""
    missing = missing_packages()
    if not missing:
        return
    print("installing " + ", ".join(missing) + " with apt-get", flush=True)
    if os.geteuid() != 0:
        sys.exit("FAIL setup: " + ", ".join(missing) + " missing and not root: apt-get install " + " ".join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        subprocess.run(["apt-get", "update", "-q"], env=env, check=True, timeout=300, stdout=subprocess.DEVNULL)
        # With recommends: chromium's fonts come that way (the screenshots need them).
        subprocess.run(["apt-get", "install", "-y", "-q"] + missing, env=env, check=True,
                       timeout=600, stdout=subprocess.DEVNULL)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        sys.exit("FAIL setup: installing %s: %s" % (", ".join(missing), error))
    still = missing_packages()
    if still:
        sys.exit("FAIL setup: apt-get did not install " + ", ".join(still))


def import_selenium():
    """Imports selenium; started from another python (pyenv), re-runs this script with Debian's."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and os.path.exists("/usr/bin/python3"):
            print("re-running with /usr/bin/python3 (this python has no selenium)", flush=True)
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        raise


class Results:
    """PASS/FAIL lines, counted."""

    def __init__(self):
        self.failures = []
        self.passes = 0

    def check(self, ok, what, detail="", why=""):
        """`detail`: what was measured (printed always); `why`: what is wrong (printed on a FAIL only)."""
        detail = ", ".join(text for text in (detail, "" if ok else why) if text)
        line = ("PASS " if ok else "FAIL ") + what + (": " + detail if detail else "")
        print(line, flush=True)
        if ok:
            self.passes += 1
        else:
            self.failures.append(line)
        return ok


class StepFailed(Exception):
    pass


class Overtime(BaseException):
    """The whole run went past BUDGET_SECONDS (a BaseException, so that no step's handler swallows it)."""


def on_alarm(signum, frame):
    raise Overtime()


def wait_for(condition, timeout, what, interval=0.1):
    """Polls `condition` until it returns something truthy (returned) or raises StepFailed after `timeout` s."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = condition()
            if value:
                return value
        except StepFailed:
            raise
        except Exception as error:  # a stale element or a page still loading: try again
            last_error = error
        if time.monotonic() >= deadline:
            raise StepFailed("timed out after %.0f s waiting for %s%s" % (timeout, what,
                             " (last error: %s)" % last_error if last_error else ""))
        time.sleep(interval)


class Server:
    """`reel serve` on a free loopback port, its stdout read on a thread (so reading it never blocks)."""

    def __init__(self, reel, recordings, log_path, extra=()):
        self.log = open(log_path, "w")
        self.process = subprocess.Popen(
            [reel, "serve", "--listen", "127.0.0.1:0", "--recordings", recordings, "--video", "lavfi:testsrc2",
             "--audio", "lavfi:sine", "--preset", "640x480"] + list(extra),
            stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.url = None

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def wait_until_serving(self, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                raise StepFailed("reel serve exited (status %s) before serving" % self.process.wait(5))
            match = re.search(r"serving (http://127\.0\.0\.1:\d+/)", line)
            if match:
                self.url = match.group(1)
                return self.url
        raise StepFailed("reel serve printed no 'serving http://...' line within %d s" % timeout)

    def stop(self, timeout=15):
        """SIGINT, then the exit status (None if it had to be killed)."""
        try:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGINT)
                try:
                    self.process.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(5)
                    return None
            return self.process.returncode
        finally:
            self.log.close()


class API:
    """The JSON API from Python (no Origin header, so POSTs pass the server's same-origin check)."""

    def __init__(self, url):
        self.url = url.rstrip("/")

    def call(self, method, path, body=None, timeout=10):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def status(self):
        return self.call("GET", "/api/status")[1]

    def mjpeg_parts(self, count, timeout=10):
        """The first `count` JPEGs of /preview.mjpg, read straight off the multipart stream."""
        host, port = self.url.split("//")[1].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
        try:
            connection.request("GET", "/preview.mjpg")
            response = connection.getresponse()
            if response.status != 200:
                raise StepFailed("GET /preview.mjpg: %d %s" % (response.status, response.read(300)))
            kind = response.getheader("Content-Type", "")
            boundary = re.search(r"boundary=(\S+)", kind)
            if not kind.startswith("multipart/x-mixed-replace") or not boundary:
                raise StepFailed("/preview.mjpg is %r, not multipart/x-mixed-replace with a boundary" % kind)
            parts = []
            deadline = time.monotonic() + timeout
            while len(parts) < count and time.monotonic() < deadline:
                line = response.readline(1000).strip()
                if not line:
                    continue
                if line != b"--" + boundary.group(1).encode():
                    raise StepFailed("expected the boundary, got %r" % line[:80])
                headers = {}
                while True:
                    header = response.readline(1000).strip()
                    if not header:
                        break
                    name, _, value = header.decode().partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0"))
                if headers.get("content-type") != "image/jpeg" or length <= 0:
                    raise StepFailed("a part with headers %r" % headers)
                parts.append(response.read(length))
            return parts
        finally:
            connection.close()


def ffprobe_duration(path):
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
                           capture_output=True, text=True, timeout=20)
    return float(probe.stdout.strip()) if probe.returncode == 0 and probe.stdout.strip() else None


# ---------------------------------------------------------------------------------------------------------
# The test


class PageTest:
    def __init__(self, driver, server_url, recordings, screenshots, results):
        self.driver = driver
        self.url = server_url
        self.api = API(server_url)
        self.recordings = recordings
        self.screenshots = screenshots
        self.results = results
        self.shot_number = 0

    # Helpers ------------------------------------------------------------------------------------------

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def js_async(self, script, *args):
        return self.driver.execute_async_script(script, *args)

    def element(self, element_id):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.ID, element_id)

    def shown(self, element_id):
        """Whether the element takes up space on the page (not hidden by itself or an ancestor)."""
        return self.js("const e = document.getElementById(arguments[0]);"
                       "return !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';",
                       element_id)

    def on_top(self, element_id):
        """Whether the element is what one sees at its centre (not covered by another one)."""
        return self.js("const e = document.getElementById(arguments[0]); const r = e.getBoundingClientRect();"
                       "if (!r.width || !r.height) return false;"
                       "const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
                       "return !!hit && (hit === e || e.contains(hit));", element_id)

    def screenshot(self, name):
        self.shot_number += 1
        path = os.path.join(self.screenshots, "%02d-%s.png" % (self.shot_number, name))
        self.driver.save_screenshot(path)
        print("     screenshot " + path, flush=True)
        return path

    def files(self, suffix):
        return sorted(name for name in os.listdir(self.recordings) if name.endswith(suffix) and not name.startswith("."))

    def listed(self):
        """The names in the page's recordings list."""
        return self.js("return [...document.querySelectorAll('#recordings li a:not(.thumbnail-link)')].map((a) => a.textContent.split(' ')[0]);")

    def new_in_review(self, kind, old, timeout, what=None):
        """Waits for the review to show a new photo or movie (a name not in `old`, so that what an earlier step
        left on screen does not count), loaded; returns its name."""
        element = "review-photo" if kind == "photo" else "review-movie"

        def new_one():
            if not (self.shown("review") and self.shown(element)):
                return None
            name = (self.js("return document.getElementById(arguments[0]).getAttribute('src') || ''", element)
                    .rsplit("/", 1)[-1])
            loaded = self.js("const e = document.getElementById(arguments[0]);"
                             "return e.tagName === 'IMG' ? e.naturalWidth > 0 : e.readyState >= 1;", element)
            return name if name and name not in old and loaded else None

        return wait_for(new_one, timeout, what or "the review to show the new " + kind)

    def press_and_release(self, seconds):
        from selenium.webdriver.common.action_chains import ActionChains
        ActionChains(self.driver).click_and_hold(self.element("shutter")).pause(seconds).release().perform()

    def close_review(self):
        """Leaves the page as a step expects it: no review open, nothing recording, the camera running."""
        if self.shown("review") and self.shown("use"):
            self.element("use").click()
        status = self.api.status()
        if status.get("recording"):
            self.api.call("POST", "/api/movie/stop")
        if not status.get("running"):
            self.api.call("POST", "/api/session/start", {})
        self.js("if (window.closeReview) closeReview(); if (window.showMessage) showMessage('');")

    def step(self, name, body):
        """Runs one step; an exception is that step's FAIL, and the next steps still run."""
        print("--- " + name, flush=True)
        try:
            body()
        except StepFailed as error:
            self.results.check(False, name, str(error))
        except Exception as error:  # a WebDriver error: report it as this step's failure
            self.results.check(False, name, "%s: %s" % (type(error).__name__, str(error).splitlines()[0] if str(error) else ""))
        try:
            self.screenshot(re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-"))
        except Exception as error:
            print("     (no screenshot: %s)" % error, flush=True)

    # Steps --------------------------------------------------------------------------------------------

    def open_page(self):
        check = self.results.check
        self.driver.get(self.url)
        wait_for(lambda: self.js("return document.readyState") == "complete", 15, "the page to load")
        # main() has run once the pickers are filled from /api/devices.
        wait_for(lambda: self.js("return document.querySelectorAll('#video option').length") > 0, 10,
                 "the camera picker to be filled")
        check(self.js("return document.title") == "Reel camera", "page: title is 'Reel camera'")
        check(not self.element("shutter").get_attribute("disabled"), "page: the shutter is enabled (camera running)")
        check(self.element("power").text == "Stop", "page: the power button says Stop",
              why="it says %r" % self.element("power").text)
        check(not self.shown("review"), "page: the review overlay is hidden before anything is taken",
              why="#review is displayed over the preview (its CSS display overrides the hidden attribute)")
        check(self.on_top("preview"), "page: the preview is not covered by anything",
              why="another element is on top of #preview's centre")
        check(not self.shown("timer"), "page: the timer is hidden while not recording")
        check(not self.shown("message"), "page: no message is shown")
        check(not self.shown("camera-controls"), "page: torch/focus controls are hidden for a non-v4l2 source",
              why="#camera-controls is displayed (its CSS display overrides the hidden attribute)")
        options = self.js("return [...document.querySelectorAll('#video option')].map((o) => o.value);")
        check("lavfi:testsrc2" in options and self.element("video").get_attribute("value") == "lavfi:testsrc2",
              "page: the camera picker offers and selects the test pattern", "options %r" % options)

    def preview(self):
        check = self.results.check
        width = wait_for(lambda: self.js("return document.getElementById('preview').naturalWidth"), 10,
                         "the preview <img> to show a picture (naturalWidth > 0)")
        check(width > 0, "preview: <img id=preview> shows a picture", "naturalWidth %d" % width)
        # In the browser: draw the preview into a canvas a few times and count the distinct pictures.
        distinct = self.js_async("""
            const done = arguments[arguments.length - 1];
            const img = document.getElementById('preview');
            const canvas = document.createElement('canvas');
            canvas.width = 64; canvas.height = 48;
            const context = canvas.getContext('2d', { willReadFrequently: true });
            const seen = new Set();
            let taken = 0;
            const take = () => {
              context.drawImage(img, 0, 0, 64, 48);
              seen.add(Array.from(context.getImageData(0, 0, 64, 48).data).join(','));
              if (++taken === 5) done(seen.size); else setTimeout(take, 250);
            };
            take();""")
        check(distinct >= 2, "preview: the page's <img> shows a moving picture", "%d distinct of 5 samples" % distinct)
        # On the wire: the MJPEG parts are JPEGs, and they change.
        parts = self.api.mjpeg_parts(4)
        jpegs = [part for part in parts if part[:2] == b"\xff\xd8" and part[-2:] == b"\xff\xd9"]
        digests = {hashlib.sha1(part).hexdigest() for part in jpegs}
        check(len(parts) == 4 and len(jpegs) == 4, "preview: /preview.mjpg sends JPEG parts",
              "%d parts, %d JPEGs" % (len(parts), len(jpegs)))
        check(len(digests) >= 2, "preview: at least 2 distinct pictures arrive", "%d distinct of %d" % (len(digests), len(parts)))

    def levels(self):
        """Issue 27: the sound's meters beside the preview (the camera's sound is lavfi's sine, 1/8 of full scale:
        peak -18.1 dBFS)."""
        check = self.results.check
        wait_for(lambda: self.js("return document.querySelectorAll('#meters [role=meter]').length") > 0, 10,
                 "the sound meters to appear")
        check(self.shown("meters"), "levels: the meters are shown beside the preview")
        time.sleep(0.5)
        values = self.js("return [...document.querySelectorAll('#meters [role=meter]')].map((m) => Number(m.getAttribute('aria-valuenow')));")
        check(values and all(abs(value - -18.06) <= 1 for value in values),
              "levels: each channel's meter reads the tone's peak, -18.1 dBFS (±1 dB)", "values %r" % values)
        heights = self.js("return [...document.querySelectorAll('#meters .rms')].map((r) => r.getBoundingClientRect().height / r.parentElement.getBoundingClientRect().height);")
        check(heights and all(abs(height - (60 - 21.07) / 60) < 0.05 for height in heights),
              "levels: the bars stand at the tone's RMS, -21.1 dBFS on a -60..0 scale", "heights %r" % heights)
        first = self.js("return document.querySelector('#meters [role=meter]').getAttribute('aria-valuetext')")
        time.sleep(0.4)
        updates = self.js_async("""
            const done = arguments[arguments.length - 1];
            let seen = 0;
            const source = new EventSource('/api/events');
            source.addEventListener('levels', () => { seen += 1; });
            setTimeout(() => { source.close(); done(seen); }, 1000);""")
        check(updates >= 6, "levels: about ten updates a second reach the page", "%d in 1 s (first: %r)" % (updates, first))
        check(self.on_top("preview"), "levels: the meters leave the preview's centre uncovered")

    def alarm_banner(self):
        """Issue 27: the server watches for silence (--alarm silence:-60:1): the microphone switched off, the page
        shows a banner that counts how long; the sound back, it goes."""
        check = self.results.check
        check(not self.shown("alarms"), "alarm: no banner while the sound is there")
        code, _ = self.api.call("POST", "/api/session/switch", {"audio": None})
        check(code == 200, "alarm: the microphone switched off (silence)", "HTTP %d" % code)
        wait_for(lambda: self.shown("alarms"), 8, "the alarm banner to appear")
        first = self.element("alarms").text
        check(first.startswith("No sound for "), "alarm: the banner says 'No sound for N s'", "text %r" % first)
        check((self.api.status().get("alarms") or [{}])[0].get("kind") == "silence", "alarm: /api/status lists the silence alarm")
        time.sleep(2.2)
        later = self.element("alarms").text
        numbers = [int(text.split("for ")[1].split(" ")[0]) for text in (first, later) if "for " in text]
        check(len(numbers) == 2 and numbers[1] - numbers[0] >= 2, "alarm: the banner counts up", "%r then %r" % (first, later))
        self.screenshot("alarm-banner")
        code, _ = self.api.call("POST", "/api/session/switch", {"audio": "lavfi:sine"})
        wait_for(lambda: not self.shown("alarms"), 8, "the alarm banner to go once the sound is back")
        check(not self.shown("alarms"), "alarm: the banner goes when the sound comes back")
        check(not self.api.status().get("alarms"), "alarm: /api/status lists none")

    def gallery(self):
        """Issue 27: the recordings as a gallery of thumbnails, one per photo and movie, 320 pixels wide."""
        check = self.results.check
        self.js("refreshRecordings();")
        wait_for(lambda: self.js("return document.querySelectorAll('#recordings img.thumbnail').length") > 0, 5, "thumbnails in the gallery")
        wait_for(lambda: self.js("return [...document.querySelectorAll('#recordings img.thumbnail')].every((i) => i.complete)"), 10,
                 "the thumbnails to load")
        shown = self.js("return [...document.querySelectorAll('#recordings li')].map((li) => { const i = li.querySelector('img.thumbnail');"
                        " return [li.className, i ? i.naturalWidth : 0]; });")
        kinds = {kind for kind, _ in shown}
        check(shown and all(width == 320 for _, width in shown), "gallery: every recording shows its 320-pixel thumbnail", "%r" % shown)
        check("photo" in kinds and "movie" in kinds, "gallery: photos and movies both", "kinds %r" % sorted(kinds))
        name = self.files(".jpg")[0]
        with urllib.request.urlopen(self.url.split("?")[0].rstrip("/") + "/thumbnails/" + name, timeout=10) as response:
            body = response.read()
            check(response.headers["Content-Type"] == "image/jpeg" and body[:2] == b"\xff\xd8", "gallery: /thumbnails/NAME is a JPEG")
        check(os.path.exists(os.path.join(self.recordings, ".thumbnails", name + ".jpg")),
              "gallery: thumbnails are kept in the recordings folder's hidden .thumbnails")
        self.js("document.querySelector('.recordings').scrollIntoView();")

    def tap(self):
        check = self.results.check
        before = set(self.files(".jpg"))
        self.press_and_release(0.25)
        shown = self.new_in_review("photo", before, 10)
        width = self.js("return document.getElementById('review-photo').naturalWidth")
        check(width > 0, "tap: the review shows the photo", "naturalWidth %d" % width)
        check(not self.shown("review-movie"), "tap: no movie in the review of a photo")
        new = set(self.files(".jpg")) - before
        check(len(new) == 1, "tap: one new .jpg in the recordings folder", "new: %s" % sorted(new))
        check(not self.files(".mov"), "tap: the tap's movie is not kept", "movies: %s" % self.files(".mov"))
        if new:
            name = new.pop()
            check(shown == name, "tap: the review shows the new photo", shown)
            wait_for(lambda: name in self.listed(), 5, "the photo in the recordings list")
            check(True, "tap: the photo is in the recordings list")
        self.screenshot("tap-review")
        self.element("use").click()
        wait_for(lambda: not self.shown("review"), 5, "Use to close the review")
        check(True, "tap: Use closes the review")
        check(len(self.files(".jpg")) == len(before) + 1, "tap: Use keeps the photo")

    def quick_tap(self):
        """A quick tap whose press is slow to reach the server (a slow network, or a camera slow to start the
        movie) still gives one photo: the page must not send the release before the press has been answered."""
        check = self.results.check
        self.close_review()
        before = set(self.files(".jpg"))
        # Hold back the press's request 400 ms in the page (as a slow link would), then tap for 100 ms.
        self.js("""
            const realFetch = window.fetch;
            window.fetch = (url, options) => {
              window.fetch = realFetch;  // only this one request
              return new Promise((resolve) => setTimeout(resolve, String(url).endsWith('/api/shutter/press') ? 400 : 0))
                .then(() => realFetch(url, options));
            };""")
        self.press_and_release(0.1)
        try:
            self.new_in_review("photo", before, 5)
        except StepFailed:
            pass  # the checks below say what happened instead
        message = self.element("message").text if self.shown("message") else ""
        check(not message, "quick tap: no error", why="#message says %r" % message)
        time.sleep(0.5)
        status = self.api.status()
        check(not status.get("recording"), "quick tap: nothing is left recording",
              why="the server is still recording %s after the tap" % status.get("recording"))
        new = set(self.files(".jpg")) - before
        check(len(new) == 1, "quick tap: one new photo on disk", "new: %s" % sorted(new))
        self.screenshot("quick-tap")
        self.close_review()

    def hold(self):
        from selenium.webdriver.common.action_chains import ActionChains
        check = self.results.check
        before_movies = set(self.files(".mov"))
        before_photos = set(self.files(".jpg"))
        ActionChains(self.driver).click_and_hold(self.element("shutter")).perform()
        pressed = time.monotonic()
        samples = []
        for at in (1.5, 2.5):
            time.sleep(max(0, pressed + at - time.monotonic()))
            samples.append((time.monotonic() - pressed, self.shown("timer") and self.on_top("timer"), self.element("timer").text,
                            float(self.js("return parseFloat(getComputedStyle(document.getElementById('ring')).strokeDashoffset)")),
                            self.js("return document.getElementById('shutter').classList.contains('recording')"),
                            self.api.status().get("recorded")))
            if at == 1.5:
                self.screenshot("hold-recording")
        time.sleep(max(0, pressed + HOLD_SECONDS - time.monotonic()))
        ActionChains(self.driver).release().perform()
        held = time.monotonic() - pressed
        for elapsed, visible, text, _, recording, recorded in samples:
            check(visible and recording, "hold: at %.1f s the timer is shown and the shutter is red" % elapsed,
                  "timer shown and uncovered %s, .recording %s" % (visible, recording))
            check(text in ("00:01", "00:02"), "hold: at %.1f s the timer reads 00:01 or 00:02" % elapsed,
                  "it reads %r; the server has recorded %s s" % (text, recorded))
        check(samples[1][3] < samples[0][3] < 282.7, "hold: the progress ring advances",
              "stroke-dashoffset %.2f then %.2f (282.7 is empty)" % (samples[0][3], samples[1][3]))
        self.new_in_review("movie", before_movies, 15)
        check(not self.shown("review-photo"), "hold: no photo in the review of a movie")
        check(not self.shown("timer"), "hold: the timer is hidden after the release")
        # The browser plays it: metadata, its duration, then play() and time passing.
        played = self.js_async("""
            const done = arguments[arguments.length - 1];
            const video = document.getElementById('review-movie');
            const report = (extra) => done(Object.assign({ readyState: video.readyState, duration: video.duration,
              currentTime: video.currentTime, width: video.videoWidth, error: video.error && video.error.message,
              src: video.currentSrc }, extra));
            const timeout = setTimeout(() => report({ timedOut: true }), 10000);
            video.addEventListener('error', () => { clearTimeout(timeout); report({}); });
            const play = () => {
              video.muted = true;
              video.play().then(() => {
                const started = performance.now();
                const poll = () => {
                  if (video.currentTime > 0.3 || performance.now() - started > 4000) { clearTimeout(timeout); report({ played: true }); }
                  else setTimeout(poll, 100);
                };
                poll();
              }, (error) => { clearTimeout(timeout); report({ playError: String(error) }); });
            };
            if (video.readyState >= 1) play(); else video.addEventListener('loadedmetadata', play, { once: true });""")
        check(played.get("readyState", 0) >= 2 and not played.get("error"), "hold: the browser loads the movie",
              json.dumps(played))
        duration = played.get("duration") or 0
        check(abs(duration - HOLD_SECONDS) <= 0.6, "hold: the movie's duration in the browser is about %.0f s" % HOLD_SECONDS,
              "%.2f s (held %.2f s)" % (duration, held))
        check(played.get("played") and played.get("currentTime", 0) > 0.3 and played.get("width", 0) > 0,
              "hold: the movie plays in the browser", "currentTime %.2f, videoWidth %s" %
              (played.get("currentTime", 0), played.get("width")))
        new = sorted(set(self.files(".mov")) - before_movies)
        check(len(new) == 1, "hold: one new .mov in the recordings folder", "new: %s" % new)
        check(set(self.files(".jpg")) == before_photos, "hold: the press's first-picture photo is not kept")
        if new:
            on_disk = ffprobe_duration(os.path.join(self.recordings, new[0]))
            check(on_disk is not None and abs(on_disk - HOLD_SECONDS) <= 0.6,
                  "hold: the .mov on disk is about %.0f s (ffprobe)" % HOLD_SECONDS, "%s s" % on_disk)
            check(played.get("src", "").endswith("/recordings/" + new[0]), "hold: the review plays the new movie",
                  played.get("src", ""))
            wait_for(lambda: new[0] in self.listed(), 5, "the movie in the recordings list")
            check(True, "hold: the movie is in the recordings list")
        self.screenshot("hold-review")
        self.movie = new[0] if new else None

    def retake(self):
        check = self.results.check
        name = getattr(self, "movie", None)
        if not name or not self.shown("retake"):
            raise StepFailed("no movie under review to retake (the hold step failed)")
        self.element("retake").click()
        wait_for(lambda: not self.shown("review"), 5, "Retake to close the review")
        check(True, "retake: the review closes")
        wait_for(lambda: not os.path.exists(os.path.join(self.recordings, name)), 5, "the movie to leave the disk")
        check(True, "retake: the movie is deleted from disk")
        wait_for(lambda: name not in self.listed(), 5, "the movie to leave the recordings list")
        check(True, "retake: the movie is gone from the recordings list")
        check(self.js("return document.activeElement && document.activeElement.id") == "shutter",
              "retake: the focus is back on the shutter")
        listed = [entry["name"] for entry in self.api.call("GET", "/api/recordings")[1]]
        check(name not in listed, "retake: /api/recordings no longer lists it")

    def hold_to_limit(self):
        """A hold longer than 'Max seconds': the movie stops itself and is shown while the shutter is still down;
        the release after it is no error."""
        from selenium.webdriver.common.action_chains import ActionChains
        check = self.results.check
        self.close_review()
        limit = 2
        before = set(self.files(".mov"))
        self.js("document.getElementById('max-duration').value = arguments[0];", str(limit))
        ActionChains(self.driver).click_and_hold(self.element("shutter")).perform()
        pressed = time.monotonic()
        try:
            self.new_in_review("movie", before, limit + 4, "the review to show the movie the limit stopped")
            shown_at = time.monotonic() - pressed
            # The server announces the end at its next 1 s progress tick, so allow up to 1 s and a bit.
            check(shown_at < limit + 1.8, "limit: the movie is shown while the shutter is still held",
                  "after %.1f s of a %d s limit" % (shown_at, limit))
            check(not self.shown("timer"), "limit: the timer is hidden once the limit stopped the movie")
            self.screenshot("limit-review-while-held")
            time.sleep(max(0, pressed + limit + 2.0 - time.monotonic()))
        finally:
            ActionChains(self.driver).release().perform()
            self.js("document.getElementById('max-duration').value = '60';")
        time.sleep(0.5)
        check(not self.shown("message"), "limit: releasing after the limit is no error",
              self.element("message").text if self.shown("message") else "")
        check(not self.api.status().get("recording"), "limit: nothing is left recording")
        check(self.shown("review-movie"), "limit: the movie's review stays open after the release")
        new = sorted(set(self.files(".mov")) - before)
        check(len(new) == 1, "limit: one new .mov", "new: %s" % new)
        if new:
            on_disk = ffprobe_duration(os.path.join(self.recordings, new[0]))
            check(on_disk is not None and abs(on_disk - limit) <= 0.5, "limit: the .mov is %d s long (ffprobe)" % limit,
                  "%s s" % on_disk)
        self.element("use").click()
        wait_for(lambda: not self.shown("review"), 5, "Use to close the review")

    def switch_input(self):
        check = self.results.check
        self.close_review()
        # With no cameras the picker has one real source: add SMPTE bars as another and choose it.
        self.js("""
            const select = document.getElementById('video');
            const option = document.createElement('option');
            option.value = 'lavfi:smptebars'; option.textContent = 'SMPTE bars';
            select.append(option);
            select.value = 'lavfi:smptebars';
            select.dispatchEvent(new Event('change', { bubbles: true }));""")
        wait_for(lambda: self.api.status()["inputs"].get("video") == "lavfi:smptebars", 10,
                 "/api/status to report video lavfi:smptebars")
        check(True, "switch: picking another camera switches the session's video (lavfi:smptebars)")
        check(self.api.status()["running"], "switch: the camera still runs after the switch")
        # The preview shows the bars: the left 1/7 of SMPTE bars is light grey, the test pattern's is not.
        time.sleep(1.0)
        grey = self.js("""
            const img = document.getElementById('preview');
            const canvas = document.createElement('canvas');
            canvas.width = 70; canvas.height = 40;
            const context = canvas.getContext('2d');
            context.drawImage(img, 0, 0, 70, 40);
            const [r, g, b] = context.getImageData(4, 10, 1, 1).data;
            return [r, g, b];""")
        check(all(150 <= value <= 230 for value in grey) and max(grey) - min(grey) < 30,
              "switch: the preview shows the SMPTE bars", "top-left colour %s" % grey)
        self.screenshot("switch-smptebars")
        # The Switch button goes to the next source the server listed: back to the test pattern.
        self.element("switch").click()
        wait_for(lambda: self.api.status()["inputs"].get("video") == "lavfi:testsrc2", 10,
                 "the Switch button to go back to lavfi:testsrc2")
        check(True, "switch: the Switch button switches back to the test pattern")
        check(self.element("video").get_attribute("value") == "lavfi:testsrc2", "switch: the picker follows the Switch button")
        check(not self.shown("message"), "switch: no message", why=self.element("message").text)

    def power_and_error(self):
        check = self.results.check
        self.element("power").click()
        wait_for(lambda: self.element("shutter").get_attribute("disabled") is not None, 15, "the shutter to be disabled")
        check(True, "power: Stop disables the shutter")
        check(self.element("power").text == "Start", "power: the button then says Start",
              why="it says %r" % self.element("power").text)
        check(self.api.status()["running"] is False, "power: /api/status says the camera is not running")
        self.screenshot("camera-stopped")
        # Pressing the disabled shutter does nothing (no request, no message).
        before = set(os.listdir(self.recordings))
        self.press_and_release(0.2)
        time.sleep(0.3)
        check(set(os.listdir(self.recordings)) == before and not self.shown("message"),
              "error: the disabled shutter takes nothing and says nothing")
        # An API error is shown in #message with the API's own text.
        code, reply = self.api.call("POST", "/api/photo")
        expected = reply.get("error", "")
        check(code == 400 and expected, "error: POST /api/photo with the camera stopped is a 400 with an error",
              "%d %r" % (code, reply))
        self.js("api('POST', '/api/photo').catch(() => {});")
        text = wait_for(lambda: self.shown("message") and self.element("message").text, 5, "#message to show")
        check(text == expected, "error: #message shows the API's error text", "%r (expected %r)" % (text, expected))
        self.screenshot("error-message")
        self.element("power").click()
        wait_for(lambda: self.element("shutter").get_attribute("disabled") is None, 15, "the shutter to be enabled again")
        check(True, "power: Start enables the shutter again")
        check(self.element("power").text == "Stop", "power: the button says Stop again")
        check(not self.shown("message"), "power: Start clears the message")
        status = self.api.status()
        check(status["running"] and status["inputs"].get("video") == "lavfi:testsrc2",
              "power: the camera runs again on the picked inputs", json.dumps(status["inputs"]))
        wait_for(lambda: self.js("return document.getElementById('preview').naturalWidth") > 0, 10,
                 "the preview to come back")
        check(True, "power: the preview comes back")

    def keyboard(self):
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys
        check = self.results.check
        self.close_review()
        before = set(self.files(".jpg"))
        self.js("document.getElementById('shutter').focus();")
        check(self.js("return document.activeElement.id") == "shutter", "keyboard: the shutter takes the focus")
        ActionChains(self.driver).key_down(Keys.SPACE).pause(0.25).key_up(Keys.SPACE).perform()
        self.new_in_review("photo", before, 10, "Space to give a photo")
        check(True, "keyboard: Space on the shutter takes a photo")
        check(len(set(self.files(".jpg")) - before) == 1, "keyboard: one new .jpg on disk")
        check(self.js("return document.activeElement.id") == "use", "keyboard: the focus moves to Use")
        self.screenshot("keyboard-photo")
        ActionChains(self.driver).send_keys(Keys.ENTER).perform()
        wait_for(lambda: not self.shown("review"), 5, "Enter on Use to close the review")
        check(True, "keyboard: Enter on Use closes the review")
        check(self.js("return document.activeElement.id") == "shutter", "keyboard: the focus is back on the shutter")

    def phone(self):
        check = self.results.check
        self.close_review()
        width, height = PHONE
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})
        self.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        self.driver.get(self.url)
        wait_for(lambda: self.js("return document.querySelectorAll('#video option').length") > 0, 10, "the page")
        wait_for(lambda: self.js("return document.getElementById('preview').naturalWidth") > 0, 10, "the preview")
        wait_for(lambda: len(self.listed()) > 0, 5, "the recordings list")

        def overflow():
            return self.js("""
                const width = window.innerWidth;
                const wide = [...document.querySelectorAll('body *')]
                  .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > width + 0.5)
                  .map((e) => (e.id ? '#' + e.id : e.tagName.toLowerCase()) + ' right=' + Math.round(e.getBoundingClientRect().right));
                return { innerWidth: width, scrollWidth: document.documentElement.scrollWidth, wide: wide.slice(0, 8) };""")

        layout = overflow()
        check(layout["innerWidth"] == width, "phone: the viewport is %d px wide" % width, json.dumps(layout))
        check(layout["scrollWidth"] <= layout["innerWidth"] and not layout["wide"],
              "phone: nothing overflows horizontally", json.dumps(layout))
        shutter = self.js("const r = document.getElementById('shutter').getBoundingClientRect();"
                          "return [r.left, r.top, r.width, r.height];")
        check(shutter[2] >= 44 and shutter[3] >= 44 and 0 <= shutter[0] and shutter[0] + shutter[2] <= width,
              "phone: the shutter is a finger-sized target on screen", "rect %s" % shutter)
        self.screenshot("phone")
        # A photo's review on the phone: its buttons are on screen.
        before = set(self.files(".jpg"))
        self.press_and_release(0.25)
        self.new_in_review("photo", before, 10, "the review on the phone")
        layout = overflow()
        buttons = self.js("return ['retake', 'use'].map((id) => { const r = document.getElementById(id).getBoundingClientRect();"
                          " return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth && r.top >= 0; });")
        check(all(buttons), "phone: Retake and Use are on screen in the review", "%s" % buttons)
        check(layout["scrollWidth"] <= layout["innerWidth"] and not layout["wide"],
              "phone: nothing overflows horizontally in the review", json.dumps(layout))
        self.screenshot("phone-review")
        self.element("use").click()

    def live_stream(self):
        """`reel serve --live`: the HLS button swaps the preview for the camera's Low-Latency HLS, which
        Chromium plays natively, in real time and near the live edge; a second press brings the preview back."""
        check = self.results.check
        self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        self.driver.get(self.url)
        wait_for(lambda: self.js("return document.querySelectorAll('#video option').length") > 0, 10, "the page")
        # The playlist is written once the first 2 s segment is: the page learns of it from the state event.
        wait_for(lambda: self.api.status().get("live") == "/live/index.m3u8", 15, "/api/status to name the camera's playlist")
        playable = self.js("return document.getElementById('live').canPlayType('application/vnd.apple.mpegurl')")
        check(playable != "", "live: Chromium plays HLS itself", "canPlayType %r" % playable)
        wait_for(lambda: self.shown("view"), 10, "the HLS button to show")
        self.element("view").click()
        try:
            wait_for(lambda: self.js("const v = document.getElementById('live'); return v.readyState >= 2 && v.currentTime > 0"),
                     30, "the HLS video to play")
        except StepFailed:
            state = self.js("const v = document.getElementById('live'); return [v.src, v.readyState, v.networkState, "
                            "v.error ? v.error.code + ' ' + v.error.message : null]")
            raise StepFailed("the HLS video did not play within 30 s: %s" % state)
        check(self.shown("live") and not self.shown("preview"), "live: the HLS video replaces the preview")
        before = self.js("return document.getElementById('live').currentTime")
        time.sleep(3)
        after = self.js("return document.getElementById('live').currentTime")
        check(after - before >= 2, "live: the stream plays in real time", "%.2f s of media in 3 s" % (after - before))
        # Following the live edge: the newest media the player fetched (segmentN or partN.I) against the
        # segment the playlist is writing now, in 2 s segments.
        fetched = self.js("return performance.getEntriesByType('resource').map((e) => e.name)"
                          ".filter((n) => n.includes('/live/') && n.includes('.m4s'))")
        numbers = [int(m.group(1)) for m in (re.search(r"/live/(?:segment|part)(\d+)", name) for name in fetched) if m]
        with urllib.request.urlopen(self.url + "live/index.m3u8", timeout=10) as response:
            playlist = response.read().decode()
        sequence = int(re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", playlist).group(1))
        writing = sequence + len(re.findall(r"#EXTINF:", playlist))
        behind = 2 * (writing - max(numbers)) if numbers else -1
        check(0 <= behind <= 8, "live: the player fetches near the live edge (within 8 s)",
              "newest fetched segment %s, the playlist writes %d: %d s behind" % (max(numbers) if numbers else None, writing, behind))
        self.screenshot("live-hls")
        self.element("view").click()
        wait_for(lambda: self.shown("preview") and not self.shown("live"), 5, "the preview to come back")
        check(True, "live: a second press brings the preview back")

    def save_replay(self):
        """Issue 28: the camera keeps its last seconds (--replay-buffer 10): the page's Save replay button writes
        them to a movie in the recordings folder, says so, and the movie appears in the recordings."""
        check = self.results.check
        wait_for(lambda: self.shown("save-replay"), 10, "the Save replay button")
        check(True, "replay: the Save replay button is shown while the camera keeps its last seconds")
        time.sleep(3)
        before = set(self.files(".mov"))
        self.element("save-replay").click()
        wait_for(lambda: self.shown("kept"), 15, "the page to say the replay was saved")
        text = self.element("kept").text
        new = sorted(set(self.files(".mov")) - before)
        check(len(new) == 1 and new[0].startswith("replay-"), "replay: one replay-….mov in the recordings folder", "new: %s" % new)
        check(text.startswith("Saved ") and (not new or new[0] in text), "replay: the page names the saved movie", "text %r" % text)
        if new:
            wait_for(lambda: new[0] in self.listed(), 10, "the replay in the recordings list")
            check(True, "replay: the replay is in the recordings list")
            seconds = ffprobe_duration(os.path.join(self.recordings, new[0]))
            check(seconds is not None and seconds >= 2.5, "replay: the movie holds the seconds before the click", "%r s" % seconds)
        self.screenshot("save-replay")

    def layout_picker(self):
        """Issue 29: a camera of two composed inputs (reel serve --video A --video B): the page shows a Layout
        picker with the camera's layouts, and choosing one changes the camera's layout from the next frame
        (the API's status says so)."""
        check = self.results.check
        self.driver.get(self.url)
        wait_for(lambda: self.js("return document.querySelectorAll('#video option').length") > 0, 10, "the page")
        wait_for(lambda: self.shown("layout-picker"), 10, "the Layout picker")
        options = self.js("return Array.from(document.getElementById('layout').options).map((o) => o.value);")
        check(options == ["pip", "side-by-side", "grid", "only:1", "only:2"], "layout: the picker offers the camera's layouts", "%r" % options)
        check(self.js("return document.getElementById('layout').value;") == "pip", "layout: pip is chosen at the start")
        self.js("const s = document.getElementById('layout'); s.value = 'side-by-side'; s.dispatchEvent(new Event('change'));")
        wait_for(lambda: self.api.status().get("layout") == "side-by-side", 10, "the camera's layout to change")
        check(True, "layout: choosing side by side changes the camera's layout")
        wait_for(lambda: self.js("return document.getElementById('layout').value;") == "side-by-side", 5, "the picker to follow")
        self.js("const s = document.getElementById('layout'); s.value = 'only:2'; s.dispatchEvent(new Event('change'));")
        wait_for(lambda: self.api.status().get("layout") == "only:2", 10, "the camera's layout to change again")
        check(True, "layout: one input alone")
        self.screenshot("layout-picker")

    def browser_log(self):
        """JavaScript errors and CSP violations the page caused."""
        try:
            entries = self.driver.get_log("browser")
        except Exception as error:
            print("     (no browser log: %s)" % error, flush=True)
            return
        # Requests that answered 4xx on purpose (the error step) are logged as failed loads: not the page's fault.
        severe = [entry["message"] for entry in entries if entry.get("level") == "SEVERE"
                  and "the server responded with a status of 4" not in entry["message"]]
        self.results.check(not severe, "browser: no JavaScript errors or CSP violations", " | ".join(severe[:5]))


def make_driver(screenshots):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.remote.remote_connection import RemoteConnection
    # No WebDriver command may wait forever on a stuck browser (the default is no timeout at all).
    RemoteConnection.set_timeout(45)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,900", "--mute-audio", "--autoplay-policy=no-user-gesture-required",
                     "--no-first-run", "--disable-extensions", "--disable-background-networking",
                     "--user-data-dir=" + os.path.join(screenshots, ".chromium-profile")):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=CHROMEDRIVER)
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(20)
    return driver


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reel", required=True, help="the reel binary (with `reel serve`)")
    parser.add_argument("--screenshots", help="where to save the PNGs (default: a new temporary folder)")
    arguments = parser.parse_args()
    reel = os.path.abspath(arguments.reel)
    if not os.access(reel, os.X_OK):
        sys.exit("FAIL setup: %s is not an executable" % reel)

    started = time.monotonic()
    ensure_packages()
    import_selenium()
    screenshots = os.path.abspath(arguments.screenshots or tempfile.mkdtemp(prefix="reel-page-shots-"))
    os.makedirs(screenshots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="reel-page-test-")
    recordings = os.path.join(work, "recordings")
    results = Results()
    server = driver = None
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(BUDGET_SECONDS)
    try:
        server = Server(reel, recordings, os.path.join(work, "serve.log"), extra=["--alarm", "silence:-60:1"])
        url = server.wait_until_serving()
        print("reel serve at %s (recordings in %s)" % (url, recordings), flush=True)
        driver = make_driver(work)
        test = PageTest(driver, url, recordings, screenshots, results)
        test.step("1 open the page", test.open_page)
        test.step("2 preview frames arrive", test.preview)
        test.step("2b sound levels beside the preview", test.levels)
        test.step("2c an alarm banner", test.alarm_banner)
        test.step("3 tap takes a photo", test.tap)
        test.step("3b a quick tap takes a photo", test.quick_tap)
        test.step("4 hold records a movie", test.hold)
        test.step("5 retake deletes it", test.retake)
        test.step("5b a hold that reaches the limit", test.hold_to_limit)
        test.step("5c the gallery", test.gallery)
        test.step("6 switch the input", test.switch_input)
        test.step("7 stop the camera, error display, start", test.power_and_error)
        test.step("8 keyboard shutter", test.keyboard)
        test.step("9 phone-sized window", test.phone)
        test.browser_log()
        # The camera as LL-HLS (reel serve --live): a server of its own, so the steps above run without the
        # stream's encode beside them.
        live_server = Server(reel, os.path.join(work, "live-recordings"), os.path.join(work, "serve-live.log"),
                             extra=["--live", "--replay-buffer", "10"])
        try:
            live_test = PageTest(driver, live_server.wait_until_serving(), os.path.join(work, "live-recordings"), screenshots, results)
            live_test.step("10 the camera as Low-Latency HLS", live_test.live_stream)
            live_test.step("11 save a replay", live_test.save_replay)
        finally:
            status = live_server.stop()
            results.check(status == 0, "reel serve --live exits 0 on SIGINT", "exit status %s" % status)
        # Two video inputs composed: the layout picker.
        composed_server = Server(reel, os.path.join(work, "composed-recordings"), os.path.join(work, "serve-composed.log"),
                                 extra=["--video", "lavfi:smptebars"])
        try:
            composed_test = PageTest(driver, composed_server.wait_until_serving(), os.path.join(work, "composed-recordings"),
                                     screenshots, results)
            composed_test.step("12 the layout picker", composed_test.layout_picker)
        finally:
            status = composed_server.stop()
            results.check(status == 0, "reel serve with two video inputs exits 0 on SIGINT", "exit status %s" % status)
    except StepFailed as error:
        results.check(False, "setup", str(error))
    except Overtime:
        results.check(False, "the run ends within %d s" % BUDGET_SECONDS, "stopped there")
    except Exception as error:
        results.check(False, "setup", "%s: %s" % (type(error).__name__, error))
    finally:
        signal.alarm(0)
        if driver is not None:
            try:
                driver.quit()
            except Exception:
                pass
        if server is not None:
            status = server.stop()
            results.check(status == 0, "reel serve exits 0 on SIGINT",
                          "exit status %s" % status, why="it was killed after 15 s" if status is None else "")
            if results.failures:
                with open(os.path.join(work, "serve.log")) as log:
                    tail = log.read()[-2000:]
                if tail.strip():
                    print("--- reel serve's stderr (end):\n" + tail)
        shutil.rmtree(work, ignore_errors=True)
    print("screenshots in " + screenshots)
    print("%d passed, %d failed in %.1f s" % (results.passes, len(results.failures), time.monotonic() - started))
    if results.failures:
        print("FAILED:\n  " + "\n  ".join(results.failures))
        sys.exit(1)
    print("ALL PASSED")


if __name__ == "__main__":
    main()
