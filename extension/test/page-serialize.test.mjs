// The one serialiser (page/serialize.js): what a console argument reads in `observe logs` and what an
// execute_js result is, for the same value. The page world and the worker run this same function.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../page/serialize.js';
import { serializeParked } from '../sw/script-result.js';

const make = globalThis.__gasolineSerializer;
const PREVIEW = { max: 501, depth: 4, items: 50, str: 200 }; // inject.js's preview limits
const park = (v) => {
  const key = `__t_${Math.random().toString(36).slice(2)}`;
  globalThis[key] = v;
  return serializeParked(key, 65536).json;
};

/** The test's value: a Map, a Date, an object with toJSON, a cycle. */
function sample() {
  const o = {
    m: new Map([['a', 1], ['b', { c: 2 }]]),
    d: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)),
    j: { toJSON() { throw new Error('toJSON called'); }, kept: 1 },
    s: new Set(['x']),
  };
  o.self = o;
  return o;
}

test('the worker runs the page world\'s function', () => {
  assert.equal(typeof make, 'function');
  assert.equal(serializeParked, make);
});

test('a Map as its entries, a Date as its ISO time, toJSON never called, a cycle as "[Circular]"', () => {
  const serialize = make(null);
  const want = '{"m":[["a",1],["b",{"c":2}]],"d":"2024-01-02T03:04:05.000Z","j":{"toJSON":"[Function: toJSON]","kept":1},"s":["x"],"self":"[Circular]"}';
  assert.equal(serialize(sample(), PREVIEW).json, want);
  assert.equal(park(sample()), want, 'execute_js reads the same text');
});

test('built-ins are told by what they are, not by what they say', () => {
  const serialize = make(null);
  const fake = { [Symbol.toStringTag]: 'Map', size: 3 };
  assert.equal(serialize(fake, PREVIEW).json, '{"size":3}');
  const iterProto = Object.getPrototypeOf(new Map().entries());
  const realEntries = Map.prototype.entries;
  Map.prototype.entries = () => { throw new Error('the page\'s entries'); };
  const realNext = iterProto.next;
  iterProto.next = () => ({ done: true });
  try {
    assert.equal(serialize(new Map([[1, 2]]), PREVIEW).json, '[[1,2]]');
  } finally {
    Map.prototype.entries = realEntries;
    iterProto.next = realNext;
  }
  assert.equal(serialize(Object.create(Date.prototype), PREVIEW).json, '{}', 'not a Date: no time');
  assert.equal(serialize(new Date(NaN), PREVIEW).json, '"Invalid Date"');
  assert.equal(serialize(/a.b/gi, PREVIEW).json, '"/a.b/gi"');
});

test('a preview\'s limits: depth 4, 50 items, strings of 200, the whole cut past its budget', () => {
  const serialize = make(null);
  assert.equal(serialize({ a: { b: { c: { d: { e: 1 } } } } }, PREVIEW).json, '{"a":{"b":{"c":{"d":"[Object]"}}}}');
  assert.equal(serialize([[[[[1]]]]], PREVIEW).json, '[[[["[Array]"]]]]');
  const arr = serialize(Array.from({ length: 60 }, (_, i) => i), PREVIEW).json;
  assert.ok(arr.endsWith(',49,"… 10 more"]'), arr);
  const keys = serialize(Object.fromEntries(Array.from({ length: 52 }, (_, i) => [`k${i}`, i])), PREVIEW).json;
  assert.ok(keys.endsWith('"k49":49,"…":"2 more"}'), keys);
  assert.equal(JSON.parse(serialize(['y'.repeat(300)], PREVIEW).json)[0], `${'y'.repeat(200)}…`);
  const big = serialize(Array.from({ length: 50 }, () => 'z'.repeat(100)), PREVIEW);
  assert.equal(big.cut, true);
  assert.ok(big.json.length < 700, big.json.length);
  // execute_js's limits: no depth cut short of 100, every item.
  assert.deepEqual(JSON.parse(park({ a: { b: { c: { d: { e: 1 } } } } })), { a: { b: { c: { d: { e: 1 } } } } });
  assert.equal(JSON.parse(park(Array.from({ length: 60 }, (_, i) => i))).length, 60);
});

test('errors, getters that throw, numbers JSON has no word for', () => {
  const serialize = make(null);
  const e = JSON.parse(serialize({ e: new TypeError('bad') }, PREVIEW).json).e;
  assert.equal(e.name, 'TypeError');
  assert.equal(e.message, 'bad');
  assert.match(e.stack, /^TypeError: bad/);
  assert.equal(serialize({ get g() { throw new Error('no'); } }, PREVIEW).json, '{"g":"[Threw: no]"}');
  assert.equal(serialize([NaN, -Infinity, 10n, undefined, Symbol('s')], PREVIEW).json, '["NaN","-Infinity","10n",null,"Symbol(s)"]');
  assert.equal(serialize({ u: undefined, v: 1 }, PREVIEW).json, '{"v":1}', 'undefined left out, as JSON does');
});

test('an element as its tag, id and classes; a form\'s field named "id" (form.id) is not its id', () => {
  // A browser's Element: its id accessor reads the attribute, and refuses what is not an element; a
  // form's named field is an own property over it.
  class Element {
    constructor(name, id) { this.nodeType = 1; this.nodeName = name; this.attrId = id; this.className = ''; }
    get id() {
      if (!(this instanceof Element)) throw new TypeError('Illegal invocation'); // as WebIDL's accessors do
      return this.attrId;
    }
  }
  globalThis.Element = Element;
  let serialize;
  try {
    serialize = make(null);
  } finally {
    delete globalThis.Element;
  }
  const field = new Element('INPUT', '');
  const form = Object.defineProperty(new Element('FORM', 'account'), 'id', { value: field });
  form.className = 'card wide';
  assert.equal(serialize([form, field, { nodeType: 1, nodeName: 'P', id: 'note' }], PREVIEW).json, '["<form#account.card.wide>","<input>","<p#note>"]');
});
