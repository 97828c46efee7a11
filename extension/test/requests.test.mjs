// node --test extension/test/: every request of a captured tab from the browser's webRequest events
// (sw/requests.js), joined with the page-world hooks' fetch and XHR entries so a fetch is listed once.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { FakeClock } from './fake-clock.mjs';
import { Requests, JOIN_MS, BATCH_MS, PENDING_MAX, OUTBOX_MAX, REMEMBER_MS, loadTypes } from '../sw/requests.js';

const require = createRequire(import.meta.url);
const scrub = require('../content/scrub.js');
const gate = require('../content/gate.js');

const PAGE = 'http://app.test/shop.html';

function rig() {
  const clock = new FakeClock(1_000_000);
  const out = []; // [tab, page, data]
  const r = new Requests({
    clock, life: 'L', scrubURL: scrub.url, ignored: gate.serverTest('http://127.0.0.1:7890'),
    deliver: (tab, page, entries) => { for (const e of entries) out.push([tab, page, e]); },
  });
  r.committed({ tabId: 4, frameId: 0, url: PAGE });
  let id = 0;
  // One request from its start to its end (completed with status, or failed with error).
  const request = (o) => {
    const d = { requestId: String(++id), tabId: 4, frameId: 0, method: 'GET', type: 'image', timeStamp: clock.now(), ...o };
    r.started(d);
    return {
      respond: (status) => r.responded({ ...d, statusCode: status, timeStamp: clock.now() }),
      complete: (status, extra = {}) => r.completed({ ...d, statusCode: status, timeStamp: clock.now(), ...extra }),
      fail: (error) => r.failed({ ...d, error, timeStamp: clock.now() }),
      d,
    };
  };
  return { clock, out, r, request };
}

test('a 404 image, a 404 script and a document are listed with their type, status, page and number', async () => {
  const { clock, out, request } = rig();
  const doc = request({ url: PAGE, type: 'main_frame' });
  await clock.advance(30);
  doc.complete(200, { responseHeaders: [{ name: 'Content-Length', value: '812' }, { name: 'Content-Type', value: 'Text/HTML; charset=utf-8' }] });
  const img = request({ url: 'http://app.test/assets/hero.png?token=abc123' });
  const js = request({ url: 'http://app.test/missing.js', type: 'script' });
  await clock.advance(12);
  img.complete(404);
  js.complete(404);
  assert.equal(out.length, 0, 'handed over together, a moment later');
  await clock.advance(BATCH_MS);
  assert.deepEqual(out.map(([tab, page, e]) => [tab, page, e.type, e.status, e.url, e.dc, e.sq]), [
    [4, PAGE, 'document', 200, PAGE, 'wL.4', 1],
    [4, PAGE, 'image', 404, 'http://app.test/assets/hero.png?token=[redacted]', 'wL.4', 2],
    [4, PAGE, 'script', 404, 'http://app.test/missing.js', 'wL.4', 3],
  ]);
  assert.equal(out[0][2].size, 812);
  assert.equal(out[0][2].mime, 'text/html', 'the media type, for the HAR');
  assert.equal(out[1][2].mime, undefined, 'none said, none listed');
  assert.equal(out[0][2].duration_ms, 30);
  assert.equal(out[1][2].duration_ms, 12);
  assert.equal(out[1][2].method, 'GET');
});

// Of a fetch or XHR the worker hears only how it failed (background.js listens for nothing else of
// 'xmlhttprequest'): its failure, at its end.
const xhrFailed = (r, o) => r.failed({ requestId: `x${o.timeStamp}`, tabId: 4, frameId: 0, method: 'GET', type: 'xmlhttprequest', ...o });

test('a failed fetch the hooks saw is listed once: theirs, with the network\'s error beside their own', async () => {
  const { clock, out, r } = rig();
  const start = clock.now();
  await clock.advance(40);
  xhrFailed(r, { url: 'http://app.test/api/cart', method: 'POST', error: 'net::ERR_FAILED', timeStamp: clock.now() });
  await clock.advance(JOIN_MS - 500);
  const hook = { kind: 'network', data: { ts: start + 3, duration_ms: 38, method: 'POST', url: 'http://app.test/api/cart', type: 'fetch', failed: true, error: 'TypeError: Failed to fetch', dc: 'abc', sq: 7 } };
  r.fromPage([hook], 4);
  assert.equal(hook.data.error, 'TypeError: Failed to fetch (net::ERR_FAILED)');
  assert.equal(hook.data.sq, 7, 'the hooks\' entry keeps its place in its document');
  await clock.advance(JOIN_MS * 2);
  assert.deepEqual(out, [], 'the browser\'s copy is never listed');

  // One that failed after 30 s (a timeout) is joined by its end, not its start.
  const t0 = clock.now();
  await clock.advance(30_000);
  xhrFailed(r, { url: 'http://app.test/api/slow', error: 'net::ERR_TIMED_OUT', timeStamp: clock.now() });
  const slow = { kind: 'network', data: { ts: t0, duration_ms: 30_001, method: 'GET', url: 'http://app.test/api/slow#x', type: 'xhr', failed: true, error: 'timeout' } };
  r.fromPage([slow], 4);
  assert.equal(slow.data.error, 'timeout (net::ERR_TIMED_OUT)');
  await clock.advance(JOIN_MS * 2);
  assert.deepEqual(out, []);
});

test('a hooks\' entry that came first joins the browser\'s failure that comes later; a stream cut long after is listed as what failed', async () => {
  const { clock, out, r } = rig();
  const t0 = clock.now();
  const hook = { kind: 'network', data: { ts: t0, duration_ms: 12, method: 'GET', url: 'http://app.test/api/gone', type: 'fetch', failed: true, error: 'TypeError: Failed to fetch' } };
  r.fromPage([hook], 4);
  await clock.advance(900);
  xhrFailed(r, { url: 'http://app.test/api/gone', error: 'net::ERR_CONNECTION_REFUSED', timeStamp: t0 + 12 });
  await clock.advance(JOIN_MS * 2);
  assert.deepEqual(out, [], 'listed once, the hooks\' entry');

  // The hooks listed a stream at its headers; the browser says 60 s later that it was cut.
  r.fromPage([{ kind: 'network', data: { ts: clock.now(), duration_ms: 5, method: 'GET', url: 'http://app.test/api/stream', status: 200, type: 'fetch' } }], 4);
  await clock.advance(60_000);
  xhrFailed(r, { url: 'http://app.test/api/stream', error: 'net::ERR_NETWORK_CHANGED', timeStamp: clock.now() });
  await clock.advance(JOIN_MS + BATCH_MS);
  assert.deepEqual(out.map(([, , e]) => [e.type, e.failed, e.error, e.duration_ms]), [['xhr', true, 'net::ERR_NETWORK_CHANGED', undefined]]);
});

test('a fetch no hook saw (a subframe\'s, a page opened before the extension) is listed after the join\'s wait', async () => {
  const { clock, out, r } = rig();
  xhrFailed(r, { url: 'http://app.test/api/a', error: 'net::ERR_BLOCKED_BY_CLIENT', timeStamp: clock.now() });
  // Another tab's, another method's and a much older same request do not join it.
  r.fromPage([{ kind: 'network', data: { ts: 1_000_000, method: 'GET', url: 'http://app.test/api/a', type: 'fetch', failed: true } }], 5);
  r.fromPage([{ kind: 'network', data: { ts: 1_000_000, method: 'POST', url: 'http://app.test/api/a', type: 'fetch', failed: true } }], 4);
  r.fromPage([{ kind: 'network', data: { ts: 1_000_000 - 10_000, duration_ms: 5, method: 'GET', url: 'http://app.test/api/a', type: 'fetch' } }], 4);
  await clock.advance(JOIN_MS - 10);
  assert.equal(out.length, 0);
  await clock.advance(10 + BATCH_MS);
  assert.deepEqual(out.map(([, , e]) => [e.type, e.failed, e.sq, e.ts, 'duration_ms' in e]), [['xhr', true, 1, 1_000_000, false]]);
});

test('the load listeners take every type the browser has but fetch and XHR', () => {
  assert.deepEqual(loadTypes({ MAIN_FRAME: 'main_frame', IMAGE: 'image', XMLHTTPREQUEST: 'xmlhttprequest', WEBSOCKET: 'websocket' }), ['main_frame', 'image', 'websocket']);
  assert.equal(loadTypes(undefined), undefined, 'a browser that lists none: every type');
});

test('blocked and aborted requests are listed with the browser\'s error', async () => {
  const { clock, out, request } = rig();
  request({ url: 'http://ads.test/track.gif' }).fail('net::ERR_BLOCKED_BY_CLIENT');
  request({ url: 'http://app.test/big.mp4', type: 'media' }).fail('net::ERR_ABORTED');
  request({ url: 'http://app.test/ff.png' }).fail('NS_BINDING_ABORTED');
  await clock.advance(BATCH_MS);
  assert.deepEqual(out.map(([, , e]) => [e.type, e.failed, e.aborted, e.error]), [
    ['image', true, undefined, 'net::ERR_BLOCKED_BY_CLIENT'],
    ['media', undefined, true, 'net::ERR_ABORTED'],
    ['image', undefined, true, 'NS_BINDING_ABORTED'],
  ]);
});

test('the extension\'s own requests, the server\'s, the browser\'s favicon and pages Gasoline does not capture are never listed', async () => {
  const { clock, out, r, request } = rig();
  request({ url: 'http://127.0.0.1:7890/logs', tabId: -1, method: 'POST', type: 'xmlhttprequest' }).complete(200);
  request({ url: 'http://localhost:7890/network', type: 'xmlhttprequest' }).complete(200);
  r.committed({ tabId: 9, frameId: 0, url: 'chrome://newtab/' });
  request({ url: 'https://www.gstatic.com/x.png', tabId: 9 }).complete(200);
  request({ url: 'http://app.test/pre.js', type: 'script', documentLifecycle: 'prerender' }).complete(200);
  request({ url: 'http://app.test/favicon.ico' }).complete(404); // the browser's own, for its tab strip
  await clock.advance(JOIN_MS + BATCH_MS);
  assert.deepEqual(out, []);
});

test('a redirect is a hop of its own, and the request goes on at its target', async () => {
  const { clock, out, r, request } = rig();
  const q = request({ url: 'http://app.test/old.css', type: 'stylesheet' });
  await clock.advance(5);
  r.redirected({ ...q.d, statusCode: 301, redirectUrl: 'http://app.test/new.css', timeStamp: clock.now() });
  await clock.advance(7);
  r.completed({ ...q.d, url: 'http://app.test/new.css', statusCode: 200, timeStamp: clock.now() });
  await clock.advance(BATCH_MS);
  assert.deepEqual(out.map(([, , e]) => [e.url, e.status, e.duration_ms]), [['http://app.test/old.css', 301, 5], ['http://app.test/new.css', 200, 7]]);
});

test('copies past the bound are dropped and skip a number, which the server counts as lost', async () => {
  const { clock, out, request } = rig();
  request({ url: 'http://app.test/first.png' }).complete(200);
  for (let i = 0; i < PENDING_MAX + 3; i++) request({ url: `http://app.test/api/n${i}`, type: 'xmlhttprequest' }).complete(200);
  await clock.advance(JOIN_MS + BATCH_MS);
  const sq = out.map(([, , e]) => e.sq);
  assert.equal(out.length, PENDING_MAX + 1);
  assert.equal(sq[0], 1, 'the image, listed at once');
  assert.equal(sq[1], 5, 'three dropped: numbers 2 to 4 skipped');
  assert.equal(out[1][2].url, 'http://app.test/api/n3');
});

test('a new document\'s requests that end before the worker hears of its commit belong to it', async () => {
  const { clock, out, r, request } = rig();
  r.committed({ tabId: 4, frameId: 0, url: 'about:blank' }); // a new tab
  const next = 'http://app.test/next.html';
  // The document's answer starts (webRequest.onResponseStarted of the main_frame), its image ends,
  // and only then does webNavigation say it committed.
  r.committed({ tabId: 4, frameId: 0, url: next, type: 'main_frame' });
  request({ url: 'http://app.test/hero.png' }).complete(404);
  r.committed({ tabId: 4, frameId: 0, url: next });
  await clock.advance(BATCH_MS);
  assert.deepEqual(out.map(([, page, e]) => [page, e.url, e.status]), [[next, 'http://app.test/hero.png', 404]]);
});

test('an image Chrome gives up after its 404 answer keeps the 404, and the time to its first byte', async () => {
  const { clock, out, request } = rig();
  const img = request({ url: 'http://app.test/assets/hero.png' });
  await clock.advance(20);
  img.respond(404);
  await clock.advance(5);
  img.fail('net::ERR_ABORTED');
  await clock.advance(BATCH_MS);
  assert.deepEqual(out.map(([, , e]) => [e.type, e.status, e.aborted, e.error, e.duration_ms, e.timing]),
    [['image', 404, true, 'net::ERR_ABORTED', 25, { wait: 20, download: 5 }]]);
});

test('a flood of requests goes to the queue at the bound, not only after the wait; a huge URL is cut', async () => {
  const { clock, out, request } = rig();
  for (let i = 0; i < OUTBOX_MAX; i++) request({ url: `http://app.test/img/${i}.png` }).complete(200);
  assert.equal(out.length, OUTBOX_MAX);
  request({ url: `http://app.test/q?x=${'a'.repeat(20000)}` }).complete(200);
  assert.equal(out.length, OUTBOX_MAX);
  await clock.advance(BATCH_MS);
  assert.equal(out.length, OUTBOX_MAX + 1);
  assert.equal(out[OUTBOX_MAX][2].url.length, 8192);
});

test('a busy page\'s hooks\' entries are remembered REMEMBER_MS, not until the bound', async () => {
  const { clock, r } = rig();
  // One fetch every 100 ms for 30 s, none failed: only the last REMEMBER_MS of them can still join.
  for (let i = 0; i < 300; i++) {
    r.fromPage([{ kind: 'network', data: { ts: clock.now(), duration_ms: 3, method: 'GET', url: `http://app.test/api/${i}`, type: 'fetch', status: 200 } }], 4);
    await clock.advance(100);
  }
  // Joined by end time within 2 s, an entry can join nothing a few seconds on: a few seconds' worth
  // stay (REMEMBER_MS), not the last HOOKS_MAX of a busy page.
  const kept = r.stats().remembered;
  assert.ok(REMEMBER_MS <= 10_000, `REMEMBER_MS ${REMEMBER_MS}`);
  assert.ok(kept > 0 && kept <= REMEMBER_MS / 100, `${kept} entries remembered`);
});
