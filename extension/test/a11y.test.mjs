import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Audits } from '../sw/a11y.js';
import { FakeClock } from './fake-clock.mjs';
import { makeTabs } from './fake-browser.mjs';

// Accessibility audits (sw/a11y.js's Audits) with a fake chrome.scripting and fetch: whether axe-core is
// in the build (asked once per worker life), loading it into a page that lacks it, and what a page's
// answer becomes. (The worker's Documents runs them against a tab it has not seen navigate.)

async function harness({ bundled = true } = {}) {
  const h = { heads: [], injected: [], answers: [] };
  const { documents } = await makeTabs({ clock: new FakeClock() });
  h.audits = new Audits({
    scripting: {
      executeScript: async (inj) => {
        if (inj.files) {
          h.injected.push(inj.files);
          return [{}];
        }
        assert.equal(inj.world, 'ISOLATED');
        const next = h.answers.shift();
        return [next];
      },
    },
    fetch: async (url, init) => {
      h.heads.push([url, init.method]);
      if (bundled instanceof Error) throw bundled;
      return { ok: bundled };
    },
    getURL: (p) => `chrome-extension://id/${p}`,
    documents,
  });
  h.job = { done: false, deadline: Date.now() + 10_000, cancels: [] };
  h.audit = (tab = 11) => h.audits.audit(tab, { id: 'q', kind: 'a11y', params: { tags: ['wcag2a'] } }, h.job);
  return h;
}

test('without axe-core in the build every audit is refused, and the build is asked once', async () => {
  for (const bundled of [false, new Error('net::ERR_FILE_NOT_FOUND')]) {
    const h = await harness({ bundled });
    for (let i = 0; i < 3; i++) {
      await assert.rejects(h.audit(), (e) => e.code === 'internal' && /axe-core is not in this build/.test(e.message));
    }
    assert.deepEqual(h.heads, [['chrome-extension://id/lib/axe.min.js', 'HEAD']]);
  }
});

test('a page without axe gets it loaded, then the audit runs again; still missing is internal', async () => {
  const h = await harness();
  h.answers.push({ result: { missing: true } }, { result: { summary: { violations: 1 } } });
  assert.deepEqual(await h.audit(), { summary: { violations: 1 } });
  assert.deepEqual(h.injected, [['lib/axe.min.js']]);
  h.answers.push({ result: { missing: true } }, { result: { missing: true } });
  await assert.rejects(h.audit(), (e) => e.code === 'internal' && e.message === 'axe-core did not load in the page');
  h.answers.push({ result: { summary: {} } });
  assert.deepEqual(await h.audit(), { summary: {} }, 'a page that has it is not given it again');
  assert.equal(h.injected.length, 2);
  assert.equal(h.heads.length, 1);
});

test('a query that ended while axe loaded is not run; a page that answers nothing or fails is internal', async () => {
  const h = await harness();
  h.answers.push({ result: { missing: true } });
  const origInject = h.audits.d.scripting.executeScript;
  h.audits.d.scripting.executeScript = async (inj) => {
    if (inj.files) h.job.done = true;
    return origInject(inj);
  };
  assert.equal(await h.audit(), null);
  h.job.done = false;
  h.answers.push({ result: null });
  await assert.rejects(h.audit(), (e) => e.code === 'internal' && e.message === 'the audit returned nothing');
  h.answers.push({ error: 'axe blew up' });
  await assert.rejects(h.audit(), (e) => e.code === 'internal' && e.message === 'axe blew up');
});
