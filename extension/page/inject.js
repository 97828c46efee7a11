// Gasoline: page-world capture (MAIN world, document_start, top frame), part 1 of 5.
//
// The manifest runs serialize.js, inject.js, inject-console.js, inject-bodies.js,
// inject-network.js and inject-ws.js in that order, before any page script. They wrap console,
// error/unhandledrejection, fetch, XMLHttpRequest, WebSocket and
// history.pushState/replaceState and hand what they see to content.js over a
// private EventTarget (see PROTOCOL.md).
//
// This file holds what the others share: our own references to built-ins,
// the link, the settings gates and the queue. The others find it under
// SHARED on window; the last file deletes that property, so nothing of ours
// is left where the page can reach it.
//
// Cost to the page is the design constraint (PERFORMANCE.md). A hook does only
// what must happen during the page's call (a level check, a timestamp, a
// reference to the arguments) and queues a raw record; turning records
// into entries (previews, stacks, headers) and posting them happens when
// the page is idle (COALESCE_MS after the first record, then at most
// FLUSH_MS more), in slices of at most SLICE_MS, or all at once when
// QUEUE_MAX records are waiting or the page is left.
// Every hook is wrapped in try/catch: capture must never change what the
// page observes.
//
// Each file ends with a `//# sourceURL` that is not a chrome-extension://
// URL. Chromium treats a console call made from a script at an extension URL
// as the extension's own message and records it for the extension's error
// console, stack trace and all, on every console call that goes through our
// wrapper (PERFORMANCE.md). Under a plain name the call costs what the page's
// own does.
(() => {
  'use strict';

  const W = window;
  const SHARED = '__gasolineInject';
  const COALESCE_MS = 50;
  const FLUSH_MS = 50;
  const SLICE_MS = 4; // longest stretch of idle-time building
  const SLICE_CHECK = 20; // records built between looks at the clock
  const QUEUE_MAX = 2000; // records, as many as the worker holds; a page that logs more in one task pays the build as it goes
  const STACK_MAX = 4000;
  const PREVIEW_MAX = 500;
  const LEVELS = ['debug', 'log', 'info', 'warn', 'error'];
  const LEVEL_MASK = { all: 31, warn: 24, error: 16 }; // bit i is LEVELS[i]

  // The serialiser page/serialize.js left for us (and nobody else: taken off window at once).
  const serialize = (() => {
    const f = W.__gasolineSerializer;
    try { delete W.__gasolineSerializer; } catch (_) { /* ignore */ }
    return typeof f === 'function' ? /** @type {GasolineSerialize} */ (f(null)) : null;
  })();

  // Our own references, taken before the page can replace them.
  const dateNow = Date.now.bind(Date);
  const perfNow = performance.now.bind(performance);
  const jsonStringify = JSON.stringify;
  const jsonParse = JSON.parse;
  const objectKeys = Object.keys;
  const isArray = Array.isArray;
  const isView = ArrayBuffer.isView;
  const URLCtor = W.URL;
  const BlobCtor = W.Blob;
  const idle = typeof W.requestIdleCallback === 'function' ? W.requestIdleCallback.bind(W) : null;
  const later = setTimeout.bind(W);
  const microtask = queueMicrotask.bind(W);

  const G = {
    W,
    dateNow,
    perfNow,
    jsonStringify,
    jsonParse,
    objectKeys,
    apply: Reflect.apply,
    then: Promise.prototype.then, // apply(then, p, [ok, fail]): a page's own Promise.prototype.then is never called
    isArray,
    isView,
    addEL: EventTarget.prototype.addEventListener,
    removeEL: EventTarget.prototype.removeEventListener,
    URLCtor,
    LEVELS,
    binaryLength(b) {
      if (b instanceof ArrayBuffer || isView(b)) return b.byteLength;
      if (BlobCtor && b instanceof BlobCtor) return b.size;
      return -1;
    },
    // Gates, recomputed when content.js sends the effective settings. Until
    // then capture everything, so errors from the page's first line are kept.
    logMask: 31,
    // The log_level logMask stands for, named in the count of what it left out (inject-console.js).
    logLevel: 'all',
    bodies: true,
    wsLifecycle: true,
    wsMessages: true,
    serverHosts: new Set(),
    // Re-entrancy guard: our own work (a getter run while previewing) is not captured.
    busy: false,
  };

  function uuid() {
    try {
      if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
    } catch (_) { /* insecure context */ }
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  G.uuid = uuid;

  // The UTF-8 length of s, without encoding it.
  G.utf8Length = (s) => {
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) { n += 4; i++; } else n += 3;
    }
    return n;
  };

  // Functions the other parts register to be told of something (the settings changing, the page
  // being left); run in order, one part's failure is not the others'.
  function hooks() {
    const fns = [];
    return {
      add: (fn) => { fns.push(fn); },
      run: (arg) => {
        for (const fn of fns) {
          try { fn(arg); } catch (_) { /* ignore */ }
        }
      },
    };
  }

  // ---- link to content.js ----------------------------------------------------

  // The link to the isolated world is an EventTarget of our own, handed to content/start.js in one
  // event dispatched on window now, before any page script runs (start.js, run before this file,
  // takes it and stops the event; PROTOCOL.md). The page holds no reference to it, so it can neither
  // listen on it nor post to it. Messages on it are delivered at once, in the poster's task, with no
  // ports to create and no round through the browser's message pipes (PERFORMANCE.md).
  // A detail crosses between the worlds by copy; the settings come as JSON text, which both
  // browsers pass between worlds as it is.
  const CustomEventCtor = W.CustomEvent;
  const dispatch = EventTarget.prototype.dispatchEvent;
  // CustomEvent.prototype has its detail accessor.
  const detailOf = /** @type {NonNullable<PropertyDescriptor['get']>} */ (/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(CustomEventCtor.prototype, 'detail')).get);
  /** @type {((m: LinkMessage) => boolean) | null} */
  let post = null;

  function applySettings(s) {
    G.logMask = LEVEL_MASK[s.log_level] || LEVEL_MASK.error;
    G.logLevel = LEVEL_MASK[s.log_level] ? s.log_level : 'error';
    G.bodies = s.network_bodies !== false;
    G.wsLifecycle = s.ws_mode !== 'off';
    G.wsMessages = s.ws_mode === 'messages';
    G.serverHosts = new Set(isArray(s.server_hosts) ? s.server_hosts : []); // content/gate.js's list
    forgetResolved();
    settingsHooks.run();
  }
  // The parts that act on a change of the gates (inject-ws.js listens to a socket's messages only
  // while they are captured).
  const settingsHooks = hooks();
  G.onSettings = settingsHooks.add;

  try {
    const link = new EventTarget();
    G.addEL.call(link, 'gasoline-settings', (e) => {
      let s;
      try { s = jsonParse(G.apply(detailOf, e, [])); } catch (_) { return; }
      if (!s || typeof s !== 'object') return;
      heard = true;
      applySettings(s);
    });
    G.addEL.call(link, 'gasoline-flush', () => flushAll()); // an AI action's answer is due
    const hello = new W.FocusEvent('gasoline-hello', { relatedTarget: link, cancelable: true });
    // Not taken: no start.js in this document, and nothing to post to.
    if (!G.apply(dispatch, W, [hello])) {
      post = (m) => G.apply(dispatch, link, [new CustomEventCtor('gasoline', { detail: m })]);
    }
  } catch (_) {
    post = null;
  }

  // The worker runs the content script at the load, or 1 s after the commit; with no settings from it
  // MISSED_MS after the first record, it missed this document: content/start.js is told, and asks for
  // it (up to ASKS_MAX times, MISSED_MS apart). Armed by the first record (G.arm, with the leave
  // listeners below), not at document_start: a document's first timer has a cost of its own
  // (PERFORMANCE.md), which the queue's own timer pays then anyway; a document with nothing to
  // capture has nothing to lose.
  const MISSED_MS = 3000;
  const ASKS_MAX = 3;
  let heard = false;
  let asks = 0;
  let armed = false;
  const askIfMissed = () => {
    if (heard || !post || asks >= ASKS_MAX) return;
    asks++;
    later(askIfMissed, MISSED_MS);
    try { post({ type: 'missed' }); } catch (_) { /* ignore */ }
  };

  // ---- the queue -----------------------------------------------------------------
  // Flat triples (kind, build, raw): build(raw) makes the entry at flush
  // time and may return null to drop it. build is one of the hooks' cached
  // functions, never a closure made per call.

  let queue = [];
  let scheduled = false;

  // Builds and posts what is queued. In an idle period it works for at most
  // SLICE_MS, posts that, and leaves the rest for the next idle period, so a
  // burst's build never holds up a page task (a fetch's answer, a message)
  // for long; forced (leaving the page, a full queue) it does everything.
  function flush(force) {
    scheduled = false;
    if (!queue.length) return;
    const all = force === true;
    const until = perfNow() + SLICE_MS;
    const items = queue;
    const events = [];
    let i = 0;
    G.busy = true;
    try {
      for (; i < items.length; i += 3) {
        if (!all && i > 0 && i % (3 * SLICE_CHECK) === 0 && perfNow() >= until) break;
        let data = null;
        try { data = items[i + 1](items[i + 2]); } catch (_) { data = null; }
        if (data) events.push({ kind: items[i], data });
      }
    } finally {
      G.busy = false;
    }
    queue = i < items.length ? items.slice(i) : [];
    if (queue.length) {
      scheduled = true;
      flushWhenIdle();
    }
    if (!events.length || !post) return;
    try {
      post(linkMessage(events));
    } catch (_) { /* never throw into the page */ }
  }

  // The events go as one JSON string: copying a string into the other world costs next to nothing,
  // far less than the structured clone of the entries (PERFORMANCE.md). Unless the page gave a
  // prototype a toJSON, which JSON.stringify would
  // call on our entries: then the structured clone, which runs no page code.
  const PROTOS = [Object.prototype, Array.prototype, String.prototype, Number.prototype, Boolean.prototype];
  const toJSONGiven = () => {
    for (const p of PROTOS) if (/** @type {{toJSON?: unknown}} */ (p).toJSON !== undefined) return true;
    return false;
  };
  function linkMessage(events) {
    const m = toJSONGiven() ? { events } : { n: events.length, json: jsonStringify(events) };
    if (G.leaving) m.leaving = true; // content/start.js hands what it holds to the worker then
    return m;
  }

  // Records gather for COALESCE_MS (each message content.js sends the worker
  // costs the page's thread), then wait for idle time, at most FLUSH_MS more.
  const flushWhenIdle = () => (idle ? idle(flush, { timeout: FLUSH_MS }) : flush());
  const flushAll = () => flush(true);

  G.enqueue = (kind, build, raw) => {
    if (!post) return;
    if (!armed) G.arm();
    queue.push(kind, build, raw);
    if (queue.length >= QUEUE_MAX * 3) flushAll(); // bounded
    else if (!scheduled) {
      scheduled = true;
      // Being left, the page posts at the end of this task, in one message with what else it queues.
      if (G.leaving) microtask(flushAll);
      else later(flushWhenIdle, COALESCE_MS);
    }
  };
  const ready = (data) => data;
  G.emit = (kind, data) => G.enqueue(kind, ready, data); // data already built

  // Leaving the page. At beforeunload the other parts finish what they wait
  // for (G.onLeave) and what is queued is posted; from then on records are
  // posted at the end of the task that queued them, each message marked
  // leaving (content/start.js, if content.js has not come, hands what it
  // holds to the worker with it): the content script's message to the
  // worker still leaves between beforeunload and the next document's
  // commit, not always after pagehide. pagehide (also a page leaving
  // without beforeunload) is a last try. A page back from the back/forward
  // cache is not being left any more (one whose beforeunload was cancelled
  // still is).
  const leaveHooks = hooks();
  G.onLeave = leaveHooks.add;
  G.leaving = false;
  const leave = (last) => {
    G.leaving = true;
    leaveHooks.run(last);
    flushAll();
  };

  // G.arm is called by the first record (a queued entry, a response whose body is awaited). The leave
  // listeners wait for it too: a document's first beforeunload listener costs its load (the browser
  // is told the frame has one; PERFORMANCE.md), and a document that recorded nothing has nothing to
  // send.
  G.arm = () => {
    if (armed || !post) return;
    armed = true;
    later(askIfMissed, MISSED_MS);
    try {
      G.addEL.call(W, 'beforeunload', () => leave(false), true);
      G.addEL.call(W, 'pagehide', () => leave(true), true);
      G.addEL.call(W, 'pageshow', (e) => { if (e.persisted) G.leaving = false; }, true);
      // A frozen page runs no timers and may be discarded frozen: what is queued goes at once.
      G.addEL.call(document, 'freeze', flushAll, true);
    } catch (_) { /* ignore */ }
  };

  // ---- URLs ------------------------------------------------------------------------

  // resolve parses url against the page; ignored is true for the server's
  // own traffic and the extension's. A page asks for the same few URLs again
  // and again: the last RESOLVED_MAX answers are kept (a parse cost a fetch
  // ~25 µs during the page's call), forgotten when the server changes.
  const RESOLVED_MAX = 256;
  const KEY_MAX = 2048; // a longer URL (a data: URL) is parsed each time, not kept
  let resolved = new Map(); // base + '\n' + url → {url, ignored}
  G.resolve = (url) => {
    const base = W.location.href;
    const key = typeof url === 'string' && url.length <= KEY_MAX ? `${base}\n${url}` : null;
    let r = key === null ? undefined : resolved.get(key);
    if (r !== undefined) return r;
    r = parse(url, base);
    if (key !== null) {
      if (resolved.size >= RESOLVED_MAX) resolved = new Map();
      resolved.set(key, r);
    }
    return r;
  };
  const forgetResolved = () => { resolved = new Map(); };
  // ignored: content/gate.js's serverTest against the list it sent (server_hosts).
  function parse(url, base) {
    try {
      const u = new URLCtor(url, base);
      const hosts = G.serverHosts;
      const ignored = u.protocol === 'chrome-extension:' ||
        (hosts.size > 0 && hosts.has(`${u.hostname}:${u.port || (u.protocol === 'https:' || u.protocol === 'wss:' ? '443' : '80')}`));
      return { url: u.href, ignored };
    } catch (_) {
      return { url: String(url), ignored: false };
    }
  }

  // ---- previews ------------------------------------------------------------------

  const clip = (s, n) => (s.length > n ? `${s.slice(0, n)}…` : s);
  G.clip = clip;

  function errorText(e) {
    try {
      const name = e && e.name ? String(e.name) : 'Error';
      const msg = e && e.message !== undefined ? String(e.message) : '';
      return msg ? `${name}: ${msg}` : name;
    } catch (_) {
      return 'Error';
    }
  }
  G.errorText = errorText;

  // A stack's first 25 lines, at most STACK_MAX characters.
  G.trimStack = (s) => {
    if (typeof s !== 'string' || !s) return '';
    let end = -1;
    for (let n = 0; n < 25; n++) {
      end = s.indexOf('\n', end + 1);
      if (end < 0) return clip(s, STACK_MAX);
    }
    return clip(s.slice(0, end), STACK_MAX);
  };

  const isError = (v) => v instanceof Error || (v && typeof v.message === 'string' && typeof v.stack === 'string');
  G.isErrorObject = (v) => v !== null && typeof v === 'object' && isError(v);

  // A console argument as the AI reads it: a string, number or boolean as itself, an Error as its
  // "Name: message" (its stack goes in the entry's stack), anything else as the JSON text of
  // page/serialize.js's serialiser, the one execute_js's results go through too, within a preview's
  // limits; a value it renders as a JSON string (a Date, a DOM node) without the quotes.
  const symbolText = Symbol.prototype.toString;
  const PREVIEW_LIMITS = { max: PREVIEW_MAX + 1, depth: 4, items: 50, str: 200 };
  G.preview = (v) => {
    let s;
    try {
      switch (typeof v) {
        case 'string': s = v; break;
        case 'number': case 'boolean': s = String(v); break;
        case 'undefined': s = 'undefined'; break;
        case 'bigint': s = `${v}n`; break;
        case 'symbol': s = G.apply(symbolText, v, []); break;
        case 'function': s = `[Function: ${v.name || 'anonymous'}]`; break;
        default:
          if (v !== null && isError(v)) s = errorText(v);
          else if (!serialize) s = String(v);
          else {
            const { json, cut } = serialize(v, PREVIEW_LIMITS);
            s = !cut && json.charCodeAt(0) === 34 ? jsonParse(json) : json; // 34: '"'
          }
      }
    } catch (_) {
      try { s = String(v); } catch (__) { s = '[unserializable]'; }
    }
    return clip(s, PREVIEW_MAX);
  };

  try {
    Object.defineProperty(W, SHARED, { value: G, configurable: true, enumerable: false, writable: false });
  } catch (_) { /* the other parts then do nothing */ }
})();
//# sourceURL=gasoline-inject.js
