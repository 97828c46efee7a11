// Gasoline: page-world capture, part 5 of 5 (see inject.js): WebSocket and
// history.pushState/replaceState. Runs last, so it also takes the shared
// object off window before any page script can see it.
(() => {
  'use strict';

  const W = window;
  const G = W.__gasolineInject;
  try { delete W.__gasolineInject; } catch (_) { /* ignore */ }
  if (!G) return;
  const { dateNow, binaryLength, addEL, removeEL, enqueue, emit, utf8Length } = G;
  const WS_DATA_MAX = 4 * 1024;

  // ---- WebSocket -------------------------------------------------------------------------
  // Nothing is done for an event the ws_mode does not capture: a socket has
  // our message listener only while messages are captured (added and taken
  // off when the settings change), since each listener is a call from the
  // browser into script for every message the page receives (PERFORMANCE.md).
  // A captured message is
  // queued as it is (strings cannot change; binary is measured now) and
  // measured and cut when the entry is built.

  // r: {ts, info, direction, data: a string, or the byte length of binary data}
  function messageEntry(r) {
    const e = { ts: r.ts, id: r.info.id, url: r.info.url, event: 'message', direction: r.direction };
    const data = r.data;
    if (typeof data === 'string') {
      e.data = data.length > WS_DATA_MAX ? data.slice(0, WS_DATA_MAX) : data;
      e.size = utf8Length(data);
      if (data.length > WS_DATA_MAX) e.truncated = true;
    } else {
      e.data = `[Binary: ${data >= 0 ? data : 'unknown'} bytes]`;
      if (data >= 0) e.size = data;
    }
    return e;
  }

  const queueMessage = (info, direction, data) => enqueue('ws', messageEntry, {
    ts: dateNow(), info, direction, data: typeof data === 'string' ? data : binaryLength(data),
  });

  const OrigWebSocket = W.WebSocket;
  if (typeof OrigWebSocket === 'function') {
    const sockets = new WeakMap(); // socket → its info ({id, url, ws, onMessage}) when captured
    const open = new Set(); // the captured sockets not closed yet: {id, url, ws, onMessage}

    // Gives info's socket our message listener if messages are captured, and takes it off if not.
    const listenForMessages = (info) => {
      if (G.wsMessages && !info.onMessage) {
        info.onMessage = (e) => {
          try { if (G.wsMessages) queueMessage(info, 'incoming', e.data); } catch (_) { /* ignore */ }
        };
        addEL.call(info.ws, 'message', info.onMessage);
      } else if (!G.wsMessages && info.onMessage) {
        removeEL.call(info.ws, 'message', info.onMessage);
        info.onMessage = null;
      }
    };
    G.onSettings(() => {
      for (const info of open) listenForMessages(info);
    });

    const lifecycle = (info, fields) => emit('ws', Object.assign({ ts: dateNow(), id: info.id, url: info.url }, fields));

    const setup = (ws) => {
      const where = G.resolve(String(ws.url));
      if (where.ignored) return;
      const info = { id: G.uuid(), url: String(ws.url), ws, onMessage: null };
      sockets.set(ws, info);
      open.add(info);
      addEL.call(ws, 'open', () => {
        try { if (G.wsLifecycle) lifecycle(info, { event: 'open' }); } catch (_) { /* ignore */ }
      });
      addEL.call(ws, 'close', (e) => {
        open.delete(info);
        try {
          if (!G.wsLifecycle) return;
          const f = { event: 'close' };
          if (e.code) f.code = e.code;
          if (e.reason) f.reason = String(e.reason);
          lifecycle(info, f);
        } catch (_) { /* ignore */ }
      });
      addEL.call(ws, 'error', () => {
        try { if (G.wsLifecycle) lifecycle(info, { event: 'error' }); } catch (_) { /* ignore */ }
      });
      listenForMessages(info);
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
        if (G.wsMessages) {
          try {
            const info = sockets.get(this);
            if (info) queueMessage(info, 'outgoing', data);
          } catch (_) { /* ignore */ }
        }
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
//# sourceURL=gasoline-inject-ws.js
