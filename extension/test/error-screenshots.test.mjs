import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Screenshots, SHOT_MAX_CHARS } from '../sw/error-screenshots.js';
import { FakeClock } from './fake-clock.mjs';

// Screenshots on error (sw/error-screenshots.js's Screenshots) with fake tabs, delivery, server and clock:
// when one is taken, in what order its parts go, how often, and how failures are counted.

function harness({ on = true } = {}) {
  const clock = new FakeClock(50_000);
  const h = { clock, steps: [], active: true, answer: { status: 200, body: { attached: true, file: 'shot-1.png' } }, image: 'data:image/png;base64,AAAA' };
  h.shots = new Screenshots({
    tabs: {
      get: async (id) => { h.steps.push(['get', id]); return { id, active: h.active, windowId: 3 }; },
      captureVisibleTab: async (win, opts) => {
        h.steps.push(['capture', win, opts.format]);
        if (h.image instanceof Error) throw h.image;
        return h.image;
      },
    },
    settings: { effective: { screenshot_on_error: on } },
    deliverLogsThrough: async (seq) => { h.steps.push(['deliver', seq]); },
    postJSON: async (path, body) => {
      h.steps.push(['post', path, JSON.parse(body)]);
      const { status, body: b } = h.answer;
      return { ok: status < 300, status, json: async () => b };
    },
    errorText: async (res) => (res.status === 413 ? 'body too large' : ''),
    shrink: async (url) => { h.steps.push(['shrink', url.length]); return 'data:small'; },
    clock,
  });
  h.error = (tab, seq) => h.shots.onErrorLog(tab, { ts: 123 }, seq);
  return h;
}

test('an error in the active tab: captured, the logs through it delivered, then the screenshot posted', async () => {
  const h = harness();
  h.error({ id: 9 }, 41);
  await h.clock.settle();
  assert.deepEqual(h.steps, [['get', 9], ['capture', 3, 'png'], ['deliver', 41], ['post', '/screenshots', { tab: 9, ts: 123, image: h.image }]]);
  assert.deepEqual(h.shots.stats(), { sent: 1, attached: 1, skipped: 0, failed: 0, last_error: '', last_file: 'shot-1.png' });
});

test('off, or no real tab: nothing is taken', async () => {
  const h = harness({ on: false });
  h.error({ id: 9 }, 1);
  const g = harness();
  for (const tab of [undefined, {}, { id: -1 }, { id: '9' }]) g.error(tab, 1);
  await h.clock.settle();
  await g.clock.settle();
  assert.deepEqual(h.steps, []);
  assert.deepEqual(g.steps, []);
});

test('at most one every 5 s, and none while one is being taken; a tab not showing is skipped and does not count', async () => {
  const h = harness();
  h.active = false;
  h.error({ id: 9 }, 1);
  await h.clock.settle();
  assert.equal(h.shots.stats().skipped, 1);
  h.active = true;
  h.error({ id: 9 }, 2);
  h.error({ id: 9 }, 3); // while the first is being taken
  await h.clock.settle();
  assert.equal(h.steps.filter((s) => s[0] === 'capture').length, 1, 'a skipped tab does not hold up the next');
  await h.clock.advance(4_999);
  h.error({ id: 9 }, 4);
  await h.clock.settle();
  assert.equal(h.steps.filter((s) => s[0] === 'capture').length, 1);
  await h.clock.advance(1);
  h.error({ id: 9 }, 5);
  await h.clock.settle();
  assert.deepEqual(h.steps.filter((s) => s[0] === 'deliver'), [['deliver', 2], ['deliver', 5]]);
});

test('failures are counted with their reason, never thrown; a too large image is scaled down first', async () => {
  const h = harness();
  h.answer = { status: 413, body: {} };
  h.error({ id: 9 }, 1);
  await h.clock.settle();
  assert.deepEqual(h.shots.stats(), { sent: 0, attached: 0, skipped: 0, failed: 1, last_error: 'POST /screenshots: HTTP 413 body too large', last_file: '' });
  await h.clock.advance(5_000);
  h.image = new Error('Cannot access contents of the page');
  h.error({ id: 9 }, 2);
  await h.clock.settle();
  assert.equal(h.shots.stats().failed, 2);
  assert.equal(h.shots.stats().last_error, 'Cannot access contents of the page');
  await h.clock.advance(5_000);
  h.image = `data:image/png;base64,${'A'.repeat(SHOT_MAX_CHARS)}`;
  h.answer = { status: 200, body: { attached: false } };
  h.error({ id: 9 }, 3);
  await h.clock.settle();
  assert.deepEqual(h.steps.at(-1)[2].image, 'data:small');
  assert.deepEqual(h.shots.stats(), { sent: 1, attached: 0, skipped: 0, failed: 2, last_error: 'Cannot access contents of the page', last_file: '' });
});

test('a screenshot too large for one POST is scaled down until its data URL fits, its bytes as the canvas encoded them', async (t) => {
  const made = [];
  const drawn = [];
  // The browser's image and canvas, faked: each encoded PNG is a byte per 6 pixels of the canvas.
  globalThis.createImageBitmap = async (blob) => ({ width: 8000, height: 6000, bytes: new Uint8Array(await blob.arrayBuffer()) });
  globalThis.OffscreenCanvas = class {
    constructor(w, h) { this.w = w; this.h = h; made.push([w, h]); }
    getContext() { return { drawImage: (bm, x, y, w, h) => drawn.push([bm.bytes.length, w, h]) }; }
    async convertToBlob() {
      const bytes = new Uint8Array(Math.round((this.w * this.h) / 6));
      for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251;
      return new Blob([bytes], { type: 'image/png' });
    }
  };
  t.after(() => { delete globalThis.OffscreenCanvas; delete globalThis.createImageBitmap; });
  const { shrinkPNG } = await import('../sw/error-screenshots.js');
  const big = `data:image/png;base64,${Buffer.alloc(4_800_000, 7).toString('base64')}`;
  const out = await shrinkPNG(big);
  assert.ok(out.length <= SHOT_MAX_CHARS, `${out.length} chars`);
  assert.equal(drawn[0][0], 4_800_000, 'the capture decoded whole');
  const bytes = Buffer.from(out.slice('data:image/png;base64,'.length), 'base64');
  const [w, h] = made[made.length - 1];
  assert.equal(bytes.length, Math.round((w * h) / 6));
  assert.ok(bytes.every((b, i) => b === i % 251), 'the canvas\'s bytes, as encoded');
  assert.ok(made.length > 1 && w < 8000, `scaled to ${w}×${h} in ${made.length} tries`);
});
