// Delivery of captured events to the server, in order: queued per kind (queue.js), flushed once no
// event has come for FLUSH_MS (or WAIT_MAX_MS after the first waiting one, or at once at FLUSH_AT
// queued or with a document's first error), retried with backoff while the server is away.
//
// Each message's events are journaled in chrome.storage.session as they come (a write the size of
// the message, removed once they are delivered), so a worker stopped, crashed or updated while it
// holds them loses none. The whole queue is written only while it is at risk: while the server is
// away (every message, at once) and when a flush has been on the wire for SLOW_MS: each such write
// copies the whole queue through the browser process, the largest part of the extension's cost on a
// busy page (PERFORMANCE.md). background.js builds the one Delivery from the storage, the clock, the
// link and the channel it uses.
import { EventQueue, KINDS, ROUTES, BATCH_MAX, isErrorLog, stampEvents } from './queue.js';
import { nextBackoff } from './backoff.js';
import { problemOf } from './link.js';

// A flush waits until no event has come for FLUSH_MS, at most WAIT_MAX_MS after the first event it
// carries: a delivery costs the browser's processes and the server CPU on the cores the page runs on,
// so it goes once the page has stopped producing events, not in the middle of its work.
// FLUSH_MS is longer than a content script's batching (200 ms, then up to 100 ms of idle wait), so
// a page whose events keep coming is not taken for a quiet one between two of its batches.
const FLUSH_MS = 400;
const WAIT_MAX_MS = 2000;
// And flushes start at most this often: each costs the browser's network service CPU whatever its size.
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
// The journal's keys in chrome.storage.session: one entry per message (see Delivery.accept).
const JOURNAL = 'gasoline_j:';
const UPDATE_KEY = 'gasoline_update_queue'; // chrome.storage.local: what one version hands the next

/**
 * @typedef {object} DeliveryDeps
 * @property {{session: chrome.storage.StorageArea, local: chrome.storage.StorageArea}} storage
 * @property {import('./clock.js').Clock} clock
 * @property {{postJSON(path: string, body: string): Promise<Response>, failure(err: unknown): string,
 *   setConnected(ok: boolean, err?: unknown): void, isConnected(): boolean, setLastError(text: string): void}} link
 * @property {{sendBatch(route: string, body: string): Promise<BatchAck> | null, tellHolding(): boolean}} channel
 * @property {(key: string, value: () => unknown) => void} save the session store's saveSoon
 */

export class Delivery {
  /** @param {DeliveryDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.queue = new EventQueue();
    this.queue.gone = (items) => this.forget(items);
    this.batchLimit = Object.fromEntries(KINDS.map((k) => [k, BATCH_MAX]));
    this.errorDocs = new Set();
    this.started = false; // flushes wait for start(): the stored queue must be read first
    this.flushing = false;
    this.flushTimer = 0;
    this.flushDue = 0;
    this.flushQuiet = false; // the flush due waits for the events to stop
    this.backoff = 0;
    this.flushRun = null; // the flush in progress
    this.lastFlush = 0; // when the last flush started
    this.stored = 0; // events in the queue as last written (0: nothing to guard or clear)
    this.waitingSince = 0; // when the first event no flush has taken yet came (0: none)
    this.toldHolding = false; // the server was told this flush is being put off (tellHolding)
    this.urgent = false; // a first error came while a flush ran: the next one goes at once
    // The journal: each message's events are written to chrome.storage.session as they come, one
    // small entry per message under a key of its own (a write costs the browser process about what
    // the message itself did), and the entry is removed once none of its events is queued any more. A
    // worker stopped, crashed or updated while it held events finds them there when it starts again
    // (restore). The whole queue is written only while it is at risk (save).
    this.life = deps.clock.now().toString(36); // keys of one life never meet another's
    this.journalN = 0;
    this.journal = new Map(); // entry key → its events still queued
    this.forgotten = new Set(); // entry keys to remove
    this.unjournalTimer = 0;
  }

  /**
   * Queues the events of a content script's message. Returns the error logs among them as
   * [{data, seq}] (a screenshot may be taken of them).
   */
  accept(events, sender) {
    const errors = [];
    const now = this.d.clock.now();
    const stamped = stampEvents(events, sender, now);
    const j = stamped.length ? `${JOURNAL}${this.life}:${this.journalN++}` : '';
    const entry = [];
    let first = false;
    for (const { kind, data } of stamped) {
      const s = this.queue.push(kind, data, j);
      entry.push([kind, s, data]);
      if (kind === 'log' && isErrorLog(data)) {
        errors.push({ data, seq: s });
        if (this.firstError(data.dc)) first = true;
      }
    }
    if (j) this.journalWrite(j, entry);
    // While the server is away the next flush waits out the backoff, seconds in which a stopped
    // worker would lose what only memory holds: write now (writes coalesce within a tick).
    if (this.backoff > 0) this.save();
    if (!this.waitingSince) this.waitingSince = now;
    if (this.queue.total() >= FLUSH_AT || first) {
      if (first && this.flushing) this.urgent = true;
      this.scheduleFlush(0);
    } else {
      // A quiet flush already due is put off by these events: the server is told once, so that what
      // the AI reads meanwhile asks for them first (deliverHeld).
      if (this.flushTimer && this.flushQuiet && !this.toldHolding) this.toldHolding = this.d.channel.tellHolding();
      this.scheduleFlush(Math.max(0, Math.min(FLUSH_MS, this.waitingSince + WAIT_MAX_MS - now)), true);
    }
    return errors;
  }

  // Whether this is the first error of document dc (the content script's key for it) the worker saw.
  firstError(dc) {
    if (typeof dc !== 'string' || !dc || this.errorDocs.has(dc)) return false;
    this.errorDocs.add(dc);
    if (this.errorDocs.size > ERROR_DOCS_MAX) this.errorDocs.delete(this.errorDocs.values().next().value);
    return true;
  }

  /**
   * Delivers everything queued now, whatever the timing rules, and resolves with what is left queued
   * (0 unless the server refused or went away): the server asks before the AI reads what was captured,
   * so holding events while a page is busy never hides them from it.
   */
  async deliverHeld() {
    if (this.started) {
      await this.flush();
      if (this.queue.total()) await this.flush(); // what came while the flush in progress ran
    }
    return { queued: this.queue.total() };
  }

  /** Per-kind {sent, dropped, queued}, the total queued and how many of them are written down, for the popup. */
  stats() {
    return { counts: this.queue.stats(), queued: this.queue.total(), stored: this.stored };
  }

  /** Start-up: the queue a previous life of the worker stored, then flushing may begin. */
  restore(session, carried = []) {
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
    this.queue.restore(saved, session.gasoline_counts, entries);
    this.stored = this.queue.total(); // cleared from storage once delivered
    for (const k of KINDS) for (const it of this.queue.queues[k]) if (it.j) this.journal.set(it.j, (this.journal.get(it.j) || 0) + 1);
    for (const k of keys) if (!this.journal.has(k)) this.forgotten.add(k);
    if (this.forgotten.size) this.unjournalSoon();
    if (entries.length && carried.length) this.save();
  }

  /** The extension is about to be updated, which clears chrome.storage.session: what is held is
   * delivered now, and what the server cannot take is kept in chrome.storage.local for the next version
   * (takeUpdateQueue). */
  async handOverForUpdate() {
    if (this.started) await this.deliverHeld();
    if (!this.queue.total()) return;
    const entries = [];
    for (const k of KINDS) for (const it of this.queue.queues[k]) entries.push([k, it.s, it.d]);
    entries.sort((a, b) => a[1] - b[1]);
    try {
      await this.d.storage.local.set({ [UPDATE_KEY]: JSON.stringify(entries) });
    } catch (_) { /* over the quota: lost, and the server counts it by the numbers */ }
  }

  /** What the previous version left for this one ([[kind, seq, data]]), read once and removed. */
  async takeUpdateQueue() {
    try {
      const v = (await this.d.storage.local.get(UPDATE_KEY))[UPDATE_KEY];
      if (typeof v !== 'string') return [];
      await this.d.storage.local.remove(UPDATE_KEY);
      const entries = JSON.parse(v);
      return Array.isArray(entries) ? entries : [];
    } catch (_) {
      return [];
    }
  }

  journalWrite(key, entry) {
    this.journal.set(key, entry.length);
    try {
      this.d.storage.session.set({ [key]: JSON.stringify(entry) }).catch(() => { /* over the quota: the queue's own save guards it */ });
    } catch (_) { /* no session area */ }
  }

  forget(items) {
    for (const it of items) {
      if (!it.j) continue;
      const n = (this.journal.get(it.j) || 1) - 1;
      if (n > 0) this.journal.set(it.j, n);
      else {
        this.journal.delete(it.j);
        this.forgotten.add(it.j);
      }
    }
    if (this.forgotten.size) this.unjournalSoon();
  }

  unjournalSoon() {
    if (this.unjournalTimer) return;
    this.unjournalTimer = this.d.clock.setTimeout(() => {
      this.unjournalTimer = 0;
      const keys = [...this.forgotten];
      this.forgotten.clear();
      try {
        this.d.storage.session.remove(keys).catch(() => { /* ignore */ });
      } catch (_) { /* no session area */ }
    }, 0);
  }

  start() {
    this.started = true;
    this.scheduleFlush(0);
  }

  /** The server answers again: retry at once. */
  retryNow() {
    this.backoff = 0;
    this.scheduleFlush(0);
  }

  // The queue is stored as one JSON string: the storage API copies a string through the browser
  // process far more cheaply than the same events as objects.
  save() {
    this.d.save('gasoline_queue', () => {
      this.stored = this.queue.total();
      return JSON.stringify(this.queue.snapshot().queue);
    });
    this.d.save('gasoline_counts', () => this.queue.snapshot().counts);
  }

  // Flushes in `delay` ms (never sooner than the current backoff, nor, unless delay is 0, than
  // FLUSH_GAP_MS after the last flush began), keeping an earlier flush if one is already due, unless
  // both are `quiet`: new events then put it off (accept() caps that at WAIT_MAX_MS after the first).
  scheduleFlush(delay, quiet = false) {
    if (!this.started || this.flushing) return; // flush() reschedules itself when it ends
    const { clock } = this.d;
    const now = clock.now();
    const due = Math.max(now + Math.max(delay, this.backoff), delay > 0 ? this.lastFlush + FLUSH_GAP_MS : 0);
    if (this.flushTimer && this.flushDue <= due && !(quiet && this.flushQuiet)) return;
    clock.clearTimeout(this.flushTimer);
    this.flushDue = due;
    this.flushQuiet = quiet;
    this.flushTimer = clock.setTimeout(() => this.flush(), Math.max(0, due - now));
  }

  /** Delivers the queues; resolves when this flush (or the one already running) ends. */
  flush() {
    this.d.clock.clearTimeout(this.flushTimer);
    this.flushTimer = 0;
    if (!this.flushRun) this.flushRun = this.flushQueues().finally(() => { this.flushRun = null; });
    return this.flushRun;
  }

  /** Delivers the log queue up to and including event seq (a few tries). */
  async deliverLogsThrough(seq) {
    for (let i = 0; i < 3 && this.queue.holds('log', seq); i++) await this.flush();
  }

  async flushQueues() {
    if (this.flushing) return;
    const { clock } = this.d;
    this.flushing = true;
    this.waitingSince = 0; // what comes from now on waits for the next flush
    this.toldHolding = false;
    if (this.queue.total()) this.lastFlush = clock.now(); // a flush with nothing to send does not hold up the next
    const slow = clock.setTimeout(() => this.save(), SLOW_MS); // the server is slow to take it: guard it
    let failed = false;
    try {
      for (const kind of KINDS) await this.flushKind(kind);
      this.backoff = 0;
    } catch (_) {
      failed = true;
      this.backoff = nextBackoff(this.backoff, BACKOFF_MIN, BACKOFF_MAX);
    } finally {
      clock.clearTimeout(slow);
      this.flushing = false;
      // Written when at risk (a failure), or to clear what an earlier write left behind.
      if (failed || this.stored) this.save();
    }
    const left = this.queue.total();
    const now = this.urgent && !failed;
    this.urgent = false;
    if (left) this.scheduleFlush(failed || (left < FLUSH_AT && !now) ? FLUSH_MS : 0);
  }

  // One batch to the server, on the worker's socket while it is open, else with a POST: {via, status}
  // and, for a 4xx, the problem's {error, message}. The socket saves each batch a request, whose fixed
  // cost was the largest part of delivering a busy page's events.
  async send(route, body) {
    const onSocket = this.d.channel.sendBatch(route, body);
    if (onSocket) return { via: 'socket', ...(await onSocket) };
    const res = await this.d.link.postJSON(route, body);
    const problem = res.status >= 400 && res.status < 500 ? await problemOf(res) : {};
    return { via: 'POST', status: res.status, ...problem };
  }

  // Sends kind's queue batch by batch; throws when the server cannot take it now.
  async flushKind(kind) {
    const { link } = this.d;
    const route = ROUTES[kind][0];
    while (this.queue.size(kind)) {
      const b = this.queue.batch(kind, this.batchLimit[kind]);
      let res;
      try {
        res = await this.send(route, b.body);
      } catch (err) {
        link.setConnected(false, link.failure(err));
        throw err;
      }
      if (res.status >= 200 && res.status < 300) {
        this.queue.delivered(kind, b);
        this.batchLimit[kind] = BATCH_MAX;
        if (!link.isConnected()) link.setConnected(true);
        continue;
      }
      if (res.status === 413 && b.items.length > 1) {
        this.batchLimit[kind] = Math.max(1, Math.floor(b.items.length / 2));
        continue;
      }
      if (res.status >= 400 && res.status < 500 && res.status !== 429) {
        if (res.error === 'origin_not_accepted') {
          // This install's origin waits for the human's yes in the dashboard: keep the events, retry.
          link.setConnected(false, res.message);
          throw new Error(res.message);
        }
        // Not retryable (including a single event that is still too large).
        this.queue.refused(kind, b);
        link.setLastError(`${res.via} ${route}: HTTP ${res.status} ${res.message || ''}`.trim());
        continue;
      }
      link.setLastError(`${res.via} ${route}: HTTP ${res.status}`);
      throw new Error(`${res.via} ${route}: HTTP ${res.status}`);
    }
  }
}
