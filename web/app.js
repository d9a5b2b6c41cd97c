// The camera page of `reel serve`: a live preview, the shutter (a tap takes a photo, a hold records until
// release or the limit, with a progress ring and a timer), then the photo or movie with retake / use.
// It only speaks the JSON API the README lists; no framework, no build step.
'use strict';

const $ = (id) => document.getElementById(id);
const state = { running: false, recording: null, holdThreshold: 1, pressedAt: 0, pressing: false, cap: 60,
                devices: null, shot: null, timerHandle: 0, pressRequest: null };

function showMessage(text) {
  const box = $('message');
  box.textContent = text;
  box.hidden = !text;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    showMessage('The camera server cannot be reached: ' + error.message);
    throw error;
  }
  const reply = await response.json().catch(() => ({}));
  if (!response.ok) {
    showMessage(reply.error || ('The request failed (' + response.status + ')'));
    throw new Error(reply.error || String(response.status));
  }
  return reply;
}

function two(n) { return String(Math.floor(n)).padStart(2, '0'); }

function setTimer(seconds) {
  $('timer').textContent = two(seconds / 60) + ':' + two(seconds % 60);
  const fraction = Math.min(1, seconds / state.cap);
  $('ring').style.strokeDashoffset = String(282.7 * (1 - fraction));
}

function startTimer() {
  // The movie started at the press, not at the hold threshold: count from the press, so the timer and the
  // ring show the movie's length (and the ring is full when the limit stops it).
  const started = state.pressedAt;
  $('timer').hidden = false;
  $('shutter').classList.add('recording');
  clearInterval(state.timerHandle);
  state.timerHandle = setInterval(() => setTimer((performance.now() - started) / 1000), 100);
}

function stopTimer() {
  clearInterval(state.timerHandle);
  $('timer').hidden = true;
  $('shutter').classList.remove('recording');
  setTimer(0);
}

// The shutter: pointer (mouse, touch, pen) and keyboard (Space, Enter) presses.
async function press() {
  if (state.pressing || !state.running) return;
  state.pressing = true;
  state.pressedAt = performance.now();
  showMessage('');
  state.cap = Number($('max-duration').value) || 60;
  // Kept for release(), which must not reach the server before the press.
  state.pressRequest = api('POST', '/api/shutter/press', { maxDuration: state.cap });
  try {
    await state.pressRequest;
  } catch (error) {
    state.pressing = false;
    return;
  }
  // Past the hold threshold (counted from the press) the press is a movie: show the ring and the timer.
  const left = state.holdThreshold * 1000 - (performance.now() - state.pressedAt);
  setTimeout(() => { if (state.pressing) startTimer(); }, Math.max(0, left));
}

async function release() {
  if (!state.pressing) return;
  state.pressing = false;
  stopTimer();
  // A quick tap can be released before the press has been answered (a slow link, a camera slow to start
  // the movie): send the release only after it, or the server finds nothing pressed and the movie runs on.
  try {
    await state.pressRequest;
  } catch (error) {
    return;  // the press failed: nothing to release (the message says why)
  }
  try {
    const shot = await api('POST', '/api/shutter/release');
    review(shot);
  } catch (error) { /* the message says why */ }
  refreshRecordings();
}

function review(shot) {
  if (!shot || !shot.name) {
    if (shot && shot.result && shot.result.error) showMessage(shot.result.error);
    return;
  }
  state.shot = shot;
  const photo = $('review-photo'), movie = $('review-movie');
  photo.hidden = shot.kind !== 'photo';
  movie.hidden = shot.kind !== 'movie';
  if (shot.kind === 'photo') {
    photo.src = '/recordings/' + encodeURIComponent(shot.name);
  } else {
    movie.src = '/recordings/' + encodeURIComponent(shot.name);
  }
  $('review').hidden = false;
  $('use').focus();
}

function closeReview() {
  $('review').hidden = true;
  const movie = $('review-movie');
  movie.pause();
  movie.removeAttribute('src');
  movie.load();
  state.shot = null;
}

async function retake() {
  if (state.shot) {
    try { await api('DELETE', '/api/recordings/' + encodeURIComponent(state.shot.name)); } catch (error) { return; }
  }
  closeReview();
  refreshRecordings();
  $('shutter').focus();
}

function fillSelect(select, options, current) {
  select.replaceChildren(...options.map(([value, label]) => {
    const option = document.createElement('option');
    option.value = value;
    option.textContent = label;
    option.selected = value === current;
    return option;
  }));
}

function videoChoices() {
  const d = state.devices;
  return d.cameras.map((c) => ['v4l2:' + c.path, c.name + ' (' + c.path + ')'])
    .concat([[d.builtIn[0], 'Test pattern'], ['none', 'None']]);
}

async function loadChoices(status) {
  state.devices = await api('GET', '/api/devices');
  const presets = await api('GET', '/api/presets');
  fillSelect($('video'), videoChoices(), status.inputs.video || 'none');
  const d = state.devices;
  fillSelect($('audio'), d.microphones.map((m) => ['alsa:' + m.name, m.description || m.name])
    .concat([[d.builtIn[1], 'Test tone'], ['none', 'None']]), status.inputs.audio || 'none');
  fillSelect($('preset'), presets.map((p) => [p.name, p.name + ' (' + p.size + ' @ ' + p.fps + ' fps)']), status.inputs.preset);
}

function applyStatus(status) {
  state.running = status.running;
  state.holdThreshold = status.holdThreshold;
  $('shutter').disabled = !status.running;
  $('power').textContent = status.running ? 'Stop' : 'Start';
  $('power').setAttribute('aria-label', status.running ? 'Stop the camera' : 'Start the camera');
  $('camera-controls').hidden = !(status.running && (status.inputs.video || '').startsWith('v4l2:'));
  if (!status.recording && !state.pressing) stopTimer();
  showView(status.live);
  alarmsFromStatus(status);
  keepingFromStatus(status);
  layoutFromStatus(status);
}

/* `reel serve --live`: the camera's Low-Latency HLS can replace the MJPEG preview where the browser plays
   HLS itself (Safari, Chromium 142+). The preview stays the default: it is what the shutter sees now, while a
   player holds a few parts back. */
function showView(live) {
  const video = $('live');
  const playable = Boolean(live) && video.canPlayType('application/vnd.apple.mpegurl') !== '';
  $('view').hidden = !playable;
  const showing = playable && state.viewLive;
  $('view').setAttribute('aria-pressed', String(showing));
  $('view').title = showing ? 'Show the live preview' : 'Show the HLS stream';
  if (showing && video.hidden) {
    video.src = live + '?' + Date.now();
    video.hidden = false;
    $('preview').hidden = true;
    video.play().catch(() => {});
  } else if (!showing && !video.hidden) {
    video.removeAttribute('src');
    video.load();
    video.hidden = true;
    $('preview').hidden = false;
  }
}

async function switchCamera() {
  const choices = videoChoices().map(([value]) => value).filter((v) => v !== 'none');
  const select = $('video');
  const next = choices[(choices.indexOf(select.value) + 1) % choices.length];
  select.value = next;
  await changeInput('video', next);
}

async function changeInput(kind, value) {
  showMessage('');
  if (!state.running) return;
  const body = {};
  body[kind] = value;
  try { applyStatus(await api('POST', '/api/session/switch', body)); } catch (error) { /* shown */ }
}

async function power() {
  showMessage('');
  try {
    if (state.running) {
      await api('POST', '/api/session/stop');
    } else {
      await api('POST', '/api/session/start', { video: $('video').value, audio: $('audio').value, preset: $('preset').value });
      $('preview').src = '/preview.mjpg?' + Date.now();
    }
    applyStatus(await api('GET', '/api/status'));
  } catch (error) { /* shown */ }
}

async function refreshRecordings() {
  let list;
  try { list = await api('GET', '/api/recordings'); } catch (error) { return; }
  $('recordings').replaceChildren(...list.map((entry) => {
    // The gallery: each recording as its thumbnail (made by the server when it was finished), its name and size.
    const item = document.createElement('li');
    item.className = entry.kind;
    const link = document.createElement('a');
    link.href = '/recordings/' + encodeURIComponent(entry.name);
    link.textContent = entry.name + ' (' + Math.round(entry.bytes / 1024) + ' KB)';
    if (entry.thumbnail) {
      const picture = document.createElement('img');
      picture.className = 'thumbnail';
      picture.src = entry.thumbnail;
      picture.alt = (entry.kind === 'movie' ? 'Movie ' : 'Photo ') + entry.name;
      picture.loading = 'lazy';
      const opener = document.createElement('a');
      opener.href = link.href;
      opener.className = 'thumbnail-link';
      opener.append(picture);
      item.append(opener);
    }
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = 'Delete';
    remove.setAttribute('aria-label', 'Delete ' + entry.name);
    remove.addEventListener('click', async () => {
      try { await api('DELETE', '/api/recordings/' + encodeURIComponent(entry.name)); } catch (error) { return; }
      refreshRecordings();
    });
    item.append(link, remove);
    return item;
  }));
}

// Why a movie stopped by itself, for the ends a person should hear about (a duration limit is expected).
const stopMessages = {
  diskSpaceLimitReached: 'Recording stopped: the disk reached its free-space floor',
  diskFull: 'Recording stopped: the disk is full',
  maxFileSizeReached: 'Recording stopped: the file reached its size limit',
  deviceLost: 'Recording stopped: the camera or microphone was lost',
  failed: 'The recording failed',
};

function listen() {
  const events = new EventSource('/api/events');
  events.addEventListener('state', (e) => applyStatus(JSON.parse(e.data)));
  events.addEventListener('error', (e) => { if (e.data) showMessage(JSON.parse(e.data).error); });
  events.addEventListener('movieFinished', (e) => {
    const result = JSON.parse(e.data);
    // A hold that reached the limit: the movie is done before the release.
    if (state.pressing && result.stopReason !== 'stopped') {
      state.pressing = false;
      stopTimer();
      review({ kind: 'movie', name: result.output.split('/').pop(), result });
    }
    const why = stopMessages[result.stopReason];
    if (why || (!result.recordedSuccessfully && result.error)) {
      showMessage((why || 'The recording failed') + (result.error ? ': ' + result.error : '.'));
    }
    refreshRecordings();
  });
  events.addEventListener('photo', () => refreshRecordings());
  events.addEventListener('levels', (e) => showLevels(JSON.parse(e.data)));
  events.addEventListener('alarmStarted', (e) => alarmStarted(JSON.parse(e.data)));
  events.addEventListener('alarmEnded', (e) => alarmEnded(JSON.parse(e.data)));
  listenKeeping(events);
}

async function main() {
  const shutter = $('shutter');
  shutter.addEventListener('pointerdown', (e) => { shutter.setPointerCapture(e.pointerId); press(); });
  shutter.addEventListener('pointerup', release);
  shutter.addEventListener('pointercancel', release);
  shutter.addEventListener('contextmenu', (e) => e.preventDefault());
  shutter.addEventListener('keydown', (e) => {
    if ((e.key === ' ' || e.key === 'Enter') && !e.repeat) { e.preventDefault(); press(); }
  });
  shutter.addEventListener('keyup', (e) => { if (e.key === ' ' || e.key === 'Enter') { e.preventDefault(); release(); } });
  $('retake').addEventListener('click', retake);
  $('use').addEventListener('click', () => { closeReview(); $('shutter').focus(); });
  $('switch').addEventListener('click', switchCamera);
  $('view').addEventListener('click', async () => {
    state.viewLive = !state.viewLive;
    try { applyStatus(await api('GET', '/api/status')); } catch (error) { /* shown */ }
  });
  $('power').addEventListener('click', power);
  $('video').addEventListener('change', (e) => changeInput('video', e.target.value));
  $('audio').addEventListener('change', (e) => changeInput('audio', e.target.value));
  $('torch').addEventListener('click', async (e) => {
    const on = e.target.getAttribute('aria-pressed') !== 'true';
    try { await api('POST', '/api/camera-control', { settings: ['torch=' + (on ? 'on' : 'off')] }); } catch (error) { return; }
    e.target.setAttribute('aria-pressed', String(on));
  });
  $('focus').addEventListener('click', async (e) => {
    const locked = e.target.textContent.endsWith('auto');
    try { await api('POST', '/api/camera-control', { settings: ['focus=' + (locked ? 'locked' : 'auto')] }); } catch (error) { return; }
    e.target.textContent = 'Focus: ' + (locked ? 'locked' : 'auto');
  });
  const status = await api('GET', '/api/status');
  applyStatus(status);
  await loadChoices(status);
  refreshRecordings();
  listen();
}

main();
