// Delivery of captured events to the server, in order: queued per kind (queue.js), flushed every
// FLUSH_MS (or at FLUSH_AT queued), retried with backoff while the server is away. The queue is
// mirrored in chrome.storage.session, so a stopped worker loses nothing it had on the wire: it is
// written when a flush starts (if events came since the last write) and when one ends, not on every
// content-script message, because each write copies the whole queue through the browser process,
// the page's network included (issue 12). A worker that dies within FLUSH_MS of an event loses it;
// MV3 stops only idle workers (30 s without events).

import { EventQueue, KINDS, ROUTES, BATCH_MAX, isErrorLog, stampEvents } from './queue.js';
import { nextBackoff } from './backoff.js';
import { postJSON, problemOf, failure, setConnected, isConnected, setLastError } from './link.js';
import { saveSoon } from './session.js';

const FLUSH_MS = 200;
const FLUSH_AT = 100;
const BACKOFF_MIN = 250;
const BACKOFF_MAX = 2000;

const queue = new EventQueue();
const batchLimit = Object.fromEntries(KINDS.map((k) => [k, BATCH_MAX]));

let started = false; // flushes wait for start(): the stored queue must be read first
let flushing = false;
let flushTimer = 0;
let flushDue = 0;
let backoff = 0;
let flushRun = null; // the flush in progress
let unsaved = false; // events accepted since the queue was last written

/**
 * Queues the events of a content script's message. Returns the error logs among them as
 * [{data, seq}] (a screenshot may be taken of them).
 */
export function accept(events, sender) {
  const errors = [];
  for (const { kind, data } of stampEvents(events, sender, Date.now())) {
    const s = queue.push(kind, data);
    if (kind === 'log' && isErrorLog(data)) errors.push({ data, seq: s });
  }
  unsaved = true;
  scheduleFlush(queue.total() >= FLUSH_AT ? 0 : FLUSH_MS);
  return errors;
}

/** Per-kind {sent, dropped, queued} and the total queued, for the popup. */
export function deliveryStats() {
  return { counts: queue.stats(), queued: queue.total() };
}

/** Start-up: the queue a previous life of the worker stored, then flushing may begin. */
export function restoreQueue(session) {
  let stored = session.gasoline_queue;
  if (typeof stored === 'string') {
    try { stored = JSON.parse(stored); } catch (_) { stored = null; }
  }
  queue.restore(stored, session.gasoline_counts);
}

export function startDelivery() {
  started = true;
  scheduleFlush(0);
}

/** The server answers again: retry at once. */
export function retryNow() {
  backoff = 0;
  scheduleFlush(0);
}

// The queue is stored as one JSON string: the storage API copies a string through the browser
// process far more cheaply than the same events as objects.
function save() {
  unsaved = false;
  saveSoon('gasoline_queue', () => JSON.stringify(queue.snapshot().queue));
  saveSoon('gasoline_counts', () => queue.snapshot().counts);
}

// Flushes in `delay` ms (never sooner than the current backoff), keeping an earlier flush if one is
// already due.
export function scheduleFlush(delay) {
  if (!started || flushing) return; // flush() reschedules itself when it ends
  const due = Date.now() + Math.max(delay, backoff);
  if (flushTimer && flushDue <= due) return;
  clearTimeout(flushTimer);
  flushDue = due;
  flushTimer = setTimeout(flush, Math.max(0, due - Date.now()));
}

/** Delivers the queues; resolves when this flush (or the one already running) ends. */
function flush() {
  clearTimeout(flushTimer);
  flushTimer = 0;
  if (!flushRun) flushRun = flushQueues().finally(() => { flushRun = null; });
  return flushRun;
}

/** Delivers the log queue up to and including event seq (a few tries). */
export async function deliverLogsThrough(seq) {
  for (let i = 0; i < 3 && queue.holds('log', seq); i++) await flush();
}

async function flushQueues() {
  if (flushing) return;
  flushing = true;
  if (unsaved) save(); // written before any of it is on the wire
  let failed = false;
  try {
    for (const kind of KINDS) await flushKind(kind);
    backoff = 0;
  } catch (_) {
    failed = true;
    backoff = nextBackoff(backoff, BACKOFF_MIN, BACKOFF_MAX);
  } finally {
    flushing = false;
    save();
  }
  const left = queue.total();
  if (left) scheduleFlush(failed || left < FLUSH_AT ? FLUSH_MS : 0);
}

// Sends kind's queue batch by batch; throws when the server cannot take it now.
async function flushKind(kind) {
  const route = ROUTES[kind][0];
  while (queue.size(kind)) {
    const b = queue.batch(kind, batchLimit[kind]);
    let res;
    try {
      res = await postJSON(route, b.body);
    } catch (err) {
      setConnected(false, failure(err));
      throw err;
    }
    if (res.ok) {
      queue.delivered(kind, b);
      batchLimit[kind] = BATCH_MAX;
      if (!isConnected()) setConnected(true);
      continue;
    }
    if (res.status === 413 && b.items.length > 1) {
      batchLimit[kind] = Math.max(1, Math.floor(b.items.length / 2));
      continue;
    }
    if (res.status >= 400 && res.status < 500 && res.status !== 429) {
      const p = await problemOf(res);
      if (p.error === 'origin_not_accepted') {
        // This install's origin waits for the human's yes in the dashboard: keep the events, retry.
        setConnected(false, p.message);
        throw new Error(p.message);
      }
      // Not retryable (including a single event that is still too large).
      queue.refused(kind, b);
      setLastError(`POST ${route}: HTTP ${res.status} ${p.message}`);
      continue;
    }
    setLastError(`POST ${route}: HTTP ${res.status}`);
    throw new Error(`POST ${route}: HTTP ${res.status}`);
  }
}
