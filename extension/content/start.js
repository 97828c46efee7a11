// Gasoline: the one isolated-world content script at document_start (top frame).
//
// A page pays for what runs before its load event (PERFORMANCE.md), so this file does only what cannot
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

  /**
   * @typedef {{act: string, el: EventTarget | null, ts: number, key?: string, v?: string}} HeldAction
   * @typedef {Exclude<LinkMessage, {type: 'missed'}> & {act?: undefined}} HeldMessage
   */
  // link: inject.js's; held: its messages and the user's actions until content.js takes them (take()).
  const S = {
    link: /** @type {EventTarget | null} */ (null),
    held: /** @type {(HeldAction | HeldMessage)[]} */ ([]),
    count: 0,
    taken: false,
    onLink: /** @type {(() => void) | null} */ (null), // content.js's, while it waits for the link
  };
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
    if (!S.taken) link.addEventListener('gasoline', hold);
    if (S.onLink) S.onLink();
  }
  window.addEventListener('gasoline-hello', onHello, true);

  // The user's actions from the document's first moment (content/actions.js comes after the load):
  // each is held as it came, in order with inject.js's messages — its target, time and, for a field,
  // its value then (a password input's never) — and content/actions.js describes it when it comes.
  // Nothing here reads the DOM further: the page pays one closure call and a small object an event.
  function act(e) {
    // Only a person's events (and CDP's input) are trusted; what the page dispatches itself is not theirs,
    // nor a submit the page's requestSubmit() fires with no person's click or key just before it.
    if (!e.isTrusted || (e.type === 'submit' && !activated())) return;
    const type = e.type;
    if (S.taken || S.count >= HELD_MAX) return;
    if (type === 'keydown' && e.key !== 'Enter' && e.key !== 'Escape') return;
    const el = e.target;
    /** @type {HeldAction} */
    const a = { act: type, el, ts: Date.now() };
    if (type === 'keydown') a.key = e.key;
    else if ((type === 'input' || type === 'change') && el && typeof el.value === 'string' && el.type !== 'password') {
      a.v = el.type === 'checkbox' || el.type === 'radio' ? (el.checked ? 'true' : 'false') : el.value;
    }
    S.held.push(a);
    S.count++;
    // Actions alone (the page recorded nothing, so inject.js never said 'missed') still bring the
    // rest of the content script if the worker missed this document: a timer from the first action
    // (a document's first timer costs it ~0.2 ms: after its load, not during it).
    if (!armed) {
      armed = true;
      setTimeout(() => { if (!S.taken) askWorker(); }, MISSED_MS);
    }
  }
  // A person's click or key in this document within the last few seconds (the browser's transient activation).
  const activated = () => {
    const u = globalThis.navigator && globalThis.navigator.userActivation;
    return !u || u.isActive;
  };
  let armed = false;
  const MISSED_MS = 3000; // inject.js's wait for the settings
  for (const type of ['click', 'input', 'change', 'submit', 'keydown']) window.addEventListener(type, act, true);

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
    /** @type {EventTarget | null} */
    let field = null; // the element of the last event if it is a field's input (one per run, the last)
    for (const m of S.held) {
      if (m.act) {
        const ev = described(m);
        if (!ev) continue;
        const typing = ev.data.type === 'input';
        if (typing && field === m.el) events[events.length - 1] = ev;
        else events.push(ev);
        field = typing ? m.el : null;
      } else for (const ev of S.events(m) || []) events.push(ev);
    }
    S.held = [];
    S.count = 0;
    try {
      chrome.runtime.sendMessage({ type: 'held', events }).catch(() => { /* the extension was reloaded */ });
    } catch (_) { /* the extension was reloaded */ }
  }

  window.addEventListener('pagehide', send, true);

  // A held action as an event for the worker, when the page is left before content/actions.js came:
  // a shorter description than actions.js's (an id, a name, else a path), and the field's own
  // attributes for the worker's secret rule (sw/held.js), which drops the value of a secret field.
  function described(a) {
    let el = a.el;
    if (el && el.nodeType !== 1) el = el.parentElement;
    if (!el || el.nodeType !== 1) return null;
    if (a.act === 'click') el = el.closest('a,button,input,select,textarea,label,summary,[role="button"],[role="link"]') || el;
    const data = { type: a.act, selector: pathOf(el), ts: a.ts };
    if (a.act === 'keydown') {
      data.type = 'keypress';
      data.text = a.key;
    } else if (a.act === 'input' || a.act === 'change') {
      data.type = 'input';
      data.input_type = String(el.type || el.tagName).toLowerCase();
      if (typeof a.v === 'string') {
        data.value = a.v.slice(0, 200);
        data.field = [el.type, el.getAttribute('name'), el.id, el.getAttribute('autocomplete')].map((x) => String(x || ''));
      }
    }
    return { kind: 'action', data };
  }

  // Element's own getAttribute: a form's named fields shadow the form's properties and methods.
  const attr = (el, name) => Element.prototype.getAttribute.call(el, name);

  function pathOf(el) {
    const parts = [];
    for (let cur = el; cur && cur.nodeType === 1; cur = cur.parentElement) {
      const tag = cur.tagName.toLowerCase();
      const id = attr(cur, 'id');
      if (id) { parts.unshift(`#${CSS.escape(id)}`); break; }
      const name = cur === el && attr(cur, 'name');
      if (name) { parts.unshift(`${tag}[name="${CSS.escape(name)}"]`); break; }
      if (tag === 'body' || tag === 'html') { parts.unshift(tag); break; }
      const same = cur.parentElement ? Array.prototype.filter.call(cur.parentElement.children, (c) => c.tagName === cur.tagName) : [];
      parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(cur) + 1})` : tag);
    }
    return parts.join(' > ');
  }

  // content.js takes the link and what was held; this file is then done.
  S.take = () => {
    S.taken = true;
    if (S.link) S.link.removeEventListener('gasoline', hold);
    window.removeEventListener('pagehide', send, true);
    for (const type of ['click', 'input', 'change', 'submit', 'keydown']) window.removeEventListener(type, act, true);
    const held = S.held;
    S.held = [];
    S.count = 0;
    return held;
  };
})();
