import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeBrowser, clock, startWorker } from './fake-browser.mjs';

// The worker's batches on its socket (sw/channel.js, sw/delivery.js): once the server's hello says it takes them,
// an `events` frame per batch, settled by the server's ack; a 4xx ack drops the batch as a 4xx POST answer would; a socket that closes before its ack fails the
// flush, and the retry goes as a POST while the socket is down. A fake socket and a fake fetch stand in for the
// browser's.
test('batches go on the socket, are settled by acks, and fall back to POST when it closes', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 5_000_000 });
  const sockets = fakeBrowser();
  const posts = [];
  globalThis.fetch = async (url, init) => {
    const path = new URL(url).pathname;
    if (path === '/logs') posts.push(JSON.parse(init.body).entries.map((e) => e.message));
    return new Response(path === '/settings' ? '{"connected":true}' : '{"accepted":1}', { status: 200 });
  };
  const { advance } = clock(t);
  const log = (m) => [{ kind: 'log', data: { ts: Date.now(), level: 'error', kind: 'console', message: m } }];
  const ack = (sock, m) => sock.onmessage({ data: JSON.stringify({ type: 'ack', ...m }) });
  const frames = (sock) => sock.sent.filter((f) => f.startsWith('events '));

  const { delivery, link } = await startWorker();
  const accept = (e) => delivery.accept(e);
  const deliveryStats = () => delivery.stats();
  const sock = sockets[0];
  assert.equal(sock.url, 'ws://127.0.0.1:7890/ws/extension');
  sock.readyState = 1;
  sock.onopen();
  delivery.start();
  await advance(10);

  // Until the server says it takes batches on the socket (an older one never does), they are POSTs.
  accept(log('before hello'));
  await advance(410);
  assert.deepEqual(posts, [['before hello']]);
  assert.equal(frames(sock).length, 0);
  sock.onmessage({ data: JSON.stringify({ type: 'hello', batches: true }) });

  // A batch is one frame: "events <id> <route>\n" and the body a POST would carry; the ack settles it.
  accept(log('one'));
  await advance(1010);
  assert.equal(frames(sock).length, 1);
  const [head, body] = frames(sock)[0].split('\n');
  const id = Number(head.split(' ')[1]);
  assert.equal(head, `events ${id} /logs`);
  assert.deepEqual(JSON.parse(body).entries.map((e) => e.message), ['one']);
  assert.equal(deliveryStats().queued, 1, 'held until the ack');
  ack(sock, { id, status: 200, accepted: 1 });
  await advance(10);
  assert.equal(deliveryStats().queued, 0);
  assert.equal(deliveryStats().counts.log.sent, 2);

  // A 4xx other than 413/429 drops the batch for good, as a POST's would.
  accept(log('refused'));
  await advance(1010);
  const id2 = Number(frames(sock)[1].split(' ')[1]);
  ack(sock, { id: id2, status: 400, error: 'invalid_param', message: 'bad' });
  await advance(10);
  assert.equal(deliveryStats().queued, 0);
  assert.equal(deliveryStats().counts.log.dropped, 1);
  assert.equal(link.lastErrorText(), 'socket /logs: HTTP 400 bad', 'the popup says how the batch went');

  // The socket closes before the ack: the flush failed; the retry is a POST (the socket is down).
  accept(log('cut off'));
  await advance(1010);
  assert.equal(frames(sock).length, 3);
  sock.readyState = 3;
  sock.onclose();
  await advance(1200); // the retry waits out the backoff and the gap between flushes
  assert.deepEqual(posts, [['before hello'], ['cut off']]);
  assert.equal(deliveryStats().queued, 0);
  assert.equal(deliveryStats().counts.log.sent, 3);
  assert.equal(frames(sock).length, 3, 'nothing more on the closed socket');
  assert.ok(sockets.length > 1 && sockets.slice(1).every((s) => frames(s).length === 0), 'nor on one not yet open');
});
