// node --test extension/test/: what a page left before its content script came hands the worker
// (content/start.js) is gated and scrubbed there as content.js would (sw/held.js, content/gate.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// In the worker the classic scripts set these globals; under node they export instead.
const require = createRequire(import.meta.url);
globalThis.__gasolineScrub = require('../content/scrub.js');
globalThis.__gasolineGate = require('../content/gate.js');
const { passHeld } = await import('../sw/held.js');

const settings = (o) => ({ log_level: 'error', ws_mode: 'lifecycle', network_bodies: true, action_replay: false, server_url: 'http://127.0.0.1:7890', ...o });
const request = (url) => ({ kind: 'request', data: { ts: 1, method: 'POST', url, status: 200, type: 'fetch', size: 9, request_body: '{"password":"hunter2","name":"n"}', response_body: 'ok' } });

test('held events are gated by the settings', () => {
  const events = [
    { kind: 'log', data: { level: 'error', message: 'boom' } },
    { kind: 'log', data: { level: 'log', message: 'chatter' } },
    { kind: 'log', data: { kind: 'exception', message: 'thrown' } },
    request('http://127.0.0.1:7890/logs'), // the server's own traffic
    { kind: 'ws', data: { event: 'message', url: 'ws://app/ws', data: 'x' } },
    { kind: 'ws', data: { event: 'open', url: 'ws://app/ws' } },
    { kind: 'action', data: { type: 'navigation', url: 'http://app/b', ts: 5 } },
    { kind: 'bogus', data: {} },
    { kind: 'log' },
    null,
  ];
  const out = passHeld(events, settings());
  assert.deepEqual(out.map((e) => `${e.kind}:${e.data.message || e.data.event || ''}`), ['log:boom', 'log:thrown', 'ws:open']);
  const all = passHeld(events, settings({ log_level: 'all', ws_mode: 'messages', action_replay: true }));
  assert.equal(all.length, 6);
  assert.deepEqual(all.at(-1), { kind: 'action', data: { type: 'navigation', url: 'http://app/b', ts: 5 } });
});

test('held requests are scrubbed, and cut to their network entry without bodies', () => {
  const [body] = passHeld([request('http://app/api?token=s3cr3t&q=1')], settings());
  assert.equal(body.kind, 'request');
  assert.equal(body.data.url, 'http://app/api?token=[redacted]&q=1');
  assert.ok(!body.data.request_body.includes('hunter2'), body.data.request_body);
  const [net] = passHeld([request('http://app/api?token=s3cr3t')], settings({ network_bodies: false }));
  assert.equal(net.kind, 'network');
  assert.equal(net.data.request_body, undefined);
  assert.equal(net.data.url, 'http://app/api?token=[redacted]');
});

test("held user actions go on described, a secret field's value never", () => {
  const field = (type, name, id) => [type, name, id, ''];
  const out = passHeld([
    { kind: 'action', data: { type: 'input', selector: '#first', input_type: 'text', value: 'Ada', field: field('text', 'first', 'first'), ts: 3 } },
    { kind: 'action', data: { type: 'input', selector: '#key', input_type: 'text', value: 'sk-live-1', field: field('text', 'api_key', 'key'), ts: 4 } },
    { kind: 'action', data: { type: 'input', selector: '#pw', input_type: 'password', value: 'hunter2', field: field('password', 'x', 'pw'), ts: 5 } },
    { kind: 'action', data: { type: 'input', selector: '#nofield', input_type: 'text', value: 'v', ts: 6 } },
    { kind: 'action', data: { type: 'click', selector: '#greet', ts: 7, extra: 'dropped' } },
    { kind: 'action', data: { type: 'keypress', selector: '#first', text: 'Enter', ts: 8 } },
    { kind: 'action', data: { type: 'eval', selector: '#x', ts: 9 } },
  ], settings({ action_replay: true }));
  assert.deepEqual(out.map((e) => e.data), [
    { type: 'input', selector: '#first', input_type: 'text', value: 'Ada', ts: 3 },
    { type: 'input', selector: '#key', input_type: 'text', ts: 4 },
    { type: 'input', selector: '#pw', input_type: 'password', ts: 5 },
    { type: 'input', selector: '#nofield', input_type: 'text', ts: 6 },
    { type: 'click', selector: '#greet', ts: 7 },
    { type: 'keypress', selector: '#first', text: 'Enter', ts: 8 },
  ]);
  assert.equal(passHeld([{ kind: 'action', data: { type: 'click', selector: '#greet', ts: 7 } }], settings()).length, 0);
});
