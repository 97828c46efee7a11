// What a page left before its content script came hands over (content/start.js): inject.js's events
// as they are. The worker gates and scrubs them as content.js would, with the same classic scripts,
// before they join the queue: secrets never reach the server, nor the queue's storage.

import './scrub-constants.js'; // first: the classic scripts below read GASOLINE_CONSTANTS
import '../content/scrub.js';
import '../content/gate.js';

const { __gasolineScrub: scrub, __gasolineGate: gate } = globalThis;

/** The events to queue of those a page handed over as it was left, under the effective settings s. */
export function passHeld(events, s) {
  const isServerURL = gate.serverTest(s.server_url);
  const out = [];
  for (const ev of events) {
    if (!gate.wellFormed(ev)) continue;
    let { kind, data } = ev;
    if (kind === 'action') { // inject.js reports only history.pushState/replaceState
      if (data.type !== 'navigation' || typeof data.url !== 'string') continue;
      data = { type: 'navigation', url: data.url, ts: typeof data.ts === 'number' ? data.ts : Date.now() };
    }
    const p = gate.pass(kind, data, s, isServerURL);
    if (!p) continue;
    try {
      scrub.event(p.kind, p.data);
      out.push(p);
    } catch (_) { /* an event that cannot be scrubbed is not sent */ }
  }
  return out;
}
