// The server's channel to the worker. A WebSocket to ws://<server>/ws/extension carries pushed
// queries, settings, pings and batch acks one way and results, the hello, pilot flips and captured
// batches the other; while it is down the worker polls GET /pending-queries every second and posts
// answers to POST /query-results (and delivery.js POSTs its batches).
// GET /settings is polled every POLL_MS either way (it also tells the server the extension is alive).
// See PROTOCOL.md, "On-demand queries".

import { nextBackoff } from './backoff.js';

const WS_PATH = '/ws/extension';
const WS_BACKOFF_MIN = 100;
const WS_BACKOFF_MAX = 2000;
const WS_STABLE_MS = 2000; // a socket open this long counts as a success: backoff starts over
const QUERY_POLL_MS = 1000;
// A batch the server has not answered by then failed, as a POST that timed out. Longer than the server's
// wait for an ingest slot (10 s), so that a batch it stores late is not also sent again.
const ACK_MS = 15000;
const POLL_MS = 5000;
const OPEN = 1; // WebSocket.OPEN

/**
 * @typedef {object} ChannelDeps
 * @property {{new (url: string): WebSocket}} WebSocket
 * @property {string} version the extension's, for the hello
 * @property {import('./clock.js').Clock} clock
 * @property {{serverURL(): string, generation(): number, applyServer(body: any): Promise<unknown>, sourcemapOrigins(): string[]}} settings
 * @property {() => unknown} trackedPage the page last reported to the server (tabs.js's trackedPage)
 * @property {{request(path: string, init?: RequestInit): Promise<Response>, postJSON(path: string, body: string): Promise<Response>,
 *   setConnected(ok: boolean, err?: string): void, failure(err: unknown): string}} link
 * @property {{on(): boolean, ready(): Promise<unknown>}} pilot
 * @property {(q: ServerQuery) => void} onQuery each query the server sends
 * @property {(m: ServerSettings) => void} onSettings each pushed settings frame
 */

export class Channel {
  /** @param {ChannelDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.ws = null; // the current socket (connecting or open)
    this.wsOpen = false;
    this.wsOpenedAt = 0;
    this.wsBackoff = 0;
    this.wsTimer = 0;
    this.queryPollTimer = 0;
    this.queryPolling = false;
    this.settingsPolling = false;
    this.settingsPollAgain = false;
    this.settingsPollTimer = 0;
    this.batchId = 0;
    this.takesBatches = false; // the server said so on the current socket (its hello)
    this.acks = new Map(); // batch id → {resolve, reject, timer}
  }

  /** Opens the channel. */
  start() {
    this.openSocket();
  }

  /** 'websocket' or 'polling': how queries reach the worker now. */
  mode() {
    return this.wsOpen ? 'websocket' : 'polling';
  }

  /** Dials the socket unless one is open or connecting (the alarm's check). */
  ensureSocket() {
    if (!this.ws) this.openSocket();
  }

  wsURL() {
    const u = new URL(this.d.settings.serverURL());
    return `ws://${u.host}${WS_PATH}`;
  }

  openSocket() {
    const { clock } = this.d;
    clock.clearTimeout(this.wsTimer);
    this.wsTimer = 0;
    if (this.ws) return;
    let sock;
    try {
      sock = new this.d.WebSocket(this.wsURL());
    } catch (_) {
      this.socketDown();
      return;
    }
    this.ws = sock;
    sock.onopen = () => {
      if (this.ws !== sock) return;
      this.wsOpen = true;
      this.wsOpenedAt = clock.now();
      this.stopQueryPoll();
      // The hello carries the pilot switch, so it waits for the worker to have read it from storage.
      this.d.pilot.ready().then(() => {
        if (this.ws !== sock || !this.wsOpen) return;
        try {
          // The tracked page too: the server may be a new one (a takeover) that knows no page.
          sock.send(JSON.stringify({
            type: 'hello', version: this.d.version, pilot: this.d.pilot.on(),
            page: this.d.trackedPage() || undefined, sourcemap_origins: this.d.settings.sourcemapOrigins(),
          }));
        } catch (_) { /* onclose follows */ }
      });
      // The server pushes settings only when they change: ask now what is in force (a restarted server
      // has none; one we were cut off from may have changed them meanwhile).
      this.pollSettings();
    };
    sock.onmessage = (e) => {
      if (this.ws === sock) this.onFrame(e.data);
    };
    sock.onclose = () => {
      if (this.ws !== sock) return;
      this.takesBatches = false;
      this.dropAcks();
      if (this.wsOpen && clock.now() - this.wsOpenedAt >= WS_STABLE_MS) this.wsBackoff = 0;
      this.ws = null;
      this.wsOpen = false;
      this.socketDown();
    };
    sock.onerror = () => { /* onclose follows */ };
  }

  socketDown() {
    const { clock } = this.d;
    this.startQueryPoll();
    this.wsBackoff = nextBackoff(this.wsBackoff, WS_BACKOFF_MIN, WS_BACKOFF_MAX);
    clock.clearTimeout(this.wsTimer);
    this.wsTimer = clock.setTimeout(() => this.openSocket(), this.wsBackoff);
  }

  /** The server address changed: drop the socket and dial the new one at once. */
  resetSocket() {
    const old = this.ws;
    this.ws = null;
    this.wsOpen = false;
    this.wsBackoff = 0;
    this.takesBatches = false;
    this.dropAcks();
    if (old) {
      try { old.close(); } catch (_) { /* ignore */ }
    }
    this.openSocket();
  }

  onFrame(data) {
    /** @type {ServerFrame} */
    let m;
    try {
      m = JSON.parse(data);
    } catch (_) {
      return;
    }
    if (!m || typeof m !== 'object') return;
    if (m.type === 'ping') this.sendFrame({ type: 'pong' });
    else if (m.type === 'query') this.d.onQuery(m);
    else if (m.type === 'settings') this.d.onSettings(m);
    else if (m.type === 'ack') this.settleAck(m);
    else if (m.type === 'hello') this.takesBatches = m.batches === true;
  }

  /** @param {WorkerFrame} m */
  sendFrame(m) {
    if (!this.wsOpen || !this.ws || this.ws.readyState !== OPEN) return false;
    try {
      this.ws.send(JSON.stringify(m));
      return true;
    } catch (_) {
      return false;
    }
  }

  /**
   * Sends one captured batch (the body a POST to route would carry) on the socket, as the frame
   * "events <id> <route>\n<body>". Resolves with the server's answer, {status, accepted, rejected} or
   * {status, error, message}; rejects when the socket closes or ACK_MS pass first. null when the socket
   * is not open or its server has not said it takes batches (an older one): the caller POSTs. A frame
   * costs the browser's processes about a tenth of a request.
   * @returns {Promise<BatchAck> | null}
   */
  sendBatch(route, body) {
    if (!this.takesBatches || !this.wsOpen || !this.ws || this.ws.readyState !== OPEN) return null;
    const id = ++this.batchId;
    try {
      this.ws.send(`events ${id} ${route}\n${body}`);
    } catch (_) {
      return null;
    }
    return new Promise((resolve, reject) => {
      const timer = this.d.clock.setTimeout(() => {
        this.acks.delete(id);
        reject(new Error(`no answer to a batch on the socket in ${ACK_MS / 1000} s`));
      }, ACK_MS);
      this.acks.set(id, { resolve, reject, timer });
    });
  }

  /**
   * Tells the server that events wait in the worker because the page keeps producing them (the
   * delivery rules hold a flush until it is quiet): before the AI reads what was captured, the server
   * then asks for them (a 'flush' query). Whether it was told.
   */
  tellHolding() {
    return this.takesBatches && this.sendFrame({ type: 'holding' });
  }

  /** @param {BatchAck} m */
  settleAck(m) {
    const a = this.acks.get(m.id);
    if (!a) return;
    this.acks.delete(m.id);
    this.d.clock.clearTimeout(a.timer);
    a.resolve(m);
  }

  // The socket went: what it was carrying has no answer coming (the server may have stored it).
  dropAcks() {
    for (const a of this.acks.values()) {
      this.d.clock.clearTimeout(a.timer);
      a.reject(new Error('the socket closed before the server answered'));
    }
    this.acks.clear();
  }

  /**
   * Sends a query's answer on the socket, else with POST /query-results.
   * @param {QueryResult} msg
   */
  sendResult(msg) {
    if (this.sendFrame(msg)) return;
    this.d.link.postJSON('/query-results', JSON.stringify({ results: [msg] })).catch(() => { /* the server gave up on it by now */ });
  }

  /** Tells the server a tab's document went away (tabs.js's pageLeft) on the socket; false when it is not open. */
  tellPageLeft(m) {
    return this.sendFrame({ type: 'page_left', ...m });
  }

  /** Tells the server the pilot switch flipped: on the socket, else with an immediate poll (it carries ?pilot=). */
  tellPilot(enabled) {
    if (!this.sendFrame({ type: 'pilot', pilot: enabled })) this.pollSettings();
  }

  /** Tells the server the human's source map origins changed: on the socket, else with an immediate poll. */
  tellSourcemapOrigins() {
    if (!this.sendFrame({ type: 'sourcemap_origins', sourcemap_origins: this.d.settings.sourcemapOrigins() })) this.pollSettings();
  }

  // ---- fallback polling for queries while the socket is down

  startQueryPoll() {
    if (!this.queryPollTimer && !this.queryPolling) this.queryPollTimer = this.d.clock.setTimeout(() => this.pollQueries(), 0);
  }

  stopQueryPoll() {
    this.d.clock.clearTimeout(this.queryPollTimer);
    this.queryPollTimer = 0;
  }

  async pollQueries() {
    this.queryPollTimer = 0;
    if (this.wsOpen) return;
    this.queryPolling = true;
    try {
      const res = await this.d.link.request(`/pending-queries?pilot=${this.d.pilot.on()}`, { method: 'POST' });
      if (res.ok) {
        const body = await res.json();
        if (body && Array.isArray(body.queries)) for (const q of body.queries) this.d.onQuery(q);
      }
    } catch (_) { /* the server is down: next second */ } finally {
      this.queryPolling = false;
    }
    if (!this.wsOpen && !this.queryPollTimer) this.queryPollTimer = this.d.clock.setTimeout(() => this.pollQueries(), QUERY_POLL_MS);
  }

  // ---- GET /settings, now and every POLL_MS while the worker lives

  async pollSettings() {
    const { clock, settings, link } = this.d;
    if (this.settingsPolling) {
      this.settingsPollAgain = true;
      return;
    }
    this.settingsPolling = true;
    clock.clearTimeout(this.settingsPollTimer);
    const gen = settings.generation();
    try {
      // POST, not GET: Chrome sends the extension's Origin only on a POST, and the server refuses a
      // pilot report without it.
      const origins = encodeURIComponent(settings.sourcemapOrigins().join(' '));
      const res = await link.request(`/settings?pilot=${this.d.pilot.on()}&sourcemap_origins=${origins}`, { method: 'POST' });
      if (!res.ok) throw new Error(`POST /settings: HTTP ${res.status}`);
      const body = await res.json();
      link.setConnected(true);
      if (settings.generation() === gen) await settings.applyServer(body);
    } catch (err) {
      // Keep the last overrides: they are the server's session state, and a short outage must not
      // change what is captured.
      link.setConnected(false, link.failure(err));
    } finally {
      this.settingsPolling = false;
      clock.clearTimeout(this.settingsPollTimer);
      this.settingsPollTimer = clock.setTimeout(() => this.pollSettings(), this.settingsPollAgain ? 0 : POLL_MS);
      this.settingsPollAgain = false;
    }
  }
}
