import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS, validServerURL, normalizeServerURL, sanitize, merge, overridesOf, mapOriginsOf, MAX_MAP_ORIGINS } from '../sw/settings.js';

test('only loopback http URLs with a valid port are server URLs', () => {
  for (const u of ['http://127.0.0.1:7890', 'http://localhost:1', 'http://127.0.0.1:65535/', ' http://localhost:7890 ']) {
    assert.equal(validServerURL(u), true, u);
  }
  for (const u of ['https://127.0.0.1:7890', 'http://127.0.0.1', 'http://127.0.0.1:0', 'http://127.0.0.1:65536',
    'http://example.com:7890', 'http://127.0.0.1:7890/path', 'http://127.0.0.1.evil.com:80', '', null, 7890]) {
    assert.equal(validServerURL(u), false, String(u));
  }
  assert.equal(normalizeServerURL(' http://localhost:7890/// '), 'http://localhost:7890');
});

test('sanitize keeps known keys with valid values only', () => {
  const s = sanitize({
    server_url: 'http://localhost:9/', log_level: 'all', ws_mode: 'loud', network_bodies: 'yes',
    screenshot_on_error: true, action_replay: false, unknown: 1,
  }, true);
  assert.deepEqual(s, { server_url: 'http://localhost:9', log_level: 'all', screenshot_on_error: true, action_replay: false });
  assert.deepEqual(sanitize(null, true), {});
  assert.deepEqual(sanitize('all', true), {});
});

test('the server may not move the worker to another server', () => {
  assert.deepEqual(sanitize({ server_url: 'http://localhost:9', ws_mode: 'off' }, false), { ws_mode: 'off' });
  const e = merge({ server_url: 'http://localhost:9' }, { server_url: 'http://localhost:10', log_level: 'warn' });
  assert.equal(e.server_url, 'http://localhost:9');
  assert.equal(e.log_level, 'warn');
});

test('the human\'s own settings come only from the human', () => {
  assert.equal(DEFAULT_SETTINGS.ai_screenshots, true);
  assert.deepEqual(sanitize({ ai_screenshots: true, ws_mode: 'off' }, false), { ws_mode: 'off' });
  assert.equal(merge({ ai_screenshots: false }, { ai_screenshots: true }).ai_screenshots, false);
  assert.equal(merge({}, { ai_screenshots: false }).ai_screenshots, true);
});

test('effective settings: defaults, then the user, then the server', () => {
  assert.deepEqual(merge({}, {}), DEFAULT_SETTINGS);
  const e = merge({ log_level: 'warn', ws_mode: 'off' }, { ws_mode: 'messages', log_level: 'bogus' });
  assert.equal(e.log_level, 'warn');
  assert.equal(e.ws_mode, 'messages');
  assert.equal(e.network_bodies, DEFAULT_SETTINGS.network_bodies);
});

test('overrides come only from an object', () => {
  assert.deepEqual(overridesOf({ capture_overrides: { log_level: 'all' } }), { log_level: 'all' });
  for (const b of [null, {}, { capture_overrides: null }, { capture_overrides: [1] }, { capture_overrides: 'x' }]) {
    assert.deepEqual(overridesOf(b), {});
  }
});

test('source map origins: origins only, lowercased, deduplicated, bounded; never from the server', () => {
  assert.deepEqual(mapOriginsOf([' https://Staging.Example.com/ ', 'http://10.0.0.5:8080', 'https://staging.example.com',
    'https://x.test/path', 'javascript:alert(1)', 'https://a.test:99999x', 'http://[::1]:3000', 7, null]),
  ['https://staging.example.com', 'http://10.0.0.5:8080', 'http://[::1]:3000']);
  assert.deepEqual(mapOriginsOf('https://a.test'), []);
  assert.equal(mapOriginsOf(Array.from({ length: 80 }, (_, i) => `https://h${i}.test`)).length, MAX_MAP_ORIGINS);
  assert.equal('sourcemap_origins' in sanitize({ sourcemap_origins: ['https://a.test'] }, true), false);
  assert.equal('sourcemap_origins' in merge({}, { sourcemap_origins: ['https://a.test'] }), false);
});
