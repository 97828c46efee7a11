// The worker's buffer of captured events, waiting for the server: one FIFO per kind, bounded in total,
// the oldest event of any kind dropped first and counted. Pure: no chrome.*, so Node tests import it.

import { NETWORK_ENTRY_FIELDS, NETWORK_BODY_FIELDS } from '../generated/constants.mjs';

// kind → route and body key, in delivery order.
export const ROUTES = Object.freeze({
  log: ['/logs', 'entries'],
  network: ['/network', 'entries'],
  body: ['/network-bodies', 'bodies'],
  ws: ['/websocket-events', 'events'],
  action: ['/actions', 'actions'],
  performance: ['/performance', 'entries'],
});
export const KINDS = Object.keys(ROUTES);

/** Events the worker holds at most while the server is away (documented in README and PROTOCOL.md). */
export const QUEUE_MAX = 2000;
export const BATCH_MAX = 500; // events per POST (the server takes up to 1000)
const BATCH_BYTES = 1 << 20; // bytes per POST (the server takes up to 5 MiB)

export const isErrorLog = (d) => d.kind === 'exception' || d.kind === 'rejection' || d.level === 'error';

/**
 * Keeps the well-formed events of a content script's message and stamps each with the sender's tab id
 * and page URL, and a time if it has none. Returns [{kind, data}].
 */
export function stampEvents(events, sender, now) {
  const out = [];
  if (!Array.isArray(events)) return out;
  const tab = sender && sender.tab;
  const stamp = (kind, data) => {
    if (tab) {
      if (typeof tab.id === 'number' && tab.id >= 0) data.tab = tab.id;
      const page = tab.url || sender.url;
      if (page) data.page = page;
    }
    if (typeof data.ts !== 'number') data.ts = now;
    out.push({ kind, data });
  };
  for (const ev of events) {
    if (!ev || !ev.data || typeof ev.data !== 'object' || Array.isArray(ev.data)) continue;
    if (ev.kind === 'request') {
      const [network, body] = splitRequest(ev.data);
      stamp('network', network);
      stamp('body', body);
    } else if (Object.hasOwn(ROUTES, ev.kind)) stamp(ev.kind, ev.data);
  }
  return out;
}

// A 'request' event (a fetch or XHR with its body, one event on its way from the page) as its
// network entry and its body entry: each the fields its Go type has (generated/constants.mjs).
const splitRequest = (d) => [pick(d, NETWORK_ENTRY_FIELDS), pick(d, NETWORK_BODY_FIELDS)];

function pick(d, fields) {
  const out = {};
  for (const k of fields) if (d[k] !== undefined) out[k] = d[k];
  return out;
}

/** @typedef {{s: number, d: Record<string, any>, j?: string}} QueueItem an event (d), its sequence number and journal entry */

export class EventQueue {
  constructor(max = QUEUE_MAX) {
    this.max = max;
    this.seq = 0;
    /** @type {Record<string, QueueItem[]>} */
    this.queues = Object.fromEntries(KINDS.map((k) => [k, []])); // items {s: seq, d: data}
    this.counts = Object.fromEntries(KINDS.map((k) => [k, { sent: 0, dropped: 0 }]));
    // Events dropped because the buffer was full, not yet told to the server.
    this.unreported = 0;
    // Called with the items that leave the queue (delivered, refused or dropped at the bound).
    /** @type {((items: QueueItem[]) => void) | null} */
    this.gone = null;
  }

  size(kind) {
    return this.queues[kind].length;
  }

  total() {
    return KINDS.reduce((n, k) => n + this.queues[k].length, 0);
  }

  /** Queues one event (j: the journal entry it is written in, if any); returns its sequence number.
   * Over max, the oldest event of any kind goes. */
  push(kind, data, j) {
    const s = this.seq++;
    this.queues[kind].push(j ? { s, d: data, j } : { s, d: data });
    while (this.total() > this.max) {
      /** @type {string | null} */
      let oldest = null;
      for (const k of KINDS) {
        const head = this.queues[k][0];
        if (head && (!oldest || head.s < this.queues[oldest][0].s)) oldest = k;
      }
      if (oldest === null) break; // a max below 0: nothing left to drop
      const out = /** @type {QueueItem} */ (this.queues[oldest].shift()); // oldest names a queue with a head
      if (this.gone) this.gone([out]);
      this.counts[oldest].dropped++;
      this.unreported++;
    }
    return s;
  }

  /**
   * One POST body from the head of kind's queue: at most limit events and about maxBytes, never empty
   * while the queue is not. It carries the unreported drop count as "dropped".
   */
  batch(kind, limit = BATCH_MAX, maxBytes = BATCH_BYTES) {
    const [, key] = ROUTES[kind];
    const items = [];
    const parts = [];
    let bytes = 0;
    for (const it of this.queues[kind]) {
      if (items.length >= limit) break;
      const j = JSON.stringify(it.d);
      if (items.length && bytes + j.length > maxBytes) break;
      items.push(it);
      parts.push(j);
      bytes += j.length + 1;
    }
    const dropped = this.unreported;
    const tail = dropped ? `,"dropped":${dropped}` : '';
    return { items, dropped, body: `{"${key}":[${parts.join(',')}]${tail}}` };
  }

  /**
   * The server stored the batch: its events leave the queue, its drop count was told. An event the
   * bound pushed out while its batch was in flight was delivered after all: it is no longer a drop.
   */
  delivered(kind, b) {
    const before = this.queues[kind].length;
    this.remove(kind, b.items);
    const late = b.items.length - (before - this.queues[kind].length);
    this.counts[kind].sent += b.items.length;
    this.counts[kind].dropped -= late;
    this.unreported = Math.max(0, this.unreported - b.dropped - late);
  }

  /** The server refused the batch for good: its events are dropped (and counted, by the server too). */
  refused(kind, b) {
    this.remove(kind, b.items);
    this.counts[kind].dropped += b.items.length;
  }

  remove(kind, items) {
    const gone = new Set(items);
    const left = [];
    const out = [];
    for (const it of this.queues[kind]) (gone.has(it) ? out : left).push(it);
    this.queues[kind] = left;
    if (this.gone && out.length) this.gone(out);
  }

  /** Whether an event with sequence number ≤ s is still waiting in kind's queue. */
  holds(kind, s) {
    return this.queues[kind].some((it) => it.s <= s);
  }

  stats() {
    return Object.fromEntries(KINDS.map((k) => [k, { ...this.counts[k], queued: this.queues[k].length }]));
  }

  /** What survives a worker restart. */
  snapshot() {
    return { queue: this.queues, counts: { ...this.counts, unreported: this.unreported } };
  }

  /** A previous life's queue: its stored snapshot, and the journal's entries ([[kind, s, data, j]],
   * each written as it came) that the snapshot may not have; an event in both is taken once. */
  restore(queue, counts, journal = []) {
    const q = queue || {};
    const seen = new Set();
    for (const k of KINDS) {
      if (Array.isArray(q[k])) this.queues[k] = q[k].filter((it) => it && typeof it.s === 'number' && it.d);
      for (const it of this.queues[k]) seen.add(it.s);
    }
    const late = new Set();
    for (const [k, s, d, j] of journal) {
      if (!Object.hasOwn(ROUTES, k) || typeof s !== 'number' || !d || seen.has(s)) continue;
      seen.add(s);
      this.queues[k].push({ s, d, j });
      late.add(k);
    }
    for (const k of KINDS) {
      if (late.has(k)) this.queues[k].sort((a, b) => a.s - b.s);
      for (const it of this.queues[k]) this.seq = Math.max(this.seq, it.s + 1);
    }
    const c = counts || {};
    for (const k of KINDS) {
      if (c[k]) this.counts[k] = { sent: Number(c[k].sent) || 0, dropped: Number(c[k].dropped) || 0 };
    }
    this.unreported = Number(c.unreported) || 0;
  }
}
