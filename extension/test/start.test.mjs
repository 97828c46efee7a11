// node --test extension/test/: content/start.js holds the user's actions from the document's first
// moment, in order with inject.js's messages, never a password input's value; content.js takes them,
// and a page left before that hands them to the worker described.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const source = readFileSync(new URL('../content/start.js', import.meta.url), 'utf8');

// A document with a window whose listeners the test calls, and the worker's side of sendMessage.
function page() {
  const listeners = new Map();
  const sent = [];
  const window = {
    addEventListener: (type, fn) => listeners.set(type, fn),
    removeEventListener: (type, fn) => { if (listeners.get(type) === fn) listeners.delete(type); },
  };
  const timers = [];
  const ctx = {
    window,
    setTimeout: (fn, ms) => timers.push([fn, ms]),
    CSS: { escape: (s) => s },
    chrome: { runtime: { sendMessage: (m) => { sent.push(m); return Promise.resolve(); } } },
    Date,
    JSON,
    Array,
    String,
    Element: { prototype: ElementProto },
  };
  ctx.globalThis = ctx;
  vm.runInNewContext(source, ctx);
  const fire = (type, target, more = {}) => listeners.get(type)({ type, target, isTrusted: true, ...more });
  return { S: ctx.__gasolineStart, ctx, listeners, sent, fire, timers };
}

// Element.prototype's getAttribute, which start.js calls as its own.
const ElementProto = { getAttribute(a) { return a in this.attrs ? this.attrs[a] : null; } };

// An element: tag, attributes, a parent.
function el(tag, attrs = {}, parent = null) {
  const e = Object.assign(Object.create(ElementProto), {
    nodeType: 1, tagName: tag.toUpperCase(), id: attrs.id || '', type: attrs.type, value: attrs.value,
    parentElement: parent, children: [], attrs,
    getAttribute: (a) => (a in attrs ? attrs[a] : null),
    closest: (sel) => { for (let c = e; c; c = c.parentElement) if (sel.split(',').includes(c.tagName.toLowerCase())) return c; return null; },
  });
  if (parent) parent.children.push(e);
  return e;
}

test('actions are held in order with their time, a field its value, a password input never', () => {
  const { S, fire } = page();
  const body = el('body');
  const first = el('input', { id: 'first', type: 'text', value: 'Ada' }, body);
  const pw = el('input', { id: 'pw', type: 'password', value: 'hunter2' }, body);
  fire('input', first);
  fire('change', first);
  fire('input', pw);
  fire('click', body);
  fire('click', body, { isTrusted: false }); // a page's own click() is not the user's
  fire('keydown', first, { key: 'a' }); // only Enter and Escape
  fire('keydown', first, { key: 'Enter' });
  fire('keydown', first, { key: 'Enter', isTrusted: false }); // the page's own KeyboardEvent
  fire('submit', body, { isTrusted: false }); // the page's own dispatchEvent(new Event('submit'))
  fire('submit', body);
  const held = S.take();
  assert.deepEqual(structuredClone(held.map((a) => [a.act, a.el === first ? 'first' : a.el === pw ? 'pw' : 'body', a.v, a.key])), [
    ['input', 'first', 'Ada', undefined],
    ['change', 'first', 'Ada', undefined],
    ['input', 'pw', undefined, undefined],
    ['click', 'body', undefined, undefined],
    ['keydown', 'first', undefined, 'Enter'],
    ['submit', 'body', undefined, undefined],
  ]);
  assert.ok(held.every((a) => typeof a.ts === 'number'));
  assert.ok(!JSON.stringify(held.map((a) => a.v)).includes('hunter2'));
});

test('a submit the page makes with requestSubmit() and no person’s click or key before it is not held', () => {
  const { S, ctx, fire } = page();
  const body = el('body');
  ctx.navigator = { userActivation: { isActive: false } };
  fire('submit', body); // trusted, as requestSubmit()'s is, but no activation
  ctx.navigator.userActivation.isActive = true;
  fire('submit', body);
  assert.equal(S.take().length, 1);
});

test('content.js taking what is held stops the holding', () => {
  const { S, listeners, fire } = page();
  fire('click', el('body'));
  assert.equal(S.take().length, 1);
  for (const type of ['click', 'input', 'change', 'submit', 'keydown']) assert.ok(!listeners.has(type), type);
});

test('a page left before content.js came hands its actions to the worker, a field typed in once', () => {
  const { fire, listeners, sent } = page();
  const body = el('body');
  const form = el('form', {}, body);
  const first = el('input', { name: 'first', type: 'text', value: 'A' }, form);
  const key = el('input', { id: 'key', type: 'text', value: 'sk-1', name: 'api_key' }, form);
  const b1 = el('button', {}, form);
  const b2 = el('button', {}, form);
  fire('input', first);
  first.value = 'Ada';
  fire('input', first);
  fire('change', first);
  fire('input', key);
  const label = el('span', {}, b2);
  fire('click', label); // a click inside a button is the button's
  fire('keydown', first, { key: 'Escape' });
  listeners.get('pagehide')();
  assert.equal(sent.length, 1);
  assert.equal(sent[0].type, 'held');
  assert.deepEqual(structuredClone(sent[0].events.map((e) => { const { ts: _ts, ...d } = e.data; return d; })), [
    { type: 'input', selector: 'input[name="first"]', input_type: 'text', value: 'Ada', field: ['text', 'first', '', ''] },
    { type: 'input', selector: '#key', input_type: 'text', value: 'sk-1', field: ['text', 'api_key', 'key', ''] },
    { type: 'click', selector: 'body > form > button:nth-of-type(2)' },
    { type: 'keypress', selector: 'input[name="first"]', text: 'Escape' },
  ]);
  assert.ok(b1);
});

test('a held click\'s path reads ids with Element\'s own getAttribute: a form\'s fields named "id" or "getAttribute" do not count', () => {
  const { fire, listeners, sent } = page();
  const body = el('body');
  const form = el('form', {}, body);
  const field = el('input', { name: 'id', type: 'hidden' }, form);
  form.id = field; // as a browser's form.id is, with such a field
  form.getAttribute = () => { throw new TypeError('form.getAttribute is not a function'); }; // a field named getAttribute
  const section = el('div', { id: 'panel' }, form);
  const button = el('button', {}, section);
  const other = el('button', {}, form);
  fire('click', button);
  fire('click', other);
  listeners.get('pagehide')();
  assert.deepEqual(structuredClone(sent[0].events.map((e) => e.data.selector)), ['#panel > button', 'body > form > button']);
});

test("the first action asks the worker for the rest if it has not come 3 s later", () => {
  const { fire, sent, timers, ctx } = page();
  fire('click', el('body'));
  fire('click', el('body'));
  assert.equal(timers.length, 1);
  assert.equal(timers[0][1], 3000);
  timers[0][0]();
  assert.deepEqual(sent.map((m) => m.type), ['missed']);
  // content.js came meanwhile: no question.
  const other = page();
  other.fire('click', el('body'));
  other.ctx.__gasolineContent = {};
  other.timers[0][0]();
  assert.equal(other.sent.length, 0);
  assert.ok(ctx);
});
