import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QueryRunner } from '../sw/queries.js';
import { FakeClock } from './fake-clock.mjs';
import { QueryError } from '../sw/errors.js';
import { makeTabs } from './fake-browser.mjs';

// One query from the server's frame to its answer (sw/queries.js's QueryRunner), with a fake pilot, a
// fake clock and the answers recorded: one answer per query, by its deadline, in the result's shape.
// (Pilot queries only: documents.test.mjs asks the content script.)

async function harness() {
  const clock = new FakeClock(1_000_000);
  const h = { clock, sent: [], jobs: [], pilotAnswer: null };
  const { tabs: tracked, documents } = await makeTabs({ clock });
  h.runner = new QueryRunner({
    send: (m) => h.sent.push(m),
    pilot: {
      run: (q, p, job) => {
        h.jobs.push({ q, p, job });
        job.tab = 4;
        return typeof h.pilotAnswer === 'function' ? h.pilotAnswer(job) : Promise.resolve(h.pilotAnswer);
      },
    },
    audits: { audit: async () => { throw new Error('not in these tests'); } },
    shots: { shoot: async () => { throw new Error('not in these tests'); } },
    tracked,
    documents,
    clock,
  });
  return h;
}

test('a pilot query is answered once, with its tab and the page it ran in', async () => {
  const h = await harness();
  h.pilotAnswer = { result: { success: true, url: 'https://a.test/' } };
  await h.runner.run({ type: 'query', id: 'q1', kind: 'pilot', tab: 0, params: { action: 'list_states' } });
  assert.deepEqual(h.sent, [{ type: 'result', id: 'q1', tab: 4, url: 'https://a.test/', result: { success: true, url: 'https://a.test/' } }]);
  assert.deepEqual(h.jobs[0].p, { action: 'list_states' });
  h.pilotAnswer = { result: null };
  await h.runner.run({ type: 'query', id: 'q2', kind: 'pilot', params: [1] });
  assert.deepEqual(h.jobs[1].p, {}, 'params that are not an object are none');
  assert.deepEqual(h.sent[1], { type: 'result', id: 'q2', tab: 4, error: { code: 'internal', message: 'the page gave an empty answer' } });
  assert.equal(h.clock.pending().length, 0, 'no deadline left behind');
});

test('nonsense and a repeated id are ignored; an unknown kind or a failure is an error answer', async () => {
  const h = await harness();
  for (const q of [null, 'q', { id: '' }, { id: 7 }]) await h.runner.run(q);
  assert.deepEqual(h.sent, []);
  await h.runner.run({ id: 'k', kind: 'paint' });
  assert.deepEqual(h.sent, [{ type: 'result', id: 'k', tab: 0, error: { code: 'invalid_param', message: 'unknown query kind "paint"' } }]);
  let release;
  h.pilotAnswer = () => new Promise((r) => { release = r; });
  const first = h.runner.run({ id: 'same', kind: 'pilot', params: {} });
  await h.runner.run({ id: 'same', kind: 'pilot', params: {} });
  assert.equal(h.jobs.length, 1, 'the same id while it runs');
  release({ result: { ok: 1 } });
  await first;
  h.pilotAnswer = () => Promise.reject(new QueryError('ai_web_pilot_disabled', 'off'));
  await h.runner.run({ id: 'off', kind: 'pilot', params: {} });
  h.pilotAnswer = () => Promise.reject(new TypeError('x is undefined'));
  await h.runner.run({ id: 'bug', kind: 'pilot', params: {} });
  h.pilotAnswer = () => Promise.reject(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
  await h.runner.run({ id: 'raw', kind: 'pilot', params: {} });
  assert.deepEqual(h.sent.slice(-3).map((m) => m.error), [{ code: 'ai_web_pilot_disabled', message: 'off' },
    { code: 'internal', message: 'x is undefined' }, { code: 'internal', message: 'reset' }], 'only a QueryError names its code');
});

test('the deadline: the server\'s, capped at 2 minutes, else the kind\'s; past it the answer is a timeout and the work is cancelled', async () => {
  const h = await harness();
  let cancelled = 0;
  h.pilotAnswer = (job) => { job.cancels.push(() => cancelled++); return new Promise(() => {}); };
  h.runner.run({ id: 'a', kind: 'pilot', params: { action: 'highlight' }, deadline: h.clock.now() + 2998 });
  h.runner.run({ id: 'b', kind: 'pilot', params: { action: 'execute_js', timeout_ms: 20000 } });
  h.runner.run({ id: 'c', kind: 'pilot', params: {}, deadline: h.clock.now() + 10 * 60_000 });
  h.runner.run({ id: 'd', kind: 'pilot', params: {} });
  await h.clock.settle();
  assert.deepEqual(h.clock.pending(), [2998, 10000, 23000, 120000]);
  assert.equal(h.jobs[0].job.deadline, h.clock.now() + 2998);
  await h.clock.advance(2998);
  assert.deepEqual(h.sent, [{ type: 'result', id: 'a', tab: 4, error: { code: 'timeout', message: 'the page did not answer within 3s' } }]);
  assert.equal(h.jobs[0].job.done, true, 'the work sees the query ended');
  assert.equal(cancelled, 1);
  await h.clock.advance(120_000);
  assert.deepEqual(h.sent.map((m) => m.id), ['a', 'd', 'b', 'c']);
  // A late answer after the timeout is not sent again.
  h.runner.finish(h.jobs[0].job, { result: { late: true } });
  assert.equal(h.sent.length, 4);
});
