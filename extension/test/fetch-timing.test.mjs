// node --test extension/test/: a fetch or XHR's phases from its performance entry (page/inject-network.js's
// phases.of), against fake entries: the one that started within the hook's own call, never another's.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The performance timeline as the page world sees it: classes whose prototypes hold the getters.
let entries = [];
let bufferReads = 0;
class Performance {
  getEntriesByName(name, type) {
    bufferReads++;
    return entries.filter((e) => e.t.name === name && type === 'resource');
  }
}
class PerformanceEntry {}
Object.defineProperty(PerformanceEntry.prototype, 'startTime', { get() { return this.t.startTime; }, configurable: true });
Object.defineProperty(PerformanceEntry.prototype, 'name', { get() { return this.t.name; }, configurable: true });
class PerformanceResourceTiming extends PerformanceEntry {}
const KEYS = ['initiatorType', 'domainLookupStart', 'domainLookupEnd', 'connectStart', 'connectEnd', 'secureConnectionStart', 'requestStart', 'responseStart', 'responseEnd'];
for (const k of KEYS) Object.defineProperty(PerformanceResourceTiming.prototype, k, { get() { return this.t[k] ?? 0; }, configurable: true });

// Our observer: what the browser hands it (deliver) is kept though the page's buffer is full; what it
// has not handed over yet (pending) its takeRecords() gives.
let observed = null;
let pending = [];
class PerformanceObserverEntryList {
  constructor(list) { this.list = list; }
  getEntries() { return this.list; }
}
class PerformanceObserver {
  constructor(cb) { this.cb = cb; }
  observe(opts) { assert.deepEqual(opts, { type: 'resource' }); observed = this; }
  takeRecords() {
    const l = pending;
    pending = [];
    return l;
  }
}
const deliver = (...list) => observed.cb(new PerformanceObserverEntryList(list));

const W = { Performance, PerformanceEntry, PerformanceResourceTiming, PerformanceObserver, PerformanceObserverEntryList, performance: new Performance() };
globalThis.window = {
  __gasolineInject: {
    W, dateNow: Date.now, perfNow: () => 0, jsonStringify: JSON.stringify, objectKeys: Object.keys, isArray: Array.isArray,
    binaryLength: () => -1, addEL() {}, errorText: String, enqueue() {}, emit() {}, apply: Reflect.apply,
    then: Promise.prototype.then, truncated: (t) => ({ text: t, truncated: false }), RESPONSE_BODY_MAX: 16384,
  },
};
await import('../page/inject-network.js');
const { of: phasesOf, watch } = globalThis.window.__gasolineInject.phases;

const URL = 'http://localhost:3000/api/cart';
// An entry as the browser gives one for a request started at `at` over a new TLS connection.
const entry = (at, extra = {}) => Object.assign(Object.create(PerformanceResourceTiming.prototype), {
  t: {
    name: URL, initiatorType: 'fetch', startTime: at, domainLookupStart: at + 1, domainLookupEnd: at + 3.04,
    connectStart: at + 3.04, secureConnectionStart: at + 5, connectEnd: at + 9, requestStart: at + 9.5,
    responseStart: at + 309.5, responseEnd: at + 312, ...extra,
  },
});
const req = (start, sentAt) => ({ url: URL, start, sentAt });

test('a request gets its entry\'s phases, in tenths of a millisecond', () => {
  entries = [entry(100.2)];
  assert.deepEqual(phasesOf(req(100, 100.4), 'fetch'), { dns: 2, connect: 6, tls: 4, wait: 300, download: 2.5 });
});

test('two requests to one URL at once each get their own, in either order, even when one\'s entry is missing', () => {
  const a = entry(100.1, { requestStart: 110, responseStart: 900, responseEnd: 901 });
  const b = entry(100.5, { requestStart: 110, responseStart: 200, responseEnd: 210 });
  entries = [b];
  assert.equal(phasesOf(req(100, 100.3), 'fetch'), undefined, 'the first request\'s entry is not there yet: none, not the second\'s');
  assert.equal(phasesOf(req(100.3, 100.6), 'fetch').wait, 90, 'the second: its own');
  entries = [a, b];
  assert.equal(phasesOf(req(100, 100.3), 'fetch').wait, 790, 'the first, once its entry is there');
  entries = [entry(50, { responseStart: 70, requestStart: 60 }), entry(50.4, { requestStart: 60, responseStart: 75 })];
  assert.equal(phasesOf(req(50.2, 50.5), 'fetch').wait, 15, 'the nearest entry that started after the request did');
});

test('two entries within one request\'s call (the clock\'s grain): none rather than a guess; an entry taken is not given again', () => {
  entries = [entry(7), entry(7)];
  assert.equal(phasesOf(req(6.9, 7), 'fetch'), undefined);
  entries = [entry(8)];
  assert.ok(phasesOf(req(8, 8), 'fetch'));
  assert.equal(phasesOf(req(8, 8.1), 'fetch'), undefined, 'the entry went to the first request');
});

test('no entry, another kind\'s, or one outside the call: no phases', () => {
  entries = [];
  assert.equal(phasesOf(req(1, 2), 'fetch'), undefined);
  entries = [entry(1.5, { initiatorType: 'img' })];
  assert.equal(phasesOf(req(1, 2), 'fetch'), undefined);
  entries = [entry(1.5, { initiatorType: 'xmlhttprequest' })];
  assert.equal(phasesOf(req(1, 2), 'fetch'), undefined);
  assert.ok(phasesOf(req(1, 2), 'xmlhttprequest'));
  entries = [entry(0.9), entry(2.1)];
  assert.equal(phasesOf(req(1, 2), 'fetch'), undefined);
  entries = [entry(1.5)];
  assert.equal(phasesOf({ url: URL, start: 1 }, 'fetch'), undefined, 'a call that never returned');
  assert.equal(phasesOf(req(1, 2), 'fetch') !== undefined, true);
});

test('a cross-origin entry without Timing-Allow-Origin (zeros) gives no phases; a reused connection no dns/connect', () => {
  entries = [entry(1.5, { domainLookupStart: 0, domainLookupEnd: 0, connectStart: 0, connectEnd: 0, secureConnectionStart: 0, requestStart: 0, responseStart: 0 })];
  assert.equal(phasesOf(req(1, 2), 'fetch'), undefined);
  entries = [entry(1.5, { domainLookupStart: 1.5, domainLookupEnd: 1.5, connectStart: 1.5, connectEnd: 1.5, secureConnectionStart: 0 })];
  assert.deepEqual(phasesOf(req(1, 2), 'fetch'), { wait: 300, download: 2.5 });
  entries = [entry(1.5, { responseEnd: 0 })];
  assert.equal(phasesOf(req(1, 2), 'fetch'), undefined, 'not finished');
});

test('the page replacing the timeline\'s methods and getters after inject runs none of its code', () => {
  const gebn = Performance.prototype.getEntriesByName;
  const rs = Object.getOwnPropertyDescriptor(PerformanceResourceTiming.prototype, 'requestStart');
  const st = Object.getOwnPropertyDescriptor(PerformanceEntry.prototype, 'startTime');
  const boom = () => { throw new Error('the page\'s code ran'); };
  Performance.prototype.getEntriesByName = boom;
  Object.defineProperty(PerformanceResourceTiming.prototype, 'requestStart', { get: boom, configurable: true });
  Object.defineProperty(PerformanceEntry.prototype, 'startTime', { get: boom, configurable: true });
  const iter = Array.prototype[Symbol.iterator];
  Array.prototype[Symbol.iterator] = boom;
  try {
    entries = [entry(100.2)];
    assert.equal(phasesOf(req(100, 100.4), 'fetch').wait, 300);
  } finally {
    Array.prototype[Symbol.iterator] = iter;
    Performance.prototype.getEntriesByName = gebn;
    Object.defineProperty(PerformanceResourceTiming.prototype, 'requestStart', rs);
    Object.defineProperty(PerformanceEntry.prototype, 'startTime', st);
  }
});

test('an entry the page\'s full buffer did not take is found among those observed; one in both is one', () => {
  assert.equal(observed, null, 'no observer before the page\'s first request');
  watch();
  watch();
  assert.ok(observed, 'the first request starts one');
  const first = observed;
  watch();
  assert.equal(observed, first, 'and only one');
  entries = [];
  const e = entry(300.2, { requestStart: 310, responseStart: 330 });
  deliver(entry(300.1, { initiatorType: 'img' }), e);
  assert.equal(phasesOf(req(300, 300.4), 'fetch').wait, 20);
  const f = entry(400.2, { requestStart: 410, responseStart: 440 });
  deliver(f);
  entries = [f];
  assert.equal(phasesOf(req(400, 400.4), 'fetch').wait, 30, 'the same entry in the buffer and observed');
  deliver(entry(450.2, { name: 'http://localhost:3000/api/other' }));
  assert.equal(phasesOf(req(450, 450.4), 'fetch'), undefined, 'another URL\'s');
  deliver(entry(500.2), entry(500.3));
  assert.equal(phasesOf(req(500, 500.4), 'fetch'), undefined, 'two observed in one call: none');
  for (let i = 0; i < 200; i++) deliver(entry(1000 + i));
  assert.ok(phasesOf(req(1198.9, 1199.1), 'fetch'), 'the newest kept');
  assert.equal(phasesOf(req(1000, 1000.05), 'fetch'), undefined, 'the oldest gone: the observed are bounded');
  deliver(entry(800.2));
  for (let i = 0; i < 200; i++) deliver(entry(2000 + i, { initiatorType: 'img' }));
  assert.ok(phasesOf(req(800, 800.4), 'fetch'), 'a page load\'s images do not push a fetch\'s entry out');
  Object.defineProperty(PerformanceEntry.prototype, 'name', { get() { throw new Error('the page\'s getter'); }, configurable: true });
  try {
    deliver(entry(600.2));
    assert.ok(phasesOf(req(600, 600.4), 'fetch'));
  } finally {
    Object.defineProperty(PerformanceEntry.prototype, 'name', { get() { return this.t.name; }, configurable: true });
  }
});

test('a request started after the observer is looked up among the observed and those not handed over yet, not in the buffer', () => {
  assert.ok(observed, 'after the test above');
  entries = [entry(700.1)]; // in the buffer, never observed: cannot happen once the observer runs
  bufferReads = 0;
  pending = [entry(700.2, { requestStart: 710, responseStart: 750 })];
  assert.equal(phasesOf(req(700, 700.4), 'fetch').wait, 40, 'the one not handed over yet');
  assert.equal(bufferReads, 0, 'the page\'s buffer is not read');
  pending = [entry(710.2)];
  deliver(entry(710.3));
  assert.equal(phasesOf(req(710, 710.4), 'fetch'), undefined, 'one observed and one not handed over in one call: none');
  pending = [entry(720.2)];
  assert.ok(phasesOf(req(720, 720.4), 'fetch'));
  assert.equal(phasesOf(req(720, 720.4), 'fetch'), undefined, 'taken');
  assert.equal(bufferReads, 0);
});
