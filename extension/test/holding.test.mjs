import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeBrowser, clock, startWorker } from './fake-browser.mjs';

// A worker holding events back while they keep coming (sw/delivery.js) tells the server once per flush
// ({type: 'holding'} on its socket); deliverHeld, what the server's 'flush' query runs before the AI reads,
// delivers them at once, whatever the timing rules, and resolves once the server has acked them.
test('a held flush is announced once, and deliverHeld sends it at once', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 7_000_000 });
  const sockets = fakeBrowser();
  globalThis.fetch = async () => new Response('{"connected":true}', { status: 200 });
  const { settle, advance } = clock(t);
  const log = (m) => [{ kind: 'log', data: { ts: Date.now(), level: 'error', kind: 'console', message: m } }];
  const holding = (sock) => sock.sent.filter((f) => f === '{"type":"holding"}').length;
  const frames = (sock) => sock.sent.filter((f) => f.startsWith('events '));

  const { delivery } = await startWorker();
  const accept = (e) => delivery.accept(e);
  const sock = sockets[0];
  sock.readyState = 1;
  sock.onopen();
  sock.onmessage({ data: JSON.stringify({ type: 'hello', batches: true }) });
  delivery.start();
  await advance(10);

  // A lone event is not held beyond the quiet wait: nothing to announce.
  accept(log('alone'));
  await advance(410);
  assert.equal(frames(sock).length, 1);
  assert.equal(holding(sock), 0);
  sock.onmessage({ data: JSON.stringify({ type: 'ack', id: Number(frames(sock)[0].split(' ')[1]), status: 200, accepted: 1 }) });
  await advance(1010);

  // Events 300 ms apart put the flush off: announced once.
  for (const m of ['a', 'b', 'c']) {
    accept(log(m));
    await advance(300);
  }
  assert.equal(frames(sock).length, 1, 'held while they keep coming');
  assert.equal(holding(sock), 1);

  // The server asks: the batch goes now, and deliverHeld resolves once it is acked.
  let done = null;
  delivery.deliverHeld().then((r) => { done = r; });
  await settle();
  assert.equal(frames(sock).length, 2);
  const [head, body] = frames(sock)[1].split('\n');
  assert.deepEqual(JSON.parse(body).entries.map((e) => e.message), ['a', 'b', 'c']);
  await settle();
  assert.equal(done, null, 'not before the ack');
  sock.onmessage({ data: JSON.stringify({ type: 'ack', id: Number(head.split(' ')[1]), status: 200, accepted: 3 }) });
  await advance(10);
  assert.deepEqual(done, { queued: 0 });

  // The next held flush is announced again.
  for (const m of ['d', 'e']) {
    accept(log(m));
    await advance(300);
  }
  assert.equal(holding(sock), 2);
});
