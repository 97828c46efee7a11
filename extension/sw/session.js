// What the worker keeps in chrome.storage.session so that a stopped worker (MV3 stops idle ones) starts
// again where it was: each module names its own key; writes are coalesced into one set() per turn.
// Nothing is written before startSaving(): until the worker has read what a previous life stored,
// a write would overwrite it.

// The session keys, each written by one module: gasoline_queue, gasoline_counts, gasoline_overrides,
// gasoline_status, gasoline_page, and delivery.js's journal entries (gasoline_j:…).
const BIG = 'gasoline_queue'; // the one that can outgrow the session quota

/**
 * @typedef {object} SessionDeps
 * @property {{get(keys: string[] | null): Promise<Record<string, any>>, set(items: object): Promise<void>}} storage chrome.storage.session
 * @property {import('./clock.js').Clock} clock
 */

export class SessionStore {
  /** @param {SessionDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.dirty = new Map();
    this.timer = 0;
    this.saving = false;
  }

  /** Stores value under key soon (on the next turn, with whatever else changed in this one); a function
   * is called at write time, so the latest state is what is written. */
  saveSoon(key, value) {
    this.dirty.set(key, value);
    if (this.saving && !this.timer) this.timer = this.d.clock.setTimeout(() => this.write(), 0);
  }

  /** Called once the stored state was read: from now on writes go through. */
  startSaving() {
    this.saving = true;
    if (this.dirty.size && !this.timer) this.timer = this.d.clock.setTimeout(() => this.write(), 0);
  }

  /** Reads every module's key and delivery.js's journal in one call ({} if the session area cannot be
   * read). */
  async read() {
    try {
      return await this.d.storage.get(null);
    } catch (_) {
      return {};
    }
  }

  async write() {
    this.timer = 0;
    const items = {};
    for (const [k, v] of this.dirty) items[k] = typeof v === 'function' ? v() : v;
    this.dirty.clear();
    try {
      await this.d.storage.set(items);
    } catch (_) {
      // Over the session quota: keep at least the small keys (counts, status).
      delete items[BIG];
      try {
        await this.d.storage.set(items);
      } catch (__) { /* ignore */ }
    }
  }
}
