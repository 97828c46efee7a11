// Gasoline: page-world capture, part 3 of 5 (see inject.js): response
// bodies, for inject-network.js's fetch wrapper.
//
// A response's body is taken from the page's own read: Response's readers
// are wrapped, and the text (or the first bytes) a page reads from a
// response of its fetch is kept: reading a clone beside the page's read costs
// the page's thread far more (PERFORMANCE.md). A
// body the page has not started to read after BODY_WAIT_MS, or reads as a
// stream (body) or as a blob or form, is read from a clone taken before the
// page's read, within RESPONSE_READ_MAX_BYTES and RESPONSE_READ_TIMEOUT_MS.
// A page that gives the response to an API that reads it (the Cache API)
// before either leaves the body unknown. Responses waiting are bounded by
// WAITING_MAX: beyond it a body is read from a clone at once.
//
// G.awaitBody(resp, rec, whenRead) fills the request record rec: respText
// (the text read) or respBytes (the first bytes), incomplete (not all of it),
// size (when no length was announced); then calls whenRead(rec), once
// unless rec.done is set by then. G.responseBody(rec) and G.bodySize(rec)
// turn that into the entry's fields when it is built; G.truncated and
// G.RESPONSE_BODY_MAX serve inject-network.js's XHR bodies too.
(() => {
  'use strict';

  const G = window.__gasolineInject;
  if (!G) return;
  const { W, perfNow, apply, then, jsonParse } = G;
  const TextDecoderCtor = W.TextDecoder;
  const later = setTimeout.bind(W);
  const cancelLater = clearTimeout.bind(W);

  const RESPONSE_BODY_MAX = 16 * 1024;
  const RESPONSE_READ_MAX_BYTES = 64 * 1024; // enough bytes for 16 K characters
  const RESPONSE_READ_TIMEOUT_MS = 5000;

  const truncated = (text, max) => (text.length > max ? { text: text.slice(0, max), truncated: true } : { text, truncated: false });
  G.truncated = truncated;
  G.RESPONSE_BODY_MAX = RESPONSE_BODY_MAX; // an XHR's body has the same cap

  // The response body as {text, truncated}, from what was read of it; rec.respBody if nothing was.
  G.responseBody = (rec) => {
    let t;
    if (typeof rec.respText === 'string') t = truncated(rec.respText, RESPONSE_BODY_MAX);
    else if (rec.respBytes) t = truncated(new TextDecoderCtor().decode(rec.respBytes), RESPONSE_BODY_MAX);
    else if (rec.incomplete) return { text: '', truncated: true };
    else return rec.respBody;
    if (rec.incomplete) t.truncated = true;
    return t;
  };

  // The body's size in bytes from the text read whole, or -1.
  G.bodySize = (rec) => (typeof rec.respText === 'string' && !rec.incomplete && rec.respText.length <= RESPONSE_READ_MAX_BYTES
    ? G.utf8Length(rec.respText) : -1);

  // Reads at most RESPONSE_READ_MAX_BYTES of a cloned response within the
  // timeout, as {text, bytes, complete}. A body whose announced length fits
  // is read whole by the browser (one promise, no stream in script); any
  // other is read chunk by chunk and cancelled at the cap.
  function readCapped(resp, cl) {
    let timer = 0;
    const timeout = new Promise((resolve) => { timer = later(resolve, RESPONSE_READ_TIMEOUT_MS, null); });
    const done = (r) => { cancelLater(timer); return r; };
    if (cl >= 0 && cl <= RESPONSE_READ_MAX_BYTES) {
      // An announced body read as nothing was cut off (a page being left stops its reads).
      return Promise.race([resp.text(), timeout]).then((t) => done(t === null || (t === '' && cl > 0)
        ? { text: '', bytes: 0, complete: false } : { text: t, bytes: cl, complete: true }));
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

  const BODY_WAIT_MS = 1000;
  const WAITING_MAX = 500;
  const RP = W.Response && W.Response.prototype;
  const origText = RP && RP.text;
  const origClone = RP && RP.clone;
  const waiting = new WeakMap(); // Response → its rec, until a read of its body starts
  let pending = []; // recs whose body is not known yet, oldest first
  let sweepTimer = 0;

  G.awaitBody = (resp, rec, whenRead) => {
    G.arm(); // what waits here is sent when the page is left
    rec.whenRead = whenRead;
    if (pending.length >= WAITING_MAX || !origText) {
      readClone(resp, rec);
      return;
    }
    rec.resp = resp;
    rec.since = perfNow();
    waiting.set(resp, rec);
    pending.push(rec);
    if (!sweepTimer) sweepTimer = later(sweep, BODY_WAIT_MS);
  };

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
      rec.incomplete = !r.complete;
      rec.whenRead(rec);
    }, () => rec.whenRead(rec));
  }

  const gotText = (rec, text) => {
    if (text.length > RESPONSE_READ_MAX_BYTES) {
      // A slice shares the whole string's memory in V8; the concatenation, once flattened, does not.
      rec.respText = `${text.slice(0, RESPONSE_BODY_MAX + 1)} `.slice(0, -1);
      rec.incomplete = true;
    } else rec.respText = text;
    rec.whenRead(rec);
  };
  const gotBytes = (rec, view) => {
    if (rec.size < 0) rec.size = view.byteLength;
    rec.incomplete = view.byteLength > RESPONSE_READ_MAX_BYTES;
    rec.respBytes = new Uint8Array(view.buffer, view.byteOffset, Math.min(view.byteLength, RESPONSE_READ_MAX_BYTES)).slice();
    rec.whenRead(rec);
  };
  const lost = (rec) => {
    rec.incomplete = true;
    rec.whenRead(rec);
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
})();
//# sourceURL=gasoline-inject-bodies.js
