// node --test extension/test/: which URLs are the Gasoline server's own traffic (content/gate.js;
// inject.js applies the same test to the list the content script sends it).
const test = require('node:test');
const assert = require('node:assert/strict');
const gate = require('../content/gate.js');

test('the server is known under every loopback name, at its port', () => {
  assert.deepEqual([...gate.hostsOf('http://127.0.0.1:7890')].sort(),
    ['127.0.0.1:7890', '[::1]:7890', 'localhost:7890']);
  assert.deepEqual([...gate.hostsOf('http://localhost')].sort(),
    ['127.0.0.1:80', '[::1]:80', 'localhost:80']);
  assert.deepEqual([...gate.hostsOf('not a url')], []);
});

test('serverTest matches the server under any loopback name and scheme, and nothing else', () => {
  const isServer = gate.serverTest('http://127.0.0.1:7890');
  for (const url of ['http://127.0.0.1:7890/logs', 'http://localhost:7890/health', 'ws://[::1]:7890/ws']) {
    assert.equal(isServer(url), true, url);
  }
  for (const url of ['http://127.0.0.1:7891/', 'http://example.com:7890/', 'https://localhost/', '/relative', '']) {
    assert.equal(isServer(url), false, url);
  }
});

test('a scheme\'s default port is the one it names none of', () => {
  const onDefault = gate.serverTest('http://localhost');
  assert.equal(onDefault('http://127.0.0.1/x'), true);
  assert.equal(onDefault('http://localhost:80/x'), true);
  assert.equal(onDefault('https://localhost/x'), false); // 443, not the server's 80
  assert.equal(onDefault('wss://127.0.0.1/x'), false);
});

test('the count of what log_level left out passes at every log_level; the calls it counts do not', () => {
  const none = () => false;
  const report = { level: 'debug', kind: 'filtered', message: 'error', filtered: { warn: 2 } };
  for (const log_level of ['error', 'warn', 'all']) {
    assert.deepEqual(gate.pass('log', report, { log_level }, none), { kind: 'log', data: report }, log_level);
  }
  assert.equal(gate.pass('log', { level: 'warn', message: 'w' }, { log_level: 'error' }, none), null);
});

test('a socket\'s lifecycle says when its messages are not captured', () => {
  const none = () => false;
  const open = { event: 'open', id: 'a', url: 'ws://x/' };
  assert.deepEqual(gate.pass('ws', open, { ws_mode: 'lifecycle' }, none), { kind: 'ws', data: { ...open, messages: 'off' } });
  assert.deepEqual(gate.pass('ws', open, { ws_mode: 'messages' }, none), { kind: 'ws', data: open });
  assert.equal(gate.pass('ws', { event: 'message', id: 'a', direction: 'incoming', data: 'x' }, { ws_mode: 'lifecycle' }, none), null);
});
