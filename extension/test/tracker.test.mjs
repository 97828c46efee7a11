import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tracker, WINDOW_NONE, trackable, primaryFrame } from '../sw/tracker.js';

const web = (id, windowId = 1, extra = {}) => ({ id, windowId, active: true, url: `https://site.test/${id}`, title: `t${id}`, ...extra });

test('trackable pages are web pages and files', () => {
  for (const u of ['https://a.test/', 'http://a.test', 'file:///tmp/x.html', 'HTTPS://A.TEST']) assert.equal(trackable(u), true, u);
  for (const u of ['chrome://newtab/', 'chrome-extension://abc/popup.html', 'about:blank', 'devtools://x', '', undefined]) {
    assert.equal(trackable(u), false, String(u));
  }
});

test('primaryFrame: only a tab main document that is not prerendered or fenced', () => {
  assert.equal(primaryFrame({ tabId: 1, frameId: 0 }), true);
  assert.equal(primaryFrame({ tabId: 1, frameId: 3 }), false);
  assert.equal(primaryFrame({ tabId: -1, frameId: 0 }), false);
  assert.equal(primaryFrame({ tabId: 1, frameId: 0, frameType: 'fenced_frame' }), false);
  assert.equal(primaryFrame({ tabId: 1, frameId: 0, documentLifecycle: 'prerender' }), false);
});

test('a page is reported once per tab, URL and title, and only from the focused window', () => {
  const t = new Tracker();
  assert.deepEqual(t.report(web(5), 10), { tab: 5, url: 'https://site.test/5', title: 't5', active: true, ts: 10 });
  assert.equal(t.report(web(5), 11), null, 'unchanged');
  assert.ok(t.report(web(5, 1, { title: 'new' }), 12), 'title changed');
  assert.equal(t.report(web(6, 1, { active: false }), 13), null, 'not active');
  assert.equal(t.report(web(7, 1, { url: 'chrome://newtab/' }), 14), null, 'not a web page');
  t.focused(2);
  assert.equal(t.report(web(8, 1), 15), null, 'another window has the focus');
  assert.ok(t.report(web(8, 2), 16));
  assert.equal(t.page.tab, 8);
});

test('tab 0: the active web page, else the tab that last sent events', () => {
  const t = new Tracker();
  assert.equal(t.choose(undefined), -1);
  t.heardFrom(3, 'https://site.test/3');
  assert.equal(t.choose({ id: 9, url: 'chrome://newtab/' }), 3);
  assert.equal(t.fallback, true);
  assert.equal(t.cached(), 3);
  t.heardFrom(4, 'https://site.test/4'); // a newer sender: the fallback is asked again
  assert.equal(t.cached(), -1);
  assert.equal(t.choose({ id: 9, url: 'https://site.test/9' }), 9);
  assert.equal(t.fallback, false);
  assert.equal(t.cached(), 9);
  t.heardFrom(4, 'https://site.test/4');
  t.heardFrom(5, 'https://site.test/5');
  assert.equal(t.cached(), 9, 'events from other tabs do not move an active tab');
  t.heardFrom(6, 'chrome-extension://x/popup.html');
  assert.equal(t.lastEventTab, 5, 'a page the extension cannot read never becomes the fallback');
});

test('focus and activation make tab 0 be asked again; focus leaving the browser does not', () => {
  const t = new Tracker();
  t.choose({ id: 9, url: 'https://site.test/9' });
  assert.equal(t.focused(WINDOW_NONE), false);
  assert.equal(t.cached(), 9);
  assert.equal(t.focused(4), true);
  assert.equal(t.cached(), -1);
  assert.deepEqual(t.activeQuery(), { active: true, windowId: 4 });
  t.choose({ id: 9, url: 'https://site.test/9' });
  t.activated();
  assert.equal(t.cached(), -1);
});

test('closing the focused window forgets it; closing another changes nothing', () => {
  const t = new Tracker();
  t.focused(4);
  t.choose({ id: 9, url: 'https://site.test/9' });
  assert.equal(t.windowRemoved(5), false);
  assert.equal(t.cached(), 9);
  assert.equal(t.windowRemoved(4), true);
  assert.equal(t.cached(), -1);
  assert.deepEqual(t.activeQuery(), { active: true, lastFocusedWindow: true });
});

test('navigation: the tracked tab leaving the web, and a fallback on any URL change', () => {
  const t = new Tracker();
  t.choose({ id: 9, url: 'https://site.test/9' });
  assert.equal(t.updated(9, { url: 'https://site.test/other' }), true);
  assert.equal(t.cached(), 9);
  t.updated(9, { url: 'chrome://settings/' });
  assert.equal(t.cached(), -1);
  t.heardFrom(3, 'https://site.test/3');
  t.choose(undefined);
  assert.equal(t.cached(), 3);
  t.updated(12, { url: 'https://site.test/12' }); // another tab navigated: it may be the better answer now
  assert.equal(t.cached(), -1);
  assert.equal(t.updated(12, { status: 'loading' }), false, 'loading is not worth a report');
});

test('a tab document: navigating until ready, waiters woken once', () => {
  const t = new Tracker();
  let woken = 0;
  t.navigating(2, 'https://site.test/next');
  const s = t.state(2);
  assert.equal(s.navigating, true);
  s.waiters.add(() => woken++);
  t.navigationFailed(2, 'https://site.test/older'); // superseded: nothing happens
  assert.equal(s.navigating, true);
  assert.equal(woken, 0);
  t.ready(2, 'https://site.test/prev'); // the page being left, before the next one commits
  assert.equal(s.navigating, true, "the old document's ready ends nothing");
  assert.equal(woken, 0);
  t.updated(2, { status: 'loading' }); // the commit
  t.ready(2, 'https://site.test/next');
  assert.equal(s.navigating, false);
  assert.equal(woken, 1);
  assert.equal(s.gen, 1);
  t.ready(2, 'https://site.test/next');
  assert.equal(woken, 1, 'a waiter runs once');
  t.navigating(2, 'https://site.test/204');
  t.navigationFailed(2, 'https://site.test/204');
  assert.equal(s.navigating, false);
  t.updated(2, { status: 'loading' });
  assert.equal(s.navigating, true);
  t.updated(2, { status: 'complete' });
  assert.equal(s.navigating, false);
  assert.equal(s.gen, 4); // two readies, the failed navigation, the load completing
  // A navigation whose commit went unseen (its 'loading' missed, its failure reported under a
  // redirected URL): the load completing ends it, and the next document's 'ready' counts again.
  t.navigating(2, 'https://site.test/redirects');
  t.navigationFailed(2, 'https://site.test/elsewhere');
  t.updated(2, { status: 'complete' });
  t.ready(2, 'https://site.test/elsewhere');
  assert.equal(s.gen, 6, "a ready after the load counts");
});

test('a closed tab wakes its waiters and is forgotten; a replaced one hands over', () => {
  const t = new Tracker();
  let woken = 0;
  t.heardFrom(2, 'https://site.test/2');
  t.choose(undefined);
  t.state(2).waiters.add(() => woken++);
  t.removed(2);
  assert.equal(woken, 1);
  assert.equal(t.tabs.has(2), false);
  assert.equal(t.cached(), -1);
  assert.equal(t.lastEventTab, -1);
  t.heardFrom(3, 'https://site.test/3');
  t.choose(undefined);
  t.replaced(4, 3); // prerendered tab 4 replaces 3
  assert.equal(t.lastEventTab, 4);
  assert.equal(t.cached(), -1);
});

test("a window the AI's own tab opened in gives the focus back to the human's window", () => {
  const t = new Tracker();
  t.focused(1); // the human's window
  t.focused(9); // the AI session's new window took the focus before the worker knew it was the AI's
  assert.deepEqual(t.activeQuery(), { active: true, windowId: 9 });
  assert.equal(t.notHumans(9), true);
  assert.deepEqual(t.activeQuery(), { active: true, windowId: 1 }, "the human's window is the focused one again");
  assert.equal(t.notHumans(9), false, 'nothing to undo twice');
  t.focused(WINDOW_NONE);
  assert.deepEqual(t.activeQuery(), { active: true, windowId: 1 });
});
