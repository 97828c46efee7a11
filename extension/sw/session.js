// What the worker keeps in chrome.storage.session so that a stopped worker (MV3 stops idle ones) starts
// again where it was: each module names its own key; writes are coalesced into one set() per turn.
// Nothing is written before startSaving(): until the worker has read what a previous life stored,
// a write would overwrite it.

// The session keys, each written by one module: gasoline_queue, gasoline_counts, gasoline_overrides,
// gasoline_status, gasoline_page, and delivery.js's journal entries (gasoline_j:…).
const BIG = 'gasoline_queue'; // the one that can outgrow the session quota

const dirty = new Map();
let timer = 0;
let saving = false;

/** Stores value under key soon (on the next turn, with whatever else changed in this one); a function
 * is called at write time, so the latest state is what is written. */
export function saveSoon(key, value) {
  dirty.set(key, value);
  if (saving && !timer) timer = setTimeout(write, 0);
}

/** Called once the stored state was read: from now on writes go through. */
export function startSaving() {
  saving = true;
  if (dirty.size && !timer) timer = setTimeout(write, 0);
}

/** Reads every module's key and delivery.js's journal in one call ({} if the session area cannot be
 * read). */
export async function readSession() {
  try {
    return await chrome.storage.session.get(null);
  } catch (_) {
    return {};
  }
}

async function write() {
  timer = 0;
  const items = {};
  for (const [k, v] of dirty) items[k] = typeof v === 'function' ? v() : v;
  dirty.clear();
  try {
    await chrome.storage.session.set(items);
  } catch (_) {
    // Over the session quota: keep at least the small keys (counts, status).
    delete items[BIG];
    try {
      await chrome.storage.session.set(items);
    } catch (__) { /* ignore */ }
  }
}
