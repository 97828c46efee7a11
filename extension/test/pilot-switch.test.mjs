import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PilotSwitch } from '../sw/pilot-switch.js';

// The human's AI Web Pilot switch (sw/pilot-switch.js) with fake storage areas: what start-up reads
// from the three areas, what a flip does, and that a flip is never undone by a slower read.

const tick = () => new Promise((r) => setImmediate(r));

function harness(areas = {}) {
  const h = { stores: {}, sets: [], broadcasts: [], gates: {} };
  const storage = {};
  for (const a of ['sync', 'local', 'session']) {
    const spec = areas[a] || {};
    h.stores[a] = 'v' in spec ? { aiWebPilotEnabled: spec.v } : {};
    storage[a] = {
      get: async (k) => {
        if (h.gates[a]) await h.gates[a];
        if (spec.unreadable) throw new Error(`${a} unreadable`);
        return { ...h.stores[a] }[k] === undefined ? {} : { [k]: h.stores[a][k] };
      },
      set: async (items) => {
        const gate = h.gates[`set-${a}`]; // holds the next write to area a only
        if (gate) {
          delete h.gates[`set-${a}`];
          await gate;
        }
        h.sets.push([a, items.aiWebPilotEnabled]);
        Object.assign(h.stores[a], items);
      },
    };
  }
  h.sendMessage = (m) => { h.broadcasts.push(m); return Promise.reject(new Error('no other page')); };
  h.pilot = new PilotSwitch({ storage, runtime: { sendMessage: (m) => h.sendMessage(m) } });
  h.values = () => ['sync', 'local', 'session'].map((a) => h.stores[a].aiWebPilotEnabled);
  return h;
}

test('start-up: the sync area decides, absent there is off, and the other areas are brought in line', async () => {
  const on = harness({ sync: { v: true }, local: { v: false } });
  await on.pilot.load();
  assert.equal(on.pilot.on(), true);
  assert.deepEqual(on.values(), [true, true, true]);
  assert.deepEqual(on.sets.map((s) => s[0]).sort(), ['local', 'session'], 'only the stale areas are written');

  const off = harness({ local: { v: true }, session: { v: true } });
  await off.pilot.load();
  assert.equal(off.pilot.on(), false, 'absent in sync: off, whatever the copies say');
  assert.deepEqual(off.values(), [false, false, false]);

  const junk = harness({ sync: { v: 'yes' } });
  await junk.pilot.load();
  assert.equal(junk.pilot.on(), false, 'only true is on');
});

test('start-up: when sync cannot be read, local stands in, then session; nothing readable is off', async () => {
  const local = harness({ sync: { unreadable: true }, local: { v: true }, session: { v: false } });
  await local.pilot.load();
  assert.equal(local.pilot.on(), true);
  assert.deepEqual(local.sets, [['session', true]], 'the unreadable area is not written');

  const session = harness({ sync: { unreadable: true }, local: { v: 'x' }, session: { v: true } });
  await session.pilot.load();
  assert.equal(session.pilot.on(), true);

  const none = harness({ sync: { unreadable: true }, local: { unreadable: true }, session: { unreadable: true } });
  await none.pilot.load();
  assert.equal(none.pilot.on(), false);
  assert.deepEqual(none.sets, []);
  assert.throws(() => none.pilot.assert(), (e) => e.code === 'ai_web_pilot_disabled' && /Enable 'AI Web Pilot'/.test(e.message));
});

test('storage is read once: ready() and load() share one read', async () => {
  const h = harness({ sync: { v: true } });
  let reads = 0;
  const get = h.pilot.d.storage.sync.get;
  h.pilot.d.storage.sync.get = (k) => { reads++; return get(k); };
  const a = h.pilot.ready();
  assert.equal(h.pilot.load(), a);
  assert.equal(h.pilot.ready(), a);
  await a;
  assert.equal(reads, 1);
  assert.doesNotThrow(() => h.pilot.assert());
});

test('a flip is in force at once, written to all three areas, and broadcast; a slower start-up read does not undo it', async () => {
  const h = harness({ sync: { v: false } });
  let release;
  let releaseWrite;
  h.gates.sync = new Promise((r) => { release = r; });
  h.gates['set-sync'] = new Promise((r) => { releaseWrite = r; });
  const loading = h.pilot.load();
  const flipped = h.pilot.set(true);
  assert.equal(h.pilot.on(), true, 'before any await');
  release(); // the start-up read comes back with the value from before the flip
  await loading;
  assert.equal(h.pilot.on(), true, 'the read from before the flip is older');
  releaseWrite();
  assert.deepEqual(await flipped, { type: 'pilotStatusChanged', enabled: true });
  assert.deepEqual(h.values(), [true, true, true]);
  assert.deepEqual(h.broadcasts, [{ type: 'pilotStatusChanged', enabled: true }]);
  h.sendMessage = () => { throw new Error('no receiver'); };
  assert.deepEqual(await h.pilot.set(false), { type: 'pilotStatusChanged', enabled: false }, 'no other page is fine');
  assert.throws(() => h.pilot.assert(), /AI Web Pilot/);
});

test('flips are written in order: storage ends with the last one', async () => {
  const h = harness({ sync: { v: false } });
  await h.pilot.load();
  let release;
  h.gates['set-sync'] = new Promise((r) => { release = r; });
  const first = h.pilot.set(true);
  const second = h.pilot.set(false);
  await tick();
  assert.deepEqual(h.sets.filter((s) => s[0] === 'sync'), [], 'the first write is still out');
  release();
  await Promise.all([first, second]);
  assert.deepEqual(h.sets.filter((s) => s[0] === 'sync'), [['sync', true], ['sync', false]]);
  assert.deepEqual(h.values(), [false, false, false]);
  assert.equal(h.pilot.on(), false);
});
