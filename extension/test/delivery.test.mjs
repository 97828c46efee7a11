import { test } from 'node:test';
import assert from 'node:assert/strict';

// The worker's delivery timing, with a fake clock and a fake server: a first event goes after 200 ms, a
// page that keeps sending is flushed at most once a second, and 500 queued events go at once.
test('flushes: 200 ms after a first event, at most once a second while events keep coming', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const posts = [];
  globalThis.fetch = async (url, init) => {
    posts.push({ at: Date.now(), url, n: JSON.parse(init.body).entries.length });
    return new Response('{}', { status: 200 });
  };
  const { accept, startDelivery } = await import('../sw/delivery.js');
  const settle = () => new Promise((r) => setImmediate(r)); // the flush's awaits
  const log = (i) => [{ kind: 'log', data: { ts: Date.now(), level: 'error', kind: 'console', message: `e${i}` } }];
  const advance = async (ms) => {
    for (let i = 0; i < ms; i += 10) {
      t.mock.timers.tick(10);
      await settle();
    }
  };
  startDelivery();
  await advance(10); // the start's flush, with nothing to send
  assert.equal(posts.length, 0);
  const start = Date.now();

  accept(log(0));
  await advance(190);
  assert.equal(posts.length, 0, 'not before 200 ms');
  await advance(20);
  assert.equal(posts.length, 1, 'a first event goes after 200 ms');
  assert.ok(posts[0].at - start >= 200 && posts[0].at - start <= 210, `first flush at ${posts[0].at - start} ms`);

  // An event every 50 ms for 3 s: three or four flushes, each at least a second after the last.
  for (let i = 1; i <= 60; i++) {
    accept(log(i));
    await advance(50);
  }
  await advance(1100);
  const busy = posts.slice(1);
  assert.ok(busy.length >= 3 && busy.length <= 4, `${busy.length} flushes in 3 s`);
  for (let i = 1; i < posts.length; i++) assert.ok(posts[i].at - posts[i - 1].at >= 1000, `flush ${i} came ${posts[i].at - posts[i - 1].at} ms after the last`);
  assert.equal(posts.reduce((n, p) => n + p.n, 0), 61, 'every event delivered once');

  // Quiet for a while: the next event goes after 200 ms again; 500 queued go at once.
  await advance(2000);
  const before = posts.length;
  accept(log(61));
  await advance(210);
  assert.equal(posts.length, before + 1, 'after a quiet spell an event goes after 200 ms');
  const burst = Array.from({ length: 500 }, (_, i) => log(100 + i)[0]);
  accept(burst);
  await advance(10);
  assert.equal(posts.length, before + 2, '500 queued go at once');
});
