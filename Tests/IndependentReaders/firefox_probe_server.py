#!/usr/bin/python3
"""The Firefox reader's server (Tests/ReelTestSupport/FirefoxReader.swift): one headless Firefox ESR, started
and killed here, plays every movie the tests send it, one after another, in a muted <video>.

It listens on 127.0.0.1, an ephemeral port, printed first as "port N", and serves:
  POST /batch        {"movies": [PATH...], "timeout": S}: queues the movies and answers, once all have been
                     played (or after S seconds), with one report per movie (JSON list, in order);
  GET  /             the page Firefox runs: it asks for the next movie, plays it and posts its report;
  GET  /next         the next queued movie's id (waits up to 5 s for one), {"id": null} if none;
  GET  /movie/ID     that movie's bytes, with Range support (206 Partial Content): <video> reads in ranges;
  POST /result/ID    the page's report on movie ID.

Firefox starts with the first batch, with a throwaway profile (a fresh folder, user.js below, -no-remote). A
movie that gets no report within PER_MOVIE + 10 s (Firefox hung or died) is reported as such, and Firefox is
killed and started again for the rest. With nothing queued for IDLE seconds, or when the process that started
this one is gone, Firefox is killed (its whole process group: it runs in a session of its own) and the
server exits.
usage: firefox_probe_server.py [IDLE_SECONDS]"""
import collections
import http.server
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

IDLE = float(sys.argv[1]) if len(sys.argv) > 1 else 20
RATE = 4           # playbackRate: 60 frames play in half a second
PER_MOVIE = 20     # seconds the page gives one movie to reach `ended`
FIREFOX = '/usr/bin/firefox-esr'

# No first-run pages, telemetry, updates or background connections; autoplay allowed (the video is muted
# anyway) and never held back or suspended for being in the background.
PREFERENCES = {
    'browser.shell.checkDefaultBrowser': False,
    'browser.startup.homepage_override.mstone': 'ignore',
    'browser.aboutwelcome.enabled': False,
    'startup.homepage_welcome_url': '',
    'browser.startup.firstrunSkipsHomepage': True,
    'browser.sessionstore.resume_from_crash': False,
    'datareporting.policy.dataSubmissionEnabled': False,
    'datareporting.healthreport.uploadEnabled': False,
    'toolkit.telemetry.enabled': False,
    'toolkit.telemetry.unified': False,
    'app.update.auto': False,
    'app.update.enabled': False,
    'app.normandy.enabled': False,
    'extensions.update.enabled': False,
    'browser.safebrowsing.malware.enabled': False,
    'browser.safebrowsing.phishing.enabled': False,
    'network.captive-portal-service.enabled': False,
    'network.connectivity-service.enabled': False,
    'browser.cache.disk.enable': False,
    'media.autoplay.default': 0,
    'media.autoplay.blocking_policy': 0,
    'media.block-autoplay-until-in-foreground': False,
    'media.suspend-background-video.enabled': False,
}

PAGE = """<!doctype html><html><body><script>
const rate = %(rate)s, perMovie = %(per_movie)d;
function probe(id) {
  return new Promise(resolve => {
    const v = document.createElement('video');
    const report = {};
    let done = false;
    const finish = why => {
      if (done) return;
      done = true;
      report.end = why;
      report.duration = v.duration; report.width = v.videoWidth; report.height = v.videoHeight;
      report.currentTime = v.currentTime; report.playbackRate = v.playbackRate;
      if (v.getVideoPlaybackQuality) {
        const q = v.getVideoPlaybackQuality();
        report.totalVideoFrames = q.totalVideoFrames; report.droppedVideoFrames = q.droppedVideoFrames;
        report.corruptedVideoFrames = q.corruptedVideoFrames;
      }
      if (v.error) report.error = v.error.code + ' ' + (v.error.message || '');
      v.removeAttribute('src'); v.load(); v.remove();
      fetch('/result/' + id, {method: 'POST', body: JSON.stringify(report)}).catch(() => {}).then(resolve);
    };
    setTimeout(() => finish('timeout'), perMovie * 1000);
    v.muted = true; v.preload = 'auto';
    v.onerror = () => finish('error');
    v.onended = () => finish('ended');
    v.onloadedmetadata = () => {
      v.playbackRate = rate;
      const playing = v.play();
      if (playing) playing.catch(e => { report.playError = String(e); finish('play refused'); });
    };
    document.body.appendChild(v);
    v.src = '/movie/' + id;
  });
}
(async () => {
  for (;;) {
    let next = {id: null};
    try { next = await (await fetch('/next')).json(); } catch (e) { await new Promise(r => setTimeout(r, 500)); }
    if (next.id !== null) await probe(next.id);
  }
})();
</script></body></html>"""

lock = threading.Condition()
movies = {}                   # id -> path
queue = collections.deque()   # ids not yet handed to the page
reports = {}                  # id -> report
playing = {}                  # id -> when the page took it
last_activity = time.monotonic()
browser = None                # the running Firefox (subprocess.Popen), its profile folder
next_id = 0


def start_browser(port):
    global browser
    profile = tempfile.mkdtemp(prefix='reel-firefox-')
    with open(os.path.join(profile, 'user.js'), 'w') as prefs:
        for name, value in PREFERENCES.items():
            prefs.write('user_pref(%s, %s);\n' % (json.dumps(name), json.dumps(value)))
    environment = dict(os.environ, MOZ_HEADLESS='1', MOZ_CRASHREPORTER_DISABLE='1', HOME=profile)
    process = subprocess.Popen([FIREFOX, '--headless', '-no-remote', '-profile', profile, 'http://127.0.0.1:%d/' % port],
                               env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    browser = (process, profile)


def stop_browser():
    global browser
    if browser is None:
        return
    process, profile = browser
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the session Firefox leads: its content and decoder processes
    except ProcessLookupError:
        pass
    process.wait()
    shutil.rmtree(profile, ignore_errors=True)
    browser = None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def send_body(self, status, body, kind, extra=()):
        self.send_response(status)
        self.send_header('Content-Type', kind)
        self.send_header('Content-Length', str(len(body)))
        self.send_header('Cache-Control', 'no-store')
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(body)

    def send_json(self, value):
        self.send_body(200, json.dumps(value).encode(), 'application/json')

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        global last_activity
        if self.path == '/':
            return self.send_body(200, (PAGE % {'rate': RATE, 'per_movie': PER_MOVIE}).encode(), 'text/html; charset=utf-8')
        if self.path == '/next':
            with lock:
                lock.wait_for(lambda: queue, timeout=5)
                if not queue:
                    return self.send_json({'id': None})
                movie = queue.popleft()
                playing[movie] = last_activity = time.monotonic()
            return self.send_json({'id': movie})
        match = re.fullmatch(r'/movie/(\d+)', self.path)
        with lock:
            path = movies.get(int(match.group(1))) if match else None
        if path is None:
            return self.send_body(404, b'not found', 'text/plain')
        with open(path, 'rb') as movie:
            data = movie.read()
        size = len(data)
        wanted = re.fullmatch(r'bytes=(\d*)-(\d*)', self.headers.get('Range', '').strip())
        if not wanted:
            return self.send_body(200, data, 'video/quicktime', [('Accept-Ranges', 'bytes')])
        first, last = wanted.groups()
        if first == '':  # the last N bytes
            start, end = max(0, size - int(last or 0)), size - 1
        else:
            start, end = int(first), min(size - 1, int(last)) if last else size - 1
        if start >= size or start > end:
            return self.send_body(416, b'', 'video/quicktime', [('Content-Range', 'bytes */%d' % size)])
        self.send_body(206, data[start:end + 1], 'video/quicktime',
                       [('Accept-Ranges', 'bytes'), ('Content-Range', 'bytes %d-%d/%d' % (start, end, size))])

    def do_POST(self):
        global next_id, last_activity
        body = self.rfile.read(int(self.headers.get('Content-Length', '0')))
        match = re.fullmatch(r'/result/(\d+)', self.path)
        if match:
            self.send_body(200, b'ok', 'text/plain')
            with lock:
                reports[int(match.group(1))] = json.loads(body)
                playing.pop(int(match.group(1)), None)
                last_activity = time.monotonic()
                lock.notify_all()
            return
        if self.path != '/batch':
            return self.send_body(404, b'not found', 'text/plain')
        request = json.loads(body)
        deadline = time.monotonic() + float(request.get('timeout', 120))
        with lock:
            ids = list(range(next_id, next_id + len(request['movies'])))
            next_id += len(ids)
            for movie, path in zip(ids, request['movies']):
                movies[movie] = path
                queue.append(movie)
            last_activity = time.monotonic()
            if browser is None:
                start_browser(self.server.server_address[1])
            lock.notify_all()
            lock.wait_for(lambda: all(movie in reports for movie in ids), timeout=max(0, deadline - time.monotonic()))
            answer = [reports.pop(movie, {'end': 'no report within the batch timeout'}) for movie in ids]
            for movie in ids:
                movies.pop(movie, None)
                if movie in queue:
                    queue.remove(movie)
            last_activity = time.monotonic()
        self.send_json(answer)


def watchdog(server):
    parent = os.getppid()
    while True:
        time.sleep(0.5)
        with lock:
            now = time.monotonic()
            hung = [movie for movie, started in playing.items() if now - started > PER_MOVIE + 10]
            died = browser is not None and browser[0].poll() is not None
            if hung or died:
                for movie in list(playing):
                    reports[movie] = {'end': 'no report: Firefox %s' % ('exited' if died else 'hung')}
                playing.clear()
                stop_browser()
                if queue:
                    start_browser(server.server_address[1])
                lock.notify_all()
            if os.getppid() != parent or (not queue and not playing and now - last_activity > IDLE
                                          and not any(movie not in reports for movie in movies)):
                stop_browser()
                os._exit(0)


server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
server.daemon_threads = True
print('port', server.server_address[1], flush=True)
signal.signal(signal.SIGTERM, lambda *_: (stop_browser(), os._exit(0)))
threading.Thread(target=watchdog, args=(server,), daemon=True).start()
try:
    server.serve_forever()
finally:
    stop_browser()
