// Gasoline: the one isolated-world content script at document_start (top frame).
//
// A page pays for what runs before its load event (issue 12), so this file does only what cannot
// wait: it takes inject.js's private port from the first hello (PROTOCOL.md: the hello is posted
// before any page script runs, so the page can neither read the port nor forge a hello that comes
// first), holds what arrives on it, and at the load event asks the worker for the rest of the content
// script (generated/constants.js, content/scrub.js, content.js and its parts), which the worker runs
// in this document. content.js then takes the port and what was held. It asks earlier at the first
// captured error (errors are delivered, and screenshotted, without waiting for a slow load), 1 s after
// start, or when the page is left; a prerendering page asks once it is shown. The worker never runs
// this file itself: in a page opened before the extension there is no inject.js, and a hello there
// could only be the page's.
(() => {
  'use strict';

  if (globalThis.__gasolineStart) return;
  const WAIT_MAX_MS = 1000;
  const HELD_MAX = 2000; // events held for content.js, as many as it keeps waiting for the settings

  const S = { nonce: null, port: null, held: [], count: 0 };
  globalThis.__gasolineStart = S;

  let asked = false;
  let timer = 0;
  const offs = [];

  function on(target, type, fn) {
    target.addEventListener(type, fn, true);
    offs.push(() => target.removeEventListener(type, fn, true));
  }

  function onHello(e) {
    if (e.source !== window) return;
    const d = e.data;
    if (!d || typeof d !== 'object' || d.__gasoline !== 'hello' || typeof d.nonce !== 'string' || !e.ports || !e.ports[0]) return;
    e.stopImmediatePropagation();
    window.removeEventListener('message', onHello, true);
    S.nonce = d.nonce;
    S.port = e.ports[0];
    S.port.onmessage = hold;
  }
  window.addEventListener('message', onHello, true);

  // An uncaught exception, an unhandled rejection or console.error (content.js and sw/queue.js have
  // the same rule).
  const isError = (ev) => ev && ev.kind === 'log' && ev.data &&
    (ev.data.kind === 'exception' || ev.data.kind === 'rejection' || ev.data.level === 'error');

  // Until content.js takes the port (it sets its own onmessage then).
  function hold(e) {
    const m = e.data;
    if (!m || typeof m !== 'object' || m.nonce !== S.nonce || !Array.isArray(m.events)) return;
    if (S.count + m.events.length <= HELD_MAX) {
      S.held.push(m);
      S.count += m.events.length;
    }
    if (!asked && m.events.some(isError)) ask();
  }

  function ask() {
    if (asked) return;
    if (document.prerendering) return; // the worker cannot reach a prerendering page's document yet
    asked = true;
    clearTimeout(timer);
    for (const off of offs.splice(0)) off();
    try {
      chrome.runtime.sendMessage({ type: 'parts' }).catch(() => { /* the extension was reloaded */ });
    } catch (_) { /* the extension was reloaded */ }
  }

  if (document.readyState === 'complete') ask();
  else {
    on(window, 'load', () => setTimeout(ask, 0));
    on(window, 'pagehide', ask);
    timer = setTimeout(ask, WAIT_MAX_MS);
  }
  on(document, 'prerenderingchange', ask);
})();
