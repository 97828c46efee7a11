import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CaptureSettings, DEFAULT_SETTINGS } from '../sw/settings.js';
import { FakeClock } from './fake-clock.mjs';

// The settings in force (sw/settings.js's CaptureSettings) with fake storage, tabs and clock: what is
// loaded, what a server answer or a user change makes of it, what the tabs are told and storage holds.

function harness({ sync = {}, local = {}, tabs = [{ id: 1 }, { id: 2 }] } = {}) {
  const clock = new FakeClock(5_000);
  const h = { clock, sync, local, writes: [], pushes: [], saved: [], failWrite: false };
  const area = (store, log) => ({
    get: async (k) => (k in store ? { [k]: structuredClone(store[k]) } : {}),
    set: async (items) => {
      if (h.failWrite) throw new Error('quota');
      if (log) log.push(structuredClone(items));
      Object.assign(store, structuredClone(items));
    },
  });
  h.settings = new CaptureSettings({
    storage: { sync: area(sync), local: area(local, h.writes) },
    tabs: {
      query: async () => tabs,
      sendMessage: (id, msg, opts) => {
        if (id === 666) throw new Error('No tab with id');
        h.pushes.push([id, opts.frameId, structuredClone(msg)]);
        return id === 2 ? Promise.reject(new Error('Receiving end does not exist')) : Promise.resolve();
      },
    },
    save: (k, v) => h.saved.push([k, structuredClone(v)]),
    clock,
  });
  return h;
}

test('load: the user\'s settings, the overrides kept over a restart, merged, written and pushed to every tab', async () => {
  const h = harness({ sync: { gasoline_settings: {
    log_level: 'all', ws_mode: 'bogus', server_url: 'http://localhost:9/', sourcemap_origins: ['https://CDN.example.com/', 'not an origin'],
  } } });
  await h.settings.load({ gasoline_overrides: { ws_mode: 'off' } });
  await h.clock.settle();
  const want = { ...DEFAULT_SETTINGS, server_url: 'http://localhost:9', log_level: 'all', ws_mode: 'off' };
  assert.deepEqual(h.settings.effective, want);
  assert.equal(h.settings.serverURL(), 'http://localhost:9');
  assert.deepEqual(h.writes, [{ gasoline_effective: want }]);
  assert.deepEqual(h.settings.forTab(), { settings: want, rev: 5_000 }, 'the revision is the time: it grows over the worker\'s lives');
  assert.deepEqual(h.pushes, [[1, 0, { type: 'effective', settings: want, rev: 5_000 }], [2, 0, { type: 'effective', settings: want, rev: 5_000 }]]);
  assert.deepEqual(h.settings.view(), { settings: { ...DEFAULT_SETTINGS, server_url: 'http://localhost:9', log_level: 'all' }, defaults: DEFAULT_SETTINGS, effective: want, overrides: { ws_mode: 'off' }, sourcemap_origins: ['https://cdn.example.com'] });
  assert.deepEqual(h.settings.sourcemapOrigins(), ['https://cdn.example.com'], 'the human\'s source map origins, valid ones only');
});

test('the human\'s source map origins follow their settings, and are no capture setting', async () => {
  const h = harness();
  await h.settings.load({});
  assert.deepEqual(h.settings.sourcemapOrigins(), []);
  h.writes.length = 0;
  assert.equal(await h.settings.userChanged({ sourcemap_origins: ['https://a.example', 'https://a.example/', 'ftp://b.example'] }), false);
  assert.deepEqual(h.settings.sourcemapOrigins(), ['https://a.example']);
  assert.deepEqual(h.settings.view().sourcemap_origins, ['https://a.example']);
  assert.equal('sourcemap_origins' in h.settings.effective, false, 'the tabs are not told them');
  assert.deepEqual(h.writes, [], 'nor is gasoline_effective written');
  await h.settings.userChanged({ log_level: 'all' });
  assert.deepEqual(h.settings.sourcemapOrigins(), [], 'settings without them clear them');
});

test('load: what storage already holds is neither written again nor pushed; unreadable storage means the defaults, with the human\'s own switches off', async () => {
  const h = harness({ local: { gasoline_effective: { ...DEFAULT_SETTINGS } } });
  await h.settings.load({});
  await h.clock.settle();
  assert.deepEqual(h.writes, []);
  assert.deepEqual(h.pushes, []);
  assert.equal(h.settings.forTab().rev, 0);

  const g = harness();
  g.settings.d.storage.sync.get = async () => { throw new Error('sync off'); };
  await g.settings.load({ gasoline_overrides: 'junk' });
  assert.deepEqual(g.settings.effective, { ...DEFAULT_SETTINGS, ai_screenshots: false, storage_reads: false });
  assert.deepEqual(g.settings.view().overrides, {});
});

test('server answers: their overrides replace ours and are kept for a restart; the same again changes nothing; none means the user\'s own', async () => {
  const h = harness();
  await h.settings.load({});
  h.pushes.length = 0;
  h.writes.length = 0;
  assert.equal(h.settings.generation(), 0);
  h.clock.t = 4_000; // a clock behind the last revision: the revision still grows
  assert.equal(await h.settings.applyServer({ capture_overrides: { log_level: 'warn', server_url: 'http://localhost:1' } }), false);
  assert.equal(h.settings.generation(), 1);
  assert.equal(h.settings.effective.log_level, 'warn');
  assert.equal(h.settings.serverURL(), DEFAULT_SETTINGS.server_url, 'the server may not move the worker');
  assert.deepEqual(h.saved, [['gasoline_overrides', { log_level: 'warn', server_url: 'http://localhost:1' }]]);
  assert.equal(h.settings.forTab().rev, 5_001);
  await h.clock.settle();
  assert.equal(h.pushes.length, 2);
  assert.equal(h.writes.length, 1);

  assert.equal(await h.settings.applyServer({ capture_overrides: { log_level: 'warn', server_url: 'http://localhost:1' } }), false);
  assert.equal(h.settings.generation(), 2, 'every answer counts, changed or not');
  await h.clock.settle();
  assert.equal(h.pushes.length, 2, 'unchanged: not pushed');
  assert.equal(h.saved.length, 1);

  await h.settings.applyServer({ connected: true });
  assert.equal(h.settings.effective.log_level, DEFAULT_SETTINGS.log_level);
  assert.deepEqual(h.saved.at(-1), ['gasoline_overrides', {}]);
});

test('a user change says whether the server address moved; a failed write is written again next time', async () => {
  const h = harness();
  await h.settings.load({});
  assert.equal(await h.settings.userChanged({ log_level: 'all' }), false);
  assert.equal(await h.settings.userChanged({ log_level: 'all', server_url: 'http://127.0.0.1:9999' }), true);
  assert.equal(h.settings.serverURL(), 'http://127.0.0.1:9999');
  assert.equal(await h.settings.userChanged({ log_level: 'all', server_url: 'https://evil.example' }), true, 'an invalid address is the default');
  assert.equal(h.settings.serverURL(), DEFAULT_SETTINGS.server_url);
  const n = h.writes.length;
  h.failWrite = true;
  await h.settings.userChanged({ log_level: 'warn' });
  h.failWrite = false;
  await h.settings.recompute();
  assert.equal(h.writes.length, n + 1, 'storage may not hold it: written again');
  await h.settings.recompute();
  assert.equal(h.writes.length, n + 1, 'then not again');
  assert.equal(h.local.gasoline_effective.log_level, 'warn');
});

test('a tab that went away or has no content script does not stop the push to the others', async () => {
  const h = harness({ tabs: [{ id: 666 }, { id: -1 }, {}, { id: 2 }, { id: 1 }] });
  await h.settings.load({});
  await h.clock.settle();
  assert.deepEqual(h.pushes.map((p) => p[0]), [2, 1]);
});

test('load: a change the user makes while the stored settings are being read is not overwritten by that read', async () => {
  const h = harness({ sync: { gasoline_settings: { log_level: 'error' } } });
  let release;
  const get = h.settings.d.storage.sync.get;
  h.settings.d.storage.sync.get = (k) => new Promise((resolve) => { release = () => resolve(get(k)); });
  const loading = h.settings.load({});
  await h.clock.settle();
  await h.settings.userChanged({ log_level: 'all' }); // storage.onChanged, before the read answers
  release();
  await loading;
  assert.equal(h.settings.effective.log_level, 'all');
  assert.equal(h.local.gasoline_effective.log_level, 'all');
});
