// Gasoline: page-world capture, part 4 of 5 (see inject.js): fetch and
// XMLHttpRequest, with their bodies up to their caps (a fetch's response
// body: inject-bodies.js).
(() => {
  'use strict';

  const G = window.__gasolineInject;
  if (!G) return;
  const { W, dateNow, perfNow, jsonStringify, objectKeys, isArray, binaryLength, addEL, errorText, enqueue, emit, apply, then, truncated, RESPONSE_BODY_MAX } = G;
  const RequestCtor = W.Request;
  const HeadersCtor = W.Headers;
  const FormDataCtor = W.FormData;
  const URLSearchParamsCtor = W.URLSearchParams;
  const ReadableStreamCtor = W.ReadableStream;

  const REQUEST_BODY_MAX = 8 * 1024;
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
      // A Headers is iterated, not given a callback: a call from the browser into script for each
      // header costs more (PERFORMANCE.md).
      if (HeadersCtor && h instanceof HeadersCtor) for (const p of h) put(p[0], p[1]);
      else if (typeof h.forEach === 'function' && typeof h.get === 'function') h.forEach((v, k) => put(k, v));
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
  const SEEN_MAX = 128; // observed entries kept for their phases

  // ---- phases -------------------------------------------------------------------------
  // A request's phases are those of its PerformanceResourceTiming entry: its initiatorType, its
  // URL, and a startTime within the hook's own call to the original fetch or send (rec.start to
  // rec.sentAt), where the browser starts timing it. Script makes one call at a time, so two
  // requests to one URL share no such span but an instant of the coarse clock: an entry another
  // request took is skipped, and two left for one request are none (no phases rather than
  // another's). Missing entries (a body still coming) are no phases. Looked up when the entry is
  // built: a fetch's after its body is read, an XHR's after loadend, when the browser has added
  // the entry. The getters are our own, taken now: reading an entry runs none of the page's code;
  // lists are walked by index for the same reason.
  // Where the entries are: an observer of our own, started at the page's first fetch or XHR, is
  // given every entry added from then on (the page's buffer stops taking them when full: 250 by
  // default, which a dev server's modules fill), and its takeRecords() those not yet handed over.
  // The newest fetch and XHR ones are kept in a ring with their start and URL, read once, so a
  // request started after the observer is found there alone. The page's buffer is walked only for
  // a request that started before it: getEntriesByName makes an array of every entry of the URL,
  // a cost a page polling one URL paid on each request (PERFORMANCE.md).
  const phases = (() => {
    const gopd = Object.getOwnPropertyDescriptor;
    const PerfC = W.Performance;
    const EntryC = W.PerformanceEntry;
    const ResC = W.PerformanceResourceTiming;
    const perf = W.performance;
    const none = { of: () => undefined, watch: () => {} };
    if (!PerfC || !EntryC || !ResC || !perf) return none;
    const byName = PerfC.prototype.getEntriesByName;
    const getter = (C, k) => { const d = gopd(C.prototype, k); return d && typeof d.get === 'function' ? d.get : null; };
    const KEYS = ['initiatorType', 'domainLookupStart', 'domainLookupEnd', 'connectStart', 'connectEnd', 'secureConnectionStart', 'requestStart', 'responseStart', 'responseEnd'];
    const get = { startTime: getter(EntryC, 'startTime'), name: getter(EntryC, 'name') };
    for (const k of KEYS) get[k] = getter(ResC, k);
    if (typeof byName !== 'function' || objectKeys(get).some((k) => !get[k])) return none;
    const taken = new WeakSet();
    const read = (e, k) => apply(get[k], e, []);
    const span = (e, a, b) => {
      const from = read(e, a);
      const to = read(e, b);
      return from > 0 && to >= from ? round(to - from) : 0;
    };
    // The ring: entry, startTime, name, initiatorType of the newest fetch and XHR entries observed.
    const seen = new Array(SEEN_MAX);
    const seenAt = new Array(SEEN_MAX);
    const seenName = new Array(SEEN_MAX);
    const seenType = new Array(SEEN_MAX);
    let seenNext = 0;
    const keep = (list) => {
      for (let i = 0; i < list.length; i++) {
        const e = list[i];
        const t = read(e, 'initiatorType');
        if (t !== 'fetch' && t !== 'xmlhttprequest') continue;
        const k = seenNext++ % SEEN_MAX;
        seen[k] = e;
        seenAt[k] = read(e, 'startTime');
        seenName[k] = read(e, 'name');
        seenType[k] = t;
      }
    };
    // The observer starts at the page's first fetch or XHR, before it is sent: a page's load
    // (its scripts, styles, images) costs it nothing, and no request it could time is missed.
    const PO = W.PerformanceObserver;
    const poObserve = PO && PO.prototype.observe;
    const poTake = PO && PO.prototype.takeRecords;
    const getEntries = W.PerformanceObserverEntryList && W.PerformanceObserverEntryList.prototype.getEntries;
    let observer = null;
    let watchedFrom = Infinity; // requests started from then on are the observer's alone
    let watching = false;
    const watch = () => {
      if (watching) return;
      watching = true;
      try {
        const po = new PO((l) => keep(apply(getEntries, l, [])));
        const from = perfNow();
        apply(poObserve, po, [{ type: 'resource' }]);
        if (typeof poTake === 'function') {
          observer = po;
          watchedFrom = from;
        }
      } catch (_) { /* the buffer's entries alone */ }
    };
    const PHASES = [['dns', 'domainLookupStart', 'domainLookupEnd'], ['connect', 'connectStart', 'connectEnd'],
      ['tls', 'secureConnectionStart', 'connectEnd'], ['wait', 'requestStart', 'responseStart'], ['download', 'responseStart', 'responseEnd']];
    // rec: {url, start, sentAt}; type: 'fetch' or 'xmlhttprequest'. {dns, connect, tls, wait, download} (those measured) or undefined.
    const of = (rec, type) => {
      if (!(rec.sentAt >= rec.start)) return undefined;
      if (observer) keep(apply(poTake, observer, []));
      let found = null;
      const fits = (e) => { // false: a second entry fits
        if (e === found || taken.has(e) || read(e, 'initiatorType') !== type) return true;
        if (found) return false;
        found = e;
        return true;
      };
      for (let i = 0; i < SEEN_MAX && seen[i]; i++) {
        const at = seenAt[i];
        if (at < rec.start || at > rec.sentAt || seenName[i] !== rec.url || seenType[i] !== type || taken.has(seen[i])) continue;
        if (found) return undefined;
        found = seen[i];
      }
      if (rec.start < watchedFrom) {
        const list = apply(byName, perf, [rec.url, 'resource']);
        // The list is in startTime order: walked from its newest, it ends at the first entry that
        // started before the request, however many of the URL the page's buffer holds.
        for (let i = list.length - 1; i >= 0; i--) {
          const at = read(list[i], 'startTime');
          if (at > rec.sentAt) continue;
          if (at < rec.start) break;
          if (!fits(list[i])) return undefined;
        }
      }
      if (!found || !(read(found, 'responseEnd') > 0)) return undefined;
      taken.add(found);
      let t;
      for (let i = 0; i < PHASES.length; i++) {
        const v = span(found, PHASES[i][1], PHASES[i][2]);
        if (v > 0) (t || (t = {}))[PHASES[i][0]] = v;
      }
      return t;
    };
    return { of, watch };
  })();
  const timed = (entry, rec, type) => {
    let t;
    try { t = phases.of(rec, type); } catch (_) { t = undefined; }
    if (t) entry.timing = t;
    return entry;
  };
  G.phases = phases; // for the tests

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
  // (inject-bodies.js). Everything else (the entries) is built off the
  // page's promise chain.

  function fetchStart(input, init) {
    const isReq = RequestCtor && input instanceof RequestCtor;
    const where = G.resolve(isReq ? input.url : input);
    if (where.ignored) return null;
    const method = String((init && init.method) || (isReq ? input.method : 'GET')).toUpperCase();
    phases.watch();
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
    if (rec.size < 0) rec.size = G.bodySize(rec);
    if (rec.size >= 0) entry.size = rec.size;
    return timed(entry, rec, 'fetch');
  }

  // A request whose body is captured is one 'request' event: the body entry's fields and the
  // network entry's type and size (the worker makes the two entries of it): one event instead of two
  // is half of what each request costs the page on its way out.
  function requestEntry(rec) {
    const size = rec.size >= 0 ? rec.size : G.bodySize(rec);
    rec.respBody = G.responseBody(rec);
    const e = bodyEntry(rec);
    e.type = 'fetch';
    if (size >= 0) e.size = size;
    return timed(e, rec, 'fetch');
  }

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
      G.awaitBody(resp, rec, bodyDone);
      return;
    }
    rec.respBody = hasBody ? { text: binarySummary(rec.size, rec.contentType), truncated: false } : null;
    bodyDone(rec);
  }

  // The body is known (or will never be): the request is queued.
  function bodyDone(rec) {
    if (rec.done) return;
    rec.done = true;
    rec.resp = null;
    if (rec.reqBodyPromise) rec.reqBodyPromise.then((b) => { rec.reqBody = b; }, () => {}).then(() => enqueue('request', requestEntry, rec));
    else enqueue('request', requestEntry, rec);
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
      /** @type {ReturnType<typeof fetchStart>} */
      let rec = null;
      if (!G.busy) {
        try { rec = fetchStart(input, init); } catch (_) { rec = null; }
      }
      const p = apply(origFetch, this, arguments);
      if (!rec) return p;
      rec.sentAt = perfNow();
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
      let rec;
      try { rec = xhrStart(this, body); } catch (_) { /* ignore */ }
      const r = oSend.apply(this, arguments);
      if (rec) rec.sentAt = perfNow();
      return r;
    };

    function xhrStart(xhr, body) {
      const rec = xhrs.get(xhr);
      if (!rec || rec.sent || G.resolve(rec.url).ignored) return;
      rec.sent = true;
      phases.watch();
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
      return rec;
    }

    function xhrResponse(xhr, ct, cl) {
      const rt = xhr.responseType;
      if (rt === '' || rt === 'text') {
        const text = xhr.responseText || '';
        return { size: text.length, body: isTextual(ct) ? truncated(text, RESPONSE_BODY_MAX) : { text: binarySummary(cl >= 0 ? cl : text.length, ct), truncated: false } };
      }
      if (rt === 'json') {
        let text;
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
      let resp;
      try { resp = xhrResponse(xhr, ct, cl); } catch (_) { resp = null; }
      if (cl >= 0) entry.size = cl;
      else if (resp && resp.size >= 0) entry.size = resp.size;
      if (!rec.bodies) {
        enqueue('network', xhrTimed, { e: entry, rec });
        return;
      }
      const e = bodyEntry({
        ts: rec.ts, method: rec.method, url: rec.url, status, duration, contentType: ct,
        reqHeaders: objectKeys(rec.headers).length ? rec.headers : undefined, reqBody: rec.reqBody, auth: rec.auth,
        respHeaders: parseRawHeaders(xhr.getAllResponseHeaders()), respBody: resp && resp.body,
      });
      e.type = 'xhr';
      if (entry.size >= 0) e.size = entry.size;
      enqueue('request', xhrTimed, { e, rec }); // as a fetch's (requestEntry)
    }

    // The phases are read when the entry is built, as a fetch's are.
    const xhrTimed = (x) => timed(x.e, x.rec, 'xmlhttprequest');
  }
})();
//# sourceURL=gasoline-inject-network.js
