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

// Runs fn as in an engine without Uint8Array.fromBase64 and toBase64 (node 20; Chrome before 140), then puts them back.
async function withoutNativeBase64(fn) {
  const U8 = /** @type {any} */ (Uint8Array);
  const had = [U8.fromBase64, U8.prototype.toBase64];
  delete U8.fromBase64;
  delete U8.prototype.toBase64;
  try {
    return await fn(U8);
  } finally {
    if (had[0]) U8.fromBase64 = had[0]; else delete U8.fromBase64;
    if (had[1]) U8.prototype.toBase64 = had[1]; else delete U8.prototype.toBase64;
  }
}

// A JPEG whose frame header comes after a long segment (an EXIF or ICC block of 6 KB): SOI, APP1, SOF0 of 1280x800.
function jpegAfterLongSegment() {
  const app = new Uint8Array(6000 + 4);
  app.set([0xff, 0xe1, (6000 + 2) >> 8, (6000 + 2) & 0xff]);
  const sof = [0xff, 0xc0, 0x00, 0x11, 0x08, 800 >> 8, 800 & 0xff, 1280 >> 8, 1280 & 0xff, 0x03];
  return new Uint8Array([0xff, 0xd8, ...app, ...sof, ...new Array(64).fill(0)]);
}

test('imageSize decodes only the start of the base64, and more when a JPEG frame header lies further', async () => {
  const { imageSize, bytesBase64 } = await import('../sw/screenshot.js');
  const b64 = bytesBase64(jpegAfterLongSegment());
  assert.deepEqual(imageSize(b64), { w: 1280, h: 800 });
  // Cut before the frame header: unknown, never a size read from the wrong bytes.
  assert.equal(imageSize(b64.slice(0, 4000)), null);
  // A capture of megabytes is not decoded whole for its size: only its first KB is handed to the decoder.
  const seen = [];
  const orig = globalThis.atob;
  globalThis.atob = (s) => { seen.push(s.length); return orig(s); };
  try {
    const big = 'iVBORw0KGgoAAAANSUhEUgAABQAAAAMg' + 'A'.repeat(4_000_000);
    await withoutNativeBase64(() => assert.deepEqual(imageSize(big), { w: 1280, h: 800 }));
  } finally {
    globalThis.atob = orig;
  }
  assert.ok(seen.length > 0 && Math.max(...seen) <= 1024, String(seen));
});

test('headerSize: a PNG or JPEG header gives its size, other bytes null, bytes ending before it undefined', async () => {
  const { headerSize } = await import('../sw/screenshot.js');
  const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYa'), (c) => c.charCodeAt(0));
  assert.deepEqual(headerSize(png), { w: 3, h: 2 });
  assert.equal(headerSize(png.subarray(0, 20)), undefined);
  const jpeg = jpegAfterLongSegment();
  assert.deepEqual(headerSize(jpeg), { w: 1280, h: 800 });
  assert.equal(headerSize(jpeg.subarray(0, 6010)), undefined);
  assert.equal(headerSize(new Uint8Array([0x41, 0x42, 0x43])), null);
  // A segment that does not start with its marker: not a JPEG to trust.
  assert.equal(headerSize(new Uint8Array([0xff, 0xd8, 0x00, 0x01, ...new Array(20).fill(0)])), null);
});

test('base64Bytes and bytesBase64: the engine codec where there is one, the same bytes without', async () => {
  const { base64Bytes, bytesBase64 } = await import('../sw/screenshot.js');
  const bytes = Uint8Array.from({ length: 70000 }, (_, i) => (i * 2654435761) >>> 24);
  const b64 = Buffer.from(bytes).toString('base64');
  await withoutNativeBase64((U8) => {
    assert.equal(bytesBase64(bytes), b64);
    assert.deepEqual(base64Bytes(b64), bytes);
    const used = [];
    U8.fromBase64 = (s) => { used.push('from'); return Uint8Array.from(Buffer.from(s, 'base64')); };
    U8.prototype.toBase64 = function () { used.push('to'); return Buffer.from(this).toString('base64'); };
    assert.equal(bytesBase64(bytes), b64);
    assert.deepEqual(base64Bytes(b64), bytes);
    assert.deepEqual(used, ['to', 'from']);
  });
});
