'use strict';
/* The sound's levels (the `levels` event, ten a second) as a meter per channel beside the preview, −60…0 dBFS:
   the bar is the RMS of the last 50 ms, the line above it the peak meter (falling 11.76 dB/s), the thin mark
   the highest peak of the last 20 s; a channel that reached full scale turns its mark red. Each meter is an
   ARIA meter whose value is its peak. The meters hide when no levels came for 1.5 s (no sound recorded). */
const meterFloor = -60;
let metersHideTimer = 0;

function meterPercent(db) {
  if (db === null || db === undefined) return 0;
  return Math.max(0, Math.min(1, (db - meterFloor) / -meterFloor)) * 100;
}

function meterName(index, count) {
  if (count === 1) return 'Mono';
  if (count === 2) return index === 0 ? 'Left' : 'Right';
  return 'Channel ' + (index + 1);
}

function showLevels(levels) {
  const box = document.getElementById('meters');
  const channels = levels.channels || [];
  if (box.children.length !== channels.length) {
    box.replaceChildren(...channels.map((_, index) => {
      const meter = document.createElement('div');
      meter.className = 'meter';
      meter.setAttribute('role', 'meter');
      meter.setAttribute('aria-valuemin', String(meterFloor));
      meter.setAttribute('aria-valuemax', '0');
      meter.setAttribute('aria-label', meterName(index, channels.length) + ' level, dBFS');
      for (const part of ['rms', 'peak', 'hold']) {
        const element = document.createElement('div');
        element.className = part;
        meter.append(element);
      }
      return meter;
    }));
  }
  channels.forEach((channel, index) => {
    const meter = box.children[index];
    const rms = meterPercent(channel.rms);
    const bar = meter.querySelector('.rms');
    bar.style.height = rms + '%';
    bar.className = 'rms ' + (channel.rms >= -6 ? 'loud' : channel.rms >= -20 ? 'high' : 'normal');
    meter.querySelector('.peak').style.bottom = meterPercent(channel.peak) + '%';
    meter.querySelector('.hold').style.bottom = meterPercent(channel.peakHold) + '%';
    meter.classList.toggle('clipped', channel.peakHold !== null && channel.peakHold >= -0.1);
    const peak = channel.peak === null ? meterFloor : Math.max(meterFloor, channel.peak);
    meter.setAttribute('aria-valuenow', peak.toFixed(1));
    meter.setAttribute('aria-valuetext', channel.peak === null ? 'silence' : channel.peak.toFixed(1) + ' dBFS');
  });
  box.hidden = channels.length === 0;
  clearTimeout(metersHideTimer);
  metersHideTimer = setTimeout(() => { box.hidden = true; }, 1500);
}
