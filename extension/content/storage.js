// Gasoline content script, the 'storage' query (after content/queries.js): what the page's origin keeps,
// read in the page's own origin, as the DevTools Application panel shows it — localStorage and
// sessionStorage (key, value, size), IndexedDB (databases, versions, stores, key paths, record counts;
// records only when asked), Cache Storage names. The worker adds the cookies (sw/storage.js).
// Every value is scrubbed here, before it leaves the page, by the one secret rule (content/scrub.js),
// from at most VALUE_WINDOW characters of it: a 50 MB value is never copied whole, nor serialized.
// Each list stops at its budget and counts the rest; the server cuts the answer to 64 KB.
(() => {
  'use strict';

  const G = globalThis.__gasolineContent;
  if (!G || G.parts.has('storage') || !G.QueryError) return;
  G.parts.add('storage');
  const S = globalThis.__gasolineScrub;

  const VALUE_WINDOW = 2048 + 256; // sw/storage.js's: the server cuts at 2 KB after its own redaction
  const KEY_MAX = 256;
  const AREA_BUDGET = 64 * 1024; // characters of an area's keys and values sent
  const RECORDS_BUDGET = 128 * 1024; // characters of IndexedDB records sent, all stores together
  const DATABASES_MAX = 20;
  const STORES_MAX = 50;
  const RECORDS_MAX = 20;
  const CACHES_MAX = 50;
  const OPEN_MS = 3000; // an open another connection's upgrade holds back

  /**
   * @typedef {{key: string, value: string, size: number, cut?: boolean}} AreaEntry
   * @typedef {{key: string, value: string, cut?: boolean}} RecordEntry
   * @typedef {{name: string, keyPath?: string, autoIncrement?: boolean, count: number, records?: RecordEntry[], more?: number}} StoreEntry
   * @typedef {{name: string, version?: number, stores?: StoreEntry[], more_stores?: number, error?: string}} DatabaseEntry
   */

  const clip = (s, n) => (s.length > n ? s.slice(0, n) : s);
  const why = (err) => String((err && err.message) || err);

  // One Storage area: its items in order until the budget is spent, all of them counted.
  function area(get) {
    const st = get();
    const n = st.length;
    const out = { count: n, entries: /** @type {AreaEntry[]} */ ([]) };
    let budget = AREA_BUDGET;
    for (let i = 0; i < n && budget > 0; i++) {
      const key = st.key(i);
      if (key === null) continue;
      const v = st.getItem(key);
      if (v === null) continue;
      const shown = clip(v, VALUE_WINDOW);
      /** @type {AreaEntry} */
      const e = { key: clip(key, KEY_MAX), value: S.named(key, shown), size: v.length };
      if (shown.length < v.length) e.cut = true;
      budget -= e.key.length + e.value.length;
      out.entries.push(e);
    }
    return out;
  }

  // The page's IDBRequest as a promise.
  const done = (req) => new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

  // Opens an existing database as it is: never creates one (the page's to make), never holds back the
  // page's next upgrade (closed at its versionchange, and as soon as it is read).
  function open(name) {
    return new Promise((resolve, reject) => {
      const req = indexedDB.open(name);
      const timer = setTimeout(() => reject(new Error('the database did not open (another connection is upgrading it)')), OPEN_MS);
      req.onupgradeneeded = () => { if (req.transaction) req.transaction.abort(); }; // gone since databases() listed it
      req.onsuccess = () => {
        clearTimeout(timer);
        const db = req.result;
        db.onversionchange = () => db.close();
        resolve(db);
      };
      req.onerror = () => {
        clearTimeout(timer);
        reject(req.error || new Error('the database did not open'));
      };
      req.onblocked = () => {};
    });
  }

  const keyPathOf = (kp) => (kp === null || kp === undefined ? '' : Array.isArray(kp) ? JSON.stringify(kp) : String(kp));

  // A record's key or value as JSON text (page/serialize.js's serializer, bounded: strings clipped),
  // scrubbed as a secret-named store's or as JSON.
  function recordText(serialize, v, store, isValue) {
    const s = serialize(v, { max: VALUE_WINDOW, str: VALUE_WINDOW, depth: 20, items: 200 });
    const text = isValue && S.isSecretName(store) ? S.named(store, s.json) : S.json(s.json);
    return { text, cut: s.cut };
  }

  async function storeOf(tx, name, includeValues, ctx) {
    const os = tx.objectStore(name);
    /** @type {StoreEntry} */
    const st = { name, count: await done(os.count()) };
    const kp = keyPathOf(os.keyPath);
    if (kp) st.keyPath = kp;
    if (os.autoIncrement) st.autoIncrement = true;
    if (!includeValues || !ctx.serialize || !st.count) return st;
    /** @type {RecordEntry[]} */
    const records = [];
    st.records = records;
    await new Promise((resolve, reject) => {
      const req = os.openCursor();
      req.onerror = () => reject(req.error);
      req.onsuccess = () => {
        const c = req.result;
        if (!c || records.length >= RECORDS_MAX || ctx.budget <= 0) return resolve(undefined);
        const key = recordText(ctx.serialize, c.key, name, false);
        const value = recordText(ctx.serialize, c.value, name, true);
        /** @type {RecordEntry} */
        const r = { key: key.text, value: value.text };
        if (value.cut) r.cut = true;
        ctx.budget -= key.text.length + value.text.length;
        records.push(r);
        c.continue();
      };
    });
    if (st.count > records.length) st.more = st.count - records.length;
    return st;
  }

  async function databaseOf(info, includeValues, ctx) {
    const db = await open(info.name);
    try {
      const names = Array.from(db.objectStoreNames);
      /** @type {StoreEntry[]} */
      const stores = [];
      /** @type {DatabaseEntry} */
      const d = { name: info.name, version: db.version, stores };
      if (names.length > STORES_MAX) d.more_stores = names.length - STORES_MAX;
      const read = names.slice(0, STORES_MAX);
      if (read.length) {
        const tx = db.transaction(read, 'readonly');
        for (const n of read) stores.push(await storeOf(tx, n, includeValues, ctx));
      }
      return d;
    } finally {
      db.close();
    }
  }

  async function indexedDBOf(includeValues) {
    const list = await indexedDB.databases();
    const out = { count: list.length, databases: /** @type {DatabaseEntry[]} */ ([]) };
    const serializer = globalThis.__gasolineSerializer;
    const ctx = { budget: RECORDS_BUDGET, serialize: typeof serializer === 'function' ? serializer(null) : null };
    for (const info of list.slice(0, DATABASES_MAX)) {
      if (typeof info.name !== 'string') continue;
      try {
        out.databases.push(await databaseOf(info, includeValues, ctx));
      } catch (err) { // one database's failure spoils not the others'
        out.databases.push({ name: info.name, version: info.version, error: why(err) });
      }
    }
    return out;
  }

  /** The 'storage' query: what this document's origin keeps. */
  G.storage = async (p) => {
    const includeValues = p.include_values === true;
    const out = { origin: location.origin, url: S.url(location.href) };
    const unreadable = {};
    // Each part on its own: a sandboxed frame or a browser setting may refuse one and not the others.
    const part = async (name, read) => {
      try {
        out[name] = await read();
      } catch (err) {
        unreadable[name] = why(err);
      }
    };
    await part('localStorage', () => area(() => window.localStorage));
    await part('sessionStorage', () => area(() => window.sessionStorage));
    if (typeof indexedDB !== 'undefined' && typeof indexedDB.databases === 'function') await part('indexedDB', () => indexedDBOf(includeValues));
    if (typeof caches !== 'undefined') await part('cacheStorage', async () => (await caches.keys()).slice(0, CACHES_MAX));
    if (Object.keys(unreadable).length) out.unreadable = unreadable;
    return out;
  };
})();
