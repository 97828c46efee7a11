// AI Web Pilot actions (query kind "pilot"), each only while the human's switch is on: highlight an
// element, save/load/list/delete storage snapshots (localStorage, sessionStorage, cookies), and
// execute_js (script.js).

import { QueryError, errText } from './errors.js';
import { ACTIONS } from './act.js';
import { cookieStoreOf } from './storage.js';

const SNAPSHOTS_KEY = 'gasoline_snapshots';
const SNAPSHOT_NAME_MAX = 50;
const HIGHLIGHT_DEFAULT_MS = 5000;
const HIGHLIGHT_MAX_MS = 60000;

/**
 * @typedef {object} PilotDeps
 * @property {{sendMessage: Function}} tabs chrome.tabs
 * @property {{get: Function, set: Function}} storage chrome.storage.local, which holds the snapshots
 * @property {{executeScript: Function}} scripting
 * @property {{getAll: Function, set: Function, remove: Function, getAllCookieStores: Function}} cookies
 * @property {import('./clock.js').Clock} clock
 * @property {{ready(): Promise<unknown>, assert(): void}} pilot the human's switch
 * @property {{run(tabId: number, p: object, job: object): Promise<unknown>}} script execute_js
 * @property {{run(tabId: number, q: object, p: object, job: object): Promise<unknown>, newTab(q: object, p: object, job: object): Promise<unknown>}} act
 *   act.js's Actor: navigate … wait_for, the AI session's own tabs
 * @property {{resolveTab(tab: unknown): Promise<number>}} tracked tabs.js's Tabs: which tab a query means
 * @property {{askContent: Function, onDocument: Function, navigateTab(tabId: number, url: string): Promise<void>}} documents
 *   documents.js's Documents: the tab's current document asked
 */

export class Pilot {
  /** @param {PilotDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.check = () => deps.pilot.assert(); // before every step that touches the page
    this.highlightedTabs = new Set();
    this.snapshotChain = Promise.resolve(); // snapshot reads and writes, one at a time
  }

  /** Runs pilot query q (params p) for job. */
  async run(q, p, job) {
    await this.d.pilot.ready();
    this.d.pilot.assert(); // whatever the server believes
    switch (p.action) {
      case 'list_states':
        return { result: await this.listStates() };
      case 'delete_state':
        return { result: await this.deleteState(p) };
      case 'highlight':
      case 'save_state':
      case 'load_state':
      case 'execute_js':
        break;
      default:
        if (p.action === 'new_tab') return this.d.act.newTab(q, p, job);
        if (ACTIONS.has(p.action)) {
          job.tab = await this.d.tracked.resolveTab(q.tab);
          return this.d.act.run(job.tab, q, p, job);
        }
        throw new QueryError('invalid_param', `unknown pilot action ${JSON.stringify(p.action)}`);
    }
    job.tab = await this.d.tracked.resolveTab(q.tab);
    switch (p.action) {
      case 'highlight':
        return this.highlight(job.tab, q, p, job);
      case 'save_state':
        return this.saveState(job.tab, p, job);
      case 'load_state':
        return this.loadState(job.tab, p, job);
      default:
        return this.d.script.run(job.tab, p, job);
    }
  }

  // -- highlight: the content script draws #gasoline-highlighter in the page's DOM

  async highlight(tabId, q, p, job) {
    const selector = typeof p.selector === 'string' ? p.selector.trim() : '';
    if (!selector) throw new QueryError('invalid_param', 'selector is required');
    let ms = Math.floor(Number(p.duration_ms));
    ms = Number.isFinite(ms) && ms > 0 ? Math.min(ms, HIGHLIGHT_MAX_MS) : HIGHLIGHT_DEFAULT_MS;
    const query = { id: q.id, kind: 'pilot', params: { action: 'highlight', selector, duration_ms: ms } };
    const out = await this.d.documents.askContent(tabId, query, job, this.check);
    if (out && out.result) {
      this.highlightedTabs.add(tabId);
      this.d.clock.setTimeout(() => this.highlightedTabs.delete(tabId), ms);
    }
    return out;
  }

  // The switch went off: take every highlight down now.
  clearHighlights() {
    for (const tabId of this.highlightedTabs) {
      this.d.tabs.sendMessage(tabId, { type: 'query', id: '', kind: 'pilot', params: { action: 'unhighlight' } }, { frameId: 0 })
        .catch(() => {});
    }
    this.highlightedTabs = new Set();
  }

  // -- snapshots (see below)

  // Runs fn(snapshots) with the stored map, one at a time; fn returns true to write the map back.
  withSnapshots(fn) {
    const run = this.snapshotChain.then(async () => {
      const all = (await this.d.storage.get(SNAPSHOTS_KEY))[SNAPSHOTS_KEY] || {};
      const r = await fn(all);
      if (r && r.write) {
        try {
          await this.d.storage.set({ [SNAPSHOTS_KEY]: all });
        } catch (err) {
          throw new QueryError('internal', `the snapshot could not be stored: ${errText(err)}`);
        }
      }
      return r && r.value;
    });
    this.snapshotChain = run.catch(() => {});
    return run;
  }

  listStates() {
    return this.withSnapshots((all) => ({
      value: {
        snapshots: Object.keys(all).sort().map((name) => ({
          name, url: all[name].url, timestamp: all[name].timestamp, size_bytes: all[name].size_bytes,
        })),
      },
    }));
  }

  deleteState(p) {
    const name = snapshotName(p);
    return this.withSnapshots((all) => {
      if (!hasOwn(all, name)) throw new QueryError('not_found', `no snapshot named ${JSON.stringify(name)}`);
      delete all[name];
      return { write: true, value: { success: true, snapshot_name: name } };
    });
  }

  // The cookie store of the tab (an incognito tab has its own).
  cookieStoreOf(tabId) {
    return cookieStoreOf(this.d.cookies, tabId);
  }

  // Runs fn against the tab's current document and checks its answer.
  inPage(tabId, job, func, args, check) {
    return this.d.documents.onDocument(tabId, job, async () => {
      if (check) check();
      const [res] = await this.d.scripting.executeScript({ target: { tabId, frameIds: [0] }, world: 'ISOLATED', func, args: args || [] });
      const r = res && res.result;
      if (!r || typeof r !== 'object') throw new QueryError('internal', 'the page gave no answer');
      if (r.error) throw new QueryError('internal', `the page's storage cannot be used: ${r.error}`);
      return r;
    });
  }

  async saveState(tabId, p, job) {
    const name = snapshotName(p);
    const page = await this.inPage(tabId, job, readPageStorage, [], this.check);
    if (!page) return null;
    let cookies = [];
    if (webURL(page.url)) {
      const storeId = await this.cookieStoreOf(tabId);
      cookies = (await this.d.cookies.getAll(storeId ? { url: page.url, storeId } : { url: page.url })).map(keepCookie);
    }
    const snap = {
      url: page.url,
      timestamp: this.d.clock.now(),
      include_url: p.include_url !== false,
      localStorage: page.local,
      sessionStorage: page.session,
      cookies,
    };
    snap.size_bytes = new TextEncoder().encode(JSON.stringify(snap)).length;
    await this.withSnapshots((all) => {
      all[name] = snap;
      return { write: true };
    });
    return {
      result: {
        success: true,
        snapshot_name: name,
        size_bytes: snap.size_bytes,
        url: snap.url,
        saved: { localStorage: Object.keys(page.local).length, sessionStorage: Object.keys(page.session).length, cookies: cookies.length },
      },
    };
  }

  async loadState(tabId, p, job) {
    const name = snapshotName(p);
    const snap = await this.withSnapshots((all) => ({ value: hasOwn(all, name) ? all[name] : null }));
    if (!snap) throw new QueryError('not_found', `no snapshot named ${JSON.stringify(name)}`);
    const navigate = p.include_url !== false && snap.include_url !== false;
    const origin = originOf(snap.url);
    // The storages belong to the snapshot's origin: restore them in a document of that origin.
    let here = await this.inPage(tabId, job, () => ({ url: location.href, origin: location.origin }), [], this.check);
    if (!here) return null;
    if (here.origin !== origin) {
      if (!navigate) {
        throw new QueryError('invalid_param', `the tab shows ${here.origin}, the snapshot is of ${origin}: load it with include_url to go there`);
      }
      this.d.pilot.assert();
      await this.d.documents.navigateTab(tabId, snap.url);
      here = await this.inPage(tabId, job, () => ({ url: location.href, origin: location.origin }), [], this.check);
      if (!here) return null;
      if (here.origin !== origin) throw new QueryError('internal', `the tab went to ${here.origin}, not ${origin}`);
    }
    this.d.pilot.assert();
    const errors = [];
    let cookies = 0;
    if (webURL(snap.url)) {
      const storeId = await this.cookieStoreOf(tabId);
      const inStore = (o) => (storeId ? { ...o, storeId } : o);
      for (const c of await this.d.cookies.getAll(inStore({ url: snap.url }))) {
        const d = inStore({ url: cookieURL(c), name: c.name });
        if (c.partitionKey) d.partitionKey = c.partitionKey;
        try {
          await this.d.cookies.remove(d);
        } catch (err) {
          errors.push(`cookie ${c.name}: ${errText(err)}`);
        }
      }
      const now = this.d.clock.now() / 1000;
      for (const c of snap.cookies || []) {
        if (!c.session && typeof c.expirationDate === 'number' && c.expirationDate <= now) {
          errors.push(`cookie ${c.name}: expired`);
          continue;
        }
        const d = inStore({ url: cookieURL(c), name: c.name, value: c.value, path: c.path, secure: c.secure, httpOnly: c.httpOnly, sameSite: c.sameSite });
        if (!c.hostOnly) d.domain = c.domain;
        if (!c.session && typeof c.expirationDate === 'number') d.expirationDate = c.expirationDate;
        if (c.partitionKey) d.partitionKey = c.partitionKey;
        try {
          if (await this.d.cookies.set(d)) cookies++;
          else errors.push(`cookie ${c.name}: refused`);
        } catch (err) {
          errors.push(`cookie ${c.name}: ${errText(err)}`);
        }
      }
    }
    const w = await this.inPage(tabId, job, writePageStorage, [snap.localStorage || {}, snap.sessionStorage || {}], this.check);
    if (!w) return null;
    errors.push(...w.errors);
    const result = {
      success: true,
      snapshot_name: name,
      restored: { localStorage: w.local, sessionStorage: w.session, cookies },
    };
    if (navigate) {
      await this.d.documents.navigateTab(tabId, snap.url);
      result.url = snap.url;
    }
    if (errors.length) result.errors = errors.slice(0, 20);
    return { result };
  }
}

// -- snapshots: chrome.storage.local gasoline_snapshots {name: snapshot}

function snapshotName(p) {
  const name = typeof p.snapshot_name === 'string' ? p.snapshot_name.trim() : '';
  if (!name) throw new QueryError('invalid_param', 'snapshot_name is required');
  if ([...name].length > SNAPSHOT_NAME_MAX) throw new QueryError('invalid_param', `snapshot_name is longer than ${SNAPSHOT_NAME_MAX} characters`);
  return name;
}

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/* global localStorage, sessionStorage -- readPageStorage and writePageStorage run in the page */
// Runs in the page (isolated world: the page's own storage, read with untouched built-ins).
function readPageStorage() {
  const dump = (s) => {
    const o = {};
    for (let i = 0; i < s.length; i++) {
      const k = s.key(i);
      if (k !== null) o[k] = s.getItem(k);
    }
    return o;
  };
  try {
    return { url: location.href, origin: location.origin, local: dump(localStorage), session: dump(sessionStorage) };
  } catch (e) {
    return { url: location.href, origin: location.origin, error: String((e && e.message) || e) };
  }
}

// Runs in the page: clears both storages, then writes the snapshot's entries.
function writePageStorage(local, session) {
  const out = { url: location.href, origin: location.origin, local: 0, session: 0, errors: /** @type {string[]} */ ([]) };
  try {
    localStorage.clear();
    sessionStorage.clear();
  } catch (e) {
    return { url: location.href, origin: location.origin, error: String((e && e.message) || e) };
  }
  for (const [store, entries, key] of [[localStorage, local, 'local'], [sessionStorage, session, 'session']]) {
    for (const k of Object.keys(entries || {})) {
      try {
        store.setItem(k, String(entries[k]));
        out[key]++;
      } catch (e) {
        out.errors.push(`${key}Storage ${k}: ${String((e && e.message) || e)}`);
      }
    }
  }
  return out;
}

const webURL = (u) => /^https?:/i.test(u || '');
const originOf = (u) => {
  try {
    return new URL(u).origin;
  } catch (_) {
    return '';
  }
};

const cookieURL = (c) => `http${c.secure ? 's' : ''}://${String(c.domain).replace(/^\./, '')}${c.path || '/'}`;

function keepCookie(c) {
  const o = { name: c.name, value: c.value, domain: c.domain, hostOnly: c.hostOnly, path: c.path, secure: c.secure,
    httpOnly: c.httpOnly, sameSite: c.sameSite, session: c.session };
  if (!c.session && typeof c.expirationDate === 'number') o.expirationDate = c.expirationDate;
  if (c.partitionKey) o.partitionKey = c.partitionKey;
  return o;
}

