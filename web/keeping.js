'use strict';
/* The camera's replay buffer and triggered movies (reel serve --replay-buffer, --trigger): a Save replay
   button while the camera keeps its last seconds, and a badge while a trigger's event records a movie
   ("Motion: recording"). Saved replays and finished triggered movies appear in the recordings. */
const keepingState = { on: new Map(), keptTimer: 0 };
const triggerWords = { motion: 'Motion', sound: 'Sound' };

function keepingFromStatus(status) {
  const button = $('save-replay');
  button.hidden = !status.replaySeconds;
  if (status.replaySeconds) button.title = 'Save the last ' + status.replaySeconds + ' s';
  keepingState.on = new Map((status.triggersOn || []).map((event) => [event.kind, event]));
  renderTriggers();
}

async function saveReplay() {
  const button = $('save-replay');
  button.disabled = true;
  try {
    const save = await api('POST', '/api/replay', {});
    showMessage('');
    showKept('Saved ' + save.seconds.toFixed(1) + ' s: ' + save.path);
    refreshRecordings();
  } catch (error) { /* shown by api() */ }
  button.disabled = false;
}

/* A line over the preview for a few seconds: what was kept. */
function showKept(text) {
  $('kept').textContent = text;
  $('kept').hidden = false;
  clearTimeout(keepingState.keptTimer);
  keepingState.keptTimer = setTimeout(() => { $('kept').hidden = true; }, 8000);
}

function triggerStarted(event) {
  keepingState.on.set(event.kind, event);
  renderTriggers();
}

function triggerEnded(event) {
  keepingState.on.delete(event.kind);
  renderTriggers();
}

function renderTriggers() {
  const badge = $('triggers');
  const words = [...keepingState.on.keys()].map((kind) => triggerWords[kind] || kind);
  badge.hidden = words.length === 0;
  badge.textContent = words.join(' and ') + ': recording';
}

function triggeredMovie(movie) {
  if (movie.error) {
    showMessage('The movie of an event could not be kept: ' + movie.error);
  } else {
    showKept('Event movie: ' + movie.path + ' (' + movie.seconds.toFixed(1) + ' s)');
  }
  refreshRecordings();
}

function listenKeeping(events) {
  events.addEventListener('triggerStarted', (e) => triggerStarted(JSON.parse(e.data)));
  events.addEventListener('triggerEnded', (e) => triggerEnded(JSON.parse(e.data)));
  events.addEventListener('triggeredMovie', (e) => triggeredMovie(JSON.parse(e.data)));
  events.addEventListener('replaySaved', () => refreshRecordings());
  $('save-replay').addEventListener('click', saveReplay);
}
