import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeShooter, cropBox } from '../sw/screenshot.js';

// A browser with one window holding tab 1 (in front, or not) on a page with pw password fields.
function fakeChrome({ active = true, pw = 0, vw = 800 } = {}) {
  const calls = [];
  const chrome = {
    tabs: {
      get: async (id) => ({ id, windowId: 9, active }),
      captureVisibleTab: async (win, opts) => { calls.push(['capture', opts.format]); return `data:image/${opts.format};base64,QUJD`; },
    },
    windows: { get: async () => ({ id: 9, state: 'normal' }) },
    scripting: {
      executeScript: async () => [{ frameId: 0, result: { pw, url: 'https://a.test/', vw, vh: 600, dpr: 1, sy: 0, docH: 600 } }],
      insertCSS: async (o) => { calls.push(['insertCSS', o.origin, o.css.includes('input[type=password]')]); },
      removeCSS: async () => { await new Promise((r) => setTimeout(r, 5)); calls.push(['removeCSS']); },
    },
  };
  return { chrome, calls };
}

test('a tab that is not in front is refused at once with tab_not_visible', async () => {
  const { chrome, calls } = fakeChrome({ active: false });
  const s = makeShooter({ chrome, settings: () => ({}) });
  await assert.rejects(s.shoot(1, {}), (e) => e.code === 'tab_not_visible' && /front/.test(e.message));
  assert.deepEqual(calls, []);
});

test('the human turned AI screenshots off: refused before anything is captured', async () => {
  const { chrome, calls } = fakeChrome();
  const s = makeShooter({ chrome, settings: () => ({ ai_screenshots: false }) });
  await assert.rejects(s.shoot(1, {}), (e) => e.code === 'ai_screenshots_off');
  assert.deepEqual(calls, []);
});

test('password fields are masked by a user stylesheet for the capture only', async () => {
  const { chrome, calls } = fakeChrome({ pw: 2 });
  const s = makeShooter({ chrome, settings: () => ({}) });
  const out = await s.shoot(1, { format: 'jpeg', max_width: 1024 });
  assert.equal(out.data, 'QUJD');
  assert.deepEqual(calls, [['insertCSS', 'USER', true], ['capture', 'jpeg'], ['removeCSS']]);
  const plain = fakeChrome({ pw: 0 });
  await makeShooter({ chrome: plain.chrome, settings: () => ({}) }).shoot(1, {});
  assert.deepEqual(plain.calls, [['capture', 'jpeg']]);
});

test('captures are spaced to two a second', async () => {
  const { chrome } = fakeChrome();
  let clock = 1000;
  const slept = [];
  const s = makeShooter({ chrome, settings: () => ({}), now: () => clock, sleep: async (ms) => { slept.push(ms); clock += ms; } });
  await s.shoot(1, {});
  clock += 10;
  await s.shoot(1, {});
  assert.deepEqual(slept, []);
  clock += 10;
  await s.shoot(1, {});
  assert.equal(slept.length, 1);
  assert.ok(slept[0] >= 980 && slept[0] <= 1100, String(slept[0]));
});

test('cropBox: the element with a margin, inside the viewport', () => {
  const top = { vw: 800, vh: 600, box: { x: 100, y: 150, w: 200, h: 100 } };
  assert.deepEqual(cropBox(top, 8), { x: 92, y: 142, w: 216, h: 116 });
  assert.deepEqual(cropBox({ ...top, box: { x: -5, y: 590, w: 50, h: 40 } }, 8), { x: 0, y: 582, w: 53, h: 18 });
  assert.throws(() => cropBox({ ...top, box: { x: 900, y: 10, w: 5, h: 5 } }, 0), (e) => e.code === 'not_found');
});

test('screenshots taken at once run one after the other: one cannot remove the stylesheet of the next', async () => {
  const { chrome, calls } = fakeChrome({ pw: 1 });
  const s = makeShooter({ chrome, settings: () => ({}), sleep: async () => {} });
  await Promise.all([s.shoot(1, {}), s.shoot(1, {})]);
  const once = [['insertCSS', 'USER', true], ['capture', 'jpeg'], ['removeCSS']];
  assert.deepEqual(calls, [...once, ...once]);
});

test('the size of a capture is read from its PNG or JPEG header, not assumed from the page', async () => {
  const { imageSize } = await import('../sw/screenshot.js');
  assert.deepEqual(imageSize('iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAEklEQVR4nGJiQAIoHEAAAAD//wBoAAVijDhsAAAAAElFTkSuQmCC'), { w: 3, h: 2 });
  assert.deepEqual(imageSize('/9j/2wCEAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDIBCQkJDAsMGA0NGDIhHCEyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMv/AABEIABgAKAMBIgACEQEDEQH/xAGiAAABBQEBAQEBAQAAAAAAAAAAAQIDBAUGBwgJCgsQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+gEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoLEQACAQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/2gAMAwEAAhEDEQA/APn+iiigAooooAKKKKACiiigAooooAKKKKAP/9k='), { w: 40, h: 24 });
  assert.equal(imageSize('QUJD'), null);
});
