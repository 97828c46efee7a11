// Gasoline: page-world capture (MAIN world, document_start, top frame).
//
// Wraps console, error/unhandledrejection, fetch, XMLHttpRequest, WebSocket and
// history.pushState/replaceState before any page script runs, and hands what it
// sees to content.js over a private MessageChannel (see PROTOCOL.md). Every hook
// is wrapped in try/catch: capture must never change what the page observes.
(() => {
  'use strict';

  // Our own references, taken before the page can replace them.
  const W = window;
  const dateNow = Date.now.bind(Date);
  const perfNow = performance.now.bind(performance);
  const jsonStringify = JSON.stringify;
  const objectKeys = Object.keys;
  const isArray = Array.isArray;
  const isView = ArrayBuffer.isView;
  const addEL = EventTarget.prototype.addEventListener;
  const ErrorEventCtor = W.ErrorEvent;
  const RequestCtor = W.Request;
  const BlobCtor = W.Blob;
  const FormDataCtor = W.FormData;
  const URLSearchParamsCtor = W.URLSearchParams;
  const ReadableStreamCtor = W.ReadableStream;
  const URLCtor = W.URL;

  const REQUEST_BODY_MAX = 8 * 1024;
  const RESPONSE_BODY_MAX = 16 * 1024;
  const RESPONSE_READ_MAX_BYTES = 64 * 1024; // enough bytes for 16 K characters
  const RESPONSE_READ_TIMEOUT_MS = 5000;
  const WS_DATA_MAX = 4 * 1024;
  const PREVIEW_MAX = 500;
  const STACK_MAX = 4000;
  const SENSITIVE_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key)$|token|secret|key|password/i;

  // ---- channel to content.js -------------------------------------------------

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

  const nonce = uuid();
  let post = null;
  // null until content.js sends the effective settings: capture everything.
  let settings = null;
  let serverHosts = new Set();

  try {
    const channel = new MessageChannel();
    const port = channel.port1;
    post = port.postMessage.bind(port);
    port.onmessage = (e) => {
      const m = e.data;
      if (!m || m.nonce !== nonce || m.type !== 'settings' || !m.settings) return;
      settings = m.settings;
      serverHosts = hostsOf(settings.server_url);
    };
    W.postMessage({ __gasoline: 'hello', nonce }, '*', [channel.port2]);
  } catch (_) {
    post = null;
  }

  function emit(kind, data) {
    if (!post) return;
    try {
      post({ nonce, kind, data });
    } catch (_) { /* never throw into the page */ }
  }

  // ---- gates -------------------------------------------------------------------

  function wantConsole(level) {
    if (!settings) return true;
    switch (settings.log_level) {
      case 'all': return true;
      case 'warn': return level === 'error' || level === 'warn';
      default: return level === 'error';
    }
  }
  const wantBodies = () => !settings || settings.network_bodies !== false;
  const wantWsLifecycle = () => !settings || settings.ws_mode !== 'off';
  const wantWsMessages = () => !settings || settings.ws_mode === 'messages';

  // The Gasoline server's host:port under every loopback name it answers to.
  function hostsOf(serverURL) {
    const hosts = new Set();
    try {
      const u = new URLCtor(serverURL);
      hosts.add(u.host);
      if (['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) {
        const port = u.port || '80';
        for (const h of ['127.0.0.1', 'localhost', '[::1]']) hosts.add(`${h}:${port}`);
      }
    } catch (_) { /* no server known yet */ }
    return hosts;
  }

  function ignoredURL(url) {
    try {
      const u = new URLCtor(url);
      if (u.protocol === 'chrome-extension:') return true;
      return serverHosts.has(u.host) || serverHosts.has(`${u.hostname}:${u.port || (u.protocol === 'https:' || u.protocol === 'wss:' ? '443' : '80')}`);
    } catch (_) {
      return false;
    }
  }

  function absolute(url) {
    try {
      return new URLCtor(url, W.location.href).href;
    } catch (_) {
      return String(url);
    }
  }

  // ---- previews ------------------------------------------------------------------

  const clip = (s, n) => (s.length > n ? `${s.slice(0, n)}…` : s);

  function errorText(e) {
    try {
      const name = e && e.name ? String(e.name) : 'Error';
      const msg = e && e.message !== undefined ? String(e.message) : '';
      return msg ? `${name}: ${msg}` : name;
    } catch (_) {
      return 'Error';
    }
  }

  function trimStack(s) {
    if (typeof s !== 'string' || !s) return '';
    return clip(s.split('\n').slice(0, 25).join('\n'), STACK_MAX);
  }

  function isNode(v) {
    return typeof v.nodeType === 'number' && typeof v.nodeName === 'string';
  }

  function describeNode(n) {
    if (n.nodeType === 1) {
      let s = `<${String(n.tagName).toLowerCase()}`;
      if (n.id) s += `#${n.id}`;
      const cls = typeof n.className === 'string' ? n.className.trim().split(/\s+/).filter(Boolean).slice(0, 3) : [];
      if (cls.length) s += `.${cls.join('.')}`;
      return `${s}>`;
    }
    if (n.nodeType === 3) return `#text "${clip(String(n.data), 80)}"`;
    return String(n.nodeName);
  }

  function isError(v) {
    return v instanceof Error || (v && typeof v.message === 'string' && typeof v.stack === 'string');
  }

  // A JSON-like rendering with a character budget, a depth limit, cycles and
  // DOM nodes handled, and no toJSON or toString of page objects called.
  function ser(v, depth, path, budget) {
    if (budget.left <= 0) return '…';
    let s;
    switch (typeof v) {
      case 'string': s = jsonStringify(clip(v, 200)); break;
      case 'number': case 'boolean': s = String(v); break;
      case 'undefined': s = 'undefined'; break;
      case 'bigint': s = `${v}n`; break;
      case 'symbol': s = v.toString(); break;
      case 'function': s = `[Function: ${v.name || 'anonymous'}]`; break;
      default:
        if (v === null) { s = 'null'; break; }
        if (path.includes(v)) { s = '[Circular]'; break; }
        if (v === W) { s = '[Window]'; break; }
        if (isNode(v)) { s = describeNode(v); break; }
        if (isError(v)) { s = jsonStringify(errorText(v)); break; }
        if (v instanceof Date) { s = isNaN(v) ? 'Invalid Date' : v.toISOString(); break; }
        if (v instanceof RegExp) { s = String(v); break; }
        if (v instanceof Map) { s = `[Map(${v.size})]`; break; }
        if (v instanceof Set) { s = `[Set(${v.size})]`; break; }
        if (v instanceof ArrayBuffer) { s = `[ArrayBuffer(${v.byteLength})]`; break; }
        if (isView(v)) { s = `[${v.constructor && v.constructor.name}(${v.byteLength} bytes)]`; break; }
        if (typeof Promise !== 'undefined' && v instanceof Promise) { s = '[Promise]'; break; }
        if (depth >= 4) { s = isArray(v) ? '[Array]' : '[Object]'; break; }
        path.push(v);
        try {
          const parts = [];
          if (isArray(v)) {
            const n = Math.min(v.length, 50);
            for (let i = 0; i < n && budget.left > 0; i++) parts.push(ser(v[i], depth + 1, path, budget));
            if (v.length > n) parts.push(`… ${v.length - n} more`);
            s = `[${parts.join(',')}]`;
          } else {
            const keys = objectKeys(v);
            const n = Math.min(keys.length, 50);
            for (let i = 0; i < n && budget.left > 0; i++) {
              let val;
              try { val = v[keys[i]]; } catch (_) { val = '[Threw]'; }
              parts.push(`${jsonStringify(keys[i])}:${ser(val, depth + 1, path, budget)}`);
            }
            if (keys.length > n) parts.push(`… ${keys.length - n} more`);
            s = `{${parts.join(',')}}`;
          }
        } finally {
          path.pop();
        }
    }
    budget.left -= s.length;
    return s;
  }

  function preview(v) {
    let s;
    try {
      if (typeof v === 'string') s = v;
      else if (v !== null && typeof v === 'object' && isError(v)) s = errorText(v);
      else if (v !== null && typeof v === 'object' && isNode(v)) s = describeNode(v);
      else s = ser(v, 0, [], { left: PREVIEW_MAX + 1 });
    } catch (_) {
      try { s = String(v); } catch (__) { s = '[unserializable]'; }
    }
    return clip(s, PREVIEW_MAX);
  }

  // ---- console, errors, rejections ------------------------------------------------

  let busy = false; // re-entrancy guard: our own work must not be captured

  for (const level of ['debug', 'log', 'info', 'warn', 'error']) {
    const orig = console[level];
    if (typeof orig !== 'function') continue;
    const wrapped = {
      [level](...args) {
        if (!busy) {
          busy = true;
          try {
            if (wantConsole(level)) {
              const entry = { ts: dateNow(), level, kind: 'console', message: args.length ? preview(args[0]) : '' };
              if (args.length > 1) entry.args = args.slice(1, 21).map(preview);
              const err = args.find((a) => a !== null && typeof a === 'object' && isError(a));
              const stack = err ? trimStack(err.stack) : '';
              if (stack) entry.stack = stack;
              emit('log', entry);
            }
          } catch (_) { /* ignore */ } finally {
            busy = false;
          }
        }
        return orig.apply(this, args);
      },
    }[level];
    try { console[level] = wrapped; } catch (_) { /* frozen console */ }
  }

  try {
    addEL.call(W, 'error', (e) => {
      try {
        if (!(e instanceof ErrorEventCtor)) return; // resource load errors
        const err = e.error;
        const entry = {
          ts: dateNow(),
          level: 'error',
          kind: 'exception',
          message: e.message || (err ? errorText(err) : 'Script error'),
        };
        if (e.filename) entry.source = `${e.filename}:${e.lineno}:${e.colno}`;
        const stack = err && typeof err === 'object' ? trimStack(err.stack) : '';
        if (stack) entry.stack = stack;
        emit('log', entry);
      } catch (_) { /* ignore */ }
    }, true);

    addEL.call(W, 'unhandledrejection', (e) => {
      try {
        const r = e.reason;
        const isErr = r !== null && typeof r === 'object' && isError(r);
        const entry = {
          ts: dateNow(),
          level: 'error',
          kind: 'rejection',
          message: isErr ? errorText(r) : preview(r),
        };
        const stack = isErr ? trimStack(r.stack) : '';
        if (stack) entry.stack = stack;
        emit('log', entry);
      } catch (_) { /* ignore */ }
    }, true);
  } catch (_) { /* ignore */ }

  // ---- network helpers -------------------------------------------------------------

  const sensitiveHeader = (name) => SENSITIVE_HEADER.test(String(name));

  // Headers, [[name, value]] or {name: value} → sanitised {name: value};
  // a secret header dropped from a request's headers sets rec.auth (has_auth_header).
  function headerObject(h, rec) {
    if (!h) return undefined;
    const out = {};
    const put = (k, v) => {
      if (!sensitiveHeader(k)) out[String(k).toLowerCase()] = String(v);
      else if (rec) rec.auth = true;
    };
    try {
      if (typeof h.forEach === 'function' && typeof h.get === 'function') h.forEach((v, k) => put(k, v));
      else if (isArray(h)) h.forEach((p) => { if (p && p.length >= 2) put(p[0], p[1]); });
      else if (typeof h === 'object') objectKeys(h).forEach((k) => put(k, h[k]));
    } catch (_) { /* ignore */ }
    return objectKeys(out).length ? out : undefined;
  }

  function parseRawHeaders(raw) {
    const out = {};
    for (const line of String(raw || '').split(/\r?\n/)) {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const k = line.slice(0, i).trim().toLowerCase();
      if (!sensitiveHeader(k)) out[k] = line.slice(i + 1).trim();
    }
    return objectKeys(out).length ? out : undefined;
  }

  function binaryLength(b) {
    if (b instanceof ArrayBuffer || isView(b)) return b.byteLength;
    if (BlobCtor && b instanceof BlobCtor) return b.size;
    return -1;
  }

  // A request body as {text, truncated}.
  function requestBodyPreview(body) {
    let text;
    if (typeof body === 'string') text = body;
    else if (URLSearchParamsCtor && body instanceof URLSearchParamsCtor) text = body.toString();
    else if (FormDataCtor && body instanceof FormDataCtor) {
      const names = [];
      body.forEach((v, k) => names.push(typeof v === 'string' ? k : `${k} (file)`));
      text = `[FormData: ${names.join(', ')}]`;
    } else if (binaryLength(body) >= 0) text = `[Binary: ${binaryLength(body)} bytes]`;
    else if (ReadableStreamCtor && body instanceof ReadableStreamCtor) text = '[Stream]';
    else if (body && typeof body === 'object' && body.nodeType === 9) text = '[Document]';
    else text = String(body);
    return truncated(text, REQUEST_BODY_MAX);
  }

  function truncated(text, max) {
    return text.length > max ? { text: text.slice(0, max), truncated: true } : { text, truncated: false };
  }

  function isTextual(ct) {
    const t = String(ct || '').toLowerCase();
    if (t.includes('text/event-stream')) return false;
    return /^text\/|json|xml|javascript|ecmascript|x-www-form-urlencoded/.test(t);
  }

  function contentLength(get) {
    try {
      const v = get('content-length');
      if (v === null || v === undefined || v === '') return -1;
      const n = Number(v);
      return Number.isFinite(n) && n >= 0 ? n : -1;
    } catch (_) {
      return -1;
    }
  }

  const binarySummary = (n, ct) => `[Binary: ${n >= 0 ? n : 'unknown'} bytes, type: ${ct || 'unknown'}]`;
  const round = (ms) => Math.round(ms * 10) / 10;

  // Reads at most RESPONSE_READ_MAX_BYTES of a cloned response, then cancels.
  async function readCapped(resp) {
    const reader = resp.body.getReader();
    const chunks = [];
    let total = 0;
    let complete = false;
    const deadline = perfNow() + RESPONSE_READ_TIMEOUT_MS;
    let timer;
    const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve({ timeout: true }), RESPONSE_READ_TIMEOUT_MS); });
    try {
      while (perfNow() < deadline) {
        const r = await Promise.race([reader.read(), timeout]);
        if (r.timeout) break;
        if (r.done) { complete = true; break; }
        chunks.push(r.value);
        total += r.value.byteLength;
        if (total > RESPONSE_READ_MAX_BYTES) break;
      }
    } finally {
      clearTimeout(timer);
      if (!complete) reader.cancel().catch(() => {});
    }
    const buf = new Uint8Array(Math.min(total, RESPONSE_READ_MAX_BYTES));
    let off = 0;
    for (const c of chunks) {
      if (off >= buf.length) break;
      const part = c.subarray(0, buf.length - off);
      buf.set(part, off);
      off += part.length;
    }
    return { text: new TextDecoder().decode(buf), bytes: total, complete };
  }

  function emitBody(rec, status, durationMS, ct, respHeaders, respBody) {
    const body = { ts: rec.ts, method: rec.method, url: rec.url };
    if (status) body.status = status;
    if (durationMS) body.duration_ms = durationMS;
    if (ct) body.content_type = ct;
    let trunc = false;
    if (rec.reqBody && rec.reqBody.text) {
      body.request_body = rec.reqBody.text;
      trunc = trunc || rec.reqBody.truncated;
    }
    if (respBody && respBody.text) {
      body.response_body = respBody.text;
      trunc = trunc || respBody.truncated;
    }
    if (rec.reqHeaders) body.request_headers = rec.reqHeaders;
    if (respHeaders) body.response_headers = respHeaders;
    if (trunc) body.truncated = true;
    body.has_auth_header = !!rec.auth;
    emit('body', body);
  }

  // ---- fetch -------------------------------------------------------------------------

  function fetchStart(input, init) {
    const isReq = RequestCtor && input instanceof RequestCtor;
    const url = absolute(isReq ? input.url : String(input));
    if (ignoredURL(url)) return null;
    const method = String((init && init.method) || (isReq ? input.method : 'GET')).toUpperCase();
    const rec = { ts: dateNow(), start: perfNow(), method, url, bodies: wantBodies() };
    if (rec.bodies) {
      rec.reqHeaders = headerObject(init && init.headers ? init.headers : isReq ? input.headers : null, rec);
      if (init && init.body !== undefined && init.body !== null) {
        rec.reqBody = requestBodyPreview(init.body);
      } else if (isReq && method !== 'GET' && method !== 'HEAD' && input.body && !input.bodyUsed) {
        try {
          rec.reqBodyPromise = input.clone().text().then((t) => truncated(t, REQUEST_BODY_MAX), () => null);
        } catch (_) { /* ignore */ }
      }
    }
    return rec;
  }

  function fetchDone(rec, resp) {
    const duration = round(perfNow() - rec.start);
    const get = (k) => resp.headers.get(k);
    const ct = get('content-type') || '';
    const cl = contentLength(get);
    const entry = { ts: rec.ts, method: rec.method, url: rec.url, duration_ms: duration, type: 'fetch' };
    if (resp.status) entry.status = resp.status;
    if (cl >= 0) entry.size = cl;

    const opaque = resp.type === 'opaque' || resp.type === 'opaqueredirect';
    if (!rec.bodies || opaque) {
      emit('network', entry);
      return;
    }
    const respHeaders = headerObject(resp.headers);
    const reqBodyReady = rec.reqBodyPromise
      ? rec.reqBodyPromise.then((b) => { rec.reqBody = b; }, () => {})
      : Promise.resolve();

    if (!resp.body || !isTextual(ct)) {
      emit('network', entry);
      const summary = resp.body ? { text: binarySummary(cl, ct), truncated: false } : null;
      reqBodyReady.then(() => emitBody(rec, resp.status, duration, ct, respHeaders, summary));
      return;
    }
    // Clone now, synchronously, before the page's own handlers read the body.
    const clone = resp.clone();
    readCapped(clone).then((r) => {
      if (cl < 0 && r.complete) entry.size = r.bytes;
      emit('network', entry);
      const t = truncated(r.text, RESPONSE_BODY_MAX);
      if (!r.complete) t.truncated = true;
      return reqBodyReady.then(() => emitBody(rec, resp.status, duration, ct, respHeaders, t));
    }).catch(() => {
      emit('network', entry);
    });
  }

  function fetchFail(rec, err) {
    const aborted = !!err && err.name === 'AbortError';
    const entry = {
      ts: rec.ts, method: rec.method, url: rec.url, duration_ms: round(perfNow() - rec.start), type: 'fetch',
      error: errorText(err),
    };
    if (aborted) entry.aborted = true;
    else entry.failed = true;
    emit('network', entry);
  }

  const origFetch = W.fetch;
  if (typeof origFetch === 'function') {
    const fetch = function fetch(input, init) {
      let rec = null;
      if (!busy) {
        try { rec = fetchStart(input, init); } catch (_) { rec = null; }
      }
      const p = origFetch.apply(this, arguments);
      if (!rec) return p;
      // Hand the page a promise that settles as the original does, so a
      // failure the page never handles is still its unhandled rejection.
      return p.then(
        (r) => { try { fetchDone(rec, r); } catch (_) { /* ignore */ } return r; },
        (e) => { try { fetchFail(rec, e); } catch (_) { /* ignore */ } throw e; },
      );
    };
    try { W.fetch = fetch; } catch (_) { /* ignore */ }
  }

  // ---- XMLHttpRequest ------------------------------------------------------------------

  const XHR = W.XMLHttpRequest;
  if (typeof XHR === 'function') {
    const proto = XHR.prototype;
    const oOpen = proto.open;
    const oSend = proto.send;
    const oSetHeader = proto.setRequestHeader;
    const xhrs = new WeakMap();

    proto.open = function open(method, url) {
      try {
        xhrs.set(this, { method: String(method || 'GET').toUpperCase(), url: absolute(String(url)), headers: {} });
      } catch (_) { /* ignore */ }
      return oOpen.apply(this, arguments);
    };

    proto.setRequestHeader = function setRequestHeader(name, value) {
      try {
        const rec = xhrs.get(this);
        if (rec && !sensitiveHeader(name)) rec.headers[String(name).toLowerCase()] = String(value);
        else if (rec) rec.auth = true;
      } catch (_) { /* ignore */ }
      return oSetHeader.apply(this, arguments);
    };

    proto.send = function send(body) {
      try { xhrStart(this, body); } catch (_) { /* ignore */ }
      return oSend.apply(this, arguments);
    };

    function xhrStart(xhr, body) {
      const rec = xhrs.get(xhr);
      if (!rec || rec.sent || ignoredURL(rec.url)) return;
      rec.sent = true;
      rec.ts = dateNow();
      rec.start = perfNow();
      rec.bodies = wantBodies();
      if (rec.bodies && body !== undefined && body !== null) rec.reqBody = requestBodyPreview(body);
      const mine = () => xhrs.get(xhr) === rec;
      addEL.call(xhr, 'error', () => { rec.failed = true; rec.error = rec.error || 'network error'; });
      addEL.call(xhr, 'timeout', () => { rec.failed = true; rec.error = 'timeout'; });
      addEL.call(xhr, 'abort', () => { rec.aborted = true; rec.error = 'aborted'; });
      addEL.call(xhr, 'loadend', () => {
        if (!mine()) return;
        try { xhrDone(xhr, rec); } catch (_) { /* ignore */ }
      });
    }

    function xhrResponse(xhr, ct, cl) {
      const rt = xhr.responseType;
      if (rt === '' || rt === 'text') {
        const text = xhr.responseText || '';
        return { size: text.length, body: isTextual(ct) ? truncated(text, RESPONSE_BODY_MAX) : { text: binarySummary(cl >= 0 ? cl : text.length, ct), truncated: false } };
      }
      if (rt === 'json') {
        let text = '';
        try { text = xhr.response === null ? '' : jsonStringify(xhr.response) || ''; } catch (_) { text = '[unserializable JSON]'; }
        return { size: text.length, body: truncated(text, RESPONSE_BODY_MAX) };
      }
      if (rt === 'arraybuffer' || rt === 'blob') {
        const n = xhr.response ? binaryLength(xhr.response) : -1;
        return { size: n, body: { text: binarySummary(cl >= 0 ? cl : n, ct), truncated: false } };
      }
      return { size: -1, body: { text: '[Document]', truncated: false } };
    }

    function xhrDone(xhr, rec) {
      const duration = round(perfNow() - rec.start);
      const status = xhr.status || 0;
      const entry = { ts: rec.ts, method: rec.method, url: rec.url, duration_ms: duration, type: 'xhr' };
      if (status) entry.status = status;
      if (rec.aborted) { entry.aborted = true; entry.error = rec.error; } else if (rec.failed || !status) {
        entry.failed = true;
        entry.error = rec.error || 'network error';
      }
      if (entry.aborted || entry.failed) {
        emit('network', entry);
        return;
      }
      const ct = xhr.getResponseHeader('content-type') || '';
      const cl = contentLength((k) => xhr.getResponseHeader(k));
      let resp = null;
      try { resp = xhrResponse(xhr, ct, cl); } catch (_) { resp = null; }
      if (cl >= 0) entry.size = cl;
      else if (resp && resp.size >= 0) entry.size = resp.size;
      emit('network', entry);
      if (!rec.bodies) return;
      const r = { ts: rec.ts, method: rec.method, url: rec.url, reqBody: rec.reqBody, auth: rec.auth };
      const hdrs = objectKeys(rec.headers).length ? rec.headers : undefined;
      r.reqHeaders = hdrs;
      emitBody(r, status, duration, ct, parseRawHeaders(xhr.getAllResponseHeaders()), resp && resp.body);
    }
  }

  // ---- WebSocket -------------------------------------------------------------------------

  function utf8Length(s) {
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) { n += 4; i++; } else n += 3;
    }
    return n;
  }

  function wsPayload(data) {
    if (typeof data === 'string') {
      const out = { data: data.length > WS_DATA_MAX ? data.slice(0, WS_DATA_MAX) : data, size: utf8Length(data) };
      if (data.length > WS_DATA_MAX) out.truncated = true;
      return out;
    }
    const n = binaryLength(data);
    return { data: `[Binary: ${n >= 0 ? n : 'unknown'} bytes]`, size: n >= 0 ? n : undefined };
  }

  const OrigWebSocket = W.WebSocket;
  if (typeof OrigWebSocket === 'function') {
    const sockets = new WeakMap(); // socket → {id, url} when captured

    const wsEmit = (info, fields) => emit('ws', Object.assign({ ts: dateNow(), id: info.id, url: info.url }, fields));

    const setup = (ws) => {
      const url = String(ws.url);
      if (ignoredURL(url)) return;
      const info = { id: uuid(), url };
      sockets.set(ws, info);
      addEL.call(ws, 'open', () => {
        try { if (wantWsLifecycle()) wsEmit(info, { event: 'open' }); } catch (_) { /* ignore */ }
      });
      addEL.call(ws, 'close', (e) => {
        try {
          if (!wantWsLifecycle()) return;
          const f = { event: 'close' };
          if (e.code) f.code = e.code;
          if (e.reason) f.reason = String(e.reason);
          wsEmit(info, f);
        } catch (_) { /* ignore */ }
      });
      addEL.call(ws, 'error', () => {
        try { if (wantWsLifecycle()) wsEmit(info, { event: 'error' }); } catch (_) { /* ignore */ }
      });
      addEL.call(ws, 'message', (e) => {
        try {
          if (wantWsMessages()) wsEmit(info, Object.assign({ event: 'message', direction: 'incoming' }, wsPayload(e.data)));
        } catch (_) { /* ignore */ }
      });
    };

    // A subclass, so instanceof, the constants and the prototype chain still work.
    const WebSocket = class WebSocket extends OrigWebSocket {
      constructor(url, protocols) {
        if (arguments.length > 1) super(url, protocols);
        else super(url);
        try { setup(this); } catch (_) { /* ignore */ }
      }

      send(data) {
        const r = super.send(data);
        try {
          const info = sockets.get(this);
          if (info && wantWsMessages()) wsEmit(info, Object.assign({ event: 'message', direction: 'outgoing' }, wsPayload(data)));
        } catch (_) { /* ignore */ }
        return r;
      }
    };
    try {
      Object.defineProperty(W, 'WebSocket', { value: WebSocket, writable: true, configurable: true, enumerable: false });
    } catch (_) { /* ignore */ }
  }

  // ---- history: pushState/replaceState are invisible to the isolated world ------------------

  try {
    const HP = W.History.prototype;
    for (const name of ['pushState', 'replaceState']) {
      const orig = HP[name];
      if (typeof orig !== 'function') continue;
      HP[name] = {
        [name](...args) {
          const r = orig.apply(this, args);
          try { emit('action', { ts: dateNow(), type: 'navigation', url: W.location.href }); } catch (_) { /* ignore */ }
          return r;
        },
      }[name];
    }
  } catch (_) { /* ignore */ }
})();
