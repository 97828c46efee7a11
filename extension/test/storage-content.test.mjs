// node --test extension/test/: the content script's half of observe storage (content/storage.js), run
// against fake Storage areas and a fake IndexedDB: every value scrubbed before it leaves the page and
// cut at VALUE_WINDOW (a huge value never copied whole), each area read only to its budget and counted
// whole, a database opened as it is (never created) and closed, records only when asked, 20 a store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';

const require = createRequire(import.meta.url);
const source = (f) => readFileSync(new URL(`../${f}`, import.meta.url), 'utf8');
const VALUE_WINDOW = 2048 + 256;
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZGEiLCJleHAiOjE4OTM0NTYwMDB9.c2lnbmF0dXJlLXRoYXQtbXVzdC1uZXZlci1sZWFr';

// A Storage area over [key, value] pairs, counting the values read.
function area(pairs) {
  const a = { reads: 0 };
  a.length = pairs.length;
  a.key = (i) => (i < pairs.length ? pairs[i][0] : null);
  const m = new Map(pairs);
  a.getItem = (k) => { a.reads++; return m.has(k) ? m.get(k) : null; };
  return a;
}

// IndexedDB over dbs {name: {version, stores: {name: {keyPath, records: [[key, value]…]}}}}, plus names
// listed that are gone; log says what was opened, closed, aborted and read by cursor.
function fakeIDB(dbs, gone = []) {
  const log = { opened: [], closed: [], aborted: [], cursors: [] };
  const later = (fn) => setImmediate(fn);
  const request = (fn) => {
    const r = {};
    later(() => { r.result = fn(); r.onsuccess(); });
    return r;
  };
  const api = {
    databases: async () => [...Object.entries(dbs).map(([name, d]) => ({ name, version: d.version })), ...gone.map((name) => ({ name, version: 1 }))],
    open(name) {
      const r = {};
      later(() => {
        const d = dbs[name];
        if (!d) {
          let aborted = false;
          r.transaction = { abort() { aborted = true; log.aborted.push(name); } };
          r.onupgradeneeded();
          if (!aborted) throw new Error(`${name} created`);
          r.error = new Error('AbortError: the upgrade was aborted');
          r.onerror();
          return;
        }
        log.opened.push(name);
        r.result = {
          version: d.version,
          objectStoreNames: Object.keys(d.stores),
          close() { log.closed.push(name); },
          transaction: () => ({
            objectStore(n) {
              const s = d.stores[n];
              return {
                keyPath: s.keyPath === undefined ? null : s.keyPath,
                autoIncrement: !!s.autoIncrement,
                count: () => request(() => s.records.length),
                openCursor() {
                  log.cursors.push(n);
                  const c = {};
                  let i = 0;
                  const step = () => later(() => {
                    c.result = i < s.records.length ? { key: s.records[i][0], value: s.records[i][1], continue() { i++; step(); } } : null;
                    c.onsuccess();
                  });
                  step();
                  return c;
                },
              };
            },
          }),
        };
        r.onsuccess();
      });
      return r;
    },
  };
  return { log, api };
}

function contentScript({ local = [], session = [], idb = null, sessionThrows = false } = {}) {
  const ctx = vm.createContext({
    __gasolineContent: { parts: new Set(), QueryError: class extends Error {} },
    __gasolineScrub: require('../content/scrub.js'),
    location: { origin: 'http://app.test', href: 'http://app.test/shop?token=abc' },
    setTimeout, clearTimeout, Promise, Array, Object, JSON, String, Error,
  });
  const l = area(local);
  const s = area(session);
  ctx.window = { localStorage: l };
  Object.defineProperty(ctx.window, 'sessionStorage', { get() { if (sessionThrows) throw new Error('SecurityError: denied'); return s; } });
  if (idb) ctx.indexedDB = idb.api;
  vm.runInContext(source('page/serialize.js'), ctx);
  vm.runInContext(source('content/storage.js'), ctx);
  return { storage: ctx.__gasolineContent.storage, local: l, session: s };
}

test('storage areas: scrubbed by name before they leave the page, a huge value cut and never copied, read to the budget and counted whole', async () => {
  const huge = 'x'.repeat(3_000_000);
  const local = [['auth_token', JWT], ['draft', huge], ['cart', '{"items":[1],"password":"p1"}'], ['theme', 'dark']];
  for (let i = 0; i < 10000; i++) local.push([`key-${i}`, `value ${i}`]);
  const c = contentScript({ local, session: [['step', 'checkout-2']] });
  const r = JSON.parse(JSON.stringify(await c.storage({})));
  assert.equal(r.origin, 'http://app.test');
  assert.equal(r.url, 'http://app.test/shop?token=[redacted]');
  assert.equal(r.localStorage.count, 10004);
  const e = r.localStorage.entries;
  assert.deepEqual(e.slice(0, 4).map((x) => [x.key, x.value.length > 100 ? `${x.value.length} chars` : x.value, x.size, !!x.cut]), [
    ['auth_token', 'eyJhbG…[redacted]', JWT.length, false],
    ['draft', `${VALUE_WINDOW} chars`, 3_000_000, true],
    ['cart', '{"items":[1],"password":"[redacted]"}', 29, false],
    ['theme', 'dark', 4, false],
  ]);
  assert.ok(e.length < 10004 && e.length > 3000, `${e.length} entries in the budget`);
  assert.equal(c.local.reads, e.length, 'no value read past the budget');
  assert.deepEqual(r.sessionStorage, { count: 1, entries: [{ key: 'step', value: 'checkout-2', size: 10 }] });
  assert.equal(r.indexedDB, undefined, 'no IndexedDB in this world: left out');
});

test('a part the browser refuses is named unreadable, the others answered', async () => {
  const c = contentScript({ local: [['theme', 'dark']], sessionThrows: true });
  const r = JSON.parse(JSON.stringify(await c.storage({})));
  assert.deepEqual(r.unreadable, { sessionStorage: 'SecurityError: denied' });
  assert.equal(r.localStorage.count, 1);
});

test('IndexedDB: counts and key paths; records only when asked, 20 a store, clipped, scrubbed; a gone database never created; every one closed', async () => {
  const orders = [];
  for (let i = 1; i <= 25; i++) orders.push([i, { id: i, sku: 'A1', card_token: `tok_${i}` }]);
  const idb = fakeIDB({
    shop: { version: 2, stores: { orders: { keyPath: 'id', records: orders }, blobs: { records: [['huge', 'f'.repeat(5_000_000)]] } } },
    auth: { version: 1, stores: { credentials: { keyPath: ['user', 'kind'], autoIncrement: true, records: [[['ada', 'pw'], { secret: 'x' }]] } } },
  }, ['gone']);
  let c = contentScript({ idb });
  let r = JSON.parse(JSON.stringify(await c.storage({})));
  assert.deepEqual(r.indexedDB, {
    count: 3,
    databases: [
      { name: 'shop', version: 2, stores: [{ name: 'orders', count: 25, keyPath: 'id' }, { name: 'blobs', count: 1 }] },
      { name: 'auth', version: 1, stores: [{ name: 'credentials', count: 1, keyPath: '["user","kind"]', autoIncrement: true }] },
      { name: 'gone', version: 1, error: 'AbortError: the upgrade was aborted' },
    ],
  });
  assert.deepEqual(idb.log.cursors, [], 'no record read unasked');
  assert.deepEqual(idb.log.aborted, ['gone'], 'a database gone since it was listed is not created');
  assert.deepEqual(idb.log.closed, idb.log.opened);

  c = contentScript({ idb });
  r = JSON.parse(JSON.stringify(await c.storage({ include_values: true })));
  const [orderStore, blobStore] = r.indexedDB.databases[0].stores;
  assert.equal(orderStore.records.length, 20);
  assert.equal(orderStore.more, 5);
  assert.deepEqual(orderStore.records[0], { key: '1', value: '{"id":1,"sku":"A1","card_token":"[redacted]"}' });
  const blob = blobStore.records[0];
  assert.equal(blob.key, '"huge"');
  assert.equal(blob.cut, true);
  assert.ok(blob.value.length <= VALUE_WINDOW + 10, `${blob.value.length} chars of a 5 MB value`);
  assert.deepEqual(r.indexedDB.databases[1].stores[0].records, [{ key: '["ada","pw"]', value: '[redacted]' }], 'a secret-named store: whole values');
  assert.deepEqual(idb.log.closed, idb.log.opened);
});
