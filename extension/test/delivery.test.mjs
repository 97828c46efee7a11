import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeDelivery } from './fake-browser.mjs';

// The worker's delivery timing, with a fake clock and a fake server: a flush waits until no event has come
// for 400 ms, but no longer than 2 s after the first one it carries; flushes start at most once a second;
// 1,500 queued go at once.
test('flushes: 400 ms after the events stop, 2 s after the first at the latest, at most once a second', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const posts = [];
  globalThis.fetch = async (url, init) => {
    posts.push({ at: Date.now(), url, n: JSON.parse(init.body).entries.length });
    return new Response('{}', { status: 200 });
  };
  const { delivery } = await makeDelivery();
  const accept = (e) => delivery.accept(e);
  const settle = () => new Promise((r) => setImmediate(r)); // the flush's awaits
  const log = (i) => [{ kind: 'log', data: { ts: Date.now(), level: 'error', kind: 'console', message: `e${i}` } }];
  const advance = async (ms) => {
    for (let i = 0; i < ms; i += 10) {
      t.mock.timers.tick(10);
      await settle();
    }
  };
  const since = (p, at) => p.at - at;
  delivery.start();
  await advance(10); // the start's flush, with nothing to send
  assert.equal(posts.length, 0);
  let start = Date.now();

  accept(log(0));
  await advance(390);
  assert.equal(posts.length, 0, 'not before 400 ms');
  await advance(20);
  assert.equal(posts.length, 1, 'a lone event goes after 400 ms');
  assert.ok(since(posts[0], start) >= 400 && since(posts[0], start) <= 410, `first flush at ${since(posts[0], start)} ms`);

  // Events 300 ms apart (a content script's batches) for 1.5 s, a second after the last flush: one
  // flush, 400 ms after the last of them.
  await advance(1000);
  start = Date.now();
  for (let i = 1; i <= 5; i++) {
    accept(log(i));
    await advance(300);
  }
  assert.equal(posts.length, 1, 'nothing while the events keep coming');
  await advance(110);
  assert.equal(posts.length, 2, 'the events stopped 400 ms ago');
  assert.ok(since(posts[1], start) >= 1600 && since(posts[1], start) <= 1610, `flush at ${since(posts[1], start)} ms`);
  assert.equal(posts[1].n, 5);

  // An event every 50 ms for 5 s: a flush 2 s after the first waiting event, then 2 s after the next one.
  await advance(2000);
  start = Date.now();
  for (let i = 6; i <= 105; i++) {
    accept(log(i));
    await advance(50);
  }
  const busy = posts.slice(2);
  assert.equal(busy.length, 2, `${busy.length} flushes in 5 s of events`);
  assert.ok(since(busy[0], start) >= 2000 && since(busy[0], start) <= 2010, `the first at ${since(busy[0], start)} ms`);
  assert.ok(since(busy[1], busy[0].at) >= 2000 && since(busy[1], busy[0].at) <= 2060, `the second ${since(busy[1], busy[0].at)} ms later`);
  await advance(1100);
  assert.equal(posts.length, 5, 'the rest goes once they stop');
  assert.equal(posts.reduce((n, p) => n + p.n, 0), 106, 'every event delivered once');

  // Events 500 ms apart (each followed by a quiet 400 ms): flushes still at most once a second.
  await advance(2000);
  const before = posts.length;
  for (let i = 106; i < 116; i++) {
    accept(log(i));
    await advance(500);
  }
  await advance(1100);
  const spaced = posts.slice(before);
  assert.ok(spaced.length >= 5 && spaced.length <= 6, `${spaced.length} flushes in 5 s`);
  for (let i = 1; i < spaced.length; i++) assert.ok(since(spaced[i], spaced[i - 1].at) >= 1000, `flush ${i} came ${since(spaced[i], spaced[i - 1].at)} ms after the last`);
  assert.equal(posts.reduce((n, p) => n + p.n, 0), 116, 'every event delivered once');

  // 1,500 queued go at once, without waiting for the events to stop.
  await advance(2000);
  accept(log(200));
  await advance(100);
  const n = posts.length;
  accept(Array.from({ length: 1499 }, (_, i) => log(300 + i)[0]));
  await advance(10);
  assert.ok(posts.length > n, '1,500 queued go at once');
});
