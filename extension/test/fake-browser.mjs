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
 * Builds the worker's channel as background.js does, from the worker's own modules and the globals the
 * test installed (fakeBrowser, a mocked clock, fetch), and starts it; delivery.js then sends on it.
 */
export async function startChannel(handlers) {
  const { Channel, installChannel } = await import('../sw/channel.js');
  const { systemClock } = await import('../sw/clock.js');
  const { CaptureSettings, installSettings } = await import('../sw/settings.js');
  const { saveSoon } = await import('../sw/session.js');
  const link = await import('../sw/link.js');
  const { PilotSwitch } = await import('../sw/pilot-switch.js');
  const tabs = await import('../sw/tabs.js');
  const settings = new CaptureSettings({ storage: globalThis.chrome.storage, tabs: globalThis.chrome.tabs, save: saveSoon, clock: systemClock });
  installSettings(settings);
  const pilot = new PilotSwitch({ storage: globalThis.chrome.storage, runtime: globalThis.chrome.runtime });
    const channel = new Channel({
    WebSocket: globalThis.WebSocket,
    version: '0.1.0',
    clock: systemClock,
    settings,
    link,
    pilot,
    trackedPage: tabs.trackedPage,
    ...handlers,
  });
  installChannel(channel);
  tabs.pageLeftVia((m) => channel.tellPageLeft(m));
  channel.start();
  return channel;
}
