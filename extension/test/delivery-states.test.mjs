// Delivery's states (sw/delivery.js), one object per test on a fake clock and a fake server: not
// started, backing off while the server is away, halving a batch the server finds too large, dropping
// what it refuses for good, keeping what waits for the human's yes, writing the queue down while a
// flush is slow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from './fake-clock.mjs';
import { makeDelivery } from './fake-browser.mjs';

const log = (m) => ({ kind: 'log', data: { ts: 1, level: 'info', kind: 'console', message: m } });
const sender = { tab: { id: 1, url: 'http://app/' } };

/** A fake server on clock: answer(entries) gives the status and body of each POST; .posts records them. */
function server(clock, answer = () => [200, {}]) {
  const s = { posts: [], answer };
  s.fetch = async (url, init) => {
    const entries = JSON.parse(init.body).entries;
    s.posts.push({ at: clock.now(), path: new URL(url).pathname, n: entries.length, messages: entries.map((e) => e.message) });
    const [status, body] = s.answer(entries);
    if (status === 0) throw new TypeError('Failed to fetch');
    return new Response(JSON.stringify(body), { status });
  };
  return s;
}

test('nothing is sent before start; start sends what was queued at once', async () => {
  const clock = new FakeClock();
  const srv = server(clock);
  const { delivery } = await makeDelivery({ clock, fetch: srv.fetch });
  delivery.accept([log('early')], sender);
  await clock.advance(5000);
  assert.equal(srv.posts.length, 0, 'not started: the stored queue is not read yet');
  delivery.start();
  await clock.advance(0);
  assert.deepEqual(srv.posts.map((p) => p.messages), [['early']]);
  assert.equal(delivery.stats().queued, 0);
});

test('while the server is away: retries back off up to 2 s, the queue is written down, the link says why', async () => {
  const clock = new FakeClock();
  const srv = server(clock, () => [0]);
  const { delivery, link, saved } = await makeDelivery({ clock, fetch: srv.fetch });
  delivery.start();
  delivery.accept([log('a')], sender);
  await clock.advance(400);
  assert.equal(srv.posts.length, 1);
  await clock.advance(10000);
  const gaps = srv.posts.slice(1).map((p, i) => p.at - srv.posts[i].at);
  // Never sooner than a second after the last flush began, nor than the backoff (250 ms doubling, at most 2 s).
  assert.deepEqual(gaps.slice(0, 5), [1000, 1000, 1000, 2000, 2000]);
  assert.equal(link.isConnected(), false);
  assert.equal(link.lastErrorText(), 'Failed to fetch');
  delivery.accept([log('b')], sender); // while away: written at once, not after the next flush
  assert.equal(JSON.parse(String(saved.get('gasoline_queue'))).log.length, 2);
  assert.equal(delivery.stats().stored, 2);

  // Back: the next try delivers both, the backoff is over and the written queue is cleared.
  srv.answer = () => [200, {}];
  await clock.advance(2000);
  assert.deepEqual(srv.posts.at(-1).messages, ['a', 'b']);
  assert.equal(link.isConnected(), true);
  assert.equal(delivery.stats().queued, 0);
  assert.equal(delivery.stats().stored, 0, 'the stored queue is cleared once delivered');
  assert.equal(delivery.backoff, 0);
});

test('a 413 halves the batch until it fits; the limit is back to 500 after a success', async () => {
  const clock = new FakeClock();
  const srv = server(clock, (entries) => (entries.length > 120 ? [413, { error: 'too_large' }] : [200, {}]));
  const { delivery } = await makeDelivery({ clock, fetch: srv.fetch });
  delivery.start();
  delivery.accept(Array.from({ length: 600 }, (_, i) => log(`m${i}`)), sender);
  await clock.advance(1000);
  assert.equal(delivery.stats().queued, 0);
  const took = srv.posts.filter((p) => p.n <= 120);
  assert.equal(took.reduce((n, p) => n + p.n, 0), 600, 'every event once');
  assert.deepEqual(srv.posts.map((p) => p.n).slice(0, 4), [500, 250, 125, 62]);
  assert.equal(delivery.batchLimit.log, 500);
  assert.deepEqual(srv.posts.flatMap((p) => (p.n <= 120 ? p.messages : [])).slice(0, 3), ['m0', 'm1', 'm2'], 'in order');
});

test('a 4xx refusal drops the batch and counts it; origin_not_accepted keeps it and retries', async () => {
  const clock = new FakeClock();
  const srv = server(clock, () => [400, { error: 'invalid_param', message: 'bad entry' }]);
  const { delivery, link } = await makeDelivery({ clock, fetch: srv.fetch });
  delivery.start();
  delivery.accept([log('x'), log('y')], sender);
  await clock.advance(400);
  assert.equal(srv.posts.length, 1);
  assert.equal(delivery.stats().queued, 0);
  assert.equal(delivery.stats().counts.log.dropped, 2);
  assert.equal(link.lastErrorText(), 'POST /logs: HTTP 400 bad entry');
  await clock.advance(5000);
  assert.equal(srv.posts.length, 1, 'not sent again');

  srv.answer = () => [403, { error: 'origin_not_accepted', message: 'waiting for the human' }];
  delivery.accept([log('z')], sender);
  await clock.advance(1000);
  assert.equal(delivery.stats().queued, 1, 'kept');
  assert.equal(link.isConnected(), false);
  assert.equal(link.lastErrorText(), 'waiting for the human');
  srv.answer = () => [200, {}];
  await clock.advance(3000);
  assert.deepEqual(srv.posts.at(-1).messages, ['z']);
  assert.equal(delivery.stats().queued, 0);
  assert.equal(delivery.stats().counts.log.dropped, 2);
});

test('a flush on the wire for 500 ms has the queue written down; a quick one writes nothing', async () => {
  const clock = new FakeClock();
  let release = null;
  const srv = server(clock);
  const slowFetch = async (url, init) => {
    await new Promise((r) => { release = r; });
    return srv.fetch(url, init);
  };
  const { delivery, saved } = await makeDelivery({ clock, fetch: slowFetch });
  delivery.start();
  await clock.advance(0);
  delivery.accept([log('a')], sender);
  await clock.advance(400);
  await clock.advance(499);
  assert.ok(!saved.has('gasoline_queue'), 'not yet');
  await clock.advance(1);
  assert.equal(JSON.parse(String(saved.get('gasoline_queue'))).log.length, 1, 'slow: written');
  release();
  await clock.advance(0);
  assert.equal(delivery.stats().queued, 0);
  assert.equal(JSON.parse(String(saved.get('gasoline_queue'))).log.length, 0, 'delivered: the written queue cleared');

  const quick = await makeDelivery({ clock, fetch: srv.fetch });
  quick.delivery.start();
  await clock.advance(0);
  quick.delivery.accept([log('b')], sender);
  await clock.advance(2000);
  assert.equal(srv.posts.length, 2);
  assert.ok(!quick.saved.has('gasoline_queue'), 'a quick flush writes nothing');
});

test('deliverLogsThrough resolves once the logs up to an error are delivered', async () => {
  const clock = new FakeClock();
  const srv = server(clock);
  const { delivery } = await makeDelivery({ clock, fetch: srv.fetch });
  delivery.start();
  delivery.accept([log('before')], sender);
  const [err] = delivery.accept([{ kind: 'log', data: { ts: 1, level: 'error', kind: 'console', message: 'boom' } }], sender);
  let done = false;
  delivery.deliverLogsThrough(err.seq).then(() => { done = true; });
  await clock.settle();
  assert.equal(done, true);
  assert.deepEqual(srv.posts.flatMap((p) => p.messages), ['before', 'boom']);
});
