// What a page left before its content script came hands over (content/start.js): inject.js's events
// and the user's actions as they are. The worker gates and scrubs them as content.js would, with the same classic scripts,
// before they join the queue: secrets never reach the server, nor the queue's storage.

import './scrub-constants.js'; // first: the classic scripts below read GASOLINE_CONSTANTS
import '../content/scrub.js';
import '../content/gate.js';

const { __gasolineScrub: scrub, __gasolineGate: gate } = globalThis;

/** The secret rules' scrub of a URL, for what the worker captures itself (sw/requests.js). */
export const scrubURL = (/** @type {string} */ u) => scrub.url(u);
/** isServerURL(url) for the server at serverURL (content/gate.js). */
export const serverTest = (/** @type {string} */ serverURL) => gate.serverTest(serverURL);

/** The events to queue of those a page handed over as it was left, under the effective settings s. */
export function passHeld(events, s) {
  const isServerURL = gate.serverTest(s.server_url);
  const out = [];
  for (const ev of events) {
    if (!gate.wellFormed(ev)) continue;
    let { kind, data } = ev;
    if (kind === 'action') {
      data = heldAction(data);
      if (!data) continue;
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

const str = (v) => (typeof v === 'string' ? v : '');

// inject.js reports history.pushState/replaceState; content/start.js the user's actions it held
// (with a field's own attributes, for the secret rule: the value of a secret field never goes on).
function heldAction(d) {
  const ts = typeof d.ts === 'number' ? d.ts : Date.now();
  if (d.type === 'navigation') return typeof d.url === 'string' ? { type: 'navigation', url: d.url, ts } : null;
  if (!['click', 'input', 'submit', 'keypress'].includes(d.type) || typeof d.selector !== 'string') return null;
  const out = { type: d.type, selector: d.selector, ts };
  if (d.type === 'keypress') out.text = str(d.text);
  if (d.type !== 'input') return out;
  out.input_type = str(d.input_type);
  const f = Array.isArray(d.field) ? d.field.map(str) : [];
  if (typeof d.value === 'string' && f.length === 4 && !scrub.isSecretField(f[0], f[1], f[2], f[3])) out.value = d.value;
  return out;
}
