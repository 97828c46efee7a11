// The worker's link to the server (sw/link.js): requests go to the address the settings hold at the
// time, with a time limit; connected/last error as the popup shows them, restored after a restart;
// reconnect hooks run on the way back up only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from './fake-clock.mjs';
import { Link, problemOf, failure } from '../sw/link.js';

function build(fetch) {
  const clock = new FakeClock();
  const saved = new Map();
  let url = 'http://127.0.0.1:7890';
  const link = new Link({ fetch, clock, serverURL: () => url, save: (k, v) => saved.set(k, v) });
  return { clock, saved, link, moveTo: (u) => { url = u; } };
}

test('a request goes to the current address, uncached, and is aborted after 10 s', async () => {
  const calls = [];
  const h = build((u, init) => {
    calls.push({ u, init });
    return new Promise((_, reject) => init.signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))));
  });
  const p = h.link.postJSON('/logs', '{}').catch((e) => e);
  h.moveTo('http://127.0.0.1:9999');
  h.link.request('/settings').catch(() => {});
  assert.equal(calls[0].u, 'http://127.0.0.1:7890/logs');
  assert.equal(calls[1].u, 'http://127.0.0.1:9999/settings');
  assert.equal(calls[0].init.cache, 'no-store');
  assert.equal(calls[0].init.method, 'POST');
  assert.equal(calls[0].init.headers['Content-Type'], 'application/json');
  await h.clock.advance(9999);
  assert.equal(calls[0].init.signal.aborted, false);
  await h.clock.advance(1);
  assert.equal(calls[0].init.signal.aborted, true);
  assert.equal(failure(await p), 'timeout');
});

test('an answered request clears its timer', async () => {
  const h = build(async () => new Response('{}'));
  await h.link.request('/x');
  assert.deepEqual(h.clock.pending(), []);
});

test('reconnect hooks run when the server comes back, not while it stays up', () => {
  const h = build(async () => new Response('{}'));
  let n = 0;
  h.link.onReconnect(() => { n++; });
  h.link.setConnected(true);
  h.link.setConnected(true);
  assert.equal(n, 1);
  h.link.setConnected(false, 'refused');
  assert.equal(h.link.isConnected(), false);
  assert.equal(h.link.lastErrorText(), 'refused');
  h.link.setConnected(false);
  assert.equal(h.link.lastErrorText(), 'unreachable');
  h.link.setConnected(true);
  assert.equal(n, 2);
  assert.equal(h.link.lastErrorText(), '');
  h.link.forget();
  assert.equal(h.link.isConnected(), false);
  h.link.setConnected(true);
  assert.equal(n, 3, 'a forgotten server answering is a reconnect');
});

test('the state is saved as it changes and restored by the next life', () => {
  const h = build(async () => new Response('{}'));
  h.link.setConnected(true);
  h.link.setLastError('POST /logs: HTTP 400 bad');
  const stored = h.saved.get('gasoline_status')();
  assert.deepEqual(stored, { connected: true, last_error: 'POST /logs: HTTP 400 bad' });
  const next = build(async () => new Response('{}'));
  next.link.restore({ gasoline_status: stored });
  assert.equal(next.link.isConnected(), true);
  assert.equal(next.link.lastErrorText(), 'POST /logs: HTTP 400 bad');
  next.link.restore({});
  assert.equal(next.link.isConnected(), true, 'nothing stored: unchanged');
});

test('a 4xx answer\'s problem, whatever its body', async () => {
  assert.deepEqual(await problemOf(new Response('{"error":"invalid_param","message":"bad"}', { status: 400 })), { error: 'invalid_param', message: 'bad' });
  assert.deepEqual(await problemOf(new Response('not json', { status: 400 })), { error: '', message: '' });
  assert.deepEqual(await problemOf(new Response('null', { status: 400 })), { error: '', message: '' });
});
