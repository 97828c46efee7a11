import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionStore } from '../sw/session.js';
import { FakeClock } from './fake-clock.mjs';

// What the worker keeps for its next life (sw/session.js's SessionStore) with a fake session area and
// clock: nothing is written before the old state was read, a turn's changes are one write, a value
// given as a function is read at write time, and over the quota the small keys are kept.

function harness() {
  const clock = new FakeClock();
  const h = { clock, sets: [], asked: null, quota: Infinity, unreadable: false };
  h.store = new SessionStore({
    storage: {
      get: async (keys) => {
        h.asked = keys;
        if (h.unreadable) throw new Error('no session area');
        return { gasoline_page: { tab: 1 } };
      },
      set: async (items) => {
        if (JSON.stringify(items).length > h.quota) throw new Error('QUOTA_BYTES quota exceeded');
        h.sets.push(structuredClone(items));
      },
    },
    clock,
  });
  return h;
}

test('nothing is written until the stored state was read; then what changed meanwhile goes in one write', async () => {
  const h = harness();
  h.store.saveSoon('gasoline_counts', { log: 1 });
  h.store.saveSoon('gasoline_status', { connected: false });
  await h.clock.advance(1000);
  assert.deepEqual(h.sets, []);
  h.store.startSaving();
  await h.clock.advance(0);
  assert.deepEqual(h.sets, [{ gasoline_counts: { log: 1 }, gasoline_status: { connected: false } }]);
  await h.clock.advance(1000);
  assert.equal(h.sets.length, 1, 'nothing more to write');
});

test('one write per turn, with the latest value; a function is called when it is written', async () => {
  const h = harness();
  h.store.startSaving();
  let n = 0;
  h.store.saveSoon('gasoline_counts', { log: 1 });
  h.store.saveSoon('gasoline_counts', { log: 2 });
  h.store.saveSoon('gasoline_status', () => ({ calls: ++n }));
  h.store.saveSoon('gasoline_status', () => ({ calls: ++n }));
  assert.equal(n, 0, 'not yet');
  await h.clock.advance(0);
  assert.deepEqual(h.sets, [{ gasoline_counts: { log: 2 }, gasoline_status: { calls: 1 } }]);
  h.store.saveSoon('gasoline_page', { tab: 3 });
  await h.clock.advance(0);
  assert.deepEqual(h.sets[1], { gasoline_page: { tab: 3 } }, 'only what changed since');
});

test('over the session quota, the queue is dropped and the small keys kept; failing even then is quiet', async () => {
  const h = harness();
  h.store.startSaving();
  h.quota = 100;
  h.store.saveSoon('gasoline_queue', { entries: 'x'.repeat(200) });
  h.store.saveSoon('gasoline_counts', { log: 5 });
  await h.clock.advance(0);
  assert.deepEqual(h.sets, [{ gasoline_counts: { log: 5 } }]);
  h.quota = 0;
  h.store.saveSoon('gasoline_counts', { log: 6 });
  await h.clock.advance(0);
  assert.equal(h.sets.length, 1);
  h.quota = Infinity;
  h.store.saveSoon('gasoline_counts', { log: 7 });
  await h.clock.advance(0);
  assert.deepEqual(h.sets.at(-1), { gasoline_counts: { log: 7 } }, 'and it writes on afterwards');
});

test('the stored state is read in one call of the whole area (every module\'s key and the journal); an unreadable area is a fresh start', async () => {
  const h = harness();
  assert.deepEqual(await h.store.read(), { gasoline_page: { tab: 1 } });
  assert.equal(h.asked, null); // null: every key, so delivery.js's gasoline_j:… journal entries come too
  h.unreadable = true;
  assert.deepEqual(await h.store.read(), {});
});
