// node --test extension/test/: content/perf.js's sample of a load carries each request of it as a row
// (the document first, then the resource entries) with its phases, within the server's bounds and with
// what did not fit counted, and INP from the event timing entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';

const require = createRequire(import.meta.url);
const source = readFileSync(new URL('../content/perf.js', import.meta.url), 'utf8');

// A loaded page with the timeline's entries by type; returns the events perf.js sent. With later,
// entries (an array of arrays) the timeline reports after the sample, each to the live observers,
// then the timers due run; hide, the page hidden at the end.
function run(timeline, later = [], hide = false) {
  const sent = [];
  let timers = [];
  const live = [];
  const listeners = {};
  class PerformanceObserver {
    constructor(cb) { this.cb = cb; }
    observe({ type, buffered }) { this.type = type; if (!buffered) live.push(this); }
    takeRecords() { return timeline[this.type] || []; }
    disconnect() { live.splice(live.indexOf(this), 1); }
  }
  const G = {
    parts: new Set(),
    alive: () => true,
    flush: () => sent.push('flush'),
    sendNow: (e) => sent.push(JSON.parse(JSON.stringify(e))),
    listen: (_, type, fn) => { listeners[type] = fn; },
    onShutdown: () => {},
  };
  const ctx = {
    __gasolineContent: G,
    PerformanceObserver,
    performance: { timeOrigin: 1763800000000.4, getEntriesByType: (t) => timeline[t] || [] },
    document: { readyState: 'complete', visibilityState: 'visible' },
    window: {},
    location: { href: 'http://app.test/' },
    setTimeout: (fn) => { timers.push(fn); return fn; },
    clearTimeout: (fn) => { timers = timers.filter((t) => t !== fn); },
    Date,
  };
  vm.runInNewContext(source, ctx);
  const due = () => { for (const fn of timers.splice(0)) fn(); };
  due();
  ctx.location.href = 'http://app.test/#pushed'; // a pushState after the load: the rows still join it
  for (const entries of later) {
    for (const o of [...live]) o.cb({ getEntries: () => entries });
    if (!hide) due();
  }
  if (hide) {
    ctx.document.visibilityState = 'hidden';
    listeners.visibilitychange();
  }
  return sent;
}

const nav = {
  name: 'http://app.test/', startTime: 0, duration: 400, transferSize: 3000, responseStatus: 200,
  domainLookupStart: 1, domainLookupEnd: 4, connectStart: 4, secureConnectionStart: 6, connectEnd: 10,
  requestStart: 11, responseStart: 60, responseEnd: 70,
  domContentLoadedEventEnd: 200, loadEventEnd: 380,
};

function resource(i, type) {
  return { name: `http://app.test/r${i}`, initiatorType: type, startTime: 80 + i, duration: 20, transferSize: 500,
    requestStart: 82 + i, responseStart: 90 + i, responseEnd: 100 + i };
}

test('a load sends the document and each resource as a row, with its phases', () => {
  const [ev] = run({ navigation: [nav], resource: [resource(1, 'script'), resource(2, 'img')], paint: [{ name: 'first-contentful-paint', startTime: 150 }] });
  const d = ev.data;
  assert.equal(ev.kind, 'performance');
  assert.equal(d.origin, 1763800000000);
  assert.deepEqual(d.resources.map((r) => r.type), ['navigation', 'script', 'img']);
  assert.deepEqual(d.resources[0], { url: 'http://app.test/', type: 'navigation', start: 0, duration: 70, size: 3000,
    status: 200, dns: 3, connect: 6, tls: 4, wait: 49, download: 10 });
  assert.deepEqual(d.resources[1], { url: 'http://app.test/r1', type: 'script', start: 81, duration: 20, size: 500, wait: 8, download: 10 });
  assert.equal('resources_dropped' in d, false);
  assert.equal('inp' in d, false, 'no interaction, no INP');
});

test('rows past the count bound are counted in resources_dropped', () => {
  const res = Array.from({ length: 320 }, (_, i) => resource(i, 'img'));
  const [ev] = run({ navigation: [nav], resource: res, paint: [{ name: 'first-contentful-paint', startTime: 150 }] });
  assert.equal(ev.data.resources.length, 300);
  assert.equal(ev.data.resources_dropped, 21);
});

test('rows past the bytes bound are counted too', () => {
  const res = Array.from({ length: 100 }, (_, i) => ({ ...resource(i, 'img'), name: `http://app.test/${'x'.repeat(3000)}${i}` }));
  const [ev] = run({ navigation: [nav], resource: res, paint: [{ name: 'first-contentful-paint', startTime: 150 }] });
  const bytes = ev.data.resources.reduce((n, r) => n + r.url.length + r.type.length + 96, 0);
  assert.ok(bytes <= 64 << 10, `${bytes} B`);
  assert.ok(ev.data.resources.every((r) => r.url.length <= 2048));
  assert.equal(ev.data.resources.length + ev.data.resources_dropped, 101);
});

test('INP is the worst interaction, each interaction by its longest event', () => {
  const event = [
    { interactionId: 1, duration: 40 }, { interactionId: 1, duration: 120 },
    { interactionId: 2, duration: 260 }, { interactionId: 0, duration: 900 }, // 0: not an interaction
  ];
  const [ev] = run({ navigation: [nav], event, paint: [{ name: 'first-contentful-paint', startTime: 150 }] });
  assert.equal(ev.data.inp, 260);
});

const loaded = { navigation: [nav], paint: [{ name: 'first-contentful-paint', startTime: 150 }] };

test('requests after the sample join the load in batches of their own, fetch and XHR left to their hooks', () => {
  const sent = run({ ...loaded, resource: [resource(1, 'script')] },
    [[resource(7, 'img'), resource(8, 'fetch'), resource(9, 'xmlhttprequest')], [resource(10, 'script')]]);
  assert.equal(sent.length, 3);
  const [first, a, b] = sent.map((e) => e.data);
  for (const d of [a, b]) {
    assert.equal(d.more, true);
    assert.equal(d.url, 'http://app.test/', 'the sample\'s URL, not the page\'s after a pushState');
    assert.equal(d.origin, first.origin);
  }
  assert.deepEqual(a.resources.map((r) => r.url), ['http://app.test/r7']);
  assert.deepEqual(b.resources.map((r) => r.url), ['http://app.test/r10']);
});

test('later rows share the load\'s bounds, and go at once when the page is hidden', () => {
  const res = Array.from({ length: 298 }, (_, i) => resource(i, 'img'));
  const sent = run({ ...loaded, resource: res }, [[resource(400, 'img')], [resource(401, 'img'), resource(402, 'img')]], true);
  assert.equal(sent.length, 2, 'one batch, when hidden');
  const more = sent[1].data;
  assert.equal(sent[0].data.resources.length, 299);
  assert.equal(more.resources.length, 1);
  assert.equal(more.resources_dropped, 2);
});

test('past the bounds, later rows are only counted, and the count goes when the page is hidden', () => {
  const res = Array.from({ length: 299 }, (_, i) => resource(i, 'img'));
  const busy = [[resource(400, 'img')], [resource(401, 'img')], [resource(402, 'img')]];
  assert.equal(run({ ...loaded, resource: res }, busy).length, 1, 'no message for rows only counted');
  const sent = run({ ...loaded, resource: res }, busy, true);
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[1].data.resources, []);
  assert.equal(sent[1].data.resources_dropped, 3);
});

test('the content script scrubs secrets from the rows\' URLs', () => {
  const scrub = require('../content/scrub.js');
  const d = scrub.event('performance', { url: 'http://app.test/', resources: [{ url: 'http://app.test/a.js?token=abc123', type: 'script' }] });
  assert.doesNotMatch(d.resources[0].url, /abc123/);
});
