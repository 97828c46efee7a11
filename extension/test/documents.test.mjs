import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTabs } from './fake-browser.mjs';
import { FakeClock } from './fake-clock.mjs';

// The worker's Documents (sw/documents.js) on a fake chrome.tabs and chrome.scripting: when a document
// is given the content script and seeded with the settings, and how a question reaches the tab's current
// document through navigations, lost parts and tabs the worker never saw load. Each test builds its own.

async function harness(t, opts = {}) {
  const clock = new FakeClock(1_000_000);
  // What the fakes do is read from h when they are called: tabURL, tabStatus, answer, injectFails, pageURL.
  const h = { injected: [], seeded: [], sent: [], nav: [], pageURL: 'https://a.test/', injectFails: null, answer: null, tabURL: undefined, tabStatus: undefined };
  const tabs = {
    get: async (id) => {
      if (id === 99) throw new Error('No tab with id: 99.');
      return { id, url: h.tabURL ?? 'https://a.test/', status: h.tabStatus ?? 'complete' };
    },
    sendMessage: async (id, msg, opts) => {
      h.sent.push([id, msg, opts]);
      await new Promise((r) => setImmediate(r)); // a round trip: a question asked again and again still lets timers run
      return typeof h.answer === 'function' ? h.answer(msg) : h.answer;
    },
    reload: async (id) => { h.nav.push(['reload', id]); },
    update: async (id, p) => { h.nav.push(['update', id, p.url]); },
  };
  const scripting = {
    executeScript: async (inj) => {
      if (inj.files) {
        h.injected.push([inj.target, inj.files.length]);
        if (h.injectFails) throw new Error(h.injectFails);
        return [{}];
      }
      // seedContent runs as in the page, against the content script's global.
      globalThis.__gasolineContent = { seed: (answer) => { h.seeded.push([inj.target, answer]); return h.pageURL; } };
      try {
        return [{ result: inj.func(...inj.args) }];
      } finally {
        delete globalThis.__gasolineContent;
      }
    },
  };
  Object.assign(h, await makeTabs({ clock, tabs, scripting, ...opts }), { clock });
  const jobs = [];
  h.job = (ms = 10_000) => {
    const job = { done: false, deadline: clock.now() + ms, cancels: [] };
    jobs.push(job);
    return job;
  };
  h.end = (job) => { job.done = true; for (const c of job.cancels.splice(0)) c(); };
  t.after(() => { for (const job of jobs) h.end(job); }); // what a test left asking ends with it
  return h;
}

// A mutation that leaves a question waiting fails its test here rather than hanging the run.
const T = { timeout: 20_000 };

const doc = (tabId, documentId, extra = {}) => ({ tabId, documentId, frameId: 0, frameType: 'outermost_frame', url: `https://site.test/${tabId}`, ...extra });

test('a committed document gets the content script at its load, or a second after its commit if the load takes longer; once', T, async (t) => {
  const h = await harness(t);
  h.documents.onCommitted(doc(1, 'A'));
  await h.clock.advance(999);
  assert.deepEqual(h.injected, [], 'not before its load');
  h.documents.onCompleted(doc(1, 'A'));
  await h.clock.settle();
  assert.deepEqual(h.injected, [[{ tabId: 1, documentIds: ['A'] }, 10]]);
  await h.clock.advance(5000);
  h.documents.onCompleted(doc(1, 'A'));
  await h.clock.settle();
  assert.equal(h.injected.length, 1, 'the commit\'s timer was cleared, and a document is given once');
  h.documents.onCommitted(doc(2, 'B'));
  await h.clock.advance(999);
  assert.equal(h.injected.length, 1);
  await h.clock.advance(1);
  assert.deepEqual(h.injected[1], [{ tabId: 2, documentIds: ['B'] }, 10], 'a slow load: a second after the commit');
  h.documents.onCommitted(doc(3, 'C', { frameId: 4, frameType: 'sub_frame' }));
  h.documents.onCommitted(doc(3, 'D', { frameType: 'fenced_frame' }));
  h.documents.onCommitted(doc(3, 'E', { url: 'chrome://newtab/' }));
  h.documents.onCompleted(doc(3, 'F', { frameId: 2, frameType: 'sub_frame' }));
  h.documents.onCommitted(doc(3, 'G', { frameId: 7 })); // prerendering: outermost_frame, not yet frame 0
  await h.clock.advance(1000);
  assert.deepEqual(h.injected.slice(2).map(([t]) => t.documentIds[0]), ['G'], 'only top documents the extension reads');
});

test('a document is seeded from its source: the settings in force after the files, and its answer is the tab\'s ready', T, async (t) => {
  const h = await harness(t);
  const s = h.tabs.state(1);
  let woken = 0;
  s.navigating = true;
  s.waiters.add(() => woken++);
  h.seeds.push({ log_level: 'all' });
  h.documents.onCompleted(doc(1, 'A'));
  await h.clock.settle();
  assert.deepEqual(h.seeded, [[{ tabId: 1, documentIds: ['A'] }, { log_level: 'all' }]]);
  assert.equal(woken, 1, 'the document said ready');
  assert.equal(s.navigating, false);
  assert.equal(h.tabs.url(1), 'https://a.test/');
  h.pageURL = ''; // not ready (still parsing, or prerendering)
  s.navigating = true;
  h.documents.onCompleted(doc(1, 'B'));
  await h.clock.settle();
  assert.equal(s.navigating, true, 'no ready from a document that is not');
  h.pageURL = 'https://a.test/';
  h.seeds.push(() => Promise.reject(new Error('settings not loaded')));
  h.documents.onCompleted(doc(1, 'C'));
  await h.clock.settle();
  assert.equal(h.seeded.length, 2, 'a source that fails hands nothing over');
  assert.equal(s.navigating, true);
  h.injectFails = 'Cannot access contents of the page';
  h.documents.onCompleted(doc(1, 'D'));
  await h.clock.settle();
  assert.equal(h.seeded.length, 2, 'no seed when the files did not run');
});

test('back/forward cache, Firefox and a missed load: given again only to a new document or when it says so', T, async (t) => {
  const h = await harness(t);
  h.documents.onCompleted(doc(1, 'A'));
  await h.clock.settle();
  h.documents.onCommitted(doc(1, 'A')); // back from the cache
  await h.clock.advance(2000);
  assert.equal(h.injected.length, 1);
  const ff = { tabId: 5, frameId: 0, url: 'https://ff.test/' }; // Firefox: no documentId, no frameType
  h.documents.onCompleted(ff);
  await h.clock.settle();
  h.documents.onCommitted(ff); // the tab's next document
  await h.clock.advance(1000);
  assert.deepEqual(h.injected.slice(1).map(([t]) => t), [{ tabId: 5, frameIds: [0] }, { tabId: 5, frameIds: [0] }]);
  h.documents.runMissed({ tab: { id: 1 }, documentId: 'A', url: 'https://site.test/1' });
  h.documents.runMissed({ tab: { id: 1 }, documentId: 'Z', url: 'about:blank' });
  await h.clock.settle();
  assert.deepEqual(h.injected.slice(3).map(([t]) => t), [{ tabId: 1, documentIds: ['A'] }], 'start.js said the rest never came');
});

test('the documents remembered as given are bounded: the oldest is forgotten', T, async (t) => {
  const h = await harness(t);
  for (let i = 0; i <= 500; i++) h.documents.onCompleted(doc(1, `D${i}`));
  await h.clock.settle();
  assert.equal(h.documents.given.size, 500);
  h.documents.onCompleted(doc(1, 'D1'));
  h.documents.onCompleted(doc(1, 'D0'));
  await h.clock.settle();
  assert.equal(h.injected.length, 502, 'D0 was forgotten, D1 was not');
});

test('a question waits while the tab navigates and goes to the new document; one answered by the page being left is asked again', T, async (t) => {
  const h = await harness(t);
  h.tabs.state(4);
  h.tabs.markNavigating(4, 'https://next.test/');
  h.answer = { result: { n: 1 } };
  const job = h.job();
  const out = h.documents.askContent(4, { id: 'q', kind: 'dom', params: { selector: 'p' } }, job);
  await h.clock.settle();
  assert.deepEqual(h.sent, [], 'not while navigating');
  h.tabs.onUpdated(4, { status: 'loading' }, { id: 4 });
  h.tabs.documentReady(4, 'https://next.test/');
  assert.deepEqual(await out, { result: { n: 1 } });
  assert.deepEqual(h.sent, [[4, { type: 'query', id: 'q', kind: 'dom', params: { selector: 'p' }, deadline: job.deadline }, { frameId: 0 }]]);
  let n = 0;
  h.answer = () => {
    if (++n === 1) h.tabs.onBeforeNavigate({ tabId: 4, frameId: 0, url: 'https://third.test/' }); // while it answers
    return { result: { n } };
  };
  const again = h.documents.askContent(4, { id: 'r', kind: 'dom', params: {} }, h.job());
  await h.clock.settle();
  h.tabs.onUpdated(4, { status: 'loading' }, { id: 4 });
  h.tabs.documentReady(4, 'https://third.test/');
  assert.deepEqual(await again, { result: { n: 2 } }, 'the next document answers');
});

test('a document gone under a question: the next one is asked once ready; a closed tab, no access and the deadline end it', T, async (t) => {
  const h = await harness(t);
  h.tabs.state(4);
  let n = 0;
  h.answer = () => (++n === 1 ? Promise.reject(new Error('A listener indicated an asynchronous response by returning true, but the message channel closed')) : { result: 'next' });
  const out = h.documents.askContent(4, { id: 'q', kind: 'dom' }, h.job());
  await h.clock.settle();
  assert.equal(h.sent.length, 1, 'waits for the next document');
  h.tabs.documentReady(4, 'https://b.test/');
  assert.deepEqual(await out, { result: 'next' });
  h.answer = () => Promise.reject(new Error('The message port closed before a response was received.'));
  const closed = h.documents.askContent(4, { id: 'c', kind: 'dom' }, h.job());
  await h.clock.settle();
  h.tabs.onTabRemoved(4);
  await assert.rejects(closed, (e) => e.code === 'not_found' && e.message === 'tab 4 was closed');
  h.tabs.state(6);
  h.answer = () => Promise.reject(new Error('Cannot access contents of url "chrome://x". Extension manifest must request permission'));
  await assert.rejects(h.documents.askContent(6, { id: 'n', kind: 'dom' }, h.job()), (e) => e.code === 'not_found' && /^tab 6 cannot be read/.test(e.message));
  h.answer = () => Promise.reject(new Error('something else broke'));
  await assert.rejects(h.documents.askContent(6, { id: 'i', kind: 'dom' }, h.job()), (e) => e.code === 'internal' && e.message === 'something else broke');
  h.answer = 'yes';
  await assert.rejects(h.documents.askContent(6, { id: 'i', kind: 'dom' }, h.job()), (e) => e.code === 'internal' && /did not answer/.test(e.message));
  h.tabs.markNavigating(6, 'https://never.test/');
  const job = h.job();
  const late = h.documents.askContent(6, { id: 'd', kind: 'dom' }, job);
  await h.clock.settle();
  h.end(job);
  await assert.rejects(late, (e) => e.code === 'timeout');
  assert.equal(h.tabs.state(6).waiters.size, 0, 'the deadline took its waiter away');
});

test('content.js without its parts: the content script is given again, once per wake-up, and its ready asks again', T, async (t) => {
  const h = await harness(t);
  h.tabs.state(4);
  let n = 0;
  h.answer = () => (++n <= 2 ? undefined : { result: 'parts' });
  const out = h.documents.askContent(4, { id: 'q', kind: 'dom' }, h.job());
  assert.deepEqual(await out, { result: 'parts' }, 'the seed\'s ready woke the question');
  assert.deepEqual(h.injected, [[{ tabId: 4, frameIds: [0] }, 10], [{ tabId: 4, frameIds: [0] }, 10]]);
  h.answer = undefined;
  h.injectFails = 'Frame with ID 0 was removed';
  const job = h.job();
  const stuck = h.documents.askContent(4, { id: 'r', kind: 'dom' }, job);
  await h.clock.settle();
  const job2 = h.job();
  const stuck2 = h.documents.askContent(4, { id: 's', kind: 'dom' }, job2);
  await h.clock.settle();
  assert.equal(h.injected.length, 3, 'given once per wake-up, however many questions wait');
  h.end(job);
  h.end(job2);
  await assert.rejects(stuck, (e) => e.code === 'timeout');
  await assert.rejects(stuck2, (e) => e.code === 'timeout');
});

test('a tab the worker never saw load (no receiver, not navigating) is adopted; one it may not read is not_found', T, async (t) => {
  const h = await harness(t);
  h.tabs.state(4);
  let n = 0;
  h.answer = () => (++n === 1 ? Promise.reject(new Error('Could not establish connection. Receiving end does not exist.')) : { result: 'adopted' });
  assert.deepEqual(await h.documents.askContent(4, { id: 'q', kind: 'dom' }, h.job()), { result: 'adopted' });
  assert.deepEqual(h.injected, [[{ tabId: 4, frameIds: [0] }, 10]]);
  h.tabs.state(5);
  h.tabURL = 'chrome://settings/';
  h.answer = () => Promise.reject(new Error('Receiving end does not exist.'));
  await assert.rejects(h.documents.askContent(5, { id: 'c', kind: 'dom' }, h.job()),
    (e) => e.code === 'not_found' && e.message === 'tab 5 shows chrome://settings/ which the extension cannot read');
  h.tabURL = 'https://a.test/';
  h.injectFails = 'Cannot access contents of the page';
  await assert.rejects(h.documents.askContent(5, { id: 'd', kind: 'dom' }, h.job()), (e) => e.code === 'not_found' && /^tab 5 cannot be read/.test(e.message));
  h.injectFails = null;
  h.tabURL = undefined;
  h.tabStatus = 'loading';
  const job = h.job();
  const wait = h.documents.askContent(7, { id: 'l', kind: 'dom' }, job);
  await h.clock.settle();
  assert.equal(h.tabs.state(7).navigating, true, 'a tab still loading: waits for its document');
  h.end(job);
  await assert.rejects(wait, (e) => e.code === 'timeout');
  h.tabs.state(99);
  await assert.rejects(h.documents.askContent(99, { id: 'g', kind: 'dom' }, h.job()), (e) => e.code === 'not_found' && e.message === 'no tab with id 99');
});

test('navigateTab marks the tab navigating (not for a same-document hash), reloads the same URL; settled waits it out, or ends when the tab closes', T, async (t) => {
  const h = await harness(t);
  h.tabs.state(4);
  await h.documents.navigateTab(4, 'https://a.test/#part');
  assert.equal(h.tabs.state(4).navigating, false, 'a hash in the same document');
  await h.documents.navigateTab(4, 'https://a.test/');
  assert.equal(h.tabs.state(4).navigating, true);
  await h.documents.navigateTab(4, 'https://b.test/');
  assert.deepEqual(h.nav, [['update', 4, 'https://a.test/#part'], ['reload', 4], ['update', 4, 'https://b.test/']]);
  let done = false;
  const wait = h.documents.settled(4, h.job()).then(() => { done = true; });
  await h.clock.settle();
  assert.equal(done, false);
  h.tabs.onUpdated(4, { status: 'complete' }, { id: 4 });
  await wait;
  h.tabs.markNavigating(4, 'https://c.test/');
  const job = h.job();
  const closing = h.documents.settled(4, job);
  await h.clock.settle();
  h.tabs.onTabRemoved(4); // a tab closed mid-navigation: the wait ends at once, not at the deadline
  await assert.rejects(closing, (e) => e.code === 'not_found' && e.message === 'tab 4 was closed');
  assert.equal(job.done, false);

});

test('a wake-up missed: a committed navigation whose tab says complete ends the wait within a second; one not committed does not', T, async (t) => {
  const h = await harness(t);
  h.tabs.state(4);
  h.tabs.markNavigating(4, 'https://next.test/');
  h.answer = { result: 'here' };
  h.tabStatus = 'complete'; // Chromium: the old page is still shown until the commit
  const waiting = h.documents.askContent(4, { id: 'q', kind: 'dom' }, h.job());
  await h.clock.advance(3000);
  assert.deepEqual(h.sent, [], 'not committed: still the page being left');
  h.tabStatus = 'loading';
  h.tabs.onUpdated(4, { status: 'loading' }, { id: 4 }); // committed; its 'complete' and ready never come
  await h.clock.advance(1000);
  assert.deepEqual(h.sent, [], 'loading: still waiting');
  h.tabStatus = 'complete';
  await h.clock.advance(1000);
  assert.deepEqual(await waiting, { result: 'here' }, 'the tab says complete: asked');
});

test('Firefox: a tab that says complete ends any navigation a missed event left open', T, async (t) => {
  const h = await harness(t, { loadingFromStart: true });
  h.tabs.state(4);
  h.tabs.onUpdated(4, { status: 'complete' }, { id: 4 });
  h.tabs.markNavigating(4, 'https://next.test/'); // its start heard after its end
  h.answer = { result: 'here' };
  h.tabStatus = 'loading';
  const waiting = h.documents.askContent(4, { id: 'q', kind: 'dom' }, h.job());
  await h.clock.advance(2000);
  assert.deepEqual(h.sent, [], 'loading: waiting');
  h.tabStatus = 'complete';
  await h.clock.advance(1000);
  assert.deepEqual(await waiting, { result: 'here' });
});

test('the parts only storage and styles need run when asked, in the document asked, before the question', T, async (t) => {
  const h = await harness(t);
  h.answer = () => ({ result: {} });
  await h.documents.askContent(4, { id: 's', kind: 'storage', params: {} }, h.job());
  await h.documents.askContent(4, { id: 'c', kind: 'styles', params: {} }, h.job());
  await h.documents.askContent(4, { id: 'd', kind: 'dom', params: {} }, h.job());
  assert.deepEqual(h.injected, [[{ tabId: 4, frameIds: [0] }, 2], [{ tabId: 4, frameIds: [0] }, 1]], 'storage\'s two files, styles\' one, none for dom');
  assert.deepEqual(h.sent.map(([, m]) => m.kind), ['storage', 'styles', 'dom']);
});
