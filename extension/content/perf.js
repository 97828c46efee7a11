// Gasoline content script, last part (run by the worker with the rest, after the load): measures the
// page load — navigation timing (TTFB, DOMContentLoaded, load), FCP, LCP, CLS, long tasks and a summary
// of resources by type — and sends one 'performance' event per navigation, SETTLE_MS after the load
// event (LCP and layout shifts keep coming for a moment), or earlier if the page is hidden first.
// Everything is read then, in one timer, from the performance timeline's buffers: nothing on the
// page's critical path. The isolated world shares the page's timeline, so this needs nothing from
// inject.js.
(() => {
  'use strict';

  const G = globalThis.__gasolineContent;
  if (!G || G.parts.has('perf') || typeof PerformanceObserver !== 'function') return;
  G.parts.add('perf');
  const SETTLE_MS = 1000;
  const LONG_TASK_MS = 50;
  const MAX_TYPES = 16; // features/perf.MaxTypes

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

  // CLS as the web-vitals definition has it: the largest burst of shifts less than 1 s apart,
  // at most 5 s long, ignoring shifts right after user input.
  function layoutShift() {
    let cls = 0;
    let burst = 0;
    let burstStart = 0;
    let burstLast = 0;
    for (const e of entries('layout-shift')) {
      if (e.hadRecentInput) continue;
      if (burst && e.startTime - burstLast < 1000 && e.startTime - burstStart < 5000) {
        burst += e.value;
      } else {
        burst = e.value;
        burstStart = e.startTime;
      }
      burstLast = e.startTime;
      cls = Math.max(cls, burst);
    }
    return cls;
  }

  const ms = (v) => Math.max(0, Math.round(v * 10) / 10);

  function resources() {
    const byType = {};
    let count = 0;
    let bytes = 0;
    for (const r of performance.getEntriesByType('resource')) {
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

  function sample() {
    const nav = performance.getEntriesByType('navigation')[0];
    const res = resources();
    const d = {
      url: location.href,
      ts: Date.now(),
      request_count: res.count,
      transfer_size: res.bytes,
      by_type: res.byType,
      cls: Math.round(layoutShift() * 1e4) / 1e4,
    };
    if (nav) {
      d.ttfb = ms(nav.responseStart);
      d.dom_content_loaded = ms(nav.domContentLoadedEventEnd);
      d.load_time = ms(nav.loadEventEnd || nav.loadEventStart);
    }
    const fcp = entries('paint').find((e) => e.name === 'first-contentful-paint');
    if (fcp) d.fcp = ms(fcp.startTime);
    const lcp = entries('largest-contentful-paint').pop();
    if (lcp) d.lcp = ms(lcp.renderTime || lcp.loadTime || lcp.startTime);
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
    if (!d.load_time && !d.fcp) G.flush();
    else G.sendNow({ kind: 'performance', data: d });
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
  });
  G.onShutdown(() => clearTimeout(timer));
})();
