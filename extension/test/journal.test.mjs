// node --test extension/test/: the worker journals each message's events in chrome.storage.session as
// they come and removes an entry once none of its events is queued; a restarted worker takes them back.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const area = new Map();
const local = new Map();
globalThis.chrome = {
  storage: {
    local: {
      set: async (items) => { for (const [k, v] of Object.entries(items)) local.set(k, v); },
      remove: async (k) => { local.delete(k); },
      get: async (k) => (local.has(k) ? { [k]: local.get(k) } : {}),
    },
    session: {
      set: async (items) => { for (const [k, v] of Object.entries(items)) area.set(k, v); },
      remove: async (keys) => { for (const k of keys) area.delete(k); },
      get: async () => Object.fromEntries(area),
    },
  },
};
let serverUp = false;
const posted = [];
globalThis.fetch = async (url, init) => {
  if (!serverUp) throw new TypeError('Failed to fetch');
  posted.push(...JSON.parse(init.body).entries.map((e) => e.message));
  return new Response('{}', { status: 200 });
};
const { accept, deliverHeld, restoreQueue, startDelivery, deliveryStats } = await import('../sw/delivery.js');
const settle = () => new Promise((r) => setTimeout(r, 5));
const journal = () => [...area.keys()].filter((k) => k.startsWith('gasoline_j:'));
const log = (m) => ({ kind: 'log', data: { ts: 1, level: 'error', message: m } });
const sender = { tab: { id: 7, url: 'http://app/' } };

test('each message is journaled as it comes, and its entry removed once delivered', async () => {
  accept([log('a'), log('b')], sender);
  accept([log('c')], sender);
  const keys = journal();
  assert.equal(keys.length, 2);
  assert.deepEqual(JSON.parse(area.get(keys[0])).map(([k, , d]) => `${k}:${d.message}:${d.tab}`), ['log:a:7', 'log:b:7']);

  // A restarted worker (another module instance) takes the journal back: each event once, in order.
  const again = await import('../sw/delivery.js?restart');
  again.restoreQueue(Object.fromEntries(area));
  assert.equal(again.deliveryStats().queued, 3);

  serverUp = true;
  startDelivery();
  await deliverHeld();
  await settle();
  assert.deepEqual(posted, ['a', 'b', 'c']);
  assert.equal(deliveryStats().queued, 0);
  assert.deepEqual(journal(), [], 'delivered entries are removed');
  assert.ok(restoreQueue);
});

test('an update hands what the server could not take to the next version, oldest first', async () => {
  serverUp = false;
  const old = await import('../sw/delivery.js?old-version');
  old.accept([log('u1'), log('u2')], sender);
  await old.handOverForUpdate();
  assert.ok(local.has('gasoline_update_queue'));
  area.clear(); // an update clears the session area

  const next = await import('../sw/delivery.js?new-version');
  const carried = await next.takeUpdateQueue();
  assert.ok(!local.has('gasoline_update_queue'), 'taken once');
  next.accept([log('n1')], sender); // not before the restore in the worker; here: order by number
  next.restoreQueue({}, carried);
  serverUp = true;
  posted.length = 0;
  next.startDelivery();
  await next.deliverHeld();
  await settle();
  assert.deepEqual(posted, ['u1', 'u2', 'n1']);
});
