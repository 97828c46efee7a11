// What execute_js answers, as pure functions (Node tests import them): the time limit of a script,
// how V8's exceptions read, and the page-side serializer that turns any value into bounded JSON text.

import { QueryError } from './errors.js';

const SCRIPT_DEFAULT_MS = 5000;
const SCRIPT_MAX_MS = 60000;
/** Bytes of a script's value the AI gets at most (more is cut to a string preview). */
export const RESULT_MAX_BYTES = 64 * 1024;

/** The script's time limit: timeout_ms within (0, SCRIPT_MAX_MS], else the default. */
export function scriptTimeout(p) {
  const ms = Math.floor(Number(p.timeout_ms));
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, SCRIPT_MAX_MS) : SCRIPT_DEFAULT_MS;
}

// V8 reports a bare top-level `return` as a compile error: no stack, nothing ran.
export const illegalReturn = (r) => {
  const d = r && r.exceptionDetails;
  return !!d && !d.stackTrace && d.exception && d.exception.className === 'SyntaxError' &&
    /Illegal return statement/.test(d.exception.description || '');
};

/** A script_error naming the exception and its stack, from Runtime exceptionDetails. */
export function scriptError(d) {
  const e = d.exception || {};
  let message;
  if (e.type === 'object' && e.description) message = e.description; // "<Name>: <message>\n    at …"
  else if ('value' in e) message = `Uncaught ${typeof e.value === 'string' ? e.value : JSON.stringify(e.value)}`;
  else message = e.unserializableValue ? `Uncaught ${e.unserializableValue}` : (e.description || d.text || 'Uncaught');
  if (!/\n\s+at /.test(message) && d.stackTrace && Array.isArray(d.stackTrace.callFrames)) {
    for (const f of d.stackTrace.callFrames.slice(0, 10)) {
      message += `\n    at ${f.functionName || '<anonymous>'} (${f.url || '<anonymous>'}:${f.lineNumber + 1}:${f.columnNumber + 1})`;
    }
  }
  return new QueryError('script_error', message);
}


// Runs in the page: turns the value parked at globalThis[key] into JSON text of at most about `max`
// characters ({json, cut}). Cycles become "[Circular]", functions "[Function: name]", DOM nodes a short
// description, Map/Set arrays, Errors {name, message, stack}; undefined in objects is left out as JSON does.
export function serializeParked(key, max) {
  const root = globalThis[key];
  try { delete globalThis[key]; } catch (_) { /* ignore */ }
  const parts = [];
  let size = 0;
  let cut = false;
  const stack = [];
  const put = (s) => {
    if (cut) return;
    parts.push(s);
    size += s.length;
    if (size > max) cut = true;
  };
  const str = (s) => put(JSON.stringify(s.length > max ? s.slice(0, max + 1) : s));
  const isNode = (x) => typeof x.nodeType === 'number' && typeof x.nodeName === 'string' && typeof x.cloneNode === 'function';
  const nodeText = (n) => {
    if (n.nodeType !== 1) return `[${n.nodeName}]`;
    let d = `<${String(n.nodeName).toLowerCase()}`;
    if (n.id) d += ` id="${n.id}"`;
    if (typeof n.className === 'string' && n.className) d += ` class="${n.className}"`;
    return `${d}>`;
  };
  const walk = (x, depth) => {
    if (cut) return;
    switch (typeof x) {
      case 'string': return str(x);
      case 'number': return put(Number.isFinite(x) ? String(x) : JSON.stringify(String(x)));
      case 'boolean': return put(String(x));
      case 'bigint': return str(`${x}n`);
      case 'undefined': return put('null');
      case 'symbol': return str(String(x));
      case 'function': return str(`[Function${x.name ? `: ${x.name}` : ''}]`);
      default: break;
    }
    if (x === null) return put('null');
    if (stack.includes(x)) return str('[Circular]');
    if (depth > 100) return str('[Too deep]');
    if (x === globalThis) return str('[Window]');
    if (isNode(x)) return str(nodeText(x));
    const tag = Object.prototype.toString.call(x);
    stack.push(x);
    try {
      if (tag === '[object Error]' || x instanceof Error) return walk({ name: x.name, message: x.message, stack: x.stack }, depth + 1);
      if (typeof x.toJSON === 'function') {
        const j = x.toJSON();
        if (j !== x) return walk(j, depth + 1);
      }
      if (tag === '[object Map]') return walk(Array.from(x.entries()), depth + 1);
      if (tag === '[object Set]') return walk(Array.from(x.values()), depth + 1);
      if (tag === '[object RegExp]') return str(String(x));
      if (tag === '[object Promise]') return str('[Promise]');
      const typed = /** @type {Uint8Array} */ (x); // a typed array if it has a length (a DataView has none)
      if (ArrayBuffer.isView(x) && typeof typed.length === 'number') return walk(Array.from(typed.subarray(0, max)), depth + 1);
      if (Array.isArray(x)) {
        put('[');
        for (let i = 0; i < x.length && !cut; i++) {
          if (i) put(',');
          walk(x[i], depth + 1);
        }
        return put(']');
      }
      put('{');
      let first = true;
      for (const k of Object.keys(x)) {
        if (cut) break;
        let val;
        try {
          val = x[k];
        } catch (e) {
          val = `[Threw: ${(e && e.message) || e}]`;
        }
        if (val === undefined) continue;
        if (!first) put(',');
        first = false;
        put(`${JSON.stringify(k)}:`);
        walk(val, depth + 1);
      }
      return put('}');
    } finally {
      stack.pop();
    }
  };
  walk(root, 0);
  return { json: parts.join(''), cut };
}

// The answer for a value given as JSON text: cut at RESULT_MAX_BYTES, then a string preview.
export function scriptResult(json, cut) {
  const bytes = new TextEncoder().encode(json);
  if (!cut && bytes.length <= RESULT_MAX_BYTES) {
    try {
      return { result: { success: true, result: JSON.parse(json) } };
    } catch (_) { /* not JSON after all: preview it */ }
  }
  let preview = new TextDecoder().decode(bytes.slice(0, RESULT_MAX_BYTES));
  if (preview.endsWith('\uFFFD')) preview = preview.slice(0, -1); // a character cut in half
  return { result: { success: true, truncated: true, result: preview } };
}
