'use strict';
/* Several video inputs composed (reel serve --video A --video B): a Layout picker with the layouts the
   camera offers (pip, side-by-side, grid, one input alone), changed from the next frame. */
const layoutWords = { pip: 'Picture in picture', 'side-by-side': 'Side by side', grid: 'Grid' };

function layoutFromStatus(status) {
  const choices = status.layouts || [];
  $('layout-picker').hidden = choices.length === 0;
  if (choices.length === 0) return;
  const select = $('layout');
  const labels = choices.map((name) => [name, layoutWords[name] || ('Input ' + name.slice('only:'.length) + ' alone')]);
  const same = select.options.length === labels.length && labels.every(([name], index) => select.options[index].value === name);
  if (!same) fillSelect(select, labels, status.layout);
  select.value = status.layout;
}

async function changeLayout(name) {
  showMessage('');
  try { applyStatus(await api('POST', '/api/layout', { layout: name })); } catch (error) { /* shown by api() */ }
}

document.addEventListener('DOMContentLoaded', () => {
  $('layout').addEventListener('change', (e) => changeLayout(e.target.value));
});
