// The AI Web Pilot switch: the human's, never the AI's. Off by default; only the popup (an extension
// page) turns it on, with an explicit message. The value lives in chrome.storage.sync (authoritative)
// with local and session as write-through copies; on worker start sync wins. The server hears it in
// the socket hello, in a pushed {type:"pilot"} frame on every flip and as ?pilot= on every poll, but
// the worker never takes the server's word: it checks its own switch before every pilot action.

import { QueryError } from './errors.js';

const PILOT_KEY = 'aiWebPilotEnabled';
const PILOT_OFF = "Enable 'AI Web Pilot' in extension popup to use this tool";
const PILOT_AREAS = ['sync', 'local', 'session'];

/**
 * @typedef {object} PilotSwitchDeps
 * @property {Record<'sync' | 'local' | 'session', {get(k: string): Promise<Record<string, unknown>>, set(items: object): Promise<void>}>} storage
 * @property {{sendMessage(msg: unknown): Promise<unknown>}} runtime for the other extension pages
 */

export class PilotSwitch {
  /** @param {PilotSwitchDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.enabled = false;
    this.flips = 0; // bumped by every flip from the popup: a slower read at start-up must not undo it
    this.writes = Promise.resolve(); // storage writes of the switch, in order
    this.loaded = null;
  }

  on() {
    return this.enabled;
  }

  /** Resolves once the switch was read from storage (see load). */
  ready() {
    return this.loaded || this.load();
  }

  // Writes the switch to every area that does not hold it yet (all three when `areas` is absent).
  write(value, areas) {
    const run = this.writes.then(() => Promise.allSettled((areas || PILOT_AREAS).map(
      (a) => this.d.storage[a].set({ [PILOT_KEY]: value }),
    )));
    this.writes = run.then(() => {}, () => {});
    return run;
  }

  /** Start-up: reads the switch from storage once; later calls return the same promise. */
  load() {
    if (!this.loaded) this.loaded = this.reconcile().catch(() => {});
    return this.loaded;
  }

  // Start-up reconciliation: sync > local > session. A readable sync area decides (absent there = off);
  // only if sync cannot be read at all does local, then session, stand in. The others are overwritten.
  async reconcile() {
    const gen = this.flips;
    const got = {};
    for (const a of PILOT_AREAS) {
      try {
        got[a] = { ok: true, v: (await this.d.storage[a].get(PILOT_KEY))[PILOT_KEY] };
      } catch (_) {
        got[a] = { ok: false };
      }
    }
    let value = false;
    if (got.sync.ok) value = got.sync.v === true;
    else if (got.local.ok && typeof got.local.v === 'boolean') value = got.local.v;
    else if (got.session.ok && typeof got.session.v === 'boolean') value = got.session.v;
    if (gen !== this.flips) return; // the popup flipped it meanwhile: that is newer
    this.enabled = value;
    const stale = PILOT_AREAS.filter((a) => got[a].ok && got[a].v !== value);
    if (stale.length) await this.write(value, stale);
  }

  /**
   * The popup's flip: in force at once (the next pilot query already sees it), then written to the three
   * storage areas and broadcast to other extension pages. Resolves to the confirmed state.
   */
  async set(value) {
    this.enabled = value;
    this.flips++;
    await this.write(value);
    const confirmed = { type: 'pilotStatusChanged', enabled: this.enabled };
    // Other open extension pages (a second popup, the options page) follow too.
    try {
      this.d.runtime.sendMessage(confirmed).catch(() => {});
    } catch (_) { /* no other page */ }
    return confirmed;
  }

  /** Throws ai_web_pilot_disabled unless the switch is on: checked before every action and again right before it touches the page. */
  assert() {
    if (!this.enabled) throw new QueryError('ai_web_pilot_disabled', PILOT_OFF);
  }
}
