// Gasoline: page-world capture, part 3 of 4 (see inject.js): fetch and
// XMLHttpRequest, with their bodies up to their caps.
(() => {
  'use strict';

  const G = window.__gasolineInject;
  if (!G) return;
  const { W, dateNow, perfNow, jsonStringify, objectKeys, isArray, binaryLength, addEL, errorText, enqueue, emit } = G;
  const RequestCtor = W.Request;
  const FormDataCtor = W.FormData;
  const URLSearchParamsCtor = W.URLSearchParams;
  const ReadableStreamCtor = W.ReadableStream;
  const TextDecoderCtor = W.TextDecoder;
  const later = setTimeout.bind(W);
  const cancelLater = clearTimeout.bind(W);

  const REQUEST_BODY_MAX = 8 * 1024;
  const RESPONSE_BODY_MAX = 16 * 1024;
  const RESPONSE_READ_MAX_BYTES = 64 * 1024; // enough bytes for 16 K characters
  const RESPONSE_READ_TIMEOUT_MS = 5000;
  const SENSITIVE_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key)$|token|secret|key|password/i;
  const NO_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

  // ---- helpers -----------------------------------------------------------------------

  const sensitiveHeader = (name) => SENSITIVE_HEADER.test(String(name));

  // Headers, [[name, value]] or {name: value} → sanitised {name: value}. A secret header dropped
  // from a request's headers sets rec.auth, for the security audit's "sent without auth" check.
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

  const truncated = (text, max) => (text.length > max ? { text: text.slice(0, max), truncated: true } : { text, truncated: false });

  // A request body as {text, truncated}; a string is kept as it is (it cannot
  // change) and cut when the entry is built.
  function requestBodyPreview(body) {
    if (typeof body === 'string') return body;
    let text;
    if (URLSearchParamsCtor && body instanceof URLSearchParamsCtor) text = body.toString();
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
  const requestBody = (b) => (typeof b === 'string' ? truncated(b, REQUEST_BODY_MAX) : b);

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

  // Reads at most RESPONSE_READ_MAX_BYTES of a cloned response within the
  // timeout, as {text, bytes, complete}. A body whose announced length fits
  // is read whole by the browser (one promise, no stream in script); any
  // other is read chunk by chunk and cancelled at the cap.
  function readCapped(resp, cl) {
    let timer = 0;
    const timeout = new Promise((resolve) => { timer = later(resolve, RESPONSE_READ_TIMEOUT_MS, null); });
    const done = (r) => { cancelLater(timer); return r; };
    if (cl >= 0 && cl <= RESPONSE_READ_MAX_BYTES) {
      return Promise.race([resp.text(), timeout]).then((t) => done(t === null ? { text: '', bytes: 0, complete: false } : { text: t, bytes: cl, complete: true }));
    }
    return readChunks(resp, timeout).then(done);
  }

  async function readChunks(resp, timeout) {
    const reader = resp.body.getReader();
    const chunks = [];
    let total = 0;
    let complete = false;
    try {
      for (;;) {
        const r = await Promise.race([reader.read(), timeout]);
        if (r === null) break;
        if (r.done) { complete = true; break; }
        chunks.push(r.value);
        total += r.value.byteLength;
        if (total > RESPONSE_READ_MAX_BYTES) break;
      }
    } finally {
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
    return { text: new TextDecoderCtor().decode(buf), bytes: total, complete };
  }

  // r: {ts, method, url, status, duration, contentType, reqHeaders, reqBody, respHeaders, respBody}
  function bodyEntry(r) {
    const body = { ts: r.ts, method: r.method, url: r.url };
    if (r.status) body.status = r.status;
    if (r.duration) body.duration_ms = r.duration;
    if (r.contentType) body.content_type = r.contentType;
    let trunc = false;
    const req = requestBody(r.reqBody);
    if (req && req.text) {
      body.request_body = req.text;
      trunc = trunc || req.truncated;
    }
    const resp = r.respBody;
    if (resp) {
      if (resp.text) body.response_body = resp.text;
      trunc = trunc || resp.truncated; // also a body of which nothing could be read
    }
    if (r.reqHeaders) body.request_headers = r.reqHeaders;
    body.has_auth_header = !!r.auth;
    const respHeaders = r.respHeaders && typeof r.respHeaders.get === 'function' ? headerObject(r.respHeaders) : r.respHeaders;
    if (respHeaders) body.response_headers = respHeaders;
    if (trunc) body.truncated = true;
    return body;
  }

  // ---- fetch -------------------------------------------------------------------------
  // During the page's call: the URL, method, request headers and body
  // preview (the page may reuse its init object). When the response
  // arrives: its status and headers; its body is taken as the page reads it
  // (see "response bodies"). Everything else (the entries) is built off the
  // page's promise chain.

  function fetchStart(input, init) {
    const isReq = RequestCtor && input instanceof RequestCtor;
    const where = G.resolve(isReq ? input.url : input);
    if (where.ignored) return null;
    const method = String((init && init.method) || (isReq ? input.method : 'GET')).toUpperCase();
    const rec = { ts: dateNow(), start: perfNow(), method, url: where.url, bodies: G.bodies };
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

  function networkEntry(rec) {
    const entry = { ts: rec.ts, method: rec.method, url: rec.url, duration_ms: rec.duration, type: 'fetch' };
    if (rec.status) entry.status = rec.status;
    if (rec.size < 0 && typeof rec.respText === 'string' && !rec.incomplete && rec.respText.length <= RESPONSE_READ_MAX_BYTES) {
      rec.size = G.utf8Length(rec.respText);
    }
    if (rec.size >= 0) entry.size = rec.size;
    return entry;
  }

  // The response body as {text, truncated}, from what was read of it.
  function responseBody(rec) {
    let t;
    if (typeof rec.respText === 'string') t = truncated(rec.respText, RESPONSE_BODY_MAX);
    else if (rec.respBytes) t = truncated(new TextDecoderCtor().decode(rec.respBytes), RESPONSE_BODY_MAX);
    else if (rec.incomplete) return { text: '', truncated: true };
    else return rec.respBody;
    if (rec.incomplete) t.truncated = true;
    return t;
  }

  const fetchBodyEntry = (rec) => {
    rec.respBody = responseBody(rec);
    return bodyEntry(rec);
  };

  function fetchDone(rec, resp) {
    rec.duration = round(perfNow() - rec.start);
    rec.status = resp.status;
    const headers = resp.headers;
    rec.size = contentLength((k) => headers.get(k));
    const opaque = resp.type === 'opaque' || resp.type === 'opaqueredirect';
    if (!rec.bodies || opaque) {
      enqueue('network', networkEntry, rec);
      return;
    }
    rec.respHeaders = headers; // immutable on a response: read when the entry is built
    rec.contentType = headers.get('content-type') || '';
    const hasBody = rec.method !== 'HEAD' && !NO_BODY_STATUS.has(rec.status);
    if (hasBody && isTextual(rec.contentType)) {
      awaitBody(resp, rec);
      return;
    }
    rec.respBody = hasBody ? { text: binarySummary(rec.size, rec.contentType), truncated: false } : null;
    bodyDone(rec);
  }

  // The body is known (or will never be): the request's entries are queued.
  function bodyDone(rec) {
    if (rec.done) return;
    rec.done = true;
    rec.resp = null;
    enqueue('network', networkEntry, rec);
    if (rec.reqBodyPromise) rec.reqBodyPromise.then((b) => { rec.reqBody = b; }, () => {}).then(() => enqueue('body', fetchBodyEntry, rec));
    else enqueue('body', fetchBodyEntry, rec);
  }

  // ---- response bodies ------------------------------------------------------------------
  // A response's body is taken from the page's own read: Response's readers
  // are wrapped, and the text (or the first bytes) a page reads from a
  // response of its fetch is kept. Reading a clone beside the page's read, as
  // this did before, cost the page's thread ~125 µs a fetch (issue 12). A
  // body the page has not started to read after BODY_WAIT_MS, or reads as a
  // stream (body) or as a blob or form, is read from a clone taken before the
  // page's read, within RESPONSE_READ_MAX_BYTES and RESPONSE_READ_TIMEOUT_MS.
  // A page that gives the response to an API that reads it (the Cache API)
  // before either leaves the body unknown. Responses waiting are bounded by
  // WAITING_MAX: beyond it a body is read from a clone at once.

  const BODY_WAIT_MS = 1000;
  const WAITING_MAX = 500;
  const RP = W.Response && W.Response.prototype;
  const apply = Reflect.apply;
  const then = W.Promise.prototype.then;
  const jsonParse = JSON.parse;
  const origText = RP && RP.text;
  const origClone = RP && RP.clone;
  const waiting = new WeakMap(); // Response → its rec, until a read of its body starts
  let pending = []; // recs whose body is not known yet, oldest first
  let sweepTimer = 0;

  function awaitBody(resp, rec) {
    if (pending.length >= WAITING_MAX || !origText) {
      readClone(resp, rec);
      return;
    }
    rec.resp = resp;
    rec.since = perfNow();
    waiting.set(resp, rec);
    pending.push(rec);
    if (!sweepTimer) sweepTimer = later(sweep, BODY_WAIT_MS);
  }

  // The page reads the body: nothing more to wait for but the read.
  function reading(resp, rec) {
    waiting.delete(resp);
    rec.resp = null;
    rec.since = perfNow();
  }

  function readClone(resp, rec) {
    let clone;
    try { clone = apply(origClone, resp, []); } catch (_) { clone = null; }
    if (!clone) { // the body was read by something that is not the page's script (the Cache API)
      lost(rec);
      return;
    }
    if (rec.resp) reading(resp, rec);
    readCapped(clone, rec.size).then((r) => {
      if (rec.size < 0 && r.complete) rec.size = r.bytes;
      rec.respText = r.text;
      // An announced body read as nothing was cut off (a page being left stops its reads).
      rec.incomplete = !r.complete || (r.text === '' && rec.size > 0);
      bodyDone(rec);
    }, () => bodyDone(rec));
  }

  const gotText = (rec, text) => {
    if (text.length > RESPONSE_READ_MAX_BYTES) {
      // A slice shares the whole string's memory in V8; the concatenation, once flattened, does not.
      rec.respText = `${text.slice(0, RESPONSE_BODY_MAX + 1)} `.slice(0, -1);
      rec.incomplete = true;
    } else rec.respText = text;
    bodyDone(rec);
  };
  const gotBytes = (rec, view) => {
    if (rec.size < 0) rec.size = view.byteLength;
    rec.incomplete = view.byteLength > RESPONSE_READ_MAX_BYTES;
    rec.respBytes = new Uint8Array(view.buffer, view.byteOffset, Math.min(view.byteLength, RESPONSE_READ_MAX_BYTES)).slice();
    bodyDone(rec);
  };
  const lost = (rec) => {
    rec.incomplete = true;
    bodyDone(rec);
  };

  // Each reader takes (response, rec, original reader, arguments) and returns what the page gets.
  const readers = {
    text(resp, rec, orig, args) {
      const p = apply(orig, resp, args);
      apply(then, p, [(t) => gotText(rec, t), () => lost(rec)]);
      return p;
    },
    json(resp, rec) {
      return apply(then, apply(origText, resp, []), [(t) => {
        gotText(rec, t);
        return jsonParse(t);
      }, (e) => {
        lost(rec);
        throw e;
      }]);
    },
    arrayBuffer(resp, rec, orig, args) {
      const p = apply(orig, resp, args);
      apply(then, p, [(b) => gotBytes(rec, new Uint8Array(b)), () => lost(rec)]);
      return p;
    },
    bytes(resp, rec, orig, args) {
      const p = apply(orig, resp, args);
      apply(then, p, [(b) => gotBytes(rec, b), () => lost(rec)]);
      return p;
    },
  };

  if (RP && origText && origClone) {
    for (const name of ['text', 'json', 'arrayBuffer', 'bytes', 'blob', 'formData']) {
      const orig = RP[name];
      if (typeof orig !== 'function') continue;
      const read = readers[name];
      RP[name] = {
        [name]() {
          const rec = waiting.get(this);
          if (rec === undefined) return apply(orig, this, arguments);
          try {
            reading(this, rec);
            if (read) return read(this, rec, orig, arguments);
            readClone(this, rec);
          } catch (_) { /* the page's read goes on */ }
          return apply(orig, this, arguments);
        },
      }[name];
    }
    const body = Object.getOwnPropertyDescriptor(RP, 'body');
    if (body && body.get && body.configurable) {
      const get = body.get;
      Object.defineProperty(RP, 'body', {
        configurable: true,
        enumerable: body.enumerable,
        get: {
          body() {
            const rec = waiting.get(this);
            if (rec !== undefined) {
              try { readClone(this, rec); } catch (_) { /* ignore */ }
            }
            return apply(get, this, []);
          },
        }.body,
      });
    }
  }

  // Bodies not read by the page within BODY_WAIT_MS are read from a clone;
  // a page's read that has not ended within RESPONSE_READ_TIMEOUT_MS is
  // given up (its entries go with the body marked truncated).
  function sweep() {
    sweepTimer = 0;
    const now = perfNow();
    const left = [];
    for (const rec of pending) {
      if (rec.done) continue;
      if (rec.resp) {
        if (now - rec.since >= BODY_WAIT_MS) readClone(rec.resp, rec);
      } else if (now - rec.since >= RESPONSE_READ_TIMEOUT_MS) lost(rec);
      if (!rec.done) left.push(rec);
    }
    pending = left;
    if (pending.length) sweepTimer = later(sweep, BODY_WAIT_MS);
  }

  // Leaving the page: an unread body is read now (the old document still runs
  // for a while); at pagehide, what is still waiting goes with what is known.
  G.onLeave((last) => {
    for (const rec of pending) {
      if (rec.done) continue;
      if (last) lost(rec);
      else if (rec.resp) readClone(rec.resp, rec);
    }
  });

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
      if (!G.busy) {
        try { rec = fetchStart(input, init); } catch (_) { rec = null; }
      }
      const p = apply(origFetch, this, arguments);
      if (!rec) return p;
      // Hand the page a promise that settles as the original does, so a
      // failure the page never handles is still its unhandled rejection.
      return apply(then, p, [
        (r) => { try { fetchDone(rec, r); } catch (_) { /* ignore */ } return r; },
        (e) => { try { fetchFail(rec, e); } catch (_) { /* ignore */ } throw e; },
      ]);
    };
    try { W.fetch = fetch; } catch (_) { /* ignore */ }
  }

  // ---- XMLHttpRequest ------------------------------------------------------------------
  // Read at loadend (the object may be reused right after), so built there.

  const XHR = W.XMLHttpRequest;
  if (typeof XHR === 'function') {
    const proto = XHR.prototype;
    const oOpen = proto.open;
    const oSend = proto.send;
    const oSetHeader = proto.setRequestHeader;
    const xhrs = new WeakMap();

    proto.open = function open(method, url) {
      try {
        xhrs.set(this, { method: String(method || 'GET').toUpperCase(), url: G.resolve(String(url)).url, headers: {} });
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
      if (!rec || rec.sent || G.resolve(rec.url).ignored) return;
      rec.sent = true;
      rec.ts = dateNow();
      rec.start = perfNow();
      rec.bodies = G.bodies;
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
      emit('body', bodyEntry({
        ts: rec.ts, method: rec.method, url: rec.url, status, duration, contentType: ct,
        reqHeaders: objectKeys(rec.headers).length ? rec.headers : undefined, reqBody: rec.reqBody, auth: rec.auth,
        respHeaders: parseRawHeaders(xhr.getAllResponseHeaders()), respBody: resp && resp.body,
      }));
    }
  }
})();
//# sourceURL=gasoline-inject-network.js
