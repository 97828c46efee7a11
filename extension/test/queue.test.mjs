import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventQueue, KINDS, QUEUE_MAX, stampEvents, isErrorLog } from '../sw/queue.js';
import { nextBackoff } from '../sw/backoff.js';

const sender = { tab: { id: 7, url: 'https://app.test/page' }, url: 'https://app.test/frame' };

test('stampEvents keeps well-formed events and stamps tab, page and time', () => {
  const out = stampEvents([
    { kind: 'log', data: { level: 'info', message: 'a' } },
    { kind: 'log', data: { message: 'b', ts: 5 } },
    { kind: 'nope', data: {} },
    { kind: 'log', data: [1] },
    { kind: 'log' },
    { kind: 'toString', data: {} },
    null,
  ], sender, 1000);
  assert.deepEqual(out, [
    { kind: 'log', data: { level: 'info', message: 'a', tab: 7, page: 'https://app.test/page', ts: 1000 } },
    { kind: 'log', data: { message: 'b', ts: 5, tab: 7, page: 'https://app.test/page' } },
  ]);
  assert.deepEqual(stampEvents('x', sender, 1), []);
  const noTab = stampEvents([{ kind: 'action', data: { type: 'click' } }], {}, 3);
  assert.deepEqual(noTab, [{ kind: 'action', data: { type: 'click', ts: 3 } }]);
});

test('a request event becomes its network entry and its body entry, both stamped', () => {
  const req = {
    ts: 9, method: 'POST', url: 'https://api.test/x', status: 201, duration_ms: 3.5, type: 'fetch', size: 12,
    content_type: 'application/json', request_body: '{"a":1}', response_body: '{"ok":true}',
    request_headers: { 'content-type': 'application/json' }, has_auth_header: true, truncated: true,
  };
  const out = stampEvents([{ kind: 'request', data: req }, { kind: 'body', data: { url: 'u' } }], sender, 1000);
  const page = { tab: 7, page: 'https://app.test/page' };
  assert.deepEqual(out, [
    { kind: 'network', data: { ts: 9, method: 'POST', url: 'https://api.test/x', duration_ms: 3.5, type: 'fetch', status: 201, size: 12, ...page } },
    {
      kind: 'body',
      data: {
        ts: 9, method: 'POST', url: 'https://api.test/x', status: 201, duration_ms: 3.5, content_type: 'application/json',
        request_body: '{"a":1}', response_body: '{"ok":true}', request_headers: { 'content-type': 'application/json' },
        has_auth_header: true, truncated: true, ...page,
      },
    },
    { kind: 'body', data: { url: 'u', ts: 1000, ...page } },
  ]);
  // Fields a request did not have are left out of its network entry, not sent as null.
  const [n] = stampEvents([{ kind: 'request', data: { ts: 1, method: 'GET', url: 'https://api.test/y', type: 'xhr' } }], {}, 2);
  assert.deepEqual(n.data, { ts: 1, method: 'GET', url: 'https://api.test/y', type: 'xhr' });
});

test('error logs are exceptions, rejections and console.error', () => {
  assert.equal(isErrorLog({ kind: 'exception' }), true);
  assert.equal(isErrorLog({ kind: 'rejection' }), true);
  assert.equal(isErrorLog({ kind: 'console', level: 'error' }), true);
  assert.equal(isErrorLog({ kind: 'console', level: 'warn' }), false);
});

test('a full queue drops the oldest event of any kind, and counts it for the popup and the server', () => {
  const q = new EventQueue(3);
  q.push('network', { n: 0 });
  q.push('log', { n: 1 });
  q.push('network', { n: 2 });
  q.push('log', { n: 3 });
  assert.equal(q.total(), 3);
  assert.deepEqual(q.queues.network.map((it) => it.d.n), [2]);
  assert.deepEqual(q.queues.log.map((it) => it.d.n), [1, 3]);
  assert.equal(q.counts.network.dropped, 1);
  assert.equal(q.unreported, 1);
  q.push('action', { n: 4 });
  assert.deepEqual(q.queues.log.map((it) => it.d.n), [3]);
  assert.equal(q.unreported, 2);
});

test('the documented buffer is 2,000 events', () => {
  const q = new EventQueue();
  for (let i = 0; i < QUEUE_MAX + 5; i++) q.push(KINDS[i % KINDS.length], { i });
  assert.equal(q.total(), 2000);
  assert.equal(q.unreported, 5);
});

test('a batch is bounded by count and bytes but never empty', () => {
  const q = new EventQueue();
  for (let i = 0; i < 10; i++) q.push('log', { m: 'x'.repeat(100), i });
  const byCount = q.batch('log', 4);
  assert.equal(byCount.items.length, 4);
  assert.deepEqual(JSON.parse(byCount.body).entries.map((e) => e.i), [0, 1, 2, 3]);
  const byBytes = q.batch('log', 100, 250);
  assert.equal(byBytes.items.length, 2);
  const one = q.batch('log', 100, 10); // one event larger than the bound still goes, alone
  assert.equal(one.items.length, 1);
  assert.equal(q.batch('body').body, '{"bodies":[]}');
});

test('drops ride on the next batch until one is delivered', () => {
  const q = new EventQueue(2);
  for (let i = 0; i < 5; i++) q.push('log', { i }); // 0, 1, 2 dropped
  const b = q.batch('log');
  assert.equal(b.dropped, 3);
  assert.equal(JSON.parse(b.body).dropped, 3);
  assert.deepEqual(JSON.parse(b.body).entries.map((e) => e.i), [3, 4]);
  const c = q.batch('log');
  assert.equal(JSON.parse(c.body).dropped, 3, 'told again until a batch is delivered');
  q.push('log', { i: 5 });
  q.push('log', { i: 6 }); // pushes out 3 and 4 while their batch is in flight
  assert.equal(q.unreported, 5);
  q.delivered('log', b); // … but the server got them: only 0, 1, 2 were lost
  assert.deepEqual(q.stats().log, { sent: 2, dropped: 3, queued: 2 });
  assert.equal(q.unreported, 0);
  assert.equal('dropped' in JSON.parse(q.batch('log').body), false);
  q.push('log', { i: 7 }); // pushes out 5
  assert.equal(JSON.parse(q.batch('log').body).dropped, 1);
});

test('a refused batch is dropped and counted, but not as buffer drops', () => {
  const q = new EventQueue();
  q.push('action', { a: 1 });
  q.refused('action', q.batch('action'));
  assert.equal(q.total(), 0);
  assert.equal(q.counts.action.dropped, 1);
  assert.equal(q.unreported, 0);
});

test('holds says whether an event up to a sequence number still waits', () => {
  const q = new EventQueue();
  const s0 = q.push('log', {});
  const s1 = q.push('log', {});
  q.delivered('log', q.batch('log', 1));
  assert.equal(q.holds('log', s0), false);
  assert.equal(q.holds('log', s1), true);
});

test('a restarted worker continues the stored queue and counts', () => {
  const a = new EventQueue(3);
  for (let i = 0; i < 5; i++) a.push('ws', { i });
  a.delivered('ws', a.batch('ws', 1));
  const { queue, counts } = JSON.parse(JSON.stringify(a.snapshot()));
  const b = new EventQueue(3);
  b.restore({ ...queue, log: [{ s: 'bad' }, null] }, counts);
  assert.deepEqual(b.stats().ws, { sent: 1, dropped: 2, queued: 2 });
  assert.equal(b.queues.log.length, 0);
  assert.equal(b.unreported, 0);
  assert.ok(b.push('log', {}) > queue.ws.at(-1).s, 'sequence numbers continue after the stored ones');
});

test('backoff doubles from min to max', () => {
  const seen = [];
  let b = 0;
  for (let i = 0; i < 6; i++) seen.push(b = nextBackoff(b, 250, 2000));
  assert.deepEqual(seen, [250, 500, 1000, 2000, 2000, 2000]);
});

test('a restart takes the journal entries the stored queue lacks, each event once, in order', () => {
  const q = new EventQueue(10);
  q.restore({ log: [{ s: 1, d: { m: 'b' } }, { s: 0, d: { m: 'a' }, j: 'J0' }].reverse() }, {}, [
    ['log', 0, { m: 'a' }, 'J0'], // in the snapshot too
    ['log', 3, { m: 'd' }, 'J1'],
    ['log', 2, { m: 'c' }, 'J1'],
    ['action', 4, { type: 'click' }, 'J1'],
    ['bogus', 5, {}, 'J1'],
  ]);
  assert.deepEqual(q.queues.log.map((it) => it.d.m), ['a', 'b', 'c', 'd']);
  assert.equal(q.size('action'), 1);
  assert.equal(q.push('log', { m: 'e' }), 5);
});

test('what leaves the queue is told, delivered, refused or dropped at the bound', () => {
  const q = new EventQueue(2);
  const gone = [];
  q.gone = (items) => gone.push(...items.map((it) => it.d.m));
  q.push('log', { m: 'a' }, 'J');
  q.push('log', { m: 'b' }, 'J');
  q.push('log', { m: 'c' }, 'J'); // a is dropped
  const b = q.batch('log', 1);
  q.delivered('log', b);
  q.refused('log', q.batch('log'));
  assert.deepEqual(gone, ['a', 'b', 'c']);
});
