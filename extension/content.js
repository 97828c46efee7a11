// Gasoline: the isolated-world content script (top frame), run by the worker in a document when
// content/start.js asks for it at the load event (or earlier: the first error, 1 s, the page left), so
// no page pays for it before its load (issue 12). The worker runs it after generated/constants.js and
// content/scrub.js and before its parts: content/actions.js records user actions, content/queries.js
// tells the worker when the DOM is parsed ('ready') and answers its on-demand 'dom' and 'page_info'
// queries, content/pilot.js draws the AI Web Pilot's highlighter (the worker checks the pilot switch
// before it asks), content/perf.js samples the page load. They share one object,
// globalThis.__gasolineContent, in this isolated world only (never the page's).
//
// Takes inject.js's private port and what it sent so far from start.js (see PROTOCOL.md), gates what
// arrives on it by the effective settings, scrubs secrets out of every event (content/scrub.js) and
// forwards them to the service worker in batches: BATCH_MS after the first event, when the page is
// idle (at most IDLE_MS more). This runs on the page's thread, and each message costs the browser
// process a round of IPC and a copy of the batch, so a page with steady traffic sends a few messages
// a second, not one per request (issue 12).
(() => {
  'use strict';

  // Never run twice in one document (the worker may be asked twice, or adopt a tab while the parts
  // are on their way). The other parts see the live copy's object, which lists them as started, and
  // stop too.
  const prior = globalThis.__gasolineContent;
  if (prior && typeof prior.alive === 'function' && prior.alive()) return;
  // start.js ran at document_start: inject.js's port is there. Absent in a page opened before the
  // extension was installed or reloaded, which the worker adopts: no page-world capture there.
  const start = globalThis.__gasolineStart || null;

  // Generated from Go (features/capturectl); used only if the worker does not answer.
  const CAPTURE_DEFAULTS = GASOLINE_CONSTANTS.CAPTURE_DEFAULTS;
  const scrub = globalThis.__gasolineScrub;
  const KINDS = new Set(['log', 'network', 'body', 'ws', 'action']);
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

  // ---- inject.js's port: taken from start.js with the first settings ------------------------
  // Until then start.js holds what arrives; taking it only once the settings are known (and the
  // parts, run after this file, are there) keeps the page's order: the initial navigation first.

  function takePort() {
    if (port || !start || !start.port) return;
    port = start.port;
    nonce = start.nonce;
    const held = start.held;
    start.held = [];
    start.port = null;
    port.onmessage = onPortMessage;
    for (const data of held) onPortMessage({ data });
  }

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
    if (pending.length) for (const ev of pending.splice(0)) accept(ev.kind, ev.data);
    takePort();
    sendSettingsToInject();
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

  // ---- talking to the worker ---------------------------------------------------------------
  // start.js already touched chrome.runtime (building a document's extension bindings costs the
  // page ~3 ms of script time, Chromium 156, issue 12) when it asked for this file.

  try {
    chrome.runtime.onMessage.addListener(onWorkerMessage);
    shutdownHooks.push(() => chrome.runtime.onMessage.removeListener(onWorkerMessage));
    askWorker();
  } catch (err) {
    dead = true;
    return;
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

  function isServerURL(url) {
    try {
      const u = new URL(url);
      return serverHosts.has(u.host) || serverHosts.has(`${u.hostname}:${u.port || '80'}`);
    } catch (_) {
      return false;
    }
  }

  // An uncaught exception, an unhandled rejection or console.error (start.js and sw/queue.js have
  // the same rule).
  const isErrorLog = (d) => d.kind === 'exception' || d.kind === 'rejection' || d.level === 'error';

  function allowed(kind, data) {
    switch (kind) {
      case 'log':
        if (isErrorLog(data)) return true; // captured at every log_level
        if (settings.log_level === 'all') return true;
        return settings.log_level === 'warn' && data.level === 'warn';
      case 'network':
        return !isServerURL(data.url);
      case 'body':
        return settings.network_bodies === true && !isServerURL(data.url);
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
    if (!settings) {
      if (pending.length < PENDING_MAX) pending.push({ kind, data });
      return;
    }
    if (!allowed(kind, data)) return;
    batch.push({ kind, data });
    if (!batchTimer) batchTimer = setTimeout(flushWhenIdle, BATCH_MS);
  }

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

  // What the other parts use (adopted: no start.js, see above). They add navigation, selectorFor
  // and clean (actions.js), N and
  // QueryError (queries.js), pilot (pilot.js).
  const G = {
    alive: () => !dead && !!(chrome.runtime && chrome.runtime.id),
    parts: new Set(), // the parts of this copy that have started
    dead: () => dead,
    settings: () => settings,
    adopted: !start,
    listen,
    accept,
    flush,
    shutdown,
    invalidated,
    onShutdown: (fn) => shutdownHooks.push(fn),
  };
  globalThis.__gasolineContent = G;
})();