// Gasoline popup: connection state and per-kind counters, from the worker.
'use strict';

const LABELS = { log: 'Logs', network: 'Network', body: 'Bodies', ws: 'WebSocket', action: 'Actions' };
const $ = (id) => document.getElementById(id);

function cell(text) {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

function render(s) {
  $('dot').classList.toggle('ok', !!s.connected);
  $('state').textContent = s.connected ? 'Connected' : 'Not connected';
  $('server').textContent = s.server_url || '';
  renderOverrides(s.overrides || {}, s.settings || {});
  $('error').hidden = !s.last_error;
  $('error').textContent = s.last_error || '';

  const rows = [];
  const total = { sent: 0, dropped: 0, queued: 0 };
  for (const [kind, label] of Object.entries(LABELS)) {
    const c = (s.counts && s.counts[kind]) || { sent: 0, dropped: 0, queued: 0 };
    const tr = document.createElement('tr');
    tr.append(cell(label), cell(c.sent), cell(c.dropped), cell(c.queued));
    rows.push(tr);
    for (const k of Object.keys(total)) total[k] += c[k] || 0;
  }
  $('counts').replaceChildren(...rows);
  $('t-sent').textContent = total.sent;
  $('t-dropped').textContent = total.dropped;
  $('t-queued').textContent = s.queued ?? total.queued;
}

// "AI-controlled" and one line per override: `ws_mode: messages (yours: lifecycle)`.
function renderOverrides(overrides, mine) {
  const names = Object.keys(overrides).sort();
  $('ai').hidden = names.length === 0;
  $('overrides').hidden = names.length === 0;
  $('overrides').replaceChildren(...names.map((k) => {
    const li = document.createElement('li');
    li.dataset.setting = k;
    li.textContent = `${k}: ${String(overrides[k])}` + (k in mine ? ` (yours: ${String(mine[k])})` : '');
    return li;
  }));
}

async function refresh() {
  try {
    render(await chrome.runtime.sendMessage({ type: 'status' }));
  } catch (err) {
    render({ connected: false, last_error: String(err && err.message || err) });
  }
}

$('options').addEventListener('click', (e) => {
  e.preventDefault();
  chrome.runtime.openOptionsPage();
});

refresh();
setInterval(refresh, 1000);
// An override pushed by the server shows at once, not at the next tick.
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && changes.gasoline_effective) refresh();
});
