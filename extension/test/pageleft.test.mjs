import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeBrowser, clock, startWorker } from './fake-browser.mjs';
import { Link } from '../sw/link.js';
import { systemClock } from '../sw/clock.js';

const link = () => new Link({ fetch: (u, i) => globalThis.fetch(u, i), clock: systemClock, serverURL: () => 'http://127.0.0.1:7890', save() {} });

// The worker tells the server when a tab's document goes away (a new one commits in its main frame, or
// the tab closes), so the server closes the gone page's WebSockets with the reason.
test('a new main-frame document, a closed tab and a replaced one are reported as POST /page-left', async () => {
  fakeBrowser();
  const posts = [];
  globalThis.fetch = async (url, init) => {
    posts.push({ path: new URL(url).pathname, body: JSON.parse(init.body) });
    return { ok: true, status: 200, json: async () => ({}) };
  };
  const tabs = await import('../sw/tabs.js');
  tabs.wireTabs({ link: link(), save() {}, pageLeft: () => false });
  tabs.onDocumentCommitted({ tabId: 7, frameId: 0, transitionType: 'reload', timeStamp: 1700000000123.4 });
  tabs.onDocumentCommitted({ tabId: 7, frameId: 0, transitionType: 'link', timeStamp: 1700000001000 });
  tabs.onDocumentCommitted({ tabId: 7, frameId: 3, transitionType: 'auto_subframe', timeStamp: 1700000002000 });
  tabs.onDocumentCommitted({ tabId: 7, frameId: 0, documentLifecycle: 'prerender', transitionType: 'link', timeStamp: 1 });
  tabs.onTabRemoved(7);
  tabs.onTabReplaced(8, 6);
  await new Promise((r) => setImmediate(r));
  const left = posts.filter((p) => p.path === '/page-left').map((p) => p.body);
  assert.equal(left.length, 4, JSON.stringify(posts));
  assert.equal(left[3].tab, 6);
  assert.equal(left[3].reason, 'navigation');
  assert.deepEqual(left[0], { tab: 7, reason: 'reload', ts: 1700000000123 });
  assert.deepEqual(left[1], { tab: 7, reason: 'navigation', ts: 1700000001000 });
  assert.equal(left[2].tab, 7);
  assert.equal(left[2].reason, 'tab_closed');
  assert.ok(Math.abs(left[2].ts - Date.now()) < 5000);
});

test('while the socket is open the report is a frame on it, not a POST', async () => {
  fakeBrowser();
  const posts = [];
  globalThis.fetch = async (url, _init) => {
    posts.push(new URL(url).pathname);
    return { ok: true, status: 200, json: async () => ({}) };
  };
  const tabs = await import('../sw/tabs.js');
  const frames = [];
  tabs.wireTabs({ link: link(), save() {}, pageLeft: (m) => { frames.push(m); return true; } });
  tabs.onDocumentCommitted({ tabId: 9, frameId: 0, transitionType: 'typed', timeStamp: 1700000003000 });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(frames, [{ tab: 9, reason: 'navigation', ts: 1700000003000 }]);
  assert.deepEqual(posts.filter((p) => p === '/page-left'), []);
});

test('wired as background.js does: a frame on the channel\'s open socket, a POST while it is down', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_700_000_000_000 });
  const sockets = fakeBrowser();
  const posts = [];
  globalThis.fetch = async (url, init) => {
    const path = new URL(url).pathname;
    if (path === '/page-left') posts.push(JSON.parse(init.body));
    return new Response('{}', { status: 200 });
  };
  const tabs = await import('../sw/tabs.js');
  const { advance } = clock(t);
  await startWorker();
  const sock = sockets.at(-1);
  tabs.onDocumentCommitted({ tabId: 5, frameId: 0, transitionType: 'reload', timeStamp: 1700000000000 });
  await advance(10);
  assert.deepEqual(posts, [{ tab: 5, reason: 'reload', ts: 1700000000000 }], 'connecting: a POST');
  sock.readyState = 1;
  sock.onopen();
  await advance(10);
  tabs.onTabRemoved(5);
  await advance(10);
  assert.equal(posts.length, 1, 'open: no POST');
  const left = sock.sent.map((f) => JSON.parse(f)).filter((m) => m.type === 'page_left');
  assert.deepEqual(left, [{ type: 'page_left', tab: 5, reason: 'tab_closed', ts: 1700000000020 }]);
});
