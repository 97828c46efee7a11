// Gasoline: the isolated-world content script (top frame). No page pays for an isolated world before
// its load but content/start.js's (PERFORMANCE.md): the worker runs this file in a document after its load
// event, or 1 s after its commit if the load takes longer (sw/documents.js, webNavigation), after
// generated/constants.js, content/scrub.js and content/gate.js and before its parts: content/actions.js records user actions, content/queries.js
// tells the worker when the DOM is parsed ('ready'; already parsed at the worker's run, the worker
// learns it from its handing-over of the settings, G.seed) and answers its on-demand 'dom' and
// 'page_info' queries, content/pilot.js draws the AI Web Pilot's highlighter (the worker checks the pilot switch
// before it asks), content/perf.js samples the page load. They share one object,
// globalThis.__gasolineContent, in this isolated world only (never the page's).
//
// Takes page/inject.js's private link and what arrived on it so far from content/start.js (see
// PROTOCOL.md), gates what arrives by the effective settings (content/gate.js), scrubs secrets out of
// every event (content/scrub.js)
// and forwards them to the service worker in batches: BATCH_MS after the first event, when the page
// is idle (at most IDLE_MS more); the document's first error at once. This runs on the page's thread, and each message costs the browser
// process a round of IPC and a copy of the batch, so a page with steady traffic sends a few messages
// a second, not one per request.
(() => {
  'use strict';

  // Never run twice in one document (the worker runs these files at the load and again when it adopts
  // a tab or a query finds no answer). The other parts see the live copy's object, which lists them
  // as started, and stop too.
  const prior = globalThis.__gasolineContent;
  if (prior && typeof prior.alive === 'function' && prior.alive()) return;

  // Generated from Go (features/capturectl); used only if the worker does not answer.
  const CAPTURE_DEFAULTS = GASOLINE_CONSTANTS.CAPTURE_DEFAULTS;
  const scrub = globalThis.__gasolineScrub;
  const gate = globalThis.__gasolineGate;
  // start.js ran at document_start: inject.js's link is there. Absent in a page opened before the
  // extension was installed or reloaded, which the worker adopts: no page-world capture there.
  const start = globalThis.__gasolineStart || null;
  const BATCH_MS = 200;
  const IDLE_MS = 100;
  const QUIET_MS = 2000; // content/perf.js samples a load 1 s after it
  const SEED_MS = 1000;
  const idle = typeof requestIdleCallback === 'function' ? requestIdleCallback : null;
  const PENDING_MAX = 2000;

  /** @type {EventTarget | null} */
  let link = null;
  /** @type {Settings | null} */
  let settings = null; // effective settings; null until known
  /** @type {(url: string) => boolean} */
  let serverTest = () => false;
  let dead = false;
  const pending = []; // events that arrived before the settings
  let batch = [];
  let batchTimer = 0;
  let batchDue = false; // batchTimer is BATCH_MS's, not QUIET_MS's
  /** @type {[EventTarget, string, EventListener][]} */
  const listeners = []; // [target, type, fn] registered with capture, removed on shutdown
  const shutdownHooks = [];

  // A page's requests go to a few URLs again and again: the answer for each is remembered (up to
  // 500 URLs; forgotten whenever the server changes).
  const isServerURL = scrub.remembered((url) => serverTest(url), 500);

  // ---- inject.js's link: taken from start.js with the first settings ------------------------
  // Until then start.js holds what arrives; taking it only once the settings are known (and the
  // parts, run after this file, are there) keeps the page's order: the initial navigation first.

  let taken = false;
  function takeLink() {
    if (taken || dead || !settings || !start) return;
    taken = true;
    const held = start.take();
    // The page's first navigation is its document's URL and start, before what start.js held (the
    // pushState calls a page made during its load and the user's first actions, in their order).
    if (G.firstNavigation) G.firstNavigation();
    for (const m of held) {
      if (m.act) {
        if (G.replay) G.replay(m);
      } else onLinkMessage(m);
    }
    attachLink();
  }

  function attachLink() {
    if (link || dead) return;
    if (!start.link) {
      start.onLink = attachLink; // no hello yet: the page's first bytes came over 1 s after its commit
      return;
    }
    link = /** @type {EventTarget} */ (start.link); // there: tested above
    link.addEventListener('gasoline', onLinkEvent);
    sendSettingsToInject();
  }

  const onLinkEvent = (e) => onLinkMessage(e.detail);

  function onLinkMessage(m) {
    if (dead || !m || typeof m !== 'object') return;
    for (const ev of start.events(m) || []) {
      if (!gate.wellFormed(ev)) continue;
      if (ev.kind === 'action') {
        // inject.js only reports history.pushState/replaceState.
        if (ev.data.type === 'navigation' && G.navigation) G.navigation(ev.data.url, ev.data.ts);
        continue;
      }
      accept(ev.kind, ev.data);
    }
  }

  // ---- settings ---------------------------------------------------------------------

  function applySettings(s) {
    if (!s || typeof s !== 'object') return;
    settings = /** @type {Settings} */ (Object.assign({}, CAPTURE_DEFAULTS, s));
    serverTest = gate.serverTest(settings.server_url);
    isServerURL.forget();
    sendSettingsToInject();
    if (pending.length) for (const ev of pending.splice(0)) accept(ev.kind, ev.data);
    takeLink();
  }

  // What the page's world has queued is posted now (it is built in the page's idle time, up to 100 ms
  // later), then sent with the rest: an AI action's answer waits for what the action caused.
  function flushPage() {
    try { if (link && !dead) link.dispatchEvent(new CustomEvent('gasoline-flush')); } catch (_) { /* ignore */ }
    return flush();
  }

  // As JSON text: an object made in this world reaches the page's world as a copy in Chromium, and
  // in Firefox not at all without cloneInto.
  function sendSettingsToInject() {
    if (!link || !settings || dead) return;
    try {
      link.dispatchEvent(new CustomEvent('gasoline-settings', {
        detail: JSON.stringify({
          log_level: settings.log_level,
          ws_mode: settings.ws_mode,
          network_bodies: settings.network_bodies,
          server_hosts: [...gate.hostsOf(settings.server_url)],
        }),
      }));
    } catch (_) { /* ignore */ }
  }

  // The settings in force come from the worker: asked for at start, then pushed to every tab
  // (chrome.tabs.sendMessage) whenever they change. This world never touches chrome.storage, whose
  // bindings cost each page script time to set up (PERFORMANCE.md).
  // Each answer and push carries the worker's revision of the settings: the answer to the start
  // question may arrive after a newer push, and is then dropped.
  let rev = -1;

  function fromWorker(s, r) {
    if (!s || typeof s !== 'object') return;
    const n = typeof r === 'number' ? r : 0;
    if (n < rev) return;
    rev = n;
    applySettings(s);
  }

  // The worker hands the settings over right after it runs these files (sw/documents.js, G.seed), and
  // learns from that whether the document is ready for queries. Not handed them within SEED_MS (the
  // worker was stopped in between), this asks, and says 'ready' (content/queries.js) in the question.
  function askWorker() {
    const ready = !!G.readyURL();
    chrome.runtime.sendMessage({ type: 'effective', ready }).then((a) => {
      if (a && typeof a === 'object' && a.settings) fromWorker(a.settings, a.rev);
      else if (!settings) applySettings(CAPTURE_DEFAULTS);
    }).catch(settingsFailed);
  }

  function settingsFailed(err) {
    if (invalidated(err)) shutdown();
    else if (!settings) applySettings(CAPTURE_DEFAULTS);
  }

  function onWorkerMessage(msg, sender) {
    if (dead || !msg || typeof msg !== 'object' || msg.type !== 'effective' || sender.id !== chrome.runtime.id || sender.tab) return false;
    fromWorker(msg.settings, msg.rev);
    return false;
  }

  // ---- talking to the worker ---------------------------------------------------------------

  let seedTimer = 0;
  function connect() {
    try {
      chrome.runtime.onMessage.addListener(onWorkerMessage);
      shutdownHooks.push(() => chrome.runtime.onMessage.removeListener(onWorkerMessage));
      seedTimer = setTimeout(() => { if (!settings && !dead) askWorker(); }, SEED_MS);
      shutdownHooks.push(() => clearTimeout(seedTimer));
    } catch (err) {
      shutdown();
    }
  }

  // The worker's handing-over: the settings in force ({settings, rev}, as a question's answer); returns
  // the document's URL if it is ready for queries, else ''.
  function seed(answer) {
    if (dead) return '';
    if (answer && typeof answer === 'object' && answer.settings) {
      clearTimeout(seedTimer);
      fromWorker(answer.settings, answer.rev);
    }
    return G.readyURL();
  }

  // ---- batching to the worker ------------------------------------------------------------

  // Each event that passed the gate carries this document's key and its number among the document's
  // events of its kind (PROTOCOL.md, "Sequence numbers"): the server counts what skips as lost. A
  // request and a network entry are one sequence (the worker makes a request its network entry and
  // its body, both with the request's number); a performance sample is one per load, not numbered.
  const SEQ_KINDS = { log: 'log', network: 'network', request: 'network', ws: 'ws', action: 'action' };
  const seqs = { log: 0, network: 0, ws: 0, action: 0 };
  const DOC = Math.random().toString(36).slice(2, 8) + (Date.now() % 1296).toString(36);
  let errorSent = false; // this document's first error went at once

  // A quiet event (the page's first navigation) waits for the next event, or for content/perf.js's
  // sample of the load, at most QUIET_MS: a quiet page's load then costs it one message to the worker,
  // not two (each costs script time in a new document; PERFORMANCE.md).
  function accept(kind, data, quiet) {
    if (dead) return;
    if (!settings) {
      if (pending.length < PENDING_MAX) pending.push({ kind, data });
      return;
    }
    const ev = gate.pass(kind, data, settings, isServerURL);
    if (!ev) return;
    const sk = SEQ_KINDS[ev.kind];
    if (sk) {
      ev.data.dc = DOC;
      ev.data.sq = ++seqs[sk];
    }
    batch.push(ev);
    if (leaving) flushSoon();
    else if (!errorSent && ev.kind === 'log' && gate.isErrorLog(ev.data)) {
      // The document's first error goes at once (at the end of this task, with the rest of inject's
      // message and what was batched before it): it is what the AI most often asks about right
      // after it happened. Later ones keep the batching, so a flood of errors costs one message more.
      errorSent = true;
      flushSoon();
      listenForLeave();
    } else if (quiet) {
      if (!batchTimer) batchTimer = setTimeout(flushWhenIdle, QUIET_MS);
    } else if (!batchDue) {
      clearTimeout(batchTimer);
      batchTimer = setTimeout(flushWhenIdle, BATCH_MS);
      batchDue = true;
      listenForLeave();
    }
  }

  // Sends ev ({kind, data}, past the gate) now, with the batch.
  function sendNow(ev) {
    if (dead) return;
    batch.push(ev);
    flush();
  }

  // Leaving the page: the batch goes now, and from then on what arrives goes at the end of its task
  // (inject.js posts what it still holds between beforeunload and the next document's commit).
  let leaving = false;
  let flushQueued = false;
  const flushSoon = () => {
    if (flushQueued) return;
    flushQueued = true;
    queueMicrotask(() => {
      flushQueued = false;
      flush();
    });
  };
  const leave = () => {
    leaving = true;
    flush();
  };
  // beforeunload from the first event due to be sent: a document's first beforeunload listener costs
  // its load ~0.1 ms (the browser is told of it); pagehide alone still sends a quiet event.
  let leaveHeard = false;
  function listenForLeave() {
    if (leaveHeard) return;
    leaveHeard = true;
    listen(window, 'beforeunload', leave);
  }
  listen(window, 'pagehide', leave);
  listen(window, 'pageshow', (e) => { if (e.persisted) leaving = false; }); // back from the back/forward cache
  // A frozen page runs no timers and may be discarded while frozen: the batch goes now, as when it is
  // left, and what comes before it is frozen goes at the end of its task.
  listen(document, 'freeze', leave);
  listen(document, 'resume', () => { leaving = false; });

  function flushWhenIdle() {
    if (idle) idle(flush, { timeout: IDLE_MS });
    else flush();
  }

  // A message the worker did not take (it was stopping as the message left: the browser starts it
  // again for the next) goes again with the next flush, its events already scrubbed, at most
  // RESEND_MAX times; then it is lost, and the server counts it by the numbers skipped.
  const RESEND_MAX = 3;
  const RESEND_MS = 250;
  let unsent = [];
  let resends = 0;

  function flush() {
    if (batchTimer) clearTimeout(batchTimer);
    batchTimer = 0;
    batchDue = false;
    if (dead || (!batch.length && !unsent.length)) return Promise.resolve();
    const events = unsent;
    unsent = [];
    for (const ev of batch) {
      try {
        scrub.event(ev.kind, ev.data); // secrets never leave the page
        events.push(ev);
      } catch (_) { /* an event that cannot be scrubbed is not sent */ }
    }
    batch = [];
    if (!events.length) return Promise.resolve();
    try {
      if (!chrome.runtime || !chrome.runtime.id) return Promise.resolve(shutdown());
      // Resolves once the worker took the events (or did not): content/act.js waits for it.
      return chrome.runtime.sendMessage({ type: 'events', events }).then(() => { resends = 0; }, (err) => {
        if (invalidated(err)) return shutdown();
        if (dead || resends >= RESEND_MAX) return;
        resends++;
        unsent = events.concat(unsent);
        if (!batchTimer) batchTimer = setTimeout(flush, RESEND_MS);
      });
    } catch (err) {
      shutdown();
      return Promise.resolve();
    }
  }

  function invalidated(err) {
    const msg = String((err && err.message) || err);
    return /context invalidated/i.test(msg) || !(chrome.runtime && chrome.runtime.id);
  }

  // The extension was reloaded or removed: go quiet for the rest of this page.
  function shutdown() {
    if (dead) return;
    dead = true;
    batch = [];
    pending.length = 0;
    try { if (link) link.removeEventListener('gasoline', onLinkEvent); } catch (_) { /* ignore */ }
    for (const [target, type, fn] of listeners) target.removeEventListener(type, fn, true);
    for (const fn of shutdownHooks) {
      try { fn(); } catch (_) { /* ignore */ }
    }
  }

  function listen(target, type, fn) {
    target.addEventListener(type, fn, true);
    listeners.push([target, type, fn]);
  }

  // What the other parts use. They add navigation, firstNavigation, selectorFor and clean
  // (actions.js), natives and QueryError (queries.js, which also sets readyURL), pilot (pilot.js).
  const G = {
    alive: () => !dead && !!(chrome.runtime && chrome.runtime.id),
    parts: new Set(), // the parts of this copy that have started
    dead: () => dead,
    settings: () => settings,
    adopted: !start,
    readyURL: () => '', // content/queries.js's: the document's URL once it can answer queries
    seed,
    listen,
    accept,
    sendNow,
    flush,
    flushPage,
    shutdown,
    invalidated,
    onShutdown: (fn) => shutdownHooks.push(fn),
  };
  globalThis.__gasolineContent = G;
  connect();
})();