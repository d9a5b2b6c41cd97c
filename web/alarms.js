'use strict';
/* The camera's alarms (reel serve --alarm): a banner over the preview while one is on — "No sound for 12 s",
   "Picture is black for 3 s" — counting up each second from the alarm's start on the camera's clock. The
   state event gives the alarms on and the camera's time; alarmStarted and alarmEnded change them. */
const alarmWords = { silence: 'No sound', clipping: 'Sound is clipping', black: 'Picture is black', frozen: 'Picture is frozen' };
const alarmState = { on: new Map(), offset: null, timer: 0 };

/* The camera's session time now, from the last time the server told it. */
function cameraNow() {
  return alarmState.offset === null ? null : performance.now() / 1000 + alarmState.offset;
}

function alarmClock(now) {
  if (typeof now === 'number') alarmState.offset = now - performance.now() / 1000;
}

function alarmsFromStatus(status) {
  alarmClock(status.time);
  alarmState.on = new Map((status.running ? status.alarms || [] : []).map((alarm) => [alarm.kind, alarm]));
  renderAlarms();
}

function alarmStarted(alarm) {
  alarmClock(alarm.now);
  alarmState.on.set(alarm.kind, alarm);
  renderAlarms();
}

function alarmEnded(alarm) {
  alarmClock(alarm.now);
  alarmState.on.delete(alarm.kind);
  renderAlarms();
}

function renderAlarms() {
  const box = document.getElementById('alarms');
  if (alarmState.on.size === 0) {
    box.hidden = true;
    box.textContent = '';
    clearInterval(alarmState.timer);
    alarmState.timer = 0;
    return;
  }
  const now = cameraNow();
  box.textContent = [...alarmState.on.values()].map((alarm) => {
    const words = alarmWords[alarm.kind] || alarm.kind;
    return now === null ? words : words + ' for ' + Math.max(0, Math.round(now - alarm.start)) + ' s';
  }).join(' · ');
  box.hidden = false;
  if (!alarmState.timer) alarmState.timer = setInterval(renderAlarms, 1000);
}
