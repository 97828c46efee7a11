// Gasoline: page-world capture, part 2 of 5 (see inject.js): console,
// uncaught errors and unhandled rejections.
(() => {
  'use strict';

  const G = window.__gasolineInject;
  if (!G) return;
  const { W, dateNow, preview, errorText, trimStack, isErrorObject, enqueue } = G;
  const apply = Reflect.apply;

  // ---- console ---------------------------------------------------------------------
  // The wrapper's only work during the page's call: one mask test, and for a
  // captured level a timestamp and the arguments object (no copy, no preview).

  function consoleEntry(r) {
    const args = r.args;
    const n = args.length;
    const entry = { ts: r.ts, level: r.level, kind: 'console', message: n ? preview(args[0]) : '' };
    if (n > 1) {
      const rest = [];
      for (let i = 1; i < n && i < 21; i++) rest.push(preview(args[i]));
      entry.args = rest;
    }
    for (let i = 0; i < n; i++) {
      if (isErrorObject(args[i])) {
        const stack = trimStack(args[i].stack);
        if (stack) entry.stack = stack;
        break;
      }
    }
    return entry;
  }

  // The calls log_level leaves out are counted, never captured: one report a flush (an entry of kind
  // 'filtered', counted by the server, never stored) lets observe logs say what is missing and which
  // setting left it out. Its cost in the page's call: one increment.
  const left = [0, 0, 0, 0, 0]; // by LEVELS index
  let reporting = false;
  function filteredEntry() {
    reporting = false;
    /** @type {Record<string, number>} */
    const filtered = {};
    let any = false;
    for (let i = 0; i < left.length; i++) {
      if (left[i] > 0) {
        filtered[G.LEVELS[i]] = left[i];
        left[i] = 0;
        any = true;
      }
    }
    return any ? { ts: dateNow(), level: 'debug', kind: 'filtered', message: G.logLevel, filtered } : null;
  }

  G.LEVELS.forEach((level, i) => {
    const orig = console[level];
    if (typeof orig !== 'function') return;
    const bit = 1 << i;
    const wrapped = {
      [level]() {
        if ((G.logMask & bit) !== 0 && !G.busy) {
          try {
            enqueue('log', consoleEntry, { ts: dateNow(), level, args: arguments });
          } catch (_) { /* ignore */ }
        } else if (!G.busy) {
          left[i]++;
          if (!reporting) {
            reporting = true;
            try { enqueue('log', filteredEntry, null); } catch (_) { reporting = false; }
          }
        }
        return apply(orig, this, arguments);
      },
    }[level];
    try { console[level] = wrapped; } catch (_) { /* frozen console */ }
  });

  // ---- uncaught errors and unhandled rejections -------------------------------------------

  function exceptionEntry(r) {
    const err = r.error;
    const entry = {
      ts: r.ts,
      level: 'error',
      kind: 'exception',
      message: r.message || (err ? errorText(err) : 'Script error'),
    };
    if (r.filename) entry.source = `${r.filename}:${r.lineno}:${r.colno}`;
    const stack = err && typeof err === 'object' ? trimStack(err.stack) : '';
    if (stack) entry.stack = stack;
    return entry;
  }

  function rejectionEntry(r) {
    const reason = r.reason;
    const isErr = isErrorObject(reason);
    const entry = { ts: r.ts, level: 'error', kind: 'rejection', message: isErr ? errorText(reason) : preview(reason) };
    const stack = isErr ? trimStack(reason.stack) : '';
    if (stack) entry.stack = stack;
    return entry;
  }

  const ErrorEventCtor = W.ErrorEvent;
  try {
    G.addEL.call(W, 'error', (e) => {
      try {
        if (!(e instanceof ErrorEventCtor)) return; // resource load errors
        enqueue('log', exceptionEntry, {
          ts: dateNow(), message: e.message, filename: e.filename, lineno: e.lineno, colno: e.colno, error: e.error,
        });
      } catch (_) { /* ignore */ }
    }, true);

    G.addEL.call(W, 'unhandledrejection', (e) => {
      try {
        enqueue('log', rejectionEntry, { ts: dateNow(), reason: e.reason });
      } catch (_) { /* ignore */ }
    }, true);
  } catch (_) { /* ignore */ }
})();
//# sourceURL=gasoline-inject-console.js
