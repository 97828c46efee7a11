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

// A loaded page with the timeline's entries by type, sampled: feed(entries) gives entries the
// timeline reports later to the live observers of their type, tick() runs the timers due, hide()
// hides the page; sent is the events perf.js sent.
function page(timeline) {
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
  const tick = () => { for (const fn of timers.splice(0)) fn(); };
  tick();
  ctx.location.href = 'http://app.test/#pushed'; // a pushState after the load: the rows still join it
  return {
    sent,
    tick,
    feed(entries) {
      for (const o of [...live]) {
        const mine = entries.filter((e) => (e.entryType || 'resource') === o.type);
        if (mine.length) o.cb({ getEntries: () => mine });
      }
    },
    hide() {
      ctx.document.visibilityState = 'hidden';
      listeners.visibilitychange();
    },
  };
}

// The page's sent events, with later, entries (an array of arrays) fed after the sample, each
// followed by the timers due; hide, the page hidden at the end instead.
function run(timeline, later = [], hide = false) {
  const p = page(timeline);
  for (const entries of later) {
    p.feed(entries);
    if (!hide) p.tick();
  }
  if (hide) p.hide();
  return p.sent;
}

const nav = {
  name: 'http://app.test/', startTime: 0, duration: 400, transferSize: 3000, decodedBodySize: 2700, responseStatus: 200,
  domainLookupStart: 1, domainLookupEnd: 4, connectStart: 4, secureConnectionStart: 6, connectEnd: 10,
  requestStart: 11, responseStart: 60, responseEnd: 70,
  domContentLoadedEventEnd: 200, loadEventEnd: 380,
};

function resource(i, type) {
  return { name: `http://app.test/r${i}`, initiatorType: type, startTime: 80 + i, duration: 20, transferSize: 500, decodedBodySize: 400,
    requestStart: 82 + i, responseStart: 90 + i, responseEnd: 100 + i };
}

test('a load sends the document and each resource as a row, with its phases and its body\'s size', () => {
  const [ev] = run({ navigation: [nav], resource: [resource(1, 'script'), resource(2, 'img')], paint: [{ name: 'first-contentful-paint', startTime: 150 }] });
  const d = ev.data;
  assert.equal(ev.kind, 'performance');
  assert.equal(d.origin, 1763800000000);
  assert.deepEqual(d.resources.map((r) => r.type), ['navigation', 'script', 'img']);
  assert.deepEqual(d.resources[0], { url: 'http://app.test/', type: 'navigation', start: 0, duration: 70, size: 2700,
    status: 200, dns: 3, connect: 6, tls: 4, wait: 49, download: 10 });
  assert.deepEqual(d.resources[1], { url: 'http://app.test/r1', type: 'script', start: 81, duration: 20, size: 400, wait: 8, download: 10 });
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

const click = (interactionId, duration, entryType = 'event') => ({ entryType, interactionId, duration });
const shift = (startTime, value, hadRecentInput = false) => ({ entryType: 'layout-shift', startTime, value, hadRecentInput });

test('a slower interaction after the sample raises INP in a later message; a faster one sends nothing', () => {
  const p = page({ ...loaded, event: [click(1, 120)] });
  assert.equal(p.sent[0].data.inp, 120);
  p.feed([click(8, 40), click(8, 310.04), click(0, 900)]);
  p.tick();
  assert.equal(p.sent.length, 2);
  assert.deepEqual(p.sent[1].data, { url: 'http://app.test/', ts: p.sent[1].data.ts, origin: 1763800000000, more: true,
    resources: [], inp: 310 }, 'only what changed');
  p.feed([click(9, 80), click(10, 200)]);
  p.tick();
  assert.equal(p.sent.length, 2, 'INP no worse: no message');
});

test('interactions within the batching delay cost one message, and go at once when the page is hidden', () => {
  const p = page(loaded);
  for (let i = 1; i <= 20; i++) p.feed([click(i, 100 + i, i === 1 ? 'first-input' : 'event')]);
  p.tick();
  assert.equal(p.sent.length, 2);
  assert.equal(p.sent[1].data.inp, 120);
  p.feed([click(30, 400)]);
  p.hide();
  assert.equal(p.sent.length, 3);
  assert.equal(p.sent[2].data.inp, 400);
  p.tick();
  assert.equal(p.sent.length, 3, 'nothing left to send');
});

test('INP past 50 interactions is the worst but one per 50, over the sample and later interactions alike', () => {
  // Each interaction with a shorter event after its longest: one interaction, as long as its longest.
  const event = Array.from({ length: 60 }, (_, i) => [click(i + 1, 100 + i), click(i + 1, 50)]).flat();
  const p = page({ ...loaded, event });
  assert.equal(p.sent[0].data.inp, 158, '60 interactions: the second worst');
  p.feed(Array.from({ length: 60 }, (_, i) => click(i + 61, 300 + i)));
  p.tick();
  assert.equal(p.sent[1].data.inp, 357, '120 interactions: the third worst');
});

test('later layout shifts raise CLS by the same session windows as the sample\'s', () => {
  const p = page({ ...loaded, 'layout-shift': [shift(100, 0.05)] });
  assert.equal(p.sent[0].data.cls, 0.05);
  p.feed([shift(600, 0.04)]); // the same burst: 0.09
  p.tick();
  assert.equal(p.sent[1].data.cls, 0.09);
  assert.equal('inp' in p.sent[1].data, false);
  p.feed([shift(3000, 0.5, true), shift(9000, 0.03), shift(9500, 0.03)]); // after input; a smaller burst
  p.tick();
  assert.equal(p.sent.length, 2, 'no larger window: no message');
  p.feed([shift(20000, 0.08), shift(20900, 0.08)]);
  p.tick();
  assert.equal(p.sent[2].data.cls, 0.16);
});

test('a later largest paint before any input raises LCP', () => {
  const p = page({ ...loaded, 'largest-contentful-paint': [{ renderTime: 300 }] });
  assert.equal(p.sent[0].data.lcp, 300);
  p.feed([{ entryType: 'largest-contentful-paint', renderTime: 0, loadTime: 1800.26, startTime: 1700 }]);
  p.tick();
  assert.equal(p.sent[1].data.lcp, 1800.3);
});
