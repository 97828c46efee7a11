// node --test extension/test/: the worker journals each message's events in chrome.storage.session as
// they come and removes an entry once none of its events is queued; a restarted worker takes them back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeDelivery, memoryArea } from './fake-browser.mjs';

const settle = () => new Promise((r) => setTimeout(r, 5));
const log = (m) => ({ kind: 'log', data: { ts: 1, level: 'error', message: m } });
const sender = { tab: { id: 7, url: 'http://app/' } };

/** A fake server: down until up is set; what it took, in order. */
function server() {
  const s = { up: false, posted: [] };
  s.fetch = async (url, init) => {
    if (!s.up) throw new TypeError('Failed to fetch');
    s.posted.push(...JSON.parse(init.body).entries.map((e) => e.message));
    return new Response('{}', { status: 200 });
  };
  return s;
}

test('each message is journaled as it comes; a restarted worker delivers the journal and removes it', async () => {
  const srv = server();
  const storage = { session: memoryArea(), local: memoryArea() };
  const journal = () => [...storage.session.items.keys()].filter((k) => k.startsWith('gasoline_j:'));
  const first = (await makeDelivery({ storage, fetch: srv.fetch })).delivery;
  first.accept([log('a'), log('b')], sender);
  first.accept([log('c')], sender);
  const keys = journal();
  assert.equal(keys.length, 2);
  assert.deepEqual(JSON.parse(storage.session.items.get(keys[0])).map(([k, , d]) => `${k}:${d.message}:${d.tab}`), ['log:a:7', 'log:b:7']);

  // The worker stops (its memory is gone); the next one takes the journal back: each event once, in order.
  const again = (await makeDelivery({ storage, fetch: srv.fetch })).delivery;
  again.restore(Object.fromEntries(storage.session.items));
  assert.equal(again.stats().queued, 3);
  srv.up = true;
  again.start();
  await again.deliverHeld();
  await settle();
  assert.deepEqual(srv.posted, ['a', 'b', 'c']);
  assert.equal(again.stats().queued, 0);
  assert.deepEqual(journal(), [], 'delivered entries are removed');
});

test('a torn journal entry is dropped and removed; an entry of events no longer queued is removed', async () => {
  const srv = server();
  const storage = { session: memoryArea(), local: memoryArea() };
  const { delivery } = await makeDelivery({ storage, fetch: srv.fetch });
  await storage.session.set({ 'gasoline_j:x:0': '[["log",1,{"message":"kept"}]]', 'gasoline_j:x:1': '[["log",2,{"mes' });
  delivery.restore(Object.fromEntries(storage.session.items));
  assert.equal(delivery.stats().queued, 1);
  await settle();
  assert.deepEqual([...storage.session.items.keys()], ['gasoline_j:x:0'], 'the torn entry is removed at once');
  srv.up = true;
  delivery.start();
  await delivery.deliverHeld();
  await settle();
  assert.deepEqual(srv.posted, ['kept']);
  assert.ok(!storage.session.items.has('gasoline_j:x:0'), 'delivered: its entry removed');
});

test('an update hands what the server could not take to the next version, oldest first', async () => {
  const srv = server();
  const storage = { session: memoryArea(), local: memoryArea() };
  const old = (await makeDelivery({ storage, fetch: srv.fetch })).delivery;
  old.accept([log('u1'), log('u2')], sender);
  await old.handOverForUpdate();
  assert.ok(storage.local.items.has('gasoline_update_queue'));
  storage.session.items.clear(); // an update clears the session area

  const next = (await makeDelivery({ storage, fetch: srv.fetch })).delivery;
  const carried = await next.takeUpdateQueue();
  assert.ok(!storage.local.items.has('gasoline_update_queue'), 'taken once');
  assert.deepEqual(await next.takeUpdateQueue(), [], 'and only once');
  next.accept([log('n1')], sender); // not before the restore in the worker; here: order by number
  next.restore({}, carried);
  srv.up = true;
  next.start();
  await next.deliverHeld();
  await settle();
  assert.deepEqual(srv.posted, ['u1', 'u2', 'n1']);
});
