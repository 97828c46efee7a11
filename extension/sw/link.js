// HTTP to the Gasoline server, and whether it answers: the connected flag and last error the popup
// shows. Whoever must act when the server comes back registers with onReconnect.

const REQUEST_TIMEOUT_MS = 10000;

/** The server's problem ({error, message}) from a 4xx answer (empty strings if none). */
export async function problemOf(res) {
  try {
    const b = await res.json();
    return { error: b && b.error ? String(b.error) : '', message: b && b.message ? String(b.message) : '' };
  } catch (_) {
    return { error: '', message: '' };
  }
}

/** The server's error message from a 4xx answer ('' if none). */
export const errorText = async (res) => (await problemOf(res)).message;

/** A failed request's reason as the popup shows it. */
export const failure = (err) => (err && err.name === 'AbortError' ? 'timeout' : err && err.message);

/**
 * @typedef {object} LinkDeps
 * @property {typeof fetch} fetch
 * @property {import('./clock.js').Clock} clock
 * @property {() => string} serverURL where the server is now (the settings')
 * @property {(key: string, value: () => unknown) => void} save the session store's saveSoon
 */

export class Link {
  /** @param {LinkDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.connected = false;
    this.lastError = '';
    /** @type {Array<() => void>} */
    this.reconnectHooks = [];
    this.failure = failure;
  }

  /**
   * fetch(serverURL + path) with a time limit.
   * @param {string} path
   * @param {RequestInit} [init]
   */
  async request(path, init) {
    const ctrl = new AbortController();
    const t = this.d.clock.setTimeout(() => ctrl.abort(), REQUEST_TIMEOUT_MS);
    try {
      return await this.d.fetch(this.d.serverURL() + path, { cache: 'no-store', ...init, signal: ctrl.signal });
    } finally {
      this.d.clock.clearTimeout(t);
    }
  }

  /**
   * POSTs body (a string: already JSON) to path.
   * @param {string} path
   * @param {string} body
   */
  postJSON(path, body) {
    return this.request(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  }

  isConnected() { return this.connected; }

  lastErrorText() { return this.lastError; }

  /** @param {string} text */
  setLastError(text) {
    this.lastError = text;
    this.save();
  }

  /**
   * Records whether the server answered; on the way back up the reconnect hooks run.
   * @param {boolean} ok
   * @param {unknown} [err]
   */
  setConnected(ok, err) {
    const was = this.connected;
    this.connected = ok;
    this.lastError = ok ? '' : String(err || 'unreachable');
    this.save();
    if (ok && !was) for (const f of this.reconnectHooks) f();
  }

  /** The server address changed: nothing is known about the new one. */
  forget() {
    this.connected = false;
    this.save();
  }

  /** @param {() => void} f */
  onReconnect(f) {
    this.reconnectHooks.push(f);
  }

  /** Start-up: what the previous life of the worker knew (the session area's gasoline_status). */
  restore(session) {
    const s = session.gasoline_status;
    if (!s) return;
    this.connected = !!s.connected;
    this.lastError = s.last_error || '';
  }

  save() {
    this.d.save('gasoline_status', () => ({ connected: this.connected, last_error: this.lastError }));
  }
}
