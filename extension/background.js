const DEFAULT_SERVER_URL = 'http://127.0.0.1:7890';

// Gasoline service worker: queues what the content scripts capture, delivers it
// to the local Gasoline server in order, polls the server's capture settings,
// reports the tracked tab and answers the server's on-demand queries (DOM, page
// info, accessibility audit) pushed over a WebSocket. It also holds the human's
// AI Web Pilot switch and carries out pilot actions while (and only while) it is
// on. See PROTOCOL.md.

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

// JSON of gasoline_effective as last read from or written to storage; null = unknown.
let storedEffective = null;

// Recomputes the effective settings and writes them to storage at once (no read first, no
// debounce: content scripts follow gasoline_effective, so this is how a change reaches the pages).
// Writes are issued in call order, so the last call's settings are what storage ends with.
async function recomputeEffective() {
  const before = effective.server_url;
  effective = { ...DEFAULT_SETTINGS, ...sanitize(userSettings, true), ...sanitize(overrides, false) };
  const j = JSON.stringify(effective);
  if (j !== storedEffective) {
    storedEffective = j;
    try {
      await chrome.storage.local.set({ gasoline_effective: effective });
    } catch (_) {
      storedEffective = null;
    }
  }
  return before !== effective.server_url;
}

// Counts settings answers applied (polled or pushed): a poll answer that was in flight while a
// pushed one was applied is older than it and is dropped.
let settingsGen = 0;

// Applies the server's answer to GET /settings, or the same object pushed on the socket
// ({type:"settings", capture_overrides}): its overrides replace ours; empty or absent means the
// user's own settings are in force again.
function applyServerSettings(body) {
  settingsGen++;
  const co = body && body.capture_overrides;
  const next = co && typeof co === 'object' && !Array.isArray(co) ? co : {};
  if (JSON.stringify(next) === JSON.stringify(overrides)) return Promise.resolve(false);
  overrides = next;
  persistSoon();
  return recomputeEffective();
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
  const gen = settingsGen;
  try {
    // POST, not GET: Chrome sends the extension's Origin only on a POST, and the server refuses a
    // pilot report without it.
    const res = await request(`/settings?pilot=${pilotEnabled}`, { method: 'POST' });
    if (!res.ok) throw new Error(`POST /settings: HTTP ${res.status}`);
    const body = await res.json();
    setConnected(true);
    if (settingsGen === gen) await applyServerSettings(body);
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
  const s = seq++;
  queues[kind].push({ s, d: data });
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
  return s;
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
    const s = enqueue(ev.kind, data);
    if (ev.kind === 'log' && isError(data)) onError(tab, data, s);
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

let flushRun = null; // the flush in progress

// Delivers the queues; resolves when this flush (or the one already running) ends.
function flush() {
  clearTimeout(flushTimer);
  flushTimer = 0;
  if (!flushRun) flushRun = flushQueues().finally(() => { flushRun = null; });
  return flushRun;
}

async function flushQueues() {
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

// ---- screenshots on error (screenshot_on_error) ---------------------------------------------------
//
// An error captured from a tab that is the active tab of its window: capture the window's visible
// tab, deliver the queued logs (so the server holds the error the screenshot names), then POST
// /screenshots. At most one every SHOT_INTERVAL_MS; failures are counted, never thrown.

const SHOT_INTERVAL_MS = 5000;
const SHOT_MAX_CHARS = 4.5 * 1024 * 1024; // the data URL must fit the server's 5 MiB body cap
const shots = { sent: 0, attached: 0, skipped: 0, failed: 0, last_error: '', last_file: '' };
let shotBusy = false;
let lastShotAt = 0;

const isError = (d) => d.kind === 'exception' || d.kind === 'rejection' || d.level === 'error';

function onError(tab, data, s) {
  if (effective.screenshot_on_error !== true || shotBusy) return;
  if (!tab || typeof tab.id !== 'number' || tab.id < 0) return;
  if (Date.now() - lastShotAt < SHOT_INTERVAL_MS) return;
  shotBusy = true;
  screenshot(tab.id, data.ts, s).catch((err) => {
    shots.failed++;
    shots.last_error = errText(err);
  }).finally(() => { shotBusy = false; });
}

async function screenshot(tabId, ts, s) {
  const tab = await chrome.tabs.get(tabId);
  if (!tab.active) {
    shots.skipped++; // another tab is showing in that window: not this error's page
    return;
  }
  lastShotAt = Date.now();
  let image = await chrome.tabs.captureVisibleTab(tab.windowId, { format: 'png' });
  if (image.length > SHOT_MAX_CHARS) image = await shrinkPNG(image);
  await deliverLogsThrough(s);
  const res = await request('/screenshots', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ tab: tabId, ts, image }),
  });
  if (!res.ok) throw new Error(`POST /screenshots: HTTP ${res.status} ${await errorText(res)}`);
  shots.sent++;
  try {
    const b = await res.json();
    if (b && b.attached) shots.attached++;
    if (b && typeof b.file === 'string') shots.last_file = b.file;
  } catch (_) { /* stored all the same */ }
}

// Delivers the log queue up to and including event `s` (a few tries; the screenshot goes either way).
async function deliverLogsThrough(s) {
  const waiting = () => queues.log.some((it) => it.s <= s);
  for (let i = 0; i < 3 && waiting(); i++) await flush();
}

// A screenshot too large for one POST (a huge, busy screen): scale it down until it fits.
async function shrinkPNG(dataURL) {
  const bitmap = await createImageBitmap(await (await fetch(dataURL)).blob());
  let scale = Math.sqrt(SHOT_MAX_CHARS / dataURL.length) * 0.9;
  for (let i = 0; i < 4; i++) {
    const w = Math.max(1, Math.round(bitmap.width * scale));
    const h = Math.max(1, Math.round(bitmap.height * scale));
    const canvas = new OffscreenCanvas(w, h);
    canvas.getContext('2d').drawImage(bitmap, 0, 0, w, h);
    const blob = await canvas.convertToBlob({ type: 'image/png' });
    const out = await blobToDataURL(blob);
    if (out.length <= SHOT_MAX_CHARS) return out;
    scale *= 0.7;
  }
  throw new Error('screenshot too large even scaled down');
}

async function blobToDataURL(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return `data:${blob.type || 'image/png'};base64,${btoa(bin)}`;
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
  // The focused window closed (e.g. the popup opened as a window): Chromium 156 headless fires no
  // onFocusChanged for the window that is focused now, so ask which one it is.
  chrome.windows.onRemoved.addListener((windowId) => {
    if (windowId !== focusedWindow) return;
    focusedWindow = chrome.windows.WINDOW_ID_NONE;
    trackedTab = -1;
    reportActiveTab();
  });
}

// ---- on-demand queries: the WebSocket channel ------------------------------------------------------
//
// The server pushes {type:"query"} frames over ws://<server>/ws/extension; the worker routes each to
// its tab and answers {type:"result"}. While the socket is down it polls GET /pending-queries every
// second and posts answers to POST /query-results. See PROTOCOL.md, "On-demand queries".

const WS_PATH = '/ws/extension';
const WS_BACKOFF_MIN = 100;
const WS_BACKOFF_MAX = 2000;
const WS_STABLE_MS = 2000; // a socket open this long counts as a success: backoff starts over
const QUERY_POLL_MS = 1000;
const QUERY_KINDS = new Set(['dom', 'page_info', 'a11y', 'pilot']);
const QUERY_DEFAULT_MS = { dom: 10000, page_info: 10000, a11y: 30000, pilot: 10000 };
const QUERY_MAX_MS = 120000;

let ws = null; // the current socket (connecting or open)
let wsOpen = false;
let wsOpenedAt = 0;
let wsBackoff = 0;
let wsTimer = 0;
let queryPollTimer = 0;
let queryPolling = false;

function wsURL() {
  const u = new URL(serverURL());
  return `ws://${u.host}${WS_PATH}`;
}

function openSocket() {
  clearTimeout(wsTimer);
  wsTimer = 0;
  if (ws) return;
  let sock;
  try {
    sock = new WebSocket(wsURL());
  } catch (_) {
    socketDown();
    return;
  }
  ws = sock;
  sock.onopen = () => {
    if (ws !== sock) return;
    wsOpen = true;
    wsOpenedAt = Date.now();
    stopQueryPoll();
    // The hello carries the pilot switch, so it waits for the worker to have read it from storage.
    pilotReady.then(() => {
      if (ws !== sock || !wsOpen) return;
      try {
        sock.send(JSON.stringify({ type: 'hello', version: chrome.runtime.getManifest().version, pilot: pilotEnabled }));
      } catch (_) { /* onclose follows */ }
    });
    // The server pushes settings only when they change: ask now what is in force (a restarted
    // server has none; one we were cut off from may have changed them meanwhile).
    if (loaded) pollSettings();
  };
  sock.onmessage = (e) => {
    if (ws === sock) onServerFrame(e.data);
  };
  sock.onclose = () => {
    if (ws !== sock) return;
    if (wsOpen && Date.now() - wsOpenedAt >= WS_STABLE_MS) wsBackoff = 0;
    ws = null;
    wsOpen = false;
    socketDown();
  };
  sock.onerror = () => { /* onclose follows */ };
}

function socketDown() {
  startQueryPoll();
  wsBackoff = wsBackoff ? Math.min(wsBackoff * 2, WS_BACKOFF_MAX) : WS_BACKOFF_MIN;
  clearTimeout(wsTimer);
  wsTimer = setTimeout(openSocket, wsBackoff);
}

// The server address changed: drop the socket and dial the new one at once.
function resetSocket() {
  const old = ws;
  ws = null;
  wsOpen = false;
  wsBackoff = 0;
  if (old) {
    try { old.close(); } catch (_) { /* ignore */ }
  }
  openSocket();
}

function onServerFrame(data) {
  let m;
  try {
    m = JSON.parse(data);
  } catch (_) {
    return;
  }
  if (!m || typeof m !== 'object') return;
  if (m.type === 'ping') sendFrame({ type: 'pong' });
  else if (m.type === 'query') runQuery(m);
  else if (m.type === 'settings') ready.then(() => applyServerSettings(m));
}

function sendFrame(m) {
  if (!wsOpen || !ws || ws.readyState !== WebSocket.OPEN) return false;
  try {
    ws.send(JSON.stringify(m));
    return true;
  } catch (_) {
    return false;
  }
}

// ---- fallback polling while the socket is down ------------------------------------------------------

function startQueryPoll() {
  if (!queryPollTimer && !queryPolling) queryPollTimer = setTimeout(pollQueries, 0);
}

function stopQueryPoll() {
  clearTimeout(queryPollTimer);
  queryPollTimer = 0;
}

async function pollQueries() {
  queryPollTimer = 0;
  if (wsOpen) return;
  queryPolling = true;
  try {
    const res = await request(`/pending-queries?pilot=${pilotEnabled}`, { method: 'POST' });
    if (res.ok) {
      const body = await res.json();
      if (body && Array.isArray(body.queries)) for (const q of body.queries) runQuery(q);
    }
  } catch (_) { /* the server is down: next second */ } finally {
    queryPolling = false;
  }
  if (!wsOpen && !queryPollTimer) queryPollTimer = setTimeout(pollQueries, QUERY_POLL_MS);
}

async function postResults(results) {
  try {
    await request('/query-results', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ results }),
    });
  } catch (_) { /* the server gave up on it by now */ }
}

// ---- tabs: which one, and is its page ready -----------------------------------------------------------

// tabId → {url, navigating, gen, waiters, injectedGen}. `gen` counts wake-ups ('ready' from the
// content script, or the tab's load completing); waiters are resolved on the next one.
const tabStates = new Map();
let trackedTab = -1; // cached answer for tab 0; -1 = ask Chrome
let trackedIsFallback = false;
let lastEventTab = -1; // the tab that last sent events or 'ready'

function tabState(id) {
  let s = tabStates.get(id);
  if (!s) {
    s = { url: '', navigating: false, navURL: '', navSeq: 0, gen: 0, waiters: new Set(), injectedGen: -1 };
    tabStates.set(id, s);
  }
  return s;
}

function wakeTab(id) {
  const s = tabStates.get(id);
  if (!s) return;
  s.gen++;
  const ws_ = Array.from(s.waiters);
  s.waiters.clear();
  for (const f of ws_) f();
}

function noteTabSender(sender) {
  const tab = sender.tab;
  if (!tab || typeof tab.id !== 'number' || tab.id < 0) return -1;
  const s = tabState(tab.id);
  const url = sender.url || tab.url;
  if (url) s.url = url;
  if (trackable(url) && lastEventTab !== tab.id) {
    lastEventTab = tab.id;
    if (trackedIsFallback) trackedTab = -1;
  }
  return tab.id;
}

function onReady(sender) {
  if (sender.frameId !== 0) return;
  if (sender.documentLifecycle && sender.documentLifecycle !== 'active') return;
  const id = noteTabSender(sender);
  if (id < 0) return;
  tabState(id).navigating = false;
  wakeTab(id);
}

chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (change.status === 'loading') {
    tabState(tabId).navigating = true;
  } else if (change.status === 'complete') {
    // Normally 'ready' came first. If not (a same-document navigation, a page the content script
    // cannot run in), waiters try once more and learn what is there.
    const s = tabStates.get(tabId);
    if (s) {
      s.navigating = false;
      wakeTab(tabId);
    }
  }
  if (change.url) {
    const s = tabStates.get(tabId);
    if (s) s.url = change.url;
    if (tabId === trackedTab ? !trackable(change.url) : trackedIsFallback) trackedTab = -1;
  }
});

// tabs.onUpdated says 'loading' only when the new document commits (Chromium 156: once the response
// is in), which leaves the old document answering for the whole request. webNavigation says when
// the navigation starts; a navigation that ends without a new document (download, 204, aborted,
// net error) wakes the waiters again.
const primaryFrame = (d) => d.tabId >= 0 && d.frameId === 0 && d.frameType !== 'fenced_frame' && d.documentLifecycle !== 'prerender';
if (chrome.webNavigation) {
  chrome.webNavigation.onBeforeNavigate.addListener((d) => {
    if (!primaryFrame(d)) return;
    const s = tabState(d.tabId);
    s.navigating = true;
    s.navURL = d.url;
    s.navSeq++;
  });
  chrome.webNavigation.onErrorOccurred.addListener((d) => {
    if (!primaryFrame(d)) return;
    const s = tabStates.get(d.tabId);
    if (!s || !s.navigating || s.navURL !== d.url) return; // an older navigation, superseded
    s.navigating = false;
    wakeTab(d.tabId);
  });
}

chrome.tabs.onRemoved.addListener((tabId) => {
  const s = tabStates.get(tabId);
  tabStates.delete(tabId);
  if (trackedTab === tabId) trackedTab = -1;
  if (lastEventTab === tabId) lastEventTab = -1;
  if (s) for (const f of s.waiters) f(); // they find the tab gone
});

chrome.tabs.onReplaced.addListener((added, removed) => {
  tabStates.delete(removed);
  if (trackedTab === removed) trackedTab = -1;
  if (lastEventTab === removed) lastEventTab = added;
});

chrome.tabs.onActivated.addListener(() => { trackedTab = -1; });
if (chrome.windows) {
  chrome.windows.onFocusChanged.addListener((windowId) => {
    if (windowId !== chrome.windows.WINDOW_ID_NONE) trackedTab = -1;
  });
}

class QueryError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

const errText = (err) => String((err && err.message) || err);

// tab 0: the active tab of the last focused window if it shows a web page, else the tab that last
// sent events. Cached until a tab or window event says otherwise.
async function resolveTab(tab) {
  if (tab === undefined || tab === null || tab === 0) {
    if (trackedTab >= 0 && tabStates.has(trackedTab)) return trackedTab;
    let active;
    try {
      [active] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
    } catch (_) { /* none */ }
    if (active && typeof active.id === 'number' && trackable(active.url || active.pendingUrl)) {
      const s = tabState(active.id);
      if (active.url) s.url = active.url;
      trackedTab = active.id;
      trackedIsFallback = false;
      return active.id;
    }
    if (lastEventTab >= 0) {
      trackedTab = lastEventTab;
      trackedIsFallback = true;
      return lastEventTab;
    }
    throw new QueryError('not_found', 'no tab to query: the focused window shows no web page and no page has sent events');
  }
  if (!Number.isInteger(tab) || tab < 0) throw new QueryError('invalid_param', `tab must be a tab id or 0, not ${JSON.stringify(tab)}`);
  if (tabStates.has(tab)) return tab; // seen alive, and onRemoved forgets closed tabs
  try {
    const t = await chrome.tabs.get(tab);
    const s = tabState(tab);
    if (t.url) s.url = t.url;
    if (t.status === 'loading') s.navigating = true;
  } catch (_) {
    throw new QueryError('not_found', `no tab with id ${tab}`);
  }
  return tab;
}

// Resolves at the tab's next wake-up; rejected when the query ends (its deadline).
function nextWake(s, job) {
  return new Promise((resolve, reject) => {
    const cancel = () => {
      s.waiters.delete(resolve);
      reject(new QueryError('timeout', 'deadline'));
    };
    s.waiters.add(resolve);
    job.cancels.push(cancel);
  });
}

// sendMessage/executeScript failures that mean "the document is going or not there yet".
const NO_RECEIVER = /Receiving end does not exist/i;
const DOC_GONE = /Receiving end does not exist|message (port|channel) (is )?closed|back\/forward cache|Frame with ID \d+ was removed|No frame with id|document (was|has been) (removed|unloaded)|frame was removed/i;
const NO_ACCESS = /Cannot access|cannot be scripted|showing error page|extensions gallery|chrome:\/\//i;

// A tab that has no content script while not navigating: a page opened before the extension was
// installed or reloaded. Give it one (once per wake-up); pages the extension may not read are not_found.
async function adoptTab(tabId, s, job) {
  let t;
  try {
    t = await chrome.tabs.get(tabId);
  } catch (_) {
    throw new QueryError('not_found', `no tab with id ${tabId}`);
  }
  if (t.url) s.url = t.url;
  if (t.status === 'loading') {
    s.navigating = true;
    return false;
  }
  if (!trackable(t.url)) throw new QueryError('not_found', `tab ${tabId} shows ${t.url || 'a page'} which the extension cannot read`);
  if (s.injectedGen === s.gen) return false;
  s.injectedGen = s.gen;
  try {
    await chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, files: ['content.js'] });
  } catch (err) {
    if (job.done) return false;
    if (NO_ACCESS.test(errText(err))) throw new QueryError('not_found', `tab ${tabId} cannot be read: ${errText(err)}`);
    return false;
  }
  return true;
}

// Runs `attempt` against the tab's current document: waits while the tab is navigating, and when the
// document goes away under it waits for the next one's 'ready' — all within the query's deadline.
async function onDocument(tabId, job, attempt) {
  const s = tabState(tabId);
  for (;;) { // every turn but the first waits for an event from the tab
    if (s.navigating) await nextWake(s, job);
    if (job.done) return null;
    if (!tabStates.has(tabId)) throw new QueryError('not_found', `tab ${tabId} was closed`);
    const gen = s.gen;
    const navSeq = s.navSeq;
    try {
      const out = await attempt();
      // A navigation started while the old document was answering: that answer is about a page
      // that is going away; ask the next one.
      if (s.navSeq === navSeq || job.done) return out;
      continue;
    } catch (err) {
      if (job.done || err instanceof QueryError) throw err;
      const m = errText(err);
      if (/No tab with id/i.test(m)) throw new QueryError('not_found', `no tab with id ${tabId}`);
      if (NO_ACCESS.test(m) && !DOC_GONE.test(m)) throw new QueryError('not_found', `tab ${tabId} cannot be read: ${m}`);
      if (!DOC_GONE.test(m)) throw new QueryError('internal', m);
      if (s.gen !== gen) continue; // the next document is already there
      if (!s.navigating && NO_RECEIVER.test(m) && (await adoptTab(tabId, s, job))) continue;
      if (job.done) return null;
      if (s.gen === gen) await nextWake(s, job);
    }
  }
}

// `check`, if given, runs before every attempt (the pilot re-checks its switch).
function askContent(tabId, q, job, check) {
  const msg = { type: 'query', id: q.id, kind: q.kind, params: q.params, deadline: job.deadline };
  return onDocument(tabId, job, async () => {
    if (check) check();
    const ans = await chrome.tabs.sendMessage(tabId, msg, { frameId: 0 });
    if (!ans || typeof ans !== 'object') throw new QueryError('internal', 'the content script did not answer the query');
    return ans;
  });
}

// ---- a11y: axe-core in the page's isolated world -------------------------------------------------------

let axeBundled = null; // Promise<boolean>, once per worker life

function axeInBuild() {
  if (!axeBundled) {
    axeBundled = fetch(chrome.runtime.getURL('lib/axe.min.js'), { method: 'HEAD' })
      .then((r) => r.ok, () => false);
  }
  return axeBundled;
}

// Runs in the page (isolated world). Returns {missing:true} if axe is not loaded in this document.
async function auditInPage(p) {
  /* global axe */
  if (typeof axe === 'undefined' || !axe || typeof axe.run !== 'function') return { missing: true };
  const fail = (code, message) => ({ error: { code, message } });
  let context = document;
  if (p.scope !== undefined && p.scope !== null && p.scope !== '') {
    if (typeof p.scope !== 'string') return fail('invalid_param', 'scope must be a CSS selector');
    try {
      if (!document.querySelector(p.scope)) return fail('invalid_param', `scope ${JSON.stringify(p.scope)} matches no element`);
    } catch (e) {
      return fail('invalid_param', String((e && e.message) || e));
    }
    context = { include: [p.scope] };
  }
  const options = {
    resultTypes: p.include_passes === true ? ['violations', 'incomplete', 'passes'] : ['violations', 'incomplete'],
    iframes: false, // axe lives in the top frame only: never wait on frames that cannot answer
  };
  if (p.tags !== undefined && p.tags !== null) {
    if (!Array.isArray(p.tags) || p.tags.some((t) => typeof t !== 'string')) return fail('invalid_param', 'tags must be a list of strings');
    if (p.tags.length) options.runOnly = { type: 'tag', values: p.tags };
  }
  // axe refuses to run twice at once in a document: queue audits.
  const prev = globalThis.__gasolineAxeRun || Promise.resolve();
  const run = prev.then(() => axe.run(context, options));
  globalThis.__gasolineAxeRun = run.catch(() => {});
  let r;
  try {
    r = await run;
  } catch (e) {
    const m = String((e && e.message) || e);
    return fail(/unknown|no rules|not find|invalid/i.test(m) ? 'invalid_param' : 'internal', m);
  }
  if (options.runOnly && !(r.violations.length + r.passes.length + r.incomplete.length + r.inapplicable.length)) {
    return fail('invalid_param', `no axe-core rule has the tag(s) ${p.tags.join(', ')}`);
  }
  const selectorOf = (target) => (Array.isArray(target) ? target.map((t) => (Array.isArray(t) ? t.join(' >>> ') : String(t))).join(' ') : String(target || ''));
  const node = (n) => {
    const o = { selector: selectorOf(n.target), html: String(n.html || '').slice(0, 200) };
    if (n.failureSummary) o.failureSummary = n.failureSummary;
    return o;
  };
  const rule = (x) => {
    const o = {
      id: x.id, impact: x.impact, description: x.description, help: x.help, helpUrl: x.helpUrl, tags: x.tags,
      nodeCount: x.nodes.length, nodes: x.nodes.slice(0, 10).map(node),
    };
    if (!o.impact) delete o.impact;
    return o;
  };
  const result = {
    url: r.url,
    timestamp: r.timestamp,
    summary: { violations: r.violations.length, passes: r.passes.length, incomplete: r.incomplete.length, inapplicable: r.inapplicable.length },
    violations: r.violations.map(rule),
    incomplete: r.incomplete.map(rule),
  };
  if (p.include_passes === true) result.passes = r.passes.map((x) => ({ id: x.id, description: x.description, nodeCount: x.nodes.length }));
  return { result };
}

async function audit(tabId, q, job) {
  if (!(await axeInBuild())) throw new QueryError('internal', 'axe-core is not in this build of the extension (run make)');
  const target = { tabId, frameIds: [0] };
  const exec = async () => {
    const [res] = await chrome.scripting.executeScript({ target, world: 'ISOLATED', func: auditInPage, args: [q.params] });
    if (res && res.error) throw new Error(errText(res.error));
    return res && res.result;
  };
  return onDocument(tabId, job, async () => {
    let r = await exec();
    if (r && r.missing) {
      await chrome.scripting.executeScript({ target, world: 'ISOLATED', files: ['lib/axe.min.js'] });
      if (job.done) return null;
      r = await exec();
      if (r && r.missing) throw new QueryError('internal', 'axe-core did not load in the page');
    }
    if (!r || typeof r !== 'object') throw new QueryError('internal', 'the audit returned nothing');
    return r;
  });
}

// ---- AI Web Pilot: the human's switch ---------------------------------------------------------------------
//
// Off by default; only the popup (an extension page) turns it on, with an explicit message. The value
// lives in chrome.storage.sync (authoritative) with local and session as write-through copies; on
// worker start sync wins. The server hears it in the socket hello, in a pushed {type:"pilot"} frame on
// every flip and as ?pilot= on every poll — but the worker never takes the server's word: it checks its
// own switch before every pilot action.

const PILOT_KEY = 'aiWebPilotEnabled';
const PILOT_OFF = "Enable 'AI Web Pilot' in extension popup to use this tool";
const PILOT_AREAS = ['sync', 'local', 'session'];

let pilotEnabled = false;
let pilotGen = 0; // bumped by every flip from the popup: a slower read at start-up must not undo it
let pilotWrites = Promise.resolve(); // storage writes of the switch, in order

// Writes the switch to every area that does not hold it yet (all three when `areas` is absent).
function writePilot(value, areas) {
  const run = pilotWrites.then(() => Promise.allSettled((areas || PILOT_AREAS).map(
    (a) => chrome.storage[a].set({ [PILOT_KEY]: value }),
  )));
  pilotWrites = run.then(() => {}, () => {});
  return run;
}

// Start-up reconciliation: sync > local > session. A readable sync area decides (absent there = off);
// only if sync cannot be read at all does local, then session, stand in. The others are overwritten.
async function reconcilePilot() {
  const gen = pilotGen;
  const got = {};
  for (const a of PILOT_AREAS) {
    try {
      got[a] = { ok: true, v: (await chrome.storage[a].get(PILOT_KEY))[PILOT_KEY] };
    } catch (_) {
      got[a] = { ok: false };
    }
  }
  let value = false;
  if (got.sync.ok) value = got.sync.v === true;
  else if (got.local.ok && typeof got.local.v === 'boolean') value = got.local.v;
  else if (got.session.ok && typeof got.session.v === 'boolean') value = got.session.v;
  if (gen !== pilotGen) return; // the popup flipped it meanwhile: that is newer
  pilotEnabled = value;
  const stale = PILOT_AREAS.filter((a) => got[a].ok && got[a].v !== value);
  if (stale.length) await writePilot(value, stale);
}

const pilotReady = reconcilePilot().catch(() => {});

// The popup's flip. Returns the confirmed state once the three storage areas hold it.
async function setPilot(enabled) {
  pilotEnabled = enabled; // synchronously: the next pilot query already sees it
  pilotGen++;
  if (!enabled) clearHighlights();
  // Tell the server at once: on the socket, else with an immediate poll (which carries ?pilot=).
  ready.then(() => {
    if (pilotEnabled === enabled && !sendFrame({ type: 'pilot', pilot: enabled })) pollSettings();
  });
  await writePilot(enabled);
  const confirmed = { type: 'pilotStatusChanged', enabled: pilotEnabled };
  // Other open extension pages (a second popup, the options page) follow too.
  try {
    chrome.runtime.sendMessage(confirmed).catch(() => {});
  } catch (_) { /* no other page */ }
  return confirmed;
}

// The pilot switch as the worker sees it, checked before every action and again right before the
// action touches the page.
function assertPilot() {
  if (!pilotEnabled) throw new QueryError('ai_web_pilot_disabled', PILOT_OFF);
}

function defaultQueryMS(q) {
  if (q.kind === 'pilot' && q.params && q.params.action === 'execute_js') return scriptTimeout(q.params) + 3000;
  return QUERY_DEFAULT_MS[q.kind] || 10000;
}

// ---- AI Web Pilot: actions (query kind "pilot") --------------------------------------------------------------

const SNAPSHOTS_KEY = 'gasoline_snapshots';
const SNAPSHOT_NAME_MAX = 50;
const HIGHLIGHT_DEFAULT_MS = 5000;
const HIGHLIGHT_MAX_MS = 60000;
const SCRIPT_DEFAULT_MS = 5000;
const SCRIPT_MAX_MS = 60000;
const RESULT_MAX_BYTES = 64 * 1024;
const SERIALIZE_MS = 1000; // turning the script's value into JSON (its own time limit)
const DETACH_WAIT_MS = 1000;

async function runPilot(q, p, job) {
  await pilotReady;
  assertPilot(); // whatever the server believes
  switch (p.action) {
    case 'list_states':
      return { result: await listStates() };
    case 'delete_state':
      return { result: await deleteState(p) };
    case 'highlight':
    case 'save_state':
    case 'load_state':
    case 'execute_js':
      break;
    default:
      throw new QueryError('invalid_param', `unknown pilot action ${JSON.stringify(p.action)}`);
  }
  job.tab = await resolveTab(q.tab);
  switch (p.action) {
    case 'highlight':
      return highlight(job.tab, q, p, job);
    case 'save_state':
      return saveState(job.tab, p, job);
    case 'load_state':
      return loadState(job.tab, p, job);
    default:
      return executeJS(job.tab, p, job);
  }
}

// -- highlight: the content script draws #gasoline-highlighter in the page's DOM

let highlightedTabs = new Set();

async function highlight(tabId, q, p, job) {
  const selector = typeof p.selector === 'string' ? p.selector.trim() : '';
  if (!selector) throw new QueryError('invalid_param', 'selector is required');
  let ms = Math.floor(Number(p.duration_ms));
  ms = Number.isFinite(ms) && ms > 0 ? Math.min(ms, HIGHLIGHT_MAX_MS) : HIGHLIGHT_DEFAULT_MS;
  const query = { id: q.id, kind: 'pilot', params: { action: 'highlight', selector, duration_ms: ms } };
  const out = await askContent(tabId, query, job, assertPilot);
  if (out && out.result) {
    highlightedTabs.add(tabId);
    setTimeout(() => highlightedTabs.delete(tabId), ms);
  }
  return out;
}

// The switch went off: take every highlight down now.
function clearHighlights() {
  for (const tabId of highlightedTabs) {
    chrome.tabs.sendMessage(tabId, { type: 'query', id: '', kind: 'pilot', params: { action: 'unhighlight' } }, { frameId: 0 })
      .catch(() => {});
  }
  highlightedTabs = new Set();
}

// -- snapshots: chrome.storage.local gasoline_snapshots {name: snapshot}

let snapshotChain = Promise.resolve();

// Runs fn(snapshots) with the stored map, one at a time; fn returns true to write the map back.
function withSnapshots(fn) {
  const run = snapshotChain.then(async () => {
    const all = (await chrome.storage.local.get(SNAPSHOTS_KEY))[SNAPSHOTS_KEY] || {};
    const r = await fn(all);
    if (r && r.write) {
      try {
        await chrome.storage.local.set({ [SNAPSHOTS_KEY]: all });
      } catch (err) {
        throw new QueryError('internal', `the snapshot could not be stored: ${errText(err)}`);
      }
    }
    return r && r.value;
  });
  snapshotChain = run.catch(() => {});
  return run;
}

function snapshotName(p) {
  const name = typeof p.snapshot_name === 'string' ? p.snapshot_name.trim() : '';
  if (!name) throw new QueryError('invalid_param', 'snapshot_name is required');
  if ([...name].length > SNAPSHOT_NAME_MAX) throw new QueryError('invalid_param', `snapshot_name is longer than ${SNAPSHOT_NAME_MAX} characters`);
  return name;
}

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

function listStates() {
  return withSnapshots((all) => ({
    value: {
      snapshots: Object.keys(all).sort().map((name) => ({
        name, url: all[name].url, timestamp: all[name].timestamp, size_bytes: all[name].size_bytes,
      })),
    },
  }));
}

function deleteState(p) {
  const name = snapshotName(p);
  return withSnapshots((all) => {
    if (!hasOwn(all, name)) throw new QueryError('not_found', `no snapshot named ${JSON.stringify(name)}`);
    delete all[name];
    return { write: true, value: { success: true, snapshot_name: name } };
  });
}

// Runs in the page (isolated world: the page's own storage, read with untouched built-ins).
function readPageStorage() {
  const dump = (s) => {
    const o = {};
    for (let i = 0; i < s.length; i++) {
      const k = s.key(i);
      if (k !== null) o[k] = s.getItem(k);
    }
    return o;
  };
  try {
    return { url: location.href, origin: location.origin, local: dump(localStorage), session: dump(sessionStorage) };
  } catch (e) {
    return { url: location.href, origin: location.origin, error: String((e && e.message) || e) };
  }
}

// Runs in the page: clears both storages, then writes the snapshot's entries.
function writePageStorage(local, session) {
  const out = { url: location.href, origin: location.origin, local: 0, session: 0, errors: [] };
  try {
    localStorage.clear();
    sessionStorage.clear();
  } catch (e) {
    return { url: location.href, origin: location.origin, error: String((e && e.message) || e) };
  }
  for (const [store, entries, key] of [[localStorage, local, 'local'], [sessionStorage, session, 'session']]) {
    for (const k of Object.keys(entries || {})) {
      try {
        store.setItem(k, String(entries[k]));
        out[key]++;
      } catch (e) {
        out.errors.push(`${key}Storage ${k}: ${String((e && e.message) || e)}`);
      }
    }
  }
  return out;
}

const webURL = (u) => /^https?:/i.test(u || '');
const originOf = (u) => {
  try {
    return new URL(u).origin;
  } catch (_) {
    return '';
  }
};

// The cookie store of the tab (an incognito tab has its own).
async function cookieStoreOf(tabId) {
  try {
    for (const store of await chrome.cookies.getAllCookieStores()) if (store.tabIds.includes(tabId)) return store.id;
  } catch (_) { /* the default store */ }
  return undefined;
}

const cookieURL = (c) => `http${c.secure ? 's' : ''}://${String(c.domain).replace(/^\./, '')}${c.path || '/'}`;

function keepCookie(c) {
  const o = { name: c.name, value: c.value, domain: c.domain, hostOnly: c.hostOnly, path: c.path, secure: c.secure,
    httpOnly: c.httpOnly, sameSite: c.sameSite, session: c.session };
  if (!c.session && typeof c.expirationDate === 'number') o.expirationDate = c.expirationDate;
  if (c.partitionKey) o.partitionKey = c.partitionKey;
  return o;
}

// Runs fn against the tab's current document and checks its answer.
function inPage(tabId, job, func, args, check) {
  return onDocument(tabId, job, async () => {
    if (check) check();
    const [res] = await chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, world: 'ISOLATED', func, args: args || [] });
    const r = res && res.result;
    if (!r || typeof r !== 'object') throw new QueryError('internal', 'the page gave no answer');
    if (r.error) throw new QueryError('internal', `the page's storage cannot be used: ${r.error}`);
    return r;
  });
}

async function saveState(tabId, p, job) {
  const name = snapshotName(p);
  const page = await inPage(tabId, job, readPageStorage, [], assertPilot);
  if (!page) return null;
  let cookies = [];
  if (webURL(page.url)) {
    const storeId = await cookieStoreOf(tabId);
    cookies = (await chrome.cookies.getAll(storeId ? { url: page.url, storeId } : { url: page.url })).map(keepCookie);
  }
  const snap = {
    url: page.url,
    timestamp: Date.now(),
    include_url: p.include_url !== false,
    localStorage: page.local,
    sessionStorage: page.session,
    cookies,
  };
  snap.size_bytes = new TextEncoder().encode(JSON.stringify(snap)).length;
  await withSnapshots((all) => {
    all[name] = snap;
    return { write: true };
  });
  return {
    result: {
      success: true,
      snapshot_name: name,
      size_bytes: snap.size_bytes,
      url: snap.url,
      saved: { localStorage: Object.keys(page.local).length, sessionStorage: Object.keys(page.session).length, cookies: cookies.length },
    },
  };
}

// Starts a navigation of the tab and marks it navigating, so whatever asks next waits for the new page.
async function navigateTab(tabId, url) {
  const t = await chrome.tabs.get(tabId);
  const s = tabState(tabId);
  const cur = t.url || '';
  const sameDoc = cur !== url && cur.split('#')[0] === url.split('#')[0] && url.includes('#');
  if (!sameDoc) {
    s.navigating = true;
    s.navURL = url;
    s.navSeq++;
  }
  if (cur === url) await chrome.tabs.reload(tabId);
  else await chrome.tabs.update(tabId, { url });
}

async function loadState(tabId, p, job) {
  const name = snapshotName(p);
  const snap = await withSnapshots((all) => ({ value: hasOwn(all, name) ? all[name] : null }));
  if (!snap) throw new QueryError('not_found', `no snapshot named ${JSON.stringify(name)}`);
  const navigate = p.include_url !== false && snap.include_url !== false;
  const origin = originOf(snap.url);
  // The storages belong to the snapshot's origin: restore them in a document of that origin.
  let here = await inPage(tabId, job, () => ({ url: location.href, origin: location.origin }), [], assertPilot);
  if (!here) return null;
  if (here.origin !== origin) {
    if (!navigate) {
      throw new QueryError('invalid_param', `the tab shows ${here.origin}, the snapshot is of ${origin}: load it with include_url to go there`);
    }
    assertPilot();
    await navigateTab(tabId, snap.url);
    here = await inPage(tabId, job, () => ({ url: location.href, origin: location.origin }), [], assertPilot);
    if (!here) return null;
    if (here.origin !== origin) throw new QueryError('internal', `the tab went to ${here.origin}, not ${origin}`);
  }
  assertPilot();
  const errors = [];
  let cookies = 0;
  if (webURL(snap.url)) {
    const storeId = await cookieStoreOf(tabId);
    const inStore = (o) => (storeId ? { ...o, storeId } : o);
    for (const c of await chrome.cookies.getAll(inStore({ url: snap.url }))) {
      const d = inStore({ url: cookieURL(c), name: c.name });
      if (c.partitionKey) d.partitionKey = c.partitionKey;
      try {
        await chrome.cookies.remove(d);
      } catch (err) {
        errors.push(`cookie ${c.name}: ${errText(err)}`);
      }
    }
    const now = Date.now() / 1000;
    for (const c of snap.cookies || []) {
      if (!c.session && typeof c.expirationDate === 'number' && c.expirationDate <= now) {
        errors.push(`cookie ${c.name}: expired`);
        continue;
      }
      const d = inStore({ url: cookieURL(c), name: c.name, value: c.value, path: c.path, secure: c.secure, httpOnly: c.httpOnly, sameSite: c.sameSite });
      if (!c.hostOnly) d.domain = c.domain;
      if (!c.session && typeof c.expirationDate === 'number') d.expirationDate = c.expirationDate;
      if (c.partitionKey) d.partitionKey = c.partitionKey;
      try {
        if (await chrome.cookies.set(d)) cookies++;
        else errors.push(`cookie ${c.name}: refused`);
      } catch (err) {
        errors.push(`cookie ${c.name}: ${errText(err)}`);
      }
    }
  }
  const w = await inPage(tabId, job, writePageStorage, [snap.localStorage || {}, snap.sessionStorage || {}], assertPilot);
  if (!w) return null;
  errors.push(...w.errors);
  const result = {
    success: true,
    snapshot_name: name,
    restored: { localStorage: w.local, sessionStorage: w.session, cookies },
  };
  if (navigate) {
    await navigateTab(tabId, snap.url);
    result.url = snap.url;
  }
  if (errors.length) result.errors = errors.slice(0, 20);
  return { result };
}

// -- execute_js: chrome.debugger → Runtime.evaluate in the page's main world

function scriptTimeout(p) {
  const ms = Math.floor(Number(p.timeout_ms));
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, SCRIPT_MAX_MS) : SCRIPT_DEFAULT_MS;
}

// One debugger session per tab at a time (a second attach would fail as "another debugger").
const tabLocks = new Map();
function withTabLock(tabId, fn) {
  const run = (tabLocks.get(tabId) || Promise.resolve()).then(fn, fn);
  const tail = run.then(() => {}, () => {});
  tabLocks.set(tabId, tail);
  tail.then(() => { if (tabLocks.get(tabId) === tail) tabLocks.delete(tabId); });
  return run;
}

// Waits until the tab is not navigating: a script runs once, in the page that is there.
async function settled(tabId, job) {
  const s = tabState(tabId);
  while (s.navigating && !job.done) await nextWake(s, job);
  if (!tabStates.has(tabId)) throw new QueryError('not_found', `tab ${tabId} was closed`);
}

class ScriptTimeout extends QueryError {
  constructor(ms) {
    super('timeout', `the script did not finish within ${ms} ms`);
  }
}

// Rejects with ScriptTimeout once `at` (epoch ms) has passed.
function before(at, ms, promise) {
  let timer;
  const t = new Promise((_, reject) => { timer = setTimeout(() => reject(new ScriptTimeout(ms)), Math.max(0, at - Date.now())); });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

async function executeJS(tabId, p, job) {
  if (typeof p.script !== 'string' || !p.script.trim()) throw new QueryError('invalid_param', 'script is required');
  const ms = scriptTimeout(p);
  await settled(tabId, job);
  return withTabLock(tabId, async () => {
    if (job.done) return null; // the query ended while an earlier script held the tab: never run late
    assertPilot();
    const target = { tabId };
    try {
      await chrome.debugger.attach(target, '1.3');
    } catch (err) {
      const m = errText(err);
      if (/No tab with/i.test(m)) throw new QueryError('not_found', `no tab with id ${tabId}`);
      if (/Cannot access|Cannot attach|chrome:\/\/|chrome-extension:\/\//i.test(m) && !/another debugger/i.test(m)) {
        throw new QueryError('not_found', `tab ${tabId} cannot be scripted: ${m}`);
      }
      return runInMainWorld(tabId, p.script, ms, job); // DevTools or another debugger holds the tab
    }
    try {
      return await evaluateAttached(target, p.script, ms);
    } finally {
      await before(Date.now() + DETACH_WAIT_MS, DETACH_WAIT_MS, chrome.debugger.detach(target)).catch(() => {});
    }
  });
}

// V8 reports a bare top-level `return` as a compile error: no stack, nothing ran.
const illegalReturn = (r) => {
  const d = r && r.exceptionDetails;
  return !!d && !d.stackTrace && d.exception && d.exception.className === 'SyntaxError' &&
    /Illegal return statement/.test(d.exception.description || '');
};

function scriptError(d) {
  const e = d.exception || {};
  let message;
  if (e.type === 'object' && e.description) message = e.description; // "<Name>: <message>\n    at …"
  else if ('value' in e) message = `Uncaught ${typeof e.value === 'string' ? e.value : JSON.stringify(e.value)}`;
  else message = e.unserializableValue ? `Uncaught ${e.unserializableValue}` : (e.description || d.text || 'Uncaught');
  if (!/\n\s+at /.test(message) && d.stackTrace && Array.isArray(d.stackTrace.callFrames)) {
    for (const f of d.stackTrace.callFrames.slice(0, 10)) {
      message += `\n    at ${f.functionName || '<anonymous>'} (${f.url || '<anonymous>'}:${f.lineNumber + 1}:${f.columnNumber + 1})`;
    }
  }
  return new QueryError('script_error', message);
}

async function evaluateAttached(target, script, ms) {
  const send = (method, params) => chrome.debugger.sendCommand(target, method, params);
  const t0 = Date.now();
  const end = t0 + ms;
  const evaluate = async (expression, replMode) => {
    const left = Math.max(1, end - Date.now());
    try {
      return await before(end + 250, ms, send('Runtime.evaluate', {
        expression, replMode, awaitPromise: true, returnByValue: false, timeout: left, userGesture: true, objectGroup: 'gasoline',
      }));
    } catch (err) {
      if (err instanceof QueryError) throw err;
      // V8 ends a script at `timeout` and the protocol answers "Internal error".
      if (Date.now() >= end - 10) throw new ScriptTimeout(ms);
      throw new QueryError('internal', `Runtime.evaluate: ${errText(err)}`);
    }
  };
  // The script as it is (expression or statements: its completion value; top-level await works), else
  // as an async function body when it uses a bare `return`.
  let r = await evaluate(script, true);
  if (illegalReturn(r)) r = await evaluate(`(async () => {\n${script}\n})()`, false);
  if (r.exceptionDetails) throw scriptError(r.exceptionDetails);
  let v = r.result || { type: 'undefined' };
  if (v.type === 'object' && v.subtype === 'promise' && v.objectId) {
    // A promise as the completion value: await it (an awaited promise is outside V8's timeout).
    r = await before(end, ms, send('Runtime.awaitPromise', { promiseObjectId: v.objectId, returnByValue: false }));
    if (r.exceptionDetails) throw scriptError(r.exceptionDetails);
    v = r.result || { type: 'undefined' };
  }
  if (v.type === 'undefined') return scriptResult('null');
  if ('unserializableValue' in v) return scriptResult(JSON.stringify(String(v.unserializableValue)));
  if (v.type === 'symbol') return scriptResult(JSON.stringify(v.description || 'Symbol()'));
  if (v.type !== 'object' && v.type !== 'function') return scriptResult(JSON.stringify(v.value === undefined ? null : v.value));
  if (v.subtype === 'null' || !v.objectId) return scriptResult('null');
  // An object: park it under a random global key, then serialize it with a page-side walker that
  // runs under V8's timeout too (a getter that loops forever is ended, not left hanging).
  const key = `__gasoline_${crypto.randomUUID().replace(/-/g, '')}`;
  await send('Runtime.callFunctionOn', {
    objectId: v.objectId,
    functionDeclaration: 'function (k) { Object.defineProperty(globalThis, k, {value: this, configurable: true, writable: true}); }',
    arguments: [{ value: key }],
    silent: true,
  });
  let s;
  try {
    s = await before(Date.now() + SERIALIZE_MS + 250, SERIALIZE_MS, send('Runtime.evaluate', {
      expression: `(${serializeParked.toString()})(${JSON.stringify(key)}, ${RESULT_MAX_BYTES})`,
      returnByValue: true, timeout: SERIALIZE_MS, silent: true,
    }));
  } catch (err) {
    // V8 ends the walker at SERIALIZE_MS (a getter that never returns) and the protocol says so.
    if (err instanceof QueryError || /terminated|Internal error/i.test(errText(err))) {
      throw new QueryError('timeout', `the script's value could not be turned into JSON within ${SERIALIZE_MS} ms`);
    }
    throw new QueryError('internal', `the script's value could not be turned into JSON: ${errText(err)}`);
  }
  if (s.exceptionDetails) throw new QueryError('internal', `the script's value could not be turned into JSON: ${scriptError(s.exceptionDetails).message}`);
  const out = s.result && s.result.value;
  if (!out || typeof out.json !== 'string') throw new QueryError('internal', "the script's value could not be turned into JSON");
  return scriptResult(out.json, out.cut);
}

// Runs in the page: turns the value parked at globalThis[key] into JSON text of at most about `max`
// characters ({json, cut}). Cycles become "[Circular]", functions "[Function: name]", DOM nodes a short
// description, Map/Set arrays, Errors {name, message, stack}; undefined in objects is left out as JSON does.
function serializeParked(key, max) {
  const root = globalThis[key];
  try { delete globalThis[key]; } catch (_) { /* ignore */ }
  const parts = [];
  let size = 0;
  let cut = false;
  const stack = [];
  const put = (s) => {
    if (cut) return;
    parts.push(s);
    size += s.length;
    if (size > max) cut = true;
  };
  const str = (s) => put(JSON.stringify(s.length > max ? s.slice(0, max + 1) : s));
  const isNode = (x) => typeof x.nodeType === 'number' && typeof x.nodeName === 'string' && typeof x.cloneNode === 'function';
  const nodeText = (n) => {
    if (n.nodeType !== 1) return `[${n.nodeName}]`;
    let d = `<${String(n.nodeName).toLowerCase()}`;
    if (n.id) d += ` id="${n.id}"`;
    if (typeof n.className === 'string' && n.className) d += ` class="${n.className}"`;
    return `${d}>`;
  };
  const walk = (x, depth) => {
    if (cut) return;
    switch (typeof x) {
      case 'string': return str(x);
      case 'number': return put(Number.isFinite(x) ? String(x) : JSON.stringify(String(x)));
      case 'boolean': return put(String(x));
      case 'bigint': return str(`${x}n`);
      case 'undefined': return put('null');
      case 'symbol': return str(String(x));
      case 'function': return str(`[Function${x.name ? `: ${x.name}` : ''}]`);
      default: break;
    }
    if (x === null) return put('null');
    if (stack.includes(x)) return str('[Circular]');
    if (depth > 100) return str('[Too deep]');
    if (x === globalThis) return str('[Window]');
    if (isNode(x)) return str(nodeText(x));
    const tag = Object.prototype.toString.call(x);
    stack.push(x);
    try {
      if (tag === '[object Error]' || x instanceof Error) return walk({ name: x.name, message: x.message, stack: x.stack }, depth + 1);
      if (typeof x.toJSON === 'function') {
        const j = x.toJSON();
        if (j !== x) return walk(j, depth + 1);
      }
      if (tag === '[object Map]') return walk(Array.from(x.entries()), depth + 1);
      if (tag === '[object Set]') return walk(Array.from(x.values()), depth + 1);
      if (tag === '[object RegExp]') return str(String(x));
      if (tag === '[object Promise]') return str('[Promise]');
      if (ArrayBuffer.isView(x) && typeof x.length === 'number') return walk(Array.from(x.subarray(0, max)), depth + 1);
      if (Array.isArray(x)) {
        put('[');
        for (let i = 0; i < x.length && !cut; i++) {
          if (i) put(',');
          walk(x[i], depth + 1);
        }
        return put(']');
      }
      put('{');
      let first = true;
      for (const k of Object.keys(x)) {
        if (cut) break;
        let val;
        try {
          val = x[k];
        } catch (e) {
          val = `[Threw: ${(e && e.message) || e}]`;
        }
        if (val === undefined) continue;
        if (!first) put(',');
        first = false;
        put(`${JSON.stringify(k)}:`);
        walk(val, depth + 1);
      }
      return put('}');
    } finally {
      stack.pop();
    }
  };
  walk(root, 0);
  return { json: parts.join(''), cut };
}

// The answer for a value given as JSON text: cut at RESULT_MAX_BYTES, then a string preview.
function scriptResult(json, cut) {
  const bytes = new TextEncoder().encode(json);
  if (!cut && bytes.length <= RESULT_MAX_BYTES) {
    try {
      return { result: { success: true, result: JSON.parse(json) } };
    } catch (_) { /* not JSON after all: preview it */ }
  }
  let preview = new TextDecoder().decode(bytes.slice(0, RESULT_MAX_BYTES));
  if (preview.endsWith('\uFFFD')) preview = preview.slice(0, -1); // a character cut in half
  return { result: { success: true, truncated: true, result: preview } };
}

// Fallback when chrome.debugger cannot attach: the page's main world through chrome.scripting. Subject to
// the page's CSP (no eval → csp_blocked at once), and a synchronous endless loop cannot be stopped.
// The script is tried as an expression, else as an async function body (statements need `return`).
async function runInMainWorld(tabId, script, ms, job) {
  const key = `__gasoline_${crypto.randomUUID().replace(/-/g, '')}`;
  const target = { tabId, frameIds: [0] };
  const end = Date.now() + ms;
  let res;
  try {
    [res] = await before(end + 250, ms, chrome.scripting.executeScript({ target, world: 'MAIN', func: runParked, args: [script, key, ms] }));
  } catch (err) {
    if (err instanceof QueryError) throw err;
    const m = errText(err);
    if (NO_ACCESS.test(m)) throw new QueryError('not_found', `tab ${tabId} cannot be scripted: ${m}`);
    throw new QueryError('internal', m);
  }
  const r = res && res.result;
  if (!r || typeof r !== 'object') throw new QueryError('internal', 'the page gave no answer');
  if (r.code) throw new QueryError(r.code, r.message || '');
  if (job.done) return null;
  let s;
  try {
    [s] = await before(Date.now() + SERIALIZE_MS, SERIALIZE_MS, chrome.scripting.executeScript({ target, world: 'MAIN', func: serializeParked, args: [key, RESULT_MAX_BYTES] }));
  } catch (err) {
    throw new QueryError(err instanceof QueryError ? 'timeout' : 'internal', `the script's value could not be turned into JSON: ${errText(err)}`);
  }
  const out = s && s.result;
  if (!out || typeof out.json !== 'string') throw new QueryError('internal', "the script's value could not be turned into JSON");
  return scriptResult(out.json, out.cut);
}

// Runs in the page's main world (the fallback): compiles the script with the page's own Function (which
// its CSP may forbid), runs it, and parks the value at globalThis[key].
async function runParked(script, key, ms) {
  let fn;
  try {
    try {
      fn = new Function(`return (\n${script}\n);`);
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      fn = new (Object.getPrototypeOf(async () => {}).constructor)(script);
    }
  } catch (e) {
    if (e && e.name === 'EvalError') return { code: 'csp_blocked', message: `the page's Content-Security-Policy forbids running the script: ${e.message}` };
    return { code: 'script_error', message: String((e && e.stack) || e) };
  }
  let timer;
  try {
    const v = await Promise.race([
      Promise.resolve().then(() => fn.call(globalThis)),
      new Promise((_, reject) => { timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { gasolineTimeout: true })), ms); }),
    ]);
    Object.defineProperty(globalThis, key, { value: v, configurable: true, writable: true });
    return { ok: true };
  } catch (e) {
    if (e && e.gasolineTimeout) return { code: 'timeout', message: `the script did not finish within ${ms} ms` };
    const message = e instanceof Error ? String(e.stack || `${e.name}: ${e.message}`) : `Uncaught ${String(e)}`;
    return { code: 'script_error', message };
  } finally {
    clearTimeout(timer);
  }
}

// ---- one query, start to answer ------------------------------------------------------------------------

const inflight = new Map(); // id → job

async function runQuery(q) {
  if (!q || typeof q !== 'object' || typeof q.id !== 'string' || !q.id || inflight.has(q.id)) return;
  const now = Date.now();
  let deadline = Number(q.deadline);
  if (!Number.isFinite(deadline) || deadline <= 0) deadline = now + defaultQueryMS(q);
  deadline = Math.min(deadline, now + QUERY_MAX_MS);
  const job = { id: q.id, tab: typeof q.tab === 'number' ? q.tab : 0, deadline, done: false, cancels: [], timer: 0 };
  inflight.set(q.id, job);
  job.timer = setTimeout(() => finishQuery(job, {
    error: { code: 'timeout', message: `the page did not answer within ${Math.max(0, deadline - now)} ms` },
  }), Math.max(0, deadline - now));
  try {
    if (!QUERY_KINDS.has(q.kind)) throw new QueryError('invalid_param', `unknown query kind ${JSON.stringify(q.kind)}`);
    const params = q.params && typeof q.params === 'object' && !Array.isArray(q.params) ? q.params : {};
    let out;
    if (q.kind === 'pilot') {
      out = await runPilot(q, params, job);
    } else {
      job.tab = await resolveTab(q.tab);
      const query = { id: q.id, kind: q.kind, params };
      out = q.kind === 'a11y' ? await audit(job.tab, query, job) : await askContent(job.tab, query, job);
    }
    if (out) finishQuery(job, out);
  } catch (err) {
    if (!job.done) finishQuery(job, { error: { code: err instanceof QueryError ? err.code : 'internal', message: errText(err) } });
  }
}

function finishQuery(job, out) {
  if (job.done) return;
  job.done = true;
  clearTimeout(job.timer);
  inflight.delete(job.id);
  for (const cancel of job.cancels) cancel();
  const s = tabStates.get(job.tab);
  const msg = { type: 'result', id: job.id, tab: job.tab };
  const url = (out.result && typeof out.result.url === 'string' && out.result.url) || (s && s.url) || '';
  if (url) msg.url = url;
  if (out.error) {
    msg.error = { code: String(out.error.code || 'internal'), message: String(out.error.message || '') };
  } else if (out.result && typeof out.result === 'object') {
    msg.result = out.result;
  } else {
    msg.error = { code: 'internal', message: 'the page gave an empty answer' };
  }
  if (!sendFrame(msg)) postResults([msg]);
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
    settings: userSettings,
    effective,
    queries: wsOpen ? 'websocket' : 'polling',
    screenshots: { ...shots },
    pilot: pilotEnabled,
  };
}

chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (!msg || typeof msg !== 'object' || sender.id !== chrome.runtime.id) return false;
  switch (msg.type) {
    case 'events':
      if (!Array.isArray(msg.events) || !sender.tab) return false;
      noteTabSender(sender);
      if (loaded) onEvents(msg.events, sender);
      else early.push([msg.events, sender]);
      return false;
    case 'ready':
      onReady(sender);
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
    case 'setAiWebPilotEnabled':
      // Only the extension's own pages (the popup) may flip the switch; never a content script.
      if (typeof msg.enabled !== 'boolean' || !extensionPage(sender)) return false;
      setPilot(msg.enabled).then(sendResponse, () => sendResponse({ type: 'pilotStatusChanged', enabled: pilotEnabled }));
      return true;
    default:
      return false;
  }
});

function extensionPage(sender) {
  const base = chrome.runtime.getURL('');
  return typeof sender.url === 'string' && sender.url.startsWith(base) && (!sender.origin || `${sender.origin}/` === base);
}

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
      resetSocket();
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
    if (!ws) openSocket();
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
  try {
    const cur = (await chrome.storage.local.get('gasoline_effective')).gasoline_effective;
    if (cur) storedEffective = JSON.stringify(cur);
  } catch (_) { /* ignore */ }
  await recomputeEffective();
  await pilotReady; // the hello and every poll carry the switch as reconciled from storage
  openSocket();
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
