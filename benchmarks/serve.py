"""`reel serve` benchmarks (issue 17), run by bench.py, all on loopback and bounded in count and time:

- Preview latency at 720p30: each MJPEG part carries its picture's capture time (X-Reel-Captured, CLOCK_MONOTONIC
  nanoseconds); the client notes the same clock when the part has fully arrived.
- Preview CPU: the CPU time of the preview's encoding thread (reel.output.pre) and of the server's threads
  (MHD-listen, MHD-connection) over the run, as a share of one core, with one viewer.
- Load: 20 preview viewers and 100 API requests a second (status, recordings list) while a 720p30 movie is
  recorded: the movie's dropped frames and the API's latency percentiles.
- Takes: the server's resident memory after a first round of takes and after many more (a tap and a movie
  with a tier each), and its open descriptors: a camera box records take after take for days.
- Held: many clients waiting at once — blocking LL-HLS playlist reloads held on `--live-folder`, event and
  preview streams with nothing to send — and the server's threads and memory while they wait, then the time
  from one playlist change until every held reload has its whole answer. A waiting client must cost no thread.
"""
import http.client
import json
import os
import re
import selectors
import signal
import socket
import statistics
import subprocess
import threading
import time

SOURCE = "lavfi:testsrc2=size=1280x720:rate=30"


class Server:
    def __init__(self, reel, folder, preset="720p", extra=()):
        self.process = subprocess.Popen(
            [reel, "serve", "--listen", "127.0.0.1:0", "--recordings", os.path.join(folder, "serve-recordings"),
             "--video", SOURCE, "--audio", "lavfi:sine", "--preset", preset, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not match:
            self.process.kill()
            raise RuntimeError("reel serve did not start: " + line + self.process.stderr.read())
        self.port = int(match.group(1))

    def request(self, method, path, body=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, body=json.dumps(body) if body is not None else None,
                               headers={"Content-Type": "application/json"} if body is not None else {})
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"{}")
        finally:
            connection.close()

    def threads_cpu(self):
        """CPU seconds per thread name of the server process."""
        ticks = os.sysconf("SC_CLK_TCK")
        result = {}
        task = f"/proc/{self.process.pid}/task"
        for tid in os.listdir(task):
            try:
                with open(f"{task}/{tid}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                with open(f"{task}/{tid}/comm") as handle:
                    name = handle.read().strip()
            except OSError:
                continue
            result[name] = result.get(name, 0) + (int(fields[11]) + int(fields[12])) / ticks
        return result

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Viewer(threading.Thread):
    """Reads the MJPEG stream; notes each part's latency (capture to fully received)."""

    def __init__(self, port, seconds):
        super().__init__(daemon=True)
        self.port, self.seconds = port, seconds
        self.latencies, self.parts = [], 0

    def run(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.request("GET", "/preview.mjpg")
        response = connection.getresponse()
        end = time.monotonic() + self.seconds
        try:
            while time.monotonic() < end:
                line = response.fp.readline()
                if not line:
                    break
                if not line.startswith(b"--"):
                    continue
                headers = {}
                while True:
                    header = response.fp.readline().strip()
                    if not header:
                        break
                    name, _, value = header.decode().partition(":")
                    headers[name.lower()] = value.strip()
                response.fp.read(int(headers["content-length"]))
                received = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                self.latencies.append((received - int(headers["x-reel-captured"])) / 1e6)
                self.parts += 1
        finally:
            connection.close()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def preview_latency_and_cpu(reel, folder, seconds):
    with Server(reel, folder) as server:
        time.sleep(1)
        before = server.threads_cpu()
        started = time.monotonic()
        viewer = Viewer(server.port, seconds)
        viewer.start()
        viewer.join(seconds + 15)
        elapsed = time.monotonic() - started
        after = server.threads_cpu()
    latencies = viewer.latencies[3:]  # the first parts include the connection's start
    used = {name: after.get(name, 0) - before.get(name, 0) for name in after}
    preview = used.get("reel.output.pre", 0)
    # libmicrohttpd names its threads MHD-listen and MHD-connection.
    sending = sum(value for name, value in used.items() if name.startswith("MHD-"))
    return {
        "pictures": viewer.parts, "seconds": round(elapsed, 2),
        "latencyMs": {"median": statistics.median(latencies), "p95": percentile(latencies, 0.95), "max": max(latencies)},
        "previewCpuPercent": 100 * preview / elapsed, "sendingCpuPercent": 100 * sending / elapsed,
    }


def load(reel, folder, seconds, viewers=20, rate=100):
    with Server(reel, folder) as server:
        time.sleep(1)
        status, started = server.request("POST", "/api/movie/start", {"maxDuration": seconds + 5})
        if status != 200:
            raise RuntimeError(f"movie did not start: {started}")
        watchers = [Viewer(server.port, seconds) for _ in range(viewers)]
        for watcher in watchers:
            watcher.start()
        latencies, failures = [], 0
        begin = time.monotonic()
        for index in range(int(seconds * rate)):
            due = begin + index / rate
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            sent = time.monotonic()
            status, _ = server.request("GET", "/api/status" if index % 4 else "/api/recordings")
            latencies.append(1000 * (time.monotonic() - sent))
            failures += status != 200
        achieved = len(latencies) / (time.monotonic() - begin)
        status, stopped = server.request("POST", "/api/movie/stop")
        for watcher in watchers:
            watcher.join(15)
        result = stopped.get("result") or {}
    return {
        "viewers": viewers, "requests": len(latencies), "requestsPerSecond": round(achieved, 1), "failures": failures,
        "apiMs": {"p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99), "max": max(latencies)},
        "viewerPictures": sum(w.parts for w in watchers),
        "droppedFrames": result.get("droppedFrames"), "videoFrames": result.get("videoFrames"),
        "duration": result.get("duration"),
    }


def resident_mb(pid):
    with open(f"/proc/{pid}/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("VmRSS")) / 1024


def takes(reel, folder, first, total):
    with Server(reel, folder, preset="640x480") as server:
        time.sleep(1)
        marks = {}
        for index in range(1, total + 1):
            server.request("POST", "/api/shutter/press")
            time.sleep(0.2)
            server.request("POST", "/api/shutter/release")
            server.request("POST", "/api/movie/start", {"tiers": ["low"]})
            time.sleep(0.3)
            status, stopped = server.request("POST", "/api/movie/stop")
            if status != 200:
                raise RuntimeError(f"take {index} failed: {stopped}")
            if index in (first, total):
                time.sleep(0.5)
                marks[index] = (resident_mb(server.process.pid), len(os.listdir(f"/proc/{server.process.pid}/fd")))
    return {"first": first, "total": total, "rssMB": {str(k): round(v[0], 1) for k, v in marks.items()},
            "rssGrowthMB": round(marks[total][0] - marks[first][0], 1),
            "descriptors": {str(k): v[1] for k, v in marks.items()}}


# An LL-HLS playlist as `reel record --live DIR --low-latency` writes it: segments to 4, part 5.0, the hint 5.1.
HELD_PLAYLIST = """#EXTM3U
#EXT-X-VERSION:7
#EXT-X-TARGETDURATION:1
#EXT-X-MEDIA-SEQUENCE:3
#EXT-X-INDEPENDENT-SEGMENTS
#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=0.750000
#EXT-X-PART-INF:PART-TARGET=0.250000
#EXT-X-MAP:URI="init.mp4"
#EXTINF:1.000000,
segment3.m4s
#EXT-X-PART:DURATION=0.250000,URI="part4.0.m4s",INDEPENDENT=YES
#EXT-X-PART:DURATION=0.250000,URI="part4.1.m4s"
#EXTINF:1.000000,
segment4.m4s
#EXT-X-PART:DURATION=0.250000,URI="part5.0.m4s",INDEPENDENT=YES
"""


def write_playlist(folder, text):
    with open(os.path.join(folder, ".index.m3u8.partial"), "w") as handle:
        handle.write(text)
    os.rename(os.path.join(folder, ".index.m3u8.partial"), os.path.join(folder, "index.m3u8"))


def held(reel, folder, reloads, streams):
    """`reloads` blocking reloads for part 5.1 and `streams` event + `streams` preview streams (no camera: nothing
    to send) wait at once; then part 5.1 is listed and every reload is answered."""
    hls = os.path.join(folder, "held-hls")
    os.makedirs(hls, exist_ok=True)
    write_playlist(hls, HELD_PLAYLIST + '#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part5.1.m4s"\n')
    with Server(reel, folder, preset="352x288", extra=("--no-camera", "--live-folder", hls)) as server:
        server.request("GET", "/api/status")
        task = f"/proc/{server.process.pid}/task"
        idle_threads, idle_rss = len(os.listdir(task)), resident_mb(server.process.pid)

        def open_request(path):
            connection = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nConnection: close\r\n\r\n".encode())
            return connection
        waiting = [open_request("/live/index.m3u8?_HLS_msn=5&_HLS_part=1") for _ in range(reloads)]
        others = [open_request(path) for path in ["/api/events"] * streams + ["/preview.mjpg"] * streams]
        time.sleep(1.5)
        held_threads, held_rss = len(os.listdir(task)), resident_mb(server.process.pid)
        selector = selectors.DefaultSelector()
        received = {}
        for connection in waiting:
            connection.setblocking(False)
            selector.register(connection, selectors.EVENT_READ)
            received[connection] = b""
        early = sum(1 for key, _ in selector.select(timeout=0))
        changed = time.monotonic()
        write_playlist(hls, HELD_PLAYLIST + '#EXT-X-PART:DURATION=0.250000,URI="part5.1.m4s"\n'
                       + '#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part5.2.m4s"\n')
        answered, last = 0, None
        while answered < reloads and time.monotonic() - changed < 10:
            for key, _ in selector.select(timeout=1):
                chunk = key.fileobj.recv(65536)
                received[key.fileobj] += chunk
                if not chunk:
                    selector.unregister(key.fileobj)
                    answered += 1
                    last = time.monotonic()
        complete = sum(1 for text in received.values() if text.startswith(b"HTTP/1.1 200") and b'URI="part5.1.m4s"' in text)
        for connection in waiting + others:
            connection.close()
    return {"reloads": reloads, "streams": 2 * streams, "answeredBeforeChange": early, "answered": complete,
            "threads": {"idle": idle_threads, "held": held_threads}, "rssMB": {"idle": round(idle_rss, 1), "held": round(held_rss, 1)},
            "lastAnswerMs": round(1000 * (last - changed), 1) if last else None}


def run(reel, folder, quick):
    return {
        "held": held(reel, folder, 100 if quick else 200, 16),
        "preview": preview_latency_and_cpu(reel, folder, 4 if quick else 15),
        "load": load(reel, folder, 3 if quick else 10),
        "takes": takes(reel, folder, 5 if quick else 10, 15 if quick else 60),
    }
