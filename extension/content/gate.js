// Gasoline: which captured events go on, by the effective capture settings. content.js gates what
// inject.js sends with it; the worker gates with it what a page left before its content script came
// handed over (content/start.js, sw/held.js). inject.js captures everything until it knows the
// settings, so this is the authoritative gate. A classic script: the content scripts read it as
// globalThis.__gasolineGate, the worker imports it, node requires it.
(function (root, C) {
  'use strict';

  // What inject.js posts: 'action' is only its history.pushState/replaceState report.
  const KINDS = new Set(['log', 'network', 'request', 'ws', 'action']);
  // A 'request' is a fetch or XHR with its body (inject-network.js); without network_bodies only its
  // network entry's fields go (their names are generated from the Go type).
  const NETWORK_FIELDS = C.NETWORK_ENTRY_FIELDS;

  /** Whether ev is {kind, data} as inject.js posts it. */
  const wellFormed = (ev) => !!ev && typeof ev === 'object' && KINDS.has(ev.kind) && !!ev.data && typeof ev.data === 'object';

  // A URL's port, its scheme's default when it names none.
  const portOf = (u) => u.port || (u.protocol === 'https:' || u.protocol === 'wss:' ? '443' : '80');

  /** The Gasoline server's hostname:port (the port always named) under every loopback name it
   * answers to. inject.js is told this list, so that the page world drops the server's traffic
   * without a copy of it, and tests a URL against it as serverTest does (it cannot load this file). */
  function hostsOf(serverURL) {
    const hosts = new Set();
    try {
      const u = new URL(serverURL);
      hosts.add(`${u.hostname}:${portOf(u)}`);
      if (['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) {
        for (const h of ['127.0.0.1', 'localhost', '[::1]']) hosts.add(`${h}:${portOf(u)}`);
      }
    } catch (_) { /* none */ }
    return hosts;
  }

  /** isServerURL(url) for the server at serverURL. */
  function serverTest(serverURL) {
    const hosts = hostsOf(serverURL);
    return (url) => {
      try {
        const u = new URL(url);
        return hosts.has(`${u.hostname}:${portOf(u)}`);
      } catch (_) {
        return false;
      }
    };
  }

  // An uncaught exception, an unhandled rejection or console.error (sw/queue.js has the same rule).
  const isErrorLog = (d) => d.kind === 'exception' || d.kind === 'rejection' || d.level === 'error';

  function allowed(kind, data, s, isServerURL) {
    switch (kind) {
      case 'log':
        if (isErrorLog(data)) return true; // captured at every log_level
        if (data.kind === 'filtered') return true; // the count of what log_level left out (inject-console.js)
        if (s.log_level === 'all') return true;
        return s.log_level === 'warn' && data.level === 'warn';
      case 'network':
      case 'request':
        return !isServerURL(data.url);
      case 'ws':
        if (s.ws_mode === 'off' || isServerURL(data.url)) return false;
        return data.event !== 'message' || s.ws_mode === 'messages';
      case 'action':
        return s.action_replay === true;
      default:
        return false;
    }
  }

  /** The event to forward for (kind, data) under the effective settings s, or null if none. */
  function pass(kind, data, s, isServerURL) {
    if (!allowed(kind, data, s, isServerURL)) return null;
    // A socket's open, close or error while its messages are not captured says so: the server must
    // not give its message counts as counts (websocket_status).
    if (kind === 'ws' && data.event !== 'message' && s.ws_mode !== 'messages') return { kind, data: { ...data, messages: 'off' } };
    if (kind === 'request' && s.network_bodies !== true) {
      const n = {};
      for (const k of NETWORK_FIELDS) if (data[k] !== undefined) n[k] = data[k];
      return { kind: 'network', data: n };
    }
    return { kind, data };
  }

  const api = Object.freeze({ wellFormed, hostsOf, serverTest, pass, isErrorLog });
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.__gasolineGate = api;
})(globalThis, typeof GASOLINE_CONSTANTS !== 'undefined' ? GASOLINE_CONSTANTS : require('../generated/constants.js'));
