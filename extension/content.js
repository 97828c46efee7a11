// Gasoline: isolated-world content script (document_start, top frame).
//
// Takes the private port from inject.js (see PROTOCOL.md), gates what arrives on
// it by the effective settings, records user actions itself, and forwards
// everything to the service worker in batches of at most 50 ms. Tells the worker
// when the DOM is parsed ('ready') and answers its on-demand 'dom' and
// 'page_info' queries, and draws the AI Web Pilot's highlighter (the worker
// checks the pilot switch before it asks).
(() => {
  'use strict';

  // The worker injects this file into a tab that has no live copy (a page opened before the
  // extension was installed or reloaded); never run twice in one document.
  const prior = globalThis.__gasolineContent;
  if (prior && typeof prior.alive === 'function' && prior.alive()) return;
  const lateStart = document.readyState !== 'loading'; // injected by the worker, not at document_start

  // PROTOCOL.md defaults, used only if neither storage nor the worker answers.
  const CAPTURE_DEFAULTS = {
    log_level: 'error', ws_mode: 'lifecycle', network_bodies: true, screenshot_on_error: false, action_replay: true,
  };
  const KINDS = new Set(['log', 'network', 'body', 'ws', 'action']);
  const BATCH_MS = 50;
  const PENDING_MAX = 2000;
  const INPUT_DEBOUNCE_MS = 500;
  const TEXT_MAX = 100;
  const VALUE_MAX = 200;
  const SENSITIVE_FIELD = /pass|pwd|secret|token|cvv|cvc|csc|one-time|otp|credit|card.?(num|no)|(^|[^a-z])cc([^a-z]|$)|cc-?(num|exp|csc|name|type)/i;
  const INTERACTIVE = 'a,button,input,select,textarea,label,summary,option,[role="button"],[role="link"],[role="menuitem"],[role="tab"],[role="checkbox"],[onclick]';

  let port = null;
  let nonce = null;
  let settings = null; // effective settings; null until known
  let serverHosts = new Set();
  let dead = false;
  const pending = []; // events that arrived before the settings
  let batch = [];
  let batchTimer = 0;
  const listeners = []; // [target, type, fn] registered with capture, removed on shutdown

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
        if (ev.data.type === 'navigation') navigation(ev.data.url, ev.data.ts);
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

  function loadSettings() {
    chrome.storage.local.get('gasoline_effective').then((r) => {
      if (r && r.gasoline_effective) return applySettings(r.gasoline_effective);
      // Not written yet (first moments after install): ask the worker.
      return chrome.runtime.sendMessage({ type: 'effective' }).then(
        (s) => applySettings(s && typeof s === 'object' ? s : CAPTURE_DEFAULTS),
      );
    }).catch((err) => {
      if (invalidated(err)) shutdown();
      else if (!settings) applySettings(CAPTURE_DEFAULTS);
    });
  }

  try {
    chrome.storage.onChanged.addListener((changes, area) => {
      if (area === 'local' && changes.gasoline_effective && changes.gasoline_effective.newValue) {
        applySettings(changes.gasoline_effective.newValue);
      }
    });
    loadSettings();
  } catch (err) {
    shutdown();
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

  function allowed(kind, data) {
    switch (kind) {
      case 'log':
        if (data.kind === 'exception' || data.kind === 'rejection') return true;
        if (settings.log_level === 'all') return true;
        if (settings.log_level === 'warn') return data.level === 'error' || data.level === 'warn';
        return data.level === 'error';
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
    if (!batchTimer) batchTimer = setTimeout(flush, BATCH_MS);
  }

  function flush() {
    if (batchTimer) clearTimeout(batchTimer);
    batchTimer = 0;
    if (dead || !batch.length) return;
    const events = batch;
    batch = [];
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
    try { chrome.runtime.onMessage.removeListener(onRuntimeMessage); } catch (_) { /* ignore */ }
  }
  globalThis.__gasolineContent = { alive: () => !dead && !!(chrome.runtime && chrome.runtime.id) };

  // ---- user actions ------------------------------------------------------------------------

  function listen(target, type, fn) {
    target.addEventListener(type, fn, true);
    listeners.push([target, type, fn]);
  }

  const actionsOff = () => settings && settings.action_replay !== true;
  const clean = (s, n) => String(s || '').replace(/\s+/g, ' ').trim().slice(0, n);

  function looksGenerated(id) {
    return /^\d|:|\d{4,}|[0-9a-f]{8,}|^(ember|react|radix|mui|headlessui|rc-|:r)/i.test(id) ||
      (/\d/.test(id) && /[a-z]/i.test(id) && id.length >= 12 && !/[-_]/.test(id));
  }

  function unique(sel) {
    try {
      return document.querySelectorAll(sel).length === 1;
    } catch (_) {
      return false;
    }
  }

  function idSelector(el) {
    if (!el.id || looksGenerated(el.id)) return '';
    const sel = `#${CSS.escape(el.id)}`;
    return unique(sel) ? sel : '';
  }

  // A stable CSS selector: #id, a test/name attribute, or a short nth-of-type path.
  function selectorFor(el) {
    if (!el || el.nodeType !== 1) return '';
    const byId = idSelector(el);
    if (byId) return byId;
    const tag = el.tagName.toLowerCase();
    for (const attr of ['data-testid', 'data-test', 'data-cy', 'name']) {
      const v = el.getAttribute(attr);
      if (!v) continue;
      const sel = `${attr === 'name' ? tag : ''}[${attr}="${CSS.escape(v)}"]`;
      if (unique(sel)) return sel;
    }
    const parts = [];
    let cur = el;
    while (cur && cur.nodeType === 1) {
      const t = cur.tagName.toLowerCase();
      if (t === 'body' || t === 'html') { parts.unshift(t); break; }
      if (cur !== el) {
        const anchor = idSelector(cur);
        if (anchor) { parts.unshift(anchor); break; }
      }
      let part = t;
      const parent = cur.parentElement;
      if (parent) {
        const same = Array.prototype.filter.call(parent.children, (c) => c.tagName === cur.tagName);
        if (same.length > 1) part += `:nth-of-type(${same.indexOf(cur) + 1})`;
      }
      parts.unshift(part);
      cur = parent;
    }
    return parts.join(' > ');
  }

  function isSensitive(el) {
    if (String(el.type || '').toLowerCase() === 'password') return true;
    for (const a of ['name', 'id', 'autocomplete']) {
      const v = el.getAttribute && el.getAttribute(a);
      if (v && SENSITIVE_FIELD.test(v)) return true;
    }
    return false;
  }

  function visibleText(el) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'input') {
      const type = String(el.type || '').toLowerCase();
      if (['button', 'submit', 'reset'].includes(type)) return clean(el.value, TEXT_MAX);
      return clean(el.getAttribute('aria-label') || '', TEXT_MAX);
    }
    if (tag === 'textarea' || tag === 'select' || tag === 'body' || tag === 'html') {
      return clean(el.getAttribute('aria-label') || '', TEXT_MAX);
    }
    return clean(el.innerText || el.textContent || el.getAttribute('aria-label') || el.getAttribute('title') || '', TEXT_MAX);
  }

  function record(data) {
    data.ts = data.ts || Date.now();
    accept('action', data);
  }

  listen(document, 'click', (e) => {
    try {
      if (!e.isTrusted || actionsOff()) return;
      let t = e.target;
      if (t && t.nodeType !== 1) t = t.parentElement;
      if (!t || !t.closest) return;
      const el = t.closest(INTERACTIVE) || t;
      const data = { type: 'click', selector: selectorFor(el) };
      const text = visibleText(el);
      if (text) data.text = text;
      record(data);
    } catch (_) { /* ignore */ }
  });

  // Input: debounced per element, flushed at once on 'change' and before submit.
  const inputTimers = new Map(); // element → timer
  const lastRecorded = new WeakMap(); // element → fingerprint of the last recorded value

  function fieldOf(t) {
    if (!t || t.nodeType !== 1) return null;
    const tag = t.tagName.toLowerCase();
    if (tag === 'input' || tag === 'textarea' || tag === 'select') return t;
    if (t.isContentEditable) return t;
    return null;
  }

  function inputType(el) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' || tag === 'select') return String(el.type || tag).toLowerCase();
    if (tag === 'textarea') return 'textarea';
    return 'contenteditable';
  }

  function rawValue(el) {
    const type = inputType(el);
    if (type === 'checkbox' || type === 'radio') return el.checked ? 'true' : 'false';
    if (type === 'contenteditable') return el.innerText || '';
    if (type === 'file') return Array.from(el.files || [], (f) => f.name).join(', ');
    return String(el.value == null ? '' : el.value);
  }

  function fingerprint(s) {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return `${s.length}:${h >>> 0}`;
  }

  function recordInput(el) {
    const t = inputTimers.get(el);
    if (t) clearTimeout(t);
    inputTimers.delete(el);
    if (actionsOff() || !el.isConnected) return;
    const raw = rawValue(el);
    const fp = fingerprint(raw);
    if (lastRecorded.get(el) === fp) return;
    lastRecorded.set(el, fp);
    const data = { type: 'input', selector: selectorFor(el), input_type: inputType(el) };
    if (!isSensitive(el)) data.value = raw.length > VALUE_MAX ? `${raw.slice(0, VALUE_MAX)}…` : raw;
    record(data);
  }

  function flushInputs() {
    for (const el of Array.from(inputTimers.keys())) recordInput(el);
  }

  listen(document, 'input', (e) => {
    try {
      if (!e.isTrusted || actionsOff()) return;
      const el = fieldOf(e.target);
      if (!el) return;
      const type = inputType(el);
      if (type === 'checkbox' || type === 'radio' || type.startsWith('select')) return; // 'change' records these
      const t = inputTimers.get(el);
      if (t) clearTimeout(t);
      inputTimers.set(el, setTimeout(() => { try { recordInput(el); } catch (_) { /* ignore */ } }, INPUT_DEBOUNCE_MS));
    } catch (_) { /* ignore */ }
  });

  listen(document, 'change', (e) => {
    try {
      if (!e.isTrusted || actionsOff()) return;
      const el = fieldOf(e.target);
      if (el) recordInput(el);
    } catch (_) { /* ignore */ }
  });

  listen(document, 'submit', (e) => {
    try {
      if (actionsOff()) return;
      flushInputs();
      const form = e.target;
      if (!form || form.nodeType !== 1) return;
      const data = { type: 'submit', selector: selectorFor(form) };
      const text = clean(form.getAttribute('aria-label') || form.getAttribute('name') || '', TEXT_MAX);
      if (text) data.text = text;
      record(data);
    } catch (_) { /* ignore */ }
  });

  // Navigation: the initial load, popstate/hashchange here, push/replaceState via inject.js.
  let lastNavURL = '';
  function navigation(url, ts) {
    if (typeof url !== 'string' || !url || url === lastNavURL) return;
    lastNavURL = url;
    record({ type: 'navigation', url, ts: typeof ts === 'number' ? ts : Date.now() });
  }
  if (!lateStart) navigation(location.href);
  listen(window, 'popstate', () => navigation(location.href));
  listen(window, 'hashchange', () => navigation(location.href));

  // Leaving the page: send what is buffered now rather than in 50 ms.
  listen(window, 'pagehide', () => {
    try {
      flushInputs();
      flush();
    } catch (_) { /* ignore */ }
  });

  // ---- on-demand queries from the worker (PROTOCOL.md, "On-demand queries") ---------------

  const MATCH_MAX = 50;
  const DOM_TEXT_MAX = 500;
  const ATTR_MAX = 500;
  const DEPTH_DEFAULT = 3;
  const DEPTH_MAX = 5;
  const NODE_BUDGET = 1000; // elements described in one dom answer, matches and children together
  const HEADINGS_MAX = 50;
  const HEADING_TEXT_MAX = 200;
  const FORMS_MAX = 50;
  const FIELDS_MAX = 200;
  const PROPS_MAX = 100;
  const DEFAULT_STYLES = ['display', 'position', 'width', 'height', 'margin', 'padding', 'flex', 'grid',
    'visibility', 'opacity', 'overflow', 'z-index', 'color', 'background-color', 'font-size'];
  const INTERACTIVE_COUNT = 'a[href],button,input:not([type=hidden]),select,textarea,[tabindex],[contenteditable=true],summary';
  const NOT_FIELDS = new Set(['submit', 'button', 'reset', 'image', 'fieldset', 'output', 'object']);

  // Native DOM accessors: a page can shadow document.* and form.* with named elements
  // (<img name="querySelectorAll">, <input name="elements">), in this world too.
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const N = {
    qsa: Document.prototype.querySelectorAll,
    qs: Document.prototype.querySelector,
    walker: Document.prototype.createTreeWalker,
    title: getter(Document.prototype, 'title'),
    docEl: getter(Document.prototype, 'documentElement'),
    body: getter(Document.prototype, 'body'),
    forms: getter(Document.prototype, 'forms'),
    formElements: getter(HTMLFormElement.prototype, 'elements'),
    tagName: getter(Element.prototype, 'tagName'),
    attrs: getter(Element.prototype, 'attributes'),
    children: getter(Element.prototype, 'children'),
    getAttr: Element.prototype.getAttribute,
    rect: Element.prototype.getBoundingClientRect,
    checkVisibility: Element.prototype.checkVisibility,
    clientRects: Element.prototype.getClientRects,
    scrollHeight: getter(Element.prototype, 'scrollHeight'),
  };
  const all = (sel) => N.qsa.call(document, sel);
  const tagOf = (el) => String(N.tagName.call(el)).toLowerCase();
  const attr = (el, name) => N.getAttr.call(el, name);

  class QueryError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }

  // Drops keys whose value is empty: undefined, null, '', [] or {}. Keeps 0 and false.
  function prune(o) {
    for (const k of Object.keys(o)) {
      const v = o[k];
      if (v === undefined || v === null || v === '' ||
          (Array.isArray(v) && !v.length) ||
          (typeof v === 'object' && !Array.isArray(v) && !Object.keys(v).length)) delete o[k];
    }
    return o;
  }

  // Resolves once the DOM is parsed; 'ready' goes to the worker at that moment.
  let domParsed = document.readyState !== 'loading';
  const parsedWaiters = [];
  const whenParsed = () => (domParsed ? Promise.resolve() : new Promise((r) => parsedWaiters.push(r)));

  function sendReady() {
    if (dead) return;
    if (document.prerendering) return; // sent on activation (prerenderingchange)
    try {
      if (!chrome.runtime || !chrome.runtime.id) return shutdown();
      chrome.runtime.sendMessage({ type: 'ready' }).catch((err) => {
        if (invalidated(err)) shutdown();
      });
    } catch (_) {
      shutdown();
    }
  }

  function onParsed() {
    if (domParsed || document.readyState === 'loading') return;
    domParsed = true;
    for (const r of parsedWaiters.splice(0)) r();
    sendReady();
  }

  if (domParsed) {
    sendReady();
  } else {
    // Registered at document_start, before any page script could stop the event.
    listen(window, 'DOMContentLoaded', onParsed);
    listen(document, 'readystatechange', onParsed);
  }
  listen(document, 'prerenderingchange', () => { if (domParsed) sendReady(); });
  // Back/forward cache: the tab navigated (the worker saw 'loading') to this same document.
  listen(window, 'pageshow', (e) => { if (e.persisted && domParsed) sendReady(); });

  function onRuntimeMessage(msg, sender, sendResponse) {
    if (dead || !msg || typeof msg !== 'object' || msg.type !== 'query' || sender.id !== chrome.runtime.id) return false;
    whenParsed().then(() => answer(msg)).then(sendResponse, (err) => {
      sendResponse({ error: { code: 'internal', message: String((err && err.message) || err) } });
    });
    return true;
  }
  try {
    chrome.runtime.onMessage.addListener(onRuntimeMessage);
  } catch (_) {
    shutdown();
  }

  function answer(msg) {
    const params = msg.params && typeof msg.params === 'object' && !Array.isArray(msg.params) ? msg.params : {};
    try {
      switch (msg.kind) {
        case 'dom': return { result: domQuery(params) };
        case 'page_info': return { result: pageInfo() };
        case 'pilot': return { result: pilot(params) };
        default: throw new QueryError('invalid_param', `unknown query kind ${JSON.stringify(msg.kind)}`);
      }
    } catch (err) {
      if (err instanceof QueryError) return { error: { code: err.code, message: err.message } };
      return { error: { code: 'internal', message: String((err && err.message) || err) } };
    }
  }

  // The element's trimmed textContent cut at `max`, reading only as much of the subtree as that needs
  // (textContent of <body> on a big page is megabytes). → [text, truncated]
  function textOf(el, max) {
    const w = N.walker.call(document, el, NodeFilter.SHOW_TEXT);
    let s = '';
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      s = s ? s + n.data : n.data.trimStart();
      if (s.length > max && s.trimEnd().length > max) return [s.slice(0, max), true];
    }
    return [s.trimEnd(), false];
  }

  const kebab = (p) => (p.startsWith('--') ? p : p.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));

  function domQuery(p) {
    const selector = typeof p.selector === 'string' ? p.selector.trim() : '';
    if (!selector) throw new QueryError('invalid_param', 'selector is required');
    let list;
    try {
      list = all(selector);
    } catch (err) {
      throw new QueryError('invalid_param', String((err && err.message) || err));
    }
    let props = null;
    if (p.include_styles === true) {
      props = DEFAULT_STYLES;
      if (Array.isArray(p.properties) && p.properties.length) {
        props = p.properties.filter((x) => typeof x === 'string' && x.trim()).slice(0, PROPS_MAX).map((x) => x.trim());
      }
    }
    let depth = Math.floor(Number(p.max_depth));
    depth = depth >= 1 ? Math.min(depth, DEPTH_MAX) : DEPTH_DEFAULT; // 0 / absent → the default
    const ctx = { props, depth: p.include_children === true ? depth : 0, budget: NODE_BUDGET };
    const n = Math.min(list.length, MATCH_MAX);
    const matches = [];
    for (let i = 0; i < n; i++) matches.push(describe(list[i], ctx, 0));
    return prune({
      url: location.href,
      title: N.title.call(document),
      matchCount: list.length,
      returnedCount: n,
      matches,
    });
  }

  function attributesOf(el) {
    const out = {};
    const sensitive = tagOf(el) === 'input' && String(attr(el, 'type') || '').toLowerCase() === 'password';
    for (const a of N.attrs.call(el)) {
      if (sensitive && a.name === 'value') continue;
      out[a.name] = a.value.length > ATTR_MAX ? a.value.slice(0, ATTR_MAX) : a.value;
    }
    return out;
  }

  function stylesOf(el, props) {
    const cs = getComputedStyle(el);
    const out = {};
    for (const p of props) {
      const v = cs.getPropertyValue(kebab(p));
      if (v) out[p] = v;
    }
    return out;
  }

  function isVisible(el, r) {
    if (!(r.width > 0 && r.height > 0)) return false;
    if (typeof N.checkVisibility === 'function') {
      return N.checkVisibility.call(el, {
        checkOpacity: true, checkVisibilityCSS: true, opacityProperty: true, visibilityProperty: true,
      });
    }
    const cs = getComputedStyle(el);
    return cs.display !== 'none' && cs.visibility !== 'hidden' && Number(cs.opacity) !== 0 && N.clientRects.call(el).length > 0;
  }

  // A match (depth 0) or one of its child elements.
  function describe(el, ctx, level) {
    ctx.budget--;
    const out = {};
    if (level === 0) {
      try { out.selector = selectorFor(el); } catch (_) { /* clobbered beyond repair: leave it out */ }
    }
    out.tag = tagOf(el);
    out.attributes = attributesOf(el);
    const [text, truncated] = textOf(el, DOM_TEXT_MAX);
    out.text = text;
    if (truncated) out.textTruncated = true;
    if (level === 0) {
      const r = N.rect.call(el);
      out.boundingBox = { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
      out.visible = isVisible(el, r);
    }
    if (ctx.props) out.styles = stylesOf(el, ctx.props);
    if (level < ctx.depth) {
      const kids = [];
      for (const c of N.children.call(el)) {
        if (ctx.budget <= 0) {
          out.childrenTruncated = true;
          break;
        }
        kids.push(describe(c, ctx, level + 1));
      }
      out.children = kids;
    }
    return prune(out);
  }

  function pageInfo() {
    const de = N.docEl.call(document);
    const body = N.body.call(document);
    const forms = [];
    for (const f of N.forms.call(document)) {
      if (forms.length >= FORMS_MAX) break;
      const fields = [];
      const seen = new Set();
      for (const c of N.formElements.call(f)) {
        const tag = tagOf(c);
        const type = tag === 'input' || tag === 'button' ? String(attr(c, 'type') || (tag === 'button' ? 'submit' : 'text')).toLowerCase() : tag;
        if (NOT_FIELDS.has(type) || NOT_FIELDS.has(tag)) continue;
        const name = attr(c, 'name') || attr(c, 'id');
        if (!name || seen.has(name)) continue;
        seen.add(name);
        fields.push(name);
        if (fields.length >= FIELDS_MAX) break;
      }
      forms.push(prune({
        id: attr(f, 'id'),
        name: attr(f, 'name'),
        action: attr(f, 'action'),
        method: (attr(f, 'method') || '').toLowerCase(),
        fields,
      }));
    }
    const headings = [];
    for (const h of all('h1,h2,h3,h4,h5,h6')) {
      if (headings.length >= HEADINGS_MAX) break;
      headings.push(prune({ level: Number(tagOf(h).slice(1)), text: clean(textOf(h, 4 * HEADING_TEXT_MAX)[0], HEADING_TEXT_MAX) }));
    }
    return prune({
      url: location.href,
      title: N.title.call(document),
      viewport: { width: window.innerWidth, height: window.innerHeight },
      scroll: { x: Math.round(window.scrollX), y: Math.round(window.scrollY) },
      documentHeight: Math.max(de ? N.scrollHeight.call(de) : 0, body ? N.scrollHeight.call(body) : 0),
      forms,
      headings,
      links: all('a[href]').length,
      images: all('img').length,
      interactiveElements: all(INTERACTIVE_COUNT).length,
    });
  }

  // ---- AI Web Pilot: the highlighter -----------------------------------------------------------

  const HIGHLIGHT_ID = 'gasoline-highlighter';
  const HIGHLIGHT_MAX_MS = 60000;
  let hl = null; // {div, el, timer, onMove}

  function pilot(p) {
    switch (p.action) {
      case 'highlight': return highlight(p);
      case 'unhighlight':
        unhighlight();
        return { success: true };
      default: throw new QueryError('invalid_param', `unknown pilot action ${JSON.stringify(p.action)}`);
    }
  }

  const box = (r) => ({ x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) });

  function place(div, r) {
    for (const [k, v] of [['left', r.left], ['top', r.top], ['width', r.width], ['height', r.height]]) {
      div.style.setProperty(k, `${v}px`, 'important');
    }
  }

  function unhighlight() {
    if (!hl) return;
    clearTimeout(hl.timer);
    window.removeEventListener('scroll', hl.onMove, true);
    window.removeEventListener('resize', hl.onMove, true);
    hl.div.remove();
    hl = null;
  }

  // Draws a red frame over the first match for duration_ms; the next highlight replaces it.
  function highlight(p) {
    const selector = typeof p.selector === 'string' ? p.selector.trim() : '';
    if (!selector) throw new QueryError('invalid_param', 'selector is required');
    let el;
    try {
      el = N.qs.call(document, selector);
    } catch (err) {
      throw new QueryError('invalid_param', String((err && err.message) || err));
    }
    if (!el) throw new QueryError('not_found', `no element matches ${JSON.stringify(selector)}`);
    let ms = Math.floor(Number(p.duration_ms));
    ms = Number.isFinite(ms) && ms > 0 ? Math.min(ms, HIGHLIGHT_MAX_MS) : 5000;
    unhighlight();
    let r = N.rect.call(el);
    // Entirely out of view: bring it in, so the human sees what the AI points at.
    if (r.bottom < 0 || r.top > window.innerHeight || r.right < 0 || r.left > window.innerWidth) {
      try {
        el.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
      } catch (_) { /* keep where it is */ }
      r = N.rect.call(el);
    }
    const div = document.createElement('div');
    div.id = HIGHLIGHT_ID;
    div.setAttribute('aria-hidden', 'true');
    const css = {
      position: 'fixed', border: '4px solid red', 'box-sizing': 'border-box', 'z-index': '2147483647',
      'pointer-events': 'none', margin: '0', padding: '0', background: 'transparent', display: 'block',
      transform: 'none', opacity: '1', visibility: 'visible', 'border-radius': '0', 'box-shadow': 'none',
      'max-width': 'none', 'max-height': 'none', 'min-width': '0', 'min-height': '0',
    };
    for (const [k, v] of Object.entries(css)) div.style.setProperty(k, v, 'important');
    place(div, r);
    (N.docEl.call(document) || document).appendChild(div);
    let frame = 0;
    const onMove = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        if (hl && hl.div === div && el.isConnected) place(div, N.rect.call(el));
      });
    };
    window.addEventListener('scroll', onMove, { capture: true, passive: true });
    window.addEventListener('resize', onMove, { capture: true, passive: true });
    hl = { div, el, onMove, timer: setTimeout(() => { if (hl && hl.div === div) unhighlight(); }, ms) };
    return { success: true, selector, bounds: box(r) };
  }
})();
