// Gasoline: the one isolated-world content script at document_start (top frame).
//
// A page pays for what runs before its load event (issue 12), so this file does only what cannot
// wait: it takes inject.js's private link (an EventTarget) from the first hello (PROTOCOL.md:
// inject.js dispatches it before any page script runs, so the page can neither reach the link nor
// forge a hello that comes first) and holds what arrives on it. The rest of the content script
// (generated/constants.js, content/scrub.js, content/gate.js, content.js and its parts) is run by the
// worker in this document after its load event, or 1 s after its commit (sw/documents.js); content.js
// then takes the link and what was held. A page left before that hands what is held to the worker as
// it is, which gates and scrubs it as content.js would (sw/held.js); this file never touches
// chrome.runtime otherwise (building a document's extension bindings costs it ~1 ms of script time).
// The worker never runs this file: in a page opened before the extension there is no inject.js, and a
// hello there could only be the page's. If the rest has not come 3 s after inject.js's first record
// (inject.js says so), this file asks the worker for it.
(() => {
  'use strict';

  if (globalThis.__gasolineStart) return;
  const HELD_MAX = 2000; // events, as many as content.js keeps waiting for the settings

  // link: inject.js's; held: its messages until content.js takes them (take()).
  const S = { link: null, held: [], count: 0, taken: false, onLink: null };
  globalThis.__gasolineStart = S;

  // The hello is dispatched on window during inject.js's run (a FocusEvent, whose relatedTarget is the
  // link): taken, stopped, and marked taken (preventDefault) for inject.js, which posts nothing if not.
  function onHello(e) {
    const link = e.relatedTarget;
    if (e.target !== window || !link || typeof link.addEventListener !== 'function') return;
    e.stopImmediatePropagation();
    e.preventDefault();
    window.removeEventListener('gasoline-hello', onHello, true);
    S.link = link;
    link.addEventListener('gasoline', hold);
    if (S.onLink) S.onLink();
  }
  window.addEventListener('gasoline-hello', onHello, true);

  // Until content.js takes the link (it adds its own listener then). A message is held as it came
  // (its events as one JSON string, n of them, or as an array) and parsed only to be cut at the bound.
  function hold(e) {
    const m = e.detail;
    if (S.taken || !m || typeof m !== 'object') return;
    if (m.type === 'missed') {
      askWorker();
      return;
    }
    const n = typeof m.json === 'string' ? m.n : Array.isArray(m.events) ? m.events.length : -1;
    if (typeof n !== 'number' || n < 0) return;
    const room = HELD_MAX - S.count;
    if (room > 0) {
      if (n > room) {
        const events = S.events(m);
        if (events) S.held.push({ events: events.slice(0, room) });
      } else S.held.push(m);
      S.count += Math.min(n, room);
    }
    if (m.leaving === true) send();
  }

  // inject.js has had no settings 3 s after its first record: the worker missed it (it was not running
  // yet when the page loaded, as on the extension's first start, or its run failed). Ask it for the
  // rest. inject.js keeps the time (a timer here would cost the load: its binding is built for this
  // world on first use).
  function askWorker() {
    if (globalThis.__gasolineContent) return;
    try {
      chrome.runtime.sendMessage({ type: 'missed' }).catch(() => { /* not listening yet: inject.js asks again */ });
    } catch (_) { /* the extension was reloaded */ }
  }

  // A link message's events: [{kind, data}], or null if it carries none.
  S.events = (m) => {
    if (typeof m.json !== 'string') return Array.isArray(m.events) ? m.events : null;
    try {
      const events = JSON.parse(m.json);
      return Array.isArray(events) ? events : null;
    } catch (_) {
      return null;
    }
  };

  // The page is being left before content.js came: inject.js marks each message it posts from
  // beforeunload until the next document's commit (leaving: true; unmarked again once the page is
  // back from the back/forward cache), and what is held goes to the worker with each such message.
  // pagehide is the last try (alone, it lost a left page's events in 1 of 18 runs). No
  // beforeunload listener here: a document's first costs its load (inject.js adds its own at its
  // first record, when there is something to lose).
  function send() {
    if (S.taken || !S.held.length) return;
    const events = [];
    for (const m of S.held) for (const ev of S.events(m) || []) events.push(ev);
    S.held = [];
    S.count = 0;
    try {
      chrome.runtime.sendMessage({ type: 'held', events }).catch(() => { /* the extension was reloaded */ });
    } catch (_) { /* the extension was reloaded */ }
  }

  window.addEventListener('pagehide', send, true);

  // content.js takes the link and what was held; this file is then done.
  S.take = () => {
    S.taken = true;
    S.link.removeEventListener('gasoline', hold);
    window.removeEventListener('pagehide', send, true);
    const held = S.held;
    S.held = [];
    S.count = 0;
    return held;
  };
})();
