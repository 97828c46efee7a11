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
  $('ai').hidden = !s.overrides || Object.keys(s.overrides).length === 0;
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
