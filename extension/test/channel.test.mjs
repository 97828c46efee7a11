import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Channel } from '../sw/channel.js';
import { FakeClock } from './fake-clock.mjs';

// The worker's channel to the server (sw/channel.js) with a fake socket, a fake server behind link's
// request, fake settings and pilot switch and a fake clock: its states are the socket's (connecting,
// open, down and redialling) and the settings poll's.

const answer = (body, status = 200) => ({ ok: status < 300, status, json: async () => body });

function harness() {
  const clock = new FakeClock();
  const sockets = [];
  class FakeSocket {
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.sent = [];
      sockets.push(this);
    }

    send(s) {
      if (this.readyState !== 1) throw new Error('not open');
      this.sent.push(s);
    }

    close() { this.readyState = 3; }
  }
  const h = {
    clock,
    sockets,
    requests: [], // paths asked of the server
    posts: [], // [path, body] posted
    connected: [], // setConnected's calls
    queries: [],
    pushed: [],
    applied: [],
    gen: 0,
    url: 'http://127.0.0.1:7890',
    pilotOn: false,
    origins: [], // the human's source map origins
    page: null, // the tracked page
    server: { '/settings': () => answer({ connected: true }), '/pending-queries': () => answer({ queries: [] }) },
  };
  let readyPilot;
  h.pilotReady = new Promise((r) => { readyPilot = r; });
  h.readPilot = (on) => { h.pilotOn = on; readyPilot(); };
  h.channel = new Channel({
    WebSocket: FakeSocket,
    version: '9.9.9',
    clock,
    settings: {
      serverURL: () => h.url, generation: () => h.gen, applyServer: async (b) => { h.applied.push(b); }, sourcemapOrigins: () => h.origins,
    },
    trackedPage: () => h.page,
    link: {
      request: async (path) => {
        h.requests.push(path);
        return h.server[path.split('?')[0]]();
      },
      postJSON: async (path, body) => { h.posts.push([path, JSON.parse(body)]); return answer({}); },
      setConnected: (ok, err) => h.connected.push(ok ? [true] : [false, err]),
      failure: (err) => err.message,
    },
    pilot: { on: () => h.pilotOn, ready: () => h.pilotReady },
    onQuery: (q) => h.queries.push(q),
    onSettings: (m) => h.pushed.push(m),
  });
  h.open = (s) => { s.readyState = 1; s.onopen(); };
  h.close = (s) => { s.readyState = 3; s.onclose(); };
  h.frame = (s, m) => s.onmessage({ data: typeof m === 'string' ? m : JSON.stringify(m) });
  h.sent = (s) => s.sent.map((f) => (f.startsWith('{') ? JSON.parse(f) : f));
  h.asked = (path) => h.requests.filter((p) => p.startsWith(path)).length;
  return h;
}

test('an opened socket says hello once the pilot switch is read, and asks for the settings', async () => {
  const h = harness();
  h.channel.start();
  assert.equal(h.sockets.length, 1);
  assert.equal(h.sockets[0].url, 'ws://127.0.0.1:7890/ws/extension');
  assert.equal(h.channel.mode(), 'polling', 'connecting is not open');
  h.open(h.sockets[0]);
  assert.equal(h.channel.mode(), 'websocket');
  await h.clock.settle();
  assert.deepEqual(h.sent(h.sockets[0]), [], 'no hello before the switch is read from storage');
  assert.deepEqual(h.requests, ['/settings?pilot=false&sourcemap_origins='], 'asks what is in force on open');
  assert.deepEqual(h.applied, [{ connected: true }]);
  assert.deepEqual(h.connected, [[true]]);
  h.readPilot(true);
  await h.clock.settle();
  assert.deepEqual(h.sent(h.sockets[0]), [{ type: 'hello', version: '9.9.9', pilot: true, sourcemap_origins: [] }], 'no page: none tracked');
  assert.equal(h.asked('/pending-queries'), 0, 'no query polling while the socket is up');
});

test('while the socket is down, queries are polled every second and it is redialled with a growing backoff', async () => {
  const h = harness();
  h.server['/pending-queries'] = () => answer({ queries: [{ id: 'q1' }] });
  h.channel.start();
  h.close(h.sockets[0]); // refused before it opened
  assert.equal(h.channel.mode(), 'polling');
  await h.clock.advance(0);
  assert.equal(h.asked('/pending-queries'), 1);
  assert.deepEqual(h.queries, [{ id: 'q1' }]);
  await h.clock.advance(99);
  assert.equal(h.sockets.length, 1);
  await h.clock.advance(1);
  assert.equal(h.sockets.length, 2, 'redialled after 100 ms');
  h.close(h.sockets[1]);
  await h.clock.advance(199);
  assert.equal(h.sockets.length, 2);
  await h.clock.advance(1);
  assert.equal(h.sockets.length, 3, 'then after 200 ms');
  await h.clock.advance(700);
  assert.equal(h.asked('/pending-queries'), 2, 'polled again a second after the last');
  h.server['/pending-queries'] = () => { throw new Error('down'); };
  await h.clock.advance(1000);
  assert.equal(h.asked('/pending-queries'), 3);
  await h.clock.advance(1000);
  assert.equal(h.asked('/pending-queries'), 4, 'a failed poll tries again a second later');
  h.open(h.sockets[2]);
  await h.clock.advance(5000);
  assert.equal(h.asked('/pending-queries'), 4, 'an open socket stops the polling');
});

test('a socket that stayed open 2 s was a success: the backoff starts over; one that closed sooner was not', async () => {
  const h = harness();
  h.readPilot(false);
  h.channel.start();
  for (const wait of [100, 200, 400]) {
    h.close(h.sockets.at(-1));
    await h.clock.advance(wait);
  }
  assert.equal(h.sockets.length, 4);
  h.open(h.sockets[3]);
  await h.clock.advance(1999);
  h.close(h.sockets[3]);
  assert.ok(h.clock.pending().includes(800), 'open 1999 ms: the backoff keeps growing');
  await h.clock.advance(800);
  assert.equal(h.sockets.length, 5);
  h.open(h.sockets[4]);
  await h.clock.advance(2000);
  h.close(h.sockets[4]);
  await h.clock.advance(100);
  assert.equal(h.sockets.length, 6, 'open 2 s: redialled after 100 ms');
});

test('frames: ping is answered, queries and settings handed on, nonsense and an old socket ignored', async () => {
  const h = harness();
  h.readPilot(false);
  h.channel.start();
  const s = h.sockets[0];
  h.open(s);
  await h.clock.settle();
  s.sent.length = 0;
  h.frame(s, { type: 'ping' });
  assert.deepEqual(h.sent(s), [{ type: 'pong' }]);
  h.frame(s, { type: 'query', id: 'a', kind: 'dom' });
  h.frame(s, { type: 'settings', capture_overrides: { log_level: 'all' } });
  h.frame(s, 'not json');
  h.frame(s, 'null');
  h.frame(s, { type: 'unknown' });
  assert.deepEqual(h.queries, [{ type: 'query', id: 'a', kind: 'dom' }]);
  assert.deepEqual(h.pushed, [{ type: 'settings', capture_overrides: { log_level: 'all' } }]);
  h.channel.resetSocket();
  assert.equal(s.readyState, 3, 'the old socket is closed');
  assert.equal(h.sockets.length, 2, 'the new one is dialled at once');
  h.frame(s, { type: 'query', id: 'late', kind: 'dom' });
  h.close(s);
  assert.equal(h.queries.length, 1, 'the old socket is no longer heard');
  assert.equal(h.clock.pending().length, 1, 'nor does its close redial (only the settings poll is due)');
});

test('batches: only once the hello says so, settled by their ack, failed by a close or by 15 s of silence', async () => {
  const h = harness();
  h.readPilot(false);
  h.channel.start();
  const s = h.sockets[0];
  assert.equal(h.channel.sendBatch('/logs', '{}'), null, 'not open');
  h.open(s);
  await h.clock.settle();
  assert.equal(h.channel.sendBatch('/logs', '{}'), null, 'an older server never says it takes batches');
  assert.equal(h.channel.tellHolding(), false);
  h.frame(s, { type: 'hello', batches: true });
  const first = h.channel.sendBatch('/logs', '{"entries":[]}');
  assert.equal(s.sent.at(-1), 'events 1 /logs\n{"entries":[]}');
  h.frame(s, { type: 'ack', id: 7, status: 200 }); // not ours: ignored
  h.frame(s, { type: 'ack', id: 1, status: 200, accepted: 0 });
  assert.deepEqual(await first, { type: 'ack', id: 1, status: 200, accepted: 0 });
  assert.equal(h.channel.tellHolding(), true);
  assert.deepEqual(h.sent(s).at(-1), { type: 'holding' });

  const silent = h.channel.sendBatch('/network', 'x');
  const silentErr = assert.rejects(silent, /no answer to a batch on the socket in 15 s/);
  await h.clock.advance(14_999);
  let settled = false;
  silent.then(() => { settled = true; }, () => { settled = true; });
  await h.clock.settle();
  assert.equal(settled, false);
  await h.clock.advance(1);
  await silentErr;

  const cut = h.channel.sendBatch('/logs', 'y');
  h.close(s);
  await assert.rejects(cut, /the socket closed before the server answered/);
  h.open(h.sockets[0]); // reopening the closed one changes nothing
  await h.clock.advance(100);
  h.open(h.sockets[1]);
  assert.equal(h.channel.sendBatch('/logs', 'z'), null, 'a new socket waits for its own hello');
});

test('answers and pilot flips go on the socket while it is open, else by HTTP', async () => {
  const h = harness();
  h.readPilot(true);
  h.channel.start();
  const result = { type: 'result', id: 'q', tab: 3, result: { ok: 1 } };
  h.channel.sendResult(result);
  assert.deepEqual(h.posts, [['/query-results', { results: [result] }]]);
  h.channel.tellPilot(true);
  await h.clock.settle();
  assert.deepEqual(h.requests, ['/settings?pilot=true&sourcemap_origins='], 'a flip while down is an immediate poll');
  const s = h.sockets[0];
  h.open(s);
  await h.clock.settle();
  s.sent.length = 0;
  h.channel.sendResult(result);
  h.channel.tellPilot(false);
  assert.deepEqual(h.sent(s), [result, { type: 'pilot', pilot: false }]);
  assert.equal(h.posts.length, 1);
});

test('the settings poll: every 5 s, once more at once when asked during one, kept on failure, skipped after a local change', async () => {
  const h = harness();
  h.readPilot(false);
  let release;
  h.server['/settings'] = () => new Promise((r) => { release = () => r(answer({ capture_overrides: { ws_mode: 'off' } })); });
  const first = h.channel.pollSettings();
  h.channel.pollSettings();
  h.channel.pollSettings();
  await h.clock.settle();
  assert.equal(h.asked('/settings'), 1, 'one at a time');
  release();
  await first;
  assert.deepEqual(h.applied, [{ capture_overrides: { ws_mode: 'off' } }]);
  await h.clock.advance(0);
  assert.equal(h.asked('/settings'), 2, 'the polls asked meanwhile are one more, at once');
  release();
  await h.clock.settle();
  await h.clock.advance(4999);
  assert.equal(h.asked('/settings'), 2);
  h.gen = 1; // the user changed the server address while this poll was out
  await h.clock.advance(1);
  assert.equal(h.asked('/settings'), 3);
  h.gen = 2;
  release();
  await h.clock.settle();
  assert.equal(h.applied.length, 2, 'an answer from before a local change is not applied');

  h.server['/settings'] = () => answer({}, 503);
  await h.clock.advance(5000);
  assert.deepEqual(h.connected.at(-1), [false, 'POST /settings: HTTP 503']);
  h.server['/settings'] = () => { throw new Error('refused'); };
  await h.clock.advance(5000);
  assert.deepEqual(h.connected.at(-1), [false, 'refused']);
  assert.equal(h.applied.length, 2, 'the last overrides are kept');
  assert.deepEqual(h.clock.pending(), [5000], 'and it polls on');
});

test('the hello carries the tracked page and the human\'s source map origins, and so does every settings poll', async () => {
  const h = harness();
  h.page = { tab: 4, url: 'https://app.example/', title: 'App', active: true, ts: 1 };
  h.origins = ['https://cdn.example.com', 'http://[::1]:8080'];
  h.readPilot(false);
  h.channel.start();
  h.open(h.sockets[0]);
  await h.clock.settle();
  assert.deepEqual(h.sent(h.sockets[0]), [{
    type: 'hello', version: '9.9.9', pilot: false,
    page: { tab: 4, url: 'https://app.example/', title: 'App', active: true, ts: 1 },
    sourcemap_origins: ['https://cdn.example.com', 'http://[::1]:8080'],
  }], 'a new server (a takeover) learns the page and the origins at once');
  assert.deepEqual(h.requests, [`/settings?pilot=false&sourcemap_origins=${encodeURIComponent('https://cdn.example.com http://[::1]:8080')}`]);
});

test('changed source map origins are a frame on the open socket, else an immediate poll that carries them', async () => {
  const h = harness();
  h.readPilot(false);
  h.channel.start();
  h.origins = ['https://cdn.example.com'];
  h.channel.tellSourcemapOrigins();
  await h.clock.settle();
  assert.deepEqual(h.requests, ['/settings?pilot=false&sourcemap_origins=https%3A%2F%2Fcdn.example.com'], 'down: a poll at once');
  const s = h.sockets[0];
  h.open(s);
  await h.clock.settle();
  s.sent.length = 0;
  const polls = h.asked('/settings');
  h.origins = ['https://cdn.example.com', 'https://maps.example.com'];
  h.channel.tellSourcemapOrigins();
  await h.clock.settle();
  assert.deepEqual(h.sent(s), [{ type: 'sourcemap_origins', sourcemap_origins: ['https://cdn.example.com', 'https://maps.example.com'] }]);
  assert.equal(h.asked('/settings'), polls, 'open: no poll');
});

test('a page that left is a page_left frame while the socket is open; false (the caller POSTs) while it is not', async () => {
  const h = harness();
  h.readPilot(false);
  h.channel.start();
  const left = { tab: 7, reason: 'reload', ts: 1700000000123 };
  assert.equal(h.channel.tellPageLeft(left), false, 'connecting');
  const s = h.sockets[0];
  h.open(s);
  await h.clock.settle();
  s.sent.length = 0;
  assert.equal(h.channel.tellPageLeft(left), true);
  assert.deepEqual(h.sent(s), [{ type: 'page_left', tab: 7, reason: 'reload', ts: 1700000000123 }]);
  h.close(s);
  assert.equal(h.channel.tellPageLeft(left), false, 'closed');
  assert.equal(s.sent.length, 1);
});
