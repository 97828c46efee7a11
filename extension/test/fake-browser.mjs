// The browser as the worker's socket modules see it in Node (sw/channel.js, sw/delivery.js): a fake
// WebSocket that records what is sent, chrome.storage that stores nothing, and the manifest's version.
// Not a test: the socket tests install it before they import the worker's modules.

/** Installs the fakes on globalThis; returns the sockets the worker opens, oldest first. */
export function fakeBrowser() {
  const sockets = [];
  globalThis.WebSocket = class {
    static OPEN = 1;
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.sent = [];
      sockets.push(this);
    }

    send(s) { this.sent.push(s); }

    close() { this.readyState = 3; }
  };
  const storage = { get: async () => ({}), set: async () => {} };
  globalThis.chrome = {
    storage: { sync: storage, local: storage, session: storage },
    runtime: { getManifest: () => ({ version: '0.1.0' }) },
  };
  return sockets;
}

/** settle lets pending promises run; advance moves test t's mocked clock by ms, 10 ms at a time, settling after each. */
export function clock(t) {
  const settle = () => new Promise((r) => setImmediate(r));
  const advance = async (ms) => {
    for (let i = 0; i < ms; i += 10) {
      t.mock.timers.tick(10);
      await settle();
    }
  };
  return { settle, advance };
}

/**
 * Builds the worker's settings, link, tabs, channel and delivery as background.js does, from the globals the
 * test installed (fakeBrowser, fetch) and a clock (the system one under mocked timers by default), and
 * starts the channel: fresh objects each call, whatever Node cached.
 */
export async function startWorker(handlers = {}, clockImpl = null) {
  const { Channel } = await import('../sw/channel.js');
  const { systemClock } = await import('../sw/clock.js');
  const { CaptureSettings } = await import('../sw/settings.js');
  const { Link } = await import('../sw/link.js');
  const { Delivery } = await import('../sw/delivery.js');
  const { PilotSwitch } = await import('../sw/pilot-switch.js');
  const { Tabs } = await import('../sw/tabs.js');
  const clk = clockImpl || systemClock;
  const saved = new Map();
  const save = (k, v) => saved.set(k, v);
  const settings = new CaptureSettings({ storage: globalThis.chrome.storage, tabs: globalThis.chrome.tabs, save, clock: clk });
  const link = new Link({ fetch: (u, i) => globalThis.fetch(u, i), clock: clk, serverURL: () => settings.serverURL(), save });
  const pilot = new PilotSwitch({ storage: globalThis.chrome.storage, runtime: globalThis.chrome.runtime });
  const tabs = new Tabs({
    tabs: globalThis.chrome.tabs, windows: globalThis.chrome.windows, clock: clk, link, save, pageLeft: (m) => channel.tellPageLeft(m),
  });
  const channel = new Channel({
    WebSocket: globalThis.WebSocket,
    version: '0.1.0',
    clock: clk,
    settings,
    link,
    pilot,
    trackedPage: () => tabs.trackedPage(),
    onQuery() {},
    onSettings() {},
    ...handlers,
  });
  const delivery = new Delivery({ storage: globalThis.chrome.storage, clock: clk, link, channel, save });
  channel.start();
  return { settings, link, pilot, channel, delivery, tabs, saved };
}

/** A chrome.storage area in memory (get, set, remove), its items in .items. */
export function memoryArea() {
  const items = new Map();
  return {
    items,
    get: async (k) => (k == null ? Object.fromEntries(items) : items.has(k) ? { [k]: items.get(k) } : {}),
    set: async (o) => { for (const [k, v] of Object.entries(o)) items.set(k, v); },
    remove: async (keys) => { for (const k of [].concat(keys)) items.delete(k); },
  };
}

/**
 * A Delivery alone, as background.js builds it, sending with a Link to fetch (globalThis.fetch at call
 * time by default), on no socket unless channel says otherwise. Returns {delivery, link, saved, storage}.
 */
export async function makeDelivery({ clock: clk = null, storage = null, channel = null, fetch = null } = {}) {
  const { Delivery } = await import('../sw/delivery.js');
  const { Link } = await import('../sw/link.js');
  const { systemClock } = await import('../sw/clock.js');
  const c = clk || systemClock;
  const saved = new Map();
  const save = (k, v) => saved.set(k, typeof v === 'function' ? v() : v);
  const st = storage || { session: memoryArea(), local: memoryArea() };
  const link = new Link({ fetch: fetch || ((u, i) => globalThis.fetch(u, i)), clock: c, serverURL: () => 'http://127.0.0.1:7890', save });
  const delivery = new Delivery({ storage: st, clock: c, link, channel: channel || { sendBatch: () => null, tellHolding: () => false }, save, });
  return { delivery, link, saved, storage: st };
}

/**
 * The worker's Tabs and Documents, as background.js builds them, from the chrome.tabs, chrome.windows and
 * chrome.scripting fakes given (none: empty ones) and a FakeClock; what they post, save and tell the
 * socket is recorded (a POST throws h.postFails if set; the socket takes frames while h.socketOpen).
 * Returns {tabs, documents, link, posts, saved, frames, connected, seeds}: seeds answer the content
 * scripts' settings (the next one shifted, a function run, else {seeded: true}).
 */
export async function makeTabs({ clock, tabs = {}, windows = undefined, scripting = {}, socketOpen = false, loadingFromStart = false } = {}) {
  const { Tabs } = await import('../sw/tabs.js');
  const { Documents } = await import('../sw/documents.js');
  const h = { posts: [], saved: [], frames: [], seeds: [], connected: [], postFails: null, socketOpen };
  const link = {
    up: false,
    postJSON: async (path, body) => {
      if (h.postFails) throw h.postFails;
      h.posts.push([path, JSON.parse(body)]);
      return { ok: true, status: 200 };
    },
    isConnected: () => link.up,
    setConnected: (ok, err) => { link.up = ok; h.connected.push(err === undefined ? [ok] : [ok, err]); },
  };
  h.link = link;
  h.tabs = new Tabs({
    tabs, windows, clock, link,
    save: (k, v) => h.saved.push([k, v]),
    pageLeft: (m) => { if (h.socketOpen) h.frames.push(m); return h.socketOpen; },
  });
  h.documents = new Documents({
    tabs, scripting, clock, tracked: h.tabs, loadingFromStart,
    seed: async () => {
      const next = h.seeds.shift();
      return typeof next === 'function' ? next() : next === undefined ? { seeded: true } : next;
    },
  });
  return h;
}
