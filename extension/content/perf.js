// Gasoline content script, last part (run by the worker with the rest, after the load;
// the observers' buffered entries still hold what came before): measures the page load — navigation timing (TTFB,
// DOMContentLoaded, load), FCP, LCP, CLS, long tasks and a summary of resources by type — and
// sends one 'performance' event per navigation, SETTLE_MS after the load event (LCP and layout
// shifts keep coming for a moment), or earlier if the page is hidden first. Everything runs in
// PerformanceObserver callbacks and one timer: nothing on the page's critical path. The isolated
// world shares the page's performance timeline, so this needs nothing from inject.js.
(() => {
  'use strict';

  const G = globalThis.__gasolineContent;
  if (!G || G.parts.has('perf') || typeof PerformanceObserver !== 'function') return;
  G.parts.add('perf');
  const scrub = globalThis.__gasolineScrub;
  const SETTLE_MS = 1000;
  const LONG_TASK_MS = 50;
  const MAX_TYPES = 16; // features/perf.MaxTypes

  let fcp = 0;
  let lcp = 0;
  let longTasks = 0;
  let blocking = 0;
  let longest = 0;
  // CLS as the web-vitals definition has it: the largest burst of shifts less than 1 s apart,
  // at most 5 s long, ignoring shifts right after user input.
  let cls = 0;
  let burst = 0;
  let burstStart = 0;
  let burstLast = 0;
  let sent = false;
  let timer = 0;
  const observers = [];

  function observe(type, fn) {
    try {
      const o = new PerformanceObserver((list) => { for (const e of list.getEntries()) fn(e); });
      o.observe({ type, buffered: true });
      observers.push(o);
    } catch (_) { /* this browser does not report type */ }
  }

  observe('paint', (e) => { if (e.name === 'first-contentful-paint') fcp = e.startTime; });
  observe('largest-contentful-paint', (e) => { lcp = e.renderTime || e.loadTime || e.startTime; });
  observe('longtask', (e) => {
    longTasks++;
    blocking += Math.max(0, e.duration - LONG_TASK_MS);
    longest = Math.max(longest, e.duration);
  });
  observe('layout-shift', (e) => {
    if (e.hadRecentInput) return;
    if (burst && e.startTime - burstLast < 1000 && e.startTime - burstStart < 5000) {
      burst += e.value;
    } else {
      burst = e.value;
      burstStart = e.startTime;
    }
    burstLast = e.startTime;
    cls = Math.max(cls, burst);
  });

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
      cls: Math.round(cls * 1e4) / 1e4,
    };
    if (nav) {
      d.ttfb = ms(nav.responseStart);
      d.dom_content_loaded = ms(nav.domContentLoadedEventEnd);
      d.load_time = ms(nav.loadEventEnd || nav.loadEventStart);
    }
    if (fcp) d.fcp = ms(fcp);
    if (lcp) d.lcp = ms(lcp);
    if (longTasks) {
      d.long_tasks = longTasks;
      d.total_blocking_time = ms(blocking);
      d.longest_task = ms(longest);
    }
    return d;
  }

  function send() {
    clearTimeout(timer);
    if (sent || !G.alive()) return;
    sent = true;
    for (const o of observers) o.disconnect();
    const d = sample();
    if (!d.load_time && !d.fcp) return; // nothing of a page load was measured (e.g. a prerender)
    d.url = scrub.url(d.url);
    chrome.runtime.sendMessage({ type: 'events', events: [{ kind: 'performance', data: d }] }).catch((err) => {
      if (G.invalidated(err)) G.shutdown();
    });
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
  G.onShutdown(() => {
    clearTimeout(timer);
    for (const o of observers) o.disconnect();
  });
})();
