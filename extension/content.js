// Gasoline: isolated-world content script (document_start, top frame).
//
// Takes the private port from inject.js (see PROTOCOL.md), gates what arrives on
// it by the effective settings, records user actions itself, and forwards
// everything to the service worker in batches of at most 50 ms.
(() => {
  'use strict';

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
    if (dead || !m || typeof m !== 'object' || m.nonce !== nonce) return;
    if (!KINDS.has(m.kind) || !m.data || typeof m.data !== 'object') return;
    if (m.kind === 'action') {
      // inject.js only reports history.pushState/replaceState.
      if (m.data.type === 'navigation') navigation(m.data.url, m.data.ts);
      return;
    }
    accept(m.kind, m.data);
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
  }

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
  navigation(location.href);
  listen(window, 'popstate', () => navigation(location.href));
  listen(window, 'hashchange', () => navigation(location.href));

  // Leaving the page: send what is buffered now rather than in 50 ms.
  listen(window, 'pagehide', () => {
    try {
      flushInputs();
      flush();
    } catch (_) { /* ignore */ }
  });
})();
