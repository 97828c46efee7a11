// Gasoline content script, last part (run by the worker with the rest, after the load): measures the
// page load — navigation timing (TTFB, DOMContentLoaded, load), FCP, LCP, CLS, long tasks and a summary
// of resources by type — and sends one 'performance' event per navigation, SETTLE_MS after the load
// event (LCP and layout shifts keep coming for a moment), or earlier if the page is hidden first.
// Everything is read then, in one timer, from the performance timeline's buffers: nothing on the
// page's critical path. From then on, later requests and the vitals that keep changing (INP, CLS,
// LCP) follow in batches (sendLater). The isolated world shares the page's timeline, so this needs nothing from
// inject.js.
(() => {
  'use strict';

  const G = globalThis.__gasolineContent;
  if (!G || G.parts.has('perf') || typeof PerformanceObserver !== 'function') return;
  G.parts.add('perf');
  const SETTLE_MS = 1000;
  const LONG_TASK_MS = 50;
  const MAX_TYPES = 16; // features/perf.MaxTypes
  const MAX_RESOURCES = 300; // features/perf.MaxResources
  const MAX_RESOURCE_BYTES = 64 << 10; // features/perf.MaxResourceBytes
  const MAX_URL = 2048; // features/capture.MaxURL
  const ROW_OVERHEAD = 96; // what the server counts a row beside its strings

  let sent = false;
  let timer = 0;

  // The entries of type so far, from the performance timeline's buffers. Observers made at the sample,
  // not at the load: an observer costs the load time to make and a task each time it is called
  // (PERFORMANCE.md).
  function entries(type) {
    try {
      const o = new PerformanceObserver(() => {});
      o.observe({ type, buffered: true }); // the buffered entries are in its records at once
      const list = o.takeRecords();
      o.disconnect();
      return list;
    } catch (_) {
      return []; // this browser does not report type
    }
  }

  const ms = (v) => Math.max(0, Math.round(v * 10) / 10);

  // CLS as the web-vitals definition has it: the largest burst of shifts less than 1 s apart,
  // at most 5 s long, ignoring shifts right after user input. Fed the load's shifts at the sample,
  // then each later one, in the timeline's order: one definition for both.
  function shifts() {
    let cls = 0;
    let burst = 0;
    let burstStart = 0;
    let burstLast = 0;
    return {
      add(list) {
        for (const e of list) {
          if (e.hadRecentInput || !(e.value > 0)) continue;
          if (burst && e.startTime - burstLast < 1000 && e.startTime - burstStart < 5000) {
            burst += e.value;
          } else {
            burst = e.value;
            burstStart = e.startTime;
          }
          burstLast = e.startTime;
          cls = Math.max(cls, burst);
        }
      },
      value: () => Math.round(cls * 1e4) / 1e4,
    };
  }

  // INP as the web-vitals definition has it: each interaction's longest event, then the worst, or
  // with 50 interactions and more, the worst but one per 50 (the 98th percentile). Only the
  // MAX_WORST longest interactions are kept (the percentile reaches past them only after 500
  // interactions, where the last kept stands in), and interactions are counted by their ids, which
  // grow with each one, or by the browser's own count when it has one: memory bounded however long
  // the page lives. Fed the load's events at the sample, then each later one.
  const MAX_WORST = 10;
  function interactions(perf) {
    const worst = []; // {id, duration}, longest first
    let count = 0;
    let lastId = 0;
    return {
      add(list) {
        for (const e of list) {
          const id = e.interactionId;
          if (!id) continue;
          if (id > lastId) {
            lastId = id;
            count++;
          }
          const i = worst.findIndex((w) => w.id === id);
          if (i >= 0 && e.duration <= worst[i].duration) continue;
          if (i >= 0) worst.splice(i, 1);
          else if (worst.length >= MAX_WORST && e.duration <= worst[MAX_WORST - 1].duration) continue;
          worst.push({ id, duration: e.duration });
          worst.sort((a, b) => b.duration - a.duration);
          worst.length = Math.min(worst.length, MAX_WORST);
        }
      },
      value() {
        if (!worst.length) return 0;
        const n = Math.max(count, perf.interactionCount || 0);
        return ms(worst[Math.min(worst.length - 1, Math.floor(n / 50))].duration);
      },
    };
  }

  function resources(list) {
    const byType = {};
    let count = 0;
    let bytes = 0;
    for (const r of list) {
      count++;
      bytes += r.transferSize || 0;
      const type = String(r.initiatorType || 'other').slice(0, 32);
      if (!byType[type] && Object.keys(byType).length >= MAX_TYPES) continue;
      const t = byType[type] || (byType[type] = { count: 0, transfer_size: 0 });
      t.count++;
      t.transfer_size += r.transferSize || 0;
    }
    return { count, bytes, byType };
  }

  const span = (a, b) => (a > 0 && b >= a ? ms(b - a) : 0);

  // One request of the load as a row: when it started and took, its size, and its phases when the
  // browser exposes them (a cross-origin resource without Timing-Allow-Origin has none).
  function row(e, type) {
    // The document's entry lasts until its load event; its request ends with its response.
    const took = type === 'navigation' ? e.responseEnd - e.startTime : e.duration;
    const r = { url: String(e.name).slice(0, MAX_URL), type, start: ms(e.startTime), duration: ms(took) };
    const put = (k, v) => { if (v > 0) r[k] = v; };
    put('size', e.decodedBodySize || 0); // the body, as the network list's size (headers and the cache aside)
    put('status', e.responseStatus || 0);
    put('dns', span(e.domainLookupStart, e.domainLookupEnd));
    put('connect', span(e.connectStart, e.connectEnd));
    put('tls', span(e.secureConnectionStart, e.connectEnd));
    put('wait', span(e.requestStart, e.responseStart));
    put('download', span(e.responseStart, e.responseEnd));
    return r;
  }

  // What this load sent of its rows, against the server's bounds (the sample's and later ones).
  const kept = { rows: 0, bytes: 0 };

  // Rows of the entries (each [entry, type]) in their order, into list, up to the server's bounds;
  // returns how many did not fit: counted, not dropped in silence.
  function take(items, list) {
    let dropped = 0;
    for (const [e, type] of items) {
      if (kept.rows >= MAX_RESOURCES) {
        dropped++;
        continue;
      }
      const r = row(e, type);
      const b = r.url.length + r.type.length + ROW_OVERHEAD;
      if (kept.bytes + b > MAX_RESOURCE_BYTES) {
        dropped++;
        continue;
      }
      kept.rows++;
      kept.bytes += b;
      list.push(r);
    }
    return dropped;
  }

  const typeOf = (e) => String(e.initiatorType || 'other').slice(0, 32);

  // The document and every resource entry, in the timeline's order.
  function rows(nav, res) {
    const items = nav ? [[nav, 'navigation']] : [];
    for (const e of res) items.push([e, typeOf(e)]);
    const list = [];
    const dropped = take(items, list);
    return { list, dropped };
  }

  // What changes after the sample joins the load: requests (a lazy image, a script loaded on
  // demand; fetch and XHR are left to their hooks, which report them as they happen), and the
  // vitals that are the page's whole life's, not the load's: INP (every interaction), CLS (every
  // shift) and LCP (a later, larger paint, until the first input, when the browser stops reporting
  // candidates). Observers from the sample on; what they saw is sent in batches LATER_MS apart, or
  // at once when the page is hidden or left, so a busy page does not cost a message per interaction.
  const LATER_MS = 2000;
  const inp = interactions(performance);
  const cls = shifts();
  const lcpTime = (e) => ms(e.renderTime || e.loadTime || e.startTime);
  let lcp = 0;
  const told = { inp: 0, cls: 0, lcp: 0 }; // the vitals as the server last had them
  let later = [];
  let laterTimer = 0;
  const watchers = [];
  /** @type {{url: string, origin: string} | null} */
  let load = null; // of the sample the later rows join

  const current = () => ({ inp: inp.value(), cls: cls.value(), lcp });
  const changed = (v) => Object.keys(told).some((k) => v[k] > told[k]);

  function soon() {
    if (!laterTimer) laterTimer = setTimeout(() => sendLater(false), LATER_MS);
  }

  // Calls fn with each batch of type's entries from now on, if this browser reports type.
  function watch(type, options, fn) {
    try {
      const o = new PerformanceObserver((list) => fn(list.getEntries()));
      o.observe({ type, ...options });
      watchers.push(o);
    } catch (_) {
      // this browser does not report type
    }
  }

  function watchLater(d) {
    load = { url: d.url, origin: d.origin };
    Object.assign(told, { inp: d.inp || 0, cls: d.cls || 0, lcp: d.lcp || 0 });
    watch('resource', {}, (list) => {
      for (const e of list) {
        if (e.initiatorType !== 'fetch' && e.initiatorType !== 'xmlhttprequest') later.push(e);
      }
      if (later.length) soon();
    });
    const vital = (fn) => (list) => {
      fn(list);
      if (changed(current())) soon();
    };
    const events = vital((list) => inp.add(list));
    watch('event', { durationThreshold: 40 }, events);
    watch('first-input', {}, events);
    watch('layout-shift', {}, vital((list) => cls.add(list)));
    watch('largest-contentful-paint', {}, vital((list) => {
      for (const e of list) lcp = Math.max(lcp, lcpTime(e));
    }));
  }

  // Once the load's bounds are reached, what is left out is only counted, and the count goes when the
  // page is hidden or left: a busy page does not cost a message every LATER_MS for it.
  let laterDropped = 0;

  function sendLater(leaving) {
    clearTimeout(laterTimer);
    laterTimer = 0;
    if (!load || !G.alive()) return;
    const resources = [];
    laterDropped += take(later.map((e) => [e, typeOf(e)]), resources);
    later = [];
    const d = { url: load.url, ts: Date.now(), origin: load.origin, more: true, resources };
    const v = current();
    for (const k of Object.keys(told)) {
      if (v[k] > told[k]) d[k] = told[k] = v[k];
    }
    const vitals = Object.keys(told).some((k) => k in d);
    if (!resources.length && !vitals && !(leaving && laterDropped)) return;
    if (laterDropped) d.resources_dropped = laterDropped;
    laterDropped = 0;
    G.sendNow({ kind: 'performance', data: d });
  }

  function sample() {
    const nav = /** @type {PerformanceNavigationTiming | undefined} */ (performance.getEntriesByType('navigation')[0]);
    const all = performance.getEntriesByType('resource');
    const res = resources(all);
    const load = rows(nav, all);
    cls.add(entries('layout-shift'));
    inp.add([...entries('first-input'), ...entries('event')]);
    const d = {
      url: location.href,
      ts: Date.now(),
      request_count: res.count,
      transfer_size: res.bytes,
      by_type: res.byType,
      cls: cls.value(),
      origin: Math.round(performance.timeOrigin),
      resources: load.list,
    };
    if (load.dropped) d.resources_dropped = load.dropped;
    if (inp.value()) d.inp = inp.value();
    if (nav) {
      d.ttfb = ms(nav.responseStart);
      d.dom_content_loaded = ms(nav.domContentLoadedEventEnd);
      d.load_time = ms(nav.loadEventEnd || nav.loadEventStart);
    }
    const fcp = entries('paint').find((e) => e.name === 'first-contentful-paint');
    if (fcp) d.fcp = ms(fcp.startTime);
    const last = entries('largest-contentful-paint').pop();
    if (last) d.lcp = lcp = lcpTime(last);
    const long = entries('longtask');
    if (long.length) {
      d.long_tasks = long.length;
      d.total_blocking_time = ms(long.reduce((n, e) => n + Math.max(0, e.duration - LONG_TASK_MS), 0));
      d.longest_task = ms(Math.max(...long.map((e) => e.duration)));
    }
    return d;
  }

  function send() {
    clearTimeout(timer);
    if (sent || !G.alive()) return;
    sent = true;
    const d = sample();
    // With content.js's batch (the page's first navigation waits for it), scrubbed there; nothing of a
    // page load measured (a prerender): the batch goes alone.
    if (!d.load_time && !d.fcp) {
      G.flush();
      return;
    }
    G.sendNow({ kind: 'performance', data: d });
    watchLater(d);
  }

  // A sample needs the load event over (loadEventEnd set), so wait one task after it.
  function loaded() {
    if (!sent) timer = setTimeout(send, SETTLE_MS);
  }
  if (document.readyState === 'complete') loaded();
  else G.listen(window, 'load', () => setTimeout(loaded, 0));
  // Leaving before the settle: send what there is, if the load finished.
  G.listen(document, 'visibilitychange', () => {
    if (document.visibilityState === 'hidden' && document.readyState === 'complete') send();
    if (document.visibilityState === 'hidden') sendLater(true);
  });
  G.listen(window, 'pagehide', () => sendLater(true));
  G.onShutdown(() => {
    clearTimeout(timer);
    clearTimeout(laterTimer);
    for (const o of watchers) o.disconnect();
  });
})();
