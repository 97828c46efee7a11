// Every request of a captured tab, from the browser's observational webRequest events (no blocking):
// the document, its scripts, stylesheets, images, fonts, media and beacons, with their status, or the
// error that ended them (failed, blocked, aborted). The events come to the worker, so this costs the
// page's main thread nothing.
//
// A fetch or XHR is the page-world hooks' (page/inject-network.js), which give its status, body, phases
// and place in its document's sequence. Of those the worker listens only for failures (background.js:
// a listener that matches a request costs it a hop through the browser and this process, and a busy
// page makes hundreds), which add the network's own error to the hooks' (theirs says "Failed to
// fetch"). The two are joined by tab, method, URL and end time: the browser's copy of a failed fetch or
// XHR waits JOIN_MS for the hooks' entry, and a hooks' entry is remembered REMEMBER_MS for a browser
// copy that comes later. A browser copy nothing joined is listed on its own (a subframe's, or a page
// opened before the extension, has no hooks).
//
// Each entry listed is numbered in a sequence of the worker's own per tab (dc, sq: PROTOCOL.md,
// "Sequence numbers"): what the bounds here drop skips a number, and the server counts it as lost.
// Pure: no chrome.*; background.js feeds it the events and builds it with its deps.

// webRequest's types (Chrome's and Firefox's) as the network list names them.
const TYPES = {
  main_frame: 'document', sub_frame: 'frame', stylesheet: 'stylesheet', script: 'script', image: 'image',
  imageset: 'image', font: 'font', media: 'media', object: 'object', object_subrequest: 'object',
  xmlhttprequest: 'xhr', ping: 'ping', beacon: 'ping', csp_report: 'csp_report', websocket: 'websocket',
  web_manifest: 'manifest', xslt: 'other', xml_dtd: 'other', speculative: 'other', other: 'other',
};
// The types the page-world hooks see too (fetch and XHR are both 'xmlhttprequest').
const HOOKED = new Set(['xmlhttprequest']);
// Errors that mean the page (or the user) cancelled the request rather than the network failing it.
const ABORTED = /ERR_ABORTED|NS_BINDING_ABORTED|NS_ERROR_ABORT/;

export const JOIN_MS = 3000; // a fetch's hooks' entry reaches the worker well within this after its end
// A browser copy a hooks' entry can still join ends within END_TOL_MS of it, and reaches the worker
// about when it ends: no later than this after the hooks' entry came.
export const REMEMBER_MS = 5000;
export const END_TOL_MS = 2000; // the hooks' end (their start and duration) and the browser's differ by this at most
export const INFLIGHT_MAX = 1000; // requests started and not ended (an image that never loads stays)
export const PENDING_MAX = 500; // browser copies waiting for their hooks' entry
export const HOOKS_MAX = 500; // hooks' entries remembered
// Entries listed are handed to the queue together this long after the first: a page's load is then a
// few journal writes (sw/delivery.js), not one per request.
export const BATCH_MS = 100;
export const OUTBOX_MAX = 500; // or at once with this many
// A URL is kept to this many characters (the server keeps 2 KB of it): what is held here stays small
// whatever the page asks for.
const URL_MAX = 8192;
const MIME_MAX = 100;

const stripHash = (u) => {
  const i = typeof u === 'string' ? u.indexOf('#') : -1;
  return (i >= 0 ? u.slice(0, i) : u).slice(0, URL_MAX);
};
const trackable = (url) => /^(https?|file):/i.test(url || '');
// The browser asks for a page's /favicon.ico on its own (for its tab strip, when the page names no icon):
// not a request of the page, and DevTools does not list it; webRequest gives it as the page's image with
// nothing else to tell it apart.
const FAVICON = /^[a-z]+:\/\/[^/?#]+\/favicon\.ico$/i;
const round = (ms) => Math.round(ms * 10) / 10;

/**
 * @typedef {object} RequestsDeps
 * @property {import('./clock.js').Clock} clock
 * @property {(url: string) => string} scrubURL the secret rules' URL scrub (content/scrub.js)
 * @property {(tab: number, page: string, entries: Record<string, unknown>[]) => void} deliver queues a tab's entries
 * @property {(url: string) => boolean} ignored the Gasoline server's own URLs (content/gate.js's serverTest)
 * @property {(tab: number) => string} [tabURL] the tab's URL as the tab tracker knows it (before any commit this life saw)
 * @property {string} [life] this worker life's key (its start time, base 36)
 */

/**
 * @typedef {{tab: number, method: string, url: string, end: number, data: Record<string, any>, at: number, page?: string}} Held
 * @typedef {{tab: number, method: string, url: string, end: number}} Joinable
 */

/**
 * The webRequest types the load listeners take: all the browser has but fetch and XHR, whose successes
 * are the hooks' (a type the browser does not know would make addListener throw).
 * @param {Record<string, string> | undefined} known the browser's webRequest.ResourceType
 * @returns {string[] | undefined} undefined: every type (the browser lists none)
 */
export function loadTypes(known) {
  const all = known && typeof known === 'object' ? Object.values(known).filter((t) => typeof t === 'string') : [];
  return all.length ? all.filter((t) => !HOOKED.has(t)) : undefined;
}

export class Requests {
  /** @param {RequestsDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.life = deps.life || deps.clock.now().toString(36);
    this.inflight = new Map(); // requestId → {start, url, status?, first? (its headers' time)}
    this.pages = new Map(); // tab → its top document's URL
    /** @type {Held[]} */
    this.pending = []; // browser copies of fetch and XHR, oldest first
    /** @type {(Joinable & {at: number})[]} */
    this.hooks = []; // the hooks' entries no browser copy joined yet, oldest first
    this.seqs = new Map(); // tab → the last number given
    this.timer = 0;
    this.outbox = []; // [tab, page, data] listed, not yet handed to the queue
    this.outTimer = 0;
  }

  /**
   * webNavigation.onCommitted, and webRequest.onHeadersReceived of a main_frame: the tab's top document
   * is now at d.url. Its requests can end before the worker hears of the commit (the two APIs' events
   * come by different paths): the answer's headers, which come before the commit among the request
   * events, say it first.
   */
  committed(d) {
    if (d && d.tabId >= 0 && d.frameId === 0 && typeof d.url === 'string') this.pages.set(d.tabId, d.url);
  }

  /** A tab closed. */
  removed(tabId) {
    this.pages.delete(tabId);
    this.seqs.delete(tabId);
  }

  /** webRequest.onBeforeRequest: when it started. */
  started(d) {
    if (!this.wanted(d)) return;
    this.inflight.set(d.requestId, { start: d.timeStamp, url: d.url });
    if (this.inflight.size > INFLIGHT_MAX) this.inflight.delete(this.inflight.keys().next().value);
  }

  /**
   * webRequest.onHeadersReceived: its status, and when its answer began. A request can still fail after
   * it, its status then said nowhere else: Chrome gives up an image whose answer is a 404 page
   * (net::ERR_ABORTED), Firefox a script served as text/plain (NS_ERROR_CORRUPTED_CONTENT).
   */
  responded(d) {
    if (!this.wanted(d)) return;
    if (d.type === 'main_frame') this.committed(d);
    const f = this.inflight.get(d.requestId);
    if (f && f.url === d.url) {
      f.status = d.statusCode;
      f.first = d.timeStamp;
    }
  }

  /** webRequest.onBeforeRedirect: one hop ends with its 3xx; the request goes on at d.redirectUrl. */
  redirected(d) {
    if (!this.wanted(d)) return;
    this.ended(d, { status: d.statusCode });
    this.inflight.set(d.requestId, { start: d.timeStamp, url: d.redirectUrl });
  }

  /** webRequest.onCompleted (with responseHeaders in Chrome, for the size and the media type). */
  completed(d) {
    if (!this.wanted(d)) return;
    const out = { status: d.statusCode };
    const size = typeof d.responseSize === 'number' && d.responseSize > 0 ? d.responseSize : contentLength(d.responseHeaders);
    if (size > 0) out.size = size;
    const mime = mediaType(d.responseHeaders);
    if (mime) out.mime = mime;
    this.ended(d, out);
    this.inflight.delete(d.requestId);
  }

  /** webRequest.onErrorOccurred: failed, blocked or aborted, with the browser's words for it. */
  failed(d) {
    if (!this.wanted(d)) return;
    const error = String(d.error || 'failed');
    this.ended(d, ABORTED.test(error) ? { aborted: true, error } : { failed: true, error });
    this.inflight.delete(d.requestId);
  }

  // A request of a tab's page; never the extension's own (no tab), nor a prerendering page's.
  wanted(d) {
    return !!d && d.tabId >= 0 && typeof d.url === 'string' && d.documentLifecycle !== 'prerender';
  }

  // The tab's top document: the one committed last, else what the tab tracker or Firefox's details say.
  pageOf(d) {
    if (d.frameId === 0 && d.documentUrl) return d.documentUrl; // Firefox names the document
    return this.pages.get(d.tabId) || (this.d.tabURL && this.d.tabURL(d.tabId)) || d.documentUrl || '';
  }

  // One request (or redirect hop) ended: its entry, joined or listed.
  ended(d, out) {
    const f = this.inflight.get(d.requestId);
    const end = d.timeStamp;
    const known = !!f && f.url === d.url; // its start (a fetch's or XHR's is not listened for)
    const start = known ? f.start : end;
    const page = d.type === 'main_frame' ? d.url : this.pageOf(d);
    if ((page && !trackable(page)) || !trackable(d.url) || this.d.ignored(d.url)) return; // not captured
    if (d.type === 'image' && FAVICON.test(d.url)) return;
    /** @type {Record<string, any>} */
    const data = { ts: Math.round(start), method: String(d.method || 'GET').toUpperCase(), url: this.d.scrubURL(d.url).slice(0, URL_MAX),
      type: TYPES[d.type] || 'other', ...out };
    if (known) data.duration_ms = round(Math.max(0, end - start));
    if (known && f.first >= start) {
      if (!data.status && f.status) data.status = f.status;
      // The events say no more than when the answer began: the wait counts the connection too.
      const wait = round(f.first - start);
      const download = round(Math.max(0, end - f.first));
      if (wait > 0 || download > 0) data.timing = { wait, download };
    }
    const held = { tab: d.tabId, method: data.method, url: stripHash(data.url), end, data, at: this.d.clock.now() };
    if (!HOOKED.has(d.type)) {
      this.list(held, page);
      return;
    }
    const i = closest(this.hooks, held);
    if (i >= 0) {
      this.hooks.splice(i, 1); // the hooks listed it already
      return;
    }
    held.page = page;
    this.pending.push(held);
    if (this.pending.length > PENDING_MAX) this.skip(this.pending.shift());
    this.schedule();
  }

  /**
   * The hooks' events of a content script's message ({kind, data}, scrubbed), before they are queued:
   * each fetch or XHR joins the browser's copy of the same request, which adds what the hooks could
   * not see; one whose copy has not ended yet is remembered.
   */
  fromPage(events, tabId) {
    if (!Array.isArray(events) || typeof tabId !== 'number') return;
    const now = this.d.clock.now();
    for (const ev of events) {
      if (!ev || (ev.kind !== 'network' && ev.kind !== 'request') || !ev.data || typeof ev.data.url !== 'string') continue;
      const data = ev.data;
      const end = (Number(data.ts) || now) + (Number(data.duration_ms) || 0);
      const h = { tab: tabId, method: String(data.method || 'GET').toUpperCase(), url: stripHash(data.url), end, at: now };
      const i = closest(this.pending, h);
      if (i < 0) {
        this.hooks.push(h);
        if (this.hooks.length > HOOKS_MAX) this.hooks.shift();
        continue;
      }
      const [b] = this.pending.splice(i, 1);
      enrich(data, b.data);
    }
    this.expire(now);
  }

  // The entry goes to the queue with the tab's next number.
  list(held, page) {
    const n = (this.seqs.get(held.tab) || 0) + 1;
    this.seqs.set(held.tab, n);
    held.data.dc = this.docKey(held.tab);
    held.data.sq = n;
    this.outbox.push([held.tab, page.slice(0, URL_MAX), held.data]);
    if (this.outbox.length >= OUTBOX_MAX) this.handOver();
    else if (!this.outTimer) this.outTimer = this.d.clock.setTimeout(() => this.handOver(), BATCH_MS);
  }

  // The entries listed go to the queue, one message per tab and page.
  handOver() {
    this.d.clock.clearTimeout(this.outTimer);
    this.outTimer = 0;
    const out = this.outbox;
    this.outbox = [];
    let i = 0;
    while (i < out.length) {
      const [tab, page] = out[i];
      const group = [];
      for (; i < out.length && out[i][0] === tab && out[i][1] === page; i++) group.push(out[i][2]);
      this.d.deliver(tab, page, group);
    }
  }

  // Dropped by a bound: its number is skipped, so the server counts the loss.
  skip(held) {
    this.seqs.set(held.tab, (this.seqs.get(held.tab) || 0) + 1);
  }

  // The worker's sequence for the tab: this life's, apart from every document's.
  docKey(tab) {
    return `w${this.life}.${tab}`;
  }

  schedule() {
    if (this.timer || !this.pending.length) return;
    const due = this.pending[0].at + JOIN_MS - this.d.clock.now();
    this.timer = this.d.clock.setTimeout(() => {
      this.timer = 0;
      this.expire(this.d.clock.now());
    }, Math.max(0, due));
  }

  // Browser copies no hooks' entry came for in JOIN_MS are listed; hooks' entries older than
  // REMEMBER_MS are forgotten.
  expire(now) {
    while (this.pending.length && this.pending[0].at + JOIN_MS <= now) {
      const b = /** @type {Held} */ (this.pending.shift()); // the loop's test: there is one
      this.list(b, b.page);
    }
    while (this.hooks.length && this.hooks[0].at + REMEMBER_MS <= now) this.hooks.shift();
    if (this.pending.length && !this.timer) this.schedule();
  }

  /** What is held here, for status(). */
  stats() {
    return { inflight: this.inflight.size, pending: this.pending.length + this.outbox.length, remembered: this.hooks.length };
  }
}

// The index of the entry of list that is the same request as r (same tab, method and URL, ended
// within END_TOL_MS), the nearest in time; -1 if none. The end, because of a fetch or XHR the browser
// tells the worker only how it ended.
/** @param {Joinable[]} list @param {Joinable} r */
function closest(list, r) {
  let best = -1;
  let gap = END_TOL_MS;
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x.tab !== r.tab || x.method !== r.method || x.url !== r.url) continue;
    const g = Math.abs(x.end - r.end);
    if (g <= gap) {
      best = i;
      gap = g;
    }
  }
  return best;
}

// What the browser saw that the hooks could not: the status of a request the page was refused (a
// CORS failure has one), and the network's error beside the page's.
function enrich(data, b) {
  if (!data.status && b.status) data.status = b.status;
  if ((data.failed || data.aborted) && b.error && !String(data.error || '').includes(b.error)) {
    data.error = data.error ? `${data.error} (${b.error})` : b.error;
  }
}

/** @param {unknown} headers @param {string} name lower case @returns {string} the header's value, or '' */
function header(headers, name) {
  if (!Array.isArray(headers)) return '';
  for (const h of headers) {
    if (h && typeof h.name === 'string' && h.name.toLowerCase() === name) return typeof h.value === 'string' ? h.value : '';
  }
  return '';
}

function contentLength(headers) {
  const n = Number(header(headers, 'content-length'));
  return Number.isFinite(n) && n > 0 ? n : 0;
}

// The response's media type without its parameters (`text/css`), as a HAR's mimeType has it.
function mediaType(headers) {
  const t = header(headers, 'content-type').split(';')[0].trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(t) ? t.slice(0, MIME_MAX) : '';
}
