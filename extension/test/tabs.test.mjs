import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTabs } from './fake-browser.mjs';
import { FakeClock } from './fake-clock.mjs';
import { mainFrameTab } from '../sw/tabs.js';

// The worker's Tabs (sw/tabs.js) on a fake chrome.tabs and chrome.windows: which tab "tab 0" means, the
// page reported to the server, and a tab's document waking what waits for it. Each test builds its own.

/** A browser of windows and tabs: tabs.get, tabs.query({active, windowId|lastFocusedWindow}), windows.getLastFocused. */
function browser() {
  const b = { open: new Map(), focused: 1, queries: [] };
  b.add = (id, windowId, url, extra = {}) => { b.open.set(id, { id, windowId, url, title: `t${id}`, active: false, status: 'complete', ...extra }); };
  b.activate = (id) => {
    const t = b.open.get(id);
    for (const o of b.open.values()) if (o.windowId === t.windowId) o.active = o.id === id;
  };
  b.tabs = {
    get: async (id) => {
      const t = b.open.get(id);
      if (!t) throw new Error(`No tab with id: ${id}.`);
      return { ...t };
    },
    query: async (q) => {
      b.queries.push(q);
      const win = q.lastFocusedWindow ? b.focused : q.windowId;
      return [...b.open.values()].filter((t) => t.active && (win === undefined || t.windowId === win)).map((t) => ({ ...t }));
    },
  };
  b.windows = { getLastFocused: async () => ({ id: b.focused, focused: true }) };
  return b;
}

async function harness() {
  const clock = new FakeClock(1_700_000_000_000);
  const b = browser();
  const h = await makeTabs({ clock, tabs: b.tabs, windows: b.windows });
  return Object.assign(h, { b, clock });
}

test('tab 0 is the focused window\'s active web page, asked once and then cached until a tab or window event', async () => {
  const h = await harness();
  h.b.add(3, 1, 'https://a.test/');
  h.b.add(4, 1, 'https://b.test/');
  h.b.add(5, 2, 'https://c.test/');
  h.b.activate(3);
  h.b.activate(5);
  assert.equal(await h.tabs.resolveTab(0), 3);
  assert.equal(await h.tabs.resolveTab(undefined), 3);
  assert.equal(h.b.queries.length, 1, 'cached');
  h.b.activate(4);
  h.tabs.onActivated({ tabId: 4, windowId: 1 });
  assert.equal(await h.tabs.resolveTab(0), 4, 'another tab activated: asked again');
  h.b.focused = 2;
  h.tabs.onFocusChanged(2);
  assert.equal(await h.tabs.resolveTab(null), 5, 'another window focused');
  assert.deepEqual(h.b.queries.at(-1), { active: true, windowId: 2 });
  assert.equal(h.tabs.url(5), 'https://c.test/');
});

test('tab 0 falls back to the tab that last sent events when the active one is no web page; none is not_found', async () => {
  const h = await harness();
  h.b.add(3, 1, 'chrome://newtab/');
  h.b.activate(3);
  await assert.rejects(h.tabs.resolveTab(0), (e) => e.code === 'not_found' && /no tab to query/.test(e.message));
  h.tabs.heardFrom({ tab: { id: 8, url: 'https://sender.test/' }, frameId: 0 });
  assert.equal(await h.tabs.resolveTab(0), 8);
  h.tabs.heardFrom({ tab: { id: -1 }, url: 'https://x.test/' }); // not a tab: ignored
  h.tabs.heardFrom({ tab: { id: 9, url: 'https://other.test/' }, frameId: 0 });
  assert.equal(await h.tabs.resolveTab(0), 9, 'a newer sender replaces the fallback');
});

test('an AI session\'s window is never the human\'s, even when the browser says it has the focus (Firefox)', async () => {
  const h = await harness();
  h.b.add(3, 1, 'https://human.test/');
  h.b.activate(3);
  assert.equal(await h.tabs.resolveTab(0), 3);
  // new_tab's window: Firefox focuses it and says so, before and after the worker knows it is the AI's.
  h.b.add(7, 2, 'https://agent.test/');
  h.b.activate(7);
  h.b.focused = 2;
  h.tabs.onFocusChanged(2);
  h.tabs.aiWindow(2);
  assert.equal(await h.tabs.resolveTab(0), 3, 'the human\'s tab, not the AI\'s');
  h.tabs.onActivated({ tabId: 7, windowId: 2 });
  assert.equal(await h.tabs.resolveTab(0), 3);
});

test('a tab asked by id: known, asked of chrome (its navigation noted), or not_found; nonsense is invalid_param', async () => {
  const h = await harness();
  h.b.add(12, 1, 'https://late.test/', { status: 'loading' });
  assert.equal(await h.tabs.resolveTab(12), 12);
  assert.equal(h.tabs.open(12), true);
  assert.equal(h.tabs.state(12).navigating, true, 'a loading tab: queries wait for its document');
  assert.equal(h.tabs.url(12), 'https://late.test/');
  await assert.rejects(h.tabs.resolveTab(13), (e) => e.code === 'not_found' && e.message === 'no tab with id 13');
  assert.equal(h.tabs.open(13), false);
  for (const bad of [-1, 1.5, '3']) {
    await assert.rejects(h.tabs.resolveTab(bad), (e) => e.code === 'invalid_param' && e.message === `tab_id must be a tab id or 0, not ${JSON.stringify(bad)}`);
  }
});

test('a closed tab is forgotten: tab 0 asked again, its waiters woken, and its page reported left at the clock\'s time', async () => {
  const h = await harness();
  h.b.add(3, 1, 'https://a.test/');
  h.b.activate(3);
  assert.equal(await h.tabs.resolveTab(0), 3);
  let woken = 0;
  h.tabs.state(3).waiters.add(() => woken++);
  h.b.open.delete(3);
  await h.clock.advance(40);
  h.tabs.onTabRemoved(3);
  await h.clock.settle();
  assert.equal(woken, 1);
  assert.equal(h.tabs.open(3), false);
  await assert.rejects(h.tabs.resolveTab(0), (e) => e.code === 'not_found', 'no cached tab 0 left');
  assert.deepEqual(h.posts, [['/page-left', { tab: 3, reason: 'tab_closed', ts: 1_700_000_000_040 }]]);
});

test('a replaced tab (prerender or instant): the new one takes its place as the events\' tab', async () => {
  const h = await harness();
  h.tabs.heardFrom({ tab: { id: 6, url: 'https://old.test/' }, frameId: 0 });
  h.tabs.state(6);
  h.tabs.onTabReplaced(16, 6);
  await h.clock.settle();
  assert.equal(h.tabs.open(6), false);
  assert.equal(await h.tabs.resolveTab(0), 16, 'the fallback moved to the tab that replaced it');
  assert.deepEqual(h.posts, [['/page-left', { tab: 6, reason: 'navigation', ts: 1_700_000_000_000 }]]);
});

test('the page: reported once per tab, URL and title, saved for the next worker, and the link marked up', async () => {
  const h = await harness();
  h.b.add(3, 1, 'https://a.test/');
  h.b.activate(3);
  h.tabs.onActivated({ tabId: 3, windowId: 1 });
  await h.clock.settle();
  const page = { tab: 3, url: 'https://a.test/', title: 't3', active: true, ts: 1_700_000_000_000 };
  assert.deepEqual(h.posts, [['/page', page]]);
  assert.deepEqual(h.saved, [['gasoline_page', page]]);
  assert.deepEqual(h.connected, [[true]], 'the server answered');
  assert.deepEqual(h.tabs.trackedPage(), page);
  h.tabs.onUpdated(3, { status: 'complete' }, { ...h.b.open.get(3) });
  await h.clock.settle();
  assert.equal(h.posts.length, 1, 'the same page is not reported again');
  h.tabs.onUpdated(3, { title: 'new' }, { ...h.b.open.get(3), title: 'new' });
  h.tabs.onUpdated(3, { favIconUrl: 'x' }, { ...h.b.open.get(3), title: 'other' });
  await h.clock.settle();
  assert.deepEqual(h.posts.map(([, p]) => p.title), ['t3', 'new'], 'a change that says nothing of the page reports nothing');
  h.postFails = new Error('Failed to fetch');
  h.tabs.onUpdated(3, { url: 'https://a.test/2' }, { ...h.b.open.get(3), url: 'https://a.test/2' });
  await h.clock.settle();
  assert.deepEqual(h.connected.at(-1), [false, 'Failed to fetch']);
});

test('the page across servers and workers: restored, posted again on reconnect, forgotten for a new server', async () => {
  const h = await harness();
  h.tabs.repostPage();
  await h.clock.settle();
  assert.deepEqual(h.posts, [], 'nothing reported yet');
  const page = { tab: 9, url: 'https://kept.test/', title: 'k', active: true, ts: 5 };
  h.tabs.restorePage({ gasoline_page: 'junk' });
  assert.equal(h.tabs.trackedPage(), null);
  h.tabs.restorePage({ gasoline_page: page });
  h.tabs.repostPage();
  await h.clock.settle();
  assert.deepEqual(h.posts, [['/page', page]]);
  h.tabs.forgetPage();
  h.tabs.repostPage();
  await h.clock.settle();
  assert.equal(h.posts.length, 1);
  assert.equal(h.tabs.trackedPage(), null);
});

test('the focused window closed: the worker asks which window has the focus now and reports its page', async () => {
  const h = await harness();
  h.b.add(3, 1, 'https://a.test/');
  h.b.add(5, 2, 'https://c.test/');
  h.b.activate(3);
  h.b.activate(5);
  h.tabs.onFocusChanged(1);
  await h.clock.settle();
  assert.deepEqual(h.posts.map(([, p]) => p.tab), [3]);
  h.tabs.onWindowRemoved(2);
  await h.clock.settle();
  assert.equal(h.posts.length, 1, 'another window closed: nothing to ask');
  h.b.open.delete(3);
  h.b.focused = 2;
  h.tabs.onWindowRemoved(1);
  await h.clock.settle();
  assert.deepEqual(h.posts.map(([, p]) => p.tab), [3, 5]);
  assert.deepEqual(h.b.queries.at(-1), { active: true, windowId: 2 });
  h.tabs.onFocusChanged(-1);
  await h.clock.settle();
  assert.equal(h.b.queries.length, 2, 'focus leaving the browser asks nothing');
});

test('a navigation: waiters wait for the new document\'s ready, not the old one\'s; a failed one wakes them', async () => {
  const h = await harness();
  const woken = [];
  const s = h.tabs.state(4);
  s.waiters.add(() => woken.push('a'));
  h.tabs.onBeforeNavigate({ tabId: 4, frameId: 0, url: 'https://next.test/' });
  h.tabs.onBeforeNavigate({ tabId: 4, frameId: 2, url: 'https://frame.test/' }); // a subframe: nothing
  assert.equal(s.navigating, true);
  h.tabs.onReady({ tab: { id: 4, url: 'https://old.test/' }, frameId: 0, url: 'https://old.test/' });
  assert.deepEqual(woken, [], 'the page being left said ready');
  h.tabs.onUpdated(4, { status: 'loading' }, { id: 4 });
  h.tabs.onReady({ tab: { id: 4 }, frameId: 3, url: 'https://next.test/frame' });
  h.tabs.onReady({ tab: { id: 4 }, frameId: 0, url: 'https://next.test/', documentLifecycle: 'prerender' });
  assert.deepEqual(woken, [], 'a subframe or a prerendered document is not the tab\'s');
  h.tabs.onReady({ tab: { id: 4, url: 'https://next.test/' }, frameId: 0 });
  assert.deepEqual(woken, ['a']);
  assert.equal(s.navigating, false);
  s.waiters.add(() => woken.push('b'));
  h.tabs.markNavigating(4, 'https://204.test/');
  h.tabs.onNavigationError({ tabId: 4, frameId: 0, url: 'https://elsewhere.test/' });
  assert.deepEqual(woken, ['a'], 'an older navigation failed');
  h.tabs.onNavigationError({ tabId: 4, frameId: 0, url: 'https://204.test/' });
  assert.deepEqual(woken, ['a', 'b']);
  assert.equal(s.navigating, false);
});

test('mainFrameTab: the sending tab only from its main frame', () => {
  assert.equal(mainFrameTab({ tab: { id: 4 }, frameId: 0 }), 4);
  assert.equal(mainFrameTab({ tab: { id: 4 }, frameId: 1 }), -1);
  assert.equal(mainFrameTab({ frameId: 0 }), -1);
  assert.equal(mainFrameTab({ tab: { id: -1 }, frameId: 0 }), -1);
});
