// Gasoline popup: connection state and per-kind counters, from the worker, and
// the AI Web Pilot switch.
'use strict';

const LABELS = { log: 'Logs', network: 'Network', body: 'Bodies', ws: 'WebSocket', action: 'Actions' };
/** @type {(id: string) => HTMLInputElement} */
const $ = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

function cell(text) {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

function render(s, seq) {
  // A status asked for before a flip must not undo what the flip confirmed.
  if (typeof s.pilot === 'boolean' && !pilotBusy && seq === pilotSeq) showPilot(s.pilot);
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
  $('t-sent').textContent = String(total.sent);
  $('t-dropped').textContent = String(total.dropped);
  $('t-queued').textContent = String(s.queued ?? total.queued);
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
  const seq = pilotSeq;
  try {
    render(await chrome.runtime.sendMessage(/** @satisfies {RuntimeMessage} */ ({ type: 'status' })), seq);
  } catch (err) {
    render({ connected: false, last_error: String(err && err.message || err) });
  }
  // The switch starts disabled: a click before the worker's first answer would read an unchecked box
  // that only meant "not known yet".
  if (!pilotBusy) $('pilot').disabled = false;
}

// ---- AI Web Pilot: the box shows only what the worker confirmed -------------------------------

const PILOT_KEY = 'aiWebPilotEnabled';
let pilotBusy = false; // a flip is on its way to the worker
let pilotSeq = 0; // counts flips and confirmations
let pilotConfirmed = false;

function showPilot(enabled) {
  pilotSeq++;
  pilotConfirmed = enabled;
  $('pilot').checked = enabled;
}

// Active sync (PROTOCOL.md, "AI Web Pilot"): write all three storage areas, tell the worker, and show
// the state the worker answers with.
async function flipPilot() {
  const want = $('pilot').checked;
  $('pilot').checked = pilotConfirmed; // not on until the worker says so
  if (pilotBusy) return;
  pilotBusy = true;
  pilotSeq++;
  $('pilot').disabled = true;
  try {
    await Promise.allSettled(['sync', 'local', 'session'].map((a) => chrome.storage[a].set({ [PILOT_KEY]: want })));
    const r = await chrome.runtime.sendMessage(/** @satisfies {RuntimeMessage} */ ({ type: 'setAiWebPilotEnabled', enabled: want }));
    if (r && r.type === 'pilotStatusChanged' && typeof r.enabled === 'boolean') showPilot(r.enabled);
  } catch (err) {
    $('error').hidden = false;
    $('error').textContent = `AI Web Pilot: ${String((err && err.message) || err)}`;
  } finally {
    pilotBusy = false;
    $('pilot').disabled = false;
  }
}

$('pilot').addEventListener('change', flipPilot);

// A flip made elsewhere (another popup, the options page) is broadcast by the worker.
chrome.runtime.onMessage.addListener((msg, sender) => {
  if (sender.id !== chrome.runtime.id || !msg || msg.type !== 'pilotStatusChanged' || typeof msg.enabled !== 'boolean') return;
  if (!pilotBusy) showPilot(msg.enabled);
});

// "Point at an element": the picker runs in the page; the popup gets out of its way.
$('point').addEventListener('click', async () => {
  try {
    const r = await chrome.runtime.sendMessage(/** @satisfies {RuntimeMessage} */ ({ type: 'pick', note: $('point-note').value }));
    if (r && r.error) throw new Error(r.error);
    window.close();
  } catch (err) {
    $('error').hidden = false;
    $('error').textContent = `Point at an element: ${String((err && err.message) || err)}`;
  }
});

$('options').addEventListener('click', (e) => {
  e.preventDefault();
  chrome.runtime.openOptionsPage();
});

refresh();
setInterval(refresh, 1000);
// An override pushed by the server shows at once, not at the next tick.
chrome.storage.local.onChanged.addListener((changes) => {
  if (changes.gasoline_effective) refresh();
});
