// What execute_js answers, as pure functions (Node tests import them): the time limit of a script,
// how V8's exceptions read, and the page-side serializer that turns any value into bounded JSON text
// (page/serialize.js's, shared with the page-world capture).

import { QueryError } from './errors.js';
import '../page/serialize.js'; // defines globalThis.__gasolineSerializer

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
// characters ({json, cut}): the page world's own serialiser (page/serialize.js), so that a value reads
// the same in an execute_js result as in a captured console argument.
/** @type {(key: string, max: number) => {json: string, cut: boolean}} */
export const serializeParked = /** @type {any} */ (globalThis).__gasolineSerializer;

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
