import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeBrowser, clock, startWorker, makeTabs } from './fake-browser.mjs';
import { FakeClock } from './fake-clock.mjs';

// The worker tells the server when a tab's document goes away (a new one commits in its main frame, or
// the tab closes), so the server closes the gone page's WebSockets with the reason.
test('a new main-frame document, a closed tab and a replaced one are reported as POST /page-left', async () => {
  const clk = new FakeClock(1_700_000_005_000);
  const h = await makeTabs({ clock: clk });
  const { tabs } = h;
  tabs.onDocumentCommitted({ tabId: 7, frameId: 0, transitionType: 'reload', timeStamp: 1700000000123.4 });
  tabs.onDocumentCommitted({ tabId: 7, frameId: 0, transitionType: 'link', timeStamp: 1700000001000 });
  tabs.onDocumentCommitted({ tabId: 7, frameId: 3, transitionType: 'auto_subframe', timeStamp: 1700000002000 });
  tabs.onDocumentCommitted({ tabId: 7, frameId: 0, documentLifecycle: 'prerender', transitionType: 'link', timeStamp: 1 });
  tabs.onTabRemoved(7);
  await clk.advance(250);
  tabs.onTabReplaced(8, 6);
  await clk.settle();
  const left = h.posts.filter(([p]) => p === '/page-left').map(([, b]) => b);
  assert.equal(left.length, 4, JSON.stringify(h.posts));
  assert.deepEqual(left[0], { tab: 7, reason: 'reload', ts: 1700000000123 });
  assert.deepEqual(left[1], { tab: 7, reason: 'navigation', ts: 1700000001000 });
  assert.deepEqual(left[2], { tab: 7, reason: 'tab_closed', ts: 1700000005000 }, 'a closed tab: the clock\'s time');
  assert.deepEqual(left[3], { tab: 6, reason: 'navigation', ts: 1700000005250 }, 'a replaced tab: its document is gone');
});

test('while the socket is open the report is a frame on it, not a POST', async () => {
  const h = await makeTabs({ clock: new FakeClock(), socketOpen: true });
  h.tabs.onDocumentCommitted({ tabId: 9, frameId: 0, transitionType: 'typed', timeStamp: 1700000003000 });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(h.frames, [{ tab: 9, reason: 'navigation', ts: 1700000003000 }]);
  assert.deepEqual(h.posts, []);
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
  const { advance } = clock(t);
  const { tabs } = await startWorker();
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
