import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScriptRunner } from '../sw/script.js';
import { FakeClock } from './fake-clock.mjs';

// execute_js (sw/script.js's ScriptRunner) with a fake chrome.debugger and chrome.scripting, switch and
// clock: the debugger session per script, what its answers become, the fallback to the page's main
// world, the per-tab lock and the time limit.

function harness({ debuggerless = false } = {}) {
  const clock = new FakeClock();
  const h = { clock, calls: [], on: true, attachError: null, evaluate: [], scripted: [], keys: 0 };
  h.dbg = {
    attach: async (target) => {
      h.calls.push(['attach', target.tabId]);
      if (h.attachError) throw new Error(h.attachError);
    },
    detach: async (target) => { h.calls.push(['detach', target.tabId]); },
    sendCommand: (target, method, params) => {
      h.calls.push([method, params.expression ?? params.functionDeclaration ?? params.promiseObjectId]);
      const next = h.evaluate.shift();
      return typeof next === 'function' ? next(params) : Promise.resolve(next);
    },
  };
  h.runner = new ScriptRunner({
    debugger: debuggerless ? null : h.dbg,
    scripting: {
      executeScript: async (inj) => {
        h.scripted.push(inj);
        const next = h.scripted.length === 1 ? h.mainWorld : h.serialized;
        if (next instanceof Error) throw next;
        return [{ result: next }];
      },
    },
    clock,
    pilot: { assert: () => { if (!h.on) throw Object.assign(new Error('off'), { code: 'ai_web_pilot_disabled' }); } },
    settled: async () => {},
    randomKey: () => `__gasoline_k${++h.keys}`,
  });
  h.run = (p, job = { done: false }, tab = 7) => h.runner.run(tab, p, job);
  return h;
}

const value = (v) => ({ result: v });
const ok = (result) => ({ result: { success: true, result } });

test('a script runs in one debugger session: attach, evaluate, detach; its value comes back as JSON', async () => {
  const h = harness();
  h.evaluate.push(value({ type: 'number', value: 42 }));
  assert.deepEqual(await h.run({ script: '6 * 7' }), ok(42));
  assert.deepEqual(h.calls, [['attach', 7], ['Runtime.evaluate', '6 * 7'], ['detach', 7]]);
  for (const [v, want] of [[{ type: 'undefined' }, null], [{ type: 'number', unserializableValue: '-0' }, '-0'],
    [{ type: 'symbol', description: 'Symbol(x)' }, 'Symbol(x)'], [{ type: 'object', subtype: 'null' }, null], [{ type: 'string', value: 's' }, 's']]) {
    h.evaluate.push(value(v));
    assert.deepEqual(await h.run({ script: 'x' }), ok(want), JSON.stringify(v));
  }
});

test('a bare return is run again as an async function body; an exception is a script_error', async () => {
  const h = harness();
  h.evaluate.push({ exceptionDetails: { exception: { className: 'SyntaxError', description: 'SyntaxError: Illegal return statement' } } });
  h.evaluate.push(value({ type: 'boolean', value: true }));
  assert.deepEqual(await h.run({ script: 'return true' }), ok(true));
  assert.equal(h.calls[2][1], '(async () => {\nreturn true\n})()');
  h.evaluate.push({ exceptionDetails: { exception: { type: 'object', description: 'Error: boom\n    at <anonymous>:1:7' } } });
  await assert.rejects(h.run({ script: 'throw new Error("boom")' }), (e) => e.code === 'script_error' && /^Error: boom/.test(e.message));
  assert.deepEqual(h.calls.at(-1), ['detach', 7], 'detached after a failure too');
});

test('an object is parked under a fresh key and serialized in the page', async () => {
  const h = harness();
  h.evaluate.push(value({ type: 'object', objectId: 'o1' }), {}, value({ value: { json: '{"a":[1,2]}' } }));
  assert.deepEqual(await h.run({ script: '({a: [1, 2]})' }), ok({ a: [1, 2] }));
  assert.match(h.calls[2][1], /defineProperty\(globalThis, k/);
  assert.match(h.calls[3][1], /\("__gasoline_k1", 65536\)$/);
  h.evaluate.push(value({ type: 'object', objectId: 'o2' }), {}, value({ value: { json: '"cut', cut: true } }));
  assert.deepEqual(await h.run({ script: 'big' }), { result: { success: true, truncated: true, result: '"cut' } });
  assert.match(h.calls.at(-2)[1], /"__gasoline_k2"/, 'a new key for every value');
});

test('scripts in one tab run one at a time; a query that ended while it waited never runs', async () => {
  const h = harness();
  let finish;
  h.evaluate.push(() => new Promise((r) => { finish = () => r(value({ type: 'number', value: 1 })); }));
  const first = h.run({ script: 'slow' });
  const lateJob = { done: false };
  const late = h.run({ script: 'late' }, lateJob);
  h.evaluate.push(value({ type: 'number', value: 3 }));
  const other = h.run({ script: 'elsewhere' }, { done: false }, 8);
  assert.deepEqual(await other, ok(3), 'another tab does not wait');
  assert.deepEqual(h.calls.filter((c) => c[0] === 'attach'), [['attach', 7], ['attach', 8]], 'the second script in tab 7 waits');
  lateJob.done = true;
  finish();
  assert.deepEqual(await first, ok(1));
  assert.equal(await late, null);
  assert.deepEqual(h.calls.filter((c) => c[0] === 'attach'), [['attach', 7], ['attach', 8]]);
  assert.equal(h.runner.tabLocks.size, 0, 'an idle tab holds no lock');
});

test('the switch is checked right before the script runs; nothing without a script', async () => {
  const h = harness();
  h.on = false;
  await assert.rejects(h.run({ script: '1' }), (e) => e.code === 'ai_web_pilot_disabled');
  await assert.rejects(h.run({ script: '  ' }), (e) => e.code === 'invalid_param' && e.message === 'script is required');
  assert.deepEqual(h.calls, []);
});

test('a script past its time limit is a timeout, and the debugger is let go', async () => {
  const h = harness();
  h.evaluate.push(() => new Promise(() => {})); // the protocol never answers
  const run = h.run({ script: 'for(;;);', timeout_ms: 500 });
  let err = null;
  run.catch((e) => { err = e; });
  await h.clock.advance(749);
  assert.equal(err, null);
  await h.clock.advance(1);
  assert.equal(err && err.code, 'timeout');
  assert.equal(err.message, 'the script did not finish within 500 ms');
  assert.deepEqual(h.calls.at(-1), ['detach', 7]);
});

test('attach failures: a missing or unscriptable tab is not_found; a tab held by another debugger runs in the main world', async () => {
  const h = harness();
  h.attachError = 'No tab with id: 7.';
  await assert.rejects(h.run({ script: '1' }), (e) => e.code === 'not_found' && e.message === 'no tab with id 7');
  h.attachError = 'Cannot access a chrome:// URL';
  await assert.rejects(h.run({ script: '1' }), (e) => e.code === 'not_found' && /cannot be scripted/.test(e.message));
  h.attachError = 'Another debugger is already attached to the tab with id: 7.';
  h.mainWorld = { ok: true };
  h.serialized = { json: '[1]' };
  assert.deepEqual(await h.run({ script: '[1]' }), ok([1]));
  assert.equal(h.scripted[0].world, 'MAIN');
  assert.deepEqual(h.scripted[0].target, { tabId: 7, frameIds: [0] });
  assert.deepEqual(h.scripted[0].args, ['[1]', '__gasoline_k1', 5000]);
  assert.deepEqual(h.scripted[1].args, ['__gasoline_k1', 65536]);
  assert.equal(h.calls.filter((c) => c[0] === 'detach').length, 0, 'never attached, never detached');
  h.attachError = 'Cannot attach to this target: another debugger is attached';
  h.scripted.length = 0;
  assert.deepEqual(await h.run({ script: '[1]' }), ok([1]), 'whatever words the browser wraps it in');
});

test('without a debugger (Firefox) the main world answers: its CSP refusal, a page without access, no answer', async () => {
  const h = harness({ debuggerless: true });
  h.mainWorld = { code: 'csp_blocked', message: 'no eval' };
  await assert.rejects(h.run({ script: '1' }), (e) => e.code === 'csp_blocked' && e.message === 'no eval');
  h.scripted.length = 0;
  h.mainWorld = new Error('Cannot access contents of url "about:addons"');
  await assert.rejects(h.run({ script: '1' }), (e) => e.code === 'not_found');
  h.scripted.length = 0;
  h.mainWorld = null;
  await assert.rejects(h.run({ script: '1' }), (e) => e.code === 'internal' && e.message === 'the page gave no answer');
  h.scripted.length = 0;
  h.mainWorld = { ok: true };
  h.serialized = { json: '{"x":1}' };
  const job = { done: false };
  assert.deepEqual(await h.run({ script: 'x' }, job), ok({ x: 1 }));
  assert.deepEqual(h.calls, [], 'no debugger was asked');
});
