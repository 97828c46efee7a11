import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RESULT_MAX_BYTES, scriptTimeout, scriptResult, serializeParked, illegalReturn, scriptError } from '../sw/script-result.js';
import { QueryError } from '../sw/errors.js';

const park = (v, max = 1000) => {
  const key = `__t_${Math.random().toString(36).slice(2)}`;
  globalThis[key] = v;
  const out = serializeParked(key, max);
  assert.equal(key in globalThis, false, 'the parked value is removed');
  return out;
};

test('script time limit: default 5 s, at most 60 s', () => {
  assert.equal(scriptTimeout({}), 5000);
  assert.equal(scriptTimeout({ timeout_ms: 1500.7 }), 1500);
  assert.equal(scriptTimeout({ timeout_ms: 0 }), 5000);
  assert.equal(scriptTimeout({ timeout_ms: -3 }), 5000);
  assert.equal(scriptTimeout({ timeout_ms: 'x' }), 5000);
  assert.equal(scriptTimeout({ timeout_ms: 1e9 }), 60000);
});

test('values become JSON the way the AI reads them', () => {
  const o = { a: 1, u: undefined, f: function named() {}, n: NaN, big: 10n, d: [1, 'x', null, undefined] };
  o.self = o;
  const { json, cut } = park(o);
  assert.equal(cut, false);
  assert.deepEqual(JSON.parse(json), { a: 1, f: '[Function: named]', n: 'NaN', big: '10n', d: [1, 'x', null, null], self: '[Circular]' });
  assert.deepEqual(JSON.parse(park(new Map([['k', 1]])).json), [['k', 1]]);
  assert.deepEqual(JSON.parse(park(new Set([1, 2])).json), [1, 2]);
  assert.deepEqual(JSON.parse(park(new Error('boom')).json).message, 'boom');
  assert.equal(JSON.parse(park(new Date(0)).json), '1970-01-01T00:00:00.000Z');
  assert.equal(JSON.parse(park({ get bad() { throw new Error('no'); } }).json).bad, '[Threw: no]');
  assert.equal(JSON.parse(park(globalThis).json), '[Window]');
});

test('a value larger than the bound is cut', () => {
  const { json, cut } = park(Array.from({ length: 1000 }, (_, i) => i), 50);
  assert.equal(cut, true);
  assert.ok(json.length < 70, json.length);
});

test('results: JSON under the cap, a string preview over it', () => {
  assert.deepEqual(scriptResult('{"a":1}'), { result: { success: true, result: { a: 1 } } });
  const big = JSON.stringify('é'.repeat(RESULT_MAX_BYTES));
  const r = scriptResult(big).result;
  assert.equal(r.truncated, true);
  assert.ok(new TextEncoder().encode(r.result).length <= RESULT_MAX_BYTES);
  assert.equal(r.result.includes('\uFFFD'), false, 'no character cut in half');
  assert.equal(scriptResult('[1,', true).result.truncated, true);
});

test('V8 exceptions read as script errors', () => {
  assert.equal(illegalReturn({ exceptionDetails: { exception: { className: 'SyntaxError', description: 'SyntaxError: Illegal return statement' } } }), true);
  assert.equal(illegalReturn({ exceptionDetails: { stackTrace: {}, exception: { className: 'SyntaxError', description: 'Illegal return statement' } } }), false);
  assert.equal(illegalReturn({}), false);
  const e = scriptError({ exception: { type: 'string', value: 'nope' }, stackTrace: { callFrames: [{ functionName: 'f', url: 'u.js', lineNumber: 0, columnNumber: 4 }] } });
  assert.ok(e instanceof QueryError);
  assert.equal(e.code, 'script_error');
  assert.equal(e.message, 'Uncaught nope\n    at f (u.js:1:5)');
  assert.equal(scriptError({ exception: { type: 'object', description: 'TypeError: x\n    at y' } }).message, 'TypeError: x\n    at y');
});
