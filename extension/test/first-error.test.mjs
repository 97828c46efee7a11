import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeDelivery } from './fake-browser.mjs';

// The worker delivers a batch carrying a document's first error at once, with what was queued
// before it, whatever the quiet period and the one-flush-a-second rule; that document's later
// errors wait as every other event does; a first error that comes while a flush runs goes right
// after it.
test('a document\'s first error goes at once, its later errors are batched', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const posts = [];
  let hold = null; // a promise the fake server waits on before it answers
  globalThis.fetch = async (url, init) => {
    posts.push({ at: Date.now(), url: String(url), body: JSON.parse(init.body) });
    if (hold && String(url).endsWith('/actions')) await hold;
    return new Response('{}', { status: 200 });
  };
  const { delivery } = await makeDelivery();
  const accept = (e) => delivery.accept(e);
  const settle = () => new Promise((r) => setImmediate(r));
  const advance = async (ms) => {
    for (let i = 0; i < ms; i += 10) {
      t.mock.timers.tick(10);
      await settle();
    }
  };
  const err = (dc, sq) => ({ kind: 'log', data: { ts: Date.now(), level: 'error', kind: 'console', message: `e${sq}`, dc, sq } });
  const info = (dc, sq) => ({ kind: 'log', data: { ts: Date.now(), level: 'info', kind: 'console', message: `i${sq}`, dc, sq } });
  const action = (dc, sq) => ({ kind: 'action', data: { ts: Date.now(), type: 'click', dc, sq } });
  const logsOf = (p) => p.body.entries.map((e) => e.message);
  delivery.start();
  await advance(10);
  assert.equal(posts.length, 0);

  // Events before the error (an earlier message), then a message with the first error: all at once.
  accept([info('A', 1), action('A', 1)]);
  await advance(100);
  assert.equal(posts.length, 0, 'no error yet: batched');
  const thrown = Date.now();
  accept([err('A', 2), info('A', 3)]);
  await advance(10);
  assert.equal(posts.length, 2, 'the first error goes at once, with what came before it');
  assert.ok(posts[0].at - thrown <= 10, `delivered ${posts[0].at - thrown} ms after`);
  assert.deepEqual(logsOf(posts[0]), ['i1', 'e2', 'i3']);
  assert.match(posts[1].url, /\/actions$/);

  // The same document's next error: batched (400 ms quiet, and a second after the last flush).
  accept([err('A', 4)]);
  await advance(390);
  assert.equal(posts.length, 2, 'a later error waits');
  await advance(700);
  assert.equal(posts.length, 3, 'and goes with the batching');
  assert.deepEqual(logsOf(posts[2]), ['e4']);

  // Another document's first error goes at once, though a flush started less than a second ago.
  await advance(100);
  accept([err('B', 1)]);
  await advance(10);
  assert.equal(posts.length, 4, 'another document\'s first error at once');
  assert.deepEqual(logsOf(posts[3]), ['e1']);

  // A flood of errors in one document: one flush at once, the rest as the batching has it (a flush
  // 2 s after the first waiting event while they keep coming).
  await advance(2000);
  const before = posts.length;
  const start = Date.now();
  for (let i = 1; i <= 40; i++) {
    accept([err('C', i)]);
    await advance(100);
  }
  await advance(1000);
  const flood = posts.slice(before);
  assert.equal(flood.reduce((n, p) => n + p.body.entries.length, 0), 40, 'every error delivered once');
  assert.ok(flood[0].at - start <= 10, 'the first at once');
  assert.equal(flood.length, 3, `${flood.length} flushes for 4 s of errors: the first at once, then 2 s after the next, then the rest`);

  // A first error that comes while a flush is on the wire (past the logs) goes right after it, not a quiet period later.
  await advance(2000);
  let release;
  hold = new Promise((r) => { release = r; });
  accept([err('D', 1), action('D', 2)]);
  await advance(10);
  const n = posts.length;
  assert.match(posts[n - 1].url, /\/actions$/, 'the flush is sending the actions, its logs sent');
  accept([err('E', 1)]);
  await advance(50);
  hold = null;
  release();
  await advance(20);
  assert.equal(posts.length, n + 1, 'the first error of E right after the flush it waited for');
  assert.deepEqual(logsOf(posts[n]), ['e1']);
});
