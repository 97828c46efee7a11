// The server's channel to the worker. A WebSocket to ws://<server>/ws/extension carries pushed
// queries, settings, pings and batch acks one way and results, the hello, pilot flips and captured
// batches the other; while it is down the worker polls GET /pending-queries every second and posts
// answers to POST /query-results (and delivery.js POSTs its batches).
// GET /settings is polled every POLL_MS either way (it also tells the server the extension is alive).
// See PROTOCOL.md, "On-demand queries".

import { serverURL, applyServerSettings, settingsGeneration, sourcemapOrigins } from './settings.js';
import { request, postJSON, setConnected, failure } from './link.js';
import { pilotOn, pilotReady } from './pilot-switch.js';
import { nextBackoff } from './backoff.js';
import { trackedPage } from './tabs.js';

const WS_PATH = '/ws/extension';
const WS_BACKOFF_MIN = 100;
const WS_BACKOFF_MAX = 2000;
const WS_STABLE_MS = 2000; // a socket open this long counts as a success: backoff starts over
const QUERY_POLL_MS = 1000;
// A batch the server has not answered by then failed, as a POST that timed out. Longer than the server's
// wait for an ingest slot (10 s), so that a batch it stores late is not also sent again.
const ACK_MS = 15000;
const POLL_MS = 5000;

/** @type {{onQuery: (q: ServerQuery) => void, onSettings: (m: ServerSettings) => void}} */
let handlers = { onQuery() {}, onSettings() {} };
let ws = null; // the current socket (connecting or open)
let wsOpen = false;
let wsOpenedAt = 0;
let wsBackoff = 0;
let wsTimer = 0;
let queryPollTimer = 0;
let queryPolling = false;
let settingsPolling = false;
let settingsPollAgain = false;
let settingsPollTimer = 0;
let batchId = 0;
let takesBatches = false; // the server said so on the current socket (its hello)
const acks = new Map(); // batch id → {resolve, reject, timer}

/** Opens the channel; onQuery(q) runs each query the server sends, onSettings(m) each pushed settings frame. */
export function startChannel(h) {
  handlers = h;
  openSocket();
}

/** 'websocket' or 'polling': how queries reach the worker now. */
export const channelMode = () => (wsOpen ? 'websocket' : 'polling');

/** Dials the socket unless one is open or connecting (the alarm's check). */
export function ensureSocket() {
  if (!ws) openSocket();
}

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
    pilotReady().then(() => {
      if (ws !== sock || !wsOpen) return;
      try {
        // The tracked page too: the server may be a new one (a takeover) that knows no page.
        sock.send(JSON.stringify({
          type: 'hello', version: chrome.runtime.getManifest().version, pilot: pilotOn(),
          page: trackedPage() || undefined, sourcemap_origins: sourcemapOrigins(),
        }));
      } catch (_) { /* onclose follows */ }
    });
    // The server pushes settings only when they change: ask now what is in force (a restarted server
    // has none; one we were cut off from may have changed them meanwhile).
    pollSettings();
  };
  sock.onmessage = (e) => {
    if (ws === sock) onFrame(e.data);
  };
  sock.onclose = () => {
    if (ws !== sock) return;
    takesBatches = false;
    dropAcks();
    if (wsOpen && Date.now() - wsOpenedAt >= WS_STABLE_MS) wsBackoff = 0;
    ws = null;
    wsOpen = false;
    socketDown();
  };
  sock.onerror = () => { /* onclose follows */ };
}

function socketDown() {
  startQueryPoll();
  wsBackoff = nextBackoff(wsBackoff, WS_BACKOFF_MIN, WS_BACKOFF_MAX);
  clearTimeout(wsTimer);
  wsTimer = setTimeout(openSocket, wsBackoff);
}

/** The server address changed: drop the socket and dial the new one at once. */
export function resetSocket() {
  const old = ws;
  ws = null;
  wsOpen = false;
  wsBackoff = 0;
  takesBatches = false;
  dropAcks();
  if (old) {
    try { old.close(); } catch (_) { /* ignore */ }
  }
  openSocket();
}

function onFrame(data) {
  /** @type {ServerFrame} */
  let m;
  try {
    m = JSON.parse(data);
  } catch (_) {
    return;
  }
  if (!m || typeof m !== 'object') return;
  if (m.type === 'ping') sendFrame({ type: 'pong' });
  else if (m.type === 'query') handlers.onQuery(m);
  else if (m.type === 'settings') handlers.onSettings(m);
  else if (m.type === 'ack') settleAck(m);
  else if (m.type === 'hello') takesBatches = m.batches === true;
}

/** @param {WorkerFrame} m */
function sendFrame(m) {
  if (!wsOpen || !ws || ws.readyState !== WebSocket.OPEN) return false;
  try {
    ws.send(JSON.stringify(m));
    return true;
  } catch (_) {
    return false;
  }
}

/**
 * Sends one captured batch (the body a POST to route would carry) on the socket, as the frame
 * "events <id> <route>\n<body>". Resolves with the server's answer, {status, accepted, rejected} or
 * {status, error, message}; rejects when the socket closes or ACK_MS pass first. null when the socket
 * is not open or its server has not said it takes batches (an older one): the caller POSTs. A frame
 * costs the browser's processes about a tenth of a request.
 */
export function sendBatch(route, body) {
  if (!takesBatches || !wsOpen || !ws || ws.readyState !== WebSocket.OPEN) return null;
  const id = ++batchId;
  try {
    ws.send(`events ${id} ${route}\n${body}`);
  } catch (_) {
    return null;
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      acks.delete(id);
      reject(new Error(`no answer to a batch on the socket in ${ACK_MS / 1000} s`));
    }, ACK_MS);
    acks.set(id, { resolve, reject, timer });
  });
}

/**
 * Tells the server that events wait in the worker because the page keeps producing them (the
 * delivery rules hold a flush until it is quiet): before the AI reads what was captured, the server
 * then asks for them (a 'flush' query). Whether it was told.
 */
export function tellHolding() {
  return takesBatches && sendFrame({ type: 'holding' });
}

/** @param {BatchAck} m */
function settleAck(m) {
  const a = acks.get(m.id);
  if (!a) return;
  acks.delete(m.id);
  clearTimeout(a.timer);
  a.resolve(m);
}

// The socket went: what it was carrying has no answer coming (the server may have stored it).
function dropAcks() {
  for (const a of acks.values()) {
    clearTimeout(a.timer);
    a.reject(new Error('the socket closed before the server answered'));
  }
  acks.clear();
}

/**
 * Sends a query's answer on the socket, else with POST /query-results.
 * @param {QueryResult} msg
 */
export function sendResult(msg) {
  if (sendFrame(msg)) return;
  postJSON('/query-results', JSON.stringify({ results: [msg] })).catch(() => { /* the server gave up on it by now */ });
}

/** Tells the server a tab's document went away (tabs.js's pageLeft) on the socket; false when it is not open. */
export const tellPageLeft = (m) => sendFrame({ type: 'page_left', ...m });

/** Tells the server the pilot switch flipped: on the socket, else with an immediate poll (it carries ?pilot=). */
export function tellPilot(enabled) {
  if (!sendFrame({ type: 'pilot', pilot: enabled })) pollSettings();
}

/** Tells the server the human's source map origins changed: on the socket, else with an immediate poll. */
export function tellSourcemapOrigins() {
  if (!sendFrame({ type: 'sourcemap_origins', sourcemap_origins: sourcemapOrigins() })) pollSettings();
}

// ---- fallback polling for queries while the socket is down

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
    const res = await request(`/pending-queries?pilot=${pilotOn()}`, { method: 'POST' });
    if (res.ok) {
      const body = await res.json();
      if (body && Array.isArray(body.queries)) for (const q of body.queries) handlers.onQuery(q);
    }
  } catch (_) { /* the server is down: next second */ } finally {
    queryPolling = false;
  }
  if (!wsOpen && !queryPollTimer) queryPollTimer = setTimeout(pollQueries, QUERY_POLL_MS);
}

// ---- GET /settings, now and every POLL_MS while the worker lives

export async function pollSettings() {
  if (settingsPolling) {
    settingsPollAgain = true;
    return;
  }
  settingsPolling = true;
  clearTimeout(settingsPollTimer);
  const gen = settingsGeneration();
  try {
    // POST, not GET: Chrome sends the extension's Origin only on a POST, and the server refuses a
    // pilot report without it.
    const origins = encodeURIComponent(sourcemapOrigins().join(' '));
    const res = await request(`/settings?pilot=${pilotOn()}&sourcemap_origins=${origins}`, { method: 'POST' });
    if (!res.ok) throw new Error(`POST /settings: HTTP ${res.status}`);
    const body = await res.json();
    setConnected(true);
    if (settingsGeneration() === gen) await applyServerSettings(body);
  } catch (err) {
    // Keep the last overrides: they are the server's session state, and a short outage must not
    // change what is captured.
    setConnected(false, failure(err));
  } finally {
    settingsPolling = false;
    clearTimeout(settingsPollTimer);
    settingsPollTimer = setTimeout(pollSettings, settingsPollAgain ? 0 : POLL_MS);
    settingsPollAgain = false;
  }
}
