// Gasoline: isolated-world content scripts (document_start, top frame), this one first of its parts.
//
// Takes the private port from inject.js (see PROTOCOL.md), gates what arrives on
// it by the effective settings, scrubs secrets out of every event (content/scrub.js)
// and forwards them to the service worker in batches: BATCH_MS after the first event,
// when the page is idle (at most IDLE_MS more). This runs on the page's thread, and each
// message costs the browser process a round of IPC and a copy of the batch, so a page
// with steady traffic sends a few messages a second, not one per request (issue 12). The other
// parts: generated/constants.js and content/scrub.js run before this file at document_start;
// content/actions.js at document_idle; content/queries.js, content/pilot.js and content/perf.js are
// run by the worker in this document when this file first asks it for the settings (at the load
// event, see connect), so no page pays for them before its load (issue 12); until they are there a
// query waits, as it does for 'ready'. content/actions.js records user actions, content/queries.js tells
// the worker when the DOM is parsed ('ready') and answers its on-demand 'dom' and
// 'page_info' queries, content/pilot.js draws the AI Web Pilot's highlighter (the
// worker checks the pilot switch before it asks). They share one object,
// globalThis.__gasolineContent, in this isolated world only (never the page's).
(() => {
  'use strict';

  // The worker injects the parts into a tab that has no live copy (a page opened before the
  // extension was installed or reloaded); never run twice in one document. The other parts see
  // the live copy's object, which lists them as started, and stop too.
  const prior = globalThis.__gasolineContent;
  if (prior && typeof prior.alive === 'function' && prior.alive()) return;
  const lateStart = document.readyState !== 'loading'; // injected by the worker, not at document_start

  // Generated from Go (features/capturectl); used only if the worker does not answer.
  const CAPTURE_DEFAULTS = GASOLINE_CONSTANTS.CAPTURE_DEFAULTS;
  const scrub = globalThis.__gasolineScrub;
  const KINDS = new Set(['log', 'network', 'request', 'ws', 'action']);
  // A 'request' is a fetch or XHR with its body (inject-network.js); without network_bodies only its
  // network entry's fields go (their names are generated from the Go type).
  const NETWORK_FIELDS = GASOLINE_CONSTANTS.NETWORK_ENTRY_FIELDS;
  const BATCH_MS = 200;
  const IDLE_MS = 100;
  const idle = typeof requestIdleCallback === 'function' ? requestIdleCallback : null;
  const PENDING_MAX = 2000;

  let port = null;
  let nonce = null;
  let settings = null; // effective settings; null until known
  let serverHosts = new Set();
  let dead = false;
  const pending = []; // events that arrived before the settings
  let batch = [];
  let batchTimer = 0;
  const listeners = []; // [target, type, fn] registered with capture, removed on shutdown
  const shutdownHooks = [];

  // A page's requests go to a few URLs again and again: the answer for each is remembered (up to
  // 500 URLs; forgotten whenever the server changes).
  const isServerURL = scrub.remembered((url) => {
    try {
      const u = new URL(url);
      return serverHosts.has(u.host) || serverHosts.has(`${u.hostname}:${u.port || '80'}`);
    } catch (_) {
      return false;
    }
  }, 500);

  // ---- handshake: first thing, synchronously at document_start ---------------------

  function onHello(e) {
    if (e.source !== window) return;
    const d = e.data;
    if (!d || typeof d !== 'object' || d.__gasoline !== 'hello' || typeof d.nonce !== 'string' || !e.ports || !e.ports[0]) return;
    e.stopImmediatePropagation();
    window.removeEventListener('message', onHello, true);
    nonce = d.nonce;
    port = e.ports[0];
    port.onmessage = onPortMessage;
    sendSettingsToInject();
  }
  window.addEventListener('message', onHello, true);

  function onPortMessage(e) {
    const m = e.data;
    if (dead || !m || typeof m !== 'object' || m.nonce !== nonce || !Array.isArray(m.events)) return;
    for (const ev of m.events) {
      if (!ev || typeof ev !== 'object' || !KINDS.has(ev.kind) || !ev.data || typeof ev.data !== 'object') continue;
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
    settings = Object.assign({}, CAPTURE_DEFAULTS, s);
    serverHosts = hostsOf(settings.server_url);
    isServerURL.forget();
    sendSettingsToInject();
    if (pending.length) for (const ev of pending.splice(0)) accept(ev.kind, ev.data);
  }

  function sendSettingsToInject() {
    if (!port || !settings || dead) return;
    try {
      port.postMessage({
        nonce,
        type: 'settings',
        settings: {
          log_level: settings.log_level,
          ws_mode: settings.ws_mode,
          network_bodies: settings.network_bodies,
          server_url: settings.server_url || '',
        },
      });
    } catch (_) { /* ignore */ }
  }

  // The settings in force come from the worker: asked for at start, then pushed to every tab
  // (chrome.tabs.sendMessage) whenever they change. This world never touches chrome.storage, whose
  // bindings cost each page ~3 ms of script time to set up (measured on Chromium 156, issue 12).
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

  function askWorker() {
    chrome.runtime.sendMessage({ type: 'effective' }).then((a) => {
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

  // ---- talking to the worker: from the load on --------------------------------------------
  // The first touch of chrome.runtime in a document builds its extension bindings, ~3 ms of the
  // page's script time (Chromium 156, issue 12). So this world waits for the load event, or
  // CONNECT_MAX_MS, or the first error or the page being left, whichever is first; until then
  // inject.js captures every level and what arrives waits in `pending` for the settings.
  const CONNECT_MAX_MS = 1000;
  let connected = false;
  let connectTimer = 0;
  const connectHooks = [];

  function connect() {
    if (connected || dead) return;
    connected = true;
    clearTimeout(connectTimer);
    try {
      chrome.runtime.onMessage.addListener(onWorkerMessage);
      shutdownHooks.push(() => chrome.runtime.onMessage.removeListener(onWorkerMessage));
      askWorker();
    } catch (err) {
      shutdown();
      return;
    }
    for (const fn of connectHooks.splice(0)) {
      try { fn(); } catch (_) { /* one part's failure is not the others' */ }
    }
  }

  // fn runs once this world talks to the worker (at once if it already does).
  function onConnect(fn) {
    if (connected) fn();
    else connectHooks.push(fn);
  }

  if (document.readyState === 'complete') connect();
  else {
    listen(window, 'load', () => setTimeout(connect, 0));
    listen(window, 'pagehide', connect);
    connectTimer = setTimeout(connect, CONNECT_MAX_MS);
  }

  function hostsOf(serverURL) {
    const hosts = new Set();
    try {
      const u = new URL(serverURL);
      hosts.add(u.host);
      if (['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) {
        for (const h of ['127.0.0.1', 'localhost', '[::1]']) hosts.add(`${h}:${u.port || '80'}`);
      }
    } catch (_) { /* none */ }
    return hosts;
  }

  // An uncaught exception, an unhandled rejection or console.error (sw/queue.js has the same rule).
  const isErrorLog = (d) => d.kind === 'exception' || d.kind === 'rejection' || d.level === 'error';

  function allowed(kind, data) {
    switch (kind) {
      case 'log':
        if (isErrorLog(data)) return true; // captured at every log_level
        if (settings.log_level === 'all') return true;
        return settings.log_level === 'warn' && data.level === 'warn';
      case 'network':
      case 'request':
        return !isServerURL(data.url);
      case 'ws':
        if (settings.ws_mode === 'off' || isServerURL(data.url)) return false;
        return data.event !== 'message' || settings.ws_mode === 'messages';
      case 'action':
        return settings.action_replay === true;
      default:
        return false;
    }
  }

  // ---- batching to the worker ------------------------------------------------------------

  function accept(kind, data) {
    if (dead) return;
    if (!connected && kind === 'log' && isErrorLog(data)) connect(); // errors do not wait for the load
    if (!settings) {
      if (pending.length < PENDING_MAX) pending.push({ kind, data });
      return;
    }
    if (!allowed(kind, data)) return;
    if (kind === 'request' && settings.network_bodies !== true) {
      const n = {};
      for (const k of NETWORK_FIELDS) if (data[k] !== undefined) n[k] = data[k];
      batch.push({ kind: 'network', data: n });
    } else batch.push({ kind, data });
    if (leaving) flushSoon();
    else if (!batchTimer) batchTimer = setTimeout(flushWhenIdle, BATCH_MS);
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
  listen(window, 'beforeunload', leave);
  listen(window, 'pagehide', leave);
  listen(window, 'pageshow', (e) => { if (e.persisted) leaving = false; }); // back from the back/forward cache

  function flushWhenIdle() {
    if (idle) idle(flush, { timeout: IDLE_MS });
    else flush();
  }

  function flush() {
    if (batchTimer) clearTimeout(batchTimer);
    batchTimer = 0;
    if (dead || !batch.length) return;
    const events = [];
    for (const ev of batch) {
      try {
        scrub.event(ev.kind, ev.data); // secrets never leave the page
        events.push(ev);
      } catch (_) { /* an event that cannot be scrubbed is not sent */ }
    }
    batch = [];
    if (!events.length) return;
    try {
      if (!chrome.runtime || !chrome.runtime.id) return shutdown();
      chrome.runtime.sendMessage({ type: 'events', events }).catch((err) => {
        if (invalidated(err)) shutdown();
      });
    } catch (err) {
      shutdown();
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
    try { if (port) port.close(); } catch (_) { /* ignore */ }
    for (const [target, type, fn] of listeners) target.removeEventListener(type, fn, true);
    for (const fn of shutdownHooks) {
      try { fn(); } catch (_) { /* ignore */ }
    }
  }

  function listen(target, type, fn) {
    target.addEventListener(type, fn, true);
    listeners.push([target, type, fn]);
  }

  // What the other parts use. They add navigation, selectorFor and clean (actions.js), N and
  // QueryError (queries.js), pilot (pilot.js).
  const G = {
    alive: () => !dead && !!(chrome.runtime && chrome.runtime.id),
    parts: new Set(), // the parts of this copy that have started
    dead: () => dead,
    settings: () => settings,
    lateStart,
    listen,
    accept,
    flush,
    shutdown,
    invalidated,
    onShutdown: (fn) => shutdownHooks.push(fn),
    onConnect,
  };
  globalThis.__gasolineContent = G;
})();