import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pilot } from '../sw/pilot-actions.js';
import { FakeClock } from './fake-clock.mjs';
import { makeTabs } from './fake-browser.mjs';

// The AI Web Pilot's actions (sw/pilot-actions.js's Pilot) with a fake switch, snapshot storage, tabs and
// clock: every action waits for the switch and refuses while it is off; snapshots are read and written
// one at a time; highlights are remembered until they end or the switch goes off. The tab is found
// and its content script asked by the worker's Tabs and Documents, built on the same fake chrome.tabs.

async function harness({ snapshots = {} } = {}) {
  const clock = new FakeClock(1_000_000);
  const h = { clock, on: true, stored: { gasoline_snapshots: snapshots }, storeLog: [], told: [], asked: [], failSet: false, gets: 0 };
  let readSwitch;
  h.switchRead = new Promise((r) => { readSwitch = r; });
  h.readSwitch = readSwitch;
  h.tabs = {
    get: async (id) => ({ id, url: 'https://example.test/', status: 'complete' }),
    sendMessage: (id, msg) => {
      if (msg.params.action === 'unhighlight') {
        h.told.push(id);
        return Promise.resolve();
      }
      h.asked.push([id, msg.params]);
      return Promise.resolve({ result: { highlighted: true } });
    },
  };
  const { tabs: tracked, documents } = await makeTabs({ clock, tabs: h.tabs });
  h.pilot = new Pilot({
    tabs: h.tabs,
    storage: {
      get: async (k) => { h.gets++; return structuredClone({ [k]: h.stored[k] }); },
      set: async (items) => {
        if (h.failSet) throw new Error('QUOTA_BYTES quota exceeded');
        h.storeLog.push(Object.keys(items.gasoline_snapshots));
        Object.assign(h.stored, structuredClone(items));
      },
    },
    scripting: {},
    cookies: {},
    clock,
    pilot: { ready: () => h.switchRead, assert: () => { if (!h.on) throw Object.assign(new Error('off'), { code: 'ai_web_pilot_disabled' }); } },
    script: { run: async (tab, p) => ({ result: { ran: p.script, tab } }) },
    act: { run: async (tab, q, p) => ({ result: { acted: p.action, tab } }) },
    tracked,
    documents,
  });
  h.run = (p, tab = 7) => h.pilot.run({ id: 'q', tab }, p, { done: false, deadline: clock.now() + 10_000 });
  return h;
}

test('every action waits for the switch to be read, and refuses while it is off', async () => {
  const h = await harness({ snapshots: { a: { url: 'u' } } });
  let out = null;
  h.run({ action: 'list_states' }).then((r) => { out = r; });
  await h.clock.settle();
  assert.equal(out, null, 'not before the switch is read');
  assert.equal(h.gets, 0);
  h.readSwitch();
  await h.clock.settle();
  assert.deepEqual(out, { result: { snapshots: [{ name: 'a', url: 'u', timestamp: undefined, size_bytes: undefined }] } });
  h.on = false;
  for (const action of ['list_states', 'delete_state', 'highlight', 'save_state', 'load_state', 'execute_js']) {
    await assert.rejects(h.run({ action, snapshot_name: 'a', selector: 'b', script: '1' }), (e) => e.code === 'ai_web_pilot_disabled', action);
  }
  assert.equal(h.gets, 1);
  assert.deepEqual(h.asked, []);
  h.on = true;
  await assert.rejects(h.run({ action: 'no_such' }), (e) => e.code === 'invalid_param' && e.message === 'unknown pilot action "no_such"');
  assert.deepEqual(await h.run({ action: 'click' }), { result: { acted: 'click', tab: 7 } }, 'the actions go to the actor, with their tab');
  assert.deepEqual(await h.run({ action: 'execute_js', script: '2' }), { result: { ran: '2', tab: 7 } }, 'execute_js goes to the script runner, with its tab');
});

test('snapshots: listed by name, deleted by name, a missing or bad name refused', async () => {
  const h = await harness({ snapshots: { b: { url: 'ub', timestamp: 2, size_bytes: 20, cookies: [] }, a: { url: 'ua', timestamp: 1, size_bytes: 10 } } });
  h.readSwitch();
  const list = await h.run({ action: 'list_states' });
  assert.deepEqual(list.result.snapshots.map((s) => [s.name, s.url, s.timestamp, s.size_bytes]), [['a', 'ua', 1, 10], ['b', 'ub', 2, 20]]);
  assert.deepEqual(await h.run({ action: 'delete_state', snapshot_name: ' a ' }), { result: { success: true, snapshot_name: 'a' } });
  assert.deepEqual(Object.keys(h.stored.gasoline_snapshots), ['b']);
  await assert.rejects(h.run({ action: 'delete_state', snapshot_name: 'a' }), (e) => e.code === 'not_found' && e.message === 'no snapshot named "a"');
  await assert.rejects(h.run({ action: 'delete_state', snapshot_name: 'toString' }), (e) => e.code === 'not_found', 'only its own names');
  await assert.rejects(h.run({ action: 'delete_state' }), (e) => e.code === 'invalid_param' && e.message === 'snapshot_name is required');
  await assert.rejects(h.run({ action: 'delete_state', snapshot_name: 'x'.repeat(51) }), (e) => e.code === 'invalid_param' && /longer than 50/.test(e.message));
  assert.deepEqual(h.storeLog, [['b']]);
});

test('snapshot changes go one at a time; a failed write is internal and does not stop the next', async () => {
  const h = await harness({ snapshots: { a: {}, b: {}, c: {} } });
  h.readSwitch();
  const dels = ['a', 'b'].map((n) => h.run({ action: 'delete_state', snapshot_name: n }));
  await Promise.all(dels);
  assert.deepEqual(h.storeLog, [['b', 'c'], ['c']], 'the second read saw the first write');
  h.failSet = true;
  await assert.rejects(h.run({ action: 'delete_state', snapshot_name: 'c' }), (e) => e.code === 'internal' && /could not be stored: QUOTA/.test(e.message));
  h.failSet = false;
  assert.deepEqual((await h.run({ action: 'list_states' })).result.snapshots.map((s) => s.name), ['c'], 'the failed delete left it');
});

test('highlights are remembered until they end, and taken down when the switch goes off', async () => {
  const h = await harness();
  h.readSwitch();
  assert.deepEqual(await h.run({ action: 'highlight', selector: ' #a ', duration_ms: 2000 }, 7), { result: { highlighted: true } });
  assert.deepEqual(h.asked, [[7, { action: 'highlight', selector: '#a', duration_ms: 2000 }]]);
  await h.run({ action: 'highlight', selector: '#b', duration_ms: 10 ** 9 }, 8);
  assert.equal(h.asked[1][1].duration_ms, 60000, 'at most a minute');
  await h.run({ action: 'highlight', selector: '#c' }, 9);
  assert.equal(h.asked[2][1].duration_ms, 5000, 'five seconds unless asked');
  await assert.rejects(h.run({ action: 'highlight', selector: '  ' }), (e) => e.code === 'invalid_param');
  await h.clock.advance(2000);
  h.pilot.clearHighlights();
  assert.deepEqual(h.told.sort(), [8, 9], 'the one that ended is not told again');
  h.pilot.clearHighlights();
  assert.deepEqual(h.told.sort(), [8, 9], 'each once');
});
