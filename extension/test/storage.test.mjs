import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { QueryRunner } from '../sw/queries.js';
import { QueryError } from '../sw/errors.js';
import { FakeClock } from './fake-clock.mjs';

// In the worker content/scrub.js is a classic script and sets the global; node loads it as CommonJS.
const require = createRequire(import.meta.url);
globalThis.__gasolineScrub = require('../content/scrub.js');
const { StorageReader, VALUE_WINDOW, COOKIES_MAX } = await import('../sw/storage.js');

// The worker's half of observe storage (sw/storage.js): the human's storage_reads switch, the content
// script asked for the page's storages, the tab's cookies read and scrubbed by the one secret rule.

const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

function harness({ cookies = [], url = 'http://app.test/shop', stores = [{ id: '0', tabIds: [3] }, { id: '1', tabIds: [9] }] } = {}) {
  const h = { settings: { storage_reads: true }, asked: [], cookieQueries: [], page: null };
  h.page = { result: { origin: 'http://app.test', url, localStorage: { count: 1, entries: [{ key: 'theme', value: 'dark', size: 4 }] } } };
  h.reader = new StorageReader({
    settings: () => h.settings,
    cookies: {
      getAll: async (d) => { h.cookieQueries.push(d); if (h.cookieError) throw new Error(h.cookieError); return cookies; },
      getAllCookieStores: async () => stores,
    },
    documents: {
      askContent: async (tabId, q, job, check) => {
        check();
        h.asked.push({ tabId, q });
        const ans = typeof h.page === 'function' ? h.page() : h.page;
        return ans;
      },
    },
  });
  return h;
}

const job = () => ({ deadline: Date.now() + 10000, done: false, cancels: [] });

test('off: the human\'s storage_reads refuses at once, the page never asked; turned off while the page answers, nothing goes on', async () => {
  const h = harness();
  h.settings.storage_reads = false;
  await assert.rejects(h.reader.read(3, { id: 'q1' }, {}, job()), (err) => err instanceof QueryError && err.code === 'storage_reads_off' && /human/.test(err.message));
  assert.equal(h.asked.length, 0);
  h.settings.storage_reads = true;
  h.page = () => { h.settings.storage_reads = false; return { result: { origin: 'http://app.test', url: 'http://app.test/' } }; };
  await assert.rejects(h.reader.read(3, { id: 'q2' }, {}, job()), (err) => err.code === 'storage_reads_off');
});

test('the page\'s answer gets the tab\'s cookies, HttpOnly ones too, scrubbed by name and cut, their flags as the AI reads them', async () => {
  const big = 'x'.repeat(5 * 1024 * 1024);
  const h = harness({ cookies: [
    { name: 'theme', value: 'dark', domain: 'app.test', path: '/', secure: false, httpOnly: false, sameSite: 'lax', session: false, expirationDate: 1893456000 },
    { name: 'sid', value: 'server-secret', domain: 'app.test', path: '/', httpOnly: true, sameSite: 'strict', session: true },
    { name: 'jwt', value: JWT, domain: '.app.test', path: '/', secure: true, sameSite: 'no_restriction', session: true },
    { name: 'blob', value: big, domain: 'app.test', path: '/shop', sameSite: 'unspecified', session: true },
  ] });
  const out = await h.reader.read(3, { id: 'q1' }, { include_values: true, other: 1 }, job());
  assert.deepEqual(h.asked, [{ tabId: 3, q: { id: 'q1', kind: 'storage', params: { include_values: true } } }]);
  assert.deepEqual(h.cookieQueries, [{ url: 'http://app.test/shop', storeId: '0' }], 'the tab\'s own cookie store, the page\'s URL');
  const c = out.result.cookies;
  assert.equal(c.count, 4);
  assert.deepEqual(c.entries.slice(0, 3), [
    { name: 'theme', value: 'dark', domain: 'app.test', path: '/', size: 9, sameSite: 'Lax', expires: '2030-01-01T00:00:00.000Z' },
    { name: 'sid', value: '[redacted]', domain: 'app.test', path: '/', size: 16, httpOnly: true, sameSite: 'Strict' },
    { name: 'jwt', value: 'eyJhbG…[redacted]', domain: '.app.test', path: '/', size: 3 + JWT.length, secure: true, sameSite: 'None' },
  ]);
  const blob = c.entries[3];
  assert.equal(blob.cut, true);
  assert.equal(blob.size, 4 + big.length, 'the whole length');
  assert.equal(blob.value.length, VALUE_WINDOW, 'never the whole value');
  assert.equal(blob.sameSite, undefined);
  assert.deepEqual(out.result.localStorage, h.page.result.localStorage, 'the page\'s part as the content script sent it');
});

test('at most COOKIES_MAX cookies, all counted; none for a page that is not on the web; a cookie failure names the part', async () => {
  const many = Array.from({ length: 300 }, (_, i) => ({ name: `c${i}`, value: 'v', domain: 'app.test', path: '/', session: true }));
  let h = harness({ cookies: many, stores: [] });
  let out = await h.reader.read(3, { id: 'q' }, {}, job());
  assert.equal(out.result.cookies.count, 300);
  assert.equal(out.result.cookies.entries.length, COOKIES_MAX);
  assert.deepEqual(h.cookieQueries, [{ url: 'http://app.test/shop' }], 'the default store');
  h = harness({ url: 'file:///tmp/a.html' });
  out = await h.reader.read(3, { id: 'q' }, {}, job());
  assert.equal(out.result.cookies, undefined);
  assert.equal(h.cookieQueries.length, 0);
  h = harness();
  h.cookieError = 'no permission';
  out = await h.reader.read(3, { id: 'q' }, {}, job());
  assert.deepEqual(out.result.unreadable, { cookies: 'no permission' });
  assert.equal(out.result.localStorage.count, 1, 'the rest is still answered');
});

test('the content script\'s error is the answer; the query runner sends storage to the reader with the tab it means', async () => {
  const h = harness();
  h.page = { error: { code: 'not_found', message: 'tab 3 was closed' } };
  assert.deepEqual(await h.reader.read(3, { id: 'q' }, {}, job()), h.page);
  const sent = [];
  const clock = new FakeClock(1_000_000);
  const seen = [];
  const runner = new QueryRunner({
    send: (m) => sent.push(m), clock,
    pilot: null, audits: null, shots: null, deliverHeld: null, documents: null,
    tracked: { resolveTab: async (t) => (t === 0 ? 7 : t), url: () => 'http://app.test/' },
    storage: { read: async (tab, q, p) => { seen.push({ tab, id: q.id, p }); return { result: { origin: 'http://app.test' } }; } },
  });
  await runner.run({ type: 'query', id: 's1', kind: 'storage', tab: 0, params: { include_values: true } });
  assert.deepEqual(seen, [{ tab: 7, id: 's1', p: { include_values: true } }]);
  assert.deepEqual(sent, [{ type: 'result', id: 's1', tab: 7, url: 'http://app.test/', result: { origin: 'http://app.test' } }]);
});
