// Delivery of captured events to the server, in order: queued per kind (queue.js), flushed once no
// event has come for FLUSH_MS (or WAIT_MAX_MS after the first waiting one, or at once at FLUSH_AT
// queued or with a document's first error), retried with backoff while the server is away.
//
// Each message's events are journaled in chrome.storage.session as they come (a write the size of
// the message, removed once they are delivered), so a worker stopped, crashed or updated while it
// holds them loses none. The whole queue is written only while it is at risk: while the server is
// away (every message, at once) and when a flush has been on the wire for SLOW_MS: each such write
// copies the whole queue through the browser process, and on a busy page that was the largest part
// of the extension's cost (issue 12: ~40 % of its CPU during 200 fetches).
import { EventQueue, KINDS, ROUTES, BATCH_MAX, isErrorLog, stampEvents } from './queue.js';
import { nextBackoff } from './backoff.js';
import { postJSON, problemOf, failure, setConnected, isConnected, setLastError } from './link.js';
import { sendBatch, tellHolding } from './channel.js';
import { saveSoon } from './session.js';

// A flush waits until no event has come for FLUSH_MS, at most WAIT_MAX_MS after the first event it
// carries: a delivery costs the browser's processes and the server CPU on the cores the page runs on,
// so it goes once the page has stopped producing events, not in the middle of its work (issue 12: in
// the page benchmark, delivering 1,000 errors while the page's fetches ran made them ~7 % slower).
// FLUSH_MS is longer than a content script's batching (200 ms, then up to 100 ms of idle wait), so
// a page whose events keep coming is not taken for a quiet one between two of its batches.
const FLUSH_MS = 400;
const WAIT_MAX_MS = 2000;
// And flushes start at most this often: each costs the browser's network service CPU whatever its
// size (issue 12: in the page benchmark's workload, 200 ms flushes cost the network service 8–16 ms
// of CPU against none).
const FLUSH_GAP_MS = 1000;
// At once with this many queued, so that what comes while the flush runs still fits under QUEUE_MAX.
const FLUSH_AT = 1500;
const BACKOFF_MIN = 250;
const BACKOFF_MAX = 2000;
const SLOW_MS = 500; // a flush on the wire this long has its queue written down
// A document's first error is delivered at once: it is what the AI most often asks about right after
// it happened, and one flush more per document costs next to nothing. Its later errors wait as the
// rest do. The documents whose first error came are remembered, at most ERROR_DOCS_MAX of them.
const ERROR_DOCS_MAX = 1000;
const errorDocs = new Set();

const queue = new EventQueue();
queue.gone = forget;
const batchLimit = Object.fromEntries(KINDS.map((k) => [k, BATCH_MAX]));

let started = false; // flushes wait for start(): the stored queue must be read first
let flushing = false;
let flushTimer = 0;
let flushDue = 0;
let flushQuiet = false; // the flush due waits for the events to stop
let backoff = 0;
let flushRun = null; // the flush in progress
let lastFlush = 0; // when the last flush started
let stored = 0; // events in the queue as last written (0: nothing to guard or clear)
let waitingSince = 0; // when the first event no flush has taken yet came (0: none)
let toldHolding = false; // the server was told this flush is being put off (tellHolding)
let urgent = false; // a first error came while a flush ran: the next one goes at once

/**
 * Queues the events of a content script's message. Returns the error logs among them as
 * [{data, seq}] (a screenshot may be taken of them).
 */
export function accept(events, sender) {
  const errors = [];
  const stamped = stampEvents(events, sender, Date.now());
  const j = stamped.length ? `${JOURNAL}${life}:${journalN++}` : '';
  const entry = [];
  let first = false;
  for (const { kind, data } of stamped) {
    const s = queue.push(kind, data, j);
    entry.push([kind, s, data]);
    if (kind === 'log' && isErrorLog(data)) {
      errors.push({ data, seq: s });
      if (firstError(data.dc)) first = true;
    }
  }
  if (j) journalWrite(j, entry);
  // While the server is away the next flush waits out the backoff, seconds in which a stopped
  // worker would lose what only memory holds: write now (writes coalesce within a tick).
  if (backoff > 0) save();
  const now = Date.now();
  if (!waitingSince) waitingSince = now;
  if (queue.total() >= FLUSH_AT || first) {
    if (first && flushing) urgent = true;
    scheduleFlush(0);
  } else {
    // A quiet flush already due is put off by these events: the server is told once, so that what
    // the AI reads meanwhile asks for them first (deliverHeld).
    if (flushTimer && flushQuiet && !toldHolding) toldHolding = tellHolding();
    scheduleFlush(Math.max(0, Math.min(FLUSH_MS, waitingSince + WAIT_MAX_MS - now)), true);
  }
  return errors;
}

// Whether this is the first error of document dc (the content script's key for it) the worker saw.
function firstError(dc) {
  if (typeof dc !== 'string' || !dc || errorDocs.has(dc)) return false;
  errorDocs.add(dc);
  if (errorDocs.size > ERROR_DOCS_MAX) errorDocs.delete(errorDocs.values().next().value);
  return true;
}

/**
 * Delivers everything queued now, whatever the timing rules, and resolves with what is left queued
 * (0 unless the server refused or went away): the server asks before the AI reads what was captured,
 * so holding events while a page is busy never hides them from it.
 */
export async function deliverHeld() {
  if (started) {
    await flush();
    if (queue.total()) await flush(); // what came while the flush in progress ran
  }
  return { queued: queue.total() };
}

/** Per-kind {sent, dropped, queued}, the total queued and how many of them are written down, for the popup. */
export function deliveryStats() {
  return { counts: queue.stats(), queued: queue.total(), stored };
}

/** Start-up: the queue a previous life of the worker stored, then flushing may begin. */
export function restoreQueue(session, carried = []) {
  let saved = session.gasoline_queue;
  if (typeof saved === 'string') {
    try { saved = JSON.parse(saved); } catch (_) { saved = null; }
  }
  // What the previous version handed over (handOverForUpdate) is older than anything of this one's:
  // numbered below it, and written down again here (it is in no journal entry).
  const entries = [];
  if (Array.isArray(carried)) {
    carried.forEach((e, i) => { if (Array.isArray(e)) entries.push([e[0], i - carried.length, e[2]]); });
  }
  const keys = Object.keys(session).filter((k) => k.startsWith(JOURNAL));
  for (const k of keys) {
    try {
      for (const [kind, s, d] of JSON.parse(session[k])) entries.push([kind, s, d, k]);
    } catch (_) { /* a torn entry: nothing of it can be trusted */ }
  }
  queue.restore(saved, session.gasoline_counts, entries);
  stored = queue.total(); // cleared from storage once delivered
  for (const k of KINDS) for (const it of queue.queues[k]) if (it.j) journal.set(it.j, (journal.get(it.j) || 0) + 1);
  for (const k of keys) if (!journal.has(k)) forgotten.add(k);
  if (forgotten.size) unjournalSoon();
  if (entries.length && carried.length) save();
}

const UPDATE_KEY = 'gasoline_update_queue'; // chrome.storage.local: what one version hands the next

/** The extension is about to be updated, which clears chrome.storage.session: what is held is
 * delivered now, and what the server cannot take is kept in chrome.storage.local for the next version
 * (takeUpdateQueue). */
export async function handOverForUpdate() {
  if (started) await deliverHeld();
  if (!queue.total()) return;
  const entries = [];
  for (const k of KINDS) for (const it of queue.queues[k]) entries.push([k, it.s, it.d]);
  entries.sort((a, b) => a[1] - b[1]);
  try {
    await chrome.storage.local.set({ [UPDATE_KEY]: JSON.stringify(entries) });
  } catch (_) { /* over the quota: lost, and the server counts it by the numbers */ }
}

/** What the previous version left for this one ([[kind, seq, data]]), read once and removed. */
export async function takeUpdateQueue() {
  try {
    const v = (await chrome.storage.local.get(UPDATE_KEY))[UPDATE_KEY];
    if (typeof v !== 'string') return [];
    await chrome.storage.local.remove(UPDATE_KEY);
    const entries = JSON.parse(v);
    return Array.isArray(entries) ? entries : [];
  } catch (_) {
    return [];
  }
}

// The journal: each message's events are written to chrome.storage.session as they come, one small
// entry per message under a key of its own (a write costs the browser process about what the message
// itself did), and the entry is removed once none of its events is queued any more. A worker stopped,
// crashed or updated while it held events (a busy page's flush waits up to WAIT_MAX_MS) finds them
// there when it starts again (restoreQueue). The whole queue is written only while it is at risk (save).
const JOURNAL = 'gasoline_j:';
const life = Date.now().toString(36); // keys of one life never meet another's
let journalN = 0;
const journal = new Map(); // entry key → its events still queued
const forgotten = new Set(); // entry keys to remove
let unjournalTimer = 0;

function journalWrite(key, entry) {
  journal.set(key, entry.length);
  try {
    chrome.storage.session.set({ [key]: JSON.stringify(entry) }).catch(() => { /* over the quota: the queue's own save guards it */ });
  } catch (_) { /* no session area */ }
}

function forget(items) {
  for (const it of items) {
    if (!it.j) continue;
    const n = (journal.get(it.j) || 1) - 1;
    if (n > 0) journal.set(it.j, n);
    else {
      journal.delete(it.j);
      forgotten.add(it.j);
    }
  }
  if (forgotten.size) unjournalSoon();
}

function unjournalSoon() {
  if (unjournalTimer) return;
  unjournalTimer = setTimeout(() => {
    unjournalTimer = 0;
    const keys = [...forgotten];
    forgotten.clear();
    try {
      chrome.storage.session.remove(keys).catch(() => { /* ignore */ });
    } catch (_) { /* no session area */ }
  }, 0);
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
  saveSoon('gasoline_queue', () => {
    stored = queue.total();
    return JSON.stringify(queue.snapshot().queue);
  });
  saveSoon('gasoline_counts', () => queue.snapshot().counts);
}

// Flushes in `delay` ms (never sooner than the current backoff, nor, unless delay is 0, than
// FLUSH_GAP_MS after the last flush began), keeping an earlier flush if one is already due, unless
// both are `quiet`: new events then put it off (accept() caps that at WAIT_MAX_MS after the first).
export function scheduleFlush(delay, quiet = false) {
  if (!started || flushing) return; // flush() reschedules itself when it ends
  const now = Date.now();
  const due = Math.max(now + Math.max(delay, backoff), delay > 0 ? lastFlush + FLUSH_GAP_MS : 0);
  if (flushTimer && flushDue <= due && !(quiet && flushQuiet)) return;
  clearTimeout(flushTimer);
  flushDue = due;
  flushQuiet = quiet;
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
  waitingSince = 0; // what comes from now on waits for the next flush
  toldHolding = false;
  if (queue.total()) lastFlush = Date.now(); // a flush with nothing to send does not hold up the next
  const slow = setTimeout(save, SLOW_MS); // the server is slow to take it: guard it
  let failed = false;
  try {
    for (const kind of KINDS) await flushKind(kind);
    backoff = 0;
  } catch (_) {
    failed = true;
    backoff = nextBackoff(backoff, BACKOFF_MIN, BACKOFF_MAX);
  } finally {
    clearTimeout(slow);
    flushing = false;
    // Written when at risk (a failure), or to clear what an earlier write left behind.
    if (failed || stored) save();
  }
  const left = queue.total();
  const now = urgent && !failed;
  urgent = false;
  if (left) scheduleFlush(failed || (left < FLUSH_AT && !now) ? FLUSH_MS : 0);
}

// One batch to the server, on the worker's socket while it is open, else with a POST: {via, status}
// and, for a 4xx, the problem's {error, message}. The socket saves each batch a request, whose fixed
// cost (~5 ms of CPU across the browser's processes and the server on this project's test machines)
// was the largest part of delivering a busy page's events (issue 12).
async function send(route, body) {
  const onSocket = sendBatch(route, body);
  if (onSocket) return { via: 'socket', ...(await onSocket) };
  const res = await postJSON(route, body);
  const problem = res.status >= 400 && res.status < 500 ? await problemOf(res) : {};
  return { via: 'POST', status: res.status, ...problem };
}

// Sends kind's queue batch by batch; throws when the server cannot take it now.
async function flushKind(kind) {
  const route = ROUTES[kind][0];
  while (queue.size(kind)) {
    const b = queue.batch(kind, batchLimit[kind]);
    let res;
    try {
      res = await send(route, b.body);
    } catch (err) {
      setConnected(false, failure(err));
      throw err;
    }
    if (res.status >= 200 && res.status < 300) {
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
      if (res.error === 'origin_not_accepted') {
        // This install's origin waits for the human's yes in the dashboard: keep the events, retry.
        setConnected(false, res.message);
        throw new Error(res.message);
      }
      // Not retryable (including a single event that is still too large).
      queue.refused(kind, b);
      setLastError(`${res.via} ${route}: HTTP ${res.status} ${res.message || ''}`.trim());
      continue;
    }
    setLastError(`${res.via} ${route}: HTTP ${res.status}`);
    throw new Error(`${res.via} ${route}: HTTP ${res.status}`);
  }
}
