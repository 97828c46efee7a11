// Gasoline content script, part 5a (before content/act.js): whether the page has settled after one of
// the AI's actions. The page's changes are watched from just before the input (watch, at act.js's
// prepare), so that what a handler changed at once counts. A page that reacts gets QUIET_MS after its last
// change to finish; one that neither changed its DOM nor started a request (`reacted`, the worker's) within
// STILL_MS is taken as done: a static page's answer then costs STILL_MS, not QUIET_MS. A later change is in
// the next observe.
(() => {
  'use strict';

  const G = globalThis.__gasolineContent;
  if (!G || G.quiet) return;

  const QUIET_MS = 300; // after the page's last change
  const STILL_MS = 150; // a page that changed nothing by then, and started no request, did not react
  const WATCH_MAX_MS = 5000; // an action that never settles stops being watched

  /** @typedef {{mo: MutationObserver, last: number, timer: number}} Changes */
  /** @type {Changes | null} */
  let changes = null;

  function watch() {
    stop();
    const w = { mo: new MutationObserver(() => { w.last = performance.now(); }), last: 0, timer: 0 };
    w.mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    w.timer = setTimeout(stop, WATCH_MAX_MS);
    changes = w;
  }

  function stop() {
    if (!changes) return;
    changes.mo.disconnect();
    clearTimeout(changes.timer);
    changes = null;
  }

  /** Resolves with the ms waited once the page is quiet, or maxMS have passed. */
  function quiet(maxMS, reacted) {
    if (!changes) watch();
    const w = /** @type {Changes} */ (changes); // watch set it
    return new Promise((resolve) => {
      const t0 = performance.now();
      const tick = () => {
        const now = performance.now();
        const due = !reacted && !w.last ? t0 + STILL_MS : (w.last || t0) + QUIET_MS;
        if (now >= due || now - t0 >= maxMS || changes !== w) {
          if (changes === w) stop();
          resolve(Math.round(now - t0));
        } else setTimeout(tick, Math.min(50, due - now + 1));
      };
      tick();
    });
  }

  G.quiet = { watch, stop, quiet };
})();
