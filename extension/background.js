const DEFAULT_SERVER_URL = 'http://127.0.0.1:7890';

// Gasoline service worker: queues what the content scripts capture, delivers it
// to the local Gasoline server in order, polls the server's capture settings and
// reports the tracked tab. See PROTOCOL.md.

const DEFAULT_SETTINGS = Object.freeze({
  server_url: DEFAULT_SERVER_URL,
  log_level: 'error',
  ws_mode: 'lifecycle',
  network_bodies: true,
  screenshot_on_error: false,
  action_replay: true,
});
const CHOICES = { log_level: ['error', 'warn', 'all'], ws_mode: ['off', 'lifecycle', 'messages'] };
const FLAGS = ['network_bodies', 'screenshot_on_error', 'action_replay'];

// kind → route and body key, in delivery order.
const ROUTES = {
  log: ['/logs', 'entries'],
  network: ['/network', 'entries'],
  body: ['/network-bodies', 'bodies'],
  ws: ['/websocket-events', 'events'],
  action: ['/actions', 'actions'],
};
const KINDS = Object.keys(ROUTES);

const QUEUE_MAX = 2000;
const FLUSH_MS = 200;
const FLUSH_AT = 100;
const BATCH_MAX = 200; // events per POST (the server takes up to 1000)
const BATCH_BYTES = 1 << 20; // bytes per POST (the server takes up to 5 MiB)
const BACKOFF_MIN = 250;
const BACKOFF_MAX = 2000;
const POLL_MS = 5000;
const REQUEST_TIMEOUT_MS = 10000;
const ALARM = 'gasoline-poll';
const SERVER_URL_RE = /^http:\/\/(127\.0\.0\.1|localhost):(\d{1,5})\/?$/;

// ---- state -----------------------------------------------------------------------------

let userSettings = { ...DEFAULT_SETTINGS };
let overrides = {};
let effective = { ...DEFAULT_SETTINGS };
let connected = false;
let lastError = '';
let lastPage = null; // last Page posted, re-sent when the server comes back

const queues = Object.fromEntries(KINDS.map((k) => [k, []])); // items {s: seq, d: data}
const counts = Object.fromEntries(KINDS.map((k) => [k, { sent: 0, dropped: 0 }]));
const batchLimit = Object.fromEntries(KINDS.map((k) => [k, BATCH_MAX]));
let seq = 0;

let flushing = false;
let flushTimer = 0;
let flushDue = 0;
let backoff = 0;
let pollTimer = 0;
let persistTimer = 0;

// Everything that arrives before the stored state is loaded waits here.
let loaded = false;
const early = [];

// ---- settings ---------------------------------------------------------------------------

function validServerURL(u) {
  const m = SERVER_URL_RE.exec(String(u || '').trim());
  return !!m && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
}

function normalizeServerURL(u) {
  return String(u).trim().replace(/\/+$/, '');
}

// Keeps only known keys with valid values.
function sanitize(s, withServer) {
  const out = {};
  if (!s || typeof s !== 'object') return out;
  if (withServer && validServerURL(s.server_url)) out.server_url = normalizeServerURL(s.server_url);
  for (const [k, values] of Object.entries(CHOICES)) if (values.includes(s[k])) out[k] = s[k];
  for (const k of FLAGS) if (typeof s[k] === 'boolean') out[k] = s[k];
  return out;
}

const serverURL = () => effective.server_url || DEFAULT_SERVER_URL;

async function recomputeEffective() {
  const before = effective.server_url;
  effective = { ...DEFAULT_SETTINGS, ...sanitize(userSettings, true), ...sanitize(overrides, false) };
  try {
    const cur = (await chrome.storage.local.get('gasoline_effective')).gasoline_effective;
    if (JSON.stringify(cur) !== JSON.stringify(effective)) {
      await chrome.storage.local.set({ gasoline_effective: effective });
    }
  } catch (_) { /* ignore */ }
  return before !== effective.server_url;
}

async function loadUserSettings() {
  try {
    const r = await chrome.storage.sync.get('gasoline_settings');
    userSettings = { ...DEFAULT_SETTINGS, ...sanitize(r.gasoline_settings, true) };
  } catch (_) {
    userSettings = { ...DEFAULT_SETTINGS };
  }
}

// ---- server channel -----------------------------------------------------------------------

async function request(path, init) {
  const ctrl = new AbortController();
  const t = setTimeout(() => ctrl.abort(), REQUEST_TIMEOUT_MS);
  try {
    return await fetch(serverURL() + path, { cache: 'no-store', ...init, signal: ctrl.signal });
  } finally {
    clearTimeout(t);
  }
}

function setConnected(ok, err) {
  const was = connected;
  connected = ok;
  lastError = ok ? '' : String(err || 'unreachable');
  persistSoon();
  if (ok && !was) {
    backoff = 0;
    if (lastPage) postPage(lastPage);
    scheduleFlush(0);
  }
}

let polling = false;
let pollAgain = false;

// Polls GET /settings now, then every POLL_MS while the worker lives.
async function pollSettings() {
  if (polling) {
    pollAgain = true;
    return;
  }
  polling = true;
  clearTimeout(pollTimer);
  try {
    const res = await request('/settings', { method: 'GET' });
    if (!res.ok) throw new Error(`GET /settings: HTTP ${res.status}`);
    const body = await res.json();
    const next = body && typeof body.capture_overrides === 'object' && body.capture_overrides ? body.capture_overrides : {};
    setConnected(true);
    if (JSON.stringify(next) !== JSON.stringify(overrides)) {
      overrides = next;
      persistSoon();
      await recomputeEffective();
    }
  } catch (err) {
    // Keep the last overrides: they are the server's session state, and a
    // short outage must not change what is captured.
    setConnected(false, err && err.name === 'AbortError' ? 'timeout' : err && err.message);
  } finally {
    polling = false;
    clearTimeout(pollTimer);
    pollTimer = setTimeout(pollSettings, pollAgain ? 0 : POLL_MS);
    pollAgain = false;
  }
}

// ---- queue ---------------------------------------------------------------------------------

const queuedTotal = () => KINDS.reduce((n, k) => n + queues[k].length, 0);

function enqueue(kind, data) {
  queues[kind].push({ s: seq++, d: data });
  // Bounded: drop the oldest event of any kind.
  while (queuedTotal() > QUEUE_MAX) {
    let oldest = null;
    for (const k of KINDS) {
      const head = queues[k][0];
      if (head && (!oldest || head.s < queues[oldest][0].s)) oldest = k;
    }
    queues[oldest].shift();
    counts[oldest].dropped++;
  }
}

function onEvents(events, sender) {
  const tab = sender.tab;
  for (const ev of events) {
    if (!ev || !ROUTES[ev.kind] || !ev.data || typeof ev.data !== 'object' || Array.isArray(ev.data)) continue;
    const data = ev.data;
    if (tab) {
      if (typeof tab.id === 'number' && tab.id >= 0) data.tab = tab.id;
      const page = tab.url || sender.url;
      if (page) data.page = page;
    }
    if (typeof data.ts !== 'number') data.ts = Date.now();
    enqueue(ev.kind, data);
  }
  persistSoon();
  scheduleFlush(queuedTotal() >= FLUSH_AT ? 0 : FLUSH_MS);
}

function persistSoon() {
  if (persistTimer || !loaded) return;
  persistTimer = setTimeout(persist, 0);
}

async function persist() {
  persistTimer = 0;
  const queue = Object.fromEntries(KINDS.map((k) => [k, queues[k]]));
  try {
    await chrome.storage.session.set({
      gasoline_queue: queue,
      gasoline_counts: counts,
      gasoline_overrides: overrides,
      gasoline_status: { connected, last_error: lastError, page: lastPage },
    });
  } catch (_) {
    // Over the session quota: keep at least the counts and status.
    try {
      await chrome.storage.session.set({ gasoline_counts: counts, gasoline_overrides: overrides });
    } catch (__) { /* ignore */ }
  }
}

// Flushes in `delay` ms (never sooner than the current backoff), keeping an
// earlier flush if one is already due.
function scheduleFlush(delay) {
  if (!loaded || flushing) return; // flush() reschedules itself when it ends
  const due = Date.now() + Math.max(delay, backoff);
  if (flushTimer && flushDue <= due) return;
  clearTimeout(flushTimer);
  flushDue = due;
  flushTimer = setTimeout(flush, Math.max(0, due - Date.now()));
}

// Builds one POST body of at most BATCH_BYTES from the head of a queue.
function takeBatch(kind) {
  const [, key] = ROUTES[kind];
  const items = [];
  const parts = [];
  let bytes = 0;
  for (const it of queues[kind]) {
    if (items.length >= batchLimit[kind]) break;
    const j = JSON.stringify(it.d);
    if (items.length && bytes + j.length > BATCH_BYTES) break;
    items.push(it);
    parts.push(j);
    bytes += j.length + 1;
  }
  return { items, body: `{"${key}":[${parts.join(',')}]}` };
}

function remove(kind, items) {
  const gone = new Set(items);
  queues[kind] = queues[kind].filter((it) => !gone.has(it));
}

async function flush() {
  clearTimeout(flushTimer);
  flushTimer = 0;
  if (flushing) return;
  flushing = true;
  let failed = false;
  try {
    for (const kind of KINDS) {
      while (queues[kind].length) {
        const { items, body } = takeBatch(kind);
        let res;
        try {
          res = await request(ROUTES[kind][0], {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body,
          });
        } catch (err) {
          setConnected(false, err && err.name === 'AbortError' ? 'timeout' : err && err.message);
          throw err;
        }
        if (res.ok) {
          remove(kind, items);
          counts[kind].sent += items.length;
          batchLimit[kind] = BATCH_MAX;
          if (!connected) setConnected(true);
          continue;
        }
        if (res.status === 413 && items.length > 1) {
          batchLimit[kind] = Math.max(1, Math.floor(items.length / 2));
          continue;
        }
        if (res.status >= 400 && res.status < 500 && res.status !== 429) {
          // Not retryable (including a single event that is still too large).
          remove(kind, items);
          counts[kind].dropped += items.length;
          lastError = `POST ${ROUTES[kind][0]}: HTTP ${res.status} ${await errorText(res)}`;
          continue;
        }
        lastError = `POST ${ROUTES[kind][0]}: HTTP ${res.status}`;
        throw new Error(lastError);
      }
    }
    backoff = 0;
  } catch (_) {
    failed = true;
    backoff = backoff ? Math.min(backoff * 2, BACKOFF_MAX) : BACKOFF_MIN;
  } finally {
    flushing = false;
    persistSoon();
  }
  if (queuedTotal()) scheduleFlush(failed || queuedTotal() < FLUSH_AT ? FLUSH_MS : 0);
}

async function errorText(res) {
  try {
    const b = await res.json();
    return b && b.message ? String(b.message) : '';
  } catch (_) {
    return '';
  }
}

// ---- tracked tab ------------------------------------------------------------------------------

let focusedWindow = chrome.windows ? chrome.windows.WINDOW_ID_NONE : -1;

const trackable = (url) => /^(https?|file):/i.test(url || '');

async function postPage(page) {
  try {
    const res = await request('/page', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(page),
    });
    if (res.ok && !connected) setConnected(true);
  } catch (err) {
    setConnected(false, err && err.message);
  }
}

function reportTab(tab) {
  if (!tab || !tab.active || typeof tab.id !== 'number' || !trackable(tab.url)) return;
  if (focusedWindow >= 0 && tab.windowId !== focusedWindow) return;
  const page = { tab: tab.id, url: tab.url, title: tab.title || '', active: true, ts: Date.now() };
  if (lastPage && lastPage.tab === page.tab && lastPage.url === page.url && lastPage.title === page.title) return;
  lastPage = page;
  persistSoon();
  postPage(page);
}

async function reportActiveTab() {
  try {
    const win = await chrome.windows.getLastFocused({ populate: false });
    if (win && typeof win.id === 'number' && win.focused) focusedWindow = win.id;
    const query = focusedWindow >= 0 ? { active: true, windowId: focusedWindow } : { active: true, lastFocusedWindow: true };
    const [tab] = await chrome.tabs.query(query);
    reportTab(tab);
  } catch (_) { /* ignore */ }
}

chrome.tabs.onActivated.addListener(({ tabId }) => {
  chrome.tabs.get(tabId).then(reportTab, () => {});
});

chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (change.url || change.title || change.status === 'complete') reportTab(tab);
});

if (chrome.windows) {
  chrome.windows.onFocusChanged.addListener((windowId) => {
    if (windowId === chrome.windows.WINDOW_ID_NONE) return;
    focusedWindow = windowId;
    chrome.tabs.query({ active: true, windowId }).then(([tab]) => reportTab(tab), () => {});
  });
}

// ---- messages from content scripts, popup and options ----------------------------------------------

function status() {
  const perKind = Object.fromEntries(KINDS.map((k) => [k, { ...counts[k], queued: queues[k].length }]));
  return {
    connected,
    server_url: serverURL(),
    last_error: lastError,
    counts: perKind,
    queued: queuedTotal(),
    overrides,
    effective,
  };
}

chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (!msg || typeof msg !== 'object' || sender.id !== chrome.runtime.id) return false;
  switch (msg.type) {
    case 'events':
      if (!Array.isArray(msg.events) || !sender.tab) return false;
      if (loaded) onEvents(msg.events, sender);
      else early.push([msg.events, sender]);
      return false;
    case 'status':
      ready.then(() => sendResponse(status()));
      return true;
    case 'effective':
      ready.then(() => sendResponse(effective));
      return true;
    case 'settings':
      // For the options page: the user's settings, the defaults and what is in force.
      ready.then(() => sendResponse({ settings: userSettings, defaults: DEFAULT_SETTINGS, effective, overrides }));
      return true;
    default:
      return false;
  }
});

chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== 'sync' || !changes.gasoline_settings) return;
  userSettings = { ...DEFAULT_SETTINGS, ...sanitize(changes.gasoline_settings.newValue, true) };
  recomputeEffective().then((serverChanged) => {
    if (serverChanged) {
      connected = false;
      lastPage = null;
      backoff = 0;
      pollSettings();
      reportActiveTab();
    }
  });
});

// ---- lifecycle ---------------------------------------------------------------------------------------

chrome.runtime.onInstalled.addListener(() => { ready.then(recomputeEffective); });
chrome.runtime.onStartup.addListener(() => { ready.then(recomputeEffective); });

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name !== ALARM) return;
  ready.then(() => {
    pollSettings();
    scheduleFlush(0);
  });
});

async function init() {
  try {
    const s = await chrome.storage.session.get(['gasoline_queue', 'gasoline_counts', 'gasoline_overrides', 'gasoline_status']);
    const q = s.gasoline_queue || {};
    for (const k of KINDS) {
      if (Array.isArray(q[k])) queues[k] = q[k].filter((it) => it && typeof it.s === 'number' && it.d);
      for (const it of queues[k]) seq = Math.max(seq, it.s + 1);
    }
    const c = s.gasoline_counts || {};
    for (const k of KINDS) {
      if (c[k]) counts[k] = { sent: Number(c[k].sent) || 0, dropped: Number(c[k].dropped) || 0 };
    }
    if (s.gasoline_overrides && typeof s.gasoline_overrides === 'object') overrides = s.gasoline_overrides;
    if (s.gasoline_status) {
      connected = !!s.gasoline_status.connected;
      lastError = s.gasoline_status.last_error || '';
      lastPage = s.gasoline_status.page || null;
    }
  } catch (_) { /* ignore */ }
  await loadUserSettings();
  await recomputeEffective();
  loaded = true;
  for (const [events, sender] of early.splice(0)) onEvents(events, sender);
  try {
    if (!(await chrome.alarms.get(ALARM))) await chrome.alarms.create(ALARM, { periodInMinutes: 0.5 });
  } catch (_) { /* ignore */ }
  scheduleFlush(0);
  pollSettings();
  reportActiveTab();
}

const ready = init();
