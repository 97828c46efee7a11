// node --test extension/test/: content.js sends its batch at once (at the end of the task) when it
// holds the document's first error, with the events batched before it; later errors, and events
// that are not errors, keep the 200 ms batching.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';

const require = createRequire(import.meta.url);
const source = readFileSync(new URL('../content.js', import.meta.url), 'utf8');

// A document with content.js run in it (its parts absent), inject.js's link, and the worker's side
// of sendMessage. Timers are the test's: run(ms) fires those due by then.
function page() {
  const sent = [];
  let now = 0;
  let timers = [];
  let id = 0;
  const linkListeners = [];
  const link = {
    addEventListener: (type, fn) => { if (type === 'gasoline') linkListeners.push(fn); },
    removeEventListener: () => {},
    dispatchEvent: () => true,
  };
  const target = { addEventListener: () => {}, removeEventListener: () => {} };
  const ctx = {
    window: target,
    document: target,
    GASOLINE_CONSTANTS: require('../generated/constants.js'),
    __gasolineScrub: require('../content/scrub.js'),
    __gasolineGate: require('../content/gate.js'),
    __gasolineStart: { link, take: () => [], events: (m) => m.events },
    chrome: {
      runtime: {
        id: 'ext',
        sendMessage: (m) => { sent.push({ at: now, m }); return Promise.resolve(); },
        onMessage: { addListener: () => {}, removeListener: () => {} },
      },
    },
    setTimeout: (fn, ms) => { timers.push({ id: ++id, at: now + ms, fn }); return id; },
    clearTimeout: (t) => { timers = timers.filter((x) => x.id !== t); },
    queueMicrotask,
    CustomEvent: class { constructor(type, init) { this.type = type; this.detail = init && init.detail; } },
    URL,
    Date,
    Math,
    JSON,
  };
  ctx.globalThis = ctx;
  vm.runInNewContext(source, ctx);
  const G = ctx.__gasolineContent;
  G.seed({ settings: { log_level: 'error' }, rev: 1 });
  const post = (...events) => { for (const fn of linkListeners) fn({ detail: { events } }); };
  const tick = () => new Promise((r) => setImmediate(r)); // the end of the task: microtasks ran
  const run = async (ms) => {
    const end = now + ms;
    for (;;) {
      const due = timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((x) => x !== due);
      now = due.at;
      due.fn();
      await tick();
    }
    now = end;
    await tick();
  };
  return { sent, post, run, tick };
}

const err = (message, kind = 'console') => ({ kind: 'log', data: { ts: 1, level: 'error', kind, message } });
const net = (url) => ({ kind: 'network', data: { ts: 1, url, method: 'GET', status: 200 } });
const messagesOf = (s) => Array.from(s.m.events, (e) => e.data.message || e.data.url);

test('the first error goes at once with what came before it; later errors are batched', async () => {
  const { sent, post, run, tick } = page();
  post(net('http://app.test/a'));
  await run(50);
  assert.equal(sent.length, 0, 'a network entry waits for the batch');
  post(err('first'), net('http://app.test/b')); // one message of inject's: sent together
  await tick();
  assert.equal(sent.length, 1, 'the first error at once');
  assert.equal(sent[0].at, 50);
  assert.deepEqual(messagesOf(sent[0]), ['http://app.test/a', 'first', 'http://app.test/b']);
  assert.deepEqual(Array.from(sent[0].m.events, (e) => e.data.sq), [1, 1, 2], 'numbered in order');

  post(err('second'));
  await tick();
  assert.equal(sent.length, 1, 'a later error waits');
  await run(199);
  assert.equal(sent.length, 1);
  await run(1);
  assert.equal(sent.length, 2, 'and goes with the batching');
  assert.deepEqual(messagesOf(sent[1]), ['second']);

  // A flood: one message per 200 ms batch, as before.
  for (let i = 0; i < 1000; i++) post(err(`e${i}`));
  await tick();
  assert.equal(sent.length, 2);
  await run(200);
  assert.equal(sent.length, 3);
  assert.equal(sent[2].m.events.length, 1000);
});

test('an uncaught exception or a rejection is a first error too', async () => {
  for (const kind of ['exception', 'rejection']) {
    const { sent, post, tick } = page();
    post({ kind: 'log', data: { ts: 1, level: 'info', kind: 'console', message: 'x' } }); // below log_level: not sent
    post(err('boom', kind));
    await tick();
    assert.equal(sent.length, 1, kind);
    assert.deepEqual(messagesOf(sent[0]), ['boom']);
  }
});
