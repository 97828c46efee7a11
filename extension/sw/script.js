// execute_js: the AI's script in the page's main world, through chrome.debugger (Runtime.evaluate, so
// V8 can end a script that runs too long), or chrome.scripting when a debugger cannot attach or the
// browser has none (Firefox).

import { NO_ACCESS } from './documents.js';
import { QueryError, errText } from './errors.js';
import { RESULT_MAX_BYTES, scriptTimeout, illegalReturn, scriptError, serializeParked, scriptResult } from './script-result.js';

const SERIALIZE_MS = 1000; // turning the script's value into JSON (its own time limit)
const DETACH_WAIT_MS = 1000;

class ScriptTimeout extends QueryError {
  constructor(ms) {
    super('timeout', `the script did not finish within ${ms} ms`);
  }
}

// Rejects with ScriptTimeout once `at` (epoch ms by clock) has passed.
function before(clock, at, ms, promise) {
  let timer;
  const t = new Promise((_, reject) => { timer = clock.setTimeout(() => reject(new ScriptTimeout(ms)), Math.max(0, at - clock.now())); });
  return Promise.race([promise, t]).finally(() => clock.clearTimeout(timer));
}

/**
 * @typedef {object} ScriptDeps
 * @property {{attach: Function, detach: Function, sendCommand: Function} | null} debugger chrome.debugger; null where the browser has none
 * @property {{executeScript: Function}} scripting chrome.scripting
 * @property {import('./clock.js').Clock} clock
 * @property {{assert(): void}} pilot the human's switch, checked right before the script runs
 * @property {(tabId: number, job: object) => Promise<unknown>} settled documents.js's: waits out a navigation
 * @property {() => string} randomKey a fresh global name to park a value under
 */

export class ScriptRunner {
  /** @param {ScriptDeps} deps */
  constructor(deps) {
    this.d = deps;
    // One debugger session per tab at a time (a second attach would fail as "another debugger").
    this.tabLocks = new Map(); // tabId → the tail of its queue
  }

  withTabLock(tabId, fn) {
    const run = (this.tabLocks.get(tabId) || Promise.resolve()).then(fn, fn);
    const tail = run.then(() => {}, () => {});
    this.tabLocks.set(tabId, tail);
    tail.then(() => { if (this.tabLocks.get(tabId) === tail) this.tabLocks.delete(tabId); });
    return run;
  }

  /** Runs p.script in the tab for job. */
  async run(tabId, p, job) {
    if (typeof p.script !== 'string' || !p.script.trim()) throw new QueryError('invalid_param', 'script is required');
    const ms = scriptTimeout(p);
    await this.d.settled(tabId, job);
    return this.withTabLock(tabId, async () => {
      if (job.done) return null; // the query ended while an earlier script held the tab: never run late
      this.d.pilot.assert();
      const dbg = this.d.debugger;
      if (!dbg) return this.runInMainWorld(tabId, p.script, ms, job);
      const target = { tabId };
      try {
        await dbg.attach(target, '1.3');
      } catch (err) {
        const m = errText(err);
        if (/No tab with/i.test(m)) throw new QueryError('not_found', `no tab with id ${tabId}`);
        if (/Cannot access|Cannot attach|chrome:\/\/|chrome-extension:\/\//i.test(m) && !/another debugger/i.test(m)) {
          throw new QueryError('not_found', `tab ${tabId} cannot be scripted: ${m}`);
        }
        return this.runInMainWorld(tabId, p.script, ms, job); // DevTools or another debugger holds the tab
      }
      const { clock } = this.d;
      try {
        return await this.evaluateAttached(target, p.script, ms);
      } finally {
        await before(clock, clock.now() + DETACH_WAIT_MS, DETACH_WAIT_MS, dbg.detach(target)).catch(() => {});
      }
    });
  }

  async evaluateAttached(target, script, ms) {
    const { clock } = this.d;
    // run() attached the debugger before it called this.
    const dbg = /** @type {NonNullable<ScriptDeps['debugger']>} */ (this.d.debugger);
    const send = (method, params) => dbg.sendCommand(target, method, params);
    const t0 = clock.now();
    const end = t0 + ms;
    const evaluate = async (expression, replMode) => {
      const left = Math.max(1, end - clock.now());
      try {
        return await before(clock, end + 250, ms, send('Runtime.evaluate', {
          expression, replMode, awaitPromise: true, returnByValue: false, timeout: left, userGesture: true, objectGroup: 'gasoline',
        }));
      } catch (err) {
        if (err instanceof QueryError) throw err;
        // V8 ends a script at `timeout` and the protocol answers "Internal error".
        if (clock.now() >= end - 10) throw new ScriptTimeout(ms);
        throw new QueryError('internal', `Runtime.evaluate: ${errText(err)}`);
      }
    };
    // The script as it is (expression or statements: its completion value; top-level await works), else
    // as an async function body when it uses a bare `return`.
    let r = await evaluate(script, true);
    if (illegalReturn(r)) r = await evaluate(`(async () => {\n${script}\n})()`, false);
    if (r.exceptionDetails) throw scriptError(r.exceptionDetails);
    let v = r.result || { type: 'undefined' };
    if (v.type === 'object' && v.subtype === 'promise' && v.objectId) {
      // A promise as the completion value: await it (an awaited promise is outside V8's timeout).
      r = await before(clock, end, ms, send('Runtime.awaitPromise', { promiseObjectId: v.objectId, returnByValue: false }));
      if (r.exceptionDetails) throw scriptError(r.exceptionDetails);
      v = r.result || { type: 'undefined' };
    }
    if (v.type === 'undefined') return scriptResult('null');
    if ('unserializableValue' in v) return scriptResult(JSON.stringify(String(v.unserializableValue)));
    if (v.type === 'symbol') return scriptResult(JSON.stringify(v.description || 'Symbol()'));
    if (v.type !== 'object' && v.type !== 'function') return scriptResult(JSON.stringify(v.value === undefined ? null : v.value));
    if (v.subtype === 'null' || !v.objectId) return scriptResult('null');
    // An object: park it under a random global key, then serialize it with a page-side walker that
    // runs under V8's timeout too (a getter that loops forever is ended, not left hanging).
    const key = this.d.randomKey();
    await send('Runtime.callFunctionOn', {
      objectId: v.objectId,
      functionDeclaration: 'function (k) { Object.defineProperty(globalThis, k, {value: this, configurable: true, writable: true}); }',
      arguments: [{ value: key }],
      silent: true,
    });
    let s;
    try {
      s = await before(clock, clock.now() + SERIALIZE_MS + 250, SERIALIZE_MS, send('Runtime.evaluate', {
        expression: `(${serializeParked.toString()})(${JSON.stringify(key)}, ${RESULT_MAX_BYTES})`,
        returnByValue: true, timeout: SERIALIZE_MS, silent: true,
      }));
    } catch (err) {
      // V8 ends the walker at SERIALIZE_MS (a getter that never returns) and the protocol says so.
      if (err instanceof QueryError || /terminated|Internal error/i.test(errText(err))) {
        throw new QueryError('timeout', `the script's value could not be turned into JSON within ${SERIALIZE_MS} ms`);
      }
      throw new QueryError('internal', `the script's value could not be turned into JSON: ${errText(err)}`);
    }
    if (s.exceptionDetails) throw new QueryError('internal', `the script's value could not be turned into JSON: ${scriptError(s.exceptionDetails).message}`);
    const out = s.result && s.result.value;
    if (!out || typeof out.json !== 'string') throw new QueryError('internal', "the script's value could not be turned into JSON");
    return scriptResult(out.json, out.cut);
  }

  // Without chrome.debugger (Firefox, or another debugger holds the tab): the page's main world through
  // chrome.scripting. Subject to the page's CSP (no eval → csp_blocked at once), and a synchronous endless
  // loop cannot be stopped.
  // The script is tried as an expression, else as an async function body (statements need `return`).
  async runInMainWorld(tabId, script, ms, job) {
    const { clock, scripting } = this.d;
    const key = this.d.randomKey();
    const target = { tabId, frameIds: [0] };
    const end = clock.now() + ms;
    let res;
    try {
      [res] = await before(clock, end + 250, ms, scripting.executeScript({ target, world: 'MAIN', func: runParked, args: [script, key, ms] }));
    } catch (err) {
      if (err instanceof QueryError) throw err;
      const m = errText(err);
      if (NO_ACCESS.test(m)) throw new QueryError('not_found', `tab ${tabId} cannot be scripted: ${m}`);
      throw new QueryError('internal', m);
    }
    const r = res && res.result;
    if (!r || typeof r !== 'object') throw new QueryError('internal', 'the page gave no answer');
    if (r.code) throw new QueryError(r.code, r.message || '');
    if (job.done) return null;
    let s;
    try {
      [s] = await before(clock, clock.now() + SERIALIZE_MS, SERIALIZE_MS, scripting.executeScript({ target, world: 'MAIN', func: serializeParked, args: [key, RESULT_MAX_BYTES] }));
    } catch (err) {
      throw new QueryError(err instanceof QueryError ? 'timeout' : 'internal', `the script's value could not be turned into JSON: ${errText(err)}`);
    }
    const out = s && s.result;
    if (!out || typeof out.json !== 'string') throw new QueryError('internal', "the script's value could not be turned into JSON");
    return scriptResult(out.json, out.cut);
  }
}

/** A global name for a parked value that the page cannot guess. */
export const parkingKey = () => `__gasoline_${crypto.randomUUID().replace(/-/g, '')}`;

// Runs in the page's main world (the fallback): compiles the script with the page's own Function (which
// its CSP may forbid), runs it, and parks the value at globalThis[key].
async function runParked(script, key, ms) {
  let fn;
  try {
    try {
      fn = new Function(`return (\n${script}\n);`);
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      fn = new (Object.getPrototypeOf(async () => {}).constructor)(script);
    }
  } catch (e) {
    if (e && e.name === 'EvalError') return { code: 'csp_blocked', message: `the page's Content-Security-Policy forbids running the script: ${e.message}` };
    return { code: 'script_error', message: String((e && e.stack) || e) };
  }
  let timer;
  try {
    const v = await Promise.race([
      Promise.resolve().then(() => fn.call(globalThis)),
      new Promise((_, reject) => { timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { gasolineTimeout: true })), ms); }),
    ]);
    Object.defineProperty(globalThis, key, { value: v, configurable: true, writable: true });
    return { ok: true };
  } catch (e) {
    if (e && e.gasolineTimeout) return { code: 'timeout', message: `the script did not finish within ${ms} ms` };
    const message = e instanceof Error ? String(e.stack || `${e.name}: ${e.message}`) : `Uncaught ${String(e)}`;
    return { code: 'script_error', message };
  } finally {
    clearTimeout(timer);
  }
}
